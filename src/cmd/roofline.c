#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
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
    "\n";

int cmd_roofline(int argc, char **argv, struct ctx *ctx)
{
    struct roofline_run_opts o;
    struct opt_list kernels = { 0 }, args = { 0 };
    memset(&o, 0, sizeof o);
    const struct option opts[] = {
        { .name = "--machine", .arg = "FILE", .kind = OPT_STRING, .dst = &o.machine,
          .required = 1, .expected = "a machine file",
          .help = "machine description (machines/*.xml)" },
        { .name = "--profile", .arg = "P", .kind = OPT_STRING, .dst = &o.profile,
          .expected = "a trace or profile file",
          .help = "trace or saved profile whose ops to place" },
        { .name = "--kernels", .arg = "PATH", .kind = OPT_LIST, .dst = &kernels,
          .expected = "a CSV file, folder or database",
          .help = "kernel tables of MACHINE (CSV, folder or db; repeatable)" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &o.out_path, .required = 1,
          .expected = "a file name ending in .svg or .png",
          .help = "output: .svg or .png (written atomically)" },
        { 0 },
    };
    const struct command_line cl = { "fom roofline", roofline_usage, opts, NULL };
    int rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
    if (rc)
        goto out;
    if (args.n) {
        rc = options_usage_error(&cl, &ctx->diag, "found argument '%s', expected an option",
                                 args.v[0]);
        goto out;
    }
    if (kernels.n && !o.profile) {
        rc = options_usage_error(&cl, &ctx->diag,
                                 "--kernels needs --profile: the tables only place ops");
        goto out;
    }
    o.kernels = kernels.v;
    o.n_kernels = kernels.n;
    rc = roofline_run(&o, &ctx->diag);
out:
    opt_list_release(&kernels);
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
