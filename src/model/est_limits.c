/* Physics limits on an op's estimate (enum est_limit): whatever method
 * gave it, an op is never faster than the target's roofline, and a time
 * moved from the profiled device changes by a ratio the two machines'
 * specs allow.  Each limit that fires is recorded on the op. */
#include "model/est_internal.h"

#include <math.h>
#include <string.h>

/* The least and the best rate a machine has for a precision, over the
 * precisions and units the framework may run it at: fp32 work may run as
 * tf32 (cuDNN convolutions do by default) or on the vector units (IEEE
 * matrix products), bf16 and fp16 share their units.  A limit must never
 * be above what the hardware can do, so it takes the best. */
static void family_rates(const struct machine *m, enum precision p, double *least, double *best)
{
    enum precision fam[2] = { p, p };
    if (p == PREC_FP32 || p == PREC_TF32) {
        fam[0] = PREC_FP32;
        fam[1] = PREC_TF32;
    } else if (p == PREC_BF16 || p == PREC_FP16) {
        fam[0] = PREC_BF16;
        fam[1] = PREC_FP16;
    }
    *least = 0;
    *best = 0;
    for (int i = 0; i < 2; i++)
        for (int u = 0; u < EXEC_COUNT; u++) {
            double r = (unsigned)fam[i] < PREC_COUNT ? m->peak_flops[fam[i]][u] : 0;
            if (r > *best)
                *best = r;
            if (r > 0 && (*least == 0 || r < *least))
                *least = r;
        }
}

static double family_peak(const struct machine *m, enum precision p)
{
    double least, best;
    family_rates(m, p, &least, &best);
    return best;
}

/* The bandwidth that bounds moving `bytes` in one kernel: that of the
 * fastest memory level that holds them.  A level that holds them but
 * gives no bandwidth (the datasheets quote none for L2) bounds nothing:
 * 0 is returned and no memory limit applies. */
static double level_bw(const struct machine *m, double bytes)
{
    for (size_t i = 0; i < m->n_mem; i++)
        if (m->mem[i].capacity_b > 0 && bytes <= m->mem[i].capacity_b)
            return m->mem[i].bw_bs;
    return machine_mem_bw(m);
}

/* The op's device time set to t_s by limit l, its spread moving with it. */
static void hold_to(struct op_estimate *oe, double t_s, enum est_limit l)
{
    double f = t_s / oe->device_s;
    oe->device_s = t_s;
    oe->time_lo_s *= f;
    oe->time_hi_s *= f;
    oe->limits |= 1u << l;
}

/* No faster than max(flops / peak, bytes / bandwidth) on the target (the
 * bytes where they are a lower bound, see below); the
 * methods that are not measurements (efficiency model, roofline) add the
 * target's launch latency per kernel as well.  Measured kernels (the op's
 * own, or table rows) are timed back to back, their launches overlapped,
 * so they are held to the rates alone. */
void est_limit_roofline(struct est *c, const struct op *op, const struct shape *s,
                        struct op_estimate *oe)
{
    if (!(oe->device_s > 0) || !c->tgt_gpu)
        return;
    double kernels = s->kernels > 0 ? s->kernels : 1;
    double pk = family_peak(c->m, s->prec);
    double bw = s->bytes > 0 ? level_bw(c->m, s->bytes / kernels) : 0;
    double floor_s = pk > 0 ? s->flops / pk : 0;
    /* The bytes of most ops are the reader's estimate (every input read,
     * one output written), which a kernel may beat (a cast writes fewer
     * bytes than it reads, a loss reads a slice of its input): a limit
     * must rest on a lower bound, so only a GEMM's bytes (its three
     * operands, the least it can move) bound a measured time.  The
     * efficiency model and the roofline are built from those same bytes
     * and are held to them. */
    int exact_bytes = op->kind == OP_GEMM || oe->method == EST_EFFICIENCY
                      || oe->method == EST_ROOFLINE;
    double mem_s = bw > 0 && exact_bytes ? s->bytes / bw : 0;
    /* A measured convolution may beat the peak on its direct-algorithm
     * flops (Winograd, FFT): its measurement stands, flagged. */
    int measured = oe->method != EST_EFFICIENCY && oe->method != EST_ROOFLINE;
    if (op->kind == OP_CONV && measured && floor_s > oe->device_s * (1 + 1e-9)) {
        oe->limits |= 1u << LIMIT_ABOVE_PEAK;
        est_warn(c, "a measured convolution runs above the %s peak of '%s' on its "
                    "direct-algorithm flops (a Winograd or FFT algorithm): its measurement is kept",
                 precision_name(s->prec), c->m->id ? c->m->id : "?");
        floor_s = 0;
    }
    if (mem_s > floor_s)
        floor_s = mem_s;
    if (oe->method == EST_EFFICIENCY || oe->method == EST_ROOFLINE)
        floor_s += kernels * c->m->launch_latency_s;
    if (!(floor_s > 0) || oe->device_s >= floor_s * (1 - 1e-9))
        return;
    hold_to(oe, floor_s, LIMIT_ROOFLINE);
}

/* The envelope of spec ratios (target time over source time) for an op
 * moved from the profiled machine at precision p0 to the target at p1: the
 * ratio of their peaks at those precisions (their best at one precision;
 * between two, from the least to the best rates of each), of the time to move its bytes
 * (the bandwidths', times the ratio of element sizes: the same elements in
 * another type), and of their launch latencies.  An op moves by one of
 * these or a mix of them, so its ratio lies between the least and the
 * largest.  Returns 0 when fewer than two of them are known. */
int est_spec_envelope(const struct machine *src, enum precision p0, const struct machine *tgt,
                      enum precision p1, double *lo, double *hi)
{
    double r[4];
    int n = 0;
    double a_lo, a, b_lo, b;
    family_rates(src, p0, &a_lo, &a);
    family_rates(tgt, p1, &b_lo, &b);
    if (a > 0 && b > 0) {
        if (p0 == p1) {
            r[n++] = a / b;
        } else {
            /* another precision may leave the units the source ran on
             * (IEEE fp32 on vector units, bf16 on matrix units): from the
             * source's slowest to the target's fastest and the reverse */
            r[n++] = a_lo / b;
            r[n++] = a / b_lo;
        }
    }
    a = machine_mem_bw(src);
    b = machine_mem_bw(tgt);
    if (a > 0 && b > 0)
        r[n++] = a / b * precision_bytes(p1) / precision_bytes(p0);
    if (src->launch_latency_s > 0 && tgt->launch_latency_s > 0)
        r[n++] = tgt->launch_latency_s / src->launch_latency_s;
    if (n < 2)
        return 0;
    *lo = *hi = r[0];
    for (int i = 1; i < n; i++) {
        if (r[i] < *lo)
            *lo = r[i];
        if (r[i] > *hi)
            *hi = r[i];
    }
    return 1;
}

/* A GPU-measured op estimated on another GPU at the same shape and
 * precision: its ratio to the measurement held inside the envelope.
 * Ops whose shape or precision changed move by their work as well, which
 * the spec ratios do not bound; they are left alone. */
void est_limit_ratio(struct est *c, const struct op *op, const struct shape *s0, int changed,
                     double src_dev, struct op_estimate *oe)
{
    double lo, hi;
    (void)op;
    if (changed || !c->src_gpu || !c->tgt_gpu || c->same_device || !c->src_m || !(src_dev > 0)
        || !(oe->device_s > 0) || !est_spec_envelope(c->src_m, s0->prec, c->m, s0->prec, &lo, &hi))
        return;
    double r = oe->device_s / src_dev, want = r;
    if (r < lo * (1 - 1e-9)) {
        want = lo;
        oe->limits |= 1u << LIMIT_RATIO_LOW;
    } else if (r > hi * (1 + 1e-9)) {
        want = hi;
        oe->limits |= 1u << LIMIT_RATIO_HIGH;
    } else {
        return;
    }
    double f = want / r;
    oe->device_s *= f;
    oe->time_lo_s *= f;
    oe->time_hi_s *= f;
    oe->ratio = want;
}

/* A recurrent layer timed by a harness that timed one call at a time
 * holds the host's launch of each time step's kernels (est_op.c warns):
 * hundreds of launch gaps, not the layer's kernels.  Against the rows
 * other GPUs measured at the same shape and precision, the target is
 * never slower than such a measurement times the largest of the two
 * machines' spec ratios (est_spec_envelope): no datasheet figure of the
 * target would account for more.  Only measurements inside another
 * table's rows (exact or interpolated), or past its largest rows at their
 * best rate (which a larger call can only beat), bound.  The host's
 * launches are the host's time (est_host_of), not the device's. */
void est_limit_peers(struct est *c, const struct op *op, const struct shape *s,
                     struct op_estimate *oe)
{
    if (!c->tgt_gpu || !c->ref || !c->tt || !(oe->device_s > 0) || op->kind != OP_RNN
        || (oe->method != EST_TABLE_EXACT && oe->method != EST_TABLE_INTERP)
        || !c->tt->software || !strstr(c->tt->software, KERNEL_TIMED_PER_CALL))
        return;
    double bound = INFINITY;
    for (size_t i = 0; i < c->ref->n; i++) {
        struct lookup lk;
        double lo, hi;
        const struct machine *m = est_peer_lookup(c, i, 0, op, s, &lk);
        if (!m || !est_spec_envelope(m, s->prec, c->m, s->prec, &lo, &hi))
            continue;
        if (lk.time_s * hi < bound)
            bound = lk.time_s * hi;
    }
    if (!(oe->device_s > bound * (1 + 1e-9)))
        return;
    hold_to(oe, bound, LIMIT_PEER);
}
