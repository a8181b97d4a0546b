#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/options.h"
#include "run/kernels.h"

static const char *const kernels_usage =
    "usage: fom kernels import FILE... --db DB [--machine NAME]\n"
    "       fom kernels list --db DB [--format text|json|csv]\n"
    "       fom kernels shapes PROFILE... [--format text|csv|json] [-o FILE]\n"
    "\n"
    "Measured kernel tables (DeepBench style) in a SQLite database that\n"
    "'fom estimate --kernels DB' reads.\n"
    "\n"
    "  import      read each FILE (our CSV tables, DeepBench's published CSV,\n"
    "              DeepBench's printed output, a folder of CSVs with env.json,\n"
    "              or another db) and add its rows to DB in one transaction;\n"
    "              a row whose key is already there replaces the older one\n"
    "  list        rows per hardware, kind and precision\n"
    "  shapes      the distinct kernel shapes of the profiles (traces or saved\n"
    "              profiles) per kind, with calls per pass and share of the\n"
    "              pass time; the csv and json forms are what\n"
    "              estimators/measure/measure.py --shapes measures\n"
    "\n";

int cmd_kernels(int argc, char **argv, struct ctx *ctx)
{
    struct kernels_import_opts o = { 0 };
    enum out_format fmt = FMT_TEXT;
    const char *out_path = NULL;
    const struct option opts[] = {
        { .name = "--db", .arg = "DB", .kind = OPT_STRING, .dst = &o.db, .required = 1,
          .only = "import list", .expected = "a database file",
          .help = "the database (created by import when missing)" },
        { .name = "--machine", .arg = "NAME", .kind = OPT_STRING, .dst = &o.machine,
          .only = "import", .expected = "a hardware name",
          .help = "hardware name for every imported row (overrides env.json\n"
                  "and hw columns)" },
        { .name = "--format", .arg = "F", .kind = OPT_FORMAT, .dst = &fmt,
          .only = "list shapes", .help = "list and shapes output: text (default), json or csv" },
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &out_path, .only = "shapes",
          .expected = "a file name",
          .help = "shapes: write to FILE (atomically) instead of standard output" },
        { 0 },
    };
    struct command_line cl = { "fom kernels", kernels_usage, opts, NULL };
    struct opt_list args = { 0 };
    int rc;

    if (argc < 2 || (strcmp(argv[1], "import") != 0 && strcmp(argv[1], "list") != 0 &&
                     strcmp(argv[1], "shapes") != 0)) {
        rc = options_parse(&cl, argc, argv, 1, &args, stdout, &ctx->diag);
        if (rc == 0)
            rc = options_usage_error(&cl, &ctx->diag, argc < 2
                                     ? "no subcommand given, expected import, list or shapes"
                                     : "found '%s', expected import, list or shapes",
                                     argv[argc < 2 ? 0 : 1]);
        goto out;
    }
    cl.sub = argv[1];
    int is_import = strcmp(cl.sub, "import") == 0, is_shapes = strcmp(cl.sub, "shapes") == 0;
    rc = options_parse(&cl, argc, argv, 2, &args, stdout, &ctx->diag);
    if (rc)
        goto out;
    if (is_shapes) {
        if (!args.n)
            rc = options_usage_error(&cl, &ctx->diag,
                                     "no PROFILE given, expected traces or saved profiles");
        else
            rc = kernels_shapes((char **)args.v, args.n, fmt, out_path, ctx->out, &ctx->diag);
    } else if (is_import) {
        if (!args.n) {
            rc = options_usage_error(&cl, &ctx->diag,
                                     "no FILE given, expected kernel tables to import");
            goto out;
        }
        o.files = (char **)args.v;
        o.n_files = args.n;
        rc = kernels_import(&o, ctx->out, &ctx->diag);
    } else if (args.n) {
        rc = options_usage_error(&cl, &ctx->diag,
                                 "found '%s', expected no file arguments for 'kernels list'",
                                 args.v[0]);
    } else {
        rc = kernels_list(o.db, fmt, ctx->out, &ctx->diag);
    }
out:
    opt_list_release(&args);
    return rc == OPT_HELP ? FOM_OK : rc;
}
