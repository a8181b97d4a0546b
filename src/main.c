/* fom: figure of merit for deep-learning systems.
 * main() builds the context, finds the command in the table and runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "cmd.h"
#include "core/ctx.h"
#include "core/tmpreg.h"
#include "version.h"

struct cmd {
    const char *name;
    int (*fn)(int argc, char **argv, struct ctx *ctx);
    const char *help;
};

static const struct cmd commands[] = {
    { "ingest", cmd_ingest, "reduce a profiler trace to a workload profile" },
    { "estimate", cmd_estimate, "estimate a profile's pass time on a machine" },
    { "fom", cmd_fom, "figure of merit of a study: units per day and ratios" },
    { "report", cmd_report, "write a procurement report with charts" },
    { "machine", cmd_machine, "validate, show or compare machine files" },
    { "kernels", cmd_kernels, "import measured kernel tables into a database" },
    { "roofline", cmd_roofline, "draw a machine's roofline with a profile's ops" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *fp)
{
    fprintf(fp, "usage: fom <command> [<args>]\n"
                "       fom help [<command>]\n"
                "       fom --version\n\n"
                "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(fp, "  %-10s  %s\n", commands[i].name, commands[i].help);
    fprintf(fp, "\n'fom <command> --help' describes a command.\n"
                "exit status: 0 ok, 1 bad input data, 2 usage error, 3 system error\n");
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const struct cmd *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "fom: '%s' is not a fom command; see 'fom help'\n", name);
    const struct cmd *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t d = edit_distance(name, commands[i].name);
        /* a suggestion must share more than half of what was typed:
         * "frob" is two edits from "fom" and means nothing by it */
        if ((d < best_d && 2 * d < strlen(name)) || (strncmp(name, commands[i].name, strlen(name)) == 0 && strlen(name) >= 2)) {
            best_d = d;
            best = &commands[i];
        }
    }
    if (best)
        fprintf(stderr, "\nthe most similar command is\n\t%s\n", best->name);
    return FOM_EUSAGE;
}

int main(int argc, char **argv)
{
    struct ctx ctx;
    ctx.prog = "fom";
    diag_init(&ctx.diag, stderr);
    ctx.out = stdout;
    ctx.progress = isatty(STDERR_FILENO);
    /* GSL aborts on errors by default; we check every status instead. */
    gsl_set_error_handler_off();
    /* An interrupted run removes its temporaries (core/tmpreg.h). */
    tmpreg_install();

    if (argc < 2) {
        usage(stderr);
        return FOM_EUSAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("fom %s\n", FOM_VERSION);
        return FOM_OK;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const struct cmd *c = find_command(argv[2]);
            if (!c)
                return unknown_command(argv[2]);
            char *hargv[] = { (char *)c->name, "--help", NULL };
            return c->fn(2, hargv, &ctx);
        }
        usage(stdout);
        return FOM_OK;
    }
    const struct cmd *c = find_command(name);
    if (!c)
        return unknown_command(name);
    int rc = c->fn(argc - 1, argv + 1, &ctx);
    if (fflush(stdout) != 0 && rc == FOM_OK) {
        fprintf(stderr, "error: cannot write to standard output\n");
        rc = FOM_ESYS;
    }
    return rc;
}
