#include "core/diag.h"

#include "core/strbuf.h"

/* Longest message shown whole: a message quoting a value from a hostile
 * file (a megabyte-long attribute) keeps its head and its tail, where
 * "expected ..." is, and loses the middle. */
#define DIAG_MSG_MAX 2048

void diag_init(struct diag *d, FILE *out)
{
    d->out = out;
    d->errors = 0;
    d->warnings = 0;
    d->no_warn = 0;
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
