#include "model/est_internal.h"
#include "model/ops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"


void est_replay_index_build(const struct profile *p, struct replay_index *ri)
{
    size_t n = p->n_ops;
    memset(ri, 0, sizeof *ri);
    for (size_t i = 0; i < n; i++)
        if (p->ops[i].id > ri->max_id)
            ri->max_id = p->ops[i].id;
    ri->idx = xmalloc((ri->max_id + 1) * sizeof *ri->idx);
    ri->ncalls = xcalloc(n + 1, sizeof *ri->ncalls);
    for (size_t i = 0; i <= ri->max_id; i++)
        ri->idx[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        ri->idx[p->ops[i].id] = i;
    int last_step = -1;
    for (size_t j = 0; j < p->n_calls; j++) {
        size_t id = p->calls[j].op_id;
        if (id <= ri->max_id && ri->idx[id] != SIZE_MAX)
            ri->ncalls[ri->idx[id]] += 1;
        if (p->calls[j].step != last_step)
            ri->steps++;
        last_step = p->calls[j].step;
    }
}

void est_replay_index_release(struct replay_index *ri)
{
    free(ri->idx);
    free(ri->ncalls);
    free(ri->calls);
    memset(ri, 0, sizeof *ri);
}

/* The draw-independent part of call k of op i: how its device time
 * follows from the op's per-pass device time, its kernels per call and
 * the launch gaps it adds. */
static void plan_call(const struct est *c, const struct replay_index *ri, const struct estimate *out,
                      const struct op_call *k, size_t i, struct replay_call *rc)
{
    const struct profile *p = c->p;
    const double *ncalls = ri->ncalls;
    int steps = ri->steps;
    const struct op_estimate *oe = &out->ops[i];
    const struct op *op = &p->ops[i];
    rc->i = i;
    rc->opt = op->phase == PHASE_OPTIMIZER;
    /* the call's share of its op, as measured when the
     * profile has device times (so that kernels that ran
     * on parallel streams keep their overlap) */
    if (c->src_gpu && op->device_time_s > 0 && k->device_s > 0) {
        rc->share = 1;
        rc->mul = k->device_s;
        rc->div = op->device_time_s;
    } else if (!c->src_gpu || op->device_time_s > 0) {
        rc->share = 1;
        rc->mul = steps;
        rc->div = ncalls[i];
    }
    /* a CPU trace's call costs the target's host what its kind does */
    rc->dispatch_s = est_call_host_s(c, op);
    /* a GPU trace's host times hold its waits already; an optimizer's
     * item() reads its step count, kept on the host */
    rc->sync = !c->src_gpu && op->phase != PHASE_OPTIMIZER && ops_syncs_host(op->name);
    rc->kn = op->kernels > 0 && op->count > 0 ? op->kernels / op->count : 1;
    double bias_kn;
    est_conv_bias_calls(c, op, &bias_kn);
    rc->kn += bias_kn;
    double rnn = est_rnn_launches(c, op);
    if (rnn > 0)
        rc->kn = rnn;
    if (rc->kn < 1)
        rc->kn = 1;
    /* kernel durations from a trace leave out the gap the
     * device needs between two kernels, even queued ones (the
     * machine's kernel-gap, else its launch latency); table
     * times and the roofline hold a launch already */
    if (oe->method == EST_MEASURED || oe->method == EST_SCALED_TABLE || oe->method == EST_SCALED) {
        double sh = c->src_gpu && op->device_time_s > 0 && k->device_s > 0
                    ? k->device_s * ncalls[i] / steps / op->device_time_s : 1;
        double gap = c->m->kernel_gap_s > 0 ? c->m->kernel_gap_s : c->m->launch_latency_s;
        rc->launch = 1;
        rc->launch_s = rc->kn * gap * (sh < 1 ? sh : 1);
    }
}

void est_replay_plan(const struct est *c, const struct estimate *out, struct replay_index *ri)
{
    const struct profile *p = c->p;
    free(ri->calls);
    ri->calls = xcalloc(p->n_calls + 1, sizeof *ri->calls);
    for (size_t j = 0; j < p->n_calls; j++) {
        const struct op_call *k = &p->calls[j];
        size_t id = k->op_id;
        size_t i = id <= ri->max_id ? ri->idx[id] : SIZE_MAX;
        struct replay_call *rc = &ri->calls[j];
        rc->i = SIZE_MAX;
        rc->kn = 1;
        if (i != SIZE_MAX)
            plan_call(c, ri, out, k, i, rc);
    }
}

/* The device time of call rc in the replay, from its op's per-pass
 * device time t. */
static double call_device_s(const struct replay_call *rc, double t)
{
    double d = rc->share ? t * rc->mul / rc->div : 0;
    if (d > 0 && rc->launch)
        d += rc->launch_s;
    return d;
}

/* One profiled step replayed on the target: the host issues the calls
 * in their order, each taking its host time; a call's kernels start when
 * both the host has launched them (the call's end) and the device is free;
 * the step ends when the host and the device are both done.  Host-bound
 * stretches (small kernels) and device-bound ones (large kernels) then
 * add up as they did in the trace, with no overlap constant.  Ops without
 * calls (kernels no op claimed) run after the last call.  dev_s[i] is the
 * device time per pass of out->ops[i] (the estimate, its spread, or a
 * Monte Carlo draw).  Returns the mean step time over the profiled
 * steps, or -1 when the profile has no calls. */
static double replay(const struct est *c, const struct replay_index *ri, const struct estimate *out,
                     const double *dev_s)
{
    const struct profile *p = c->p;
    size_t n = p->n_ops;
    const double *ncalls = ri->ncalls;
    int steps = ri->steps;
    double total = 0;
    if (!p->n_calls || !c->tgt_gpu || !ri->calls)
        return -1;
    double rest = 0;    /* per step: ops that no call issues */
    for (size_t i = 0; i < out->n_ops; i++) {
        if ((i >= n || ncalls[i] == 0) && i != c->cast_op)
            rest += dev_s[i];
    }
    /* a calibrated host runs the trace's host times f times (est_calibrate_host) */
    double f = c->host_scale;
    size_t j = 0;
    while (j < p->n_calls) {
        int st = p->calls[j].step;
        double host = 0, dev = 0, shift = 0, back_host = 0, back_dev = 0;
        for (; j < p->n_calls && p->calls[j].step == st; j++) {
            const struct op_call *k = &p->calls[j];
            const struct replay_call *rc = &ri->calls[j];
            size_t i = rc->i;
            /* autocast casts: a forward call's parameters before it;
             * the gradients' casts back once the backward pass is over */
            int opt = rc->opt;
            if ((back_host > 0 || back_dev > 0) && opt) {
                /* a CPU trace's start times are its compute's, not the
                 * target host's: there the host clock is `host` alone */
                double at = c->src_gpu ? f * k->host_start_s + shift : host;
                host = (host > at ? host : at) + back_host;
                dev = (dev > host ? dev : host) + back_dev;
                if (c->src_gpu)
                    shift = host - f * k->host_start_s;
                back_host = back_dev = 0;
            }
            if (i != SIZE_MAX && c->cast_n && (c->cast_n[i] > 0 || c->cast_host_s[i] > 0)) {
                double begin0 = c->src_gpu ? f * k->host_start_s + shift : host;
                if (begin0 < host)
                    begin0 = host;
                host = begin0 + c->cast_host_s[i];
                dev = (dev > host ? dev : host) + c->cast_dev_s[i] / 2;
                if (c->src_gpu)
                    shift = host - f * k->host_start_s;
                back_host += c->cast_back_s[i];
                back_dev += c->cast_dev_s[i] / 2;
            }
            double kn = rc->kn;
            double d = i != SIZE_MAX ? call_device_s(rc, dev_s[i]) : 0;
            double begin, launch;
            if (c->src_gpu) {
                begin = f * k->host_start_s + shift;
                launch = begin + f * k->host_s;
            } else {
                /* a CPU trace's host times hold the compute: the
                 * target pays its own dispatch per call; a call whose
                 * result the host reads (a count of nonzeros, an item)
                 * waits for the device's queue first */
                begin = rc->sync && dev > host ? dev : host;
                launch = begin + (i != SIZE_MAX ? rc->dispatch_s : c->m->dispatch_s);
            }
            if (launch > host)
                host = launch;
            if (d > 0) {
                /* a call's kn kernels are launched one by one over its
                 * host time: the first can start after 1/kn of it, the
                 * last not before the call ends */
                double first = begin + (launch - begin) / kn;
                dev = (dev > first ? dev : first) + d;
                if (dev < launch + d / kn)
                    dev = launch + d / kn;
            }
        }
        if (back_host > 0 || back_dev > 0) {
            host += back_host;
            dev = (dev > host ? dev : host) + back_dev;
        }
        dev += rest;
        total += host > dev ? host : dev;
    }
    return steps ? total / steps : -1;
}

/* The pass time from the ops' device times dev_s[] (and the fixed host
 * time host_s): the replay when the profile has a call order, else the
 * larger of device and host time (as if they overlapped perfectly) on an
 * accelerator, their sum on a CPU.  The point estimate, its spread and
 * every Monte Carlo draw go through here. */
double est_compose_pass(const struct est *c, const struct replay_index *ri,
                           const struct estimate *out, const double *dev_s, double host_s)
{
    double step = c->tgt_gpu ? replay(c, ri, out, dev_s) : -1;
    if (step >= 0)
        return step + out->sync_s;
    double dev = 0;
    for (size_t i = 0; i < out->n_ops; i++)
        dev += dev_s[i];
    if (c->tgt_gpu)
        return (dev > host_s ? dev : host_s) + out->sync_s;
    return dev + host_s;
}

/* The trace's own replay on its device: every op at its measured device
 * time, the trace's host times scaled by f, no casts. */
struct src_replay {
    struct est c;
    struct estimate e;
    struct replay_index ri;
    double *dev_s;
    double sync_s;
};

static double src_step(struct src_replay *r, double f)
{
    r->c.host_scale = f;
    double t = replay(&r->c, &r->ri, &r->e, r->dev_s);
    return t >= 0 ? t + r->sync_s : -1;
}

/* The least f in [lo, hi] whose replay reaches step_s (want_above) or
 * the greatest whose replay stays at or below it: the replay grows with
 * f, so bisection on log f. */
static double src_solve(struct src_replay *r, double step_s, double lo, double hi, int want_above)
{
    for (int it = 0; it < 60 && hi / lo > 1 + 1e-9; it++) {
        double mid = sqrt(lo * hi);
        double t = src_step(r, mid);
        int above = want_above ? t >= step_s : t > step_s;
        if (above)
            hi = mid;
        else
            lo = mid;
    }
    return want_above ? hi : lo;
}

/* Host calibration.  A GPU trace's host times are the program's once the
 * profiler's recording is taken out (struct profile: event_gap_s), but
 * that is an estimate from the trace, and the host's speed moves between
 * the profiled and the timed steps (on shared hosts by tens of percent
 * from one minute to the next): when the harness measured the same run
 * without the profiler, its step is the truth the trace's replay should
 * meet.  The trace's host times are scaled by the factor f nearest to 1
 * at which its replay on its own device (measured device times) gives
 * that step, since the replay grows with f and is flat where the device
 * bounds it, many f may; f is at most the trace's host with the
 * profiler's cost left in over without (no host is slower than its
 * profiled self), and at least SCALE_MIN; when even that replays above
 * the step, the replay's device side is longer than the measured step
 * and the host's busy time is brought down to the step, if above it.
 * Where the device bounds the replay, a small difference moves f far;
 * keeping the host as traced whenever the replay lies inside the 95%
 * interval of the measured median was tried, and the development set's
 * cross-GPU and fp32 -> bf16 cases came out worse (the median is the
 * better point even where its interval is wide). */
#define SCALE_MIN (1.0 / 64)    /* a host 64 times faster than profiled: not the same run */
void est_calibrate_host(struct est *c, const struct estimate_opts *o)
{
    struct estimate *out = c->out;
    const struct profile *p = c->p;
    c->host_scale = out->host_scale = 1;
    if (!(o->measured_step_s > 0))
        return;
    out->calib_step_s = o->measured_step_s;
    out->calib_from = o->measured_step_from;
    out->calib = CALIB_NOT_APPLICABLE;
    if (!c->src_gpu || !c->tgt_gpu || !p->n_calls || !(p->host_time_s > 0))
        return;
    struct src_replay r;
    memset(&r, 0, sizeof r);
    r.c = *c;
    r.c.m = est_profiled_machine(c) ? est_profiled_machine(c) : c->m;
    r.c.cast_n = r.c.cast_dev_s = r.c.cast_host_s = r.c.cast_back_s = NULL;
    r.c.cast_op = SIZE_MAX;
    r.sync_s = r.c.m->launch_latency_s;
    estimate_init(&r.e);
    /* the ops, then those --top dropped, which no call issues */
    r.e.n_ops = p->n_ops + 1;
    r.e.ops = xcalloc(p->n_ops + 1, sizeof *r.e.ops);
    r.dev_s = xcalloc(p->n_ops + 1, sizeof *r.dev_s);
    for (size_t i = 0; i <= p->n_ops; i++) {
        r.e.ops[i].method = EST_MEASURED;
        r.dev_s[i] = i < p->n_ops ? p->ops[i].device_time_s : p->dropped_time_s;
    }
    est_replay_index_build(p, &r.ri);
    est_replay_plan(&r.c, &r.e, &r.ri);
    double hi = (p->host_time_s + p->profiler_host_s) / p->host_time_s;
    double s = o->measured_step_s, f = 1;
    double t_lo = src_step(&r, SCALE_MIN), t_hi = src_step(&r, hi);
    out->host_scale_max = hi;
    out->calib_floor_s = t_lo;
    out->calib_replay_s = src_step(&r, 1);
    out->calib_lo_s = o->measured_step_lo_s;
    out->calib_hi_s = o->measured_step_hi_s;
    out->calib = CALIB_APPLIED;
    if (s > t_hi) {
        f = hi;
        out->calib = CALIB_CLAMPED;
    } else if (s < t_lo) {
        /* the trace's device work alone replays longer than the step: the
         * replay's device side is too long, which no host speed explains;
         * but the host's own busy time cannot have exceeded the step */
        f = s / p->host_time_s;
        f = f < 1 ? f : 1;
        out->calib = CALIB_CLAMPED;
    } else if (out->calib_replay_s < s) {
        f = src_solve(&r, s, 1, hi, 1);             /* the least f that reaches s */
    } else if (out->calib_replay_s > s) {
        f = src_solve(&r, s, SCALE_MIN, 1, 0);      /* the greatest f that stays at s */
    }
    c->host_scale = out->host_scale = f;
    out->calib_replayed_s = src_step(&r, f);
    est_replay_index_release(&r.ri);
    free(r.e.ops);
    free(r.dev_s);
}
