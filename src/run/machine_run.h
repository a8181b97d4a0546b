/* `fom machine validate|show|compare`: load machine files, render them,
 * write the result atomically (-o) or to standard output. */
#ifndef FOM_MACHINE_RUN_H
#define FOM_MACHINE_RUN_H
#include "core/ctx.h"

struct diag;

struct machine_run_opts {
    enum out_format format;
    const char *out_path;   /* NULL: standard output */
    const char *chart_path; /* compare: also draw the chart there, or NULL */
};

/* The command line's --chart names an .svg or .png file; FOM_EUSAGE with
 * a message otherwise, before any file is read. */
int machine_run_check_chart(const char *path, struct diag *d);

/* Prints "FILE: ok" for each good file; errors go to d.  Every file is
 * checked even after a bad one.  Returns the worst status. */
int machine_run_validate(char *const *paths, int n, const struct machine_run_opts *o,
                         struct diag *d);
int machine_run_show(const char *path, const struct machine_run_opts *o, struct diag *d);
/* paths[0] is the baseline; each file is parsed once, for the table and
 * the chart. */
int machine_run_compare(char *const *paths, int n, const struct machine_run_opts *o,
                        struct diag *d);

#endif
