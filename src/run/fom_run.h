/* `fom fom`: load a study, evaluate it (run/study_eval.h) and write its
 * per-problem table and FOM, atomically (-o) or to standard output. */
#ifndef FOM_FOM_RUN_H
#define FOM_FOM_RUN_H
#include "core/ctx.h"

struct diag;

struct fom_run_opts {
    const char *study;      /* study XML */
    enum out_format format;
    const char *out_path;   /* NULL: standard output */
};

int fom_run(const struct fom_run_opts *o, struct diag *d);

#endif
