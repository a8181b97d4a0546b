/* Kernel tables: readers of each input form, exact lookups against rows
 * read by hand from the files, interpolation checked leave-one-out on the
 * measured H100/H200 tables, the bandwidth curve and bad input. */
#include "test.h"
#include "kernels_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "ingest/kernel_csv.h"
#include "model/kernel_table.h"

static const struct kernel_table *only_table(const struct kernel_set *set, const char *hw)
{
    const struct kernel_table *t = kernel_set_find(set, hw);
    if (!t)
        fail_msg("no table '%s'", hw);
    return t;
}

/* ------------------------------------------------------------------ */
/* Exact rows of each input form                                       */

static void expect_gemm(const struct kernel_table *t, enum precision p, int64_t m, int64_t n,
                        int64_t k, char at, char bt, double want_s, enum lookup_method how)
{
    struct kernel_estimate e;
    assert_int_equal(kernel_table_gemm(t, p, m, n, k, at, bt, &e), 0);
    assert_int_equal(e.method, how);
    assert_close(e.time_s, want_s, 1e-9);
}

static void test_our_csv(void **state)
{
    (void)state;
    struct kernel_set set;
    kernel_set_init(&set);
    read_into(&set, "h100_gemm.csv", "H100");
    read_into(&set, "h100_conv.csv", "H100");
    read_into(&set, "h100_eltwise.csv", "H100");
    assert_int_equal(set.n, 1);
    const struct kernel_table *t = only_table(&set, "h100");
    /* wc -l minus the headers: 2528 gemm + 204 conv + 80 eltwise. */
    assert_int_equal(t->n_rows, 2528 + 204 + 80);

    /* Rows copied from the CSV by hand (time_us / 1e6). */
    expect_gemm(t, PREC_FP32, 1760, 16, 1760, 'N', 'N', 27.36e-6, LOOKUP_EXACT);
    expect_gemm(t, PREC_FP32, 100, 1000, 29532, 'N', 'T', 181.888e-6, LOOKUP_EXACT);
    expect_gemm(t, PREC_FP32, 100, 1000, 29532, 'T', 'N', 166.0e-6, LOOKUP_EXACT);
    expect_gemm(t, PREC_FP32, 100, 1000, 29532, '1', '0', 166.0e-6, LOOKUP_EXACT);
    /* Unknown orientation: the N,N row, and still exact. */
    expect_gemm(t, PREC_FP32, 100, 1000, 29532, 0, 0, 166.08e-6, LOOKUP_EXACT);
    /* T,T was not measured: the first orientation of that shape in key
     * order (N,N), reported as interpolated from one neighbour. */
    expect_gemm(t, PREC_FP32, 100, 1000, 29532, 'T', 'T', 166.08e-6, LOOKUP_INTERP);

    struct kernel_estimate e;
    assert_int_equal(kernel_table_gemm(t, PREC_FP32, 1760, 16, 1760, 'N', 'N', &e), 0);
    assert_close(e.time_lo_s, 26.528e-6, 1e-9);   /* p05 */
    assert_close(e.time_hi_s, 37.952e-6, 1e-9);   /* p95 */
    assert_int_equal(e.neighbours, 1);

    /* conv: 700,161,1,4,32,20,5,0,0,2,2,fp32,56.08,133.84,79.6 (h=161, w=700). */
    struct conv_shape cs = { .n = 4, .c = 1, .h = 161, .w = 700, .k = 32, .r = 5, .s = 20,
                             .stride_h = 2, .stride_w = 2 };
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXACT);
    assert_close(e.time_s, 56.08e-6, 1e-9);
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &cs, CONV_BWD_DATA, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 133.84e-6, 1e-9);
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &cs, CONV_BWD_FILTER, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 79.6e-6, 1e-9);
    /* No conv rows in fp16: the estimator must fall back. */
    assert_int_equal(kernel_table_conv(t, PREC_FP16, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), -1);
    assert_int_equal(e.method, LOOKUP_NONE);
    /* Grouped convolution: no rows describe it. */
    cs.groups = 2;
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), -1);

    assert_true(kernel_table_has(t, KERNEL_GEMM, PREC_TF32));
    assert_true(kernel_table_has(t, KERNEL_CONV, PREC_BF16));
    assert_false(kernel_table_has(t, KERNEL_CONV, PREC_FP16));
    assert_true(kernel_table_has(t, KERNEL_ELTWISE, PREC_BF16));
    assert_false(kernel_table_has(t, KERNEL_GEMM, PREC_FP64));
    assert_int_equal(kernel_table_gemm(t, PREC_FP64, 64, 64, 64, 'N', 'N', &e), -1);
    kernel_set_release(&set);
}

static void test_published_csv(void **state)
{
    (void)state;
    struct kernel_set set;
    kernel_set_init(&set);
    read_into(&set, "deepbench_published_gemm.csv", "unused");
    read_into(&set, "deepbench_published_conv.csv", "unused");
    /* 11 hw names (cut -d, -f1 | sort -u), none named by the default. */
    assert_int_equal(set.n, 11);
    assert_null(kernel_set_find(&set, "unused"));
    const struct kernel_table *v100 = only_table(&set, "NV_V100");
    /* 160 gemm + 94 conv rows per precision, fp32 and fp16_mixed. */
    assert_int_equal(v100->n_rows, 2 * (160 + 94));
    /* grep '^NV_V100,fp32,DeepSpeech,1760,16,1760,N,N' and the same in
     * the fp16_mixed sheet, which counts as fp16. */
    FILE *fp;
    char *p = data_path("deepbench_published_gemm.csv");
    fp = fopen(p, "r");
    assert_non_null(fp);
    char line[256];
    double want32 = 0, want16 = 0;
    static const char k32[] = "NV_V100,fp32,DeepSpeech,1760,16,1760,N,N,";
    static const char k16[] = "NV_V100,fp16_mixed,DeepSpeech,1760,16,1760,N,N,";
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, k32, strlen(k32)) == 0)
            want32 = strtod(line + strlen(k32), NULL) * 1e-3;
        if (strncmp(line, k16, strlen(k16)) == 0)
            want16 = strtod(line + strlen(k16), NULL) * 1e-3;
    }
    fclose(fp);
    free(p);
    assert_true(want32 > 0 && want16 > 0);
    expect_gemm(v100, PREC_FP32, 1760, 16, 1760, 'N', 'N', want32, LOOKUP_EXACT);
    expect_gemm(v100, PREC_FP16, 1760, 16, 1760, 'N', 'N', want16, LOOKUP_EXACT);

    /* NV_M40,fp32,,700,161,1,4,32,20,5,0,0,2,2,0.224,N/A*,0.369,... */
    const struct kernel_table *m40 = only_table(&set, "nv_m40");
    struct conv_shape cs = { .n = 4, .c = 1, .h = 161, .w = 700, .k = 32, .r = 5, .s = 20,
                             .stride_h = 2, .stride_w = 2 };
    struct kernel_estimate e;
    assert_int_equal(kernel_table_conv(m40, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXACT);
    assert_close(e.time_s, 0.224e-3, 1e-9);
    assert_int_equal(kernel_table_conv(m40, PREC_FP32, &cs, CONV_BWD_FILTER, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 0.369e-3, 1e-9);
    /* "N/A*": bwd data was skipped for this input layer, so it is not an
     * exact hit but an estimate from the other rows. */
    assert_int_equal(kernel_table_conv(m40, PREC_FP32, &cs, CONV_BWD_DATA, CONV_CONTIGUOUS, &e), 0);
    assert_int_not_equal(e.method, LOOKUP_EXACT);
    assert_true(e.time_s > 0);
    kernel_set_release(&set);
}

static void test_deepbench_stdout(void **state)
{
    (void)state;
    struct kernel_set set;
    kernel_set_init(&set);
    read_into(&set, "deepbench_stdout_gemm.txt", "H100 stdout");
    read_into(&set, "deepbench_stdout_conv.txt", "H100 stdout");
    const struct kernel_table *t = only_table(&set, "H100 stdout");
    /* 152 deepbench_train rows in fp32 and 152 in fp16; 102 fp32 convs. */
    assert_int_equal(t->n_rows, 152 * 2 + 102);
    /* h100_gemm.csv: 1760,16,1760,N,N,fp32,27.36 printed "0 0 float 27.360". */
    expect_gemm(t, PREC_FP32, 1760, 16, 1760, 'N', 'N', 27.36e-6, LOOKUP_EXACT);
    /* grep "^1760,16,1760,N,N,fp16" h100_gemm.csv -> 28.96 us */
    expect_gemm(t, PREC_FP16, 1760, 16, 1760, 'N', 'N', 28.96e-6, LOOKUP_EXACT);
    struct conv_shape cs = { .n = 8, .c = 1, .h = 161, .w = 700, .k = 32, .r = 5, .s = 20,
                             .stride_h = 2, .stride_w = 2 };
    struct kernel_estimate e;
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &cs, CONV_BWD_DATA, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXACT);
    assert_close(e.time_s, 224.368e-6, 1e-9);
    kernel_set_release(&set);
}

/* Every row of the table answers its own lookup exactly. */
static void test_every_row_exact(void **state)
{
    (void)state;
    struct kernel_set set;
    kernel_set_init(&set);
    read_into(&set, "h200_gemm.csv", "H200");
    const struct kernel_table *t = only_table(&set, "H200");
    for (size_t i = 0; i < t->n_rows; i++) {
        const struct kernel_row *r = &t->rows[i];
        struct kernel_estimate e;
        assert_int_equal(kernel_table_gemm(t, r->prec, r->m, r->n, r->k, r->a_t, r->b_t, &e), 0);
        assert_int_equal(e.method, LOOKUP_EXACT);
        assert_close(e.time_s, r->time_s[0], 1e-12);
    }
    kernel_set_release(&set);
}

/* ------------------------------------------------------------------ */
/* Interpolation, leave one out                                        */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

static int same_held_out(const struct kernel_row *a, const struct kernel_row *b)
{
    if (a->kind != b->kind || a->prec != b->prec)
        return 0;
    if (a->kind == KERNEL_GEMM)
        return a->m == b->m && a->n == b->n && a->k == b->k;
    return a->n_ == b->n_ && a->c == b->c && a->h == b->h && a->w == b->w && a->kf == b->kf &&
           a->r == b->r && a->s == b->s && a->pad_h == b->pad_h && a->pad_w == b->pad_w &&
           a->stride_h == b->stride_h && a->stride_w == b->stride_w;
}

/* For each row of (kind, p): hide it and every other row of the same
 * shape (all orientations, so the answer cannot come from a twin), ask
 * the table, compare.  Returns the median |error|, *p90 the 90th
 * percentile. */
static double leave_one_out(struct kernel_table *t, enum kernel_kind kind, enum precision p,
                            const char *label, double *p90_out)
{
    size_t n = t->n_rows, n_err = 0;
    double *err = calloc(n, sizeof *err);
    struct kernel_row *saved = malloc(n * sizeof *saved);
    memcpy(saved, t->rows, n * sizeof *saved);
    for (size_t i = 0; i < n; i++) {
        const struct kernel_row held = saved[i];
        if (held.kind != kind || held.prec != p || !(held.time_s[0] > 0))
            continue;
        size_t o = 0;
        for (size_t j = 0; j < n; j++)
            if (!same_held_out(&saved[j], &held))
                t->rows[o++] = saved[j];
        t->n_rows = o;
        kernel_table_reindex(t);
        struct kernel_estimate e;
        int rc;
        if (kind == KERNEL_GEMM) {
            rc = kernel_table_gemm(t, p, held.m, held.n, held.k, held.a_t, held.b_t, &e);
        } else {
            struct conv_shape cs = { .n = held.n_, .c = held.c, .h = held.h, .w = held.w,
                                     .k = held.kf, .r = held.r, .s = held.s,
                                     .pad_h = held.pad_h, .pad_w = held.pad_w,
                                     .stride_h = held.stride_h, .stride_w = held.stride_w };
            rc = kernel_table_conv(t, p, &cs, CONV_FWD, CONV_CONTIGUOUS, &e);
        }
        assert_int_equal(rc, 0);
        assert_int_not_equal(e.method, LOOKUP_EXACT);
        err[n_err++] = fabs(e.time_s / held.time_s[0] - 1);
    }
    memcpy(t->rows, saved, n * sizeof *saved);
    t->n_rows = n;
    kernel_table_reindex(t);
    free(saved);
    assert_true(n_err > 10);
    double *copy = malloc(n_err * sizeof *copy);
    memcpy(copy, err, n_err * sizeof *copy);
    double med = quantile(copy, n_err, 0.5);
    double p90 = quantile(err, n_err, 0.9);
    printf("# loo %s %s: median %.1f%% p90 %.1f%% max %.0f%% over %zu rows\n", label,
           precision_name(p), 100 * med, 100 * p90, 100 * copy[n_err - 1], n_err);
    free(copy);
    free(err);
    *p90_out = p90;
    return med;
}

/* Bound on the median: the H100 tables' own run-to-run spread (p95/p05
 * of a row) has a median of a few percent, and DeepBench's batch sweeps
 * step n by 2x, so a held-out row sits a factor 2 from its nearest
 * neighbours along one axis; cuBLAS changes tile and kernel across such
 * steps, which moves the rate by 10-20%.  A median under 15% means the
 * interpolator is usually within one such step change; the p90 is only
 * reported, as it is set by the kernel switches nobody can interpolate.
 * Measured: medians 3.7-9.0%, p90 16-26% (the TAP comments). */
#define LOO_MEDIAN_BOUND 0.15

static void test_loo_gemm(void **state)
{
    (void)state;
    static const char *const files[] = { "h100_gemm.csv", "h200_gemm.csv" };
    static const char *const labels[] = { "h100", "h200" };
    static const enum precision precs[] = { PREC_FP32, PREC_TF32, PREC_BF16, PREC_FP16 };
    for (int f = 0; f < 2; f++) {
        struct kernel_set set;
        kernel_set_init(&set);
        read_into(&set, files[f], labels[f]);
        struct kernel_table *t = &set.tables[0];
        for (int i = 0; i < 4; i++) {
            double p90;
            double med = leave_one_out(t, KERNEL_GEMM, precs[i], labels[f], &p90);
            assert_true(med < LOO_MEDIAN_BOUND);
        }
        kernel_set_release(&set);
    }
}

static void test_loo_conv(void **state)
{
    (void)state;
    static const char *const files[] = { "h100_conv.csv", "h200_conv.csv" };
    static const char *const labels[] = { "h100 conv fwd", "h200 conv fwd" };
    static const enum precision precs[] = { PREC_FP32, PREC_BF16 };
    for (int f = 0; f < 2; f++) {
        struct kernel_set set;
        kernel_set_init(&set);
        read_into(&set, files[f], labels[f]);
        struct kernel_table *t = &set.tables[0];
        for (int i = 0; i < 2; i++) {
            double p90;
            double med = leave_one_out(t, KERNEL_CONV, precs[i], labels[f], &p90);
            /* Conv rows are fewer (102 per precision, 98 shapes) and
             * cuDNN switches algorithms (implicit GEMM, FFT, Winograd)
             * between neighbouring shapes, so the bound is looser: 20%
             * (measured 6-12%). */
            assert_true(med < 0.20);
        }
        kernel_set_release(&set);
    }
}

/* ------------------------------------------------------------------ */
/* Edges and the bandwidth curve                                       */

static void test_edges(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    /* Three rows on one line: 1 TFLOP/s at 128^3, 10 at 1024^3 and 20 at
     * 4096^3 (times from 2mnk / rate). */
    const int64_t sz[] = { 128, 1024, 4096 };
    const double rate[] = { 1e12, 10e12, 20e12 };
    for (int i = 0; i < 3; i++) {
        struct kernel_row *r = kernel_table_add(&t);
        r->kind = KERNEL_GEMM;
        r->prec = PREC_BF16;
        r->m = r->n = r->k = sz[i];
        r->a_t = r->b_t = 'N';
        r->time_s[0] = 2.0 * (double)sz[i] * (double)sz[i] * (double)sz[i] / rate[i];
    }
    double t_min = 2.0 * 128 * 128 * 128 / 1e12;
    struct kernel_estimate e;
    /* Far above: never faster than the best measured rate. */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 65536, 65536, 65536, 'N', 'N', &e), 0);
    assert_int_equal(e.method, LOOKUP_EXTRAP);
    assert_true(e.time_s >= 2.0 * 65536.0 * 65536.0 * 65536.0 / 20e12 * (1 - 1e-12));
    /* Far below: never faster than the quickest measured kernel. */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 2, 2, 2, 'N', 'N', &e), 0);
    assert_int_equal(e.method, LOOKUP_EXTRAP);
    assert_true(e.time_s >= t_min * (1 - 1e-12));
    /* Between rows: the rate lies between its neighbours' rates. */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 2048, 2048, 2048, 'N', 'N', &e), 0);
    assert_int_equal(e.method, LOOKUP_INTERP);
    double r2048 = 2.0 * 2048.0 * 2048.0 * 2048.0 / e.time_s;
    assert_true(r2048 >= 10e12 * 0.99 && r2048 <= 20e12 * 1.01);
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 0, 16, 16, 'N', 'N', &e), -1);
    /* A row added later with the same key wins. */
    struct kernel_row *r = kernel_table_add(&t);
    r->kind = KERNEL_GEMM;
    r->prec = PREC_BF16;
    r->m = r->n = r->k = 1024;
    r->a_t = r->b_t = 'N';
    r->time_s[0] = 1e-3;
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 1024, 1024, 1024, 'N', 'N', &e), 0);
    assert_close(e.time_s, 1e-3, 1e-15);
    kernel_table_release(&t);
}

/* A bf16 NN GEMM row of t running at rate FLOP/s. */
static void bf16_row(struct kernel_table *t, int64_t m, int64_t n, int64_t k, double rate)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_GEMM;
    r->prec = PREC_BF16;
    r->m = m;
    r->n = n;
    r->k = k;
    r->a_t = r->b_t = 'N';
    r->time_s[0] = 2.0 * (double)m * (double)n * (double)k / rate;
}

/* A misaligned GEMM (bf16: a dimension not a multiple of 8 elements)
 * runs no faster than the best row of its alignment class or a worse one,
 * even where aligned rows lie nearer: four odd rows at 100 TFLOP/s around
 * 1000 (k from 1001 to 1007), four of sizes 4 mod 8 at 250, a grid of
 * aligned ones at 600 up to 16384. */
static void test_misaligned(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int i = 0; i < 4; i++)
        bf16_row(&t, 1000, 1000, 1001 + 2 * i, 100e12);
    for (int64_t m = 1024; m <= 16384; m *= 2)
        for (int64_t n = 1024; n <= 16384; n *= 2)
            bf16_row(&t, m, n, 1024, 600e12);
    /* four rows of sizes in multiples of 4 elements (8 bytes) at 250 */
    for (int i = 0; i < 4; i++)
        bf16_row(&t, 1000, 1000, 1004 + 8 * i, 250e12);
    struct kernel_estimate e;
    /* n = 16001 is odd (2 bytes): misaligned, its neighbours the aligned
     * grid; no faster than the odd rows */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 8192, 16001, 1024, 'N', 'N', &e), 0);
    assert_true(2.0 * 8192 * 16001 * 1024 / e.time_s <= 100e12 * (1 + 1e-9));
    assert_close(kernel_table_gemm_rate_cap(&t, PREC_BF16, 8192, 16001, 1024), 100e12, 1e-9);
    /* n = 16002 (4 bytes) and 16004 (8) are of the 8-byte rows' class:
     * above the odd rows' rate, never above the 8-byte rows' */
    static const int64_t ns[] = { 16002, 16004 };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 8192, ns[i], 1024, 'N', 'N', &e), 0);
        double r = 2.0 * 8192 * (double)ns[i] * 1024 / e.time_s;
        assert_true(r > 100e12 * 1.01 && r <= 250e12 * (1 + 1e-9));
        assert_close(kernel_table_gemm_rate_cap(&t, PREC_BF16, 8192, ns[i], 1024), 250e12, 1e-9);
    }
    /* the same shape aligned takes the grid's rate, and has no cap */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 8192, 16000, 1024, 'N', 'N', &e), 0);
    assert_true(2.0 * 8192 * 16000 * 1024 / e.time_s >= 500e12);
    assert_true(kernel_table_gemm_rate_cap(&t, PREC_BF16, 8192, 16000, 1024) == 0);
    /* fp32 has no rows: no cap */
    assert_true(kernel_table_gemm_rate_cap(&t, PREC_FP32, 8192, 16001, 1024) == 0);
    kernel_table_release(&t);
}

/* A product at least as large in every dimension as a measured row runs
 * no slower per flop: a tall product of 4,096 columns among rows of 16 to
 * 64 columns (slow: 10 to 40 TFLOP/s) and one square row it contains (600)
 * takes at least the square row's rate, where the neighbours alone would
 * put it far below; a product that contains no fast row keeps the
 * interpolation, and an aligned row sets none for a misaligned product. */
static void test_gemm_floor(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int64_t m = 131072; m <= 2097152; m *= 4)
        for (int64_t n = 2048; n <= 8192; n *= 4) {
            bf16_row(&t, m, n, 16, 10e12);
            bf16_row(&t, m, n, 64, 40e12);
        }
    bf16_row(&t, 1024, 256, 64, 600e12);
    bf16_row(&t, 4096, 256, 64, 600e12);
    struct kernel_estimate e;
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 126976, 4096, 64, 'N', 'N', &e), 0);
    assert_true(2.0 * 126976 * 4096 * 64 / e.time_s >= 600e12 * (1 - 1e-9));
    /* k = 16 is below the fast rows': no floor from them */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 126976, 4096, 16, 'N', 'N', &e), 0);
    assert_true(2.0 * 126976 * 4096 * 16 / e.time_s < 600e12 * 0.5);
    /* misaligned (k = 65, odd in bf16): the aligned rows set no floor */
    assert_int_equal(kernel_table_gemm(&t, PREC_BF16, 126976, 4096, 65, 'N', 'N', &e), 0);
    assert_true(2.0 * 126976 * 4096 * 65 / e.time_s < 600e12 * 0.5);
    kernel_table_release(&t);
}

/* The alignment of a GEMM's rows: the largest power of two of bytes, to
 * 16, that every size in bytes is a multiple of; and its kernels' class. */
static void test_align_bytes(void **state)
{
    (void)state;
    assert_int_equal(kernel_table_gemm_align_bytes(2, 4096, 50257, 1024), 2);   /* odd, bf16 */
    assert_int_equal(kernel_table_gemm_align_bytes(2, 4096, 30522, 1024), 4);   /* 2 mod 4 */
    assert_int_equal(kernel_table_gemm_align_bytes(2, 8448, 1500, 2816), 8);
    assert_int_equal(kernel_table_gemm_align_bytes(2, 4096, 4096, 4096), 16);
    assert_int_equal(kernel_table_gemm_align_bytes(2, 8, 8, 8), 16);
    assert_int_equal(kernel_table_gemm_align_bytes(4, 1760, 7133, 1760), 4);    /* odd, fp32 */
    assert_int_equal(kernel_table_gemm_align_bytes(4, 1022, 1024, 1024), 8);
    assert_int_equal(kernel_table_gemm_align_bytes(4, 4, 4, 4), 16);
    assert_int_equal(kernel_table_gemm_align_bytes(1, 3, 16, 16), 1);           /* fp8 */
    assert_int_equal(kernel_table_gemm_class(PREC_BF16, 16), 2);
    assert_int_equal(kernel_table_gemm_class(PREC_BF16, 8), 1);
    assert_int_equal(kernel_table_gemm_class(PREC_BF16, 4), 1);
    assert_int_equal(kernel_table_gemm_class(PREC_BF16, 2), 0);
    assert_int_equal(kernel_table_gemm_class(PREC_FP16, 1), 0);
    assert_int_equal(kernel_table_gemm_class(PREC_TF32, 4), 1);
    /* IEEE fp32: alignment changes nothing measured, one class */
    assert_int_equal(kernel_table_gemm_class(PREC_FP32, 4), 2);
    assert_int_equal(kernel_table_gemm_class(PREC_FP32, 16), 2);
}

static void test_stream(void **state)
{
    (void)state;
    struct kernel_set set;
    kernel_set_init(&set);
    read_into(&set, "h100_eltwise.csv", "H100");
    const struct kernel_table *t = only_table(&set, "H100");
    struct kernel_estimate e;
    /* copy,fp32,268435456,2147483648,698.272 and relu the same size at
     * 698.8: both move 2^31 bytes, averaged in log bandwidth. */
    FILE *fp;
    char *p = data_path("h100_eltwise.csv");
    fp = fopen(p, "r");
    assert_non_null(fp);
    char line[256];
    double lbw = 0, t_small = 1e9, b_big = 0, t_big = 0;
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        char op[16], prec[16];
        double el, by, tu;
        if (sscanf(line, "%15[^,],%15[^,],%lf,%lf,%lf", op, prec, &el, &by, &tu) != 5)
            continue;
        if (strcmp(prec, "fp32") != 0)
            continue;
        if (by == 2147483648.0) {
            lbw += log(by / (tu * 1e-6));
            n++;
        }
        if (tu * 1e-6 < t_small)
            t_small = tu * 1e-6;
        if (by > b_big) {
            b_big = by;
            t_big = tu * 1e-6;
        }
    }
    fclose(fp);
    free(p);
    assert_int_equal(n, 2);
    double want = 2147483648.0 / exp(lbw / n);
    assert_int_equal(kernel_table_stream(t, PREC_FP32, 2147483648.0, &e), 0);
    assert_close(e.time_s, want, 1e-9);
    /* Past the largest size (add, 3 x 4 x 2^28 bytes): its bandwidth. */
    assert_close(b_big, 3221225472.0, 1e-15);
    assert_int_equal(kernel_table_stream(t, PREC_FP32, 2 * b_big, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXTRAP);
    assert_close(e.time_s, 2 * t_big, 1e-9);
    /* Below the smallest: never quicker than the quickest row. */
    assert_int_equal(kernel_table_stream(t, PREC_FP32, 16, &e), 0);
    assert_true(e.time_s >= t_small * (1 - 1e-12));
    /* In between: monotone in bytes. */
    double prev = 0;
    for (double b = 8192; b < 4e9; b *= 1.37) {
        assert_int_equal(kernel_table_stream(t, PREC_FP32, b, &e), 0);
        if (!(e.time_s >= prev * (1 - 1e-12)))  /* pooled points: equal up to rounding */
            fail_msg("time %g s at %g B, below %g s before", e.time_s, b, prev);
        prev = e.time_s;
    }
    assert_int_equal(kernel_table_stream(t, PREC_FP16, 1e6, &e), -1);
    assert_int_equal(kernel_table_stream(t, PREC_FP32, NAN, &e), -1);
    kernel_set_release(&set);
}

/* ------------------------------------------------------------------ */
/* Bad input                                                           */

static int read_text(const char *text, const char *name, struct strbuf *msg)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/u-kernels-%ld-%s", (long)getpid(), name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    struct diag d;
    diag_init(&d, mf);
    struct kernel_set set;
    kernel_set_init(&set);
    struct kernel_read_opts o = { .hw = "x" };
    int rc = kernel_file_read(path, &o, &set, &d);
    if (rc)
        assert_int_equal(set.n, 0); /* nothing of a bad file is kept */
    kernel_set_release(&set);
    fclose(mf);
    strbuf_reset(msg);
    /* The file name is a temporary: keep "name:line:col: ..." only. */
    const char *tail = strstr(buf, name);
    strbuf_addstr(msg, tail ? tail : buf);
    free(buf);
    unlink(path);
    return rc;
}

static void test_bad_input(void **state)
{
    (void)state;
    static const struct { const char *text, *want; } cases[] = {
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp32,1\n1,2,N,N,fp32,1\n",
          "bad.csv:3:1: error: found 6 fields, expected 7 as in the header" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,x3,N,N,fp32,1\n",
          "bad.csv:2:5: error: k: found 'x3', expected a positive integer" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp32,-1\n",
          "bad.csv:2:16: error: time: found '-1', expected a positive finite number" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp32,0\n",
          "bad.csv:2:16: error: time: found '0', expected a positive finite number" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp32,nan\n",
          "bad.csv:2:16: error: time: found 'nan', expected a positive finite number" },
        { "m,n,k,a_t,b_t,precision,time_us\n0,2,3,N,N,fp32,1\n",
          "bad.csv:2:1: error: m: found '0', expected a positive integer" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp99,1\n",
          "bad.csv:2:11: error: precision: found 'fp99', expected fp64, fp32" },
        { "m,n,k,a_t,b_t,precision,time_us\n1,2,3,X,N,fp32,1\n",
          "bad.csv:2:7: error: a_t: found 'X', expected N, T, 0 or 1" },
        { "m,n,k,precision\n1,2,3,fp32\n",
          "bad.csv:1:1: error: header: found 'm', expected a 'time_us' column" },
        { "1,2,3\n", "bad.csv:1:1: error: found a data line with 3 fields and no header" },
        { "m,n,k,a_t,b_t,precision,time_us\n", "bad.csv:1: error: found no kernel rows" },
        { "w,h,c,n,k,f_w,f_h,precision,fwd_ms,bwd_inputs_ms\n7,7,1,1,1,3,3,fp32,,N/A*\n",
          "bad.csv:2:20: error: found no time for any pass" },
        { "   1760     16   1760      0      0   float   inf\n",
          "bad.csv:1:47: error: time: found 'inf', expected a positive finite number" },
        { "   1760     16   1760      0      0   float\n",
          "bad.csv:1:1: error: found 6 fields, expected 7 (gemm" },
        /* The forms of estimators/measure/FORMATS.md */
        { "cell,input,hidden,layers,seq,batch,bidirectional,precision,pass,time_us\n"
          "lstmx,16,32,1,4,2,0,fp32,fwd,140\n",
          "bad.csv:2:1: error: cell: found 'lstmx', expected lstm,gru,rnn_tanh,rnn_relu" },
        { "cell,input,hidden,layers,seq,batch,bidirectional,precision,pass,time_us\n"
          "gru,16,32,0,4,2,0,fp32,fwd,140\n",
          "bad.csv:2:11: error: layers: found '0', expected a positive integer" },
        { "batch,heads,q_len,kv_len,head_dim,causal,precision,pass,backend,time_us\n"
          "1,2,16,16,16,2,fp32,fwd,math,21.9\n",
          "bad.csv:2:14: error: causal: found '2', expected 0, 1, true or false" },
        { "batch,heads,q_len,kv_len,head_dim,causal,precision,pass,time_us\n"
          "1,2,16,16,16,1,fp32,bwd_data,21.9\n",
          "bad.csv:2:21: error: pass: found 'bwd_data', expected fwd,bwd" },
        { "op,n,c,s,groups,precision,time_us\nlayer_norm,4,8,64,0,fp32,9.5\n",
          "bad.csv:1:1: error: header: found 'op', expected a 'pass' column (norm table)" },
        { "op,rows,dim,lookups,batch,mode,precision,pass,time_us\n"
          "embedding_bag,1000,16,8,4,avg,fp32,fwd,3.7\n",
          "bad.csv:2:27: error: mode: found 'avg', expected sum,mean,max,none" },
        { "op,form,params,tensors,precision,pass,bytes,time_us\nadam,fused,4096,4,fp32,fwd,49152,14\n",
          "bad.csv:2:24: error: pass: found 'fwd', expected step" },
        { "op,ranks,bytes,precision,time_us\nall_to_all,2,1024,fp32,10\n",
          "bad.csv:2:1: error: op: found 'all_to_all', expected all_reduce,all_gather" },
        { "op,n,c,out,in,precision,pass,time_us\nupsample_area2d,2,8,64,16,fp32,fwd,10\n",
          "bad.csv:2:1: error: op: found 'upsample_area2d', expected upsample_nearest1d," },
        { "op,n,c,out,in,precision,pass,time_us\nupsample_bilinear2d,2,8,64,0,fp32,fwd,10\n",
          "bad.csv:2:28: error: in: found '0', expected a positive integer" },
        { "op,n,c,out,precision,pass,time_us\nupsample_bilinear2d,2,8,64,fp32,fwd,10\n",
          "bad.csv:1:1: error: header: found 'op', expected a 'in' column (resample table)" },
        { "dims,n,c,d,h,w,k,f_d,f_h,f_w,groups,precision,pass,time_us\n"
          "2,2,8,1,16,16,12,1,3,3,3,fp32,fwd,34.9\n",
          "bad.csv:2:24: error: groups: found '3', expected a divisor of both c and k" },
        { "dims,n,c,d,h,w,k,f_d,f_h,f_w,groups,precision,pass,time_us\n"
          "1,2,8,1,16,16,16,1,3,3,1,fp32,fwd,34.9\n",
          "bad.csv:2:1: error: dims: found '1', expected 3 for a shape with depth, 2 or 3 for one with height" },
        { "dims,n,c,d,h,w,k,f_d,f_h,f_w,groups,precision,pass,time_us\n"
          "2,2,8,1,16,16,16,1,3,3,1,fp32,bwd,34.9\n",
          "bad.csv:2:31: error: pass: found 'bwd', expected fwd,bwd_data,bwd_weight" },
        { "dims,n,c,h,w,k,f_h,f_w,precision,pass,fwd_time_us\n2,2,8,16,16,16,3,3,fp32,fwd,34.9\n",
          "bad.csv:1:1: error: header: found 'dims', expected a 'time_us' column (conv table)" },
        { "dims,n,c,h,w,k,f_h,f_w,precision,pass,time_us\n4,2,8,16,16,16,3,3,fp32,fwd,34.9\n",
          "bad.csv:2:1: error: dims: found '4', expected 1, 2 or 3" },
        { "dims,n,c,h,w,k,f_h,f_w,layout,precision,pass,time_us\n2,2,8,16,16,16,3,3,nhwc,fp32,fwd,34.9\n",
          "bad.csv:2:20: error: layout: found 'nhwc', expected contiguous or channels-last" },
    };
    struct strbuf msg = STRBUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = read_text(cases[i].text, "bad.csv", &msg);
        if (rc != 1 || strncmp(msg.buf, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("case %zu: status %d, message '%s', expected '%s'", i, rc, msg.buf,
                     cases[i].want);
    }
    /* Quoted names, spaces after commas and CRLF are fine. */
    assert_int_equal(read_text("hw,m,n,k,a_t,b_t,precision,time_ms\r\n"
                               "\"GPU \"\"x\"\", rev 2\", 8, 8, 8, T, N, float, 0.5\r\n",
                               "ok.csv", &msg), 0);
    strbuf_release(&msg);
}

/* A conv table's layout column: "contiguous" (or empty) is flag 0,
 * "channels-last" flag 1; rows of one shape in both layouts are both kept. */
static void test_layout_column(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/u-kernels-%ld-layout.csv", (long)getpid());
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("dims,n,c,h,w,k,f_h,f_w,groups,layout,precision,pass,time_us\n"
          "2,8,32,14,14,32,3,3,32,contiguous,fp32,fwd,12\n"
          "2,8,32,14,14,32,3,3,32,channels-last,fp32,fwd,5\n"
          "2,8,32,14,14,32,3,3,32,,fp32,bwd_data,7\n", fp);
    fclose(fp);
    struct diag d;
    diag_init(&d, stderr);
    struct kernel_set set;
    kernel_set_init(&set);
    struct kernel_read_opts o = { .hw = "x" };
    assert_int_equal(kernel_file_read(path, &o, &set, &d), 0);
    unlink(path);
    const struct kernel_table *t = only_table(&set, "x");
    assert_int_equal(t->n_rows, 3);
    int flags[3] = { 0 };
    double times[3] = { 0 };
    for (size_t i = 0; i < 3; i++) {
        flags[i] = t->rows[i].flag;
        times[i] = t->rows[i].time_s[CONV_FWD] + t->rows[i].time_s[CONV_BWD_DATA];
    }
    assert_int_equal(flags[0], 0);
    assert_int_equal(flags[1], 1);
    assert_int_equal(flags[2], 0);
    assert_close(times[1], 5e-6, 1e-12);
    kernel_set_release(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_our_csv),
        cmocka_unit_test(test_published_csv),
        cmocka_unit_test(test_deepbench_stdout),
        cmocka_unit_test(test_every_row_exact),
        cmocka_unit_test(test_loo_gemm),
        cmocka_unit_test(test_loo_conv),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_misaligned),
        cmocka_unit_test(test_gemm_floor),
        cmocka_unit_test(test_align_bytes),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_layout_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
