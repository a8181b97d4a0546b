#include "model/est_internal.h"
#include "model/ops.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- lookups */


static void lk_add(struct lookup *acc, const struct kernel_estimate *e, double times,
                   enum kernel_kind kind)
{
    acc->kind = kind;
    acc->calls += times;
    acc->time_s += e->time_s * times;
    acc->lo_s += (e->time_lo_s > 0 ? e->time_lo_s : e->time_s) * times;
    acc->hi_s += (e->time_hi_s > 0 ? e->time_hi_s : e->time_s) * times;
    if (e->method > acc->method)
        acc->method = e->method;    /* the weakest lookup names the whole */
}

static int lk_gemm(const struct kernel_table *t, enum precision p, int64_t m, int64_t n, int64_t k,
                   char a_t, char b_t, double times, struct lookup *acc)
{
    struct kernel_estimate e;
    if (m < 1 || n < 1 || k < 1)
        return -1;
    if (kernel_table_gemm(t, p, m, n, k, a_t ? a_t : 'N', b_t ? b_t : 'N', &e) != 0 || !(e.time_s > 0))
        return -1;
    lk_add(acc, &e, times, KERNEL_GEMM);
    return 0;
}

/* Convolution as the GEMM cuDNN's implicit-GEMM algorithms run. */
static int lk_conv_as_gemm(const struct kernel_table *t, enum precision p, const struct conv_shape *cs,
                           enum conv_pass pass, double times, struct lookup *acc)
{
    int64_t g = cs->groups > 0 ? cs->groups : 1;
    int64_t r = cs->r > 0 ? cs->r : 1, s = cs->s > 0 ? cs->s : 1;
    int64_t pq = (cs->p > 0 ? cs->p : cs->h) * (cs->q > 0 ? cs->q : cs->w);
    int64_t crs = cs->c / g * r * s;
    switch (pass) {
    case CONV_FWD:
        return lk_gemm(t, p, cs->n * pq, cs->k / g, crs, 'N', 'N', times * g, acc);
    case CONV_BWD_DATA:
        return lk_gemm(t, p, cs->n * cs->h * cs->w, cs->c / g, cs->k / g * r * s, 'N', 'N', times * g, acc);
    default:
        return lk_gemm(t, p, cs->k / g, crs, cs->n * pq, 'N', 'N', times * g, acc);
    }
}

static int is_conv_backward(const struct op *op)
{
    return op->phase == PHASE_BACKWARD || (op->name && strstr(op->name, "backward"));
}

/* The convolution passes a call of op runs: the forward, or the data and
 * filter gradients.  Returns how many. */
static int conv_passes(const struct op *op, enum conv_pass passes[2])
{
    if (!is_conv_backward(op)) {
        passes[0] = CONV_FWD;
        return 1;
    }
    passes[0] = CONV_BWD_DATA;
    passes[1] = CONV_BWD_FILTER;
    return 2;
}

static int lk_conv(const struct kernel_table *t, const struct op *op, const struct shape *s,
                   struct lookup *acc)
{
    enum conv_pass passes[2];
    int np = conv_passes(op, passes);
    if (s->conv.n < 1 || s->conv.c < 1 || s->conv.k < 1)
        return -1;
    /* grouped and depthwise convolutions are other kernels than the
     * dense ones the conv rows and their GEMM equivalents measured: no
     * table lookup (the efficiency model or the roofline takes them) */
    if (s->conv.groups > 1)
        return -1;
    /* rows of the op's memory layout where the table has them (s->contiguous:
     * both tables of a ratio read contiguous rows, est_op.c) */
    int channels_last = op_has_flag(op, "channels-last");
    enum conv_layout layout = channels_last && !s->contiguous &&
                              (kernel_table_conv_layouts(t, s->prec) & 1 << CONV_CHANNELS_LAST)
                              ? CONV_CHANNELS_LAST : CONV_CONTIGUOUS;
    /* extrapolated only above the rows' sizes in every pass: a larger
     * convolution runs at least at its nearest rows' rate (lk_call) */
    int above = 1;
    for (int i = 0; i < np; i++) {
        struct kernel_estimate e;
        if (kernel_table_conv(t, s->prec, &s->conv, passes[i], layout, &e) == 0 && e.time_s > 0) {
            lk_add(acc, &e, s->calls, KERNEL_CONV);
            acc->dilation_unmeasured |= e.dilation < 0;
            above &= e.method != LOOKUP_EXTRAP || e.above;
        } else if (lk_conv_as_gemm(t, s->prec, &s->conv, passes[i], s->calls, acc) != 0) {
            return -1;
        } else {
            above &= acc->method != LOOKUP_EXTRAP;
        }
    }
    acc->above = acc->method == LOOKUP_EXTRAP && above;
    acc->layout_fallback = channels_last && layout == CONV_CONTIGUOUS;
    return 0;
}

int est_lk_stream(const struct kernel_table *t, enum precision p, double bytes, double kernels,
                     struct lookup *acc)
{
    struct kernel_estimate e;
    if (!(bytes > 0) || !(kernels > 0))
        return -1;
    if (kernel_table_stream(t, p, bytes / kernels, &e) != 0 || !(e.time_s > 0))
        return -1;
    lk_add(acc, &e, kernels, KERNEL_ELTWISE);
    return 0;
}

/* Attention (and GEMM-like ops known only by their flops) run at the rate
 * the table measures for a cube GEMM of the same work.  The cube is an
 * aligned problem, its side a multiple of 16 elements (16 bytes or more
 * per row for every precision), unless `aligned` is 0: the tables keep
 * GEMMs whose sizes break the 16-byte alignment apart, and those run on
 * slower kernels (a 4050-wide bf16 cube at a tenth of a 4048-wide one's
 * rate would stand in for a GEMM of 126976 x 4096 x 128). */
static int lk_flops(const struct kernel_table *t, enum precision p, double flops, double calls,
                    int aligned, struct lookup *acc)
{
    if (!(flops > 0) || !(calls > 0))
        return -1;
    double per = flops / calls;
    double n = cbrt(per / 2);
    if (n < 16)
        n = 16;
    if (n > 16384)
        n = 16384;
    int64_t ni = aligned ? 16 * (int64_t)llround(n / 16) : (int64_t)llround(n);
    struct lookup one = { .method = LOOKUP_NONE, .kind = KERNEL_GEMM };
    if (lk_gemm(t, p, ni, ni, ni, 'N', 'N', 1, &one) != 0)
        return -1;
    double rate = 2.0 * (double)ni * ni * ni / one.time_s;
    double k = flops / rate / one.time_s;
    acc->kind = KERNEL_GEMM;
    acc->calls += calls;
    acc->time_s += one.time_s * k;
    acc->lo_s += one.lo_s * k;
    acc->hi_s += one.hi_s * k;
    if (one.method > acc->method)
        acc->method = one.method;
    if (acc->method == LOOKUP_EXACT)
        acc->method = LOOKUP_INTERP;    /* a rate carried over is not an exact hit */
    return 0;
}

/* The kinds the tables measure as whole calls (recurrent layers,
 * attention, norms, embeddings, grouped and 1-D/3-D convolutions): one
 * lookup of the call at the op's retargeted sizes, among rows of its
 * precision, pass and category only.  Returns -1 when the table has no
 * such rows (the caller's older route or model takes the op). */
/* A table's answer for one call, as the lookup of `calls` of them. */
static void hit_to_lookup(const struct kernel_hit *h, enum kernel_kind kind, double calls,
                          struct lookup *acc)
{
    acc->kind = kind;
    acc->calls = calls;
    acc->time_s = h->time_s * calls;
    acc->lo_s = (h->time_lo_s > 0 ? h->time_lo_s : h->time_s) * calls;
    acc->hi_s = (h->time_hi_s > 0 ? h->time_hi_s : h->time_s) * calls;
    acc->method = h->method;
    acc->distance = h->distance;
    acc->filter_unmeasured = h->filter_unmeasured;
    acc->head_padded = h->head_padded;
    if (h->method == LOOKUP_EXTRAP) {
        /* a filter the rows do not measure is no larger problem of theirs */
        acc->above = !h->filter_unmeasured;
        for (int a = 0; a < h->n_axes; a++)
            acc->above &= h->outside[a] >= 0;
    }
}

static int lk_call(const struct kernel_table *t, const struct op *op, const struct shape *s,
                   struct lookup *acc)
{
    struct kernel_query q;
    enum kernel_pass pass = op->phase == PHASE_BACKWARD || is_conv_backward(op) ? KPASS_BWD : KPASS_FWD;
    if (kernel_query_from_op(op, pass, &q) != 0 && op->kind != OP_CONV)
        return -1;
    q.prec = s->prec;
    if (op->kind == OP_CONV) {
        q.kind = KERNEL_CONV;
        q.conv = s->conv;
    } else {
        memcpy(q.dim, s->kdim, sizeof q.dim);
        if (q.kind == KERNEL_NORM && q.dim[NORM_GROUPS] <= 0)
            q.dim[NORM_GROUPS] = 1;
    }
    struct kernel_hit h;
    int fallback = 0;
    if (q.kind == KERNEL_CONV && q.flag && s->contiguous) {
        q.flag = 0;
        fallback = 1;
    }
    if (kernel_table_lookup(t, &q, &h) != 0 || !(h.time_s > 0)) {
        /* a channels-last convolution whose layout the table lacks: the
         * contiguous rows, said (struct lookup: layout_fallback) */
        if (q.kind != KERNEL_CONV || !q.flag)
            return -1;
        q.flag = 0;
        if (kernel_table_lookup(t, &q, &h) != 0 || !(h.time_s > 0))
            return -1;
        fallback = 1;
    }
    hit_to_lookup(&h, q.kind, s->calls, acc);
    acc->layout_fallback = fallback;
    return 0;
}

/* A dense undilated 1-D convolution from the table's 1-D rows
 * (kernel_lookup.c: a category of their own) where they reach it; -1
 * past them, where it is timed as an image of height 1 (a table of few
 * 1-D rows, all at one batch, would extrapolate them by octaves). */
static int lk_conv_1d(const struct kernel_table *t, const struct op *op, const struct shape *s,
                      struct lookup *acc)
{
    if (!conv_shape_dense_1d(&s->conv))
        return -1;
    struct lookup one = { .method = LOOKUP_NONE };
    if (lk_call(t, op, s, &one) != 0 || one.method == LOOKUP_EXTRAP)
        return -1;
    *acc = one;
    return 0;
}

/* An op that moves rows through an index (ops_is_indexed) from its own
 * rows, where the table has them, by its bytes per call: those rows run
 * at the rate of the index and its atomic adds, which the stream of
 * contiguous elements (est_lk_stream) does not. */
static int lk_indexed(const struct kernel_table *t, const struct op *op, const struct shape *s,
                      struct lookup *acc)
{
    const char *kop = op_sizes(op)->kop;
    if (s->by_bytes || !ops_is_indexed(kop) || !(s->bytes > 0) || !(s->calls > 0))
        return -1;
    struct kernel_query q = { .kind = KERNEL_ELTWISE, .pass = KPASS_FWD, .prec = s->prec,
                              .op = kop, .bytes = s->bytes / s->calls };
    struct kernel_hit h;
    if (kernel_table_lookup(t, &q, &h) != 0 || !(h.time_s > 0))
        return -1;
    hit_to_lookup(&h, KERNEL_ELTWISE, s->calls, acc);
    acc->op_rows = 1;
    return 0;
}

/* An upsampling op from the table's resample rows: its planes, output and
 * input points and pass, which pace PyTorch's kernels where the bytes do
 * not (estimators/h200/upsample-probe/ORIGIN.md).  -1 when the op is no
 * upsampling, runs on channels-last tensors (PyTorch's kernel for them
 * runs a thread per output element and is paced by the bytes: the
 * SegFormer's decoder, 4,096 planes of 64 x 64 to 128 x 128 in 0.60 ms on
 * an H200, where the contiguous rows say 1.3 ms and more), or the table
 * has no rows of its op, precision and pass. */
static int lk_resample(const struct kernel_table *t, const struct op *op, const struct shape *s,
                       struct lookup *acc)
{
    if (s->by_bytes || !op_is_resample(op) || op_has_flag(op, "channels-last"))
        return -1;
    struct kernel_query q = { .kind = KERNEL_RESAMPLE, .prec = s->prec, .op = op_sizes(op)->kop,
                              .pass = op->phase == PHASE_BACKWARD ? KPASS_BWD : KPASS_FWD };
    q.dim[RS_N] = s->kdim[OP_RS_N];
    q.dim[RS_C] = s->kdim[OP_RS_C];
    q.dim[RS_OUT] = s->kdim[OP_RS_OUT];
    q.dim[RS_IN] = s->kdim[OP_RS_IN];
    struct kernel_hit h;
    if (kernel_table_lookup(t, &q, &h) != 0 || !(h.time_s > 0))
        return -1;
    hit_to_lookup(&h, KERNEL_RESAMPLE, s->calls, acc);
    return 0;
}

/* A batched GEMM among the table's batched rows of its transposes, when
 * they surround it: cuBLAS runs a batch of small products with other
 * kernels than one GEMM of the batch's rows (gemv and generic batched
 * kernels, chosen by size and alignment), so the rows of batches measure
 * it where the flattened GEMM only extrapolates.  Outside those rows,
 * -1: the flattened GEMM takes it. */
static int lk_batched(const struct kernel_table *t, const struct op *op, const struct shape *s,
                      struct lookup *acc)
{
    struct kernel_query q = { .kind = KERNEL_GEMM, .pass = KPASS_FWD, .prec = s->prec,
                              .m = s->m, .n = s->n, .k = s->k, .batch = s->nb,
                              .a_t = op->a_t ? op->a_t : 'N', .b_t = op->b_t ? op->b_t : 'N' };
    struct kernel_hit h;
    double f = 1;
    for (;;) {
        if (kernel_table_lookup(t, &q, &h) != 0 || !(h.time_s > 0))
            return -1;
        if (h.method != LOOKUP_EXTRAP)
            break;
        /* past the largest batch only: cuBLAS runs a batch in chunks of
         * at most 65,535 products, one kernel after another (the traces
         * show them), so a batch of twice the rows' takes twice their
         * time; any other axis outside the rows is not this case */
        for (int a = 0; a < h.n_axes; a++)
            if (h.outside[a] != (a == 3 ? 1 : 0))
                return -1;
        int64_t half = (q.batch + 1) / 2;
        f *= (double)q.batch / (double)half;
        q.batch = half;
    }
    h.time_s *= f;
    h.time_lo_s *= f;
    h.time_hi_s *= f;
    hit_to_lookup(&h, KERNEL_GEMM, s->calls, acc);
    return 0;
}

/* Convolutions the older 2-D table form does not describe. */
static int conv_needs_call_lookup(const struct shape *s)
{
    return s->conv.groups > 1 || s->conv.dims == 3 || s->conv.d > 1 || s->conv.t > 1;
}

/* The dense convolution of one group of cs, timed in pass `pass` by the
 * dense rows; -1 when they would extrapolate (or have no rows). */
static int dense_group_s(const struct kernel_table *t, enum precision p, const struct conv_shape *cs,
                         enum conv_pass pass, enum conv_layout layout, struct kernel_estimate *e)
{
    struct conv_shape one = *cs;
    one.c = cs->c / cs->groups;
    one.k = cs->k / cs->groups;
    one.groups = 1;
    return kernel_table_conv(t, p, &one, pass, layout, e) == 0 && e->time_s > 0 &&
           e->method != LOOKUP_EXTRAP ? 0 : -1;
}

/* A grouped convolution (not depthwise) whose grouped rows the op lies
 * outside of (LOOKUP_EXTRAP): the rows of a few groups stop at a few
 * hundred channels, where the ResNeSt-style layers of two groups run to
 * a thousand and more, and a small row's rate carried to such a layer is
 * several times too slow.  Per pass, the op is timed as its groups' dense
 * convolutions, which the dense rows do reach, at the grouped kernels'
 * measured speed relative to them: the nearest grouped row's time over
 * the same dense convolutions of its own shape (0.5x to 4x in the H200's
 * rows of 2 to 32 groups, in the medians by groups, pass and precision).
 * -1 (the extrapolation stays) when a dense lookup would extrapolate
 * too, or no grouped row times one of the op's passes. */
static int lk_grouped_as_dense(const struct kernel_table *t, const struct op *op,
                               const struct shape *s, struct lookup *acc)
{
    const struct conv_shape *cs = &s->conv;
    if (cs->groups < 2 || cs->groups >= cs->c || cs->c % cs->groups || cs->k % cs->groups)
        return -1;
    int cl = op_has_flag(op, "channels-last") && !s->contiguous &&
             (kernel_table_conv_layouts(t, s->prec) & 1 << CONV_CHANNELS_LAST);
    enum conv_layout layout = cl ? CONV_CHANNELS_LAST : CONV_CONTIGUOUS;
    enum conv_pass passes[2];
    int np = conv_passes(op, passes);
    double calls = s->calls > 0 ? s->calls : 1, t_s = 0, lo_s = 0, hi_s = 0;
    for (int i = 0; i < np; i++) {
        struct conv_shape rc;
        const struct kernel_row *r = kernel_table_nearest_conv(t, s->prec, cs, cl, passes[i], &rc);
        if (!r)
            return -1;
        struct kernel_estimate eq, er;
        if (dense_group_s(t, s->prec, cs, passes[i], layout, &eq) != 0 ||
            dense_group_s(t, s->prec, &rc, passes[i], layout, &er) != 0)
            return -1;
        double f = r->time_s[passes[i]] / er.time_s * calls;
        t_s += eq.time_s * f;
        lo_s += (eq.time_lo_s > 0 ? eq.time_lo_s : eq.time_s) * f;
        hi_s += (eq.time_hi_s > 0 ? eq.time_hi_s : eq.time_s) * f;
    }
    memset(acc, 0, sizeof *acc);
    acc->time_s = t_s;
    acc->lo_s = lo_s;
    acc->hi_s = hi_s;
    acc->method = LOOKUP_INTERP;
    acc->distance = DIST_INTERP;
    acc->calls = calls;
    acc->kind = KERNEL_CONV;
    acc->layout_fallback = op_has_flag(op, "channels-last") && !cl;
    acc->grouped_dense = 1;
    return 0;
}

/* A recurrent call of an LSTM with projections (RNN_PROJ: P below the
 * cell size H), which no table times: cuDNN runs it as the LSTM of H
 * whose steps do other GEMMs (cudnnRNNForward with projSize < hiddenSize;
 * the H200 trace of such a layer shows one more GEMM a step forward and
 * a data-gradient GEMM more a step backward).  Forward, a step's
 * recurrent GEMM reads the projected state (B x 4H x P for the table's
 * B x 4H x H) and the projection GEMM (B x P x H) follows the cell;
 * backward, the recurrent data gradient gives P values (B x P x 4H for
 * B x H x 4H) and the projection's (B x H x P) brings them back to H.
 * acc, the row of the LSTM of H, moves by the difference of those
 * per-step GEMMs in the same table's GEMM rows (the weight gradients,
 * one GEMM over every step, are left as the row's: 4H x P + P x H
 * weights against 4H x H, never more work); never below the projected
 * steps' GEMMs alone.  -1 when the table has no GEMM rows to say. */
static int lk_rnn_projection(const struct kernel_table *t, const struct op *op,
                             const struct shape *s, struct lookup *acc)
{
    int64_t p = s->kdim[RNN_PROJ], h = s->kdim[RNN_HIDDEN], b = s->kdim[RNN_BATCH];
    if (p <= 0 || h <= p || b <= 0)
        return 0;
    double steps = (double)s->kdim[RNN_LAYERS] * (op->kflag > 0 ? 2 : 1) * (double)s->kdim[RNN_SEQ] *
                   (s->calls > 0 ? s->calls : 1);
    struct lookup plain = { .method = LOOKUP_NONE }, proj = { .method = LOOKUP_NONE };
    int rc;
    if (op->phase == PHASE_BACKWARD)
        rc = lk_gemm(t, s->prec, b, h, 4 * h, 'N', 'N', steps, &plain) |
             lk_gemm(t, s->prec, b, p, 4 * h, 'N', 'N', steps, &proj) |
             lk_gemm(t, s->prec, b, h, p, 'N', 'N', steps, &proj);
    else
        rc = lk_gemm(t, s->prec, b, 4 * h, h, 'N', 'N', steps, &plain) |
             lk_gemm(t, s->prec, b, 4 * h, p, 'N', 'N', steps, &proj) |
             lk_gemm(t, s->prec, b, p, h, 'N', 'N', steps, &proj);
    if (rc != 0)
        return -1;
    double *v[3] = { &acc->time_s, &acc->lo_s, &acc->hi_s };
    const double *pl[3] = { &plain.time_s, &plain.lo_s, &plain.hi_s };
    const double *pr[3] = { &proj.time_s, &proj.lo_s, &proj.hi_s };
    for (int i = 0; i < 3; i++) {
        *v[i] += *pr[i] - *pl[i];
        if (*v[i] < *pr[i])
            *v[i] = *pr[i];
    }
    if (proj.method > acc->method)
        acc->method = proj.method;
    return 0;
}

/* One table lookup of a whole op per pass.  Returns 0 or -1 (no rows). */
int est_lookup_op(const struct kernel_table *t, const struct op *op, const struct shape *s,
                     double bw_bs, struct lookup *acc)
{
    memset(acc, 0, sizeof *acc);
    if (!t)
        return -1;
    switch (op->kind) {
    case OP_GEMM:
        if (s->m > 0 && s->n > 0 && s->k > 0) {
            /* a batched GEMM is one kernel running its nb products side
             * by side: the rate of one GEMM of nb times the rows, not nb
             * launches of a small one */
            /* a complex product is the real one of [Re -Im; Im Re] (2m x
             * 2k) by [Re; Im] (2k x n): the same flops, on the same
             * units (cuBLAS's fp32 complex GEMMs run FMAs, as its IEEE
             * fp32 ones) */
            int64_t cx = ops_is_complex(op) ? 2 : 1;
            if (cx == 1 && s->nb > 1 && lk_batched(t, op, s, acc) == 0)
                return 0;
            if (lk_gemm(t, s->prec, cx * s->m * s->nb, s->n, cx * s->k, op->a_t, op->b_t, s->calls,
                        acc) != 0)
                return -1;
            if (acc->method == LOOKUP_EXTRAP) {
                /* Outside the rows the table measured, the fit of the
                 * neighbours says little (a skinny k = batch weight
                 * gradient is not a slower cube).  Such a GEMM runs at
                 * the measured rate of a GEMM of the same work, unless
                 * its memory traffic takes longer. */
                struct lookup cube = { .method = LOOKUP_NONE, .kind = KERNEL_GEMM };
                /* a batched GEMM's nb products are one kernel's work (as
                 * above), not nb calls of a tiny cube's launch-bound rate;
                 * the cube is aligned as the GEMM looked up is */
                int eb = precision_bytes(s->prec);
                int aligned = eb <= 0 || kernel_table_gemm_align_bytes(eb, (double)(cx * s->m * s->nb),
                                                                      (double)s->n, (double)(cx * s->k)) >= 16;
                if (lk_flops(t, s->prec, s->flops, s->calls, aligned, &cube) == 0 && cube.time_s > 0) {
                    double mem = bw_bs > 0 ? s->bytes / bw_bs : 0;
                    double f = (cube.time_s > mem ? cube.time_s : mem) / acc->time_s;
                    acc->time_s *= f;
                    acc->lo_s *= f;
                    acc->hi_s *= f;
                }
            }
            return 0;
        }
        return lk_flops(t, s->prec, s->flops, s->calls, 1, acc);
    case OP_RNN:
        if (lk_call(t, op, s, acc) == 0)
            return lk_rnn_projection(t, op, s, acc);
        memset(acc, 0, sizeof *acc);
        /* RNN: its GEMM per time step, nb time steps per call. */
        if (s->m > 0 && s->n > 0 && s->k > 0)
            return lk_gemm(t, s->prec, s->m, s->n, s->k, op->a_t, op->b_t, s->calls * s->nb, acc);
        return lk_flops(t, s->prec, s->flops, s->kernels, 1, acc);
    case OP_CONV:
        if (lk_conv_1d(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        if (conv_needs_call_lookup(s)) {
            if (lk_call(t, op, s, acc) != 0)
                return -1;
            if (acc->method == LOOKUP_EXTRAP) {
                struct lookup dense = { .method = LOOKUP_NONE };
                if (lk_grouped_as_dense(t, op, s, &dense) == 0)
                    *acc = dense;
            }
            return 0;
        }
        if (lk_conv(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        if (s->conv.groups > 1)
            return -1;
        return lk_flops(t, s->prec, s->flops, s->calls, 1, acc);
    case OP_ATTENTION:
        if (lk_call(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        return lk_flops(t, s->prec, s->flops, s->calls, 1, acc);
    case OP_COMM:
        return -1;
    case OP_NORM:
    case OP_EMBEDDING:
        if (lk_call(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        return est_lk_stream(t, s->prec, s->bytes, s->kernels, acc);
    default:
        if (lk_resample(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        if (lk_indexed(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        return est_lk_stream(t, s->prec, s->bytes, s->kernels, acc);
    }
}

enum kernel_kind est_table_kind(enum op_kind k)
{
    if (k == OP_CONV)
        return KERNEL_CONV;
    if (is_matrix_kind(k))
        return KERNEL_GEMM;
    return KERNEL_ELTWISE;
}

const struct machine *est_peer_lookup(const struct est *c, size_t i, int queued, const struct op *op,
                                      const struct shape *s, struct lookup *lk)
{
    const struct kernel_table *t = &c->ref->tables[i];
    const struct machine *m = est_machine_of(t, c->ref_m, c->n_ref_m);
    if (t == c->tt || !m || m->kind != c->m->kind || same_name(m->device_name, c->m->device_name)
        || (c->tt && est_machine_of(c->tt, m, 1))
        || (queued && t->software && strstr(t->software, KERNEL_TIMED_PER_CALL))
        || est_lookup_op(t, op, s, machine_mem_bw(m), lk) != 0 || !(lk->time_s > 0)
        || (lk->method > LOOKUP_INTERP && !lk->above))
        return NULL;
    return m;
}
