#include "core/diag.h"

#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"

/* Longest message shown whole: a message quoting a value from a hostile
 * file (a megabyte-long attribute) keeps its head and its tail, where
 * "expected ..." is, and loses the middle. */
#define DIAG_MSG_MAX 2048

/* Longest stretch of a line quoted under a message: a window around the
 * column, so a megabyte-long line costs a terminal line or two. */
#define QUOTE_MAX 120

void diag_init(struct diag *d, FILE *out)
{
    d->out = out;
    d->errors = 0;
    d->warnings = 0;
    d->no_warn = 0;
    d->src = NULL;
}

/* Bytes of a valid UTF-8 sequence at s[0..n), or 0 when it is not one
 * (shown as '?', as textio_show does, so binary input cannot upset the
 * terminal). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (s[0] >= 0xF5 || k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

/* The 1-based column of the first byte that is not a space or a tab. */
static long first_nonblank(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return (long)i + 1;
}

/* "    TEXT" and, when col > 0, "    ^" under byte column col (1-based);
 * a tab in the text is a tab in the caret line so that both align. */
static void print_quote(FILE *out, const char *text, size_t len, long col)
{
    size_t at = col > 0 ? (size_t)col - 1 : 0, from = 0, to = len;
    if (at > len)
        at = len;
    if (len > QUOTE_MAX) {
        from = at > QUOTE_MAX / 2 ? at - QUOTE_MAX / 2 : 0;
        to = from + QUOTE_MAX < len ? from + QUOTE_MAX : len;
    }
    struct strbuf line = STRBUF_INIT, caret = STRBUF_INIT;
    strbuf_addstr(&line, from ? "    ..." : "    ");
    strbuf_addstr(&caret, from ? "       " : "    ");
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = from; i < to;) {
        size_t k = s[i] >= 0x80 ? utf8_len(s + i, len - i) : 1;
        int shown = k > 0 && (s[i] >= 0x20 || s[i] == '\t') && s[i] != 0x7F;
        if (shown)
            strbuf_add(&line, text + i, k);
        else
            strbuf_addch(&line, '?');
        if (i < at)
            strbuf_addch(&caret, s[i] == '\t' ? '\t' : ' ');
        i += k ? k : 1;
    }
    if (to < len)
        strbuf_addstr(&line, "...");
    fprintf(out, "%s\n", strbuf_str(&line));
    if (col > 0)
        fprintf(out, "%s^\n", strbuf_str(&caret));
    strbuf_release(&line);
    strbuf_release(&caret);
}

int diag_vmsg(struct diag *d, int status, const char *level, const char *file,
              long line, long col, const char *fmt, va_list ap)
{
    if (status)
        d->errors++;
    else
        d->warnings++;
    if (!d->out || (!status && d->no_warn))
        return status;
    if (file) {
        fputs(file, d->out);
        if (line > 0) {
            fprintf(d->out, ":%ld", line);
            if (col > 0)
                fprintf(d->out, ":%ld", col);
        }
        fputs(": ", d->out);
    }
    fprintf(d->out, "%s: ", level);
    struct strbuf msg = STRBUF_INIT;
    strbuf_vaddf(&msg, fmt, ap);
    if (msg.len > DIAG_MSG_MAX) {
        size_t keep = DIAG_MSG_MAX / 2;
        fwrite(msg.buf, 1, keep, d->out);
        fprintf(d->out, "[... %zu bytes ...]", msg.len - 2 * keep);
        fputs(msg.buf + msg.len - keep, d->out);
    } else {
        fputs(strbuf_str(&msg), d->out);
    }
    strbuf_release(&msg);
    fputc('\n', d->out);
    const struct diag_source *src = d->src;
    if (status && src && file && line > 0 && src->line == line && src->text && src->file &&
        strcmp(src->file, file) == 0)
        print_quote(d->out, src->text, src->len, col > 0 ? col : src->col > 0 ? src->col
                                                        : first_nonblank(src->text, src->len));
    return status;
}

#define DIAG_FN(name, status, level)                                  \
    int name(struct diag *d, const char *fmt, ...)                    \
    {                                                                 \
        va_list ap;                                                   \
        va_start(ap, fmt);                                            \
        int rc = diag_vmsg(d, status, level, NULL, 0, 0, fmt, ap);    \
        va_end(ap);                                                   \
        return rc;                                                    \
    }

DIAG_FN(diag_error, FOM_EDATA, "error")
DIAG_FN(diag_syserr, FOM_ESYS, "error")
DIAG_FN(diag_usage, FOM_EUSAGE, "error")

int diag_error_at(struct diag *d, const char *file, long line, long col,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = diag_vmsg(d, FOM_EDATA, "error", file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

/* Line `line` of a regular file into sb (without its newline); -1 when
 * the file cannot be read again (a pipe, gone) or is shorter. */
static int read_line_of(const char *file, long line, struct strbuf *sb)
{
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    FILE *fp = fopen(file, "r");
    if (!fp)
        return -1;
    long at = 1;
    int c;
    while (at < line && (c = getc(fp)) != EOF)
        if (c == '\n')
            at++;
    while (at == line && (c = getc(fp)) != EOF && c != '\n' && sb->len < (1u << 20))
        strbuf_addch(sb, (char)c);
    fclose(fp);
    while (sb->len && sb->buf[sb->len - 1] == '\r')
        sb->buf[--sb->len] = '\0';
    return at == line ? 0 : -1;
}

int diag_verror_at_quote(struct diag *d, const char *file, long line, long col, long caret,
                         const char *fmt, va_list ap)
{
    struct strbuf text = STRBUF_INIT;
    struct diag_source src = { file, line, NULL, 0, caret };
    const struct diag_source *prev = d->src;
    if (d->out && file && line > 0 && read_line_of(file, line, &text) == 0) {
        src.text = strbuf_str(&text);
        src.len = text.len;
        d->src = &src;
    }
    int rc = diag_vmsg(d, FOM_EDATA, "error", file, line, col, fmt, ap);
    d->src = prev;
    strbuf_release(&text);
    return rc;
}

int diag_error_at_quote(struct diag *d, const char *file, long line, long col, long caret,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = diag_verror_at_quote(d, file, line, col, caret, fmt, ap);
    va_end(ap);
    return rc;
}

void diag_warn(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vmsg(d, FOM_OK, "warning", NULL, 0, 0, fmt, ap);
    va_end(ap);
}

void diag_warn_at(struct diag *d, const char *file, long line, long col,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vmsg(d, FOM_OK, "warning", file, line, col, fmt, ap);
    va_end(ap);
}

void diag_note(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d->warnings--; /* notes are not warnings */
    diag_vmsg(d, FOM_OK, "note", NULL, 0, 0, fmt, ap);
    va_end(ap);
}
