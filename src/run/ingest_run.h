/* `fom ingest`: read a trace into a profile (ingest/ingest.h) and write it
 * as text, JSON or CSV, atomically (-o) or to standard output. */
#ifndef FOM_INGEST_RUN_H
#define FOM_INGEST_RUN_H
#include <stdio.h>

#include "core/ctx.h"
#include "ingest/ingest.h"

struct diag;

struct ingest_run_opts {
    const char *trace;
    struct ingest_opts read;    /* its progress is set by ingest_run */
    enum out_format format;
    const char *out_path;       /* NULL: standard output */
    FILE *progress;             /* where a progress line goes; NULL: silent */
};

int ingest_run(const struct ingest_run_opts *o, struct diag *d);

#endif
