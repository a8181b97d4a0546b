#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/tmpreg.h"
#include "core/xalloc.h"

/* Links followed before giving up, as the kernel's own limit (Linux
 * MAXSYMLINKS = 40, path_resolution(7)). */
#define LINK_HOPS_MAX 40

/* The output file's stdio buffer.  stdio's default is st_blksize (4 KiB):
 * a saved profile of a million ops (480 MB) took 120k write calls, whose
 * cost in the kernel was most of the time spent writing it (perf, in
 * scale-bench); 1 MiB makes that a few hundred calls. */
#define OUT_BUF_B (1 << 20)

static const char tmp_suffix[] = ".tmp.XXXXXX";

char *outfile_tmp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    size_t base_len = strlen(path) - dir_len;
    size_t room = NAME_MAX - (sizeof tmp_suffix - 1);
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, path, dir_len + (base_len < room ? base_len : room));
    strbuf_addstr(&sb, tmp_suffix);
    return strbuf_detach(&sb);
}

/* Follow path while it is a symbolic link (a dangling one included) and
 * return the name of the file at its end.  NULL with errno on a loop. */
static char *resolve_links(const char *path)
{
    char *cur = xstrdup(path);
    for (int hop = 0; hop < LINK_HOPS_MAX; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        struct strbuf target = STRBUF_INIT;
        size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : PATH_MAX;
        char *buf = xmalloc(cap);
        ssize_t n = readlink(cur, buf, cap);
        if (n < 0 || (size_t)n >= cap) {
            free(buf);
            return cur; /* changed under us: write at the link itself */
        }
        const char *slash = strrchr(cur, '/');
        if (buf[0] != '/' && slash)
            strbuf_add(&target, cur, (size_t)(slash - cur) + 1);
        strbuf_add(&target, buf, (size_t)n);
        free(buf);
        free(cur);
        cur = strbuf_detach(&target);
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

static int open_direct(struct outfile *o, const char *path, struct diag *d)
{
    /* O_NONBLOCK is not set: a FIFO waits for its reader, as a shell's
     * redirection does. */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
        int rc = diag_syserr(d, "cannot open '%s' for writing: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    return 0;
}

/* Create the temporary file; an existing target's mode and owner carry over. */
static int open_tmp(struct outfile *o, const struct stat *old, struct diag *d)
{
    char *tmp = outfile_tmp_name(o->path);
    int slot;
    int fd = tmpreg_mkstemp(tmp, &slot);
    if (fd < 0) {
        int rc = diag_syserr(d, "cannot create '%s': %s", o->shown, strerror(errno));
        free(tmp);
        return rc;
    }
    o->reg = slot + 1;
    o->tmp = tmp;
    mode_t mode;
    if (old) {
        mode = old->st_mode & 07777;
        /* Only root may give a file away; others keep their own. */
        if (fchown(fd, old->st_uid, old->st_gid) != 0 && errno != EPERM) {
            close(fd);
            return diag_syserr(d, "cannot set the owner of '%s': %s", tmp, strerror(errno));
        }
    } else {
        /* mkstemp creates 0600; a new output gets the mode of any file the
         * user creates (0666 less the umask). */
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        close(fd);
        return diag_syserr(d, "cannot set the mode of '%s': %s", tmp, strerror(errno));
    }
    o->fp = fdopen(fd, "w");
    if (!o->fp) {
        close(fd);
        return diag_syserr(d, "cannot open '%s': %s", tmp, strerror(errno));
    }
    setvbuf(o->fp, NULL, _IOFBF, OUT_BUF_B);
    return 0;
}

int outfile_open(struct outfile *o, const char *path, struct diag *d)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return 0;
    }
    int rc = 0;
    o->shown = xstrdup(path);
    o->path = resolve_links(path);
    if (!o->path) {
        rc = diag_syserr(d, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        rc = diag_syserr(d, "cannot write '%s': found a folder, expected a file name", path);
    } else if (exists && !S_ISREG(st.st_mode)) {
        rc = open_direct(o, o->path, d);
    } else {
        o->copy_in = exists && st.st_nlink > 1;
        rc = open_tmp(o, exists ? &st : NULL, d);
    }
out:
    if (rc)
        outfile_abort(o);
    return rc;
}

/* Copy the complete temporary file into the hard-linked target. */
static int copy_into(struct outfile *o, struct diag *d)
{
    int in = open(o->tmp, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
    char buf[65536];
    if (in < 0 || (out = open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0) {
        rc = diag_syserr(d, "cannot write '%s': %s", o->shown, strerror(errno));
        goto out;
    }
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0) {
                rc = diag_syserr(d, "cannot write '%s' (a file with several links, written in "
                                    "place): %s; the complete output is in '%s'",
                                 o->shown, strerror(errno), o->tmp);
                goto out;
            }
            off += w;
        }
    }
    if (n < 0 || fsync(out) != 0)
        rc = diag_syserr(d, "cannot write '%s': %s", o->shown, strerror(errno));
out:
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && !rc)
        rc = diag_syserr(d, "cannot write '%s': %s", o->shown, strerror(errno));
    return rc;
}

static void outfile_forget(struct outfile *o)
{
    if (o->reg)
        tmpreg_drop(o->reg - 1);
    free(o->tmp);
    free(o->path);
    free(o->shown);
    o->fp = NULL;
    o->tmp = o->path = o->shown = NULL;
    o->reg = 0;
}

int outfile_commit(struct outfile *o, struct diag *d)
{
    int rc = 0;
    if (!o->fp)
        return 0;
    if (!o->path) {
        if (fflush(o->fp) != 0 || ferror(o->fp))
            rc = diag_syserr(d, "cannot write to standard output: %s", strerror(errno));
        o->fp = NULL;
        return rc;
    }
    FILE *fp = o->fp;
    o->fp = NULL;
    int failed = fflush(fp) != 0 || ferror(fp);
    /* Devices and FIFOs cannot be synced (EINVAL): their data is written. */
    if (!failed && fsync(fileno(fp)) != 0 && (o->tmp || errno != EINVAL))
        failed = 1;
    int err = errno;
    if (fclose(fp) != 0 && !failed) {
        failed = 1;
        err = errno;
    }
    if (failed) {
        rc = diag_syserr(d, "cannot write '%s': %s", o->shown, strerror(err));
        goto out;
    }
    if (!o->tmp)
        goto out;
    if (o->copy_in) {
        if ((rc = copy_into(o, d)))
            goto keep; /* the output survives in the temporary file */
        unlink(o->tmp);
    } else if (rename(o->tmp, o->path) != 0) {
        rc = diag_syserr(d, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
    }
out:
    if (rc && o->tmp)
        unlink(o->tmp);
keep:
    outfile_forget(o);
    return rc;
}

void outfile_abort(struct outfile *o)
{
    if (o->path) {
        if (o->fp)
            fclose(o->fp);
        if (o->tmp)
            unlink(o->tmp);
    }
    outfile_forget(o);
}

int write_file_atomic(const char *path, const void *data, size_t len, struct diag *d)
{
    struct outfile o;
    int rc = outfile_open(&o, path, d);
    if (rc)
        return rc;
    if (fwrite(data, 1, len, o.fp) != len) {
        rc = diag_syserr(d, "cannot write '%s': %s", path, strerror(errno));
        outfile_abort(&o);
        return rc;
    }
    return outfile_commit(&o, d);
}
