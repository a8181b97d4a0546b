/* One table-driven option parser for every command, in the manner of
 * git's parse-options: a command lists its options in a table, and the
 * parser gives all of them the same forms, the same messages and a
 * generated option list for --help.
 *
 * Forms: "--opt value" and "--opt=value" (also "-o value" and "-o=value"
 * for a one-letter option); "--" ends the options; "-" alone is an
 * argument (standard input).  A value is the next argument whatever it
 * looks like, so "-o -x" writes to a file named "-x".  A flag takes no
 * value.  An option given twice keeps its last value, except a list,
 * which keeps every value in order.
 *
 * Messages (each after the command's usage on standard error, exit 2):
 *   unknown option '--bogus'
 *   option '-o' needs a value
 *   option '--flag' takes no value
 *   --format: found 'xml', expected text, json or csv
 *   --db: found an empty value, expected a database file
 *   missing --db DB
 *   --chart is not an option of 'fom machine show'
 */
#ifndef FOM_OPTIONS_H
#define FOM_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

struct diag;

enum opt_kind {
    OPT_STRING,     /* const char **dst: the value */
    OPT_LIST,       /* struct opt_list *dst: every value, repeatable */
    OPT_FLAG,       /* int *dst: set to 1; takes no value */
    OPT_FORMAT,     /* enum out_format *dst: text, json or csv */
    OPT_POS_INT,    /* int64_t *dst: a positive integer */
    OPT_CALLBACK,   /* parse(value, dst) returns 0, or -1 for a bad value */
};

struct option {
    const char *name;       /* "--format" or "-o"; NULL ends the table */
    const char *arg;        /* the value's name in the help ("F", "FILE") */
    enum opt_kind kind;
    void *dst;
    const char *help;       /* one line per '\n' in the option list */
    const char *expected;   /* what a good value is, for messages (OPT_STRING,
                               OPT_CALLBACK); the kind's own for the others */
    int (*parse)(const char *value, void *dst);
    int required;           /* "missing --opt ARG" when not given */
    const char *only;       /* the subcommands that take it, separated by
                               spaces ("show compare"); NULL: all */
};

struct opt_list {
    const char **v;         /* point into argv */
    size_t n, alloc;
};

void opt_list_release(struct opt_list *l);

struct command_line {
    const char *cmd;            /* "fom machine", for messages */
    const char *usage;          /* the help before the option list: usage
                                   lines and description, ending in "\n\n" */
    const struct option *opts;
    const char *sub;            /* the subcommand parsed, or NULL */
};

/* Returned by options_parse after printing the help. */
#define OPT_HELP (-1)

/* Parse argv[first..argc).  Arguments that are not options are appended
 * to args in order (the caller releases it, also on failure).  With -h or
 * --help before "--", prints the help to help_out and returns OPT_HELP.
 * Returns 0, or FOM_EUSAGE after printing the usage and a message. */
int options_parse(const struct command_line *cl, int argc, char **argv, int first,
                  struct opt_list *args, FILE *help_out, struct diag *d);

/* The usage, then the option list of cl's subcommand, then -h. */
void options_help(FILE *fp, const struct command_line *cl);

/* A usage error found by the command itself (a wrong number of
 * arguments): prints the usage, then the message; returns FOM_EUSAGE. */
int options_usage_error(const struct command_line *cl, struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
