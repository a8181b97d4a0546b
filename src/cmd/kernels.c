#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/xalloc.h"
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
    "\n"
    "  --db DB         the database (created by import when missing)\n"
    "  --machine NAME  hardware name for every imported row (overrides env.json\n"
    "                  and hw columns)\n"
    "  --format F      list and shapes output: text (default), json or csv\n"
    "  -o FILE         shapes: write to FILE (atomically) instead of standard output\n"
    "  -h, --help      show this help\n";

int cmd_kernels(int argc, char **argv, struct ctx *ctx)
{
    struct kernels_import_opts o = { 0 };
    enum out_format fmt = FMT_TEXT;
    char **files = NULL;
    size_t n = 0, alloc = 0;
    int rc = 0, is_import;

    if (cmd_wants_help(argc, argv)) {
        fputs(kernels_usage, stdout);
        return FOM_OK;
    }
    if (argc < 2 || (strcmp(argv[1], "import") != 0 && strcmp(argv[1], "list") != 0 &&
                     strcmp(argv[1], "shapes") != 0)) {
        fputs(kernels_usage, stderr);
        return diag_usage(&ctx->diag, argc < 2 ? "no subcommand given, expected import, list or shapes"
                                               : "found '%s', expected import, list or shapes",
                          argv[argc < 2 ? 0 : 1]);
    }
    is_import = strcmp(argv[1], "import") == 0;
    int is_shapes = strcmp(argv[1], "shapes") == 0;
    const char *out_path = NULL;
    int only_files = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!only_files && strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (!only_files && (strcmp(a, "--db") == 0 || strcmp(a, "--machine") == 0 ||
                                   strcmp(a, "--format") == 0 || strcmp(a, "-o") == 0)) {
            if (i + 1 >= argc) {
                rc = diag_usage(&ctx->diag, "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (strcmp(a, "--db") == 0 && !is_shapes) {
                o.db = v;
            } else if (strcmp(a, "-o") == 0 && is_shapes) {
                if (!*v) {
                    rc = diag_usage(&ctx->diag, "-o: found an empty name, expected a file name");
                    goto out;
                }
                out_path = v;
            } else if (strcmp(a, "--machine") == 0 && is_import) {
                if (!*v) {
                    rc = diag_usage(&ctx->diag, "--machine: found an empty name, expected a hardware name");
                    goto out;
                }
                o.machine = v;
            } else if (strcmp(a, "--format") == 0 && !is_import) {
                if (out_format_parse(v, &fmt) != 0) {
                    rc = diag_usage(&ctx->diag, "--format: found '%s', expected text, json or csv", v);
                    goto out;
                }
            } else {
                rc = diag_usage(&ctx->diag, "%s is not an option of 'kernels %s'", a, argv[1]);
                goto out;
            }
        } else if (!only_files && a[0] == '-' && a[1]) {
            rc = diag_usage(&ctx->diag, "unknown option '%s'; see 'fom kernels --help'", a);
            goto out;
        } else if (is_import || is_shapes) {
            ALLOC_GROW(files, n + 1, alloc);
            files[n++] = (char *)a;
        } else {
            rc = diag_usage(&ctx->diag, "found '%s', expected no file arguments for 'kernels list'", a);
            goto out;
        }
    }
    if (is_shapes) {
        if (!n) {
            rc = diag_usage(&ctx->diag, "no PROFILE given, expected traces or saved profiles");
            goto out;
        }
        rc = kernels_shapes(files, n, fmt, out_path, ctx->out, &ctx->diag);
        goto out;
    }
    if (!o.db) {
        rc = diag_usage(&ctx->diag, "--db DB is required");
        goto out;
    }
    if (is_import) {
        if (!n) {
            rc = diag_usage(&ctx->diag, "no FILE given, expected kernel tables to import");
            goto out;
        }
        o.files = files;
        o.n_files = n;
        rc = kernels_import(&o, ctx->out, &ctx->diag);
    } else {
        rc = kernels_list(o.db, fmt, ctx->out, &ctx->diag);
    }
out:
    free(files);
    return rc;
}
