#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/strbuf.h"
#include "ingest/jsonfix.h"

/* Runs the filter over s cut into feeds at the offsets in cuts (ascending,
 * 0-terminated); returns the output (caller frees) and the repair count. */
static char *run_cuts(const char *s, size_t n, const size_t *cuts, uint64_t *repaired)
{
    struct jsonfix f;
    struct strbuf sb = STRBUF_INIT;
    unsigned char *out = malloc(jsonfix_out_max(n));
    size_t at = 0;

    jsonfix_init(&f);
    for (size_t i = 0;; i++) {
        size_t to = cuts && cuts[i] ? cuts[i] : n;
        size_t k = jsonfix_feed(&f, (const unsigned char *)s + at, to - at, out);
        strbuf_add(&sb, out, k);
        at = to;
        if (at == n)
            break;
    }
    strbuf_add(&sb, out, jsonfix_finish(&f, out));
    assert_int_equal(f.out_b, sb.len);
    *repaired = f.n_repaired;
    jsonfix_release(&f);
    free(out);
    return strbuf_detach(&sb);
}

/* Filters s whole, then cut in two at every offset, then byte by byte:
 * the output must be want every time. */
static void check(const char *s, const char *want, uint64_t want_repaired)
{
    size_t n = strlen(s);
    uint64_t rep;
    char *got = run_cuts(s, n, NULL, &rep);
    assert_string_equal(got, want);
    assert_int_equal(rep, want_repaired);
    free(got);
    for (size_t c = 1; c < n; c++) {
        size_t cuts[2] = {c, 0};
        got = run_cuts(s, n, cuts, &rep);
        if (strcmp(got, want) != 0)
            fail_msg("cut at %zu: got '%s', expected '%s'", c, got, want);
        assert_int_equal(rep, want_repaired);
        free(got);
    }
    size_t *cuts = calloc(n + 1, sizeof *cuts);
    for (size_t c = 1; c < n; c++)
        cuts[c - 1] = c;
    got = run_cuts(s, n, cuts, &rep);
    assert_string_equal(got, want);
    assert_int_equal(rep, want_repaired);
    free(got);
    free(cuts);
}

static void test_inner_quotes(void **state)
{
    (void)state;
    /* quotes followed by a letter, a digit, '(' and ')' are inside the name */
    check("{\"name\":\"a\"b\"7\"(c\")\"}", "{\"name\":\"a\\\"b\\\"7\\\"(c\\\")\"}", 4);
    /* the Python frame name of an old with_stack trace */
    check("[{\"name\":\"torch/nn/modules/module.py(1501): _call_impl \"x\"\"}]",
          "[{\"name\":\"torch/nn/modules/module.py(1501): _call_impl \\\"x\\\"\"}]", 2);
    /* an inner quote followed by blanks then a letter: the blanks stay */
    check("{\"a\":\"x\" \t y\"}", "{\"a\":\"x\\\" \t y\"}", 1);
}

static void test_closing_quotes(void **state)
{
    (void)state;
    /* closing quotes followed by blanks then , : } ] */
    check("{\"a\" :\"x\" \n ,\"b\"\t: [\"y\"\r\n]  }", "{\"a\" :\"x\" \n ,\"b\"\t: [\"y\"\r\n]  }", 0);
    /* a string at the very end of the input */
    check("\"abc\"", "\"abc\"", 0);
    check("\"abc\"  ", "\"abc\"  ", 0);
}

static void test_escapes(void **state)
{
    (void)state;
    /* \" is an escaped quote and \\ an escaped backslash: untouched */
    check("{\"a\":\"x\\\"y\"}", "{\"a\":\"x\\\"y\"}", 0);
    check("{\"a\":\"x\\\\\"}", "{\"a\":\"x\\\\\"}", 0);
    check("{\"a\":\"\\\\\\\\\",\"b\":\"\\\\\\\"\"}", "{\"a\":\"\\\\\\\\\",\"b\":\"\\\\\\\"\"}", 0);
    /* an escaped backslash then a stray quote */
    check("{\"a\":\"\\\\\"q\"}", "{\"a\":\"\\\\\\\"q\"}", 1);
}

/* The cuts that matter, spelled out (check() also tries every cut). */
static void test_across_feeds(void **state)
{
    (void)state;
    const char *s = "{\"a\":\"x\"y\"}";
    size_t quote_split[] = {8, 0};      /* feed 1 ends just after the stray quote */
    uint64_t rep;
    char *got = run_cuts(s, strlen(s), quote_split, &rep);
    assert_string_equal(got, "{\"a\":\"x\\\"y\"}");
    assert_int_equal(rep, 1);
    free(got);

    const char *t = "{\"a\":\"x\"    y\", \"b\":\"z\"   \n  }";
    size_t blank_split[] = {9, 10, 11, 26, 29, 0};  /* cuts inside both runs of blanks */
    got = run_cuts(t, strlen(t), blank_split, &rep);
    assert_string_equal(got, "{\"a\":\"x\\\"    y\", \"b\":\"z\"   \n  }");
    assert_int_equal(rep, 1);
    free(got);
}

static void test_long_blanks(void **state)
{
    (void)state;
    /* a quote followed by more than JSONFIX_HOLD_MAX blanks counts as closing
     * whatever follows; up to that many it is still decided by the next byte */
    struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;
    strbuf_addstr(&in, "[\"x\"");
    for (int i = 0; i < JSONFIX_HOLD_MAX; i++)
        strbuf_addch(&in, ' ');
    strbuf_addstr(&in, "y\"]");
    strbuf_addstr(&want, "[\"x\\\"");
    strbuf_add(&want, in.buf + 4, JSONFIX_HOLD_MAX);
    strbuf_addstr(&want, "y\"]");
    size_t cuts[] = {4, 100, 4 + JSONFIX_HOLD_MAX, 0};
    uint64_t rep;
    char *got = run_cuts(in.buf, in.len, NULL, &rep);
    assert_string_equal(got, want.buf);
    assert_int_equal(rep, 1);
    free(got);
    got = run_cuts(in.buf, in.len, cuts, &rep);
    assert_string_equal(got, want.buf);
    assert_int_equal(rep, 1);
    free(got);

    strbuf_reset(&in);                  /* one blank more: closing */
    strbuf_addstr(&in, "[\"x\"");
    for (int i = 0; i < JSONFIX_HOLD_MAX + 1; i++)
        strbuf_addch(&in, ' ');
    strbuf_addstr(&in, "y\"]");
    got = run_cuts(in.buf, in.len, NULL, &rep);
    assert_string_equal(got, in.buf);
    assert_int_equal(rep, 0);
    free(got);
    got = run_cuts(in.buf, in.len, cuts, &rep);
    assert_string_equal(got, in.buf);
    assert_int_equal(rep, 0);
    free(got);
    strbuf_release(&in);
    strbuf_release(&want);
}

/* Output offsets map back to the input: every byte but an inserted '\'
 * appears in the output, so out[o] == in[jsonfix_in_offset(o)]. */
static void test_offsets(void **state)
{
    (void)state;
    const char *s = "[\"a\"b\",\"c\"d\"e\", \"f\"]";
    const char *want = "[\"a\\\"b\",\"c\\\"d\\\"e\", \"f\"]";
    size_t n = strlen(s);
    unsigned char *out = malloc(jsonfix_out_max(n));
    struct jsonfix f;

    jsonfix_init(&f);
    /* two feeds: the first ends on the stray quote after "a", held back */
    size_t k1 = jsonfix_feed(&f, (const unsigned char *)s, 6, out);
    assert_int_equal(k1, 6);
    assert_int_equal(jsonfix_in_offset(&f, 6), 5);
    size_t k2 = jsonfix_feed(&f, (const unsigned char *)s + 6, n - 6, out + k1);
    assert_int_equal(k1 + k2, strlen(want));
    assert_memory_equal(out, want, k1 + k2);
    /* offsets in the second feed's output: 1 repair before it */
    for (uint64_t o = k1; o < k1 + k2; o++) {
        uint64_t i = jsonfix_in_offset(&f, o);
        int inserted = out[o] == '\\' && s[i] != '\\';
        if (!inserted && out[o] != (unsigned char)s[i])
            fail_msg("out %llu -> in %llu: '%c' vs '%c'", (unsigned long long)o,
                     (unsigned long long)i, out[o], s[i]);
    }
    /* by hand: out 10 and 13 are inserted '\'s, before in 9 and 11 */
    assert_int_equal(jsonfix_in_offset(&f, 10), 9);
    assert_int_equal(jsonfix_in_offset(&f, 11), 9);
    assert_int_equal(jsonfix_in_offset(&f, 12), 10);
    assert_int_equal(jsonfix_in_offset(&f, 14), 11);
    assert_int_equal(jsonfix_in_offset(&f, 15), 12);
    assert_int_equal(jsonfix_in_offset(&f, k1 + k2), n);
    jsonfix_release(&f);
    free(out);
}

/* A slow byte-at-a-time model of the rule, to compare the fast scanner with
 * on random inputs (quotes at every position of a 64-byte block, escapes,
 * blanks, cuts anywhere). */
static char *model(const char *s, size_t n, uint64_t *repaired)
{
    struct strbuf sb = STRBUF_INIT;
    int in_str = 0;
    *repaired = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!in_str) {
            strbuf_addch(&sb, c);
            in_str = c == '"';
        } else if (c == '\\') {
            strbuf_addch(&sb, c);
            if (i + 1 < n)
                strbuf_addch(&sb, s[++i]);
        } else if (c == '"') {
            size_t j = i + 1;
            while (j < n && j - i <= JSONFIX_HOLD_MAX && strchr(" \t\n\r", s[j]))
                j++;
            if (j == n || strchr(" \t\n\r:,}]", s[j])) {
                in_str = 0;
            } else {
                strbuf_addch(&sb, '\\');
                (*repaired)++;
            }
            strbuf_addch(&sb, c);
        } else {
            strbuf_addch(&sb, c);
        }
    }
    return strbuf_detach(&sb);
}

static void test_random_against_model(void **state)
{
    (void)state;
    static const char alphabet[] = "\"\"\"\\ \n:,}]ab{[";
    static const char *const tokens[] = {
        "{\"name\":", "\"aten::mm\",", "[\"\"]", "1.5,", "{\"a\": ", "\"b\"}", "\"c\" ,",
        "\"d\"e\",", "\"f\\\"g\",", "\"\\\\\"]", "\"h\"\n", "abc", " ",
    };
    unsigned seed = 12345;
    char s[400];
    for (int round = 0; round < 3000; round++) {
        size_t n = 1 + (seed = seed * 1103515245u + 12345u) % 399;
        if (round % 2) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                s[i] = (seed >> 16) % 4 ? 'a' + (char)((seed >> 8) % 3)
                                        : alphabet[(seed >> 20) % (sizeof alphabet - 1)];
            }
            s[n] = '\0';
        } else {
            /* trace-like text, so most 64-byte blocks take the fast path */
            s[0] = '\0';
            while (strlen(s) + 12 < n || !s[0]) {
                seed = seed * 1103515245u + 12345u;
                strcat(s, tokens[(seed >> 16) % (sizeof tokens / sizeof tokens[0])]);
            }
            n = strlen(s);
        }
        size_t cuts[4] = {0};
        size_t nc = 0;
        for (int c = 0; c < 3; c++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            if (at > (nc ? cuts[nc - 1] : 0))
                cuts[nc++] = at;
        }
        uint64_t rep_model, rep;
        char *want = model(s, n, &rep_model);
        char *got = run_cuts(s, n, nc ? cuts : NULL, &rep);
        if (strcmp(got, want) != 0)
            fail_msg("round %d, cuts %zu %zu %zu, input '%s':\n got '%s'\nwant '%s'", round,
                     cuts[0], cuts[1], cuts[2], s, got, want);
        assert_int_equal(rep, rep_model);
        free(got);
        free(want);
    }
}

/* A real trace (valid JSON) comes out byte for byte, in 1 MB feeds as
 * kineto.c does and in odd-sized ones. */
static void test_real_trace_unchanged(void **state)
{
    (void)state;
    const char *dir = getenv("TESTS_DIR");
    struct strbuf path = STRBUF_INIT, in = STRBUF_INIT;
    strbuf_addf(&path, "%s/data/traces/h200/p1b2_h200_fp32_b60.json.gz", dir ? dir : "tests");
    gzFile gz = gzopen(path.buf, "rb");
    assert_non_null(gz);
    char buf[65536];
    int k;
    while ((k = gzread(gz, buf, sizeof buf)) > 0)
        strbuf_add(&in, buf, (size_t)k);
    gzclose(gz);
    assert_true(in.len > 100000);

    static const size_t feeds[] = {1 << 20, 4097, 63, 64, 65, 1};
    for (size_t t = 0; t < sizeof feeds / sizeof feeds[0]; t++) {
        struct jsonfix f;
        unsigned char *out = malloc(jsonfix_out_max(feeds[t]));
        size_t same = 0;
        jsonfix_init(&f);
        for (size_t at = 0; at < in.len; at += feeds[t]) {
            size_t len = in.len - at < feeds[t] ? in.len - at : feeds[t];
            size_t o = jsonfix_feed(&f, (const unsigned char *)in.buf + at, len, out);
            /* output lags input by the held quote: compare as it comes */
            assert_true(same + o <= in.len);
            if (memcmp(out, in.buf + same, o) != 0)
                fail_msg("feeds of %zu: output differs near byte %zu", feeds[t], same);
            same += o;
        }
        size_t o = jsonfix_finish(&f, out);
        assert_memory_equal(out, in.buf + same, o);
        same += o;
        assert_int_equal(same, in.len);
        assert_int_equal(f.n_repaired, 0);
        jsonfix_release(&f);
        free(out);
    }
    strbuf_release(&path);
    strbuf_release(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inner_quotes),
        cmocka_unit_test(test_closing_quotes),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_across_feeds),
        cmocka_unit_test(test_long_blanks),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_real_trace_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
