#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "run/fom_run.h"

static const char *const fom_usage =
    "usage: fom fom STUDY.xml [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Units of work per day of every system on every problem of a study, the\n"
    "ratios to the baseline system, and the figure of merit: the ratio of\n"
    "the harmonic means of the per-problem rates (reports/README.md).\n"
    "\n"
    "  --format F  output format: text (default), json or csv\n"
    "  -o FILE     write to FILE (atomically) instead of standard output\n"
    "  -h, --help  show this help\n";

int cmd_fom(int argc, char **argv, struct ctx *ctx)
{
    struct fom_run_opts o = { NULL, FMT_TEXT, NULL };

    if (cmd_wants_help(argc, argv)) {
        fputs(fom_usage, stdout);
        return FOM_OK;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--format") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                fputs(fom_usage, stderr);
                return diag_usage(&ctx->diag, "option '%s' needs a value", a);
            }
            const char *v = argv[++i];
            if (a[1] == 'o')
                o.out_path = v;
            else if (out_format_parse(v, &o.format))
                return diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv", v);
        } else if (strncmp(a, "--format=", 9) == 0) {
            if (out_format_parse(a + 9, &o.format))
                return diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv",
                                  a + 9);
        } else if (a[0] == '-' && a[1]) {
            fputs(fom_usage, stderr);
            return diag_usage(&ctx->diag, "unknown option '%s'", a);
        } else if (!o.study) {
            o.study = a;
        } else {
            fputs(fom_usage, stderr);
            return diag_usage(&ctx->diag, "found a second study '%s', expected one", a);
        }
    }
    if (!o.study) {
        fputs(fom_usage, stderr);
        return diag_usage(&ctx->diag, "no study file given");
    }
    return fom_run(&o, &ctx->diag);
}
