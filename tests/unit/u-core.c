#include "test.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "core/progress.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "model/precision.h"
#include "report/json.h"

static void test_units_time(void **state)
{
    (void)state;
    double v;
    const char *exp;
    assert_int_equal(unit_parse("60h", QTY_TIME, &v, &exp), 0);
    assert_close(v, 216000.0, 1e-15);
    assert_int_equal(unit_parse("3612s", QTY_TIME, &v, &exp), 0);
    assert_close(v, 3612.0, 1e-15);
    assert_int_equal(unit_parse(" 0.25 h ", QTY_TIME, &v, &exp), 0);
    assert_close(v, 900.0, 1e-15);
    assert_int_equal(unit_parse("2.5us", QTY_TIME, &v, &exp), 0);
    assert_close(v, 2.5e-6, 1e-12);
    assert_int_equal(unit_parse("5 min", QTY_TIME, &v, &exp), 0);
    assert_close(v, 300.0, 1e-15);
    assert_int_equal(unit_parse("1.5d", QTY_TIME, &v, &exp), 0);
    assert_close(v, 129600.0, 1e-15);
    assert_int_equal(unit_parse("7 ms", QTY_TIME, &v, &exp), 0);
    assert_close(v, 0.007, 1e-15);
}

static void test_units_rates(void **state)
{
    (void)state;
    double v;
    const char *exp;
    assert_int_equal(unit_parse("989.4 TFLOP/s", QTY_RATE, &v, &exp), 0);
    assert_close(v, 989.4e12, 1e-15);
    assert_int_equal(unit_parse("67 Tflop/s", QTY_RATE, &v, &exp), 0);
    assert_close(v, 67e12, 1e-15);
    assert_int_equal(unit_parse("3.35 TB/s", QTY_BW, &v, &exp), 0);
    assert_close(v, 3.35e12, 1e-15);
    assert_int_equal(unit_parse("80 GiB", QTY_BYTES, &v, &exp), 0);
    assert_close(v, 80.0 * 1073741824.0, 1e-15);
    assert_int_equal(unit_parse("80 GB", QTY_BYTES, &v, &exp), 0);
    assert_close(v, 80e9, 1e-15);
    assert_int_equal(unit_parse("700 W", QTY_POWER, &v, &exp), 0);
    assert_close(v, 700.0, 1e-15);
    assert_int_equal(unit_parse("200 Gbit/s", QTY_BW, &v, &exp), 0);
    assert_close(v, 25e9, 1e-15);
}

static void test_units_reject(void **state)
{
    (void)state;
    double v = 42;
    const char *exp = NULL;
    assert_int_equal(unit_parse("60", QTY_TIME, &v, &exp), -1);
    assert_non_null(strstr(exp, "time unit"));
    assert_int_equal(unit_parse("60 parsecs", QTY_TIME, &v, &exp), -1);
    assert_int_equal(unit_parse("nan s", QTY_TIME, &v, &exp), -1);
    assert_int_equal(unit_parse("inf h", QTY_TIME, &v, &exp), -1);
    assert_int_equal(unit_parse("0x10 s", QTY_TIME, &v, &exp), -1);
    assert_int_equal(unit_parse("3 TB/s", QTY_TIME, &v, &exp), -1);  /* wrong kind */
    assert_int_equal(unit_parse("3 s extra", QTY_TIME, &v, &exp), -1);
    assert_int_equal(unit_parse("", QTY_TIME, &v, &exp), -1);
    /* well-formed but beyond a double: the value is named, not the unit */
    assert_int_equal(unit_parse("1e400 s", QTY_TIME, &v, &exp), UNIT_ERANGE);
    assert_non_null(strstr(exp, "out of range, not the unit"));
    assert_int_equal(unit_parse("1e300 TFLOP/s", QTY_RATE, &v, &exp), UNIT_ERANGE);
    assert_non_null(strstr(exp, "out of range, not the unit"));
    assert_int_equal(unit_parse("1e-320s", QTY_TIME, &v, &exp), UNIT_ERANGE);
    assert_non_null(strstr(exp, "below the smallest positive time"));
    assert_int_equal(unit_parse("1e-400 s", QTY_TIME, &v, &exp), UNIT_ERANGE);
    assert_int_equal(unit_parse("1e-300 ns", QTY_TIME, &v, &exp), UNIT_ERANGE);
    assert_int_equal(unit_parse("1e300 GB", QTY_TIME, &v, &exp), UNIT_EFORM); /* wrong kind */
    assert_non_null(strstr(exp, "time unit"));
    /* "ms" is milli, "Ms" is not a time unit: prefixes are case-sensitive. */
    assert_int_equal(unit_parse("3 Ms", QTY_TIME, &v, &exp), -1);
    assert_true(v == 42);
    /* zero stays a value (the caller judges it), the smallest normal passes */
    assert_int_equal(unit_parse("0 s", QTY_TIME, &v, &exp), 0);
    assert_int_equal(unit_parse("2.3e-308 s", QTY_TIME, &v, &exp), 0);
}

static void test_unit_format(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(unit_format(1.5e12, QTY_RATE, buf, sizeof buf), "1.5 TFLOP/s");
    assert_string_equal(unit_format(0.0021, QTY_TIME, buf, sizeof buf), "2.1 ms");
    assert_string_equal(unit_format(3.35e12, QTY_BW, buf, sizeof buf), "3.35 TB/s");
}

static void test_strbuf(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    assert_string_equal(strbuf_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        strbuf_addf(&sb, "%d,", i);
    assert_int_equal(sb.len, strlen(sb.buf));
    assert_memory_equal(sb.buf, "0,1,2,", 6);
    char *s = strbuf_detach(&sb);
    assert_null(sb.buf);
    free(s);
}

static void test_precision(void **state)
{
    (void)state;
    assert_int_equal(precision_parse("float"), PREC_FP32);
    assert_int_equal(precision_parse("c10::BFloat16"), PREC_BF16);
    assert_int_equal(precision_parse("bf16"), PREC_BF16);
    assert_int_equal(precision_parse("Half"), PREC_FP16);
    assert_int_equal(precision_parse("quaternion"), PREC_UNKNOWN);
    assert_int_equal(precision_bytes(PREC_BF16), 2);
    assert_string_equal(precision_name(PREC_TF32), "tf32");
}

/* A JSON writer into memory, and what it wrote (the caller frees buf). */
struct memjson {
    char *buf;
    size_t len;
    FILE *fp;
    struct json j;
};

static struct json *memjson_open(struct memjson *m, int pretty)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    assert_non_null(m->fp);
    json_init(&m->j, m->fp, pretty);
    return &m->j;
}

static char *memjson_text(struct memjson *m)
{
    json_flush(&m->j);
    fclose(m->fp);
    return m->buf;
}

static void test_json_writer(void **state)
{
    (void)state;
    struct memjson m;
    struct json *j = memjson_open(&m, 0);
    json_obj_begin(j);
    json_kstr(j, "a", "q\"<\n");
    json_knum(j, "b", 0.5);
    json_knum(j, "nan", NAN);
    json_key(j, "c");
    json_arr_begin(j);
    json_int(j, 1);
    json_int(j, 2);
    json_arr_end(j);
    json_key(j, "e");
    json_obj_begin(j);
    json_obj_end(j);
    json_obj_end(j);
    char *buf = memjson_text(&m);
    assert_string_equal(buf, "{\"a\":\"q\\\"<\\n\",\"b\":0.5,\"nan\":null,\"c\":[1,2],\"e\":{}}");
    free(buf);
}

/* A one-line object in pretty output: its members and what they hold on
 * its line, ", " and ": " between them, the lines around it indented as
 * before; its empty objects stay "{}". */
static void test_json_obj_on_one_line(void **state)
{
    (void)state;
    struct memjson m;
    struct json *j = memjson_open(&m, 1);
    json_obj_begin(j);
    json_key(j, "ops");
    json_arr_begin(j);
    for (int i = 0; i < 2; i++) {
        json_obj_begin_line(j);
        json_kint(j, "id", i);
        json_key(j, "conv");
        json_obj_begin(j);
        json_kint(j, "n", 2);
        json_key(j, "e");
        json_obj_begin(j);
        json_obj_end(j);
        json_obj_end(j);
        json_kstr(j, "s", "x");
        json_obj_end(j);
    }
    json_arr_end(j);
    json_kint(j, "after", 1);
    json_obj_end(j);
    char *buf = memjson_text(&m);
    assert_string_equal(buf, "{\n  \"ops\": [\n"
                             "    {\"id\": 0, \"conv\": {\"n\": 2, \"e\": {}}, \"s\": \"x\"},\n"
                             "    {\"id\": 1, \"conv\": {\"n\": 2, \"e\": {}}, \"s\": \"x\"}\n"
                             "  ],\n  \"after\": 1\n}");
    free(buf);
}

/* json_num prints what "%.15g" prints, num_fmt_exact the shortest of
 * "%.15g" .. "%.17g" that reads back as v. */
static void check_num_as_printf(double v)
{
    char *buf = NULL, want[64], exact[32];
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct json j;
    json_init(&j, fp, 0);
    json_num(&j, v);
    json_flush(&j);
    fclose(fp);
    snprintf(want, sizeof want, "%.15g", v);
    assert_string_equal(buf, want);
    free(buf);
    num_fmt_exact(exact, sizeof exact, v);
    assert_true(strtod(exact, NULL) == v);
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(want, sizeof want, "%.*g", digits, v);
        if (strtod(want, NULL) == v)
            break;
    }
    assert_string_equal(exact, want);
}

/* Whole numbers and short decimals take paths of their own in the
 * writer: it must print what printf prints, at the edges of those paths
 * too, and on numbers of every form drawn at random (a fixed seed: the
 * same numbers each run). */
static void test_json_numbers_as_printf(void **state)
{
    (void)state;
    const double v[] = {
        1, -1, 7, 2000, -8004, 999999999999999.0, -999999999999999.0, 1e15, -1e15,
        1e16, 9007199254740993.0, 0.5, -2.25, 1e-300, 123456789.125, 4294967296.0, 1e300,
        5e-06, 4.99992, 4.9999150000000006, 0.1, 0.3, 0.1 + 0.2, 1e-4, 1.5e-5, 1e-5, 9.5e-5,
        0.0001, 0.00012345, 99999999999999.9, 0.999999999999999, 1e-22, 1.2345e-22, 3e-23,
        1e-7, 9.99999999999999e-8, 123456789012345e-22, 12345.678, -0.000123, 2.5e-10,
        DBL_MIN, DBL_MAX, DBL_TRUE_MIN, 1.0 / 3, 2.0 / 3,
    };
    const int64_t iv[] = { 0, 1, -1, 1000000000000000LL, INT64_MAX, INT64_MIN, -42 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check_num_as_printf(v[i]);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 30000; i++) {
        /* xorshift64: N / 10^k of up to 17 digits, sums of steps as a
         * trace's times are, and raw bit patterns */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double n = (double)(x % 100000000000000000u);
        double p = pow(10, (double)((x >> 58) % 30));
        check_num_as_printf(i % 3 == 0 ? n / p : i % 3 == 1 ? 1e-3 + i * 5e-6 : (double)(x >> 30) * 1e-6);
        double b;
        memcpy(&b, &x, sizeof b);
        if (isfinite(b) && b != 0)
            check_num_as_printf(b);
    }
    /* computed values: every binary significand, from below 1e-7 to
     * above 1e15 (2^-27 .. 2^52), both signs */
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double m = (double)((x >> 11) | (1ULL << 52));
        double w = ldexp(m, (int)((x >> 3) % 80) - 27 - 52);
        check_num_as_printf(i % 2 ? -w : w);
    }
    /* near ties of the 15th digit and the roll-over to the next power of ten */
    const double edge[] = { 0.5e-6, 1.00000000000000005, 9.999999999999995e-5, 9.9999999999999995e14,
                            999999999999999.4, 999999999999999.5, 123456789012345.5, 1.234567890123455,
                            1e-7, 9.99999999999999e-8, 0.000123456789012345678 };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        check_num_as_printf(edge[i]);
    for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++) {
        char *buf = NULL, want[32];
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        struct json j;
        json_init(&j, fp, 1);
        json_arr_begin(&j);
        json_int(&j, iv[i]);
        json_arr_end(&j);
        json_flush(&j);
        fclose(fp);
        snprintf(want, sizeof want, "[\n  %" PRId64 "\n]", iv[i]);
        assert_string_equal(buf, want);
        free(buf);
    }
}

/* Keys and strings take one write when short and plain; long ones and
 * ones that need escaping take the byte-by-byte path: both print alike. */
static void test_json_keys_short_and_long(void **state)
{
    (void)state;
    char long_key[100], want[512];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "a", "plain");
    json_kstr(&j, long_key, "q\"x");
    json_kstr(&j, "t\tab", long_key);
    json_obj_end(&j);
    json_flush(&j);
    fclose(fp);
    snprintf(want, sizeof want, "{\n  \"a\": \"plain\",\n  \"%s\": \"q\\\"x\",\n  \"t\\tab\": \"%s\"\n}",
             long_key, long_key);
    assert_string_equal(buf, want);
    free(buf);
}

/* The writer holds its output in a buffer of its own: values that cross
 * its end and a string longer than it come out whole and in order. */
static void test_json_past_its_buffer(void **state)
{
    (void)state;
    size_t n_ints = 3 * JSON_OUT_B / 4, long_len = 2 * JSON_OUT_B + 3;
    char *long_str = malloc(long_len + 1);
    assert_non_null(long_str);
    for (size_t i = 0; i < long_len; i++)
        long_str[i] = (char)('a' + i % 26);
    long_str[long_len] = '\0';
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct json j;
    json_init(&j, fp, 0);
    json_arr_begin(&j);
    for (size_t i = 0; i < n_ints; i++)
        json_int(&j, (int64_t)i * 7919);
    json_str(&j, long_str);
    json_int(&j, -5);
    json_arr_end(&j);
    json_finish(&j);
    fclose(fp);
    char *want = malloc(n_ints * 24 + long_len + 16), *w = want;
    assert_non_null(want);
    w += sprintf(w, "[");
    for (size_t i = 0; i < n_ints; i++)
        w += sprintf(w, "%s%zu", i ? "," : "", i * 7919);
    w += sprintf(w, ",\"%s\",-5]\n", long_str);
    assert_int_equal(len, (size_t)(w - want));
    assert_string_equal(buf, want);
    free(want);
    free(buf);
    free(long_str);
}

static void test_outfile_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/fom-u-core-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    struct diag d;
    diag_init(&d, NULL);
    mode_t mask = umask(022);
    assert_int_equal(write_file_atomic(path, "old\n", 4, &d), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* the mode a plain fopen would give, not mkstemp's 0600 */
    assert_int_equal(st.st_mode & 0777, 0644);
    umask(mask);
    /* An aborted write leaves the previous content in place. */
    struct outfile o;
    assert_int_equal(outfile_open(&o, path, &d), 0);
    fputs("half-written", o.fp);
    outfile_abort(&o);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[64] = { 0 };
    assert_non_null(fgets(line, sizeof line, fp));
    fclose(fp);
    assert_string_equal(line, "old\n");
    unlink(path);
    rmdir(dir);
}

static void test_diag_format(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag d;
    diag_init(&d, fp);
    int rc = diag_error_at(&d, "a.xml", 3, 7, "found '%s', expected a number", "x");
    assert_int_equal(rc, FOM_EDATA);
    diag_error_at(&d, "b.xml", 4, 0, "no column");
    fclose(fp);
    assert_string_equal(buf, "a.xml:3:7: error: found 'x', expected a number\n"
                             "b.xml:4: error: no column\n");
    assert_int_equal(d.errors, 2);
    free(buf);
}

/* An error at the line a reader is on quotes it with a caret under the
 * column: tabs stay tabs in the caret line, a UTF-8 character is one
 * column, control bytes show as '?', a long line shows a window around
 * the column; other lines, other files and warnings quote nothing. */
static void test_diag_quote(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag d;
    diag_init(&d, fp);
    const char *text = "\tµs,x\001,bad";
    struct diag_source src = { "t.csv", 5, text, strlen(text), 0 };
    d.src = &src;
    diag_error_at(&d, "t.csv", 5, 9, "found 'bad'");
    diag_error_at(&d, "t.csv", 5, 0, "no column: the first non-blank");
    src.col = 6;
    diag_error_at(&d, "t.csv", 5, 0, "the reader's column");
    diag_error_at(&d, "t.csv", 4, 2, "another line");
    diag_error_at(&d, "u.csv", 5, 2, "another file");
    diag_warn_at(&d, "t.csv", 5, 2, "a warning");
    char longline[301];
    memset(longline, 'a', 300);
    longline[300] = 0;
    longline[199] = 'X';
    struct diag_source big = { "l.txt", 1, longline, 300, 0 };
    d.src = &big;
    diag_error_at(&d, "l.txt", 1, 200, "found 'X'");
    fclose(fp);
    char want_long[512], *w = want_long;
    w += sprintf(w, "l.txt:1:200: error: found 'X'\n    ...");
    for (int i = 139; i < 259; i++)
        *w++ = i == 199 ? 'X' : 'a';
    w += sprintf(w, "...\n       %*s^\n", 60, "");
    struct strbuf want = STRBUF_INIT;
    strbuf_addstr(&want, "t.csv:5:9: error: found 'bad'\n"
                         "    \tµs,x?,bad\n"
                         "    \t      ^\n"
                         "t.csv:5: error: no column: the first non-blank\n"
                         "    \tµs,x?,bad\n"
                         "    \t^\n"
                         "t.csv:5: error: the reader's column\n"
                         "    \tµs,x?,bad\n"
                         "    \t   ^\n"
                         "t.csv:4:2: error: another line\n"
                         "u.csv:5:2: error: another file\n"
                         "t.csv:5:2: warning: a warning\n");
    strbuf_addstr(&want, want_long);
    assert_string_equal(buf, strbuf_str(&want));
    strbuf_release(&want);
    free(buf);
}

static void test_progress(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct progress p;
    progress_init(&p, fp, "t.json.gz");
    progress_bytes(&p, 10, 100);    /* too early: short work shows nothing */
    fflush(fp);
    assert_int_equal(len, 0);
    usleep(600 * 1000);
    progress_bytes(&p, 50000000, 100000000);
    fflush(fp);
    assert_non_null(strstr(buf, "\rfom: t.json.gz: 50% (50 of 100 MB"));
    progress_end(&p);
    fflush(fp);
    assert_non_null(strstr(buf, "\r\033[K"));
    fclose(fp);
    free(buf);
    /* a silent progress (not a terminal) writes nothing and does not crash */
    progress_init(&p, NULL, "x");
    progress_bytes(&p, 1, 2);
    progress_end(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_time),
        cmocka_unit_test(test_units_rates),
        cmocka_unit_test(test_units_reject),
        cmocka_unit_test(test_unit_format),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_precision),
        cmocka_unit_test(test_json_writer),
        cmocka_unit_test(test_json_obj_on_one_line),
        cmocka_unit_test(test_json_numbers_as_printf),
        cmocka_unit_test(test_json_keys_short_and_long),
        cmocka_unit_test(test_json_past_its_buffer),
        cmocka_unit_test(test_outfile_atomic),
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_diag_quote),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
