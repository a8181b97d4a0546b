#include <stdio.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
#include "run/fom_run.h"

static const char *const fom_usage =
    "usage: fom fom STUDY.xml [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Units of work per day of every system on every problem of a study, the\n"
    "ratios to the baseline system, and the figure of merit: the ratio of\n"
    "the harmonic means of the per-problem rates (reports/README.md).\n"
    "\n";

int cmd_fom(int argc, char **argv, struct ctx *ctx)
{
    struct fom_run_opts o = { NULL, FMT_TEXT, NULL };
    const struct option opts[] = {
        { .name = "--format", .arg = "F", .kind = OPT_FORMAT, .dst = &o.format,
          .help = "output format: text (default), json or csv" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &o.out_path,
          .expected = "a file name",
          .help = "write to FILE (atomically) instead of standard output" },
        { 0 },
    };
    const struct command_line cl = { "fom fom", fom_usage, opts, NULL };
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
    rc = fom_run(&o, &ctx->diag);
out:
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
