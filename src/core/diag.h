/* Diagnostics: every message goes through a struct diag owned by the
 * command's context, never through a global.  Messages follow git's rules:
 * lowercase, no full stop, "what was found, what was expected".
 *
 * Functions that fail return one of the documented exit codes (enum
 * fom_status) so that callers can write
 *     return diag_error_at(d, file, line, 0, "unknown unit '%s'", u);
 * and main() can turn the status into the process exit code. */
#ifndef FOM_DIAG_H
#define FOM_DIAG_H
#include <stdarg.h>
#include <stdio.h>

enum fom_status {
    FOM_OK = 0,
    FOM_EDATA = 1,  /* bad input data */
    FOM_EUSAGE = 2, /* bad command line */
    FOM_ESYS = 3,   /* I/O, SQLite, memory */
};

/* The line a text reader is on.  While d->src points at one, an error at
 * that file and line prints the line under the message and a caret under
 * the column, as jq shows a syntax error:
 *     tables/gemm.csv:3:9: error: found 'abc', expected a time
 *         512,512,abc
 *                 ^
 * The reader owns the struct and the text and sets d->src back to NULL
 * when it stops reading.  An error without a column still quotes the
 * line, the caret under src->col or the line's first non-blank byte. */
struct diag_source {
    const char *file;
    long line;          /* 1-based; 0: no line yet */
    const char *text;   /* the line without its newline */
    size_t len;
    long col;           /* where the caret goes for an error given without a
                           column (its first line stays file:line); 0: under
                           the line's first non-blank byte */
};

struct diag {
    FILE *out;      /* where messages go; NULL silences them (fuzzing) */
    int errors;
    int warnings;
    int no_warn;    /* suppress warnings (errors still print) */
    const struct diag_source *src;  /* the line being read, or NULL */
};

void diag_init(struct diag *d, FILE *out);

/* "error: msg" -> returns FOM_EDATA */
int diag_error(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "file:line:col: error: msg" (col 0 and line 0 are left out) -> FOM_EDATA */
int diag_error_at(struct diag *d, const char *file, long line, long col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "error: msg" -> FOM_ESYS (I/O, database, out of resources) */
int diag_syserr(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "error: msg" -> FOM_EUSAGE */
int diag_usage(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* diag_error_at for a reader that does not keep its lines (the XML
 * readers): quotes line `line` of file, read again from the file when it
 * is a regular file, the caret under col, else under caret (libxml2's
 * column, kept out of the first line), else under the first non-blank. */
int diag_error_at_quote(struct diag *d, const char *file, long line, long col, long caret,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int diag_verror_at_quote(struct diag *d, const char *file, long line, long col, long caret,
                         const char *fmt, va_list ap);
void diag_warn(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void diag_warn_at(struct diag *d, const char *file, long line, long col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_note(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int diag_vmsg(struct diag *d, int status, const char *level, const char *file,
              long line, long col, const char *fmt, va_list ap);

#endif
