#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/xalloc.h"
#include "run/roofline_run.h"

static const char *const roofline_usage =
    "usage: fom roofline --machine MACHINE.xml [--profile P [--kernels PATH]...]\n"
    "                    -o FILE.svg|png\n"
    "\n"
    "Draw the roofline of one device of MACHINE (log-log: attainable rate\n"
    "[TFLOP/s] against arithmetic intensity [FLOP/byte]), one slanted line per\n"
    "memory level with a bandwidth and one ceiling per peak rate (precisions\n"
    "and units with the same peak share a line).  With --profile, the trace's\n"
    "ops are placed at flops/bytes and a rate flops/time, one colour per op\n"
    "kind, marker area growing with the op's share of the pass: the rate\n"
    "estimated for MACHINE when --kernels is given, else the rate measured in\n"
    "the trace (on the trace's device, which the chart names).\n"
    "Needs gnuplot.\n"
    "\n"
    "  --machine FILE  machine description (machines/*.xml)\n"
    "  --profile P     trace or saved profile whose ops to place\n"
    "  --kernels PATH  kernel tables of MACHINE (CSV, folder or db; repeatable)\n"
    "  -o FILE         output: .svg or .png (written atomically)\n"
    "  -h, --help      show this help\n";

int cmd_roofline(int argc, char **argv, struct ctx *ctx)
{
    struct roofline_run_opts o;
    const char **kernels = xcalloc((size_t)argc, sizeof *kernels);
    int rc;
    memset(&o, 0, sizeof o);
    o.kernels = kernels;
    if (cmd_wants_help(argc, argv)) {
        fputs(roofline_usage, stdout);
        rc = FOM_OK;
        goto out;
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
        else if (strcmp(a, "--kernels") == 0)
            slot = &kernels[o.n_kernels++];
        if (slot) {
            if (i + 1 >= argc) {
                fputs(roofline_usage, stderr);
                rc = diag_usage(&ctx->diag, "option '%s' needs a value", a);
                goto out;
            }
            *slot = argv[++i];
            continue;
        }
        fputs(roofline_usage, stderr);
        if (a[0] == '-')
            rc = diag_usage(&ctx->diag, "unknown option '%s'", a);
        else
            rc = diag_usage(&ctx->diag, "found argument '%s', expected an option", a);
        goto out;
    }
    if (!o.machine || !o.out_path) {
        fputs(roofline_usage, stderr);
        rc = diag_usage(&ctx->diag, "%s", !o.machine ? "--machine is required"
                                                     : "-o FILE.svg|png is required");
        goto out;
    }
    if (o.n_kernels && !o.profile) {
        fputs(roofline_usage, stderr);
        rc = diag_usage(&ctx->diag, "--kernels needs --profile: the tables only place ops");
        goto out;
    }
    rc = roofline_run(&o, &ctx->diag);
out:
    free(kernels);
    return rc;
}
