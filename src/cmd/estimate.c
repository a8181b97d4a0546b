#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
#include "core/units.h"
#include "run/estimate_run.h"

static const char *const estimate_usage =
    "usage: fom estimate --profile TRACE_OR_PROFILE --machine MACHINE.xml [--kernels PATH]...\n"
    "                    [--precision fp32|tf32|bf16|fp16] [--cudnn-tf32] [--batch N]\n"
    "                    [--profile-batch N] [--source-machine M.xml]\n"
    "                    [--measured-step TIME|none]\n"
    "                    [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Estimate the time of one training pass of a profile on a machine, op by\n"
    "op.  Each op says how its time was obtained (method) and what limits it\n"
    "(bound):\n"
    "  measured      the target is the profiled device and the op is unchanged\n"
    "  scaled-table  tables of the profiled device are loaded too: measured time\n"
    "                x target table entry / source table entry for its shape\n"
    "  table-exact   the target's kernel table holds the shape\n"
    "  table-interp  interpolated (or extrapolated) from the target's table\n"
    "  efficiency    no target table: the fraction of peak other machines' tables\n"
    "                achieve at the op's size, times the target's peak\n"
    "  roofline      max(flops / peak, bytes / bandwidth) + launch latency\n"
    "  scaled        measured time x ratio of source and target peaks\n"
    "Every op is then held to the target's roofline and, when moved from another\n"
    "GPU at the same shape, to the two machines' spec ratios (limits).\n"
    "Pass time: each profiled step is replayed (the host issues the ops in\n"
    "trace order, an op's kernels start once launched and the device is free)\n"
    "plus synchronisation; without a recorded call order (tfprof, tables),\n"
    "max(device time, host dispatch time) + synchronisation.\n"
    "A GPU trace's host times are calibrated against the same run's step\n"
    "measured without the profiler when one is known (--measured-step, or\n"
    "step_time_s in the NAME.meta.json beside NAME.json.gz): scaled so that\n"
    "the trace replayed on its own device gives that step.\n"
    "\n";

static int parse_precision(const char *v, void *dst)
{
    enum precision p = precision_parse(v);
    if (p != PREC_FP32 && p != PREC_TF32 && p != PREC_BF16 && p != PREC_FP16)
        return -1;
    *(enum precision *)dst = p;
    return 0;
}

/* A time with its unit (a positive one), or "none": -1. */
static int parse_step(const char *v, void *dst)
{
    double s;
    const char *expected;
    if (strcmp(v, "none") == 0) {
        *(double *)dst = -1;
        return 0;
    }
    if (unit_parse(v, QTY_TIME, &s, &expected) != 0 || !(s > 0))
        return -1;
    *(double *)dst = s;
    return 0;
}

int cmd_estimate(int argc, char **argv, struct ctx *ctx)
{
    struct estimate_run_opts o;
    struct opt_list kernels = { 0 }, args = { 0 };
    estimate_run_opts_init(&o);
    const struct option opts[] = {
        { .name = "--profile", .arg = "P", .kind = OPT_STRING, .dst = &o.profile,
          .required = 1, .expected = "a trace or profile file",
          .help = "trace (Kineto, tfprof, TF timeline, key_averages table) or\n"
                  "a profile written by 'fom ingest'" },
        { .name = "--machine", .arg = "M", .kind = OPT_STRING, .dst = &o.machine,
          .required = 1, .expected = "a machine file",
          .help = "target machine description (XML)" },
        { .name = "--kernels", .arg = "PATH", .kind = OPT_LIST, .dst = &kernels,
          .expected = "a CSV file, folder or database",
          .help = "measured kernel tables: CSV file, folder or database;\n"
                  "may be repeated (give the profiled device's tables too\n"
                  "to use scaled-table)" },
        { .name = "--precision", .arg = "P", .kind = OPT_CALLBACK, .dst = &o.precision,
          .parse = parse_precision, .expected = "fp32, tf32, bf16 or fp16",
          .help = "estimate at this precision (fp32, tf32, bf16, fp16);\n"
                  "fp32 is IEEE fp32 (TF32 off), as the tables' fp32 rows" },
        { .name = "--cudnn-tf32", .kind = OPT_FLAG, .dst = &o.cudnn_tf32,
          .help = "the target run keeps PyTorch's default of TF32 for fp32\n"
                  "convolutions and recurrent layers (cuDNN); matrix\n"
                  "products stay IEEE fp32 (a GPU trace's kernel names say\n"
                  "what the profiled run used; a CPU trace cannot)" },
        { .name = "--batch", .arg = "N", .kind = OPT_POS_INT, .dst = &o.batch,
          .help = "estimate at this minibatch size: ops whose leading\n"
                  "dimension is the profiled batch scale with it: gemm m,\n"
                  "n or k equal to the batch (or to batch x sequence, the\n"
                  "rows of a flattened [batch, seq, ...] input), conv N,\n"
                  "bytes of ops whose input leads with the batch; the\n"
                  "optimizer and weight-sized ops do not change" },
        { .name = "--profile-batch", .arg = "N", .kind = OPT_POS_INT, .dst = &o.profile_batch,
          .help = "batch of the profiled run, when the trace does not say it\n"
                  "(needed by --batch to know what to rescale)" },
        { .name = "--source-machine", .arg = "M", .kind = OPT_STRING, .dst = &o.source_machine,
          .expected = "a machine file",
          .help = "machine the profile ran on (enables 'scaled')" },
        { .name = "--measured-step", .arg = "T", .kind = OPT_CALLBACK, .dst = &o.measured_step_s,
          .parse = parse_step, .expected = "a positive time with its unit (30ms) or none",
          .help = "the profiled run's step time without the profiler, which\n"
                  "calibrates a GPU trace's host times; default: step_time_s\n"
                  "of the trace's .meta.json if any; none: the trace alone" },
        { .name = "--format", .arg = "F", .kind = OPT_FORMAT, .dst = &o.format,
          .help = "output format: text (default), json or csv" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &o.out_path,
          .expected = "a file name",
          .help = "write to FILE (atomically) instead of standard output" },
        { 0 },
    };
    const struct command_line cl = { "fom estimate", estimate_usage, opts, NULL };
    int rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
    if (rc)
        goto out;
    if (args.n) {
        rc = options_usage_error(&cl, &ctx->diag, "found '%s', expected an option of "
                                 "'fom estimate'", args.v[0]);
        goto out;
    }
    o.kernels = kernels.v;
    o.n_kernels = kernels.n;
    rc = estimate_run(&o, &ctx->diag);
out:
    opt_list_release(&kernels);
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
