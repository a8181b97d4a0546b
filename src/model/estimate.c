#include "model/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/est_internal.h"

static const char *const method_names[EST_METHOD_COUNT] = {
    "table-exact", "table-interp", "roofline", "scaled", "scaled-table", "measured", "efficiency",
};
static const char *const limit_names[LIMIT_COUNT] = { "roofline", "ratio-low", "ratio-high", "above-peak",
                                                      "peer-table", "idle-rows" };

const char *est_limit_name(enum est_limit l)
{
    return (unsigned)l < LIMIT_COUNT ? limit_names[l] : "unknown";
}
static const char *const bound_names[BOUND_COUNT] = { "compute", "memory", "latency", "host" };

const char *est_method_name(enum est_method m)
{
    return (unsigned)m < EST_METHOD_COUNT ? method_names[m] : "unknown";
}

static const char *const calib_names[] = { "none", "applied", "clamped", "not-applicable" };

const char *est_calib_name(enum est_calib c)
{
    return (unsigned)c <= CALIB_NOT_APPLICABLE ? calib_names[c] : "unknown";
}

const char *est_bound_name(enum est_bound b)
{
    return (unsigned)b < BOUND_COUNT ? bound_names[b] : "unknown";
}

void estimate_opts_init(struct estimate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->precision = PREC_UNKNOWN;
    o->mc_seed = EST_MC_SEED;
}

void estimate_init(struct estimate *e)
{
    memset(e, 0, sizeof *e);
    e->precision = PREC_UNKNOWN;
    e->batch_scale = 1;
    e->ci_level = EST_CI_LEVEL;
    e->pass_ci_lo_s = e->pass_ci_hi_s = NAN;
    e->host_scale = 1;
}

void estimate_release(struct estimate *e)
{
    for (size_t i = 0; i < e->n_warnings; i++)
        free(e->warnings[i]);
    free(e->warnings);
    free(e->ops);
    free(e->pass_draws);
    estimate_init(e);
}


/* Each distinct warning is given once: a fallback usually concerns
 * hundreds of ops and one line says it. */
void est_warn(struct est *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->out->n_warnings; i++) {
        if (strcmp(c->out->warnings[i], strbuf_str(&sb)) == 0) {
            strbuf_release(&sb);
            return;
        }
    }
    ALLOC_GROW(c->out->warnings, c->out->n_warnings + 1, c->out->alloc_warnings);
    c->out->warnings[c->out->n_warnings++] = strbuf_detach(&sb);
}

/* ----------------------------------------------------------- the pass */

/* part_s as a percentage of the estimate's device time over its ops. */
static double device_share_pct(const struct estimate *out, double part_s)
{
    double dev_s = 0;
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s += out->ops[i].device_s;
    return dev_s > 0 ? 100 * part_s / dev_s : 0;
}

/* What the estimate's context holds: the efficiency model, the autocast
 * walk and the casts' per-op figures. */
static void est_release(struct est *c)
{
    est_eff_release(c->eff);
    free(c->flow.op);
    free(c->cast_n);
    free(c->cast_dev_s);
    free(c->cast_host_s);
    free(c->cast_back_s);
}

/* What the ops' estimates counted that an estimate says once. */
static void warn_counted(struct est *c, const struct estimate *out)
{
    if (c->n_channels_last)
        est_warn(c, "%zu convolution(s) ran on channels-last tensors (their recorded strides) and are "
                    "timed from rows of contiguous tensors, for which cuDNN runs other kernels",
                c->n_channels_last);
    if (c->n_dilation_unmeasured)
        est_warn(c, "%zu dilated convolution(s) are timed from undilated rows: the table measured no "
                    "dilation (estimators/measure/measure.py --grid dilated), which costs cuDNN up to "
                    "4x in the dilated grid",
                c->n_dilation_unmeasured);
    if (c->n_grouped_dense)
        est_warn(c, "%zu grouped convolution(s) lie outside the table's grouped rows: each is timed "
                    "as its groups' dense convolutions, which the dense rows measure, at the speed "
                    "of the grouped kernels over such dense ones at the nearest grouped row",
                c->n_grouped_dense);
    if (c->n_head_padded)
        est_warn(c, "%zu attention op(s) have heads smaller than any the target's table measures: "
                    "each is timed at the smallest measured head dim, whose tile its kernels pad "
                    "it to (estimators/measure/measure.py --grid head-dims measures smaller ones)",
                c->n_head_padded);
    if (c->n_filter_unmeasured)
        est_warn(c, "%zu convolution(s) have filter volumes that no table row of their spatial "
                    "dimensions measures: rows of other filters are extrapolations for them, which "
                    "a scaled measurement or the efficiency model replaces where one applies",
                c->n_filter_unmeasured);
    if (c->n_rnn_launch_host)
        est_warn(c, "%zu recurrent op(s) of the CPU trace: machine '%s' gives no rnn-forward-step or "
                    "rnn-backward-step, so cuDNN's host loop is counted as its launches at the "
                    "machine's launch latency, below what it costs (estimators/measure/rnn_host.py "
                    "measures it)",
                c->n_rnn_launch_host, out->machine ? out->machine : "?");
    if (c->n_batch_kept)
        est_warn(c, "%zu op(s) of the forward and backward passes, %.0f%% of the estimated device "
                    "time, show no batch dimension (no tensor leading with the profiled batch %lld "
                    "or its flattened rows, no GEMM dimension of it) and keep their profiled sizes "
                    "at batch %lld: parameters' work is rightly so, a batch folded into another "
                    "dimension (heads, chunks) is not",
                 c->n_batch_kept, device_share_pct(out, c->batch_kept_dev_s),
                 (long long)c->b_old, (long long)c->b_new);
    if (c->n_promoted)
        est_warn(c, "%zu op(s) that autocast does not cast, %.1f%% of the estimated device time, run "
                    "mostly in fp32 at %s: their inputs follow an op that returns fp32 (a norm, "
                    "softmax, an op of its fp32 list) or mix fp32 with %s, and stay fp32 until a "
                    "GEMM or convolution casts them down (the types followed through the profile's "
                    "calls)",
                 c->n_promoted, device_share_pct(out, c->promoted_dev_s), precision_name(c->want),
                 precision_name(c->want));
    if (c->n_resample_bytes)
        est_warn(c, "%zu bilinear, bicubic or trilinear upsampling op(s), %.1f%% of the estimated "
                    "device time, are timed by their bytes (no table read has resample rows of their "
                    "op and precision): PyTorch's CUDA kernels loop over the planes (N x C) in "
                    "each output pixel's thread and add the backward's gradients "
                    "with atomics, 5 to 20 times that time on an H200 "
                    "(estimators/h200/upsample-probe/ORIGIN.md)",
                 c->n_resample_bytes, device_share_pct(out, c->resample_bytes_dev_s));
    if (c->n_rnn_persistent)
        est_warn(c, "%zu recurrent op(s) of the CPU trace run as cuDNN's persistent kernels on '%s' "
                    "(PyTorch's algorithm choice by cell, hidden size, pass and precision): a few "
                    "launches and the machine's host time per call, no loop per time step%s",
                 c->n_rnn_persistent, out->machine ? out->machine : "?",
                 c->n_rnn_persist_fallback
                     ? "; the machine gives no rnn-persistent-forward or rnn-persistent-backward, so "
                       "their launches at its launch latency stand in, below what a call costs"
                     : "");
}

/* What the op adds to the estimate's shares by method and bound, and to
 * its counts of limits. */
static void tally(struct estimate *out, const struct op_estimate *oe)
{
    out->method_time_s[oe->method] += oe->device_s;
    out->bound_time_s[oe->bound] += oe->time_s;
    for (int l = 0; l < LIMIT_COUNT; l++)
        if (oe->limits & (1u << l))
            out->limit_ops[l]++;
    if (oe->method == EST_EFFICIENCY)
        out->efficiency_model = 1;
}

static const struct kernel_table *pick_target(const struct kernel_set *ks, const struct machine *m)
{
    if (!ks || ks->n == 0)
        return NULL;
    const struct kernel_table *t = NULL;
    if (m->device_name)
        t = kernel_set_find(ks, m->device_name);
    for (size_t i = 0; !t && i < m->n_table_names; i++)
        t = kernel_set_find(ks, m->table_names[i]);
    if (!t && m->name)
        t = kernel_set_find(ks, m->name);
    if (!t && m->id)
        t = kernel_set_find(ks, m->id);
    return t;
}

/* No table is for the target: say which hardware the tables are for and
 * how one of them is attached to the machine file. */
static void warn_no_table(struct est *c, const struct kernel_set *tables,
                          const struct machine *target)
{
    struct strbuf hw = STRBUF_INIT;
    for (size_t i = 0; i < tables->n && i < 8; i++)
        strbuf_addf(&hw, "%s'%s'", i ? ", " : "", tables->tables[i].hw);
    if (tables->n > 8)
        strbuf_addf(&hw, " and %zu more", tables->n - 8);
    est_warn(c, "no kernel table is for '%s' (the tables are for %s); its ops are estimated "
             "from the machine file; to use a table of this device, add "
             "<table-name>NAME</table-name> with the table's hardware name to %s",
             target->device_name ? target->device_name : target->id ? target->id : "?",
             strbuf_str(&hw), target->path ? target->path : "the machine file");
    strbuf_release(&hw);
}

/* The estimate's state and its header fields from the inputs, with the
 * warnings the choice of tables gives. */
/* The target table's smallest row time per kind and precision (struct
 * est floor_s): the dispatch gap its harness timed with every call. */
static void table_floors(struct est *c)
{
    memset(c->floor_s, 0, sizeof c->floor_s);
    if (!c->tt || !c->tt->software || !strstr(c->tt->software, KERNEL_TIMED_PER_CALL))
        return;
    for (size_t i = 0; i < c->tt->n_rows; i++) {
        const struct kernel_row *r = &c->tt->rows[i];
        if ((unsigned)r->kind >= KERNEL_KIND_COUNT || (unsigned)r->prec >= PREC_COUNT)
            continue;
        for (int k = 0; k < CONV_PASS_COUNT; k++) {
            double t = r->time_s[k];
            double *f = &c->floor_s[r->kind][r->prec];
            if (t > 0 && (*f == 0 || t < *f))
                *f = t;
        }
    }
}

static int autotuned(const struct kernel_table *t)
{
    return t->software && strstr(t->software, KERNEL_CUDNN_AUTOTUNED) != NULL;
}

/* Some fp32 convolution or recurrent layer of a GPU trace ran as TF32 (its
 * kernels say so): the profiled run had cuDNN's TF32 on, and each op's
 * kernels say what cuDNN chose under it (depthwise convolutions, for one,
 * have no TF32 kernels), so --cudnn-tf32 describes that run and changes
 * none of its ops. */
static int ran_cudnn_tf32(const struct profile *p)
{
    if (!p->has_device)
        return 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        if ((op->kind == OP_CONV || op->kind == OP_RNN) && est_op_prec(p, op) == PREC_TF32)
            return 1;
    }
    return 0;
}

static void setup(struct est *c, const struct profile *p, const struct machine *target,
                  const struct kernel_set *tables, const struct estimate_opts *o,
                  struct estimate *out)
{
    c->p = p;
    c->m = target;
    c->src_m = o->source;
    c->out = out;
    c->want = (unsigned)o->precision < PREC_COUNT ? o->precision : PREC_UNKNOWN;
    c->cudnn_tf32 = o->cudnn_tf32 && !ran_cudnn_tf32(p);
    c->b_old = p->batch;
    c->b_new = o->batch;
    c->src_gpu = p->has_device != 0;
    out->profiler_event_s = p->event_gap_s;
    c->tgt_gpu = target->kind != MACHINE_CPU;
    c->same_device = c->src_gpu && (same_name(p->device_name, target->device_name)
                                  || same_name(p->device_name, target->name));
    if (c->src_gpu && tables)
        c->st = kernel_set_find(tables, p->device_name);
    c->tt = pick_target(tables, target);
    table_floors(c);
    if (tables && tables->n > 0 && !c->tt)
        warn_no_table(c, tables, target);
    if (!c->tt)
        c->st = NULL;    /* scaled-table needs both ends */

    out->machine = target->id ? target->id : target->name;
    out->on_profiled_device = c->same_device;
    out->target_hw = c->tt ? c->tt->hw : NULL;
    out->source_hw = c->st ? c->st->hw : NULL;
    out->source_table_path = c->st ? o->source_table_path : NULL;
    out->source_machine_path = o->source_machine_path;
    if (out->source_table_path)
        est_warn(c, "tables of the profiled device '%s' found by the trace's device name: %s",
                 p->device_name, out->source_table_path);
    if (out->source_machine_path)
        est_warn(c, "machine file of the profiled device '%s' found by the trace's device name: %s",
                 p->device_name, out->source_machine_path);
    out->precision = c->want;
    out->cudnn_tf32 = o->cudnn_tf32;
    out->batch = o->batch;
    out->src_batch = p->batch;
    out->src_pass_time_s = p->step_time_s;

    if (c->b_new > 0 && c->b_old <= 0) {
        est_warn(c, "the profile does not say its batch; --batch %lld is ignored", (long long)c->b_new);
        c->b_new = 0;
    }
    if (c->b_new > 0 && c->b_old > 0)
        out->batch_scale = (double)c->b_new / (double)c->b_old;
    if (c->b_new > 0 && c->b_new != c->b_old) {
        /* the flattened batch rows first: an index names rows of them */
        for (size_t i = 0; i < p->n_ops; i++)
            if (p->ops[i].phase != PHASE_OPTIMIZER)     /* parameters, not activations */
                est_shape_groups(p->ops[i].shapes, est_collect_flat, c);
        for (size_t i = 0; i < p->n_ops; i++) {
            est_collect_index_rows(c, &p->ops[i]);
            est_collect_instance_norm(c, &p->ops[i]);
        }
        for (size_t i = 0; i < p->n_ops; i++)
            if (p->ops[i].phase != PHASE_OPTIMIZER)
                est_shape_groups(p->ops[i].shapes, est_collect_flat_rows, c);
    }
    if (c->want != PREC_UNKNOWN && c->tt) {
        if (!kernel_table_has(c->tt, KERNEL_GEMM, c->want))
            est_warn(c, "tables of '%s' have no %s gemm rows", c->tt->hw ? c->tt->hw : "?",
                     precision_name(c->want));
    }
    if (c->st && c->st != c->tt && autotuned(c->st) != autotuned(c->tt)) {
        c->conv_choice_differs = 1;
        est_warn(c, "convolution rows of '%s' were timed with cuDNN's %s algorithm choice and "
                 "those of '%s' with its %s one: a ratio of their rows would hold the choice, "
                 "so convolutions move by the ratio of the machines' peaks instead",
                 c->st->hw, autotuned(c->st) ? "autotuned" : "heuristic",
                 c->tt->hw, autotuned(c->tt) ? "autotuned" : "heuristic");
    }
    /* A profile estimated on its own device scales by its own table only
     * where the batch or precision changes: nothing to warn about. */
    if (c->st && c->st != c->tt)
        est_warn(c, "scaled-table: measured times on '%s' are scaled by the ratio of the "
                 "'%s' and '%s' table entries", c->st->hw, c->tt->hw, c->st->hw);
}

/* The pass from the ops' estimates: the point, its table spread, its
 * interval and any Monte Carlo draws, all through est_compose_pass; the
 * pass's bound. */
static void compose(struct est *c, const struct estimate_opts *o, double host, double dev)
{
    struct estimate *out = c->out;
    struct replay_index ri;
    out->device_time_s = dev;
    out->host_time_s = host;
    out->sync_s = c->tgt_gpu ? c->m->launch_latency_s : 0;
    est_replay_index_build(c->p, &ri);
    if (c->tgt_gpu && c->p->n_calls)
        est_replay_plan(c, out, &ri);
    double *dev_s = xmalloc((out->n_ops + 1) * sizeof *dev_s);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].device_s;
    out->pass_time_s = est_compose_pass(c, &ri, out, dev_s, host);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].time_lo_s;
    out->pass_lo_s = est_compose_pass(c, &ri, out, dev_s, host);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].time_hi_s;
    out->pass_hi_s = est_compose_pass(c, &ri, out, dev_s, host);
    est_pass_interval(c, &ri, o, host, dev_s);
    free(dev_s);
    if (c->tgt_gpu && host > dev) {
        out->bound = BOUND_HOST;
    } else {
        enum est_bound b = BOUND_COMPUTE;
        for (int i = 0; i < BOUND_HOST; i++)
            if (out->bound_time_s[i] > out->bound_time_s[b])
                b = (enum est_bound)i;
        out->bound = b;
    }
    est_replay_index_release(&ri);
}

int estimate_profile(const struct profile *p, const struct machine *target,
                     const struct kernel_set *tables, const struct estimate_opts *o,
                     struct estimate *out, struct diag *d)
{
    struct estimate_opts defo;
    struct est c;
    int rc = FOM_OK;

    if (!o) {
        estimate_opts_init(&defo);
        o = &defo;
    }
    estimate_release(out);
    memset(&c, 0, sizeof c);
    setup(&c, p, target, tables, o, out);
    if (!c.tt && machine_mem_bw(target) <= 0 && target->peak_flops[PREC_FP32][EXEC_VECTOR] <= 0
        && !c.same_device && !c.src_m) {
        rc = diag_error(d, "machine '%s' gives neither peaks nor bandwidth and no kernel table "
                        "matches it: nothing to estimate from", out->machine ? out->machine : "?");
        goto out;
    }

    /* built whenever other machines' tables are at hand: with a target
     * table it takes the ops the table can only extrapolate */
    c.eff = est_eff_build(o->reference, o->ref_machines, o->n_ref_machines, target);
    c.ref = o->reference;
    c.ref_m = o->ref_machines;
    c.n_ref_m = o->n_ref_machines;
    if (c.eff && !c.tt)
        est_warn(&c, "no table for '%s': ops without a measurement to scale run at the fraction of "
                 "its peaks that %zu other machine(s) achieve in their tables (efficiency model)",
                 out->machine ? out->machine : "?", est_eff_machines(c.eff));
    est_host_repeat(&c);
    est_calibrate_host(&c, o);
    est_autocast_begin(&c);
    out->ops = xcalloc(p->n_ops + 2, sizeof *out->ops);
    double host = 0, dev = 0, lo = 0, hi = 0, src_dev = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        struct op_estimate *oe = &out->ops[out->n_ops++];
        est_op(&c, &p->ops[i], oe);
        oe->host_s = est_host_of(&c, &p->ops[i]);
        oe->time_s = c.tgt_gpu ? oe->device_s : oe->device_s + oe->host_s;
        if (c.tgt_gpu && oe->host_s > oe->device_s)
            oe->bound = BOUND_HOST;
        host += oe->host_s;
        dev += oe->device_s;
        lo += oe->time_lo_s;
        hi += oe->time_hi_s;
        src_dev += c.src_gpu ? p->ops[i].device_time_s : p->ops[i].time_s;
        tally(out, oe);
    }
    warn_counted(&c, out);
    /* Ops dropped by --top still run: carry them at the kept ops' ratio. */
    if (p->dropped_time_s > 0 && src_dev > 0) {
        struct op_estimate *oe = &out->ops[out->n_ops++];
        oe->name = "(ops dropped from the profile)";
        oe->kind = OP_OTHER;
        oe->phase = PHASE_UNKNOWN;
        oe->prec = PREC_UNKNOWN;
        oe->src_time_s = p->dropped_time_s;
        oe->ratio = dev / src_dev;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = p->dropped_time_s * oe->ratio;
        oe->time_s = oe->device_s;
        oe->method = EST_SCALED;
        oe->bound = BOUND_LATENCY;
        dev += oe->device_s;
        lo += oe->device_s;
        hi += oe->device_s;
        out->method_time_s[EST_SCALED] += oe->device_s;
        out->bound_time_s[BOUND_LATENCY] += oe->device_s;
        est_warn(&c, "%zu ops dropped from the profile are scaled by the kept ops' ratio %.3g",
                 p->dropped_ops, oe->ratio);
    }
    if (c.src_gpu && p->host_time_s > 0)
        host = p->host_time_s * c.host_scale;
    for (size_t i = 0; i < p->n_ops; i++)
        out->profiler_events += p->ops[i].events;
    out->profiler_host_s = p->profiler_host_s;
    est_autocast_casts(&c);
    if (c.cast_op != SIZE_MAX) {
        const struct op_estimate *oe = &out->ops[c.cast_op];
        dev += oe->device_s;
        lo += oe->device_s;
        hi += oe->device_s;
        host += oe->host_s;
        out->method_time_s[oe->method] += oe->device_s;
        out->bound_time_s[oe->bound] += oe->time_s;
    }
    if (!c.src_gpu && c.tgt_gpu && !(target->dispatch_s > 0))
        est_warn(&c, "machine '%s' gives no dispatch cost; host time is taken as zero",
                 out->machine ? out->machine : "?");
    compose(&c, o, host, dev);
out:
    est_release(&c);
    return rc;
}
