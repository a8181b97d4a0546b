#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
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
    "\n";

int cmd_report(int argc, char **argv, struct ctx *ctx)
{
    struct report_run_opts o;
    memset(&o, 0, sizeof o);
    o.version = FOM_VERSION;
    const struct option opts[] = {
        { .name = "-o", .arg = "DIR", .kind = OPT_STRING, .dst = &o.out_dir, .required = 1,
          .expected = "a directory name", .help = "output directory" },
        { 0 },
    };
    const struct command_line cl = { "fom report", report_usage, opts, NULL };
    struct opt_list args = { 0 };
    int rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
    if (rc)
        goto out;
    if (args.n == 0) {
        rc = options_usage_error(&cl, &ctx->diag, "no study file given");
        goto out;
    }
    if (args.n > 1) {
        rc = options_usage_error(&cl, &ctx->diag, "found a second study '%s', expected one",
                                 args.v[1]);
        goto out;
    }
    o.study = args.v[0];
    rc = report_run(&o, &ctx->diag);
out:
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
