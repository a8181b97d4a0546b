#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/outfile.h"
#include "ingest/study_xml.h"
#include "report/fom_render.h"
#include "run/study_eval.h"

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
    const char *path = NULL, *out_path = NULL;
    enum out_format fmt = FMT_TEXT;
    struct study st;
    struct study_eval ev;
    struct outfile of = { 0 };
    int rc;

    if (cmd_wants_help(argc, argv)) {
        fputs(fom_usage, stdout);
        return FOM_OK;
    }
    study_init(&st);
    memset(&ev, 0, sizeof ev);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--format") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                fputs(fom_usage, stderr);
                rc = diag_usage(&ctx->diag, "option '%s' needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (a[1] == 'o') {
                out_path = v;
            } else if (out_format_parse(v, &fmt)) {
                rc = diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv", v);
                goto out;
            }
        } else if (strncmp(a, "--format=", 9) == 0) {
            if (out_format_parse(a + 9, &fmt)) {
                rc = diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv",
                                a + 9);
                goto out;
            }
        } else if (a[0] == '-' && a[1]) {
            fputs(fom_usage, stderr);
            rc = diag_usage(&ctx->diag, "unknown option '%s'", a);
            goto out;
        } else if (!path) {
            path = a;
        } else {
            fputs(fom_usage, stderr);
            rc = diag_usage(&ctx->diag, "found a second study '%s', expected one", a);
            goto out;
        }
    }
    if (!path) {
        fputs(fom_usage, stderr);
        rc = diag_usage(&ctx->diag, "no study file given");
        goto out;
    }
    rc = study_load(path, &st, &ctx->diag);
    if (rc)
        goto out;
    rc = study_eval_run(&st, &ev, &ctx->diag);
    if (rc)
        goto out;
    rc = outfile_open(&of, out_path, &ctx->diag);
    if (rc)
        goto out;
    fom_render(of.fp, fmt, &st, &ev);
    rc = outfile_commit(&of, &ctx->diag);
out:
    study_eval_release(&ev);
    study_release(&st);
    return rc;
}
