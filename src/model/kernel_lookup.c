/* kernel_table_lookup: one lookup for every kind of measured kernel row.
 *
 * The method is kernel_table.c's GEMM method carried to every kind:
 *  - A row's rate -- its work divided by its time, where the work is the
 *    kind's operation count (flops of a GEMM or convolution, q·kv·d·heads·
 *    batch of attention, elements of a norm, bytes moved by an elementwise
 *    op or a collective) -- is a smooth function of the logarithms of the
 *    kind's size parameters, while its time spans decades.  So the rate is
 *    interpolated and time = work / rate.
 *  - Near a query the log rate is fitted as a plane in the log sizes by
 *    weighted least squares over the nearest rows of the query's category
 *    (inverse squared distance weights, a ridge pulling the slopes towards
 *    zero so that rows on one line still give an answer), and clamped to
 *    the neighbours' rates within a factor SPAN: past the measured sizes a
 *    kernel keeps the rate of its nearest measured rows.
 *  - The rate never exceeds the category's largest and the time never
 *    drops below its smallest (launch/latency bound), as for GEMMs.
 *  - Rows of other categories (precision, pass, cell, direction, causal,
 *    op, mode, groups class) are never neighbours: a GRU is not a slower
 *    LSTM and a depthwise convolution is not a small dense one; a dense
 *    1-D convolution's are 1-D rows only.
 * Plain GEMMs keep kernel_table_gemm's estimate (alignment classes and a
 * k-d tree over tables of 10^5 rows); this file adds their distance and
 * hull.  Categories of the other kinds hold hundreds of rows, which a
 * linear scan serves in microseconds. */
#include "model/kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "core/xalloc.h"

/* Neighbours, ridge and span as kernel_table.c's (KNN_DEFAULT, RIDGE,
 * PLANE_SPAN), chosen there by leave-one-out on the H100/H200 GEMM tables;
 * with more axes than a GEMM's three, the plane's D+1 unknowns need at
 * least twice as many rows to be fitted, hence the max() in lk_knn(). */
#define LK_KNN 8
#define LK_KNN_MAX 16
#define LK_RIDGE 0.002
#define LK_SPAN 1.5
/* Points closer than this (squared, in log units) are the same shape. */
#define LK_SAME_D2 1e-12
/* The conv category of dense undilated 1-D convolutions (conv_point). */
#define CONV_CLS_1D 3

/* ------------------------------------------------------------------ */
/* Kinds                                                               */

static const char *const dims_rnn[] = { "input", "hidden", "layers", "seq", "batch", NULL };
static const char *const dims_att[] = { "batch", "heads", "q_len", "kv_len", "head_dim", NULL };
static const char *const dims_norm[] = { "n", "c", "s", "groups", NULL };
static const char *const dims_emb[] = { "rows", "dim", "lookups", "batch", NULL };
static const char *const dims_opt[] = { "params", "tensors", NULL };
static const char *const dims_comm[] = { "ranks", "bytes", NULL };
static const char *const dims_rs[] = { "n", "c", "out", "in", NULL };
static const char *const axes_gemm[] = { "m", "n", "k", "batch", NULL };
static const char *const axes_conv[] = { "gemm_m", "gemm_n", "gemm_k", "batch", "groups", NULL };
static const char *const axes_elt[] = { "bytes", NULL };

const char *const *kernel_kind_dims(enum kernel_kind kind, int *n_out)
{
    static const char *const none[] = { NULL };
    const char *const *d = none;
    switch (kind) {
    case KERNEL_RNN: d = dims_rnn; break;
    case KERNEL_ATTENTION: d = dims_att; break;
    case KERNEL_NORM: d = dims_norm; break;
    case KERNEL_EMBEDDING: d = dims_emb; break;
    case KERNEL_OPTIMIZER: d = dims_opt; break;
    case KERNEL_COMM: d = dims_comm; break;
    case KERNEL_RESAMPLE: d = dims_rs; break;
    default: break;
    }
    int n = 0;
    while (d[n])
        n++;
    if (n_out)
        *n_out = n;
    return d;
}

const char *kernel_hit_axis_name(enum kernel_kind kind, int a)
{
    const char *const *names;
    int n;
    switch (kind) {
    case KERNEL_GEMM: names = axes_gemm; n = 4; break;
    case KERNEL_CONV: names = axes_conv; n = 5; break;
    case KERNEL_ELTWISE: names = axes_elt; n = 1; break;
    default: names = kernel_kind_dims(kind, &n); break;
    }
    return a >= 0 && a < n ? names[a] : NULL;
}

static const char *const pass_names[KPASS_COUNT] = { "fwd", "bwd", "bwd_data", "bwd_weight", "step" };

const char *kernel_pass_name(enum kernel_pass p)
{
    return (unsigned)p < KPASS_COUNT ? pass_names[p] : "unknown";
}

enum kernel_pass kernel_pass_parse(const char *s)
{
    for (int i = 0; s && i < KPASS_COUNT; i++)
        if (strcmp(s, pass_names[i]) == 0)
            return (enum kernel_pass)i;
    /* DeepBench's and cuDNN's name for the weight gradient */
    if (s && (strcmp(s, "bwd_filter") == 0 || strcmp(s, "bwd_params") == 0))
        return KPASS_BWD_WEIGHT;
    return KPASS_COUNT;
}

/* ------------------------------------------------------------------ */
/* Points: a query's (or row's) category, log axes and work            */

struct lkey {
    enum kernel_kind kind;
    enum kernel_pass pass;
    const char *op, *mode;      /* NULL: not part of the category */
    int flag;
    int cls;                    /* conv groups class, gemm batched */
};

struct lpoint {
    struct lkey key;
    int n_axes;
    double x[KERNEL_DIMS_MAX];
    double work;
    int dims;                   /* conv: spatial dimensions, 1 to 3 */
    double filter;              /* conv: filter volume (points per output per channel) */
};

static int64_t one_if_0(int64_t v)
{
    return v > 0 ? v : 1;
}

static int64_t conv_out1(int64_t in, int64_t pad, int64_t f, int64_t stride, int64_t dil)
{
    int64_t span = one_if_0(dil) * (one_if_0(f) - 1) + 1;
    if (in + 2 * pad < span)
        return 0;
    return (in + 2 * pad - span) / one_if_0(stride) + 1;
}

/* Conv as the implicit GEMM of one group; groups class 0 dense, 1
 * depthwise (a group per input channel), 2 other grouped, CONV_CLS_1D
 * dense undilated 1-D. */
static int conv_point(const struct conv_shape *c, struct lpoint *pt)
{
    int64_t g = one_if_0(c->groups);
    if (c->n < 1 || c->c < 1 || c->k < 1 || c->c % g || c->k % g)
        return -1;
    int64_t od = conv_out1(one_if_0(c->d), c->pad_d, c->t, c->stride_d, c->dil_d);
    int64_t oh = conv_out1(one_if_0(c->h), c->pad_h, c->r, c->stride_h, c->dil_h);
    int64_t ow = conv_out1(one_if_0(c->w), c->pad_w, c->s, c->stride_w, c->dil_w);
    if (od < 1 || oh < 1 || ow < 1)
        return -1;
    double m = (double)c->n * (double)od * (double)oh * (double)ow;
    double n = (double)(c->k / g);
    double k = (double)(c->c / g) * (double)one_if_0(c->t) * (double)one_if_0(c->r) *
               (double)one_if_0(c->s);
    pt->dims = conv_shape_1d(c) ? 1 : c->dims >= 1 && c->dims <= 3 ? c->dims : c->d > 1 || c->t > 1 ? 3 : 2;
    pt->key.cls = g == 1 ? 0 : g == c->c ? 1 : 2;
    /* Dense undilated 1-D convolutions apart from the 2-D and 3-D ones:
     * cuDNN picks other algorithms for a row of length L than for an
     * image of the same implicit GEMM (on an H200 in tf32 the data
     * gradient of 400 channels over 8,192 steps ran at 24 TFLOP/s beside
     * 103 and 238 for 200 and 512 channels, estimators/h200/
     * h200_conv_1d.csv), so only rows of their own kind are a 1-D
     * query's neighbours (cat_add files them with the others too). */
    if (conv_shape_dense_1d(c))
        pt->key.cls = CONV_CLS_1D;
    pt->filter = (double)one_if_0(c->t) * (double)one_if_0(c->r) * (double)one_if_0(c->s);
    pt->n_axes = 5;
    pt->x[0] = log(m);
    pt->x[1] = log(n);
    pt->x[2] = log(k);
    pt->x[3] = log((double)c->n);
    pt->x[4] = log((double)g);
    pt->work = 2.0 * m * n * k * (double)g;
    return 0;
}

/* Work of the kinds with dim[]: what their time grows with. */
static double dims_work(enum kernel_kind kind, const int64_t *d)
{
    switch (kind) {
    case KERNEL_RNN:        /* layers x steps x batch x hidden x (input + hidden) */
        return (double)d[RNN_LAYERS] * d[RNN_SEQ] * d[RNN_BATCH] * d[RNN_HIDDEN] *
               (double)(d[RNN_INPUT] + d[RNN_HIDDEN]);
    case KERNEL_ATTENTION:  /* the two batched GEMMs, q·kᵀ and p·v */
        return (double)d[ATT_BATCH] * d[ATT_HEADS] * d[ATT_Q_LEN] * d[ATT_KV_LEN] * d[ATT_HEAD_DIM];
    case KERNEL_NORM: return (double)d[NORM_N] * d[NORM_C] * d[NORM_S];
    case KERNEL_EMBEDDING: return (double)d[EMB_DIM] * d[EMB_LOOKUPS] * d[EMB_BATCH];
    case KERNEL_OPTIMIZER: return (double)d[OPT_PARAMS];
    case KERNEL_COMM: return (double)d[COMM_BYTES];
    case KERNEL_RESAMPLE: return (double)d[RS_N] * d[RS_C] * d[RS_OUT];
    default: return 0;
    }
}

/* Fill pt from q; -1 when q is malformed (a size < 1). */
static int query_point(const struct kernel_query *q, struct lpoint *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->key.kind = q->kind;
    pt->key.pass = q->pass;
    switch (q->kind) {
    case KERNEL_GEMM: {
        int64_t b = one_if_0(q->batch);
        if (q->m < 1 || q->n < 1 || q->k < 1)
            return -1;
        pt->key.pass = KPASS_FWD;
        pt->key.cls = b > 1;
        /* batched rows answer for their own transposes only: a batch of
         * small products runs other kernels by layout (on an H200 a bf16
         * batch of [16x1].[1x4] products with A transposed runs at 0.42
         * of fp32's time, of [16x8].[8x1] ones at 3.5 times it;
         * estimators/h200/h200_gemm_bsm.csv) */
        if (b > 1)
            pt->key.flag = (q->a_t == 'T') * 2 + (q->b_t == 'T');
        pt->n_axes = b > 1 ? 4 : 3;
        pt->x[0] = log((double)q->m);
        pt->x[1] = log((double)q->n);
        pt->x[2] = log((double)q->k);
        pt->x[3] = log((double)b);
        pt->work = 2.0 * (double)q->m * (double)q->n * (double)q->k * (double)b;
        return 0;
    }
    case KERNEL_CONV:
        pt->key.flag = q->flag;     /* the memory layout: rows of one layout only */
        return conv_point(&q->conv, pt);
    case KERNEL_ELTWISE:
        if (!(q->bytes >= 1) || !isfinite(q->bytes))
            return -1;
        pt->key.pass = KPASS_FWD;
        pt->key.op = q->op;
        pt->n_axes = 1;
        pt->x[0] = log(q->bytes);
        pt->work = q->bytes;
        return 0;
    default:
        break;
    }
    if ((unsigned)q->kind >= KERNEL_KIND_COUNT)
        return -1;
    kernel_kind_dims(q->kind, &pt->n_axes);
    for (int a = 0; a < pt->n_axes; a++) {
        if (q->dim[a] < 1)
            return -1;
        pt->x[a] = log((double)q->dim[a]);
    }
    pt->key.op = q->op ? q->op : "";
    /* Attention's and comm's backend say what ran, not what was asked. */
    if (q->kind != KERNEL_ATTENTION && q->kind != KERNEL_COMM)
        pt->key.mode = q->mode ? q->mode : "";
    pt->key.flag = q->flag;
    /* a norm over [N, C] (no spatial points: BatchNorm1d after a linear
     * layer) runs other kernels than one over maps; its rows answer for
     * it alone, and the maps' rows for the maps */
    if (q->kind == KERNEL_NORM && q->dim[NORM_S] == 1)
        pt->key.flag = 2;
    /* PyTorch's layer and RMS norms see their input as rows of the
     * normalized size whatever its leading dimensions, so a row's place
     * is its row count: [4096, 24, 192] sits between rows measured at
     * batch 64 instead of 6 octaves past them */
    if (q->kind == KERNEL_NORM && q->op
        && (strcmp(q->op, "layer_norm") == 0 || strcmp(q->op, "rms_norm") == 0)) {
        pt->x[NORM_S] = log((double)q->dim[NORM_N] * (double)q->dim[NORM_S]);
        pt->x[NORM_N] = 0;
    }
    /* PyTorch's upsampling kernels loop over the planes (batch x
     * channels) inside each output point's thread, whichever the split */
    if (q->kind == KERNEL_RESAMPLE) {
        pt->x[RS_C] = log((double)q->dim[RS_N] * (double)q->dim[RS_C]);
        pt->x[RS_N] = 0;
    }
    /* A plain embedding (no bags) gathers, and its backward sorts and
     * adds, the flattened indices: [512, 250] looks up as 128,000 indices,
     * not as a batch 4 octaves past rows whose batch and lookups per
     * sample the grid varies together.  Bags reduce per sample and keep
     * both axes. */
    if (q->kind == KERNEL_EMBEDDING && q->op && strcmp(q->op, "embedding") == 0) {
        pt->x[EMB_LOOKUPS] = log((double)q->dim[EMB_LOOKUPS] * (double)q->dim[EMB_BATCH]);
        pt->x[EMB_BATCH] = 0;
    }
    if (q->kind == KERNEL_COMM || q->kind == KERNEL_OPTIMIZER)
        pt->key.pass = q->kind == KERNEL_OPTIMIZER ? KPASS_STEP : KPASS_FWD;
    pt->work = dims_work(q->kind, q->dim);
    return 0;
}

static const enum kernel_pass conv_slot_pass[CONV_PASS_COUNT] = {
    KPASS_FWD, KPASS_BWD_DATA, KPASS_BWD_WEIGHT,
};

void kernel_row_conv(const struct kernel_row *r, struct conv_shape *c)
{
    memset(c, 0, sizeof *c);
    c->n = r->n_, c->c = r->c, c->d = r->d, c->h = r->h, c->w = r->w;
    c->k = r->kf, c->t = r->t, c->r = r->r, c->s = r->s;
    c->pad_d = r->pad_d, c->pad_h = r->pad_h, c->pad_w = r->pad_w;
    c->stride_d = r->stride_d, c->stride_h = r->stride_h, c->stride_w = r->stride_w;
    c->dil_d = r->dil_d, c->dil_h = r->dil_h, c->dil_w = r->dil_w;
    c->groups = r->groups, c->dims = r->dims;
}

/* The query a row answers in time slot `slot` (conv rows have three). */
static void row_query(const struct kernel_row *r, int slot, struct kernel_query *q)
{
    memset(q, 0, sizeof *q);
    q->kind = r->kind;
    q->prec = r->prec;
    q->pass = r->kind == KERNEL_CONV ? conv_slot_pass[slot] : r->pass;
    q->m = r->m, q->n = r->n, q->k = r->k, q->batch = r->batch;
    q->a_t = r->a_t, q->b_t = r->b_t;
    kernel_row_conv(r, &q->conv);
    q->op = r->op;
    q->mode = r->mode;
    q->flag = r->flag;
    memcpy(q->dim, r->dim, sizeof q->dim);
    q->bytes = r->bytes;
}

static int str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int key_eq(const struct lkey *a, const struct lkey *b)
{
    return a->kind == b->kind && a->pass == b->pass && str_eq(a->op, b->op) &&
           str_eq(a->mode, b->mode) && a->flag == b->flag && a->cls == b->cls;
}

/* A conv row of exactly the query's shape (the implicit-GEMM axes of
 * different shapes may coincide). */
static int conv_same(const struct conv_shape *a, const struct conv_shape *b)
{
    const int64_t va[] = { a->n, a->c, one_if_0(a->d), a->h, a->w, a->k, one_if_0(a->t), a->r, a->s,
                           a->pad_d, a->pad_h, a->pad_w, one_if_0(a->stride_d), one_if_0(a->stride_h),
                           one_if_0(a->stride_w), one_if_0(a->dil_d), one_if_0(a->dil_h),
                           one_if_0(a->dil_w), one_if_0(a->groups) };
    const int64_t vb[] = { b->n, b->c, one_if_0(b->d), b->h, b->w, b->k, one_if_0(b->t), b->r, b->s,
                           b->pad_d, b->pad_h, b->pad_w, one_if_0(b->stride_d), one_if_0(b->stride_h),
                           one_if_0(b->stride_w), one_if_0(b->dil_d), one_if_0(b->dil_h),
                           one_if_0(b->dil_w), one_if_0(b->groups) };
    return memcmp(va, vb, sizeof va) == 0;
}

/* ------------------------------------------------------------------ */
/* Categories                                                          */

struct lrow {
    double x[KERNEL_DIMS_MAX];
    double y;                   /* log rate */
    double lo, hi;              /* log(p05/time), log(p95/time); NAN if absent */
    const struct kernel_row *row;
    double time_s;
};

struct lcat {
    struct lkey key;            /* op/mode point into the table's rows */
    enum precision prec;
    int n_axes;
    struct lrow *rows;
    size_t n, alloc;
    double box_lo[KERNEL_DIMS_MAX], box_hi[KERNEL_DIMS_MAX];
    double min_time_s, max_rate;
    /* dense and grouped conv: the filter volumes measured per number of
     * spatial dimensions (filter_hi 0: none).  The implicit-GEMM axes put
     * a 5x5x5 filter beside a 3x3x3 one of more channels, but cuDNN
     * chooses among algorithms by filter size (Winograd and FFT variants
     * exist for some sizes only): rows of other filter volumes do not
     * measure it.  Depthwise convolutions run direct kernels whose work
     * grows with the filter's volume, which their axes hold. */
    double filter_lo[4], filter_hi[4];
};

struct lindex {
    unsigned char built[KERNEL_KIND_COUNT][PREC_COUNT];
    struct lcat *cats;
    size_t n, alloc;
};

void kernel_lookup_index_free(void *p)
{
    struct lindex *ix = p;
    if (!ix)
        return;
    for (size_t i = 0; i < ix->n; i++)
        free(ix->cats[i].rows);
    free(ix->cats);
    free(ix);
}

static struct lcat *cat_find(const struct lindex *ix, enum precision p, const struct lkey *k)
{
    for (size_t i = 0; i < ix->n; i++)
        if (ix->cats[i].prec == p && key_eq(&ix->cats[i].key, k))
            return &ix->cats[i];
    return NULL;
}

static double log_ratio(double part, double whole)
{
    return part > 0 && whole > 0 ? log(part / whole) : NAN;
}

/* File slot `slot` of r, at point pt, in pt's category. */
static void cat_put(struct lindex *ix, const struct kernel_row *r, int slot, const struct lpoint *pt)
{
    double time_s = r->time_s[slot];
    struct lcat *c = cat_find(ix, r->prec, &pt->key);
    if (!c) {
        ALLOC_GROW(ix->cats, ix->n + 1, ix->alloc);
        c = &ix->cats[ix->n++];
        memset(c, 0, sizeof *c);
        c->key = pt->key;
        c->prec = r->prec;
        c->n_axes = pt->n_axes;
    }
    ALLOC_GROW(c->rows, c->n + 1, c->alloc);
    struct lrow *lr = &c->rows[c->n++];
    memcpy(lr->x, pt->x, sizeof lr->x);
    lr->y = log(pt->work / time_s);
    /* p05/p95 describe the row's first timed pass (kernel_row). */
    int first = r->time_s[0] > 0 ? 0 : r->time_s[1] > 0 ? 1 : 2;
    lr->lo = slot == first ? log_ratio(r->time_lo_s, time_s) : NAN;
    lr->hi = slot == first ? log_ratio(r->time_hi_s, time_s) : NAN;
    lr->row = r;
    lr->time_s = time_s;
    for (int a = 0; a < c->n_axes; a++) {
        if (c->n == 1 || pt->x[a] < c->box_lo[a])
            c->box_lo[a] = pt->x[a];
        if (c->n == 1 || pt->x[a] > c->box_hi[a])
            c->box_hi[a] = pt->x[a];
    }
    if (c->key.kind == KERNEL_CONV && c->key.cls != 1) {
        int d = pt->dims;
        if (!(c->filter_hi[d] > 0) || pt->filter < c->filter_lo[d])
            c->filter_lo[d] = pt->filter;
        if (pt->filter > c->filter_hi[d])
            c->filter_hi[d] = pt->filter;
    }
    if (c->n == 1 || time_s < c->min_time_s)
        c->min_time_s = time_s;
    if (exp(lr->y) > c->max_rate)
        c->max_rate = exp(lr->y);
}

/* Add slot `slot` of r to its category (any_op: to the category of
 * elementwise rows of every op instead).  A dense 1-D convolution row
 * goes to the other dense convolutions' category too: a 1-D query's
 * neighbours are 1-D rows only, but the 2-D and 3-D queries keep every
 * dense row as a neighbour, as before the 1-D rows had a category
 * (taking the 1-D rows from them moved 3-D estimates both ways, from no
 * measurement of theirs). */
static void cat_add(struct lindex *ix, const struct kernel_row *r, int slot, int any_op)
{
    struct kernel_query q;
    struct lpoint pt;
    row_query(r, slot, &q);
    if (!(r->time_s[slot] > 0) || query_point(&q, &pt) != 0 || !(pt.work > 0))
        return;
    if (any_op)
        pt.key.op = NULL;
    cat_put(ix, r, slot, &pt);
    if (pt.key.kind == KERNEL_CONV && pt.key.cls == CONV_CLS_1D) {
        pt.key.cls = 0;
        cat_put(ix, r, slot, &pt);
    }
}

/* Categories of one kind and precision, built on first use from the
 * table's distinct keys (the row added last wins, as for exact hits). */
static struct lindex *index_for(const struct kernel_table *t, enum kernel_kind kind, enum precision p)
{
    struct lindex *ix = t->lookup_index;
    if (!ix)
        ix = ((struct kernel_table *)t)->lookup_index = xcalloc(1, sizeof *ix);
    if (ix->built[kind][p])
        return ix;
    ix->built[kind][p] = 1;
    size_t n;
    const size_t *rows = kernel_table_keys(t, kind, p, &n);
    for (size_t i = 0; i < n; i++) {
        const struct kernel_row *r = &t->rows[rows[i]];
        for (int slot = 0; slot < (kind == KERNEL_CONV ? CONV_PASS_COUNT : 1); slot++)
            cat_add(ix, r, slot, 0);
        if (kind == KERNEL_ELTWISE && r->op)
            cat_add(ix, r, 0, 1);
    }
    return ix;
}

/* ------------------------------------------------------------------ */
/* Estimate                                                            */

struct lknn {
    int k, n;
    double d2[LK_KNN_MAX];
    size_t at[LK_KNN_MAX];
};

static void lknn_offer(struct lknn *h, double d2, size_t at)
{
    if (h->n == h->k && d2 >= h->d2[h->n - 1])
        return;
    int i = h->n < h->k ? h->n++ : h->n - 1;
    while (i > 0 && h->d2[i - 1] > d2) {
        h->d2[i] = h->d2[i - 1];
        h->at[i] = h->at[i - 1];
        i--;
    }
    h->d2[i] = d2;
    h->at[i] = at;
}

/* Weighted ridge plane of the log rate around x0 (D axes, D+1 unknowns);
 * 0 and the fitted value at x0 in *y, or -1 when singular. */
static int lplane(const struct lcat *c, const struct lknn *h, const double *w, const double *x0,
                  double *y)
{
    enum { U = KERNEL_DIMS_MAX + 1 };
    int u = c->n_axes + 1;
    double a[U * U] = { 0 }, b[U] = { 0 }, sol[U];
    double wsum = 0;
    for (int i = 0; i < h->n; i++) {
        const struct lrow *r = &c->rows[h->at[i]];
        double v[U] = { 1 };
        for (int d = 0; d < c->n_axes; d++)
            v[d + 1] = r->x[d] - x0[d];
        for (int p = 0; p < u; p++) {
            for (int q = 0; q < u; q++)
                a[p * u + q] += w[i] * v[p] * v[q];
            b[p] += w[i] * v[p] * r->y;
        }
        wsum += w[i];
    }
    for (int p = 1; p < u; p++)
        a[p * u + p] += LK_RIDGE * wsum;
    gsl_matrix_view am = gsl_matrix_view_array(a, (size_t)u, (size_t)u);
    gsl_vector_view bv = gsl_vector_view_array(b, (size_t)u);
    gsl_vector_view sv = gsl_vector_view_array(sol, (size_t)u);
    if (gsl_linalg_cholesky_decomp1(&am.matrix) != 0 ||
        gsl_linalg_cholesky_solve(&am.matrix, &bv.vector, &sv.vector) != 0 || !isfinite(sol[0]))
        return -1;
    *y = sol[0];
    return 0;
}

static int lk_knn(const struct lcat *c)
{
    int k = 2 * (c->n_axes + 1);
    if (k < LK_KNN)
        k = LK_KNN;
    if (k > LK_KNN_MAX)
        k = LK_KNN_MAX;
    return (size_t)k < c->n ? k : (int)c->n;
}

/* Distance and hull of pt in c (hit->distance, outside, n_axes). */
static void cat_where(const struct lcat *c, const struct lpoint *pt, const struct lknn *h,
                      struct kernel_hit *hit)
{
    hit->distance = sqrt(h->d2[0]);
    hit->n_axes = c->n_axes;
    int out = 0;
    for (int a = 0; a < c->n_axes; a++) {
        hit->outside[a] = (signed char)(pt->x[a] < c->box_lo[a] - 1e-9 ? -1
                                        : pt->x[a] > c->box_hi[a] + 1e-9 ? 1 : 0);
        out |= hit->outside[a] != 0;
    }
    hit->method = out ? LOOKUP_EXTRAP : LOOKUP_INTERP;
    if (c->key.kind == KERNEL_CONV && c->key.cls != 1
        && !(pt->filter >= c->filter_lo[pt->dims] * (1 - 1e-9)
             && pt->filter <= c->filter_hi[pt->dims] * (1 + 1e-9))) {
        hit->filter_unmeasured = 1;
        hit->method = LOOKUP_EXTRAP;
    }
}

/* The time of pt from the rows h of c (the method's plane, clamps and
 * spread; see the top of this file). */
static void cat_estimate(const struct lcat *c, const struct lpoint *pt, const struct lknn *h,
                         struct kernel_hit *hit)
{
    double w[LK_KNN_MAX], wsum = 0, y = 0, y_lo = INFINITY, y_hi = -INFINITY;
    int n_same = 0;
    for (int i = 0; i < h->n; i++)
        n_same += h->d2[i] < LK_SAME_D2;
    for (int i = 0; i < h->n; i++) {
        double yi = c->rows[h->at[i]].y;
        /* Rows on the query's point (conv shapes of equal implicit GEMMs)
         * are averaged; no plane through them. */
        w[i] = n_same ? h->d2[i] < LK_SAME_D2 : 1.0 / h->d2[i];
        wsum += w[i];
        y += w[i] * yi;
        y_lo = fmin(y_lo, yi);
        y_hi = fmax(y_hi, yi);
    }
    y /= wsum;
    double yf;
    if (!n_same && h->n >= c->n_axes + 1 && lplane(c, h, w, pt->x, &yf) == 0)
        y = fmin(fmax(yf, y_lo - log(LK_SPAN)), y_hi + log(LK_SPAN));
    double rate = fmin(exp(y), c->max_rate);
    double time_s = fmax(pt->work / rate, c->min_time_s);
    double lo = 0, hi = 0, wlo = 0, whi = 0;
    for (int i = 0; i < h->n; i++) {
        const struct lrow *r = &c->rows[h->at[i]];
        if (!isnan(r->lo))
            lo += w[i] * r->lo, wlo += w[i];
        if (!isnan(r->hi))
            hi += w[i] * r->hi, whi += w[i];
    }
    hit->time_s = time_s;
    hit->time_lo_s = wlo > 0 ? time_s * exp(lo / wlo) : 0;
    hit->time_hi_s = whi > 0 ? time_s * exp(hi / whi) : 0;
    hit->neighbours = n_same ? n_same : h->n;
}

/* An exact row among the nearest: same axes and, for conv, the same shape;
 * the row added last wins. */
static const struct lrow *cat_exact(const struct lcat *c, const struct kernel_query *q,
                                    const struct lknn *h)
{
    const struct lrow *best = NULL;
    for (int i = 0; i < h->n && h->d2[i] < LK_SAME_D2; i++) {
        const struct lrow *r = &c->rows[h->at[i]];
        struct kernel_query rq;
        if (q->kind == KERNEL_CONV) {
            row_query(r->row, 0, &rq);
            if (!conv_same(&q->conv, &rq.conv))
                continue;
        }
        if (!best || r->row > best->row)
            best = r;
    }
    return best;
}

/* One lookup in one pass (conv KPASS_BWD is two of these). */
static int lookup_one(const struct kernel_table *t, const struct kernel_query *q, struct kernel_hit *hit)
{
    struct lpoint pt;
    if (query_point(q, &pt) != 0)
        return -1;
    const struct lcat *c = cat_find(index_for(t, q->kind, q->prec), q->prec, &pt.key);
    if (!c || !c->n)
        return -1;
    /* Attention kernels tile the head dimension (FlashAttention's and the
     * memory-efficient kernels' tiles hold 32 to 64 elements of it) and
     * pad a smaller one: on an H200 heads of 16 and 32 ran at 0.86 of the
     * time of heads of 64 in fp32 and 0.72 to 0.81 of it in bf16 (medians
     * over 48 sizes, estimators/h200/h200_attention_hd.csv), not the
     * quarter and half their flops give.  A head below every row's is
     * timed at the smallest the rows measure. */
    if (q->kind == KERNEL_ATTENTION && pt.x[ATT_HEAD_DIM] < c->box_lo[ATT_HEAD_DIM] - 1e-9) {
        pt.work *= exp(c->box_lo[ATT_HEAD_DIM] - pt.x[ATT_HEAD_DIM]);
        pt.x[ATT_HEAD_DIM] = c->box_lo[ATT_HEAD_DIM];
        hit->head_padded = 1;
    }
    struct lknn h = { .k = lk_knn(c) };
    for (size_t i = 0; i < c->n; i++) {
        double d2 = 0;
        for (int a = 0; a < c->n_axes; a++)
            d2 += (c->rows[i].x[a] - pt.x[a]) * (c->rows[i].x[a] - pt.x[a]);
        lknn_offer(&h, d2, i);
    }
    cat_where(c, &pt, &h, hit);
    const struct lrow *ex = hit->head_padded ? NULL : cat_exact(c, q, &h);
    if (ex) {
        hit->time_s = ex->time_s;
        hit->time_lo_s = isnan(ex->lo) ? 0 : ex->time_s * exp(ex->lo);
        hit->time_hi_s = isnan(ex->hi) ? 0 : ex->time_s * exp(ex->hi);
        hit->method = LOOKUP_EXACT;
        hit->neighbours = 1;
        hit->row = ex->row;
        return 0;
    }
    cat_estimate(c, &pt, &h, hit);
    return 0;
}

/* Plain GEMMs: kernel_table_gemm's time, this file's distance and hull. */
static int lookup_gemm(const struct kernel_table *t, const struct kernel_query *q, struct kernel_hit *hit)
{
    struct kernel_estimate e;
    if (lookup_one(t, q, hit) != 0)
        return -1;
    if (kernel_table_gemm(t, q->prec, q->m, q->n, q->k, q->a_t, q->b_t, &e) != 0)
        return -1;
    hit->time_s = e.time_s;
    hit->time_lo_s = e.time_lo_s;
    hit->time_hi_s = e.time_hi_s;
    hit->neighbours = e.neighbours;
    if (e.method == LOOKUP_EXACT)
        return 0;
    /* The shape in another orientation, or an interpolation. */
    hit->row = NULL;
    if (hit->method == LOOKUP_EXACT)
        hit->method = LOOKUP_INTERP;
    return 0;
}

/* Elementwise ops of any op: kernel_table_stream's time (the monotone
 * bandwidth curve over every op), this file's distance and hull. */
static int lookup_stream(const struct kernel_table *t, const struct kernel_query *q,
                         struct kernel_hit *hit)
{
    struct kernel_estimate e;
    if (lookup_one(t, q, hit) != 0)
        return -1;
    if (kernel_table_stream(t, q->prec, q->bytes, &e) != 0)
        return -1;
    hit->time_s = e.time_s;
    hit->time_lo_s = e.time_lo_s;
    hit->time_hi_s = e.time_hi_s;
    hit->neighbours = e.neighbours;
    hit->row = NULL;
    if (hit->method == LOOKUP_EXACT)
        hit->method = LOOKUP_INTERP;    /* a curve over every op, not one row */
    return 0;
}

static void hit_add(struct kernel_hit *acc, const struct kernel_hit *h)
{
    acc->time_s += h->time_s;
    acc->time_lo_s += h->time_lo_s > 0 ? h->time_lo_s : h->time_s;
    acc->time_hi_s += h->time_hi_s > 0 ? h->time_hi_s : h->time_s;
    acc->neighbours += h->neighbours;
    acc->distance = fmax(acc->distance, h->distance);
    acc->n_axes = h->n_axes;
    for (int a = 0; a < KERNEL_DIMS_MAX; a++)
        acc->outside[a] = acc->outside[a] ? acc->outside[a] : h->outside[a];
    acc->filter_unmeasured |= h->filter_unmeasured;
    if (h->method > acc->method)
        acc->method = h->method;    /* the weakest of the two names the whole */
}

int kernel_table_lookup(const struct kernel_table *t, const struct kernel_query *q,
                        struct kernel_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    hit->method = LOOKUP_NONE;
    hit->distance = -1;
    int rc = -1;
    if (!t || !q || (unsigned)q->kind >= KERNEL_KIND_COUNT || (unsigned)q->prec >= PREC_COUNT ||
        (unsigned)q->pass >= KPASS_COUNT)
        return -1;
    if (q->kind == KERNEL_CONV && q->pass == KPASS_BWD) {
        struct kernel_query one = *q;
        struct kernel_hit a, b;
        one.pass = KPASS_BWD_DATA;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        if (lookup_one(t, &one, &a) == 0 && (one.pass = KPASS_BWD_WEIGHT, lookup_one(t, &one, &b) == 0)) {
            hit->distance = 0;
            hit->method = LOOKUP_EXACT;
            hit_add(hit, &a);
            hit_add(hit, &b);
            rc = 0;
        }
    } else if (q->kind == KERNEL_GEMM && q->batch <= 1) {
        rc = lookup_gemm(t, q, hit);
    } else if (q->kind == KERNEL_ELTWISE && !q->op) {
        rc = lookup_stream(t, q, hit);
    } else {
        rc = lookup_one(t, q, hit);
    }
    if (rc != 0) {
        memset(hit, 0, sizeof *hit);
        hit->method = LOOKUP_NONE;
        hit->distance = -1;
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* Ops of a profile                                                    */

int kernel_query_from_op(const struct op *o, enum kernel_pass pass, struct kernel_query *q)
{
    memset(q, 0, sizeof *q);
    q->prec = o->dtype;
    q->pass = pass;
    switch (o->kind) {
    case OP_GEMM:
        q->kind = KERNEL_GEMM;
        q->pass = KPASS_FWD;
        q->m = o->m, q->n = o->n, q->k = o->k, q->batch = o->batch;
        q->a_t = o->a_t, q->b_t = o->b_t;
        return o->m > 0 && o->n > 0 && o->k > 0 ? 0 : -1;
    case OP_CONV:
        q->kind = KERNEL_CONV;
        q->conv = *op_conv(o);
        /* the rows of its memory layout (kernel_row.flag) */
        q->flag = op_has_flag(o, "channels-last");
        return q->conv.n > 0 && q->conv.c > 0 && q->conv.k > 0 ? 0 : -1;
    case OP_ELEMENTWISE:
    case OP_REDUCTION:
        q->kind = KERNEL_ELTWISE;
        q->pass = KPASS_FWD;
        q->bytes = o->count > 0 ? o->bytes / o->count : 0;
        return q->bytes >= 1 ? 0 : -1;
    case OP_RNN: q->kind = KERNEL_RNN; break;
    case OP_ATTENTION: q->kind = KERNEL_ATTENTION; break;
    case OP_NORM: q->kind = KERNEL_NORM; break;
    case OP_EMBEDDING: q->kind = KERNEL_EMBEDDING; break;
    default: return -1;
    }
    int n;
    kernel_kind_dims(q->kind, &n);
    memcpy(q->dim, op_sizes(o)->kdim, sizeof q->dim);
    if (q->kind == KERNEL_NORM && q->dim[NORM_GROUPS] <= 0)
        q->dim[NORM_GROUPS] = 1;
    q->op = op_sizes(o)->kop[0] ? op_sizes(o)->kop : NULL;
    /* a recurrent call's kmode is its stack, not a row's mode */
    q->mode = op_sizes(o)->kmode[0] && q->kind != KERNEL_RNN ? op_sizes(o)->kmode : NULL;
    /* An attention op whose causal flag the trace does not give is looked
     * up as not causal: the full score matrix, the longer of the two. */
    q->flag = o->kflag > 0;
    if (q->kind == KERNEL_RNN && o->kflag < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (q->dim[i] <= 0)
            return -1;
    return 0;
}

/* The row of t nearest to convolution cs (in log sizes of batch,
 * channels, filters and input points) among the rows of precision p,
 * cs's groups, spatial dimensions, filter, strides and dilations, layout
 * flag channels_last, that time pass `pass`; its shape in *row_shape.
 * NULL when there is none. */
const struct kernel_row *kernel_table_nearest_conv(const struct kernel_table *t, enum precision p,
                                                   const struct conv_shape *cs, int channels_last,
                                                   enum conv_pass pass, struct conv_shape *row_shape)
{
    const struct kernel_row *best = NULL;
    double best_d2 = INFINITY;
    double pts = (double)one_if_0(cs->d) * (double)cs->h * (double)cs->w;
    int dims = cs->dims > 0 ? cs->dims : 2;
    for (size_t i = 0; i < t->n_rows; i++) {
        const struct kernel_row *r = &t->rows[i];
        if (r->kind != KERNEL_CONV || r->prec != p || one_if_0(r->groups) != one_if_0(cs->groups) ||
            (r->dims > 0 ? r->dims : 2) != dims || r->flag != channels_last || r->r != cs->r ||
            r->s != cs->s || one_if_0(r->t) != one_if_0(cs->t) ||
            one_if_0(r->stride_h) != one_if_0(cs->stride_h) ||
            one_if_0(r->stride_w) != one_if_0(cs->stride_w) ||
            one_if_0(r->stride_d) != one_if_0(cs->stride_d) || one_if_0(r->dil_h) != one_if_0(cs->dil_h) ||
            one_if_0(r->dil_w) != one_if_0(cs->dil_w) || one_if_0(r->dil_d) != one_if_0(cs->dil_d) ||
            !(r->time_s[pass] > 0) || r->n_ < 1 || r->c < 1 || r->kf < 1 || r->h < 1 || r->w < 1)
            continue;
        double a[4] = { log((double)r->n_ / (double)cs->n), log((double)r->c / (double)cs->c),
                        log((double)r->kf / (double)cs->k),
                        log((double)one_if_0(r->d) * (double)r->h * (double)r->w / pts) };
        double d2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3];
        if (d2 < best_d2) {
            best_d2 = d2;
            best = r;
        }
    }
    if (best) {
        struct kernel_query q;
        row_query(best, (int)pass, &q);
        *row_shape = q.conv;
    }
    return best;
}
