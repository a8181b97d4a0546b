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

struct diag {
    FILE *out;      /* where messages go; NULL silences them (fuzzing) */
    int errors;
    int warnings;
    int no_warn;    /* suppress warnings (errors still print) */
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
void diag_warn(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void diag_warn_at(struct diag *d, const char *file, long line, long col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_note(struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int diag_vmsg(struct diag *d, int status, const char *level, const char *file,
              long line, long col, const char *fmt, va_list ap);

#endif
