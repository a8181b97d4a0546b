#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
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
    "\n";

static const char *const validate_usage =
    "usage: fom machine validate FILE... [-o FILE]\n"
    "\n"
    "Parse each machine file (no network, no entities), validate it against\n"
    "the schema and check its values: known units, finite and positive\n"
    "numbers, at least one peak and one memory level.  Prints 'FILE: ok' for\n"
    "each good file; errors read 'FILE:LINE: error: ...' on standard error.\n"
    "Exit status 1 when any file is bad.\n"
    "\n";

static const char *const show_usage =
    "usage: fom machine show FILE [--format text|json|csv] [-o FILE]\n"
    "\n"
    "Every field of a machine with its unit: peaks per device and per node,\n"
    "ridge points (FLOP per byte of main memory), memory levels, overheads,\n"
    "links, power and price.\n"
    "\n";

static const char *const compare_usage =
    "usage: fom machine compare BASE.xml OTHER.xml... [--format text|json|csv] [-o FILE]\n"
    "                           [--chart FILE.svg|png]\n"
    "\n"
    "Machines side by side.  The first is the baseline; every other value is\n"
    "followed by its ratio to the baseline's.  Includes the ridge point of\n"
    "each precision and unit against main memory.\n"
    "\n";

static const struct {
    const char *name;
    const char *usage;
} subs[] = {
    { "validate", validate_usage },
    { "show", show_usage },
    { "compare", compare_usage },
};
enum sub { SUB_VALIDATE, SUB_SHOW, SUB_COMPARE, SUB_COUNT };

/* The machine files a subcommand needs: n checked against its count. */
static int check_files(const struct command_line *cl, enum sub sub, size_t n, struct diag *d)
{
    if (n == 0 || (sub == SUB_SHOW && n != 1) || (sub == SUB_COMPARE && n < 2))
        return options_usage_error(cl, d, "found %zu machine file%s, expected %s", n,
                                   n == 1 ? "" : "s",
                                   sub == SUB_SHOW ? "one"
                                   : sub == SUB_COMPARE ? "two or more" : "one or more");
    return 0;
}

int cmd_machine(int argc, char **argv, struct ctx *ctx)
{
    struct machine_run_opts o = { FMT_TEXT, NULL, NULL };
    const struct option opts[] = {
        { .name = "--format", .arg = "F", .kind = OPT_FORMAT, .dst = &o.format,
          .only = "show compare", .help = "output format: text (default), json or csv" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &o.out_path,
          .expected = "a file name",
          .help = "write to FILE (atomically) instead of standard output" },
        { .name = "--chart", .arg = "F", .kind = OPT_STRING, .dst = &o.chart_path,
          .only = "compare", .expected = "a file name ending in .svg or .png",
          .help = "also draw peaks and bandwidths as a chart (.svg or .png)" },
        { 0 },
    };
    struct command_line cl = { "fom machine", machine_usage, opts, NULL };
    struct opt_list args = { 0 };
    int sub = 0, rc;

    if (argc < 2 || argv[1][0] == '-') {
        rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
        if (rc == 0)
            rc = options_usage_error(&cl, &ctx->diag, argc < 2
                                     ? "no subcommand given, expected validate, show or compare"
                                     : "found '%s', expected validate, show or compare",
                                     argv[argc < 2 ? 0 : 1]);
        goto out;
    }
    while (sub < SUB_COUNT && strcmp(argv[1], subs[sub].name) != 0)
        sub++;
    if (sub == SUB_COUNT) {
        rc = options_usage_error(&cl, &ctx->diag,
                                 "found subcommand '%s', expected validate, show or compare",
                                 argv[1]);
        goto out;
    }
    cl.sub = subs[sub].name;
    cl.usage = subs[sub].usage;
    rc = options_parse(&cl, argc, argv, 2, &args, stdout, &ctx->diag);
    if (rc || (rc = check_files(&cl, sub, args.n, &ctx->diag)))
        goto out;
    if ((rc = machine_run_check_chart(o.chart_path, &ctx->diag)))
        goto out;
    char **files = (char **)args.v;
    if (sub == SUB_VALIDATE)
        rc = machine_run_validate(files, (int)args.n, &o, &ctx->diag);
    else if (sub == SUB_SHOW)
        rc = machine_run_show(files[0], &o, &ctx->diag);
    else
        rc = machine_run_compare(files, (int)args.n, &o, &ctx->diag);
out:
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
