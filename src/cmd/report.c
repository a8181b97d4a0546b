#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "run/report_run.h"
#include "version.h"

static const char *const report_usage =
    "usage: fom report STUDY.xml -o DIR\n"
    "\n"
    "Write the procurement report of a study into DIR (created if missing):\n"
    "report.md, report.html (self-contained, charts inline), report.json (the\n"
    "'fom fom' document plus per-problem breakdowns) and every chart as SVG\n"
    "and PNG: ratios with intervals, units per day, per-op time breakdowns of\n"
    "estimated problems, and a roofline per machine.  Without gnuplot the\n"
    "charts are skipped and the rest is still written.\n"
    "\n"
    "  -o DIR      output directory\n"
    "  -h, --help  show this help\n";

int cmd_report(int argc, char **argv, struct ctx *ctx)
{
    struct report_run_opts o;
    memset(&o, 0, sizeof o);
    o.version = FOM_VERSION;
    if (cmd_wants_help(argc, argv)) {
        fputs(report_usage, stdout);
        return FOM_OK;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                fputs(report_usage, stderr);
                return diag_usage(&ctx->diag, "option '-o' needs a value");
            }
            o.out_dir = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fputs(report_usage, stderr);
            return diag_usage(&ctx->diag, "unknown option '%s'", a);
        } else if (!o.study) {
            o.study = a;
        } else {
            fputs(report_usage, stderr);
            return diag_usage(&ctx->diag, "found a second study '%s', expected one", a);
        }
    }
    if (!o.study || !o.out_dir) {
        fputs(report_usage, stderr);
        return diag_usage(&ctx->diag, "%s", !o.study ? "no study file given"
                                                     : "-o DIR is required");
    }
    return report_run(&o, &ctx->diag);
}
