#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/xalloc.h"
#include "run/estimate_run.h"

static const char *const estimate_usage =
    "usage: fom estimate --profile TRACE_OR_PROFILE --machine MACHINE.xml [--kernels PATH]...\n"
    "                    [--precision fp32|tf32|bf16|fp16] [--batch N] [--profile-batch N]\n"
    "                    [--source-machine M.xml]\n"
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
    "\n"
    "  --profile P         trace (Kineto, tfprof, TF timeline, key_averages table) or\n"
    "                      a profile written by 'fom ingest'\n"
    "  --machine M         target machine description (XML)\n"
    "  --kernels PATH      measured kernel tables: CSV file, folder or database;\n"
    "                      may be repeated (give the profiled device's tables too\n"
    "                      to use scaled-table)\n"
    "  --precision P       estimate at this precision (fp32, tf32, bf16, fp16)\n"
    "  --batch N           estimate at this minibatch size: ops whose leading\n"
    "                      dimension is the profiled batch scale with it: gemm m,\n"
    "                      n or k equal to the batch (or to batch x sequence, the\n"
    "                      rows of a flattened [batch, seq, ...] input), conv N,\n"
    "                      bytes of ops whose input leads with the batch; the\n"
    "                      optimizer and weight-sized ops do not change\n"
    "  --profile-batch N   batch of the profiled run, when the trace does not say it\n"
    "                      (needed by --batch to know what to rescale)\n"
    "  --source-machine M  machine the profile ran on (enables 'scaled')\n"
    "  --format F          output format: text (default), json or csv\n"
    "  -o FILE             write to FILE (atomically) instead of standard output\n"
    "  -h, --help          show this help\n";

static int parse_batch(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v <= 0)
        return -1;
    *out = v;
    return 0;
}

int cmd_estimate(int argc, char **argv, struct ctx *ctx)
{
    struct estimate_run_opts o;
    const char **kernels = NULL;
    size_t n_kernels = 0, alloc_kernels = 0;
    int rc;

    if (cmd_wants_help(argc, argv)) {
        fputs(estimate_usage, stdout);
        return FOM_OK;
    }
    estimate_run_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--profile") == 0 || strcmp(a, "--machine") == 0 ||
                    strcmp(a, "--kernels") == 0 || strcmp(a, "--precision") == 0 ||
                    strcmp(a, "--batch") == 0 || strcmp(a, "--format") == 0 ||
                    strcmp(a, "-o") == 0 || strcmp(a, "--source-machine") == 0 ||
                    strcmp(a, "--profile-batch") == 0;
        if (!takes) {
            fputs(estimate_usage, stderr);
            rc = diag_usage(&ctx->diag, "found '%s', expected an option of 'fom estimate'", a);
            goto out;
        }
        if (!v) {
            rc = diag_usage(&ctx->diag, "option '%s' needs a value", a);
            goto out;
        }
        i++;
        if (strcmp(a, "--profile") == 0) {
            o.profile = v;
        } else if (strcmp(a, "--machine") == 0) {
            o.machine = v;
        } else if (strcmp(a, "--source-machine") == 0) {
            o.source_machine = v;
        } else if (strcmp(a, "--kernels") == 0) {
            ALLOC_GROW(kernels, n_kernels + 1, alloc_kernels);
            kernels[n_kernels++] = v;
        } else if (strcmp(a, "--precision") == 0) {
            enum precision p = precision_parse(v);
            if (p != PREC_FP32 && p != PREC_TF32 && p != PREC_BF16 && p != PREC_FP16) {
                rc = diag_usage(&ctx->diag, "--precision: found '%s', expected fp32, tf32, bf16 or fp16", v);
                goto out;
            }
            o.precision = p;
        } else if (strcmp(a, "--batch") == 0) {
            if (parse_batch(v, &o.batch) != 0) {
                rc = diag_usage(&ctx->diag, "--batch: found '%s', expected a positive integer", v);
                goto out;
            }
        } else if (strcmp(a, "--profile-batch") == 0) {
            if (parse_batch(v, &o.profile_batch) != 0) {
                rc = diag_usage(&ctx->diag, "--profile-batch: found '%s', expected a positive integer", v);
                goto out;
            }
        } else if (strcmp(a, "--format") == 0) {
            if (out_format_parse(v, &o.format) != 0) {
                rc = diag_usage(&ctx->diag, "--format: found '%s', expected text, json or csv", v);
                goto out;
            }
        } else {
            o.out_path = v;
        }
    }
    if (!o.profile || !o.machine) {
        fputs(estimate_usage, stderr);
        rc = diag_usage(&ctx->diag, "missing %s", !o.profile ? "--profile" : "--machine");
        goto out;
    }
    o.kernels = kernels;
    o.n_kernels = n_kernels;
    rc = estimate_run(&o, &ctx->diag);
out:
    free(kernels);
    return rc;
}
