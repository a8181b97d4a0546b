/* Data-parallel runs of a study: where a run sits (devices, nodes, runs
 * side by side), the gradient exchange it adds to each pass (model/comm.h)
 * and its scaling curve.  The declarations and their contracts are in
 * run/study_eval.h. */
#include "run/study_eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/xalloc.h"
#include "model/comm.h"
#include "model/estimate.h"
#include "model/rollup.h"
#include "run/estimate_run.h"

/* Fit of a run of dpr devices on machine m in a system of nodes nodes:
 * fills nodes_per_run, runs_per_node and concurrent_runs, or returns a
 * reason (static text) it does not fit. */
static const char *fit(int64_t dpr, const struct machine *m, int64_t nodes, struct run_layout *o)
{
    int64_t per_node = m->devices_per_node > 0 ? m->devices_per_node : 1;
    o->devices_per_run = dpr;
    if (dpr <= per_node) {
        o->nodes_per_run = 1;
        o->runs_per_node = (double)(per_node / dpr);
        o->concurrent_runs = o->runs_per_node * (double)nodes;
        return NULL;
    }
    if (dpr % per_node)
        return "fill whole nodes";
    o->nodes_per_run = dpr / per_node;
    if (o->nodes_per_run > nodes)
        return "fit the system";
    o->concurrent_runs = (double)(nodes / o->nodes_per_run);
    o->runs_per_node = o->concurrent_runs / (double)nodes;
    return NULL;
}

int study_layout(const struct study *st, size_t p, size_t s, const struct machine *m,
                 struct run_layout *out, struct diag *d)
{
    const struct study_workload *w = &st->problems[p].workload;
    const struct study_system *sys = &st->systems[s];
    int64_t per_node = m->devices_per_node > 0 ? m->devices_per_node : 1;
    memset(out, 0, sizeof *out);
    const char *why = fit(w->devices_per_run > 0 ? w->devices_per_run : 1, m, sys->nodes, out);
    if (why)
        return diag_error_at(d, st->path, w->line, 0,
                             "found devices-per-run=%lld for problem '%s' on system '%s' (%lld "
                             "nodes of %lld devices), expected a run that fits a node or fills "
                             "whole nodes of it: devices-per-run at most %lld or a multiple of "
                             "%lld up to %lld (a run must %s)",
                             (long long)out->devices_per_run, st->problems[p].id, sys->id,
                             (long long)sys->nodes, (long long)per_node, (long long)per_node,
                             (long long)per_node, (long long)(per_node * sys->nodes), why);
    return 0;
}

int study_layout_comm(const struct study *st, size_t p, size_t s, const struct machine *m,
                      const struct comm_inputs *ci, struct run_layout *out, struct diag *d)
{
    const struct study_workload *w = &st->problems[p].workload;
    const struct study_system *sys = &st->systems[s];
    const char *why = NULL;
    if (out->devices_per_run <= 1)
        return 0;
    /* the study's figure wins: it may count what the profile cannot see */
    out->parameters = w->parameters > 0 ? (double)w->parameters : ci->parameters;
    out->parameters_from = w->parameters > 0 ? "from the study" : ci->parameters_from;
    if (!(out->parameters > 0))
        return diag_error_at(d, st->path, w->line, 0,
                             "problem '%s' runs on %lld devices but neither the study nor its "
                             "profile gives the parameter count, expected parameters=\"N\" on "
                             "the workload (the gradients to exchange each pass)",
                             st->problems[p].id, (long long)out->devices_per_run);
    if (comm_step_exchange(out->parameters, ci->backward_s, out->devices_per_run, m, ci->table,
                           ci->n_table, &out->comm, &why))
        return diag_error_at(d, st->path, sys->line, 0,
                             "system '%s' cannot exchange the gradients of problem '%s' over "
                             "%lld devices: %s ('%s'), expected the <link> the run crosses",
                             sys->id, st->problems[p].id, (long long)out->devices_per_run, why,
                             m->path ? m->path : "its machine file");
    out->exposed_comm_s = out->comm.exposed_s;
    return 0;
}

void study_comm_inputs(const struct estimate_inputs *in, const struct estimate *e,
                       const struct estimate_basis *b, struct comm_inputs *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->backward_s = study_backward_s(e);
    if (b && b->parameters > 0) {
        ci->parameters = b->parameters;
        ci->parameters_from = b->params_from && strcmp(b->params_from, ".meta.json") == 0
                                  ? "from the trace's .meta.json" : "from the study";
    } else {
        ci->parameters = comm_profile_parameters(&in->profile);
        ci->parameters_from = "from the optimizer's parameter shapes in the profile";
    }
    const struct kernel_table *t = e->target_hw ? kernel_set_find(&in->tables, e->target_hw)
                                                : NULL;
    ci->n_table = comm_points_from_table(t, &ci->table);
    ci->table_hw = ci->n_table ? t->hw : NULL;
}

void study_comm_inputs_release(struct comm_inputs *ci)
{
    free(ci->table);
    memset(ci, 0, sizeof *ci);
}

/* The time the backward pass lasts on the target, the window the
 * exchange can hide in: gradients come as the host issues the backward
 * ops and the device runs them, so the pass lasts at least the larger of
 * its ops' device time and their host dispatch time (the estimator's rule
 * for a pass without a call order, model/estimate.h).  A host-bound
 * backward (many small kernels) leaves the device idle between them, and
 * the collective kernels run in those gaps. */
double study_backward_s(const struct estimate *e)
{
    double dev = 0, host = 0;
    for (size_t i = 0; i < e->n_ops; i++) {
        if (e->ops[i].phase != PHASE_BACKWARD)
            continue;
        dev += e->ops[i].device_s;
        host += e->ops[i].host_s;
    }
    return dev > host ? dev : host;
}

/* Widths of the curve: powers of two and the problem's own width, in
 * increasing order, that split the batch and fit the system. */
static size_t widths(const struct study_workload *w, const struct machine *m, int64_t nodes,
                     int64_t *out, size_t cap)
{
    int64_t dpr = w->devices_per_run > 0 ? w->devices_per_run : 1;
    size_t n = 0;
    for (int64_t k = 1; k <= 4 * dpr && n + 2 <= cap; k *= 2) {
        if (dpr > k / 2 && dpr < k)
            out[n++] = dpr;
        out[n++] = k;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct run_layout l;
        if (out[i] <= w->batch && w->batch % out[i] == 0 && !fit(out[i], m, nodes, &l) &&
            (kept == 0 || out[kept - 1] != out[i]))
            out[kept++] = out[i];
    }
    return kept;
}

int study_scaling(const struct study *st, size_t p, size_t s, struct estimate_inputs *in,
                  const struct estimate_run_opts *o, const struct comm_inputs *ci,
                  struct scaling_point **pts, size_t *n, struct diag *d)
{
    const struct study_workload *w = &st->problems[p].workload;
    const struct study_system *sys = &st->systems[s];
    const struct machine *m = &in->machine;
    int64_t ws[80];
    size_t nw = widths(w, m, sys->nodes, ws, sizeof ws / sizeof ws[0]);
    struct diag quiet;
    diag_init(&quiet, NULL);
    *pts = xcalloc(nw + 1, sizeof **pts);
    *n = 0;
    for (size_t i = 0; i < nw; i++) {
        struct scaling_point *q = &(*pts)[*n];
        struct estimate_opts eo;
        struct estimate e;
        struct run_layout l;
        estimate_opts_init(&eo);
        eo.precision = o->precision;
        eo.cudnn_tf32 = o->cudnn_tf32;
        eo.batch = w->batch / ws[i];
        /* the same estimator inputs as the cell's own estimate
         * (run/estimate_run.c), so that its width is the same point */
        estimate_opts_from_inputs(in, &eo);
        estimate_init(&e);
        /* the cell's own estimate already reported its warnings */
        int rc = estimate_profile(&in->profile, m, &in->tables, &eo, &e, &quiet);
        memset(&l, 0, sizeof l);
        fit(ws[i], m, sys->nodes, &l);
        struct comm_inputs wci = *ci;
        wci.backward_s = study_backward_s(&e);
        if (!rc)
            rc = study_layout_comm(st, p, s, m, &wci, &l, d);
        if (rc) {
            estimate_release(&e);
            free(*pts);
            *pts = NULL;
            *n = 0;
            return rc;
        }
        q->devices_per_run = ws[i];
        q->nodes_per_run = l.nodes_per_run;
        q->per_device_batch = (double)eo.batch;
        q->pass_s = e.pass_time_s;
        q->exposed_comm_s = l.exposed_comm_s;
        q->comm_s = l.comm.total_s;
        q->n_buckets = l.comm.n_buckets;
        q->n_from_table = l.comm.n_from_table;
        double run_s = 3600.0 * study_workload_hours(w, q->pass_s + q->exposed_comm_s);
        q->run_units_per_day = ROLLUP_DAY_S / run_s;
        /* for the first point, (*pts)[0] is q itself: ideal = actual */
        q->ideal_units_per_day = (*pts)[0].run_units_per_day * (double)ws[i] /
                                 (double)(*pts)[0].devices_per_run;
        q->concurrent_runs = l.concurrent_runs;
        q->units_per_day = q->run_units_per_day * l.concurrent_runs;
        (*n)++;
        estimate_release(&e);
    }
    return 0;
}
