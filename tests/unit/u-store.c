/* SQLite store and loader: lookups after a round trip through the db,
 * names kept verbatim, dedup, schema version, folders with env.json. */
#include "test.h"
#include "kernels_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "ingest/kernel_csv.h"
#include "model/kernel_table.h"
#include "run/kernels.h"
#include "store/store.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/u-store-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/%s", tmpdir, name);
    return strbuf_detach(&sb);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

/* Every row of every input form answers exactly, with the same time,
 * after import and load. */
static void test_round_trip(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d, stderr);
    struct kernel_set in, out;
    kernel_set_init(&in);
    kernel_set_init(&out);
    read_into(&in, "h100_gemm.csv", "H100");
    read_into(&in, "h100_conv.csv", "H100");
    read_into(&in, "h100_eltwise.csv", "H100");
    read_into(&in, "deepbench_published_gemm.csv", "x");
    read_into(&in, "deepbench_published_conv.csv", "x");
    read_into(&in, "deepbench_stdout_gemm.txt", "stdout");
    read_into(&in, "deepbench_stdout_conv.txt", "stdout");
    in.tables[0].software = strdup("PyTorch 2.11.0");

    char *db = tmp_path("rt.db");
    struct store *s = NULL;
    struct store_import_stats st;
    assert_int_equal(store_open(db, 1, &s, &d), 0);
    assert_int_equal(store_import(s, &in, &st, &d), 0);
    assert_int_equal(st.tables, in.n);
    assert_int_equal(store_load(s, NULL, &out, &d), 0);
    store_close(s);
    assert_int_equal(out.n, in.n);

    for (size_t ti = 0; ti < in.n; ti++) {
        const struct kernel_table *a = &in.tables[ti];
        const struct kernel_table *b = kernel_set_find(&out, a->hw);
        assert_non_null(b);
        for (size_t i = 0; i < a->n_rows; i++) {
            const struct kernel_row *r = &a->rows[i];
            struct kernel_estimate e;
            if (r->kind == KERNEL_GEMM) {
                assert_int_equal(kernel_table_gemm(b, r->prec, r->m, r->n, r->k, r->a_t, r->b_t, &e), 0);
                assert_int_equal(e.method, LOOKUP_EXACT);
                /* Repeated keys: the table keeps the later row, so compare
                 * with what the input table itself answers. */
                struct kernel_estimate ea;
                kernel_table_gemm(a, r->prec, r->m, r->n, r->k, r->a_t, r->b_t, &ea);
                assert_true(e.time_s == ea.time_s);
                assert_true(e.time_lo_s == ea.time_lo_s && e.time_hi_s == ea.time_hi_s);
            } else if (r->kind == KERNEL_CONV) {
                struct conv_shape cs = { .n = r->n_, .c = r->c, .h = r->h, .w = r->w, .k = r->kf,
                                         .r = r->r, .s = r->s, .pad_h = r->pad_h, .pad_w = r->pad_w,
                                         .stride_h = r->stride_h, .stride_w = r->stride_w };
                enum conv_layout l = r->flag ? CONV_CHANNELS_LAST : CONV_CONTIGUOUS;
                for (int p = 0; p < CONV_PASS_COUNT; p++) {
                    struct kernel_estimate ea;
                    int ra = kernel_table_conv(a, r->prec, &cs, (enum conv_pass)p, l, &ea);
                    int rb = kernel_table_conv(b, r->prec, &cs, (enum conv_pass)p, l, &e);
                    assert_int_equal(ra, rb);
                    assert_int_equal(e.method, ea.method);
                    assert_true(e.time_s == ea.time_s);
                }
            } else {
                struct kernel_estimate ea;
                kernel_table_stream(a, r->prec, r->bytes, &ea);
                assert_int_equal(kernel_table_stream(b, r->prec, r->bytes, &e), 0);
                assert_true(e.time_s == ea.time_s);
            }
        }
    }
    /* One value by hand: h100_gemm.csv 1760,16,1760,N,N,fp32,27.36 us. */
    struct kernel_estimate e;
    const struct kernel_table *h = kernel_set_find(&out, "H100");
    assert_int_equal(kernel_table_gemm(h, PREC_FP32, 1760, 16, 1760, 'N', 'N', &e), 0);
    assert_close(e.time_s, 27.36e-6, 1e-12);
    assert_string_equal(h->software, "PyTorch 2.11.0");
    /* Eltwise op names and row sources survive. */
    int seen_relu = 0;
    for (size_t i = 0; i < h->n_rows; i++)
        seen_relu |= h->rows[i].op && strcmp(h->rows[i].op, "relu") == 0;
    assert_true(seen_relu);

    /* Importing the same set again replaces every distinct key. */
    assert_int_equal(store_open(db, 0, &s, &d), 0);
    assert_int_equal(store_import(s, &in, &st, &d), 0);
    assert_int_equal(st.inserted, 0);
    assert_true(st.replaced > 0);
    store_close(s);
    kernel_set_release(&in);
    kernel_set_release(&out);
    free(db);
}

static void test_names_verbatim(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d, stderr);
    static const char hostile[] = "GPU \"x\"; DROP TABLE kernel; -- 'y' \\ %s";
    struct kernel_set in, out;
    kernel_set_init(&in);
    kernel_set_init(&out);
    struct kernel_table *t = kernel_set_get(&in, hostile);
    t->origin = strdup("a,b'c");
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_ELTWISE;
    r->prec = PREC_FP32;
    r->op = strdup("it's");
    r->bytes = 1e6;
    r->time_s[0] = 1e-5;
    r->source = strdup("'); DELETE FROM hardware; --");
    char *db = tmp_path("names.db");
    struct store *s = NULL;
    struct store_import_stats st;
    assert_int_equal(store_open(db, 1, &s, &d), 0);
    assert_int_equal(store_import(s, &in, &st, &d), 0);
    assert_int_equal(store_load(s, hostile, &out, &d), 0);
    struct store_count *c = NULL;
    size_t n = 0;
    assert_int_equal(store_counts(s, &c, &n, &d), 0);
    assert_int_equal(n, 1);
    assert_string_equal(c[0].hw, hostile);
    assert_int_equal(c[0].rows, 1);
    store_counts_free(c, n);
    store_close(s);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.tables[0].hw, hostile);
    assert_string_equal(out.tables[0].origin, "a,b'c");
    assert_string_equal(out.tables[0].rows[0].op, "it's");
    assert_string_equal(out.tables[0].rows[0].source, "'); DELETE FROM hardware; --");
    kernel_set_release(&in);
    kernel_set_release(&out);
    free(db);
}

static int str_same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Every field of two rows, as the store keeps them. */
static void expect_same_row(const struct kernel_row *a, const struct kernel_row *b, size_t i)
{
    const int64_t va[] = { a->m, a->n, a->k, a->batch, a->n_, a->c, a->d, a->h, a->w, a->kf, a->t,
                           a->r, a->s, a->pad_d, a->pad_h, a->pad_w, a->stride_d, a->stride_h,
                           a->stride_w, a->dil_d, a->dil_h, a->dil_w, a->groups, a->dims, a->flag,
                           a->pass, a->reps, a->a_t, a->b_t, a->kind, a->prec };
    const int64_t vb[] = { b->m, b->n, b->k, b->batch, b->n_, b->c, b->d, b->h, b->w, b->kf, b->t,
                           b->r, b->s, b->pad_d, b->pad_h, b->pad_w, b->stride_d, b->stride_h,
                           b->stride_w, b->dil_d, b->dil_h, b->dil_w, b->groups, b->dims, b->flag,
                           b->pass, b->reps, b->a_t, b->b_t, b->kind, b->prec };
    for (size_t f = 0; f < sizeof va / sizeof va[0]; f++)
        if (va[f] != vb[f])
            fail_msg("row %zu (%s): integer field %zu is %lld after the store, %lld before", i,
                     kernel_kind_name(a->kind), f, (long long)vb[f], (long long)va[f]);
    for (int k = 0; k < KERNEL_DIMS_MAX; k++)
        assert_int_equal(a->dim[k], b->dim[k]);
    const double da[] = { a->elements, a->bytes, a->time_s[0], a->time_s[1], a->time_s[2],
                          a->time_lo_s, a->time_hi_s, a->time_loop_s };
    const double db[] = { b->elements, b->bytes, b->time_s[0], b->time_s[1], b->time_s[2],
                          b->time_lo_s, b->time_hi_s, b->time_loop_s };
    for (size_t f = 0; f < sizeof da / sizeof da[0]; f++)
        if (!(da[f] == db[f]))
            fail_msg("row %zu (%s): real field %zu is %.17g after the store, %.17g before", i,
                     kernel_kind_name(a->kind), f, db[f], da[f]);
    assert_true(str_same(a->op, b->op));
    assert_true(str_same(a->mode, b->mode));
    assert_true(str_same(a->source, b->source));
}

/* CSV -> import -> load gives every field back, for every form: the
 * harness's tables of each kind (tests/data/kernels/harness-cpu, written
 * by estimators/measure/measure.py on this project's CPU, plus a comm
 * table in its form) and the older forms still read. */
static void test_round_trip_every_form(void **state)
{
    (void)state;
    static const char *const files[] = {
        "harness-cpu/cpu_gemm.csv", "harness-cpu/cpu_conv.csv", "harness-cpu/cpu_rnn.csv",
        "harness-cpu/cpu_attention.csv", "harness-cpu/cpu_norm.csv",
        "harness-cpu/cpu_embedding.csv", "harness-cpu/cpu_eltwise.csv",
        "harness-cpu/cpu_optimizer.csv", "harness-cpu/cpu_comm.csv", "harness-cpu/cpu_resample.csv",
        "h200_gemm.csv", "h200_conv.csv", "h100_eltwise.csv", "deepbench_stdout_conv.txt",
    };
    struct diag d;
    diag_init(&d, stderr);
    int kinds[KERNEL_KIND_COUNT] = { 0 };
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        struct kernel_set in, out;
        kernel_set_init(&in);
        kernel_set_init(&out);
        read_into(&in, files[fi], "T");
        const struct kernel_table *a = &in.tables[0];
        /* Keys repeat in the older tables: compare the rows the table
         * keeps, in import order. */
        char *db = tmp_path("every.db");
        unlink(db);
        struct store *s = NULL;
        struct store_import_stats st;
        assert_int_equal(store_open(db, 1, &s, &d), 0);
        assert_int_equal(store_import(s, &in, &st, &d), 0);
        assert_int_equal(store_load(s, NULL, &out, &d), 0);
        store_close(s);
        const struct kernel_table *b = &out.tables[0];
        assert_int_equal(b->n_rows, st.inserted);
        size_t j = 0;
        for (size_t i = 0; i < a->n_rows; i++) {
            /* A row replaced by a later one of the same key is gone. */
            int later = 0;
            for (size_t k = i + 1; k < a->n_rows && !later; k++)
                later = a->rows[k].kind == a->rows[i].kind && a->rows[k].prec == a->rows[i].prec &&
                        kernel_row_key_cmp(&a->rows[i], &a->rows[k]) == 0;
            if (later)
                continue;
            kinds[a->rows[i].kind]++;
            assert_true(j < b->n_rows);
            expect_same_row(&a->rows[i], &b->rows[j++], i);
        }
        assert_int_equal(j, b->n_rows);
        kernel_set_release(&in);
        kernel_set_release(&out);
        free(db);
    }
    for (int k = 0; k < KERNEL_KIND_COUNT; k++)
        if (!kinds[k])
            fail_msg("no %s rows went round", kernel_kind_name((enum kernel_kind)k));
}

/* A database made by fom's schema version 1 (tests/data/kernels/
 * schema-v1.db: `fom kernels import h100_conv.csv deepbench_stdout_gemm.txt
 * h100_eltwise.csv --machine "Old GPU"` before version 2) is migrated
 * when opened, reads the same rows, and keeps its keys: importing the
 * same files again only replaces rows. */
static void test_migrate_v1(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d, stderr);
    char *src = data_path("schema-v1.db"), *db = tmp_path("v1.db");
    copy_file(src, db);
    struct kernel_set in, out;
    kernel_set_init(&in);
    kernel_set_init(&out);
    read_into(&in, "h100_conv.csv", "Old GPU");
    read_into(&in, "deepbench_stdout_gemm.txt", "Old GPU");
    read_into(&in, "h100_eltwise.csv", "Old GPU");
    struct store *s = NULL;
    struct store_import_stats st;
    assert_int_equal(store_open(db, 0, &s, &d), 0);
    assert_int_equal(store_load(s, NULL, &out, &d), 0);
    /* 588 rows read, 580 distinct keys (the import said so). */
    assert_int_equal(out.n, 1);
    assert_int_equal(out.tables[0].n_rows, 580);
    const struct kernel_table *a = &in.tables[0], *b = &out.tables[0];
    for (size_t i = 0; i < a->n_rows; i++) {
        const struct kernel_row *r = &a->rows[i];
        struct kernel_query q = { .kind = r->kind, .prec = r->prec, .m = r->m, .n = r->n, .k = r->k,
                                  .a_t = r->a_t, .b_t = r->b_t, .op = r->op, .bytes = r->bytes };
        struct kernel_hit ha, hb;
        struct conv_shape cs = { .n = r->n_, .c = r->c, .h = r->h, .w = r->w, .k = r->kf, .r = r->r,
                                 .s = r->s, .pad_h = r->pad_h, .pad_w = r->pad_w,
                                 .stride_h = r->stride_h, .stride_w = r->stride_w };
        q.conv = cs;
        q.pass = r->kind == KERNEL_CONV && !(r->time_s[0] > 0) ? KPASS_BWD_DATA : KPASS_FWD;
        assert_int_equal(kernel_table_lookup(a, &q, &ha), 0);
        assert_int_equal(kernel_table_lookup(b, &q, &hb), 0);
        assert_int_equal(hb.method, LOOKUP_EXACT);
        assert_true(ha.time_s == hb.time_s);
    }
    assert_int_equal(store_import(s, &in, &st, &d), 0);
    assert_int_equal(st.inserted, 0);
    assert_int_equal(st.replaced, a->n_rows);
    store_close(s);
    /* Opened again: version 3, nothing left to migrate. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test \"$(sqlite3 '%s' 'SELECT version FROM schema_version')\" = 3", db);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(store_open(db, 0, &s, &d), 0);
    store_close(s);
    kernel_set_release(&in);
    kernel_set_release(&out);
    free(src);
    free(db);
}

static void test_schema_version(void **state)
{
    (void)state;
    struct diag d;
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    diag_init(&d, mf);
    char *db = tmp_path("ver.db");
    struct store *s = NULL;
    assert_int_equal(store_open(db, 1, &s, &d), 0);
    store_close(s);
    assert_true(store_is_db(db));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'UPDATE schema_version SET version = 99'", db);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(store_open(db, 0, &s, &d), FOM_EDATA);
    assert_null(s);
    fclose(mf);
    assert_non_null(strstr(buf, "found schema version 99, expected 3 (made by a newer fom)"));
    free(buf);
    /* Opening a missing db without create is a system error. */
    diag_init(&d, NULL);
    char *missing = tmp_path("missing.db");
    assert_int_equal(store_open(missing, 0, &s, &d), FOM_ESYS);
    assert_false(store_is_db(missing));
    free(missing);
    free(db);
}

/* Folders with env.json: GPU named by "gpu", a CPU folder by lscpu's
 * model name; software from torch/cuda/cudnn; repeated calls add up. */
static void test_kernels_open(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d, stderr);
    char *gpu = tmp_path("h100"), *cpu = tmp_path("hostcpu");
    assert_int_equal(mkdir(gpu, 0755), 0);
    assert_int_equal(mkdir(cpu, 0755), 0);
    char *env = data_path("h100/env.json"), *conv = data_path("h100_conv.csv");
    char *elt = data_path("h100_eltwise.csv"), *stdout_gemm = data_path("deepbench_stdout_gemm.txt");
    struct strbuf p = STRBUF_INIT;
    strbuf_addf(&p, "%s/env.json", gpu);
    copy_file(env, p.buf);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/a_conv.csv", gpu);
    copy_file(conv, p.buf);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/b_eltwise.csv", gpu);
    copy_file(elt, p.buf);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/env.json", cpu);
    copy_file(env, p.buf);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/hostcpu_gemm.csv", cpu);
    char *gemm = data_path("h100_gemm.csv");
    copy_file(gemm, p.buf);
    free(gemm);

    struct kernel_set set;
    kernel_set_init(&set);
    assert_int_equal(kernels_open(gpu, &set, &d), 0);
    assert_int_equal(kernels_open(cpu, &set, &d), 0);
    assert_int_equal(set.n, 2);
    const struct kernel_table *g = kernel_set_find(&set, "nvidia h100 80gb hbm3");
    assert_non_null(g);
    assert_int_equal(g->n_rows, 204 + 80);
    assert_string_equal(g->software, "PyTorch 2.11.0+cu130, CUDA 13.0, cuDNN 9.19.0");
    assert_string_equal(g->origin, gpu);
    const struct kernel_table *c = kernel_set_find(&set, "Intel(R) Xeon(R) Processor");
    assert_non_null(c);
    assert_string_equal(c->software, "PyTorch 2.11.0+cu130");
    assert_int_equal(c->n_rows, 2528);

    /* A file added to the GPU table by name; a db adds to what is there. */
    assert_int_equal(kernels_load(stdout_gemm, "NVIDIA H100 80GB HBM3", &set, &d), 0);
    assert_int_equal(kernel_set_find(&set, "NVIDIA H100 80GB HBM3")->n_rows, 204 + 80 + 304);
    struct store *s = NULL;
    struct store_import_stats st;
    char *db = tmp_path("open.db");
    assert_int_equal(store_open(db, 1, &s, &d), 0);
    assert_int_equal(store_import(s, &set, &st, &d), 0);
    store_close(s);
    struct kernel_set again;
    kernel_set_init(&again);
    assert_int_equal(kernels_open(db, &again, &d), 0);
    assert_int_equal(again.n, 2);
    /* 98 distinct conv keys per precision (DeepBench repeats 4 shapes). */
    assert_int_equal(kernel_set_find(&again, "NVIDIA H100 80GB HBM3")->n_rows, 196 + 80 + 304);
    assert_non_null(strstr(kernel_set_find(&again, "NVIDIA H100 80GB HBM3")->origin, db));
    kernel_set_release(&again);

    /* A folder without CSVs is bad input. */
    diag_init(&d, NULL);
    char *empty = tmp_path("empty");
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(kernels_open(empty, &set, &d), FOM_EDATA);
    free(empty);

    kernel_set_release(&set);
    strbuf_release(&p);
    free(gpu);
    free(cpu);
    free(env);
    free(conv);
    free(elt);
    free(stdout_gemm);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_names_verbatim),
        cmocka_unit_test(test_schema_version),
        cmocka_unit_test(test_round_trip_every_form),
        cmocka_unit_test(test_migrate_v1),
        cmocka_unit_test(test_kernels_open),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
