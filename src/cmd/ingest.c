#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "run/ingest_run.h"

static const char *const ingest_usage =
    "usage: fom ingest TRACE [--format auto|kineto|tfprof|tf-timeline|pt-table]\n"
    "                  [--batch N] [--top FRACTION] [--format-out text|json|csv] [-o FILE]\n"
    "\n"
    "Reduce a profiler trace to a workload profile: the ops of one training\n"
    "pass (one step) with kind, phase, dtype, shapes, count and time.\n"
    "Kineto traces may be gzip'd; they are streamed, not loaded.\n"
    "\n"
    "  --format F      input format (default auto: recognised from the content)\n"
    "  --batch N       minibatch size (resolves -1 dims in tfprof shapes)\n"
    "  --top FRACTION  keep the fewest ops covering this fraction of the pass\n"
    "                  time, in (0,1]; what is dropped is reported (default 1)\n"
    "  --format-out F  text (default), json or csv; json/csv can be read back\n"
    "                  by 'fom estimate --profile'\n"
    "  -o FILE         write to FILE (atomically) instead of standard output\n"
    "  -h, --help      show this help\n";

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) == 0 && argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (strcmp(argv[*i], name) != 0)
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

int cmd_ingest(int argc, char **argv, struct ctx *ctx)
{
    struct ingest_run_opts r = { NULL, { TRACE_AUTO, 0, 1.0, NULL }, FMT_TEXT, NULL, NULL };
    struct ingest_opts *const o = &r.read;
    const char *v;

    if (cmd_wants_help(argc, argv)) {
        fputs(ingest_usage, stdout);
        return FOM_OK;
    }
    for (int i = 1; i < argc; i++) {
        if ((v = opt_value(argc, argv, &i, "--format"))) {
            if (trace_format_parse(v, &o->format) < 0 || o->format == TRACE_PROFILE) {
                fputs(ingest_usage, stderr);
                return diag_usage(&ctx->diag, "--format: found '%s', expected auto, kineto, "
                                  "tfprof, tf-timeline or pt-table", v);
            }
        } else if ((v = opt_value(argc, argv, &i, "--format-out"))) {
            if (out_format_parse(v, &r.format) < 0)
                return diag_usage(&ctx->diag, "--format-out: found '%s', expected text, json or csv", v);
        } else if ((v = opt_value(argc, argv, &i, "--batch"))) {
            char *end;
            errno = 0;
            long long b = strtoll(v, &end, 10);
            if (!*v || *end || errno || b <= 0)
                return diag_usage(&ctx->diag, "--batch: found '%s', expected a positive integer", v);
            o->batch = b;
        } else if ((v = opt_value(argc, argv, &i, "--top"))) {
            char *end;
            double t = strtod(v, &end);
            if (!*v || *end || !isfinite(t) || t <= 0 || t > 1)
                return diag_usage(&ctx->diag, "--top: found '%s', expected a fraction in (0,1]", v);
            o->top = t;
        } else if ((v = opt_value(argc, argv, &i, "-o"))) {
            if (!*v)
                return diag_usage(&ctx->diag, "-o: expected a file name");
            r.out_path = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fputs(ingest_usage, stderr);
            return diag_usage(&ctx->diag, "unknown option '%s'", argv[i]);
        } else if (!r.trace) {
            r.trace = argv[i];
        } else {
            fputs(ingest_usage, stderr);
            return diag_usage(&ctx->diag, "found a second trace '%s', expected one", argv[i]);
        }
    }
    if (!r.trace) {
        fputs(ingest_usage, stderr);
        return diag_usage(&ctx->diag, "no trace given");
    }
    r.progress = ctx->progress ? stderr : NULL;
    return ingest_run(&r, &ctx->diag);
}
