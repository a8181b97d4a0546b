/* The option parser (core/options.h): every form of an option, the
 * arguments, --help, and every message. */
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "core/diag.h"
#include "core/options.h"

/* The options of a made-up command, and where they land. */
struct values {
    const char *out;
    struct opt_list tables;
    int quiet;
    enum out_format format;
    int64_t batch;
    double ratio;
};

static int parse_ratio(const char *v, void *dst)
{
    char *end;
    double r = strtod(v, &end);
    if (*end || !(r > 0 && r <= 1))
        return -1;
    *(double *)dst = r;
    return 0;
}

#define TABLE(val)                                                                      \
    {                                                                                   \
        { .name = "-o", .arg = "FILE", .kind = OPT_STRING, .dst = &(val).out,           \
          .expected = "a file name", .help = "write to FILE" },                         \
        { .name = "--tables", .arg = "PATH", .kind = OPT_LIST, .dst = &(val).tables,    \
          .help = "kernel tables;\nmay be repeated" },                                  \
        { .name = "--quiet", .kind = OPT_FLAG, .dst = &(val).quiet, .only = "run",      \
          .help = "say less" },                                                         \
        { .name = "--format", .arg = "F", .kind = OPT_FORMAT, .dst = &(val).format,     \
          .help = "text, json or csv" },                                                \
        { .name = "--batch", .arg = "N", .kind = OPT_POS_INT, .dst = &(val).batch,      \
          .required = 1, .help = "minibatch" },                                         \
        { .name = "--ratio", .arg = "R", .kind = OPT_CALLBACK, .dst = &(val).ratio,     \
          .parse = parse_ratio, .expected = "a fraction in (0,1]", .help = "share" },   \
        { 0 },                                                                          \
    }

static const char usage[] = "usage: fom try [options] FILE...\n\n";

/* Parse argv (NULL-terminated) as "fom try SUB ...": first = 1, sub
 * applies to the "only" lists.  Help goes to *help, messages to *err. */
struct run {
    struct values v;
    struct opt_list args;
    int rc;
    char *help, *err;
};

static void run_parse(struct run *r, const char *sub, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(r, 0, sizeof *r);
    size_t hl = 0, el = 0;
    FILE *hf = open_memstream(&r->help, &hl), *ef = open_memstream(&r->err, &el);
    struct diag d;
    diag_init(&d, ef);
    const struct option opts[] = TABLE(r->v);
    const struct command_line cl = { "fom try", usage, opts, sub };
    r->rc = options_parse(&cl, argc, argv, 1, &r->args, hf, &d);
    fclose(hf);
    fclose(ef);
}

static void run_free(struct run *r)
{
    opt_list_release(&r->v.tables);
    opt_list_release(&r->args);
    free(r->help);
    free(r->err);
}

/* The last line of the messages: the error after the usage. */
static const char *last_line(const char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n')
        n--;
    while (n && s[n - 1] != '\n')
        n--;
    return s + n;
}

static void test_forms(void **state)
{
    (void)state;
    struct run r;
    char *argv[] = { "try", "a.json", "-o", "out.txt", "--format=json", "--batch", "32",
                     "--tables", "t1.csv", "--tables=t2", "--ratio=0.5", "b.json", NULL };
    run_parse(&r, NULL, argv);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.v.out, "out.txt");
    assert_int_equal(r.v.format, FMT_JSON);
    assert_int_equal(r.v.batch, 32);
    assert_true(r.v.ratio == 0.5);
    assert_int_equal(r.v.tables.n, 2);
    assert_string_equal(r.v.tables.v[0], "t1.csv");
    assert_string_equal(r.v.tables.v[1], "t2");
    assert_int_equal(r.args.n, 2);
    assert_string_equal(r.args.v[0], "a.json");
    assert_string_equal(r.args.v[1], "b.json");
    assert_string_equal(r.err, "");
    run_free(&r);

    /* -o=FILE; a value that looks like an option is still the value; the
     * last of a repeated option wins; "-" is an argument */
    char *argv2[] = { "try", "-o=x.txt", "--batch", "1", "-o", "--format", "-",
                      "--format", "csv", "--format", "text", NULL };
    run_parse(&r, NULL, argv2);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.v.out, "--format");
    assert_int_equal(r.v.format, FMT_TEXT);
    assert_int_equal(r.args.n, 1);
    assert_string_equal(r.args.v[0], "-");
    run_free(&r);
}

static void test_double_dash_and_flags(void **state)
{
    (void)state;
    struct run r;
    char *argv[] = { "try", "--batch", "4", "--quiet", "--", "--format", "-o", NULL };
    run_parse(&r, "run", argv);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.v.quiet, 1);
    assert_int_equal(r.v.format, FMT_TEXT);
    assert_null(r.v.out);
    assert_int_equal(r.args.n, 2);
    assert_string_equal(r.args.v[0], "--format");
    assert_string_equal(r.args.v[1], "-o");
    run_free(&r);
}

static void test_help(void **state)
{
    (void)state;
    struct run r;
    char *argv[] = { "try", "--bogus", "--help", NULL };
    run_parse(&r, "run", argv);
    assert_int_equal(r.rc, OPT_HELP);
    assert_string_equal(r.help,
                        "usage: fom try [options] FILE...\n\n"
                        "  -o FILE        write to FILE\n"
                        "  --tables PATH  kernel tables;\n"
                        "                 may be repeated\n"
                        "  --quiet        say less\n"
                        "  --format F     text, json or csv\n"
                        "  --batch N      minibatch\n"
                        "  --ratio R      share\n"
                        "  -h, --help     show this help\n");
    assert_string_equal(r.err, "");
    run_free(&r);

    /* a subcommand's help leaves out the options of the others; after
     * "--", -h is an argument */
    char *argv2[] = { "try", "-h", NULL };
    run_parse(&r, "list", argv2);
    assert_int_equal(r.rc, OPT_HELP);
    assert_null(strstr(r.help, "--quiet"));
    run_free(&r);
    char *argv3[] = { "try", "--batch", "2", "--", "-h", NULL };
    run_parse(&r, NULL, argv3);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.args.v[0], "-h");
    run_free(&r);
}

/* Each bad command line: exit 2, the usage, then exactly this message. */
static void expect_error(const char *sub, char **argv, const char *msg)
{
    struct run r;
    run_parse(&r, sub, argv);
    assert_int_equal(r.rc, FOM_EUSAGE);
    assert_true(strncmp(r.err, usage, strlen(usage)) == 0);
    assert_string_equal(last_line(r.err), msg);
    assert_string_equal(r.help, "");
    run_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    char *unknown[] = { "try", "--batch", "1", "--bogus=3", NULL };
    expect_error(NULL, unknown, "error: unknown option '--bogus'\n");
    char *prefix[] = { "try", "--batch", "1", "--form", "json", NULL };
    expect_error(NULL, prefix, "error: unknown option '--form'\n");
    char *no_value[] = { "try", "--batch", "1", "-o", NULL };
    expect_error(NULL, no_value, "error: option '-o' needs a value\n");
    char *flag_value[] = { "try", "--batch", "1", "--quiet=yes", NULL };
    expect_error("run", flag_value, "error: option '--quiet' takes no value\n");
    char *help_value[] = { "try", "--batch", "1", "--help=yes", NULL };
    expect_error(NULL, help_value, "error: option '--help' takes no value\n");
    char *h_value[] = { "try", "--batch", "1", "-h=1", NULL };
    expect_error(NULL, h_value, "error: option '-h' takes no value\n");
    char *bad_format[] = { "try", "--batch", "1", "--format", "xml", NULL };
    expect_error(NULL, bad_format, "error: --format: found 'xml', expected text, json or csv\n");
    char *bad_int[] = { "try", "--batch=0", NULL };
    expect_error(NULL, bad_int, "error: --batch: found '0', expected a positive integer\n");
    char *big_int[] = { "try", "--batch", "9223372036854775808", NULL };
    expect_error(NULL, big_int,
                 "error: --batch: found '9223372036854775808', expected a positive integer\n");
    char *bad_cb[] = { "try", "--batch", "1", "--ratio", "1.5", NULL };
    expect_error(NULL, bad_cb, "error: --ratio: found '1.5', expected a fraction in (0,1]\n");
    char *empty[] = { "try", "--batch", "1", "-o", "", NULL };
    expect_error(NULL, empty, "error: -o: found an empty value, expected a file name\n");
    char *missing[] = { "try", "x", NULL };
    expect_error(NULL, missing, "error: missing --batch N\n");
    char *other_sub[] = { "try", "--batch", "1", "--quiet", NULL };
    expect_error("list", other_sub, "error: --quiet is not an option of 'fom try list'\n");
}

static void test_usage_error(void **state)
{
    (void)state;
    char *err = NULL;
    size_t len = 0;
    FILE *ef = open_memstream(&err, &len);
    struct diag d;
    diag_init(&d, ef);
    struct values v;
    memset(&v, 0, sizeof v);
    const struct option opts[] = TABLE(v);
    const struct command_line cl = { "fom try", usage, opts, NULL };
    assert_int_equal(options_usage_error(&cl, &d, "found %d files, expected one", 2), FOM_EUSAGE);
    fclose(ef);
    assert_true(strncmp(err, usage, strlen(usage)) == 0);
    assert_string_equal(last_line(err), "error: found 2 files, expected one\n");
    assert_int_equal(d.errors, 1);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_double_dash_and_flags),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_usage_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
