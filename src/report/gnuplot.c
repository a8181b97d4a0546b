#include "report/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

/* A chart that takes longer than this is a hung gnuplot, not a big chart. */
#define GP_TIMEOUT_MS 60000
/* gnuplot's stderr is only read for the error message. */
#define GP_ERR_MAX 16384
/* An image larger than this means something is wrong with the script. */
#define GP_IMAGE_MAX (64u << 20)

int gp_term_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot)
        return -1;
    if (strcasecmp(dot, ".svg") == 0)
        return GP_SVG;
    if (strcasecmp(dot, ".png") == 0)
        return GP_PNG;
    return -1;
}

const char *gp_term_ext(enum gp_term t)
{
    return t == GP_PNG ? "png" : "svg";
}

void gp_quote(struct strbuf *sb, const char *s, size_t max_chars)
{
    size_t n = s ? strlen(s) : 0;
    int cut = 0;
    if (max_chars && n > max_chars) {
        n = max_chars;
        /* step back over UTF-8 continuation bytes so we never split a
         * character (gnuplot would show a replacement box) */
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        cut = 1;
    }
    size_t i = 0;
    if (n > 0 && s[0] == '\'') {
        /* gnuplot reads a literal opening with '' as an empty string and
         * chokes on what follows, so a leading quote is written as a
         * double-quoted "'" joined to the rest (no escapes inside) */
        strbuf_addstr(sb, "\"'\" . ");
        i = 1;
    }
    strbuf_addch(sb, '\'');
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\'')
            strbuf_addstr(sb, "''");
        else if (c < 0x20 || c == 0x7f)
            strbuf_addch(sb, ' ');
        else
            strbuf_addch(sb, (char)c);
    }
    if (cut)
        strbuf_addstr(sb, "...");
    strbuf_addch(sb, '\'');
}

void gp_num(struct strbuf *sb, double v)
{
    if (!isfinite(v))
        strbuf_addstr(sb, "NaN");
    else
        strbuf_addf(sb, "%.9g", v);
}

char *gnuplot_find(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    struct strbuf sb = STRBUF_INIT;
    char *found = NULL;
    const char *p = path;
    while (!found) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        strbuf_reset(&sb);
        if (len == 0)
            strbuf_addstr(&sb, ".");
        else
            strbuf_add(&sb, p, len);
        strbuf_addstr(&sb, "/gnuplot");
        struct stat st;
        if (stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode) && access(sb.buf, X_OK) == 0)
            found = xstrdup(sb.buf);
        if (!end)
            break;
        p = end + 1;
    }
    strbuf_release(&sb);
    return found;
}

static void terminal_line(struct strbuf *sb, enum gp_term t, int w, int h)
{
    strbuf_addstr(sb, "set encoding utf8\n");
    if (t == GP_SVG) {
        strbuf_addf(sb, "set terminal svg size %d,%d noenhanced font 'DejaVu Sans,12' "
                        "background rgb 'white'\n", w, h);
    } else {
        /* pngcairo draws anti-aliased text; the libgd png terminal is the
         * fallback when a gnuplot build lacks cairo */
        strbuf_addf(sb, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                        "  set terminal pngcairo size %d,%d noenhanced font 'DejaVu Sans,10' "
                        "background rgb 'white'\n"
                        "} else {\n"
                        "  set terminal png size %d,%d noenhanced background rgb 'white'\n"
                        "}\n", w, h, w, h);
    }
    /* no "set output": the image goes to stdout */
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (long)(t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The first line of gnuplot's stderr that says what went wrong. */
static void first_error(const struct strbuf *err, struct strbuf *msg)
{
    const char *s = strbuf_str(err);
    const char *best = NULL;
    for (const char *line = s; *line; ) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        int blank = 1;
        for (size_t i = 0; i < len; i++)
            if (line[i] != ' ' && line[i] != '^' && line[i] != '\t')
                blank = 0;
        if (!blank && (!best || strstr(line, "line ")))
            best = line;
        if (best && strstr(best, "line ") && best != line)
            break;
        if (!nl)
            break;
        line = nl + 1;
    }
    if (!best) {
        strbuf_addstr(msg, "no message");
        return;
    }
    const char *nl = strchr(best, '\n');
    size_t len = nl ? (size_t)(nl - best) : strlen(best);
    if (len > 200)
        len = 200;
    for (size_t i = 0; i < len; i++)
        strbuf_addch(msg, (unsigned char)best[i] < 0x20 ? ' ' : best[i]);
}

/* A running gnuplot: its pid and our ends of its stdin, stdout, stderr
 * (-1 once closed). */
struct gp_child {
    pid_t pid;
    int in, out, err;
};

/* Start exe reading a script on stdin.  stdin is a socket so that a gnuplot
 * dying early gives us EPIPE from send(MSG_NOSIGNAL) instead of a SIGPIPE
 * that would kill fom. */
static int gp_spawn(const char *exe, struct gp_child *c, struct diag *d)
{
    int in_sv[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
    int rc = 0;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, in_sv) != 0 || pipe(out_p) != 0 ||
        pipe(err_p) != 0) {
        rc = diag_syserr(d, "cannot start gnuplot: %s", strerror(errno));
        goto out;
    }
    c->pid = fork();
    if (c->pid < 0) {
        rc = diag_syserr(d, "cannot start gnuplot: %s", strerror(errno));
        goto out;
    }
    if (c->pid == 0) {
        /* child: only async-signal-safe calls from here on */
        if (dup2(in_sv[1], 0) < 0 || dup2(out_p[1], 1) < 0 || dup2(err_p[1], 2) < 0)
            _exit(127);
        close(in_sv[0]); close(in_sv[1]);
        close(out_p[0]); close(out_p[1]);
        close(err_p[0]); close(err_p[1]);
        char *const argv[] = { "gnuplot", "-", NULL };
        execv(exe, argv);
        _exit(127);
    }
    c->in = in_sv[0]; in_sv[0] = -1;
    c->out = out_p[0]; out_p[0] = -1;
    c->err = err_p[0]; err_p[0] = -1;
    fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK);
out:
    for (int i = 0; i < 2; i++) {
        if (in_sv[i] >= 0) close(in_sv[i]);
        if (out_p[i] >= 0) close(out_p[i]);
        if (err_p[i] >= 0) close(err_p[i]);
    }
    return rc;
}

/* Read what fd has into sb (up to max bytes in all, more is dropped when
 * max_is_error is 0).  Returns 1 while fd stays open, 0 at its end, -1
 * when sb would pass max and max_is_error. */
static int gp_drain(int fd, struct strbuf *sb, size_t start, size_t max, int max_is_error)
{
    char buf[65536];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r > 0) {
        if (sb->len - start + (size_t)r > max) {
            if (max_is_error)
                return -1;
            if (sb->len - start < max)
                strbuf_add(sb, buf, (size_t)r);
            return 1;
        }
        strbuf_add(sb, buf, (size_t)r);
        return 1;
    }
    return r == 0 || (errno != EINTR && errno != EAGAIN) ? 0 : 1;
}

/* Feed the script, collect the image and stderr until gnuplot closes both,
 * within GP_TIMEOUT_MS. */
static int gp_exchange(struct gp_child *c, const struct strbuf *script, struct strbuf *image,
                       size_t image_start, struct strbuf *err, struct diag *d)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t sent = 0;
    int open_out = 1, open_err = 1;
    while (open_out || open_err) {
        struct pollfd pf[3];
        int n = 0, i_in = -1, i_out = -1, i_err = -1;
        if (c->in >= 0) {
            pf[n].fd = c->in; pf[n].events = POLLOUT; i_in = n++;
        }
        if (open_out) {
            pf[n].fd = c->out; pf[n].events = POLLIN; i_out = n++;
        }
        if (open_err) {
            pf[n].fd = c->err; pf[n].events = POLLIN; i_err = n++;
        }
        long left = GP_TIMEOUT_MS - elapsed_ms(&t0);
        if (left <= 0) {
            kill(c->pid, SIGKILL);
            return diag_syserr(d, "gnuplot did not finish within %d s", GP_TIMEOUT_MS / 1000);
        }
        int pr = poll(pf, (nfds_t)n, (int)left);
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            return diag_syserr(d, "cannot talk to gnuplot: %s", strerror(errno));
        }
        if (i_in >= 0 && (pf[i_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = send(c->in, script->buf + sent, script->len - sent, MSG_NOSIGNAL);
            if (w > 0)
                sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == script->len) {
                close(c->in);
                c->in = -1;
            }
        }
        if (i_out >= 0 && (pf[i_out].revents & (POLLIN | POLLHUP | POLLERR))) {
            open_out = gp_drain(c->out, image, image_start, GP_IMAGE_MAX, 1);
            if (open_out < 0) {
                kill(c->pid, SIGKILL);
                return diag_syserr(d, "gnuplot wrote more than %u MB", GP_IMAGE_MAX >> 20);
            }
        }
        if (i_err >= 0 && (pf[i_err].revents & (POLLIN | POLLHUP | POLLERR)))
            open_err = gp_drain(c->err, err, 0, GP_ERR_MAX, 0);
    }
    return 0;
}

/* Wait for gnuplot and judge its exit: it must exit 0 having drawn
 * something. */
static int gp_finish(struct gp_child *c, const char *exe, const struct strbuf *image,
                     size_t image_start, struct strbuf *err, struct diag *d)
{
    int status = 0, rc = 0;
    while (waitpid(c->pid, &status, 0) < 0) {
        if (errno != EINTR) {
            c->pid = -1;
            return diag_syserr(d, "cannot wait for gnuplot: %s", strerror(errno));
        }
    }
    c->pid = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || image->len == image_start) {
        struct strbuf msg = STRBUF_INIT;
        first_error(err, &msg);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && err->len == 0)
            rc = diag_syserr(d, "cannot run '%s'", exe);
        else
            rc = diag_syserr(d, "gnuplot failed: %s", msg.buf);
        strbuf_release(&msg);
    }
    return rc;
}

int gnuplot_render(const char *body, enum gp_term t, int width, int height,
                   struct strbuf *image, struct diag *d)
{
    int rc = 0;
    char *exe = gnuplot_find();
    struct gp_child c = { -1, -1, -1, -1 };
    struct strbuf script = STRBUF_INIT;
    struct strbuf err = STRBUF_INIT;
    size_t image_start = image->len;

    if (!exe) {
        rc = GP_NOT_FOUND;
        goto out;
    }
    terminal_line(&script, t, width, height);
    strbuf_addstr(&script, body);
    strbuf_addstr(&script, "\nunset output\nexit\n");
    rc = gp_spawn(exe, &c, d);
    if (!rc)
        rc = gp_exchange(&c, &script, image, image_start, &err, d);
    if (!rc)
        rc = gp_finish(&c, exe, image, image_start, &err, d);
out:
    if (c.pid > 0) {
        while (waitpid(c.pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (c.in >= 0) close(c.in);
    if (c.out >= 0) close(c.out);
    if (c.err >= 0) close(c.err);
    if (rc) {
        image->len = image_start;
        if (image->buf)
            image->buf[image_start] = '\0';
    }
    strbuf_release(&script);
    strbuf_release(&err);
    free(exe);
    return rc;
}

int gnuplot_write(const char *path, const char *body, int width, int height,
                  struct diag *d)
{
    int t = gp_term_from_path(path);
    if (t < 0)
        return diag_usage(d, "'%s': chart files end in .svg or .png", path);
    struct strbuf img = STRBUF_INIT;
    int rc = gnuplot_render(body, (enum gp_term)t, width, height, &img, d);
    if (rc == 0)
        rc = write_file_atomic(path, img.buf, img.len, d);
    strbuf_release(&img);
    return rc;
}
