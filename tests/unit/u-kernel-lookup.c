/* kernel_table_lookup over every kind: exact rows, interpolation inside
 * the measured range, extrapolation outside it, the distance in log space
 * and the hull per axis, and categories that never mix (precision, pass,
 * cell, causal, groups class, memory layout, op). */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/kernel_table.h"

static struct kernel_row *dims_row(struct kernel_table *t, enum kernel_kind kind, enum precision p,
                                   enum kernel_pass pass, const char *op, int flag,
                                   const int64_t *dim, int n_dim, double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = kind;
    r->prec = p;
    r->pass = pass;
    r->op = op ? xstrdup(op) : NULL;
    r->flag = flag;
    for (int i = 0; i < n_dim; i++)
        r->dim[i] = dim[i];
    r->time_s[0] = time_s;
    return r;
}

/* Attention rows whose time is exactly proportional to the work
 * b·h·q·kv·d (a constant rate): every interpolation must give the rate
 * back, whatever the weights. */
static void attention_table(struct kernel_table *t)
{
    const double rate = 1e12;
    for (int64_t seq = 128; seq <= 2048; seq *= 2)
        for (int64_t d = 64; d <= 128; d *= 2)
            for (int causal = 0; causal < 2; causal++) {
                int64_t dim[5] = { 8, 16, seq, seq, d };
                double work = 8.0 * 16 * seq * seq * d;
                dims_row(t, KERNEL_ATTENTION, PREC_BF16, KPASS_FWD, NULL, causal, dim, 5,
                         work / rate * (causal ? 0.6 : 1.0));
            }
}

static void att_query(struct kernel_query *q, int64_t seq, int64_t d, int causal)
{
    memset(q, 0, sizeof *q);
    q->kind = KERNEL_ATTENTION;
    q->prec = PREC_BF16;
    q->pass = KPASS_FWD;
    q->flag = causal;
    int64_t dim[5] = { 8, 16, seq, seq, d };
    memcpy(q->dim, dim, sizeof dim);
}

/* An fp32 forward query of norm op (its sizes left to the caller). */
static void norm_query(struct kernel_query *q, const char *op)
{
    memset(q, 0, sizeof *q);
    q->kind = KERNEL_NORM;
    q->prec = PREC_FP32;
    q->pass = KPASS_FWD;
    q->op = op;
}

/* A batch norm over [N, C] (s = 1) and one over maps are other kernels:
 * a query of either kind is answered from its own kind's rows only, never
 * from a mix of the two, whatever their sizes. */
static void test_norm_2d_apart(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int64_t n = 8; n <= 64; n *= 2)            /* maps: 1 us per 1M elements */
        for (int64_t sp = 64; sp <= 4096; sp *= 4) {
            int64_t dim[4] = { n, 64, sp, 1 };
            dims_row(&t, KERNEL_NORM, PREC_FP32, KPASS_FWD, "batch_norm", 0, dim, 4,
                     (double)n * 64 * sp * 1e-12);
        }
    for (int64_t n = 1024; n <= 262144; n *= 4) {   /* [N, C]: 10x slower a element */
        int64_t dim[4] = { n, 64, 1, 1 };
        dims_row(&t, KERNEL_NORM, PREC_FP32, KPASS_FWD, "batch_norm", 0, dim, 4,
                 (double)n * 64 * 1e-11);
    }
    struct kernel_query q;
    struct kernel_hit h;
    norm_query(&q, "batch_norm");
    int64_t maps[4] = { 16, 64, 1024, 1 };
    memcpy(q.dim, maps, sizeof maps);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_close(h.time_s, 16.0 * 64 * 1024 * 1e-12, 0.05);
    int64_t rows[4] = { 16384, 64, 1, 1 };
    memcpy(q.dim, rows, sizeof rows);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_close(h.time_s, 16384.0 * 64 * 1e-11, 1e-9);
    /* a [N, C] norm of 2,048 rows: between its own rows, not the maps' */
    int64_t mid[4] = { 2048, 64, 1, 1 };
    memcpy(q.dim, mid, sizeof mid);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_close(h.time_s, 2048.0 * 64 * 1e-11, 0.05);
    kernel_table_release(&t);
}

/* A layer norm's place is its row count (leading dimensions multiplied)
 * and its normalized size: rows measured at batches 1 and 8 answer a
 * query at batch 4,096 of as many rows from inside the table, as its own
 * row would; a batch norm keeps its batch axis. */
static void test_layer_norm_rows(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int64_t n = 1; n <= 8; n *= 8)
        for (int64_t rows = 1024; rows <= 1048576; rows *= 4) {   /* 1.5 ns a row */
            int64_t dim[4] = { n, 64, rows / n, 1 };
            dims_row(&t, KERNEL_NORM, PREC_FP32, KPASS_FWD, "layer_norm", 0, dim, 4, rows * 1.5e-9);
            dims_row(&t, KERNEL_NORM, PREC_FP32, KPASS_FWD, "batch_norm", 0, dim, 4, rows * 1.5e-9);
        }
    struct kernel_query q;
    struct kernel_hit h;
    norm_query(&q, "layer_norm");
    int64_t big[4] = { 4096, 64, 64, 1 };       /* 262,144 rows, a measured count */
    memcpy(q.dim, big, sizeof big);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_not_equal(h.method, LOOKUP_EXTRAP);
    assert_close(h.time_s, 262144 * 1.5e-9, 1e-6);
    q.op = "batch_norm";
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    kernel_table_release(&t);
}

/* Upsampling rows are placed by their planes (n x c), output and input
 * points: 2 x 512 planes is the row measured as 16 x 64, and a query
 * between two plane counts interpolates between them; rows of another
 * op or pass never answer. */
static void test_resample_planes(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int64_t planes = 64; planes <= 16384; planes *= 4) {     /* 0.4 us a plane */
        int64_t dim[4] = { 16, planes / 16, 16384, 4096 };
        dims_row(&t, KERNEL_RESAMPLE, PREC_FP32, KPASS_FWD, "upsample_bilinear2d", 0, dim, 4,
                 planes * 0.4e-6);
        dims_row(&t, KERNEL_RESAMPLE, PREC_FP32, KPASS_FWD, "upsample_nearest2d", 0, dim, 4,
                 planes * 0.04e-6);
    }
    struct kernel_query q = { .kind = KERNEL_RESAMPLE, .prec = PREC_FP32, .pass = KPASS_FWD,
                              .op = "upsample_bilinear2d" };
    int64_t split[4] = { 2, 512, 16384, 4096 };
    memcpy(q.dim, split, sizeof split);
    struct kernel_hit h;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_close(h.time_s, 1024 * 0.4e-6, 1e-9);
    q.dim[RS_N] = 4;                            /* 4,096 planes: a measured count */
    q.dim[RS_C] = 1024;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_close(h.time_s, 4096 * 0.4e-6, 1e-6);
    q.dim[RS_C] = 2048;                         /* 8,192 planes: between two rows */
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_close(h.time_s, 8192 * 0.4e-6, 1e-2);
    q.pass = KPASS_BWD;
    assert_int_not_equal(kernel_table_lookup(&t, &q, &h), 0);
    kernel_table_release(&t);
}

/* A head below every row's runs its kernels' tile padded: timed as the
 * smallest measured head dim at its other sizes (the rows' time there,
 * not the quarter its flops would give), inside the rows, never exact,
 * and said (head_padded); a head the rows measure is not padded. */
static void test_attention_head_padded(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    attention_table(&t);
    struct kernel_query q;
    struct kernel_hit h;
    att_query(&q, 512, 16, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.head_padded, 1);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_null(h.row);
    assert_int_equal(h.outside[4], 0);
    assert_close(h.time_s, 8.0 * 16 * 512 * 512 * 64 / 1e12, 1e-9);
    att_query(&q, 512, 64, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.head_padded, 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    att_query(&q, 512, 96, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.head_padded, 0);
    assert_close(h.time_s, 8.0 * 16 * 512 * 512 * 96 / 1e12, 1e-6);
    kernel_table_release(&t);
}

/* A plain embedding is its flattened indices: [64, 256] indices are the
 * 16,384 of the row measured as [8, 2048], inside the rows, although its
 * batch is past theirs; bags reduce per sample and keep both axes, so the
 * same query of embedding_bag rows lies outside them. */
static void test_embedding_indices(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    static const int64_t rows[][4] = { { 16384, 64, 128, 32 }, { 16384, 64, 2048, 8 },
                                       { 131072, 64, 128, 32 }, { 131072, 64, 2048, 8 },
                                       { 16384, 256, 128, 32 }, { 16384, 256, 2048, 8 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int bag = 0; bag < 2; bag++)
            dims_row(&t, KERNEL_EMBEDDING, PREC_FP32, KPASS_BWD, bag ? "embedding_bag" : "embedding", 0,
                     rows[i], 4, (100 + 1e-3 * (double)(rows[i][2] * rows[i][3]) + (double)i) * 1e-6);
    struct kernel_query q;
    struct kernel_hit h;
    memset(&q, 0, sizeof q);
    q.kind = KERNEL_EMBEDDING;
    q.prec = PREC_FP32;
    q.pass = KPASS_BWD;
    q.op = "embedding";
    int64_t dim[4] = { 16384, 64, 256, 64 };
    memcpy(q.dim, dim, sizeof dim);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_not_equal(h.method, LOOKUP_EXTRAP);
    assert_close(h.time_s, (100 + 1e-3 * 16384 + 1) * 1e-6, 1e-9);
    q.op = "embedding_bag";
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.outside[EMB_BATCH], 1);
    kernel_table_release(&t);
}

static void test_attention(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    attention_table(&t);
    struct kernel_query q;
    struct kernel_hit h;

    /* A measured row: exact, distance 0, inside on every axis. */
    att_query(&q, 512, 64, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_close(h.time_s, 8.0 * 16 * 512 * 512 * 64 / 1e12, 1e-12);
    assert_true(h.distance == 0);
    assert_non_null(h.row);
    assert_int_equal(h.n_axes, 5);

    /* Between rows: interpolated, the constant rate comes back, and the
     * distance is that to the nearest row: seq 724 vs 512 or 1024 on two
     * axes (q_len, kv_len), nearer 512 -> sqrt(2)·ln(724/512). */
    att_query(&q, 724, 64, 1);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_close(h.time_s, 0.6 * 8.0 * 16 * 724 * 724 * 64 / 1e12, 1e-6);
    assert_close(h.distance, sqrt(2.0) * log(724.0 / 512.0), 1e-9);
    for (int a = 0; a < h.n_axes; a++)
        assert_int_equal(h.outside[a], 0);
    assert_null(h.row);

    /* Past the longest sequence: extrapolated, flagged on q_len and kv_len
     * (axes 2 and 3) only, distance ln 2 on each. */
    att_query(&q, 4096, 128, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.outside[0], 0);
    assert_int_equal(h.outside[2], 1);
    assert_int_equal(h.outside[3], 1);
    assert_int_equal(h.outside[4], 0);
    assert_close(h.distance, sqrt(2.0) * log(2.0), 1e-9);
    assert_string_equal(kernel_hit_axis_name(KERNEL_ATTENTION, 2), "q_len");
    assert_null(kernel_hit_axis_name(KERNEL_ATTENTION, 5));
    /* The rate of the nearest rows carries over (constant rate). */
    assert_close(h.time_s, 8.0 * 16 * 4096 * 4096 * 128 / 1e12, 1e-6);

    /* No fp16 rows, no backward rows: none, never another precision or pass. */
    q.prec = PREC_FP16;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    assert_int_equal(h.method, LOOKUP_NONE);
    assert_true(h.distance < 0);
    q.prec = PREC_BF16;
    q.pass = KPASS_BWD;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    /* A size < 1 is malformed. */
    att_query(&q, 0, 64, 0);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    kernel_table_release(&t);
}

/* RNN cells never stand in for each other. */
static void test_rnn_cells(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    int64_t dim[5] = { 256, 512, 2, 100, 32 };
    dims_row(&t, KERNEL_RNN, PREC_FP32, KPASS_FWD, "lstm", 0, dim, 5, 4e-3);
    dims_row(&t, KERNEL_RNN, PREC_FP32, KPASS_FWD, "lstm", 1, dim, 5, 7e-3);
    struct kernel_query q = { .kind = KERNEL_RNN, .prec = PREC_FP32, .pass = KPASS_FWD, .op = "lstm" };
    memcpy(q.dim, dim, sizeof dim);
    struct kernel_hit h;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_close(h.time_s, 4e-3, 1e-12);
    q.flag = 1;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_close(h.time_s, 7e-3, 1e-12);
    q.op = "gru";
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    /* One row: a longer sequence keeps its rate (time doubles with seq). */
    q.op = "lstm";
    q.flag = 0;
    q.dim[RNN_SEQ] = 200;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_close(h.time_s, 8e-3, 1e-9);
    assert_close(h.distance, log(2.0), 1e-12);
    assert_int_equal(h.outside[RNN_SEQ], 1);
    kernel_table_release(&t);
}

static struct kernel_row *conv_row(struct kernel_table *t, int64_t c, int64_t hw, int64_t k,
                                   int64_t groups, int slot, double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_CONV;
    r->prec = PREC_FP32;
    r->dims = 2;
    r->n_ = 32, r->c = c, r->h = hw, r->w = hw, r->kf = k, r->r = 3, r->s = 3;
    r->pad_h = r->pad_w = 1;
    r->stride_h = r->stride_w = 1;
    r->groups = groups;
    r->time_s[slot] = time_s;
    return r;
}

static void conv_query(struct kernel_query *q, int64_t c, int64_t hw, int64_t k, int64_t groups,
                       enum kernel_pass pass)
{
    memset(q, 0, sizeof *q);
    q->kind = KERNEL_CONV;
    q->prec = PREC_FP32;
    q->pass = pass;
    struct conv_shape cs = { .n = 32, .c = c, .h = hw, .w = hw, .k = k, .r = 3, .s = 3,
                             .pad_h = 1, .pad_w = 1, .stride_h = 1, .stride_w = 1,
                             .groups = groups, .dims = 2 };
    q->conv = cs;
}

/* q answered by an exact row of time_s. */
static void expect_exact(const struct kernel_table *t, const struct kernel_query *q,
                         struct kernel_hit *h, double time_s)
{
    assert_int_equal(kernel_table_lookup(t, q, h), 0);
    assert_int_equal(h->method, LOOKUP_EXACT);
    assert_close(h->time_s, time_s, 1e-12);
}

/* Depthwise rows answer depthwise queries only; rows of the form with a
 * pass column combine per pass; KPASS_BWD is data + weight. */
static void test_conv_classes(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    conv_row(&t, 64, 56, 64, 64, CONV_FWD, 50e-6);
    conv_row(&t, 64, 56, 64, 64, CONV_BWD_DATA, 60e-6);
    conv_row(&t, 64, 56, 64, 64, CONV_BWD_FILTER, 90e-6);
    conv_row(&t, 256, 56, 256, 256, CONV_FWD, 200e-6);
    struct kernel_query q;
    struct kernel_hit h;
    conv_query(&q, 64, 56, 64, 64, KPASS_FWD);
    expect_exact(&t, &q, &h, 50e-6);
    conv_query(&q, 64, 56, 64, 64, KPASS_BWD);
    expect_exact(&t, &q, &h, 150e-6);
    /* A dense conv of the same sizes has no rows of its class. */
    conv_query(&q, 64, 56, 64, 1, KPASS_FWD);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    /* Depthwise at 128 channels lies between the two rows on the groups
     * axis (gemm_n = K/groups = 1 and gemm_k = 9 are shared): inside, at
     * ln 2 from the nearest. */
    conv_query(&q, 128, 56, 128, 128, KPASS_FWD);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_close(h.distance, log(2.0), 1e-12);
    assert_null(h.row);
    assert_true(h.time_s > 50e-6 && h.time_s < 200e-6);
    /* Past both: the groups axis (4) is flagged. */
    conv_query(&q, 512, 56, 512, 512, KPASS_FWD);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.outside[4], 1);
    assert_int_equal(h.outside[0], 0);
    /* Backward needs both passes: the 256-channel row has none. */
    conv_query(&q, 256, 56, 256, 256, KPASS_BWD);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    kernel_table_release(&t);
}

/* Dense 3-D rows of 1x1x1 and 3x3x3 filters measure those filter volumes
 * only: a 5x5x5 query whose implicit GEMM lies inside their axes is an
 * extrapolation with its filter flagged, never "above" the rows; a 3x3x3
 * query between them is inside, and 2-D rows of a 5x5 filter do not
 * measure a 3-D filter of 125 points. */
static void test_conv_filter_coverage(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    const int64_t f[] = { 1, 3, 3 }, ch[] = { 16, 64, 256 };
    for (int i = 0; i < 3; i++) {
        struct kernel_row *r = conv_row(&t, ch[i], 16, ch[i], 1, CONV_FWD, 100e-6 * (i + 1));
        r->dims = 3;
        r->d = 16;
        r->t = r->r = r->s = f[i];
        r->pad_d = r->pad_h = r->pad_w = f[i] / 2;
        r->stride_d = 1;
    }
    struct kernel_row *r2 = conv_row(&t, 32, 32, 32, 1, CONV_FWD, 40e-6);
    r2->r = r2->s = 5;
    r2->pad_h = r2->pad_w = 2;
    struct kernel_query q;
    struct kernel_hit h;
    conv_query(&q, 32, 16, 32, 1, KPASS_FWD);
    q.conv.dims = 3;
    q.conv.d = 16;
    q.conv.t = q.conv.r = q.conv.s = 3;
    q.conv.pad_d = 1;
    q.conv.stride_d = 1;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_int_equal(h.filter_unmeasured, 0);
    q.conv.t = q.conv.r = q.conv.s = 5;
    q.conv.pad_d = q.conv.pad_h = q.conv.pad_w = 2;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.filter_unmeasured, 1);
    /* the backward's two passes carry the flag to the whole */
    struct kernel_row *b = conv_row(&t, 64, 16, 64, 1, CONV_BWD_DATA, 300e-6);
    struct kernel_row *w = conv_row(&t, 64, 16, 64, 1, CONV_BWD_FILTER, 300e-6);
    b->dims = w->dims = 3;
    b->d = w->d = 16;
    b->t = b->r = b->s = w->t = w->r = w->s = 3;
    b->pad_d = w->pad_d = b->stride_d = w->stride_d = 1;
    q.pass = KPASS_BWD;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.filter_unmeasured, 1);
    /* a 2-D 5x5 query: the 2-D row measures it */
    conv_query(&q, 32, 32, 32, 1, KPASS_FWD);
    q.conv.r = q.conv.s = 5;
    q.conv.pad_h = q.conv.pad_w = 2;
    expect_exact(&t, &q, &h, 40e-6);
    assert_int_equal(h.filter_unmeasured, 0);
    q.conv.c = q.conv.k = 48;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.filter_unmeasured, 0);
    /* a 2-D 7x7 query: past the 2-D rows' one filter */
    q.conv.r = q.conv.s = 7;
    q.conv.pad_h = q.conv.pad_w = 3;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.filter_unmeasured, 1);
    /* depthwise rows of 3x3 filters answer a 9x9 depthwise query: its
     * direct kernel's work grows with the filter, on the axes */
    conv_row(&t, 64, 32, 64, 64, CONV_FWD, 30e-6);
    conv_row(&t, 256, 32, 256, 256, CONV_FWD, 90e-6);
    conv_query(&q, 128, 32, 128, 128, KPASS_FWD);
    q.conv.r = q.conv.s = 9;
    q.conv.pad_h = q.conv.pad_w = 4;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.filter_unmeasured, 0);
    kernel_table_release(&t);
}

static struct kernel_row *conv1d_row(struct kernel_table *t, int64_t c, int64_t k, int slot,
                                     double time_s)
{
    struct kernel_row *r = conv_row(t, c, 1, k, 1, slot, time_s);
    r->dims = 1;
    r->w = 4096;
    r->r = 1;
    r->pad_h = 0;
    return r;
}

/* Dense 1-D rows answer 1-D queries, also as oneDNN states them ([N, C,
 * 1, W] with filters of height 1), from 1-D rows only: a 1-D query
 * between two 1-D rows keeps their rate although the much faster 2-D
 * rows share its implicit-GEMM sizes; a 2-D query on a 2-D row is that
 * row. */
static void test_conv_1d_apart(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    conv_row(&t, 64, 64, 64, 1, CONV_FWD, 50e-6);
    conv_row(&t, 256, 64, 256, 1, CONV_FWD, 500e-6);
    conv1d_row(&t, 64, 64, CONV_FWD, 4e-3);
    conv1d_row(&t, 256, 256, CONV_FWD, 40e-3);
    struct kernel_query q;
    struct kernel_hit h;
    conv_query(&q, 64, 1, 64, 1, KPASS_FWD);
    q.conv.dims = 1;
    q.conv.w = 4096;
    q.conv.r = 1;
    q.conv.pad_h = 0;
    expect_exact(&t, &q, &h, 4e-3);
    q.conv.dims = 2;
    expect_exact(&t, &q, &h, 4e-3);
    q.conv.c = q.conv.k = 128;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_true(h.time_s > 4e-3 && h.time_s < 40e-3);
    conv_query(&q, 64, 64, 64, 1, KPASS_FWD);
    expect_exact(&t, &q, &h, 50e-6);
    kernel_table_release(&t);
}

/* Rows of channels-last tensors (flag 1) answer channels-last queries
 * only, contiguous rows contiguous ones, for the same shape; a layout the
 * table lacks finds nothing (the estimator then says it falls back).
 * The older dense route (kernel_table_conv) reads contiguous rows only. */
static void test_conv_layouts(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    conv_row(&t, 64, 56, 64, 64, CONV_FWD, 50e-6);
    conv_row(&t, 64, 56, 64, 64, CONV_FWD, 20e-6)->flag = 1;
    conv_row(&t, 256, 56, 256, 256, CONV_FWD, 200e-6);
    conv_row(&t, 256, 56, 256, 256, CONV_FWD, 70e-6)->flag = 1;
    conv_row(&t, 64, 28, 128, 1, CONV_FWD, 40e-6);
    conv_row(&t, 64, 28, 128, 1, CONV_FWD, 10e-6)->flag = 1;
    struct kernel_query q;
    struct kernel_hit h;
    conv_query(&q, 64, 56, 64, 64, KPASS_FWD);
    expect_exact(&t, &q, &h, 50e-6);
    q.flag = 1;
    expect_exact(&t, &q, &h, 20e-6);
    /* between the two channels-last rows: from them alone */
    conv_query(&q, 128, 56, 128, 128, KPASS_FWD);
    q.flag = 1;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_true(h.time_s > 20e-6 && h.time_s < 70e-6);
    /* no channels-last backward rows */
    conv_query(&q, 64, 56, 64, 64, KPASS_BWD_DATA);
    q.flag = 1;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    /* the dense route: the contiguous row, never the channels-last one */
    struct conv_shape cs = { .n = 32, .c = 64, .h = 28, .w = 28, .k = 128, .r = 3, .s = 3,
                             .pad_h = 1, .pad_w = 1, .stride_h = 1, .stride_w = 1, .dims = 2 };
    struct kernel_estimate e;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXACT);
    assert_close(e.time_s, 40e-6, 1e-12);
    /* rows of one shape in the two layouts are two keys */
    assert_true(kernel_row_key_cmp(&t.rows[0], &t.rows[1]) != 0);
    kernel_table_release(&t);
}

/* A 1-D convolution of 32 channels over 2048 samples, taps 3, dilation
 * dil (padding dil, keeping the length), timed in pass slot. */
static struct kernel_row *dil_row(struct kernel_table *t, int64_t dil, int slot, double time_s)
{
    struct kernel_row *r = conv_row(t, 32, 1, 32, 1, slot, time_s);
    r->dims = 1;
    r->n_ = 8;
    r->w = 2048;
    r->r = 1;
    r->pad_h = 0;
    r->pad_w = dil;
    r->dil_w = dil;
    return r;
}

/* Dilation (the dense route, kernel_table_conv): a dilated shape the
 * table has is its row; another is its undilated twin's time times the
 * dilated-over-undilated ratio of the table's pairs, interpolated in log
 * dilation between the measured dilations and held outside them, per
 * pass; a table without pairs says so (dilation -1) and gives the
 * undilated time. */
static void test_conv_dilation(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    conv_row(&t, 64, 56, 64, 1, CONV_FWD, 50e-6);
    conv_row(&t, 64, 28, 128, 1, CONV_FWD, 40e-6);
    conv_row(&t, 128, 28, 128, 1, CONV_FWD, 60e-6);
    conv_row(&t, 256, 14, 256, 1, CONV_FWD, 70e-6);
    dil_row(&t, 1, CONV_FWD, 10e-6);
    dil_row(&t, 4, CONV_FWD, 20e-6);
    dil_row(&t, 16, CONV_FWD, 30e-6);
    dil_row(&t, 1, CONV_BWD_DATA, 10e-6);
    dil_row(&t, 16, CONV_BWD_DATA, 50e-6);
    struct conv_shape cs = { .n = 8, .c = 32, .h = 1, .w = 2048, .k = 32, .r = 1, .s = 3, .pad_w = 4,
                             .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 4, .groups = 1, .dims = 1 };
    struct kernel_estimate e;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_EXACT);
    assert_close(e.time_s, 20e-6, 1e-12);
    /* dilation 8: half way (in log) between the ratios 2 and 3 */
    cs.dil_w = cs.pad_w = 8;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_int_equal(e.method, LOOKUP_INTERP);
    assert_close(e.dilation, sqrt(6.0), 1e-12);
    assert_close(e.time_s, 10e-6 * sqrt(6.0), 1e-12);
    /* beyond the measured dilations: the nearest one's ratio, not a trend */
    cs.dil_w = cs.pad_w = 64;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 30e-6, 1e-12);
    cs.dil_w = cs.pad_w = 2;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 10e-6 * pow(2.0, 0.5), 1e-12);
    /* per pass: the data gradient has only dilation 16 measured, 5x:
     * dilation 8 lies three quarters of the way from 1 (in log) */
    cs.dil_w = cs.pad_w = 8;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_BWD_DATA, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 10e-6 * pow(5.0, 0.75), 1e-12);
    cs.dil_w = cs.pad_w = 32;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_BWD_DATA, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.time_s, 50e-6, 1e-12);
    /* a table without pairs: the undilated time, flagged */
    struct kernel_table u;
    kernel_table_init(&u);
    conv_row(&u, 64, 56, 64, 1, CONV_FWD, 50e-6);
    conv_row(&u, 64, 28, 128, 1, CONV_FWD, 40e-6);
    dil_row(&u, 1, CONV_FWD, 10e-6);
    assert_int_equal(kernel_table_conv(&u, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.dilation, -1, 0);
    assert_close(e.time_s, 10e-6, 1e-12);
    /* an undilated query is not touched */
    cs.dil_w = 1;
    cs.pad_w = 1;
    assert_int_equal(kernel_table_conv(&t, PREC_FP32, &cs, CONV_FWD, CONV_CONTIGUOUS, &e), 0);
    assert_close(e.dilation, 0, 0);
    assert_close(e.time_s, 10e-6, 1e-12);
    kernel_table_release(&u);
    kernel_table_release(&t);
}

/* GEMM: plain rows keep kernel_table_gemm's time, with distance and hull;
 * batched rows are their own category; precisions never mix. */
static void test_gemm(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    for (int64_t s = 256; s <= 4096; s *= 2) {
        struct kernel_row *r = kernel_table_add(&t);
        r->kind = KERNEL_GEMM;
        r->prec = PREC_FP32;
        r->m = r->n = r->k = s;
        r->a_t = r->b_t = 'N';
        r->time_s[0] = 2.0 * s * s * s / 20e12;
    }
    struct kernel_row *b = kernel_table_add(&t);
    b->kind = KERNEL_GEMM;
    b->prec = PREC_FP32;
    b->m = b->n = b->k = 64;
    b->batch = 512;
    b->time_s[0] = 30e-6;
    struct kernel_query q = { .kind = KERNEL_GEMM, .prec = PREC_FP32, .m = 1024, .n = 1024, .k = 1024 };
    struct kernel_hit h;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_true(h.distance == 0);
    q.m = q.n = q.k = 1448;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_close(h.distance, sqrt(3.0) * log(1448.0 / 1024.0), 1e-9);
    assert_close(h.time_s, 2.0 * 1448 * 1448 * 1448 / 20e12, 1e-6);
    q.m = 8192;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXTRAP);
    assert_int_equal(h.outside[0], 1);
    assert_int_equal(h.outside[1], 0);
    q.m = q.n = q.k = 64;
    q.batch = 512;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_close(h.time_s, 30e-6, 1e-12);
    assert_int_equal(h.n_axes, 4);
    q.prec = PREC_BF16;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    kernel_table_release(&t);
}

/* Elementwise: an op's own rows, or with no op the curve over all ops. */
static void test_eltwise(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    const char *ops[] = { "copy", "gelu" };
    for (int o = 0; o < 2; o++)
        for (double bytes = 1 << 20; bytes <= (1 << 28); bytes *= 4) {
            struct kernel_row *r = kernel_table_add(&t);
            r->kind = KERNEL_ELTWISE;
            r->prec = PREC_FP32;
            r->op = xstrdup(ops[o]);
            r->bytes = bytes;
            r->time_s[0] = bytes / (o ? 1e12 : 2e12);
        }
    struct kernel_query q = { .kind = KERNEL_ELTWISE, .prec = PREC_FP32, .op = "gelu", .bytes = 1 << 23 };
    struct kernel_hit h;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_INTERP);
    assert_close(h.time_s, (1 << 23) / 1e12, 1e-9);
    assert_close(h.distance, log(2.0), 1e-12);
    q.op = "tanh";
    assert_int_equal(kernel_table_lookup(&t, &q, &h), -1);
    q.op = NULL;
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_true(h.time_s > (1 << 23) / 2e12 && h.time_s < (1 << 23) / 1e12);
    kernel_table_release(&t);
}

/* A profile op's fields become the query of its kind. */
static void test_query_from_op(void **state)
{
    (void)state;
    struct kernel_table t;
    kernel_table_init(&t);
    int64_t dim[5] = { 512, 1024, 2, 100, 64 };
    dims_row(&t, KERNEL_RNN, PREC_FP16, KPASS_BWD, "lstm", 0, dim, 5, 2.9e-3);
    struct op o;
    memset(&o, 0, sizeof o);
    o.kind = OP_RNN;
    o.dtype = PREC_FP16;
    memcpy(op_sizes_mut(&o)->kdim, dim, sizeof dim);
    strcpy(op_sizes_mut(&o)->kop, "lstm");
    o.kflag = 0;
    struct kernel_query q;
    struct kernel_hit h;
    assert_int_equal(kernel_query_from_op(&o, KPASS_BWD, &q), 0);
    assert_int_equal(q.kind, KERNEL_RNN);
    assert_int_equal(kernel_table_lookup(&t, &q, &h), 0);
    assert_int_equal(h.method, LOOKUP_EXACT);
    assert_close(h.time_s, 2.9e-3, 1e-12);
    /* Unknown direction, unknown sizes, kinds without tables: -1. */
    o.kflag = -1;
    assert_int_equal(kernel_query_from_op(&o, KPASS_BWD, &q), -1);
    o.kflag = 0;
    op_sizes_mut(&o)->kdim[RNN_SEQ] = 0;
    assert_int_equal(kernel_query_from_op(&o, KPASS_BWD, &q), -1);
    o.kind = OP_MEMCPY;
    assert_int_equal(kernel_query_from_op(&o, KPASS_FWD, &q), -1);
    /* Norm groups 0 (not a group norm) reads as 1; elementwise: bytes per call. */
    op_release(&o);
    memset(&o, 0, sizeof o);
    o.kind = OP_NORM;
    strcpy(op_sizes_mut(&o)->kop, "layer_norm");
    int64_t nd[4] = { 8, 768, 1024, 0 };
    memcpy(op_sizes_mut(&o)->kdim, nd, sizeof nd);
    assert_int_equal(kernel_query_from_op(&o, KPASS_FWD, &q), 0);
    assert_int_equal(q.dim[NORM_GROUPS], 1);
    assert_string_equal(q.op, "layer_norm");
    op_release(&o);
    memset(&o, 0, sizeof o);
    o.kind = OP_ELEMENTWISE;
    o.count = 4;
    o.bytes = 4096;
    assert_int_equal(kernel_query_from_op(&o, KPASS_BWD, &q), 0);
    assert_int_equal(q.kind, KERNEL_ELTWISE);
    assert_true(q.bytes == 1024);
    assert_null(q.op);
    op_release(&o);
    kernel_table_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm_2d_apart),
        cmocka_unit_test(test_layer_norm_rows),
        cmocka_unit_test(test_resample_planes),
        cmocka_unit_test(test_embedding_indices),
        cmocka_unit_test(test_attention),
        cmocka_unit_test(test_attention_head_padded),
        cmocka_unit_test(test_rnn_cells),
        cmocka_unit_test(test_conv_classes),
        cmocka_unit_test(test_conv_filter_coverage),
        cmocka_unit_test(test_conv_layouts),
        cmocka_unit_test(test_conv_1d_apart),
        cmocka_unit_test(test_conv_dilation),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_eltwise),
        cmocka_unit_test(test_query_from_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
