#include "run/study_eval.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/comm.h"
#include "model/estimate.h"
#include "model/rollup.h"
#include "ingest/machine_xml.h"
#include "run/estimate_run.h"

/* ---- estimated problems ------------------------------------------------
 * A problem with a <workload> but no measured time on a system is estimated
 * from the profile on that system's machine and kernel tables: one pass
 * time, rolled up pass -> epoch -> run. */
void study_estimate_opts(const struct study *st, size_t p, size_t s,
                         struct estimate_run_opts *o, const char **kern)
{
    const struct study_workload *w = &st->problems[p].workload;
    estimate_run_opts_init(o);
    /* The system's own tables first, then every other table of the study:
     * the tables of the machine the profile was measured on let the
     * estimator scale measured times (scaled-table) instead of starting
     * from scratch, and do so alike for every system. */
    size_t n = 0;
    if (st->systems[s].kernels)
        kern[n++] = st->systems[s].kernels;
    for (size_t j = 0; j < st->n_systems; j++) {
        const char *k = st->systems[j].kernels;
        int seen = !k;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(kern[i], k) == 0;
        if (!seen)
            kern[n++] = k;
    }
    o->profile = w->profile;
    o->machine = st->systems[s].machine;
    o->mc_draws = EST_MC_DRAWS;
    o->kernels = kern;
    o->n_kernels = n;
    o->precision = w->precision;
    o->cudnn_tf32 = w->cudnn_tf32;
    /* The workload's batch is the one the unit of work runs at; a
     * data-parallel run gives each device its share of it.  The pass is
     * rescaled to it from the batch the profile was taken at (profile-batch,
     * else what the profile or its .meta.json says), as `fom estimate
     * --batch --profile-batch` does. */
    o->profile_batch = w->profile_batch;
    o->batch = w->batch / (w->devices_per_run > 1 ? w->devices_per_run : 1);
    o->parameters = w->parameters;
    o->batch_file = st->path;
    o->batch_line = w->line;
}

/* Run one estimate, passing on to d only the messages this study's
 * evaluation has not printed yet: the same machine pair gives the same
 * warning for every problem, and repeating it buries the ones that differ.
 * seen holds the printed lines, one per line. */
static int estimate_once(const struct estimate_run_opts *o, struct estimate_inputs *in,
                         struct estimate *e, struct estimate_basis *basis, struct strbuf *seen,
                         struct diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = d->out ? open_memstream(&buf, &len) : NULL;
    struct diag cap;
    diag_init(&cap, mf);
    cap.no_warn = d->no_warn;
    int rc = estimate_run_basis(o, in, e, basis, &cap);
    d->errors += cap.errors;
    d->warnings += cap.warnings;
    if (!mf)
        return rc;
    fclose(mf);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        struct strbuf key = STRBUF_INIT;
        strbuf_addch(&key, '\n');
        strbuf_add(&key, line, n);
        strbuf_addch(&key, '\n');
        if (!strstr(strbuf_str(seen), key.buf)) {
            fprintf(d->out, "%.*s\n", (int)n, line);
            if (!seen->len)
                strbuf_addch(seen, '\n');
            strbuf_add(seen, key.buf + 1, key.len - 1);
        }
        strbuf_release(&key);
    }
    free(buf);
    return rc;
}

/* Hours per unit of problem p on system s from an estimate, the hours of
 * each of its Monte Carlo draws (*draws NULL when none), the exposed
 * gradient exchange per pass and, for data-parallel runs, the scaling
 * curve. */
struct cell_out {
    double hours, runs, exposed_s;
    double *draws;
    size_t n_draws;
    struct scaling_point *scaling;
    size_t n_scaling;
    char *device;               /* owned: the device the profile ran on, or NULL */
};

static int estimate_cell(const struct study *st, size_t p, size_t s, struct cell_out *c,
                         struct estimate_basis *basis, struct strbuf *seen, struct diag *d)
{
    const struct study_problem *prob = &st->problems[p];
    const struct study_system *sys = &st->systems[s];
    c->hours = NAN;
    if (!prob->workload.present)
        return diag_error_at(d, st->path, prob->line, 0,
                             "problem '%s' has no time for system '%s', expected a <time "
                             "system=\"%s\"> or a <workload> to estimate it from",
                             prob->id, sys->id, sys->id);
    if (!sys->machine)
        return diag_error_at(d, st->path, sys->line, 0,
                             "system '%s' has no machine file, expected machine=\"FILE.xml\" "
                             "to estimate problem '%s' on it", sys->id, prob->id);
    struct machine m;
    memset(&m, 0, sizeof m);
    struct run_layout lay;
    int rc = machine_load(sys->machine, &m, d);
    if (rc == 0)
        rc = study_layout(st, p, s, &m, &lay, d);
    machine_release(&m);
    if (rc)
        return rc;
    struct estimate_run_opts o;
    struct estimate_inputs in;
    struct estimate e;
    const char **kern = xcalloc(st->n_systems, sizeof *kern);
    study_estimate_opts(st, p, s, &o, kern);
    estimate_init(&e);
    rc = estimate_once(&o, &in, &e, basis, seen, d);
    struct comm_inputs ci = { 0 };
    if (!rc)
        study_comm_inputs(&in, &e, basis, &ci);
    if (!rc)
        rc = study_layout_comm(st, p, s, &in.machine, &ci, &lay, d);
    if (!rc && lay.devices_per_run > 1)
        rc = study_scaling(st, p, s, &in, &o, &ci, &c->scaling, &c->n_scaling, d);
    study_comm_inputs_release(&ci);
    if (rc)
        goto out;
    if (in.profile.device_name)
        c->device = xstrdup(in.profile.device_name);
    c->runs = lay.runs_per_node;
    c->exposed_s = lay.exposed_comm_s;
    c->hours = study_cell_hours(&prob->workload, &lay, e.pass_time_s);
    c->draws = e.pass_draws;
    c->n_draws = e.n_draws;
    e.pass_draws = NULL;
    e.n_draws = 0;
    for (size_t k = 0; k < c->n_draws; k++)
        c->draws[k] = study_cell_hours(&prob->workload, &lay, c->draws[k]);
    if (!isfinite(c->hours) || c->hours <= 0)
        rc = diag_error_at(d, st->path, prob->workload.line, 0,
                           "problem '%s' on system '%s': estimated pass time %g s gives no "
                           "finite positive time per unit, expected a positive pass time",
                           prob->id, sys->id, e.pass_time_s);
out:
    free(kern);
    estimate_release(&e);
    estimate_inputs_release(&in);
    return rc;
}

/* A problem measured on the device its profile ran on and estimated on
 * other systems: each estimate is scaled by the measured time there over
 * fom's estimate of that same device (its replay of the profile).  What
 * the estimator gets wrong alike on every machine (host time that is the
 * profiler's or the Python loop's, a kind it reads wrongly) cancels in the
 * ratio of two estimates, so the cells compare as the machines do, not as
 * a measurement against an estimate: a tiny host-bound model replayed 10%
 * fast would otherwise make a slower device look faster than the measured
 * one.  The first measured system on the profiled device anchors. */
/* Whether machine file path describes device dev (the profile's); the
 * last file read is remembered, so that a study of many systems sharing a
 * file reads it once. */
static int machine_is(const char *path, const char *dev, const char **last, int *last_is)
{
    if (*last && strcmp(*last, path) == 0)
        return *last_is;
    struct machine m;
    struct diag quiet;
    memset(&m, 0, sizeof m);
    diag_init(&quiet, NULL);
    int is = machine_load(path, &m, &quiet) == 0
             && ((m.device_name && strcasecmp(m.device_name, dev) == 0)
                 || (m.name && strcasecmp(m.name, dev) == 0));
    machine_release(&m);
    *last = path;
    *last_is = is;
    return is;
}

static void anchor_problem(const struct study *st, size_t p, struct study_eval *ev,
                           const char *dev, struct strbuf *seen)
{
    size_t ns = st->n_systems, any = 0;
    const char *last = NULL;
    int last_is = 0;
    for (size_t s = 0; s < ns; s++)
        any += ev->estimated[p * ns + s] && isfinite(ev->hours[p * ns + s]);
    if (!any || !dev || !*dev)
        return;
    for (size_t j = 0; j < ns; j++) {
        size_t ij = p * ns + j;
        if (ev->estimated[ij] || !(ev->hours[ij] > 0) || !st->systems[j].machine
            || !machine_is(st->systems[j].machine, dev, &last, &last_is))
            continue;
        struct cell_out c = { NAN, 1, NAN, NULL, 0, NULL, 0, NULL };
        struct estimate_basis b;
        memset(&b, 0, sizeof b);
        /* an estimate the measured system's layout does not allow (no
         * network for its data-parallel run) leaves the cells as they are */
        struct diag quiet;
        diag_init(&quiet, NULL);
        int rc = estimate_cell(st, p, j, &c, &b, seen, &quiet);
        free(c.draws);
        free(c.device);
        free(c.scaling);
        if (rc || !b.on_profiled_device || !(c.hours > 0))
            continue;
        double a = ev->hours[ij] / c.hours;
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            if (!ev->estimated[i])
                continue;
            ev->hours[i] *= a;
            for (size_t k = 0; k < ev->n_hours_draws[i]; k++)
                ev->hours_draws[i][k] *= a;
            ev->basis[i].anchor = a;
            ev->basis[i].anchor_system = st->systems[j].id;
        }
        return;
    }
}

/* Hours of every measured time of problem p on system s (caller frees). */
/* The measured hours of problem p grouped by system in one pass (a study
 * may hold 10^5 systems: no scan of every time per cell).  Those of system
 * s are flat[off[s] .. off[s + 1]); both arrays are the caller's to free. */
static void hours_by_system(const struct study *st, size_t p, double **flat, size_t **off)
{
    const struct study_problem *prob = &st->problems[p];
    size_t ns = st->n_systems;
    size_t *o = xcalloc(ns + 2, sizeof *o);
    double *h = xmalloc((prob->n_times + 1) * sizeof *h);
    for (size_t k = 0; k < prob->n_times; k++)
        o[prob->times[k].system + 2]++;
    for (size_t s = 2; s < ns + 2; s++)
        o[s] += o[s - 1];
    /* o[s + 1] runs from the start of s to its end, the start of s + 1 */
    for (size_t k = 0; k < prob->n_times; k++)
        h[o[prob->times[k].system + 1]++] = study_time_hours(prob, &prob->times[k]);
    *flat = h;
    *off = o;
}

static void drop_zero_width(double *lo, double *hi)
{
    if (!(*hi > *lo))
        *lo = *hi = NAN;
}

/* Percentile intervals of the ratios and the FOM from one loop of
 * resamples: each cell with repeats is resampled (with replacement) and
 * its median recomputed; each estimated cell with Monte Carlo draws takes
 * one of them, picked at random so that the draws of different cells
 * pair independently (every estimate draws from the same seed); other
 * cells stay fixed. */
static void bootstrap_fom(const struct study *st, struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, B = BOOTSTRAP_RESAMPLES;
    size_t base = st->baseline;
    struct bootstrap *bs = bootstrap_new(ev->seed);
    double **cells = xcalloc(np * ns, sizeof *cells);
    double *hours = xmalloc(np * ns * sizeof *hours);
    double *draws = xmalloc(B * ns * sizeof *draws);
    double *rdraws = xmalloc(B * np * ns * sizeof *rdraws);
    double *buf = NULL, *one = xmalloc(B * sizeof *one);
    size_t maxn = 1;
    if (!bs)
        goto out;
    for (size_t p = 0; p < np; p++) {
        double *flat = NULL;
        size_t *off = NULL;
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s, n = ev->repeats[i];
            if (n <= 1)
                continue;
            if (!flat)
                hours_by_system(st, p, &flat, &off);
            cells[i] = xmalloc(n * sizeof *cells[i]);
            memcpy(cells[i], flat + off[s], n * sizeof *cells[i]);
            if (n > BOOTSTRAP_BUILD_MAX)
                stats_sort(cells[i], n);
            if (n > maxn)
                maxn = n;
        }
        free(flat);
        free(off);
    }
    buf = xmalloc(maxn * sizeof *buf);
    for (size_t b = 0; b < B; b++) {
        for (size_t i = 0; i < np * ns; i++) {
            hours[i] = ev->hours[i];
            if (cells[i]) {
                hours[i] = bootstrap_resample_median(bs, cells[i], ev->repeats[i], buf);
            } else if (ev->hours_draws[i]) {
                hours[i] = ev->hours_draws[i][bootstrap_index(bs, ev->n_hours_draws[i])];
            }
        }
        struct fom_input in = { ns, np, st->baseline, ev->nodes, hours, ev->weights };
        struct fom_result r;
        fom_compute(&in, &r);
        for (size_t s = 0; s < ns; s++)
            draws[s * B + b] = r.fom[s];
        for (size_t i = 0; i < np * ns; i++)
            rdraws[i * B + b] = r.ratio[i];
        fom_result_release(&r);
    }
    /* The baseline's FOM is 1 by definition, and an interval of zero
     * width says only that no resampled input moved this figure: both are
     * left unavailable (NaN) rather than printed as "x .. x". */
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        memcpy(one, draws + s * B, B * sizeof *one);
        bootstrap_percentile_ci(one, B, ev->ci_level, &ev->fom_lo[s], &ev->fom_hi[s]);
        drop_zero_width(&ev->fom_lo[s], &ev->fom_hi[s]);
    }
    for (size_t i = 0; i < np * ns; i++) {
        size_t ib = i - i % ns + base;
        if (i % ns == base || !(cells[i] || ev->hours_draws[i] || cells[ib] || ev->hours_draws[ib]))
            continue;
        memcpy(one, rdraws + i * B, B * sizeof *one);
        bootstrap_percentile_ci(one, B, ev->ci_level, &ev->ratio_lo[i], &ev->ratio_hi[i]);
        drop_zero_width(&ev->ratio_lo[i], &ev->ratio_hi[i]);
    }
    ev->resamples = (int)B;
out:
    for (size_t i = 0; i < np * ns; i++)
        free(cells[i]);
    free(cells);
    free(hours);
    free(draws);
    free(rdraws);
    free(buf);
    free(one);
    bootstrap_free(bs);
}

/* Where a node's power comes from, in words for the outputs. */
static char *power_note(const struct machine *m)
{
    struct strbuf sb = STRBUF_INIT;
    if (m->power_from_parts)
        strbuf_addf(&sb, "%s: %d x %.0f W device TDP (datasheet) + %.0f W host", m->path,
                    m->devices_per_node, m->device_power_w, m->host_power_w);
    else
        strbuf_addf(&sb, "%s: <power> of a node", m->path);
    return strbuf_detach(&sb);
}

/* Power and price of every system's node (the study's node-power and
 * node-price, else its machine file), then the figures beside the FOM. */
static int study_econ(const struct study *st, struct study_eval *ev, struct diag *d)
{
    size_t ns = st->n_systems;
    int rc = 0;
    ev->node_power_w = xcalloc(ns + 1, sizeof *ev->node_power_w);
    ev->node_price_usd = xcalloc(ns + 1, sizeof *ev->node_price_usd);
    ev->power_from = xcalloc(ns + 1, sizeof *ev->power_from);
    ev->price_from = xcalloc(ns + 1, sizeof *ev->price_from);
    for (size_t s = 0; s < ns && !rc; s++) {
        const struct study_system *sys = &st->systems[s];
        struct machine m;
        memset(&m, 0, sizeof m);
        ev->node_power_w[s] = ev->node_price_usd[s] = NAN;
        if (sys->machine && (!(sys->node_power_w > 0) || !(sys->node_price_usd > 0)))
            rc = machine_load(sys->machine, &m, d);
        if (rc)
            break;
        if (sys->node_power_w > 0) {
            ev->node_power_w[s] = sys->node_power_w;
            ev->power_from[s] = xstrdup("study: node-power");
        } else if (m.power_w > 0) {
            ev->node_power_w[s] = m.power_w;
            ev->power_from[s] = power_note(&m);
        }
        if (sys->node_price_usd > 0) {
            ev->node_price_usd[s] = sys->node_price_usd;
            ev->price_from[s] = xstrdup("study: node-price");
        } else if (m.price_usd > 0) {
            ev->node_price_usd[s] = m.price_usd;
            struct strbuf sb = STRBUF_INIT;
            strbuf_addf(&sb, "%s: <price>", m.path);
            ev->price_from[s] = strbuf_detach(&sb);
        }
        ev->has_power |= ev->power_from[s] != NULL;
        ev->has_price |= ev->price_from[s] != NULL;
        machine_release(&m);
    }
    struct econ_input in = { ns, st->n_problems, st->baseline, ev->nodes, ev->node_power_w,
                             ev->node_price_usd, ev->fom.harmonic_rate, ev->hours };
    econ_compute(&in, &ev->econ);
    return rc;
}

/* A run that does not fit a device's memory does not run: its cell has
 * no rate, and the FOM of its system (every system's, when it is the
 * baseline) cannot be formed from a problem set that lacks it.  The
 * outputs keep the estimate and say what to change. */
static void drop_unfit(const struct study *st, struct study_eval *ev, struct diag *d)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    struct fom_result *r = &ev->fom;
    for (size_t i = 0; i < np * ns; i++) {
        if (!ev->estimated[i] || ev->basis[i].fits != 0)
            continue;
        size_t p = i / ns, s = i % ns;
        const struct estimate_basis *b = &ev->basis[i];
        const struct study_workload *w = &st->problems[p].workload;
        ev->unfit++;
        diag_warn_at(d, st->path, w->line, 0,
                     "problem '%s' does not fit a device of system '%s': needs %.1f GB per "
                     "device, has %.1f GB; give it more devices per run (devices-per-run) or a "
                     "smaller batch; the FOM of %s cannot be formed without it",
                     st->problems[p].id, st->systems[s].id, b->mem.total_b / 1e9,
                     b->capacity_b / 1e9, s == base ? "every system" : st->systems[s].id);
        for (size_t j = 0; j < ns; j++) {
            if (j != s && s != base)
                continue;
            r->harmonic_rate[j] = r->fom[j] = NAN;
            r->mean_ratio_arith[j] = r->mean_ratio_harm[j] = NAN;
            ev->fom_lo[j] = ev->fom_hi[j] = NAN;
            ev->fom_unformed[j] = 1;
        }
        r->units_per_day[i] = NAN;
        for (size_t j = 0; j < ns; j++)
            if (s == base || j == s) {
                r->ratio[p * ns + j] = NAN;
                ev->ratio_lo[p * ns + j] = ev->ratio_hi[p * ns + j] = NAN;
            }
    }
}

/* A file the study names that does not exist is an error in the study, at
 * the line that names it, said once before any cell is evaluated (each
 * cell would otherwise fail on it again, without the study's line). */
static int named_file_exists(const struct study *st, long line, const char *attr,
                             const char *path, const char *what, struct diag *d)
{
    struct stat sb;
    if (!path || stat(path, &sb) == 0 || (errno != ENOENT && errno != ENOTDIR))
        return FOM_OK;
    return diag_error_at(d, st->path, line, 0,
                         "found %s=\"%s\", which does not exist (%s), expected %s "
                         "(relative paths are taken from the study's folder)",
                         attr, path, strerror(errno), what);
}

/* The files of the cells that will be estimated (a workload, no measured
 * time, a machine file: other cells fail with their own message first).
 * The first missing one is the error. */
static int study_files_exist(const struct study *st, struct diag *d)
{
    int rc = FOM_OK;
    char *timed = xcalloc(st->n_systems + 1, 1);
    for (size_t p = 0; p < st->n_problems && rc == FOM_OK; p++) {
        const struct study_problem *prob = &st->problems[p];
        if (!prob->workload.present)
            continue;
        memset(timed, 0, st->n_systems);
        for (size_t k = 0; k < prob->n_times; k++)
            timed[prob->times[k].system] = 1;
        for (size_t s = 0; s < st->n_systems && rc == FOM_OK; s++) {
            const struct study_system *sys = &st->systems[s];
            if (timed[s] || !sys->machine)
                continue;
            rc = named_file_exists(st, sys->line, "machine", sys->machine, "a machine file", d);
            if (rc == FOM_OK)
                rc = named_file_exists(st, sys->line, "kernels", sys->kernels,
                                       "a kernel-table file or folder", d);
            if (rc == FOM_OK)
                rc = named_file_exists(st, prob->workload.line, "profile",
                                       prob->workload.profile, "a trace or a saved profile", d);
        }
    }
    free(timed);
    return rc;
}

/* The result's arrays for ns systems and np problems, each cell at its
 * unmeasured, unestimated value. */
static void eval_alloc(struct study_eval *ev, size_t ns, size_t np)
{
    ev->nodes = xcalloc(ns + 1, sizeof *ev->nodes);
    ev->weights = xcalloc(np + 1, sizeof *ev->weights);
    ev->hours = xcalloc(np * ns + 1, sizeof *ev->hours);
    ev->runs_per_node = xcalloc(np * ns + 1, sizeof *ev->runs_per_node);
    for (size_t i = 0; i < np * ns; i++)
        ev->runs_per_node[i] = 1;
    ev->repeats = xcalloc(np * ns + 1, sizeof *ev->repeats);
    ev->hours_ci = xcalloc(np * ns + 1, sizeof *ev->hours_ci);
    ev->fom_lo = xcalloc(ns + 1, sizeof *ev->fom_lo);
    ev->fom_hi = xcalloc(ns + 1, sizeof *ev->fom_hi);
    ev->hours_draws = xcalloc(np * ns + 1, sizeof *ev->hours_draws);
    ev->n_hours_draws = xcalloc(np * ns + 1, sizeof *ev->n_hours_draws);
    ev->ratio_lo = xcalloc(np * ns + 1, sizeof *ev->ratio_lo);
    ev->ratio_hi = xcalloc(np * ns + 1, sizeof *ev->ratio_hi);
    ev->exposed_comm_s = xcalloc(np * ns + 1, sizeof *ev->exposed_comm_s);
    ev->scaling = xcalloc(np * ns + 1, sizeof *ev->scaling);
    ev->n_scaling = xcalloc(np * ns + 1, sizeof *ev->n_scaling);
    for (size_t i = 0; i < np * ns; i++)
        ev->ratio_lo[i] = ev->ratio_hi[i] = ev->exposed_comm_s[i] = NAN;
    ev->basis = xcalloc(np * ns + 1, sizeof *ev->basis);
    ev->estimated = xcalloc(np * ns + 1, sizeof *ev->estimated);
    ev->fom_unformed = xcalloc(ns + 1, sizeof *ev->fom_unformed);
    ev->estimate_draws = EST_MC_DRAWS;
    ev->estimate_seed = EST_MC_SEED;
}

int study_eval_run(const struct study *st, struct study_eval *ev, struct diag *d)
{
    size_t ns = st->n_systems, np = st->n_problems;
    int rc = FOM_OK;
    struct strbuf seen = STRBUF_INIT;   /* estimator messages already printed */
    memset(ev, 0, sizeof *ev);
    if ((rc = study_files_exist(st, d)) != FOM_OK)
        return rc;
    ev->n_systems = ns;
    ev->n_problems = np;
    ev->ci_level = STUDY_CI_LEVEL;
    ev->seed = BOOTSTRAP_SEED;
    eval_alloc(ev, ns, np);
    for (size_t s = 0; s < ns; s++) {
        ev->nodes[s] = (double)st->systems[s].nodes;
        ev->fom_lo[s] = ev->fom_hi[s] = NAN;
    }
    for (size_t p = 0; p < np; p++) {
        char *dev = NULL;   /* the device the problem's profile ran on */
        ev->weights[p] = st->problems[p].weight;
        double *flat;
        size_t *off;
        hours_by_system(st, p, &flat, &off);
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s, n = off[s + 1] - off[s];
            double *h = flat + off[s];
            ev->repeats[i] = n;
            if (n) {
                ev->hours[i] = stats_median(h, n);
                stats_median_ci(h, n, ev->ci_level, &ev->hours_ci[i]);
                if (n > 1)
                    ev->has_repeats = 1;
            } else {
                stats_median_ci(h, 0, ev->ci_level, &ev->hours_ci[i]);
                ev->estimated[i] = 1;
                struct cell_out c = { NAN, 1, NAN, NULL, 0, NULL, 0, NULL };
                int e = estimate_cell(st, p, s, &c, &ev->basis[i], &seen, d);
                if (e)
                    rc = e;
                ev->hours[i] = c.hours;
                ev->runs_per_node[i] = c.runs;
                ev->exposed_comm_s[i] = c.exposed_s;
                ev->hours_draws[i] = c.draws;
                ev->n_hours_draws[i] = c.n_draws;
                ev->scaling[i] = c.scaling;
                ev->n_scaling[i] = c.n_scaling;
                if (!dev)
                    dev = c.device;
                else
                    free(c.device);
                if (ev->n_hours_draws[i])
                    ev->has_spread = 1;
            }
        }
        free(flat);
        free(off);
        if (!rc)
            anchor_problem(st, p, ev, dev, &seen);
        free(dev);
    }
    if (rc)
        goto out;
    struct fom_input in = { ns, np, st->baseline, ev->nodes, ev->hours, ev->weights };
    if (fom_compute(&in, &ev->fom)) {
        rc = diag_error_at(d, st->path, 0, 0,
                           "found times or node counts whose rates or "
                           "ratios are not finite positive numbers (overflow or underflow), "
                           "expected times and nodes within a sane range");
        goto out;
    }
    if (ev->has_repeats || ev->has_spread)
        bootstrap_fom(st, ev);
    drop_unfit(st, ev, d);
    rc = study_econ(st, ev, d);
    for (size_t i = 0; !rc && i < np * ns; i++)
        if (ev->estimated[i] && ev->basis[i].fits == 0)
            ev->econ.energy_kwh_per_unit[i] = NAN;
out:
    strbuf_release(&seen);
    return rc;
}

