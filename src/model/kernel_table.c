/* Lookups in measured kernel tables: exact hits, interpolation in log
 * space, and the bandwidth curve of memory-bound ops.
 *
 * What the model assumes, and why:
 *  - A GEMM's achieved rate (FLOP/s) is a smooth function of log m, log n,
 *    log k; its time is not (it spans six decades), so we interpolate the
 *    rate and derive time = flops / rate.  Near a query the rate is fitted
 *    as a plane in (log m, log n, log k) by weighted least squares over the
 *    nearest rows (inverse squared distance weights, a ridge term pulling
 *    the slopes towards zero so that a degenerate neighbourhood -- all rows
 *    on one line, as in DeepBench's batch sweeps -- still has an answer).
 *  - At the edges the plane is clamped: the rate never exceeds the largest
 *    rate the table shows for that precision (no hardware gets faster past
 *    the measured sizes) and the time never drops below the table's
 *    smallest time (small kernels are launch/latency bound).
 *  - Orientation: the transposes change a GEMM's time by a few percent on
 *    the tables we have, far less than the interpolation error, so
 *    neighbours are taken regardless of orientation.  A shape present only
 *    in another orientation is used as is and reported as "interp" with one
 *    neighbour.  A query with unknown transposes (0) takes the shape in any
 *    orientation (N,N first) and counts as exact.
 *  - Conv: an exact hit per pass, otherwise its implicit-GEMM shape
 *    (M = N*P*Q, N = K, K = C*R*S) interpolated over the conv rows of that
 *    pass, whose rates are cuDNN's, not cuBLAS's.  Grouped convolutions
 *    have no rows to learn from: -1, the estimator uses its fallback.
 *  - Stream: achieved bandwidth against log bytes, piecewise linear between
 *    the measured points (which keeps the curve monotone wherever the data
 *    are), constant bandwidth past the largest size, and constant time
 *    (latency) below the smallest one.
 *
 * The index is built lazily on the first lookup of each (kind, precision,
 * pass); lookups take a const table and cast that away to store it, which
 * is safe because fom is single-threaded and the index is invisible. */
#include "model/kernel_table.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_linalg.h>

#include "core/xalloc.h"
#include "model/ops.h"

#define KNN_MAX 16
/* Neighbours, ridge and span were chosen by leave-one-out on the H100/H200
 * GEMM tables (tests/unit/u-kernels.c): with 8 neighbours, ridge 0.002
 * and alignment classes the medians are 4-9% per precision, p90 15-26%,
 * max 60-144%.  6..16 neighbours and ridges up to 0.02 are within a point
 * of that; a plain inverse-distance mean of the rates (no plane) doubles
 * the median; without alignment classes the bf16/fp16 p90 is ~40% (large
 * aligned shapes took slow misaligned neighbours). */
#ifndef KNN_DEFAULT
#define KNN_DEFAULT 8
#endif
/* Ridge on the plane's slopes, relative to the total weight. */
#ifndef RIDGE
#define RIDGE 0.002
#endif
#ifndef PLANE_SPAN
#define PLANE_SPAN 1.5
#endif
/* Points closer than this (in log units) are the same shape. */
#define SAME_SHAPE_D2 1e-12

struct kpt {
    double x[3];        /* log m, log n, log k */
    double y;           /* log rate (FLOP/s) */
    double lo, hi;      /* log(time_lo/time), log(time_hi/time); NAN if absent */
    int cls;            /* alignment class (group_class) */
    size_t id;          /* position in the group's pts (insertion order) */
};

/* Rows of one (kind, precision, pass) ready for lookup. */
struct kgroup {
    int built;
    size_t n;
    struct kpt *pts;    /* k-d tree in implicit form (median of each range) */
    /* The same points split by alignment class (kernel_table_gemm_class),
     * each a k-d tree: tensor-core kernels need dimensions in multiples of
     * 16 bytes, a misaligned GEMM runs several times slower than its
     * aligned neighbours and an odd-sized one slower still, so a query
     * takes neighbours of its own class when there are enough. */
    struct kpt *cls[3];
    size_t n_cls[3];
    /* per class, at each inner node's median: the best log rate of its
     * subtree (kd_floor's pruning) */
    double *sub_max[3];
    /* The best rate of the rows of alignment class c or a worse one
     * (kernel_table_gemm_class; c < 2) and how many rows those are: a
     * kernel that runs a GEMM of one class runs any better aligned one, so
     * those rows show what a call of class c reaches. */
    double max_rate_at[2];
    size_t n_at[2];
    int elem_b;         /* bytes per element (GEMM groups; 0 in the convolution ones) */
    enum precision prec;
    double min_time_s;
    double max_rate;
    double box_lo[3], box_hi[3];
    int64_t n_lo, n_hi;     /* conv rows: range of their batch n */
};

/* Stream curve of one precision. */
struct kcurve {
    int built;
    size_t n;
    double *lb;         /* log bytes, increasing */
    double *lbw;        /* log bandwidth (B/s) */
    double *lo, *hi;    /* spread as in kpt, NAN if absent */
    double min_time_s;
};

/* Exact lookup: row indices of one (kind, precision) sorted by key, with
 * duplicates removed (the row added last wins). */
struct kkeys {
    int built;
    size_t n;
    size_t *rows;
};

/* A dilated convolution row beside its undilated twin of the same run
 * (measure.py --grid dilated): where it lies and what the dilation cost. */
struct kdil {
    int dims;
    double x[3];                /* log m, n, k of the implicit GEMM */
    double ldil;                /* log of the dilation (the largest axis's) */
    double lr;                  /* log(time dilated / time undilated) */
};

struct kdilset {
    int built;
    size_t n;
    struct kdil *pts;
};

struct kindex {
    /* Row indices grouped by (kind, precision), ascending within each
     * group: one pass over the rows for every group at once, where a
     * pass per group read a 100k-row table once for each of the tens of
     * groups an estimate asks for. */
    int grouped;
    size_t *by_group;
    size_t group_start[KERNEL_KIND_COUNT * PREC_COUNT + 1];
    struct kkeys keys[KERNEL_KIND_COUNT][PREC_COUNT];
    struct kgroup gemm[PREC_COUNT];
    struct kgroup conv[PREC_COUNT][CONV_PASS_COUNT][CONV_LAYOUT_COUNT];
    int conv_layouts[PREC_COUNT];   /* kernel_table_conv_layouts + 1, 0 not yet known */
    struct kdilset dil[PREC_COUNT][CONV_PASS_COUNT];
    struct kcurve stream[PREC_COUNT];
};

static const char *const kind_names[KERNEL_KIND_COUNT] = {
    "gemm", "conv", "eltwise", "rnn", "attention", "norm", "embedding", "optimizer", "comm",
    "resample",
};

const char *kernel_kind_name(enum kernel_kind k)
{
    return (unsigned)k < KERNEL_KIND_COUNT ? kind_names[k] : "unknown";
}

enum kernel_kind kernel_kind_parse(const char *s)
{
    for (int i = 0; s && i < KERNEL_KIND_COUNT; i++)
        if (strcmp(s, kind_names[i]) == 0)
            return (enum kernel_kind)i;
    return KERNEL_KIND_COUNT;
}

const char *lookup_method_name(enum lookup_method m)
{
    switch (m) {
    case LOOKUP_EXACT: return "exact";
    case LOOKUP_INTERP: return "interp";
    case LOOKUP_EXTRAP: return "extrap";
    default: return "none";
    }
}

/* ------------------------------------------------------------------ */
/* Table and set ownership                                             */

void kernel_table_init(struct kernel_table *t)
{
    memset(t, 0, sizeof *t);
}

static void group_release(struct kgroup *g)
{
    free(g->pts);
    for (int c = 0; c < 3; c++) {
        free(g->cls[c]);
        free(g->sub_max[c]);
    }
}

static void index_free(struct kindex *ix)
{
    if (!ix)
        return;
    free(ix->by_group);
    for (int k = 0; k < KERNEL_KIND_COUNT; k++)
        for (int p = 0; p < PREC_COUNT; p++)
            free(ix->keys[k][p].rows);
    for (int p = 0; p < PREC_COUNT; p++) {
        group_release(&ix->gemm[p]);
        for (int c = 0; c < CONV_PASS_COUNT; c++)
            for (int l = 0; l < CONV_LAYOUT_COUNT; l++)
                group_release(&ix->conv[p][c][l]);
        for (int c = 0; c < CONV_PASS_COUNT; c++)
            free(ix->dil[p][c].pts);
        free(ix->stream[p].lb);
        free(ix->stream[p].lbw);
        free(ix->stream[p].lo);
        free(ix->stream[p].hi);
    }
    free(ix);
}

void kernel_table_reindex(struct kernel_table *t)
{
    index_free(t->index);
    t->index = NULL;
    kernel_lookup_index_free(t->lookup_index);
    t->lookup_index = NULL;
}

struct kernel_row *kernel_table_add(struct kernel_table *t)
{
    kernel_table_reindex(t);
    ALLOC_GROW(t->rows, t->n_rows + 1, t->alloc_rows);
    struct kernel_row *r = &t->rows[t->n_rows++];
    memset(r, 0, sizeof *r);
    r->prec = PREC_UNKNOWN;
    return r;
}

void kernel_table_release(struct kernel_table *t)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        free(t->rows[i].op);
        free(t->rows[i].mode);
        free(t->rows[i].source);
    }
    free(t->rows);
    free(t->hw);
    free(t->origin);
    free(t->software);
    kernel_table_reindex(t);
    memset(t, 0, sizeof *t);
}

void kernel_set_init(struct kernel_set *s)
{
    memset(s, 0, sizeof *s);
}

void kernel_set_release(struct kernel_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        kernel_table_release(&s->tables[i]);
    free(s->tables);
    memset(s, 0, sizeof *s);
}

const struct kernel_table *kernel_set_find(const struct kernel_set *s, const char *hw)
{
    if (!hw)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->tables[i].hw && strcasecmp(s->tables[i].hw, hw) == 0)
            return &s->tables[i];
    return NULL;
}

struct kernel_table *kernel_set_get(struct kernel_set *s, const char *hw)
{
    struct kernel_table *t = (struct kernel_table *)kernel_set_find(s, hw);
    if (t)
        return t;
    ALLOC_GROW(s->tables, s->n + 1, s->alloc);
    t = &s->tables[s->n++];
    kernel_table_init(t);
    t->hw = xstrdup(hw ? hw : "unknown");
    return t;
}

void kernel_set_take(struct kernel_set *dst, struct kernel_set *src)
{
    for (size_t i = 0; i < src->n; i++) {
        struct kernel_table *st = &src->tables[i];
        struct kernel_table *dt = kernel_set_get(dst, st->hw);
        kernel_table_reindex(dt);
        ALLOC_GROW(dt->rows, dt->n_rows + st->n_rows, dt->alloc_rows);
        memcpy(dt->rows + dt->n_rows, st->rows, st->n_rows * sizeof *st->rows);
        dt->n_rows += st->n_rows;
        st->n_rows = 0;
        if (!dt->origin) {
            dt->origin = st->origin;
            st->origin = NULL;
        } else if (st->origin && !strstr(dt->origin, st->origin)) {
            size_t a = strlen(dt->origin), b = strlen(st->origin);
            char *o = xmalloc(a + b + 3);
            memcpy(o, dt->origin, a);
            memcpy(o + a, "; ", 2);
            memcpy(o + a + 2, st->origin, b + 1);
            free(dt->origin);
            dt->origin = o;
        }
        if (!dt->software) {
            dt->software = st->software;
            st->software = NULL;
        }
    }
    kernel_set_release(src);
}

/* ------------------------------------------------------------------ */
/* Exact keys                                                          */

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* Orientation-free part of the key first, so that all orientations of a
 * shape are adjacent. */
static int gemm_key_cmp(const struct kernel_row *a, const struct kernel_row *b)
{
    int c;
    if ((c = cmp_i64(a->m, b->m)) || (c = cmp_i64(a->n, b->n)) || (c = cmp_i64(a->k, b->k)))
        return c;
    if ((c = (a->a_t > b->a_t) - (a->a_t < b->a_t)))
        return c;
    return (a->b_t > b->b_t) - (a->b_t < b->b_t);
}

/* Which passes a conv row times (bit per conv_pass): rows of the older
 * form hold all three, rows of the form with a pass column one each, and
 * both may be in a table for the same shape. */
static int conv_pass_mask(const struct kernel_row *r)
{
    return (r->time_s[0] > 0) | (r->time_s[1] > 0) << 1 | (r->time_s[2] > 0) << 2;
}

static int64_t one_if_0(int64_t v)
{
    return v > 0 ? v : 1;
}

static int conv_key_cmp(const struct kernel_row *a, const struct kernel_row *b)
{
    int c;
    if ((c = cmp_i64(a->n_, b->n_)) || (c = cmp_i64(a->c, b->c)) || (c = cmp_i64(a->h, b->h)) ||
        (c = cmp_i64(a->w, b->w)) || (c = cmp_i64(a->kf, b->kf)) || (c = cmp_i64(a->r, b->r)) ||
        (c = cmp_i64(a->s, b->s)) || (c = cmp_i64(a->pad_h, b->pad_h)) ||
        (c = cmp_i64(a->pad_w, b->pad_w)) || (c = cmp_i64(a->stride_h, b->stride_h)) ||
        (c = cmp_i64(a->stride_w, b->stride_w)))
        return c;
    const int64_t ea[] = { one_if_0(a->d), one_if_0(a->t), a->pad_d, one_if_0(a->stride_d),
                           one_if_0(a->dil_d), one_if_0(a->dil_h), one_if_0(a->dil_w),
                           one_if_0(a->groups), a->dims == 0 ? 2 : a->dims };
    const int64_t eb[] = { one_if_0(b->d), one_if_0(b->t), b->pad_d, one_if_0(b->stride_d),
                           one_if_0(b->dil_d), one_if_0(b->dil_h), one_if_0(b->dil_w),
                           one_if_0(b->groups), b->dims == 0 ? 2 : b->dims };
    for (size_t i = 0; i < sizeof ea / sizeof ea[0]; i++)
        if ((c = cmp_i64(ea[i], eb[i])))
            return c;
    if ((c = a->flag - b->flag))    /* contiguous, then channels-last */
        return c;
    /* A probe with mask 0 sorts before every pass mask of its shape. */
    return conv_pass_mask(a) - conv_pass_mask(b);
}

static int conv_same_shape(const struct kernel_row *a, const struct kernel_row *b)
{
    struct kernel_row x = *a;
    memcpy(x.time_s, b->time_s, sizeof x.time_s);
    return conv_key_cmp(&x, b) == 0;
}

static int eltwise_key_cmp(const struct kernel_row *a, const struct kernel_row *b)
{
    int c = strcmp(a->op ? a->op : "", b->op ? b->op : "");
    if (c)
        return c;
    return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

/* rnn .. comm: pass, op, mode (except attention's and comm's backend,
 * which only say what ran), flag, sizes. */
static int dims_key_cmp(const struct kernel_row *a, const struct kernel_row *b)
{
    int c;
    if ((c = (int)a->pass - (int)b->pass))
        return c;
    if ((c = strcmp(a->op ? a->op : "", b->op ? b->op : "")))
        return c;
    if (a->kind != KERNEL_ATTENTION && a->kind != KERNEL_COMM &&
        (c = strcmp(a->mode ? a->mode : "", b->mode ? b->mode : "")))
        return c;
    if ((c = a->flag - b->flag))
        return c;
    for (int i = 0; i < KERNEL_DIMS_MAX; i++)
        if ((c = cmp_i64(a->dim[i], b->dim[i])))
            return c;
    return 0;
}

int kernel_row_key_cmp(const struct kernel_row *a, const struct kernel_row *b)
{
    int c;
    switch (a->kind) {
    case KERNEL_GEMM:
        if ((c = cmp_i64(one_if_0(a->batch), one_if_0(b->batch))))
            return c;
        return gemm_key_cmp(a, b);
    case KERNEL_CONV: return conv_key_cmp(a, b);
    case KERNEL_ELTWISE: return eltwise_key_cmp(a, b);
    default: return dims_key_cmp(a, b);
    }
}

/* Merge sort of row indices by key, stable so that among equal keys the
 * later row stays later (and wins the dedup below). */
static void sort_rows(const struct kernel_row *rows, size_t *ix, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_rows(rows, ix, tmp, h);
    sort_rows(rows, ix + h, tmp, n - h);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = kernel_row_key_cmp(&rows[ix[j]], &rows[ix[i]]) < 0 ? ix[j++] : ix[i++];
    while (i < h)
        tmp[o++] = ix[i++];
    while (j < n)
        tmp[o++] = ix[j++];
    memcpy(ix, tmp, n * sizeof *ix);
}

static struct kindex *index_of(const struct kernel_table *t)
{
    if (!t->index)
        ((struct kernel_table *)t)->index = xcalloc(1, sizeof(struct kindex));
    return t->index;
}

static int row_group(const struct kernel_row *r)
{
    if ((unsigned)r->kind >= KERNEL_KIND_COUNT || (unsigned)r->prec >= PREC_COUNT)
        return -1;
    return (int)r->kind * PREC_COUNT + (int)r->prec;
}

static void group_rows(const struct kernel_table *t, struct kindex *ix)
{
    size_t *start = ix->group_start;
    ix->grouped = 1;
    memset(start, 0, sizeof ix->group_start);
    for (size_t i = 0; i < t->n_rows; i++) {
        int g = row_group(&t->rows[i]);
        if (g >= 0)
            start[g + 1]++;
    }
    for (int g = 0; g < KERNEL_KIND_COUNT * PREC_COUNT; g++)
        start[g + 1] += start[g];
    size_t fill[KERNEL_KIND_COUNT * PREC_COUNT];
    memcpy(fill, start, sizeof fill);
    ix->by_group = xmalloc((start[KERNEL_KIND_COUNT * PREC_COUNT] + 1) * sizeof *ix->by_group);
    for (size_t i = 0; i < t->n_rows; i++) {
        int g = row_group(&t->rows[i]);
        if (g >= 0)
            ix->by_group[fill[g]++] = i;
    }
}

static const struct kkeys *keys_of(const struct kernel_table *t, enum kernel_kind kind,
                                   enum precision p)
{
    struct kindex *index = index_of(t);
    struct kkeys *kk = &index->keys[kind][p];
    if (kk->built)
        return kk;
    kk->built = 1;
    if (!index->grouped)
        group_rows(t, index);
    int g = (int)kind * PREC_COUNT + (int)p;
    size_t n = index->group_start[g + 1] - index->group_start[g];
    if (!n)
        return kk;
    size_t *ix = xmalloc(n * sizeof *ix), *tmp = xmalloc(n * sizeof *tmp);
    memcpy(ix, index->by_group + index->group_start[g], n * sizeof *ix);
    sort_rows(t->rows, ix, tmp, n);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o && kernel_row_key_cmp(&t->rows[ix[o - 1]], &t->rows[ix[i]]) == 0)
            ix[o - 1] = ix[i];
        else
            ix[o++] = ix[i];
    }
    free(tmp);
    kk->rows = ix;
    kk->n = o;
    return kk;
}

const size_t *kernel_table_keys(const struct kernel_table *t, enum kernel_kind kind, enum precision p,
                                size_t *n)
{
    const struct kkeys *kk = keys_of(t, kind, p);
    *n = kk->n;
    return kk->rows;
}

/* Index of the first key >= probe, in [0, n]. */
static size_t keys_lower_bound(const struct kernel_table *t, const struct kkeys *kk,
                               const struct kernel_row *probe, int (*cmp)(const struct kernel_row *,
                                                                          const struct kernel_row *))
{
    size_t lo = 0, hi = kk->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(&t->rows[kk->rows[mid]], probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int same_shape(const struct kernel_row *a, const struct kernel_row *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k;
}

/* ------------------------------------------------------------------ */
/* k-d tree over log shapes                                            */

static void kpt_swap(struct kpt *a, struct kpt *b)
{
    struct kpt t = *a;
    *a = *b;
    *b = t;
}

/* Rearrange p[lo, hi) so that p[nth] holds the value it would have if the
 * range were sorted on axis ax, smaller ones before, larger ones after.
 * Hoare's partition: equal keys (tables repeat each dimension many times)
 * split evenly instead of piling up on one side. */
static void kd_select(struct kpt *p, size_t lo, size_t hi, size_t nth, int ax)
{
    ptrdiff_t l = (ptrdiff_t)lo, h = (ptrdiff_t)hi - 1, t = (ptrdiff_t)nth;
    while (l < h) {
        double pivot = p[l + (h - l) / 2].x[ax];
        ptrdiff_t i = l, j = h;
        while (i <= j) {
            while (p[i].x[ax] < pivot)
                i++;
            while (p[j].x[ax] > pivot)
                j--;
            if (i <= j)
                kpt_swap(&p[i++], &p[j--]);
        }
        /* now [l, j] <= pivot <= [i, h], and (j, i) == pivot */
        if (t <= j)
            h = j;
        else if (t >= i)
            l = i;
        else
            return;
    }
}

/* Ranges this small stay unsorted leaves that a search scans whole:
 * cheaper than splitting them down to single points, both to build and to
 * search. */
#define KD_LEAF 8

/* The best log rate of each inner node's subtree, kept at its median. */
static double kd_sub_max(const struct kpt *p, double *sm, size_t lo, size_t hi, int depth)
{
    double best = -INFINITY;
    if (hi - lo <= KD_LEAF) {
        for (size_t i = lo; i < hi; i++)
            best = fmax(best, p[i].y);
        return best;
    }
    size_t mid = lo + (hi - lo) / 2;
    best = fmax(p[mid].y, fmax(kd_sub_max(p, sm, lo, mid, depth + 1),
                               kd_sub_max(p, sm, mid + 1, hi, depth + 1)));
    sm[mid] = best;
    return best;
}

static int dominated(const struct kpt *pt, const double q[3])
{
    return pt->x[0] <= q[0] + 1e-9 && pt->x[1] <= q[1] + 1e-9 && pt->x[2] <= q[2] + 1e-9;
}

/* The best log rate (*best, raised) of the points no larger than q in any
 * dimension: the subtrees whose best cannot raise it are passed by, and a
 * right subtree (every point at or above its median on the split axis)
 * only where the median lies at or below q. */
static void kd_floor(const struct kpt *p, const double *sm, size_t lo, size_t hi, int depth,
                     const double q[3], double *best)
{
    if (hi - lo <= KD_LEAF) {
        for (size_t i = lo; i < hi; i++)
            if (p[i].y > *best && dominated(&p[i], q))
                *best = p[i].y;
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    if (sm[mid] <= *best)
        return;
    if (p[mid].y > *best && dominated(&p[mid], q))
        *best = p[mid].y;
    int ax = depth % 3;
    kd_floor(p, sm, lo, mid, depth + 1, q, best);
    if (p[mid].x[ax] <= q[ax] + 1e-9)
        kd_floor(p, sm, mid + 1, hi, depth + 1, q, best);
}

static void kd_build(struct kpt *p, size_t lo, size_t hi, int depth)
{
    if (hi - lo <= KD_LEAF)
        return;
    size_t mid = lo + (hi - lo) / 2;
    kd_select(p, lo, hi, mid, depth % 3);
    kd_build(p, lo, mid, depth + 1);
    kd_build(p, mid + 1, hi, depth + 1);
}

struct knn {
    int k, n;
    double d2[KNN_MAX];
    size_t at[KNN_MAX];
};

static void knn_offer(struct knn *h, double d2, size_t at)
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

static void kd_search(const struct kpt *p, size_t lo, size_t hi, int depth, const double q[3],
                      struct knn *h)
{
    if (hi - lo <= KD_LEAF) {
        for (size_t i = lo; i < hi; i++) {
            double e0 = p[i].x[0] - q[0], e1 = p[i].x[1] - q[1], e2 = p[i].x[2] - q[2];
            knn_offer(h, e0 * e0 + e1 * e1 + e2 * e2, p[i].id);
        }
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    int ax = depth % 3;
    double d0 = p[mid].x[0] - q[0], d1 = p[mid].x[1] - q[1], d2 = p[mid].x[2] - q[2];
    knn_offer(h, d0 * d0 + d1 * d1 + d2 * d2, p[mid].id);
    double diff = q[ax] - p[mid].x[ax];
    if (diff < 0) {
        kd_search(p, lo, mid, depth + 1, q, h);
        if (h->n < h->k || diff * diff < h->d2[h->n - 1])
            kd_search(p, mid + 1, hi, depth + 1, q, h);
    } else {
        kd_search(p, mid + 1, hi, depth + 1, q, h);
        if (h->n < h->k || diff * diff < h->d2[h->n - 1])
            kd_search(p, lo, mid, depth + 1, q, h);
    }
}

/* ------------------------------------------------------------------ */
/* Rate groups                                                         */

static double gemm_flops(double m, double n, double k)
{
    return 2.0 * m * n * k;
}

static double log_ratio(double part, double whole)
{
    return part > 0 && whole > 0 ? log(part / whole) : NAN;
}

/* Output size of a convolution along one axis. */
static int64_t conv_out(int64_t in, int64_t pad, int64_t f, int64_t stride, int64_t dil)
{
    if (dil < 1)
        dil = 1;
    if (stride < 1)
        stride = 1;
    int64_t span = dil * (f - 1) + 1;
    if (in + 2 * pad < span)
        return 0;
    return (in + 2 * pad - span) / stride + 1;
}

/* Implicit-GEMM shape of a convolution row. */
static void conv_row_gemm(const struct kernel_row *r, double *m, double *n, double *k)
{
    double p = (double)conv_out(r->h, r->pad_h, r->r, r->stride_h, 1);
    double q = (double)conv_out(r->w, r->pad_w, r->s, r->stride_w, 1);
    *m = (double)r->n_ * p * q;
    *n = (double)r->kf;
    *k = (double)r->c * (double)r->r * (double)r->s;
}

/* The alignment class of an m x n x k GEMM in g (kernel_table_gemm_class);
 * the convolution groups' implicit GEMMs are one class, 2. */
static int group_class(const struct kgroup *g, double m, double n, double k)
{
    if (g->elem_b <= 0)
        return 2;
    return kernel_table_gemm_class(g->prec, kernel_table_gemm_align_bytes(g->elem_b, m, n, k));
}

/* The best rate of g's rows of class c or a worse one; 0 for the aligned
 * class, or with fewer than four such rows (as the neighbours need). */
static double class_cap(const struct kgroup *g, int c)
{
    return c < 2 && g->n_at[c] >= 4 ? g->max_rate_at[c] : 0;
}

static void group_add(struct kgroup *g, double m, double n, double k, double time_s, double lo_s,
                      double hi_s)
{
    if (!(m > 0 && n > 0 && k > 0 && time_s > 0))
        return;
    struct kpt *pt = &g->pts[g->n++];
    pt->id = g->n - 1;
    pt->cls = group_class(g, m, n, k);
    pt->x[0] = log(m);
    pt->x[1] = log(n);
    pt->x[2] = log(k);
    double rate = gemm_flops(m, n, k) / time_s;
    pt->y = log(rate);
    pt->lo = log_ratio(lo_s, time_s);
    pt->hi = log_ratio(hi_s, time_s);
    if (g->n == 1 || time_s < g->min_time_s)
        g->min_time_s = time_s;
    if (rate > g->max_rate)
        g->max_rate = rate;
    for (int a = 0; a < 3; a++) {
        if (g->n == 1 || pt->x[a] < g->box_lo[a])
            g->box_lo[a] = pt->x[a];
        if (g->n == 1 || pt->x[a] > g->box_hi[a])
            g->box_hi[a] = pt->x[a];
    }
}

int kernel_table_gemm_align_bytes(int elem_bytes, double m, double n, double k)
{
    int a = 16;
    const double d[3] = { m, n, k };
    for (int i = 0; i < 3; i++) {
        if (!(d[i] >= 1) || d[i] > 9e15)
            continue;
        /* the largest power of two dividing the row's bytes, to 16 */
        int64_t bytes = (int64_t)d[i] * elem_bytes;
        int64_t low = bytes & -bytes;
        if (low < a)
            a = (int)low;
    }
    return a;
}

int kernel_table_gemm_class(enum precision p, int align_b)
{
    if (p == PREC_FP32)
        return 2;
    return align_b >= 16 ? 2 : align_b >= 4 ? 1 : 0;
}

/* Split the points by alignment class and build a tree per class; pts
 * keeps insertion order, which the trees' ids refer to.  The whole table's
 * neighbours are the merge of the classes' (see group_estimate), so no
 * tree of all is needed. */
static void group_finish(struct kgroup *g)
{
    for (int c = 0; c < 3; c++) {
        g->cls[c] = xmalloc((g->n ? g->n : 1) * sizeof *g->cls[c]);
        g->n_cls[c] = 0;
    }
    for (int a = 0; a < 2; a++) {
        g->max_rate_at[a] = 0;
        g->n_at[a] = 0;
    }
    for (size_t i = 0; i < g->n; i++) {
        int c = g->pts[i].cls;
        g->cls[c][g->n_cls[c]++] = g->pts[i];
        double rate = exp(g->pts[i].y);
        for (int a = c; a < 2; a++) {
            g->n_at[a]++;
            if (rate > g->max_rate_at[a])
                g->max_rate_at[a] = rate;
        }
    }
    for (int c = 0; c < 3; c++) {
        kd_build(g->cls[c], 0, g->n_cls[c], 0);
        g->sub_max[c] = xmalloc((g->n_cls[c] ? g->n_cls[c] : 1) * sizeof *g->sub_max[c]);
        kd_sub_max(g->cls[c], g->sub_max[c], 0, g->n_cls[c], 0);
    }
}

static const struct kgroup *gemm_group(const struct kernel_table *t, enum precision p)
{
    struct kgroup *g = &index_of(t)->gemm[p];
    if (g->built)
        return g;
    const struct kkeys *kk = keys_of(t, KERNEL_GEMM, p);
    g = &index_of(t)->gemm[p];
    g->built = 1;
    g->elem_b = precision_bytes(p);
    g->prec = p;
    g->pts = xmalloc((kk->n ? kk->n : 1) * sizeof *g->pts);
    for (size_t i = 0; i < kk->n; i++) {
        const struct kernel_row *r = &t->rows[kk->rows[i]];
        if (r->batch > 1)
            continue;   /* batched GEMMs: kernel_table_lookup */
        group_add(g, (double)r->m, (double)r->n, (double)r->k, r->time_s[0], r->time_lo_s,
                  r->time_hi_s);
    }
    group_finish(g);
    return g;
}

/* A dense 2-D convolution row: what the implicit-GEMM groups hold. */
static int conv_dense_2d(const struct kernel_row *r)
{
    return !(r->groups > 1 || r->dims == 1 || r->dims == 3 || r->dil_h > 1 || r->dil_w > 1);
}

static enum conv_layout conv_row_layout(const struct kernel_row *r)
{
    return r->flag ? CONV_CHANNELS_LAST : CONV_CONTIGUOUS;
}

int kernel_table_conv_layouts(const struct kernel_table *t, enum precision p)
{
    if (!t || (unsigned)p >= PREC_COUNT)
        return 0;
    int *known = &index_of(t)->conv_layouts[p];
    if (*known)
        return *known - 1;
    const struct kkeys *kk = keys_of(t, KERNEL_CONV, p);
    int mask = 0;
    for (size_t i = 0; i < kk->n; i++) {
        const struct kernel_row *r = &t->rows[kk->rows[i]];
        if (conv_dense_2d(r))
            mask |= 1 << conv_row_layout(r);
    }
    *known = mask + 1;
    return mask;
}

static const struct kgroup *conv_group(const struct kernel_table *t, enum precision p,
                                       enum conv_pass pass, enum conv_layout layout)
{
    struct kgroup *g = &index_of(t)->conv[p][pass][layout];
    if (g->built)
        return g;
    const struct kkeys *kk = keys_of(t, KERNEL_CONV, p);
    g = &index_of(t)->conv[p][pass][layout];
    g->built = 1;
    /* cuDNN pads channels itself (C = 1 or 3 input layers run fine), so
     * the implicit-GEMM shape's alignment says nothing: one class. */
    g->pts = xmalloc((kk->n ? kk->n : 1) * sizeof *g->pts);
    for (size_t i = 0; i < kk->n; i++) {
        const struct kernel_row *r = &t->rows[kk->rows[i]];
        double m, n, k;
        /* Dense 2-D rows of the layout only; the others are
         * kernel_table_lookup's. */
        if (!conv_dense_2d(r) || conv_row_layout(r) != layout)
            continue;
        conv_row_gemm(r, &m, &n, &k);
        /* The spread columns describe the forward pass only. */
        int fwd = pass == CONV_FWD;
        group_add(g, m, n, k, r->time_s[pass], fwd ? r->time_lo_s : 0, fwd ? r->time_hi_s : 0);
        if (r->time_s[pass] > 0) {
            if (!g->n_hi || r->n_ < g->n_lo)
                g->n_lo = r->n_;
            if (r->n_ > g->n_hi)
                g->n_hi = r->n_;
        }
    }
    group_finish(g);
    return g;
}

/* Solve the weighted ridge plane fit around q; returns 0 and the fitted log
 * rate at q in *y, or -1 when the system is singular. */
static int plane_fit(const struct kpt *p, const struct knn *h, const double *w, const double q[3],
                     double *y)
{
    double a[16] = { 0 }, b[4] = { 0 }, sol[4];
    double wsum = 0;
    for (int i = 0; i < h->n; i++) {
        const struct kpt *pt = &p[h->at[i]];
        double v[4] = { 1, pt->x[0] - q[0], pt->x[1] - q[1], pt->x[2] - q[2] };
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++)
                a[r * 4 + c] += w[i] * v[r] * v[c];
            b[r] += w[i] * v[r] * pt->y;
        }
        wsum += w[i];
    }
    for (int r = 1; r < 4; r++)
        a[r * 4 + r] += RIDGE * wsum;
    gsl_matrix_view am = gsl_matrix_view_array(a, 4, 4);
    gsl_vector_view bv = gsl_vector_view_array(b, 4);
    gsl_vector_view sv = gsl_vector_view_array(sol, 4);
    if (gsl_linalg_cholesky_decomp1(&am.matrix) != 0)
        return -1;
    if (gsl_linalg_cholesky_solve(&am.matrix, &bv.vector, &sv.vector) != 0)
        return -1;
    if (!isfinite(sol[0]))
        return -1;
    *y = sol[0];
    return 0;
}

/* The neighbours' spread of timed calls around their medians (weights w),
 * carried to a call of time_s. */
static void neighbour_band(const struct kpt *pts, const struct knn *h, const double *w, double time_s,
                           struct kernel_estimate *out)
{
    double lo = 0, hi = 0, wlo = 0, whi = 0;
    for (int i = 0; i < h->n; i++) {
        const struct kpt *pt = &pts[h->at[i]];
        if (!isnan(pt->lo)) {
            lo += w[i] * pt->lo;
            wlo += w[i];
        }
        if (!isnan(pt->hi)) {
            hi += w[i] * pt->hi;
            whi += w[i];
        }
    }
    out->time_lo_s = wlo > 0 ? time_s * exp(lo / wlo) : 0;
    out->time_hi_s = whi > 0 ? time_s * exp(hi / whi) : 0;
}

/* Estimate the time of a GEMM-shaped problem from a rate group. */
static int group_estimate(const struct kgroup *g, double m, double n, double k,
                          struct kernel_estimate *out)
{
    if (!g->n || !(m > 0 && n > 0 && k > 0))
        return -1;
    double q[3] = { log(m), log(n), log(k) };
    int c = group_class(g, m, n, k);
    const struct kpt *pts = g->pts;
    /* Neighbours within the query's own alignment class, and in the whole
     * table: the class's, merged with the other classes'. */
    struct knn hc = { .k = g->n_cls[c] < KNN_DEFAULT ? (int)g->n_cls[c] : KNN_DEFAULT };
    kd_search(g->cls[c], 0, g->n_cls[c], 0, q, &hc);
    struct knn h = hc;
    h.k = g->n < KNN_DEFAULT ? (int)g->n : KNN_DEFAULT;
    for (int o = 0; o < 3; o++)
        if (o != c)
            kd_search(g->cls[o], 0, g->n_cls[o], 0, q, &h);
    /* Prefer rows of the query's own alignment class, but only where the
     * class is present near the query: its nearest row must lie within
     * the neighbourhood the whole table gives. */
    if (g->n_cls[c] >= 4 && g->n_cls[c] < g->n && hc.d2[0] <= h.d2[h.n - 1])
        h = hc;

    double w[KNN_MAX], wsum = 0, y_lo = INFINITY, y_hi = -INFINITY;
    int n_same = 0;
    for (int i = 0; i < h.n; i++)
        n_same += h.d2[i] < SAME_SHAPE_D2;
    for (int i = 0; i < h.n; i++) {
        if (n_same)
            w[i] = h.d2[i] < SAME_SHAPE_D2;
        else
            w[i] = 1.0 / h.d2[i];
        wsum += w[i];
        double yi = pts[h.at[i]].y;
        if (yi < y_lo)
            y_lo = yi;
        if (yi > y_hi)
            y_hi = yi;
    }
    double y = 0;
    for (int i = 0; i < h.n; i++)
        y += w[i] * pts[h.at[i]].y;
    y /= wsum;
    if (!n_same && h.n >= 4) {
        double yf;
        /* The plane may tilt steeply when the neighbours lie on one
         * side of the query; its rate stays within a factor PLANE_SPAN of
         * the neighbours' rates. */
        if (plane_fit(pts, &h, w, q, &yf) == 0)
            y = fmin(fmax(yf, y_lo - log(PLANE_SPAN)), y_hi + log(PLANE_SPAN));
    }

    /* A problem at least as large in every dimension as a measured row of
     * its alignment class or a worse one runs no slower per flop (its tiles
     * fill the machine at least as well: the linear bound of scaled_table in
     * est_op.c), so the best such row sets a floor under the interpolation,
     * which rows of other shapes on other sides (tall products' neighbours
     * of a quarter of the columns) can pull below it.  GEMM groups only: a
     * convolution's implicit GEMM sizes say nothing of its filter and
     * strides, which decide its kernel. */
    for (int o = 0; g->elem_b > 0 && o <= c; o++)
        kd_floor(g->cls[o], g->sub_max[o], 0, g->n_cls[o], 0, q, &y);

    int inside = 1, above = 1;
    for (int a = 0; a < 3; a++) {
        inside &= q[a] >= g->box_lo[a] - 1e-9 && q[a] <= g->box_hi[a] + 1e-9;
        above &= q[a] >= g->box_lo[a] - 1e-9;
    }
    out->above = !inside && above;
    /* Outside the rows nothing measured a higher rate than the
     * neighbours': a larger call keeps their best, the plane's tilt is
     * not carried past them */
    if (!inside && y > y_hi)
        y = y_hi;
    double rate = exp(y);
    if (rate > g->max_rate)
        rate = g->max_rate;
    /* A misaligned call cannot use the kernels that need 16-byte rows,
     * whichever neighbours were near: it runs no faster than the best row
     * measured in its alignment class or a worse one.  On an H200 in bf16
     * the rows of sizes 2 or 4 mod 8 (a 30,522-word vocabulary) reach 285
     * TFLOP/s, those of odd sizes (a 50,257-word one) 156, their aligned
     * neighbours 600 and more. */
    double cap = class_cap(g, c);
    if (cap > 0 && rate > cap)
        rate = cap;
    double flops = gemm_flops(m, n, k);
    double time_s = flops / rate;
    if (time_s < g->min_time_s)
        time_s = g->min_time_s;

    out->time_s = time_s;
    neighbour_band(pts, &h, w, time_s, out);
    out->method = inside ? LOOKUP_INTERP : LOOKUP_EXTRAP;
    out->neighbours = n_same ? n_same : h.n;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Lookups                                                             */

static char norm_t(char c)
{
    if (c == 'T' || c == 't' || c == '1')
        return 'T';
    if (c == 'N' || c == 'n' || c == '0')
        return 'N';
    return 0;
}

static void from_row(const struct kernel_row *r, int slot, enum lookup_method how,
                     struct kernel_estimate *out)
{
    out->time_s = r->time_s[slot];
    out->time_lo_s = slot == 0 ? r->time_lo_s : 0;
    out->time_hi_s = slot == 0 ? r->time_hi_s : 0;
    out->method = how;
    out->neighbours = 1;
}

int kernel_table_gemm(const struct kernel_table *t, enum precision p,
                      int64_t m, int64_t n, int64_t k, char a_t, char b_t,
                      struct kernel_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (!t || (unsigned)p >= PREC_COUNT || m <= 0 || n <= 0 || k <= 0)
        return -1;
    const struct kkeys *kk = keys_of(t, KERNEL_GEMM, p);
    if (!kk->n)
        return -1;
    struct kernel_row probe = { .kind = KERNEL_GEMM, .m = m, .n = n, .k = k };
    probe.a_t = norm_t(a_t);
    probe.b_t = norm_t(b_t);
    int known = probe.a_t && probe.b_t;
    if (!known)
        probe.a_t = probe.b_t = 'N';
    /* Batched rows sort after every plain one (kernel_row_key_cmp). */
    size_t at = keys_lower_bound(t, kk, &probe, kernel_row_key_cmp);
    if (at < kk->n && kernel_row_key_cmp(&t->rows[kk->rows[at]], &probe) == 0) {
        from_row(&t->rows[kk->rows[at]], 0, LOOKUP_EXACT, out);
        return 0;
    }
    /* The same shape in another orientation: all orientations of a shape
     * are adjacent in key order, so look for the first of them. */
    probe.a_t = probe.b_t = 0;
    at = keys_lower_bound(t, kk, &probe, kernel_row_key_cmp);
    if (at < kk->n && t->rows[kk->rows[at]].batch <= 1 && same_shape(&t->rows[kk->rows[at]], &probe)) {
        from_row(&t->rows[kk->rows[at]], 0, known ? LOOKUP_INTERP : LOOKUP_EXACT, out);
        return 0;
    }
    return group_estimate(gemm_group(t, p), (double)m, (double)n, (double)k, out);
}

double kernel_table_gemm_rate_cap(const struct kernel_table *t, enum precision p, double m, double n,
                                  double k)
{
    if (!t || (unsigned)p >= PREC_COUNT || !keys_of(t, KERNEL_GEMM, p)->n)
        return 0;
    const struct kgroup *g = gemm_group(t, p);
    return class_cap(g, group_class(g, m, n, k));
}

/* Whether (m, n, k) lies nowhere below g's rows' range. */
static int group_above(const struct kgroup *g, double m, double n, double k)
{
    double q[3] = { log(m), log(n), log(k) };
    for (int a = 0; a < 3; a++)
        if (q[a] < g->box_lo[a] - 1e-9)
            return 0;
    return 1;
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

static int64_t conv_dil(const struct conv_shape *cs)
{
    return max3(cs->dil_d, cs->dil_h, cs->dil_w);
}

/* The padding of an undilated twin of taps f: what keeps the output
 * size, as the dilated grid lays its rows out. */
static int64_t twin_pad(int64_t f)
{
    return (one_if_0(f) - 1) / 2;
}

/* The dilated rows of a pass that have an undilated twin: the same row
 * with dilation 1 and the padding that keeps the output size (taps - 1)
 * / 2, as the dilated grid lays them out. */
static const struct kdilset *dil_set(const struct kernel_table *t, enum precision p, enum conv_pass pass)
{
    struct kdilset *ds = &index_of(t)->dil[p][pass];
    if (ds->built)
        return ds;
    const struct kkeys *kk = keys_of(t, KERNEL_CONV, p);
    ds = &index_of(t)->dil[p][pass];
    ds->built = 1;
    for (size_t i = 0; i < kk->n; i++) {
        const struct kernel_row *r = &t->rows[kk->rows[i]];
        int64_t dh = one_if_0(r->dil_h), dw = one_if_0(r->dil_w), dd = one_if_0(r->dil_d);
        if ((dh <= 1 && dw <= 1 && dd <= 1) || r->groups > 1 || r->flag || !(r->time_s[pass] > 0))
            continue;
        struct kernel_row twin = *r;
        memset(twin.time_s, 0, sizeof twin.time_s);
        twin.dil_d = twin.dil_h = twin.dil_w = 1;
        if (dd > 1)
            twin.pad_d = twin_pad(r->t);
        if (dh > 1)
            twin.pad_h = twin_pad(r->r);
        if (dw > 1)
            twin.pad_w = twin_pad(r->s);
        const struct kernel_row *tw = NULL;
        for (size_t at = keys_lower_bound(t, kk, &twin, conv_key_cmp);
             at < kk->n && conv_same_shape(&t->rows[kk->rows[at]], &twin); at++)
            if (t->rows[kk->rows[at]].time_s[pass] > 0)
                tw = &t->rows[kk->rows[at]];
        if (!tw)
            continue;
        if (!ds->pts)
            ds->pts = xmalloc(kk->n * sizeof *ds->pts);
        struct kdil *d = &ds->pts[ds->n++];
        double m, n, k;
        conv_row_gemm(tw, &m, &n, &k);
        d->dims = r->dims ? r->dims : 2;
        d->x[0] = log(m * one_if_0(r->d));
        d->x[1] = log(n);
        d->x[2] = log(k * one_if_0(r->t));
        d->ldil = log((double)max3(dd, dh, dw));
        d->lr = log(r->time_s[pass] / tw->time_s[pass]);
    }
    return ds;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median log ratio of the DIL_NEAR pairs at dilation level ldil nearest
 * to x (implicit-GEMM axes).  The median: a pair can catch an algorithm
 * switch its neighbours do not share (13x in one bf16 weight gradient of
 * the H100's grid, where its neighbours took 1.3x). */
#define DIL_NEAR 4

static double dil_level(const struct kdilset *ds, int dims, double ldil, const double *x)
{
    double d2[DIL_NEAR], lr[DIL_NEAR];
    int n = 0;
    for (size_t i = 0; i < ds->n; i++) {
        const struct kdil *d = &ds->pts[i];
        if ((dims && d->dims != dims) || fabs(d->ldil - ldil) > 1e-9)
            continue;
        double e = 0;
        for (int a = 0; a < 3; a++)
            e += (d->x[a] - x[a]) * (d->x[a] - x[a]);
        int j = n < DIL_NEAR ? n++ : DIL_NEAR;
        if (j == DIL_NEAR) {
            if (e >= d2[DIL_NEAR - 1])
                continue;
            j = DIL_NEAR - 1;
        }
        while (j > 0 && d2[j - 1] > e) {
            d2[j] = d2[j - 1];
            lr[j] = lr[j - 1];
            j--;
        }
        d2[j] = e;
        lr[j] = d->lr;
    }
    qsort(lr, (size_t)n, sizeof *lr, cmp_double);
    return n % 2 ? lr[n / 2] : 0.5 * (lr[n / 2 - 1] + lr[n / 2]);
}

/* What dilation costs a convolution of implicit GEMM (m, n, k): cuDNN
 * runs dilated convolutions with other kernels than undilated ones of the
 * same GEMM, and which ones depends on the dilation, the pass and the
 * precision (the dilated grid: 1.0x for a bf16 1-D convolution up to
 * dilation 8, 1.2-1.3x from 16; 3.8x for an fp32 2-D weight gradient at
 * any dilation).  The ratio is that of the nearest measured pairs of the
 * same dimensionality (any, where the table has none of it) at the
 * measured dilations bracketing the query's (dilation 1 costing
 * nothing), interpolated in log dilation, and held at the largest one
 * above them.  0 when the table has no pairs. */
static double dil_ratio(const struct kernel_table *t, enum precision p, enum conv_pass pass,
                        const struct conv_shape *cs, double m, double n, double k)
{
    const struct kdilset *ds = dil_set(t, p, pass);
    if (!ds->n)
        return 0;
    int dims = cs->dims ? cs->dims : 2;
    int have = 0;
    for (size_t i = 0; i < ds->n && !have; i++)
        have = ds->pts[i].dims == dims;
    if (!have)
        dims = 0;
    double ld = log((double)conv_dil(cs)), lo = -INFINITY, hi = INFINITY, max = -INFINITY;
    for (size_t i = 0; i < ds->n; i++) {
        const struct kdil *d = &ds->pts[i];
        if (dims && d->dims != dims)
            continue;
        if (d->ldil <= ld && d->ldil > lo)
            lo = d->ldil;
        if (d->ldil >= ld && d->ldil < hi)
            hi = d->ldil;
        max = fmax(max, d->ldil);
    }
    if (!isfinite(hi))
        lo = hi = max;
    const double x[3] = { log(m), log(n), log(k) };
    /* below the smallest measured dilation: from dilation 1, which
     * costs nothing */
    double rlo = 0;
    if (!isfinite(lo))
        lo = 0;
    else
        rlo = dil_level(ds, dims, lo, x);
    if (hi - lo < 1e-9)
        return exp(rlo);
    double rhi = dil_level(ds, dims, hi, x);
    return exp(rlo + (rhi - rlo) * (ld - lo) / (hi - lo));
}

int kernel_table_conv(const struct kernel_table *t, enum precision p,
                      const struct conv_shape *cs, enum conv_pass pass, enum conv_layout layout,
                      struct kernel_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !cs || (unsigned)p >= PREC_COUNT || (unsigned)pass >= CONV_PASS_COUNT ||
        (unsigned)layout >= CONV_LAYOUT_COUNT)
        return -1;
    if (cs->groups > 1 || cs->d > 1 || cs->t > 1 || cs->n <= 0 || cs->c <= 0 || cs->h <= 0 || cs->w <= 0 || cs->k <= 0 ||
        cs->r <= 0 || cs->s <= 0)
        return -1;
    const struct kkeys *kk = keys_of(t, KERNEL_CONV, p);
    if (!kk->n)
        return -1;
    int64_t sh = cs->stride_h > 0 ? cs->stride_h : 1, sw = cs->stride_w > 0 ? cs->stride_w : 1;
    {
        struct kernel_row probe = {
            .kind = KERNEL_CONV, .n_ = cs->n, .c = cs->c, .h = cs->h, .w = cs->w, .kf = cs->k,
            .r = cs->r, .s = cs->s, .pad_h = cs->pad_h, .pad_w = cs->pad_w,
            .stride_h = sh, .stride_w = sw, .dil_h = cs->dil_h, .dil_w = cs->dil_w,
            .dims = cs->dims, .flag = layout == CONV_CHANNELS_LAST,
        };
        /* The probe's pass mask is 0: it sorts first among the rows of its
         * shape, which differ only in the passes they time. */
        size_t at = keys_lower_bound(t, kk, &probe, conv_key_cmp), hit = kk->n;
        for (; at < kk->n && conv_same_shape(&t->rows[kk->rows[at]], &probe); at++)
            if (t->rows[kk->rows[at]].time_s[pass] > 0)
                hit = at;
        if (hit < kk->n) {
            from_row(&t->rows[kk->rows[hit]], pass, LOOKUP_EXACT, out);
            if (pass != CONV_FWD) {
                out->time_lo_s = out->time_hi_s = 0;
            }
            return 0;
        }
    }
    int64_t pp = cs->p > 0 ? cs->p : conv_out(cs->h, cs->pad_h, cs->r, sh, cs->dil_h);
    int64_t qq = cs->q > 0 ? cs->q : conv_out(cs->w, cs->pad_w, cs->s, sw, cs->dil_w);
    if (pp <= 0 || qq <= 0)
        return -1;
    double gm = (double)cs->n * (double)pp * (double)qq;
    double gn = (double)cs->k;
    double gk = (double)cs->c * (double)cs->r * (double)cs->s;
    if (conv_dil(cs) > 1) {
        /* the undilated twin (the padding that keeps the output size),
         * times what the dilation costs where the table measured it */
        struct conv_shape u = *cs;
        u.dil_h = u.dil_w = u.dil_d = 1;
        if (cs->dil_h > 1)
            u.pad_h = twin_pad(cs->r);
        if (cs->dil_w > 1)
            u.pad_w = twin_pad(cs->s);
        if (kernel_table_conv(t, p, &u, pass, layout, out) != 0)
            return -1;
        double r = dil_ratio(t, p, pass, cs, gm, gn, gk);
        out->dilation = r > 0 ? r : -1;
        if (r > 0) {
            out->time_s *= r;
            out->time_lo_s *= r;
            out->time_hi_s *= r;
        }
        /* not the shape the row measured */
        if (out->method == LOOKUP_EXACT)
            out->method = LOOKUP_INTERP;
        return 0;
    }
    const struct kgroup *g = conv_group(t, p, pass, layout);
    if (group_estimate(g, gm, gn, gk, out) != 0)
        return -1;
    /* The implicit-GEMM box hides the batch: N*P*Q of a large batch at a
     * small image lies among the rows of small batches at large images,
     * yet no row ran that batch.  A batch outside the rows' range is an
     * extrapolation. */
    if (cs->n < g->n_lo || cs->n > g->n_hi)
        out->method = LOOKUP_EXTRAP;
    if (cs->n < g->n_lo)
        out->above = 0;
    else if (cs->n > g->n_hi && out->method == LOOKUP_EXTRAP && !out->above)
        out->above = group_above(g, gm, gn, gk);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Stream                                                              */

/* Moving more bytes never takes less time, but the rows mix ops with
 * different fixed costs (a 4 kB sum is slower than an 8 kB copy), so the
 * raw points are not monotone.  Pool adjacent violators on log time (an
 * isotonic fit, weighted by the points pooled) and write the bandwidths
 * back: the curve then interpolates to a time that grows with bytes. */
static void monotone_time(struct kcurve *c)
{
    size_t n = c->n, nb = 0;
    if (n < 2)
        return;
    double *val = xmalloc(n * sizeof *val), *wt = xmalloc(n * sizeof *wt);
    size_t *len = xmalloc(n * sizeof *len);
    for (size_t i = 0; i < n; i++) {
        val[nb] = c->lb[i] - c->lbw[i]; /* log time */
        wt[nb] = 1;
        len[nb] = 1;
        nb++;
        while (nb > 1 && val[nb - 2] > val[nb - 1]) {
            double w = wt[nb - 2] + wt[nb - 1];
            val[nb - 2] = (val[nb - 2] * wt[nb - 2] + val[nb - 1] * wt[nb - 1]) / w;
            wt[nb - 2] = w;
            len[nb - 2] += len[nb - 1];
            nb--;
        }
    }
    size_t i = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < len[b]; j++, i++)
            c->lbw[i] = c->lb[i] - val[b];
    free(val);
    free(wt);
    free(len);
}

static const struct kcurve *stream_curve(const struct kernel_table *t, enum precision p)
{
    struct kcurve *c = &index_of(t)->stream[p];
    if (c->built)
        return c;
    const struct kkeys *kk = keys_of(t, KERNEL_ELTWISE, p);
    c = &index_of(t)->stream[p];
    c->built = 1;
    size_t n = kk->n;
    if (!n)
        return c;
    struct kpt *pts = xmalloc(n * sizeof *pts);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct kernel_row *r = &t->rows[kk->rows[i]];
        /* ops that move rows through an index are not a stream of
         * contiguous elements: their rows answer for them alone */
        if (!(r->bytes > 0 && r->time_s[0] > 0) || ops_is_indexed(r->op))
            continue;
        struct kpt *pt = &pts[m++];
        pt->x[0] = log(r->bytes);
        pt->y = log(r->bytes / r->time_s[0]);
        pt->lo = log_ratio(r->time_lo_s, r->time_s[0]);
        pt->hi = log_ratio(r->time_hi_s, r->time_s[0]);
        if (m == 1 || r->time_s[0] < c->min_time_s)
            c->min_time_s = r->time_s[0];
    }
    /* Sort by log bytes (insertion sort: curves have tens of points). */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && pts[j].x[0] < pts[j - 1].x[0]; j--)
            kpt_swap(&pts[j], &pts[j - 1]);
    c->lb = xmalloc((m ? m : 1) * sizeof *c->lb);
    c->lbw = xmalloc((m ? m : 1) * sizeof *c->lbw);
    c->lo = xmalloc((m ? m : 1) * sizeof *c->lo);
    c->hi = xmalloc((m ? m : 1) * sizeof *c->hi);
    /* Ops moving the same number of bytes (copy and relu) are averaged
     * into one point so that the curve is a function. */
    size_t o = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        double sy = 0, slo = 0, shi = 0;
        int nlo = 0, nhi = 0;
        for (; j < m && pts[j].x[0] - pts[i].x[0] < 1e-9; j++) {
            sy += pts[j].y;
            if (!isnan(pts[j].lo))
                slo += pts[j].lo, nlo++;
            if (!isnan(pts[j].hi))
                shi += pts[j].hi, nhi++;
        }
        c->lb[o] = pts[i].x[0];
        c->lbw[o] = sy / (double)(j - i);
        c->lo[o] = nlo ? slo / nlo : NAN;
        c->hi[o] = nhi ? shi / nhi : NAN;
        o++;
        i = j;
    }
    c->n = o;
    free(pts);
    monotone_time(c);
    return c;
}

int kernel_table_stream(const struct kernel_table *t, enum precision p,
                        double bytes, struct kernel_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (!t || (unsigned)p >= PREC_COUNT || !(bytes > 0) || !isfinite(bytes))
        return -1;
    const struct kcurve *c = stream_curve(t, p);
    if (!c->n)
        return -1;
    double x = log(bytes), lbw, lo, hi;
    size_t i = 0;
    if (x <= c->lb[0]) {
        /* Latency bound: the smallest measured op's time. */
        lbw = c->lbw[0] + (x - c->lb[0]);
        lo = c->lo[0];
        hi = c->hi[0];
        out->method = x < c->lb[0] - 1e-9 ? LOOKUP_EXTRAP : LOOKUP_INTERP;
        out->neighbours = 1;
    } else if (x >= c->lb[c->n - 1]) {
        lbw = c->lbw[c->n - 1];
        lo = c->lo[c->n - 1];
        hi = c->hi[c->n - 1];
        out->method = x > c->lb[c->n - 1] + 1e-9 ? LOOKUP_EXTRAP : LOOKUP_INTERP;
        out->neighbours = 1;
    } else {
        size_t a = 0, b = c->n - 1;
        while (b - a > 1) {
            i = a + (b - a) / 2;
            if (c->lb[i] <= x)
                a = i;
            else
                b = i;
        }
        double f = (x - c->lb[a]) / (c->lb[b] - c->lb[a]);
        lbw = c->lbw[a] + f * (c->lbw[b] - c->lbw[a]);
        lo = isnan(c->lo[a]) || isnan(c->lo[b]) ? NAN : c->lo[a] + f * (c->lo[b] - c->lo[a]);
        hi = isnan(c->hi[a]) || isnan(c->hi[b]) ? NAN : c->hi[a] + f * (c->hi[b] - c->hi[a]);
        out->method = LOOKUP_INTERP;
        out->neighbours = 2;
    }
    double time_s = bytes / exp(lbw);
    if (time_s < c->min_time_s)
        time_s = c->min_time_s;
    out->time_s = time_s;
    out->time_lo_s = isnan(lo) ? 0 : time_s * exp(lo);
    out->time_hi_s = isnan(hi) ? 0 : time_s * exp(hi);
    return 0;
}

int kernel_table_has(const struct kernel_table *t, enum kernel_kind kind, enum precision p)
{
    if (!t || (unsigned)kind >= KERNEL_KIND_COUNT || (unsigned)p >= PREC_COUNT)
        return 0;
    return keys_of(t, kind, p)->n > 0;
}
