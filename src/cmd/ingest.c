#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
#include "run/ingest_run.h"

static const char *const ingest_usage =
    "usage: fom ingest TRACE [--format auto|kineto|tfprof|tf-timeline|pt-table]\n"
    "                  [--batch N] [--top FRACTION] [--format-out text|json|csv] [-o FILE]\n"
    "\n"
    "Reduce a profiler trace to a workload profile: the ops of one training\n"
    "pass (one step) with kind, phase, dtype, shapes, count and time.\n"
    "Kineto traces may be gzip'd; they are streamed, not loaded.\n"
    "\n";

static int parse_trace_format(const char *v, void *dst)
{
    enum trace_format *f = dst;
    return trace_format_parse(v, f) < 0 || *f == TRACE_PROFILE ? -1 : 0;
}

static int parse_top(const char *v, void *dst)
{
    char *end;
    double t = strtod(v, &end);
    if (*end || !isfinite(t) || t <= 0 || t > 1)
        return -1;
    *(double *)dst = t;
    return 0;
}

int cmd_ingest(int argc, char **argv, struct ctx *ctx)
{
    struct ingest_run_opts r = { NULL, { TRACE_AUTO, 0, 1.0, NULL }, FMT_TEXT, NULL, NULL };
    const struct option opts[] = {
        { .name = "--format", .arg = "F", .kind = OPT_CALLBACK, .dst = &r.read.format,
          .parse = parse_trace_format,
          .expected = "auto, kineto, tfprof, tf-timeline or pt-table",
          .help = "input format (default auto: recognised from the content)" },
        { .name = "--batch", .arg = "N", .kind = OPT_POS_INT, .dst = &r.read.batch,
          .help = "minibatch size (resolves -1 dims in tfprof shapes)" },
        { .name = "--top", .arg = "FRACTION", .kind = OPT_CALLBACK, .dst = &r.read.top,
          .parse = parse_top, .expected = "a fraction in (0,1]",
          .help = "keep the fewest ops covering this fraction of the pass\n"
                  "time, in (0,1]; what is dropped is reported (default 1)" },
        { .name = "--format-out", .arg = "F", .kind = OPT_FORMAT, .dst = &r.format,
          .help = "text (default), json or csv; json/csv can be read back\n"
                  "by 'fom estimate --profile'" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &r.out_path,
          .expected = "a file name",
          .help = "write to FILE (atomically) instead of standard output" },
        { 0 },
    };
    const struct command_line cl = { "fom ingest", ingest_usage, opts, NULL };
    struct opt_list args = { 0 };
    int rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
    if (rc)
        goto out;
    if (args.n == 0) {
        rc = options_usage_error(&cl, &ctx->diag, "no trace given");
        goto out;
    }
    if (args.n > 1) {
        rc = options_usage_error(&cl, &ctx->diag, "found a second trace '%s', expected one",
                                 args.v[1]);
        goto out;
    }
    r.trace = args.v[0];
    r.progress = ctx->progress ? stderr : NULL;
    rc = ingest_run(&r, &ctx->diag);
out:
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
