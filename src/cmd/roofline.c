#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "run/roofline_run.h"

static const char *const roofline_usage =
    "usage: fom roofline --machine MACHINE.xml [--profile P] -o FILE.svg|png\n"
    "\n"
    "Draw the roofline of one device of MACHINE (log-log: attainable rate\n"
    "[TFLOP/s] against arithmetic intensity [FLOP/byte]), one slanted line per\n"
    "memory level with a bandwidth and one ceiling per peak rate (precisions\n"
    "and units with the same peak share a line).  With --profile, the trace's\n"
    "ops are placed at flops/bytes and their measured rate flops/time, one\n"
    "colour per op kind, marker area growing with the op's share of the pass.\n"
    "Needs gnuplot.\n"
    "\n"
    "  --machine FILE  machine description (machines/*.xml)\n"
    "  --profile P     trace or saved profile whose ops to place\n"
    "  -o FILE         output: .svg or .png (written atomically)\n"
    "  -h, --help      show this help\n";

int cmd_roofline(int argc, char **argv, struct ctx *ctx)
{
    struct roofline_run_opts o;
    memset(&o, 0, sizeof o);
    if (cmd_wants_help(argc, argv)) {
        fputs(roofline_usage, stdout);
        return FOM_OK;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--machine") == 0)
            slot = &o.machine;
        else if (strcmp(a, "--profile") == 0)
            slot = &o.profile;
        else if (strcmp(a, "-o") == 0)
            slot = &o.out_path;
        if (slot) {
            if (i + 1 >= argc) {
                fputs(roofline_usage, stderr);
                return diag_usage(&ctx->diag, "option '%s' needs a value", a);
            }
            *slot = argv[++i];
            continue;
        }
        fputs(roofline_usage, stderr);
        if (a[0] == '-')
            return diag_usage(&ctx->diag, "unknown option '%s'", a);
        return diag_usage(&ctx->diag, "found argument '%s', expected an option", a);
    }
    if (!o.machine || !o.out_path) {
        fputs(roofline_usage, stderr);
        return diag_usage(&ctx->diag, "%s", !o.machine ? "--machine is required"
                                                       : "-o FILE.svg|png is required");
    }
    return roofline_run(&o, &ctx->diag);
}
