/* The one context a command runs in: created in main(), passed down.  No
 * other mutable state is shared between modules. */
#ifndef FOM_CTX_H
#define FOM_CTX_H
#include <stdio.h>

#include "core/diag.h"

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct ctx {
    const char *prog;   /* "fom" */
    struct diag diag;   /* errors and warnings (stderr) */
    FILE *out;          /* default output (stdout) */
    int progress;       /* stderr is a terminal: progress lines allowed */
};

/* Parse "text|json|csv"; returns 0 or -1. */
int out_format_parse(const char *s, enum out_format *f);
const char *out_format_name(enum out_format f);

#endif
