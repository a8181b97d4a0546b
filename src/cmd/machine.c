#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/xalloc.h"
#include "report/gnuplot.h"
#include "run/machine_run.h"

static const char *const machine_usage =
    "usage: fom machine validate FILE... [-o FILE]\n"
    "       fom machine show FILE [--format text|json|csv] [-o FILE]\n"
    "       fom machine compare BASE.xml OTHER.xml... [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Machine descriptions are XML files (machines/README.md, schema\n"
    "machines/machine.xsd): dense peak rates per precision and unit, memory\n"
    "levels, launch and dispatch overheads, links, power, price.\n"
    "\n"
    "  validate    check each file (schema, units, values); prints 'FILE: ok'\n"
    "  show        every field of one machine with its unit, ridge points\n"
    "  compare     machines side by side, each ratio to the first (the baseline)\n"
    "\n"
    "  --format F  output format: text (default), json or csv\n"
    "  -o FILE     write to FILE (atomically) instead of standard output\n"
    "  -h, --help  show this help\n";

static const char *const validate_usage =
    "usage: fom machine validate FILE... [-o FILE]\n"
    "\n"
    "Parse each machine file (no network, no entities), validate it against\n"
    "the schema and check its values: known units, finite and positive\n"
    "numbers, at least one peak and one memory level.  Prints 'FILE: ok' for\n"
    "each good file; errors read 'FILE:LINE: error: ...' on standard error.\n"
    "Exit status 1 when any file is bad.\n"
    "\n"
    "  -o FILE     write to FILE (atomically) instead of standard output\n"
    "  -h, --help  show this help\n";

static const char *const show_usage =
    "usage: fom machine show FILE [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Every field of a machine with its unit: peaks per device and per node,\n"
    "ridge points (FLOP per byte of main memory), memory levels, overheads,\n"
    "links, power and price.\n"
    "\n"
    "  --format F  output format: text (default), json or csv\n"
    "  -o FILE     write to FILE (atomically) instead of standard output\n"
    "  -h, --help  show this help\n";

static const char *const compare_usage =
    "usage: fom machine compare BASE.xml OTHER.xml... [--format text|json|csv] [-o FILE]\n"
    "                           [--chart FILE.svg|png]\n"
    "\n"
    "Machines side by side.  The first is the baseline; every other value is\n"
    "followed by its ratio to the baseline's.  Includes the ridge point of\n"
    "each precision and unit against main memory.\n"
    "\n"
    "  --format F  output format: text (default), json or csv\n"
    "  -o FILE     write to FILE (atomically) instead of standard output\n"
    "  --chart F   also draw peaks and bandwidths as a chart (.svg or .png)\n"
    "  -h, --help  show this help\n";

enum sub { SUB_VALIDATE, SUB_SHOW, SUB_COMPARE };

int cmd_machine(int argc, char **argv, struct ctx *ctx)
{
    struct machine_run_opts o = { FMT_TEXT, NULL, NULL };
    const char *chart = NULL;
    char **files = NULL;
    int n = 0;
    int rc = 0;
    enum sub sub;
    const char *usage = machine_usage;

    if (argc < 2 || argv[1][0] == '-') {
        if (cmd_wants_help(argc, argv)) {
            fputs(machine_usage, stdout);
            return FOM_OK;
        }
        fputs(machine_usage, stderr);
        return diag_usage(&ctx->diag, argc < 2 ? "no subcommand given, expected validate, show or compare"
                                               : "found '%s', expected validate, show or compare",
                          argv[argc < 2 ? 0 : 1]);
    }
    if (strcmp(argv[1], "validate") == 0) {
        sub = SUB_VALIDATE;
        usage = validate_usage;
    } else if (strcmp(argv[1], "show") == 0) {
        sub = SUB_SHOW;
        usage = show_usage;
    } else if (strcmp(argv[1], "compare") == 0) {
        sub = SUB_COMPARE;
        usage = compare_usage;
    } else {
        fputs(machine_usage, stderr);
        return diag_usage(&ctx->diag, "found subcommand '%s', expected validate, show or compare",
                          argv[1]);
    }
    if (cmd_wants_help(argc - 1, argv + 1)) {
        fputs(usage, stdout);
        return FOM_OK;
    }
    files = xcalloc(argc, sizeof *files);
    int only_files = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !a[1]) {
            files[n++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                fputs(usage, stderr);
                rc = diag_usage(&ctx->diag, "option '%s' needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (a[1] == 'o') {
                o.out_path = v;
            } else if (out_format_parse(v, &o.format)) {
                rc = diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv", v);
                goto out;
            }
        } else if (strcmp(a, "--chart") == 0 && sub == SUB_COMPARE) {
            if (i + 1 >= argc) {
                fputs(usage, stderr);
                rc = diag_usage(&ctx->diag, "option '%s' needs a value", a);
                goto out;
            }
            chart = argv[++i];
        } else if (strncmp(a, "--format=", 9) == 0) {
            if (out_format_parse(a + 9, &o.format)) {
                rc = diag_usage(&ctx->diag, "found --format '%s', expected text, json or csv", a + 9);
                goto out;
            }
        } else {
            fputs(usage, stderr);
            rc = diag_usage(&ctx->diag, "unknown option '%s'", a);
            goto out;
        }
    }
    if (n == 0 || (sub == SUB_SHOW && n != 1) || (sub == SUB_COMPARE && n < 2)) {
        fputs(usage, stderr);
        rc = diag_usage(&ctx->diag, "found %d machine file%s, expected %s", n, n == 1 ? "" : "s",
                        sub == SUB_SHOW ? "one" : sub == SUB_COMPARE ? "two or more" : "one or more");
        goto out;
    }
    if (chart && gp_term_from_path(chart) < 0) {
        rc = diag_usage(&ctx->diag, "found chart '%s', expected a file name ending in .svg or .png",
                        chart);
        goto out;
    }
    o.chart_path = chart;
    if (sub == SUB_VALIDATE)
        rc = machine_run_validate(files, n, &o, &ctx->diag);
    else if (sub == SUB_SHOW)
        rc = machine_run_show(files[0], &o, &ctx->diag);
    else
        rc = machine_run_compare(files, n, &o, &ctx->diag);
out:
    free(files);
    return rc;
}
