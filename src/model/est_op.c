#include "model/est_internal.h"
#include "model/ops.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ roofline */


/* Peak for an op's precision on a machine.  Matrix ops (GEMM, convolution,
 * recurrent, attention) run on the matrix units of their precision where
 * the machine has them, else on its vector units.  tf32 is a mode of the
 * fp32 matrix units: where there are none, tf32 work runs as fp32 (the
 * framework's tf32 switch has no effect there).  The other ops compute in
 * fp32 whatever they store (PyTorch's elementwise and reduction kernels
 * upcast bf16/fp16 to fp32, their "opmath" type), so their precision's
 * vector peak, else the fp32 vector peak, is theirs.  A matrix precision
 * the machine has no units for at all (bf16 on a V100) is emulated: the
 * fp32 peak, with a warning.  Past fp32 the first precision the file gives. */
double est_peak_of(struct est *c, const struct machine *m, enum precision p, int matrix)
{
    double v = m->peak_flops[p][EXEC_VECTOR];
    double x = matrix ? m->peak_flops[p][EXEC_MATRIX] : 0;
    double best = x > v ? x : v;
    if (best > 0)
        return best;
    double f32 = m->peak_flops[PREC_FP32][EXEC_VECTOR];
    if (matrix && m->peak_flops[PREC_FP32][EXEC_MATRIX] > f32)
        f32 = m->peak_flops[PREC_FP32][EXEC_MATRIX];
    if (f32 > 0) {
        if (matrix && p != PREC_TF32 && p != PREC_FP32)
            est_warn(c, "machine '%s' has no %s units: its %s matrix ops are estimated as "
                        "emulated in fp32, at its fp32 peak",
                     m->id ? m->id : "?", precision_name(p), precision_name(p));
        return f32;
    }
    enum precision alt[] = { PREC_TF32, PREC_BF16, PREC_FP16, PREC_FP64 };
    for (size_t i = 0; i < sizeof alt / sizeof alt[0]; i++) {
        double a = m->peak_flops[alt[i]][EXEC_VECTOR];
        double b = matrix ? m->peak_flops[alt[i]][EXEC_MATRIX] : 0;
        if (b > a)
            a = b;
        if (a > 0) {
            est_warn(c, "machine '%s' has no %s or fp32 peak; using its %s peak instead",
                     m->id ? m->id : "?", precision_name(p), precision_name(alt[i]));
            return a;
        }
    }
    return 0;
}

static void roof_of(struct est *c, const struct machine *m, const struct op *op,
                    const struct shape *s, struct roof *r)
{
    double pk = s->flops > 0 ? est_peak_of(c, m, s->prec, is_matrix_kind(op->kind)) : 0;
    double bw = machine_mem_bw(m);
    r->compute_s = pk > 0 ? s->flops / pk : 0;
    r->memory_s = bw > 0 ? s->bytes / bw : 0;
    r->latency_s = s->kernels * m->launch_latency_s;
}

/* The roofline term that limits the op: compute or memory, whichever is
 * larger, unless even the larger one is below the op's launch cost, in
 * which case no hardware rate matters and the op is latency-bound.  A
 * kernel that runs far below its roofline (a badly shaped GEMM) is still
 * compute- or memory-bound: it would speed up with more of that resource,
 * not with cheaper launches. */
static enum est_bound bound_of(const struct roof *r)
{
    double cm = r->compute_s > r->memory_s ? r->compute_s : r->memory_s;
    if (cm <= r->latency_s)
        return BOUND_LATENCY;
    return r->compute_s >= r->memory_s ? BOUND_COMPUTE : BOUND_MEMORY;
}

/* -------------------------------------------------------- one op chain */

/* A table row timed by device events around one call holds the measuring
 * harness's dispatch gap when its kernel is shorter than that gap: the
 * start event runs, the device waits for the host to launch the kernel,
 * then runs it.  With gap d, a kernel of time k measures k + d when k < d
 * and k when k >= d (the launch then overlaps the previous kernel), so a
 * measured t near d is mostly gap and one above 2d all kernel.  The
 * table's smallest row of the kind (its floor) is d plus a kernel of next
 * to nothing.  Between d and 2d the gap is taken out in proportion,
 * 2 - t/d; no kernel is taken below one launch of the target.  Returns
 * the factor for an absolute use of the lookup (table-exact and
 * table-interp); ratios of two lookups keep the gap on both sides. */
static double less_dispatch_gap(const struct est *c, const struct op_estimate *oe,
                                const struct lookup *lk)
{
    if (!c->tgt_gpu || !(lk->calls > 0) || !(lk->time_s > 0) || (unsigned)oe->prec >= PREC_COUNT)
        return 1;
    double d = c->floor_s[lk->kind][oe->prec];
    double t = lk->time_s / lk->calls;
    double w = d > 0 ? 2 - t / d : 0;
    if (w <= 0)
        return 1;
    double k = t - d * (w > 1 ? 1 : w);
    if (k < c->m->launch_latency_s)
        k = c->m->launch_latency_s;
    return k < t ? k / t : 1;
}

static void set_from_lookup(struct op_estimate *oe, const struct lookup *lk, double factor)
{
    oe->device_s = lk->time_s * factor;
    oe->time_lo_s = lk->lo_s * factor;
    oe->time_hi_s = lk->hi_s * factor;
    oe->lookup = lookup_method_name(lk->method);
    oe->resample_rows = lk->kind == KERNEL_RESAMPLE;
}

/* PyTorch ops that only make a new view of a tensor (aliases sharing its
 * storage): they launch no kernel on a GPU.  A CPU profile charges them
 * host time, which on a GPU target is dispatch, not device time.  A view
 * that must copy (reshape of a strided tensor) records the copy as an op
 * of its own. */
int est_is_view_op(const char *name)
{
    static const char *const views[] = {
        "view", "_unsafe_view", "view_as", "reshape", "t", "transpose", "permute", "expand",
        "expand_as", "as_strided", "slice", "select", "narrow", "split", "split_with_sizes",
        "chunk", "unbind", "unsqueeze", "squeeze", "flatten", "unflatten", "detach", "detach_",
        "alias", "broadcast_tensors", "numpy_T", "lift_fresh",
    };
    if (!name)
        return 0;
    if (strncmp(name, "aten::", 6) == 0)
        name += 6;
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (strcmp(name, views[i]) == 0)
            return 1;
    return 0;
}

/* Work of an op at a shape: flops for matrix ops, bytes for the others
 * (either when the other is absent). */
static double work_of(const struct op *op, const struct shape *s)
{
    double a = is_matrix_kind(op->kind) ? s->flops : s->bytes;
    double b = is_matrix_kind(op->kind) ? s->bytes : s->flops;
    return a > 0 ? a : b;
}

/* Time of a measured kernel whose work grows by f: its fixed part (the
 * device's per-kernel cost, the machine's `launch` per kernel, never more
 * than the time itself) stays, the rest moves f times the bytes or flops.
 * Above that fixed part a kernel is running its work, so the rest scales
 * with it at the rate the kernel achieved. */
static double linear_above_fixed(const struct est *c, double time_s, double kernels, double f)
{
    double fixed = kernels * c->m->launch_latency_s;
    if (fixed > time_s)
        fixed = time_s;
    return fixed + (time_s - fixed) * f;
}

/* The rows a norm kernel gives one thread block each (PyTorch's CUDA
 * kernels): a layer or RMS norm's rows of its normalized size (N x S); a
 * group norm's groups of each sample (N x groups, the row-wise moments),
 * its backward's channels of each sample (N x C, the per-channel sums
 * that come first); a batch norm's channels (C: an instance norm's
 * gradient is one over N x C channels).  0 when the op is no norm or its
 * sizes are not known. */
static double norm_rows(const struct op *op, const struct shape *s)
{
    const int64_t *d = s->kdim;
    if (op->kind != OP_NORM || d[NORM_N] <= 0 || d[NORM_C] <= 0)
        return 0;
    const char *k = op_sizes(op)->kop;
    if (strcmp(k, "layer_norm") == 0 || strcmp(k, "rms_norm") == 0)
        return (double)d[NORM_N] * (double)(d[NORM_S] > 0 ? d[NORM_S] : 1);
    if (strcmp(k, "group_norm") == 0) {
        int64_t per = op->name && strstr(op->name, "backward") ? d[NORM_C] : d[NORM_GROUPS];
        return per > 0 ? (double)d[NORM_N] * (double)per : 0;
    }
    if (strcmp(k, "batch_norm") == 0)
        return (double)d[NORM_C];
    return 0;
}

/* The multiprocessors both devices have (<compute-units>), 0 when the
 * target's file does not give them. */
static int compute_units(const struct est *c)
{
    int cu = c->m->compute_units;
    if (c->src_m && c->src_m->compute_units > 0 && c->src_m->compute_units < cu)
        cu = c->src_m->compute_units;
    return cu;
}

/* A measured time t of s0 at the target's shape s1, whose work grows by
 * f: linear_above_fixed, except for a norm kernel of fewer rows than the
 * devices have multiprocessors.  Each row's block then runs alone on
 * one, and the kernel takes as long as one row takes (its bandwidth is
 * mostly idle): rows that grow up to one per multiprocessor add nothing,
 * rows beyond queue behind them, and a row's own work scales as its
 * length.  Never less than the target's time for the op's bytes at its
 * bandwidth.  When the rule sets the time, LIMIT_IDLE_ROWS goes into
 * *limits. */
static double grow_work(const struct est *c, const struct op *op, const struct shape *s0,
                        const struct shape *s1, double t, double f, unsigned *limits)
{
    double lin = linear_above_fixed(c, t, s1->kernels, f);
    double r0 = norm_rows(op, s0), r1 = norm_rows(op, s1);
    int cu = compute_units(c);
    if (cu <= 0 || !(r0 > 0) || !(r1 > 0) || r0 >= cu || r1 == r0)
        return lin;
    double g = f * r0 / (r1 < cu ? r1 : cu);
    double rows_t = linear_above_fixed(c, t, s1->kernels, g);
    double bw = machine_mem_bw(c->m);
    double mem_s = bw > 0 && s1->bytes > 0 ? s1->bytes / bw : 0;
    if (rows_t < mem_s)
        rows_t = mem_s;
    *limits |= 1u << LIMIT_IDLE_ROWS;
    return rows_t;
}

/* The ratio of the op's time on the target to its time on the profiled
 * device, from the ratio r_bw of what bounds a memory-bound kernel (the
 * tables' rows, or the machines' bandwidths).  A kernel that moves its
 * bytes at only a fraction f of the profiled device's bandwidth is held
 * by something else for the rest of its time (too little parallelism:
 * a batch norm over few channels, a reduction to one value), which moves
 * with the devices' cores and clocks, their fp32 vector peaks: the time
 * splits into the two parts in the measured proportion, a roofline
 * reading of the measurement.  Matrix ops keep r_bw (their rows hold
 * their shape's own efficiency), and so does a change of precision
 * (prec, the target's): another element type runs another kernel, whose
 * other limits the rows measured (PyTorch's bf16 batch norm takes longer
 * per element than its fp32 one). */
static double off_roof_ratio(struct est *c, const struct op *op, const struct shape *s0,
                             enum precision prec, double src_dev, double r_bw)
{
    if (is_matrix_kind(op->kind) || prec != s0->prec || !c->src_m || !(src_dev > 0)
        || !(s0->bytes > 0))
        return r_bw;
    double bw = machine_mem_bw(c->src_m);
    if (!(bw > 0))
        return r_bw;
    double f = s0->bytes / bw / src_dev;
    if (f >= 1)
        return r_bw;
    double r_core = 1;
    if (c->src_m != c->m) {
        double a = est_peak_of(c, c->src_m, PREC_FP32, 0), b = est_peak_of(c, c->m, PREC_FP32, 0);
        if (!(a > 0) || !(b > 0))
            return r_bw;
        r_core = a / b;
    }
    return f * r_bw + (1 - f) * r_core;
}

/* scaled-table: the measured time moves to the target's kernels by the
 * ratio of the two tables at the profiled shape (device and precision
 * change the kernel, not the work), then to the target's batch:
 *  - memory-bound ops (elementwise, norm, reduction...): linearly in their
 *    bytes above the fixed part.  The bandwidth table's small rows hold
 *    ~18 us of harness overhead per call, far above such a kernel's own
 *    fixed cost, so a ratio of its rows says ~1x where the work grew 4x;
 *    and a kernel much slower than the table's copies (batch norm) is
 *    paced by its own work, not by the table's;
 *  - GEMM/conv outside the rows the table measured (ResNet's batch 256
 *    convolutions against rows of batch 4..32): linearly, at the rate the
 *    kernel achieved, as the table's extrapolation says nothing there;
 *  - GEMM/conv within the rows: by the target table's ratio between the two shapes, kept
 *    between "takes no less time" and "runs no slower per flop" (the
 *    linear bound): a larger problem never lowers the achieved rate, and
 *    an interpolated ratio outside these bounds is interpolation noise.
 * Returns -1 when a table lacks the shape (the caller falls back). */
/* scaled_table's three lookups (the source's row, the target's at the
 * profiled batch and at the new one) of shapes a, b, t redone, when the
 * first ones took rows of two kinds.  0, or -1 when one finds nothing. */
static int lookup_again(const struct est *c, const struct op *op, const struct shape *a,
                        const struct shape *b, const struct shape *t, double src_bw,
                        struct lookup *ls, struct lookup *lp, struct lookup *lt)
{
    double bw = machine_mem_bw(c->m);
    return est_lookup_op(c->st, op, a, src_bw, ls) != 0 || !(ls->time_s > 0)
                   || est_lookup_op(c->tt, op, b, bw, lp) != 0 || !(lp->time_s > 0)
                   || est_lookup_op(c->tt, op, t, bw, lt) != 0 || !(lt->time_s > 0)
               ? -1
               : 0;
}

static int scaled_table(struct est *c, const struct op *op, const struct shape *s0,
                        const struct shape *s, const struct lookup *lt_in, double src_dev,
                        struct op_estimate *oe, int *layout_fallback)
{
    struct lookup ls, lp, lt_own = *lt_in;
    const struct lookup *lt = lt_in;
    struct shape sp = *s0;
    struct est nobatch = *c;
    nobatch.b_new = 0;
    est_retarget(&nobatch, op, &sp);
    const struct machine *pm = est_profiled_machine(c);
    double src_bw = pm ? machine_mem_bw(pm) : 0;
    if (est_lookup_op(c->st, op, s0, src_bw, &ls) != 0 || !(ls.time_s > 0))
        return -1;
    if (est_lookup_op(c->tt, op, &sp, machine_mem_bw(c->m), &lp) != 0 || !(lp.time_s > 0))
        return -1;
    if (ls.layout_fallback != lp.layout_fallback) {
        /* one table has rows of the convolution's layout, the other not:
         * a ratio of rows of two layouts says nothing of the machines, so
         * all three lookups take the contiguous rows both have */
        struct shape a = *s0, b = sp, t = *s;
        a.contiguous = b.contiguous = t.contiguous = 1;
        if (lookup_again(c, op, &a, &b, &t, src_bw, &ls, &lp, &lt_own) != 0)
            return -1;
        lt = &lt_own;
    } else if (ls.kind != lp.kind || ls.op_rows != lp.op_rows) {
        /* an upsampling op that one table times by its resample rows and
         * the other by its bytes, or an indexed op that one table has
         * rows of and the other not: a ratio of the two says nothing of
         * the machines, so all three lookups take the bytes */
        struct shape a = *s0, b = sp, t = *s;
        a.by_bytes = b.by_bytes = t.by_bytes = 1;
        if (lookup_again(c, op, &a, &b, &t, src_bw, &ls, &lp, &lt_own) != 0)
            return -1;
        lt = &lt_own;
    }
    *layout_fallback = lp.layout_fallback;
    /* Rows extrapolated past the tables say little of how the two kernels
     * compare (two extrapolations of a grouped convolution far past the
     * rows' groups had bf16 45 times fp32): their ratio is held inside the
     * envelope of the machines' spec ratios at the two precisions, what
     * physics allows, as a measured ratio is not. */
    double r_tab = lp.time_s / ls.time_s, env_lo, env_hi;
    unsigned held = 0;
    if ((ls.method == LOOKUP_EXTRAP || lp.method == LOOKUP_EXTRAP) && pm
        && est_spec_envelope(pm, s0->prec, c->m, sp.prec, &env_lo, &env_hi)) {
        if (r_tab < env_lo * (1 - 1e-9)) {
            r_tab = env_lo;
            held = 1u << LIMIT_RATIO_LOW;
        } else if (r_tab > env_hi * (1 + 1e-9)) {
            r_tab = env_hi;
            held = 1u << LIMIT_RATIO_HIGH;
        }
    }
    double t1 = src_dev * off_roof_ratio(c, op, s0, sp.prec, src_dev, r_tab);
    double w0 = work_of(op, &sp), w1 = work_of(op, s);
    double t = t1 * lt->time_s / lp.time_s;
    if (w0 > 0 && w1 > 0 && w1 != w0) {
        double lin = grow_work(c, op, &sp, s, t1, w1 / w0, &oe->limits);
        if (!is_matrix_kind(op->kind) || lt->method == LOOKUP_EXTRAP) {
            t = lin;
        } else {
            double lo = t1 < lin ? t1 : lin, hi = t1 < lin ? lin : t1;
            t = t < lo ? lo : t > hi ? hi : t;
        }
    }
    oe->method = EST_SCALED_TABLE;
    oe->ratio = t / src_dev;
    oe->limits |= held;
    set_from_lookup(oe, lt, t / lt->time_s);
    return 0;
}

/* The table whose rows give a recurrent layer's change of precision or
 * batch on its own device when the device's table timed one call at a
 * time: there the rows hold each time step's launch gap, which stays the
 * same when the kernels get faster (an H200 LSTM row's bf16/fp32 ratio is
 * 0.7 where its traces show 0.1).  Another GPU's table of calls queued
 * back to back times the kernels; its rows' ratio is the layer's.  NULL
 * when no such table measures the op. */
static const struct kernel_table *rnn_ratio_table(const struct est *c, const struct op *op,
                                                  const struct shape *s, struct lookup *lk)
{
    if (op->kind != OP_RNN || !c->same_device || !c->tt || !c->ref || !c->tt->software
        || !strstr(c->tt->software, KERNEL_TIMED_PER_CALL))
        return NULL;
    for (size_t i = 0; i < c->ref->n; i++)
        if (est_peer_lookup(c, i, 1, op, s, lk))
            return &c->ref->tables[i];
    return NULL;
}

/* scaled: the op's own measurement on the profiled GPU moved to the
 * target by the ratio of the two machines' specs for what limits it (the
 * peak of its precision for matrix ops, memory bandwidth for the others),
 * then by its work where the shape changed.  Needs both machines' files
 * and a GPU measurement; returns -1 otherwise. */
static int scaled_measurement(struct est *c, const struct op *op, const struct shape *s0,
                              const struct shape *s, int changed, struct op_estimate *oe)
{
    double src_dev = c->src_gpu ? op->device_time_s : 0;
    if (!(src_dev > 0) || !c->src_m || c->src_m == c->m || !c->tgt_gpu)
        return -1;
    double a, b;
    if (is_matrix_kind(op->kind)) {
        a = est_peak_of(c, c->src_m, s0->prec, 1);
        b = est_peak_of(c, c->m, s->prec, 1);
    } else {
        a = machine_mem_bw(c->src_m);
        b = machine_mem_bw(c->m);
    }
    if (!(a > 0) || !(b > 0))
        return -1;
    double t = src_dev * off_roof_ratio(c, op, s0, s->prec, src_dev, a / b);
    double w0 = work_of(op, s0), w1 = work_of(op, s);
    if (changed && w0 > 0 && w1 > 0)
        t = grow_work(c, op, s0, s, t, w1 / w0, &oe->limits);
    oe->method = EST_SCALED;
    oe->ratio = t / src_dev;
    oe->device_s = oe->time_lo_s = oe->time_hi_s = t;
    oe->lookup = NULL;
    return 0;
}

/* An op the target's tables do not hold (a target known only from its
 * file, or rows of its table far from the op's shape): the op at the
 * target's shape in another GPU's table, moved by the two machines' specs (peaks of its
 * precision for matrix ops; for the others the share of the row's time
 * at that GPU's bandwidth by the bandwidth ratio, the rest by the fp32
 * vector peaks', as off_roof_ratio reads a measurement).  The nearest
 * measured data there is: a row of the op's own shape, where the
 * efficiency model pools the rows of every shape of its size.  Only tables
 * timed with the calls queued (kernel times): rows timed one call at a
 * time hold the harness's dispatch gap in short kernels and each time
 * step's launch in recurrent layers; and no convolution from rows of
 * autotuned cuDNN algorithms, which PyTorch does not choose by default.
 * Returns the distance, or INFINITY when no table measures the op. */
static double peer_scaled(struct est *c, const struct op *op, const struct shape *s,
                          struct op_estimate *oe)
{
    if (!c->tgt_gpu || !c->ref || op->kind == OP_COMM)
        return INFINITY;
    for (size_t i = 0; i < c->ref->n; i++) {
        const struct kernel_table *t = &c->ref->tables[i];
        struct lookup lk;
        const struct machine *m;
        if ((op->kind == OP_CONV && t->software && strstr(t->software, KERNEL_CUDNN_AUTOTUNED))
            || !(m = est_peer_lookup(c, i, 1, op, s, &lk)))
            continue;
        double r;
        if (is_matrix_kind(op->kind)) {
            double a = est_peak_of(c, m, s->prec, 1), b = est_peak_of(c, c->m, s->prec, 1);
            if (!(a > 0) || !(b > 0))
                continue;
            r = a / b;
        } else {
            double bw = machine_mem_bw(m), bt = machine_mem_bw(c->m);
            double a = est_peak_of(c, m, PREC_FP32, 0), b = est_peak_of(c, c->m, PREC_FP32, 0);
            if (!(bw > 0) || !(bt > 0) || !(a > 0) || !(b > 0))
                continue;
            double f = s->bytes > 0 ? s->bytes / bw / lk.time_s : 1;
            if (f > 1)
                f = 1;
            r = f * bw / bt + (1 - f) * a / b;
        }
        oe->method = EST_SCALED_TABLE;
        oe->ratio = r;
        set_from_lookup(oe, &lk, r);
        /* said once per table, not formatted again for each of its ops */
        if (c->peer_said != t && !c->tt)
            est_warn(c, "no table for '%s': ops that '%s' rows measure at their shape are moved "
                        "from them by the two machines' specs", c->m->id ? c->m->id : "?",
                     t->hw ? t->hw : "?");
        else if (c->peer_said != t)
            est_warn(c, "ops that the tables of '%s' do not reach (no rows of their kind, or rows "
                        "only below or above their size) and '%s' rows measure at their shape are "
                        "moved from those rows by the two machines' specs",
                     c->m->id ? c->m->id : "?", t->hw ? t->hw : "?");
        c->peer_said = t;
        return lk.method == LOOKUP_EXTRAP ? DIST_EXTRAP_SCALED : DIST_SCALED;
    }
    return INFINITY;
}

/* The candidates left once no scaled-table estimate applies, each with
 * its distance from measured data; the nearest wins (see the DIST_
 * constants).  Returns the winner's distance. */
static double nearest_candidate(struct est *c, const struct op *op, const struct shape *s0,
                                const struct shape *sp, int changed, const struct lookup *lt,
                                int have_t, const struct roof *r, struct op_estimate *oe)
{
    struct shape s = *sp;
    double src_dev = c->src_gpu ? op->device_time_s : 0;
    double best = INFINITY;
    if (have_t) {
        best = lt->method == LOOKUP_EXACT ? DIST_EXACT : lt->method == LOOKUP_INTERP ? DIST_INTERP
                                                                                   : DIST_EXTRAP;
        /* Past the largest measured sizes a kernel keeps its nearest rows'
         * rate (kernel_lookup.c clamps it to theirs): a measurement scaled
         * by the op's work, and a larger problem fills the device no worse.
         * Below the smallest rows latency takes over, which the rate does
         * not follow: that extrapolation stays far. */
        if (lt->method == LOOKUP_EXTRAP && lt->above)
            best = DIST_EXTRAP_SCALED;
        oe->method = lt->method == LOOKUP_EXACT ? EST_TABLE_EXACT : EST_TABLE_INTERP;
        set_from_lookup(oe, lt, less_dispatch_gap(c, oe, lt));
    }
    struct op_estimate alt = *oe;
    if (scaled_measurement(c, op, s0, &s, changed, &alt) == 0 && DIST_SCALED < best) {
        *oe = alt;
        best = DIST_SCALED;
    }
    double d;
    alt = *oe;
    /* another GPU's row where the target has no table, or where its own
     * rows do not reach the op (none, or only below or above its size).
     * A peer row measured at the op's size (DIST_SCALED) beats the
     * target's rate carried past its largest rows (DIST_EXTRAP_SCALED):
     * the spec ratio between two GPUs is one known quantity, while the
     * rate past the rows assumes the kernel and its bottleneck stay the
     * same as the size grows, which an embedding backward (sorting its
     * indices) or a batched product that turns memory-bound does not
     * keep.  A peer row that extrapolates too ties and loses. */
    if (best > DIST_SCALED && (d = peer_scaled(c, op, &s, &alt)) < best) {
        *oe = alt;
        best = d;
    }
    double eff_s;
    if (best > DIST_EFFICIENCY && c->eff && op->kind != OP_COMM
        && est_eff_time(c->eff, c->m, op, &s, &eff_s) == 0) {
        oe->method = EST_EFFICIENCY;
        oe->resample_rows = 0;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = eff_s;
        best = DIST_EFFICIENCY;
    }
    if (best > DIST_ROOFLINE && (r->compute_s > 0 || r->memory_s > 0) && op->kind != OP_COMM) {
        oe->method = EST_ROOFLINE;
        oe->resample_rows = 0;
        double cm = r->compute_s > r->memory_s ? r->compute_s : r->memory_s;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = cm + r->latency_s;
        best = DIST_ROOFLINE;
    }
    if (isinf(best)) {
        /* nothing to go by: the measured time as it is */
        oe->method = EST_SCALED;
        oe->resample_rows = 0;
        double base = c->src_gpu ? src_dev : op->time_s;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = base;
        if (!c->same_device && base > s.kernels * c->m->launch_latency_s)
            est_warn(c, "%s ops without flops, bytes or table rows keep their measured time "
                     "(no source machine to scale by)", op_kind_name(op->kind));
        best = DIST_ROOFLINE;
    }
    return best;
}

/* What every method's estimate goes through: the counts of rows used in
 * place of the op's own kind (contiguous rows for a channels-last
 * convolution, undilated ones for a dilated one), the physical limits,
 * what a GPU adds to a CPU trace's biased convolution, and the bound. */
static void finish(struct est *c, const struct op *op, const struct shape *s0, const struct shape *s,
                   int changed, double src_dev, const struct roof *r, int layout_fallback,
                   int dilation_unmeasured, struct op_estimate *oe)
{
    if (oe->method == EST_TABLE_EXACT || oe->method == EST_TABLE_INTERP || oe->method == EST_SCALED_TABLE) {
        c->n_channels_last += layout_fallback;
        c->n_dilation_unmeasured += dilation_unmeasured;
    }
    if (oe->method != EST_MEASURED) {
        est_limit_ratio(c, op, s0, changed, src_dev, oe);
        est_limit_peers(c, op, s, oe);
        est_limit_roofline(c, op, s, oe);
        double bias_s = est_conv_bias_s(c, op, s);
        oe->device_s += bias_s;
        oe->time_lo_s += bias_s;
        oe->time_hi_s += bias_s;
    }
    oe->bound = bound_of(r);
    if (!(oe->flops > 0) && !(oe->bytes > 0) && oe->device_s > 0 && oe->method != EST_MEASURED
        && oe->method != EST_SCALED_TABLE)
        oe->bound = BOUND_LATENCY;
}

/* An op of the passes that --batch should move and did not (the
 * estimate says how many, and their share of the device time). */
static void count_batch_kept(struct est *c, const struct op *op, const struct shape *s,
                             const struct op_estimate *oe)
{
    if (c->b_new > 0 && c->b_old > 0 && c->b_new != c->b_old && !s->batch_moved
        && (op->phase == PHASE_FORWARD || op->phase == PHASE_BACKWARD) && op->kind != OP_OPTIMIZER
        && oe->device_s > 0) {
        c->n_batch_kept++;
        c->batch_kept_dev_s += oe->device_s;
    }
}

/* Bilinear, bicubic and trilinear upsampling on a GPU, from a trace that
 * has no device time of its own for them, timed by something other than
 * resample rows (the target's or another GPU's).  PyTorch's CUDA kernels give
 * each thread one output pixel and loop over the planes (N x C) inside
 * it, and the backward adds into the source pixels with atomics, so the
 * time follows the planes and the scale, not the bytes that the
 * elementwise rows time them by: 5 to 20 times these on an H200
 * (estimators/h200/upsample-probe/ORIGIN.md).  Counted for a warning. */
static void count_resample_by_bytes(struct est *c, const struct op *op, const struct op_estimate *oe)
{
    static const char *const names[] = { "upsample_bilinear", "upsample_bicubic", "upsample_trilinear" };
    if (c->src_gpu || !c->tgt_gpu || !(oe->device_s > 0))
        return;
    if (op_is_resample(op) && (op_has_flag(op, "channels-last") || oe->resample_rows))
        return;
    const char *base = ops_base_name(op);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(base, names[i])) {
            c->n_resample_bytes++;
            c->resample_bytes_dev_s += oe->device_s;
            return;
        }
}

/* What the estimate's warnings count of the op. */
static void count_notes(struct est *c, const struct op *op, const struct shape *s,
                        const struct op_estimate *oe)
{
    count_batch_kept(c, op, s, oe);
    count_resample_by_bytes(c, op, oe);
    if (s->fp32_share >= 0.5) {
        c->n_promoted++;
        c->promoted_dev_s += oe->device_s;
    }
}

void est_op(struct est *c, const struct op *op, struct op_estimate *oe)
{
    struct shape s0, s;
    est_shape_of(c, op, &s0);
    s = s0;
    int changed = est_retarget(c, op, &s);
    double src_dev = c->src_gpu ? op->device_time_s : 0;
    struct roof r;
    int layout_fallback = 0, dilation_unmeasured = 0;

    oe->name = op->name;
    oe->kind = op->kind;
    oe->phase = op->phase;
    oe->prec = s.prec;
    if (!c->src_gpu && c->tgt_gpu && !c->cudnn_tf32 && s.prec == PREC_FP32
        && (op->kind == OP_CONV || op->kind == OP_RNN) && machine_has_tf32(c->m))
        est_warn(c, "fp32 convolutions and recurrent layers are taken as IEEE fp32 (TF32 off), as "
                    "the tables' fp32 rows: a CPU trace does not say what the GPU run will use, and "
                    "PyTorch's default is TF32 (torch.backends.cudnn fp32_precision \"tf32\"): "
                    "--cudnn-tf32 estimates that");
    oe->count = op->count;
    oe->flops = s.flops;
    oe->bytes = s.bytes;
    oe->src_time_s = op->time_s;
    oe->ratio = 1;
    oe->resample_rows = 0;
    roof_of(c, c->m, op, &s, &r);

    if (c->src_gpu && c->same_device && !changed) {
        oe->method = EST_MEASURED;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = src_dev;
        goto out;
    }
    if (c->src_gpu && !(src_dev > 0) && c->tgt_gpu) {
        /* No kernel of its own (views, reshapes): nothing to run. */
        oe->method = c->same_device ? EST_MEASURED : EST_SCALED;
        oe->device_s = 0;
        goto out;
    }

    if (!c->src_gpu && c->tgt_gpu && est_is_view_op(op->name)) {
        /* a view: its host time is a view's dispatch (est_host_of), its device time nil */
        oe->method = EST_ROOFLINE;
        oe->device_s = 0;
        goto out;
    }
    struct lookup lt;
    int have_t = est_lookup_op(c->tt, op, &s, machine_mem_bw(c->m), &lt) == 0;
    layout_fallback = have_t && lt.layout_fallback;
    c->n_grouped_dense += have_t && lt.grouped_dense;
    c->n_head_padded += have_t && lt.head_padded;
    dilation_unmeasured = have_t && lt.dilation_unmeasured;
    /* rows of other filters extrapolate: neither they nor their ratio
     * between two tables stand for the op (a 5x5x5 convolution's bf16
     * rows of 3x3x3 filters read 2-3x slower than its TF32 ones, where the
     * op runs 3x faster); the nearest other candidate takes it */
    int filter_unmeasured = have_t && lt.filter_unmeasured;
    c->n_filter_unmeasured += filter_unmeasured;
    if (!have_t && c->tt && op->kind != OP_COMM) {
        if (!kernel_table_has(c->tt, est_table_kind(op->kind), s.prec))
            est_warn(c, "tables of '%s' have no %s rows for %s ops; falling back to the %s",
                     c->tt->hw ? c->tt->hw : "?", precision_name(s.prec), op_kind_name(op->kind),
                     c->eff ? "efficiency model" : "roofline");
    }
    struct lookup lr;
    const struct kernel_table *rt = have_t && src_dev > 0 && changed ? rnn_ratio_table(c, op, &s, &lr)
                                                                      : NULL;
    if (rt) {
        struct est peer = *c;
        peer.tt = peer.st = rt;
        int ignored;
        if (scaled_table(&peer, op, &s0, &s, &lr, src_dev, oe, &ignored) == 0) {
            est_warn(c, "recurrent layers of '%s' change precision or batch by the ratio of '%s' rows: "
                        "its own rows were timed one call at a time", c->tt->hw ? c->tt->hw : "?",
                     rt->hw ? rt->hw : "?");
            oe->distance = lr.method == LOOKUP_EXTRAP ? DIST_EXTRAP_SCALED : DIST_SCALED_TABLE;
            goto out;
        }
    }
    if (have_t && c->st && src_dev > 0 && !(op->kind == OP_CONV && c->conv_choice_differs)
        && !filter_unmeasured
        && scaled_table(c, op, &s0, &s, &lt, src_dev, oe, &layout_fallback) == 0) {
        oe->distance = lt.method == LOOKUP_EXTRAP ? DIST_EXTRAP_SCALED : DIST_SCALED_TABLE;
        goto out;
    }
    oe->distance = nearest_candidate(c, op, &s0, &s, changed, &lt, have_t, &r, oe);
    /* a layer's call launches a kernel or more per time step; timed one
     * call at a time, the host launched them as the device ran them, so
     * such a row holds every launch's gap, which less_dispatch_gap (one
     * gap per call) does not take out */
    if (op->kind == OP_RNN && (oe->method == EST_TABLE_EXACT || oe->method == EST_TABLE_INTERP)
        && c->tt->software && strstr(c->tt->software, KERNEL_TIMED_PER_CALL))
        est_warn(c, "recurrent rows of '%s' were timed one call at a time: they hold the host's "
                    "launch of each time step's kernels: its recurrent layers are held to other "
                    "GPUs' rows where those measure them (limit peer-table), else upper bounds",
                 c->tt->hw ? c->tt->hw : "?");
out:
    finish(c, op, &s0, &s, changed, src_dev, &r, layout_fallback, dilation_unmeasured, oe);
    count_notes(c, op, &s, oe);
}
