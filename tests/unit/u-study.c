#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/study_xml.h"
#include "model/study.h"

/* Test data lives under $TESTS_DIR (set by tests/run.sh), else ./tests. */
static char *data_path(const char *name)
{
    const char *dir = getenv("TESTS_DIR");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/data/study/%s", dir && *dir ? dir : "tests", name);
    return strbuf_detach(&sb);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Loads name, returns the status; *msgs gets everything diag printed
 * (caller frees). */
static int load(const char *name, struct study *st, char **msgs)
{
    char *path = data_path(name);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    struct diag d;
    diag_init(&d, mem);
    study_init(st);
    int rc = study_load(path, st, &d);
    fclose(mem);
    free(path);
    *msgs = buf;
    return rc;
}

static void test_good_file(void **state)
{
    (void)state;
    struct study st;
    char *msgs;
    assert_int_equal(load("good.xml", &st, &msgs), FOM_OK);
    assert_string_equal(msgs, "");
    assert_string_equal(st.name, "parser check");
    assert_int_equal(st.n_systems, 2);
    assert_int_equal(st.baseline, 0);
    assert_string_equal(st.systems[0].id, "base");
    assert_int_equal(st.systems[0].nodes, 100);
    assert_int_equal(st.systems[0].line, 3);
    /* relative to the study file, not to the working directory */
    assert_true(ends_with(st.systems[0].machine, "data/study/../machines/m.xml"));
    assert_true(ends_with(st.systems[0].kernels, "data/study/k"));
    assert_string_equal(st.systems[1].id, "new");
    assert_int_equal(st.systems[1].nodes, 25);
    assert_null(st.systems[1].machine);
    assert_null(st.systems[1].kernels);
    assert_true(st.has_weights);

    assert_int_equal(st.n_problems, 3);
    const struct study_problem *p = &st.problems[0];
    assert_string_equal(p->id, "P1");
    assert_true(p->has_weight);
    assert_close(p->weight, 2.0, 1e-15);
    assert_false(p->workload.present);
    /* repeats are all kept, in file order */
    assert_int_equal(p->n_times, 3);
    assert_int_equal(p->times[0].system, 0);
    assert_int_equal(p->times[0].basis, TIME_PER_UNIT);
    assert_close(p->times[0].time_s, 5400.0, 1e-15);
    assert_int_equal(p->times[0].line, 6);
    assert_int_equal(p->times[1].system, 1);
    assert_close(p->times[1].time_s, 5400.0, 1e-15);
    assert_int_equal(p->times[2].system, 1);
    assert_close(p->times[2].time_s, 86400.0, 1e-15);

    p = &st.problems[1];
    assert_string_equal(p->id, "P2");
    assert_false(p->has_weight);
    assert_close(p->weight, 1.0, 1e-15);
    assert_close(p->epochs, 4.0, 1e-15);
    assert_int_equal(p->n_times, 2);
    assert_int_equal(p->times[0].basis, TIME_PER_EPOCH);
    assert_close(p->times[0].time_s, 30.0, 1e-15);
    assert_close(p->times[1].time_s, 15.0, 1e-15);

    p = &st.problems[2];
    assert_string_equal(p->id, "P3");
    assert_true(p->workload.present);
    assert_string_equal(p->workload.profile, "/abs/p.json");   /* absolute stays */
    assert_int_equal(p->workload.batch, 100);
    assert_int_equal(p->workload.samples_per_epoch, 1001);
    assert_close(p->workload.epochs, 10.0, 1e-15);
    assert_int_equal(p->workload.precision, PREC_BF16);
    assert_int_equal(p->workload.line, 15);
    assert_close(p->epochs, 10.0, 1e-15);   /* taken from the workload */
    assert_int_equal(p->n_times, 1);
    assert_int_equal(p->times[0].basis, TIME_PER_EPOCH);
    assert_close(p->times[0].time_s, 120.0, 1e-15);
    free(msgs);
    study_release(&st);
}

struct bad_case {
    const char *file;
    int status;
    const char *message;    /* must appear in the diagnostics */
};

static const struct bad_case bad_cases[] = {
    { "unclosed.xml", FOM_EDATA, "unclosed.xml:6: error: opening and ending tag mismatch" },
    { "parsecs.xml", FOM_EDATA,
      "parsecs.xml:5: error: found per-unit='60 parsecs', expected a number with a time unit" },
    { "nodes-zero.xml", FOM_EDATA, "nodes-zero.xml:3: error: element 'system', attribute 'nodes': '0'" },
    { "nodes-negative.xml", FOM_EDATA, "nodes-negative.xml:4: error: element 'system', attribute 'nodes': '-5'" },
    { "time-zero.xml", FOM_EDATA, "time-zero.xml:6: error: found per-unit='0h', expected a time greater than zero" },
    { "time-nan.xml", FOM_EDATA, "time-nan.xml:5: error: found per-unit='NaN h', expected a number with a time unit" },
    { "baseline-missing.xml", FOM_EDATA,
      "baseline-missing.xml:3: error: found baseline='titan', expected one of the systems 'a'" },
    { "missing-time.xml", FOM_EDATA,
      "missing-time.xml:9: error: found no time for system 'b' in problem 'P2'" },
    { "xxe.xml", FOM_EDATA, "xxe.xml:3: error: found a declaration of entity 'secret'" },
    { "dup-system.xml", FOM_EDATA,
      "dup-system.xml:4: error: found a second system 'a', expected unique ids (first at line 3)" },
    { "epoch-no-epochs.xml", FOM_EDATA,
      "epoch-no-epochs.xml:5: error: found a per-epoch time in problem 'P1' without epochs" },
    { "no-such-file.xml", FOM_ESYS, "error: cannot open" },
};

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        struct study st;
        char *msgs;
        int rc = load(c->file, &st, &msgs);
        if (rc != c->status || !strstr(msgs, c->message))
            fail_msg("%s: status %d (want %d), messages:\n%s\nwant: %s", c->file, rc,
                     c->status, msgs, c->message);
        /* one mistake, one message: no cascade */
        const char *first = strstr(msgs, "error:");
        if (c->status == FOM_EDATA && first && strstr(first + 1, "error:"))
            fail_msg("%s: more than one error:\n%s", c->file, msgs);
        free(msgs);
        study_release(&st);
    }
}

/* The entity must never be expanded, even partly. */
static void test_xxe_not_read(void **state)
{
    (void)state;
    struct study st;
    char *msgs;
    assert_int_equal(load("xxe.xml", &st, &msgs), FOM_EDATA);
    assert_null(strstr(msgs, "root:"));
    assert_null(st.name);
    free(msgs);
    study_release(&st);
}

/* The schema compiled into fom and reports/study.xsd are the same text. */
static void test_schema_matches_file(void **state)
{
    (void)state;
    const char *dir = getenv("TESTS_DIR");
    struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    strbuf_addf(&path, "%s/../reports/study.xsd", dir && *dir ? dir : "tests");
    FILE *fp = fopen(strbuf_str(&path), "rb");
    if (!fp)
        fail_msg("cannot open %s", strbuf_str(&path));
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        strbuf_add(&text, buf, n);
    fclose(fp);
    assert_string_equal(study_xsd_text(), strbuf_str(&text));
    strbuf_release(&path);
    strbuf_release(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_xxe_not_read),
        cmocka_unit_test(test_schema_matches_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
