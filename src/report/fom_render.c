#include "report/fom_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/numfmt.h"

/* The first system that is not the baseline: the contract's "ratio" and
 * "fom" keys speak about it.  n_systems when there is none. */
static size_t first_other(const struct study *st)
{
    for (size_t s = 0; s < st->n_systems; s++)
        if (s != st->baseline)
            return s;
    return st->n_systems;
}

/* Up to 7 significant digits without an exponent (7475.2, 4512000,
 * 17250.46, 0.01555556): units per day and hours read better that way,
 * and 7 digits keep H_titan = 17250.46 from reading as 17250.5. */
static const char *num(char *buf, size_t n, double v)
{
    return fmt_sig(buf, n, v, 7, 1e-9);
}

static const char *fixed(char *buf, size_t n, double v, int dec)
{
    return fmt_fixed(buf, n, v, dec);
}

static int any_estimated(const struct study_eval *ev)
{
    for (size_t i = 0; ev->estimated && i < ev->n_systems * ev->n_problems; i++)
        if (ev->estimated[i])
            return 1;
    return 0;
}

/* "study time" (a measured <time>), or the method with the largest share and that share, with
 * a '!' when the cell rests mostly on the roofline or peak scaling. */
static const char *basis_text(char *buf, size_t n, const struct study_eval *ev, size_t i)
{
    if (!ev->estimated || !ev->estimated[i]) {
        snprintf(buf, n, "study time");
        return buf;
    }
    const struct estimate_basis *b = &ev->basis[i];
    if (b->fits == 0) {
        snprintf(buf, n, "DOES NOT FIT %.1f > %.1f GB", b->mem.total_b / 1e9, b->capacity_b / 1e9);
        return buf;
    }
    int best = 0;
    for (int m = 1; m < EST_METHOD_COUNT; m++)
        if (b->method_share[m] > b->method_share[best])
            best = m;
    snprintf(buf, n, "%s %.0f%%%s", est_method_name((enum est_method)best),
             100 * b->method_share[best], study_cell_weak(ev, i) ? " !" : "");
    return buf;
}

static const char *num_or_na(char *buf, size_t n, double v, int dec)
{
    if (!isfinite(v))
        return "n/a";
    return dec < 0 ? num(buf, n, v) : fixed(buf, n, v, dec);
}

/* Power and price beside the FOM: never in place of it. */
static void render_econ_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    const struct econ_result *e = &ev->econ;
    char a[64], b[64], c[64], g[64], h[64], k[64];
    fprintf(fp, "\n%-10s %12s %22s %12s %14s %24s %12s\n", "system", "power [kW]",
            "units/day per MW", "FOM/W [x]", "price [M$]", "units/day per M$", "FOM/$ [x]");
    for (size_t s = 0; s < ev->n_systems; s++)
        fprintf(fp, "%-10s %12s %22s %12s %14s %24s %12s\n", st->systems[s].id,
                num_or_na(a, sizeof a, e->power_w[s] / 1e3, -1),
                num_or_na(b, sizeof b, e->rate_per_mw[s], -1),
                num_or_na(c, sizeof c, e->fom_per_watt[s], 3),
                num_or_na(g, sizeof g, e->cost_usd[s] / 1e6, -1),
                num_or_na(h, sizeof h, e->rate_per_musd[s], -1),
                num_or_na(k, sizeof k, e->fom_per_dollar[s], 3));
    for (size_t s = 0; s < ev->n_systems; s++) {
        fprintf(fp, "  %s: power %s", st->systems[s].id,
                ev->power_from[s] ? ev->power_from[s] : "not given (no node-power, no power in "
                                                        "a machine file)");
        fprintf(fp, "; price %s\n", ev->price_from[s] ? ev->price_from[s] : "not given");
    }
}

/* The table of cells: one row per problem and system. */
static void render_cells_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    const struct fom_result *r = &ev->fom;
    char a[64], b[64], c[64], e[64], f[64];
    int pct = (int)lround(ev->ci_level * 100);

    fprintf(fp, "%-10s %-10s %10s %7s %4s %16s %20s %16s",
            "problem", "system", "nodes", "weight", "n", "hours/unit [h]",
            "units/day [1/day]", "ratio [x]");
    int varies = ev->has_repeats || ev->has_spread;
    if (varies)
        fprintf(fp, " %18s", "ratio CI [x]");
    int est = any_estimated(ev);
    if (ev->has_power)
        fprintf(fp, " %18s", "energy/unit [kWh]");
    if (est)
        fprintf(fp, "  %-20s", "basis");
    if (ev->has_repeats)
        fprintf(fp, "  %d%% CI of median [h]", pct);
    fputc('\n', fp);
    for (size_t p = 0; p < np; p++) {
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            fprintf(fp, "%-10s %-10s %10lld %7s %4zu %16s %20s %16s",
                    st->problems[p].id, st->systems[s].id, (long long)st->systems[s].nodes,
                    num(a, sizeof a, ev->weights[p]), ev->repeats[i],
                    num(b, sizeof b, ev->hours[i]), num(c, sizeof c, r->units_per_day[i]),
                    s == base ? "(baseline)" : fixed(e, sizeof e, r->ratio[i], 2));
            if (varies) {
                char ci[80], lo[32], hi[32];
                if (s == base)
                    snprintf(ci, sizeof ci, "-");
                else if (isfinite(ev->ratio_lo[i]))
                    snprintf(ci, sizeof ci, "%s .. %s", fixed(lo, sizeof lo, ev->ratio_lo[i], 2),
                             fixed(hi, sizeof hi, ev->ratio_hi[i], 2));
                else
                    snprintf(ci, sizeof ci, "n/a");
                fprintf(fp, " %18s", ci);
            }
            if (ev->has_power)
                fprintf(fp, " %18s", isfinite(ev->econ.energy_kwh_per_unit[i])
                        ? num(f, sizeof f, ev->econ.energy_kwh_per_unit[i]) : "n/a");
            if (est)
                fprintf(fp, "  %-24s", basis_text(e, sizeof e, ev, i));
            if (ev->has_repeats) {
                const struct median_ci *ci = &ev->hours_ci[i];
                if (ci->available)
                    fprintf(fp, "  %s .. %s (%.1f%%)", num(e, sizeof e, ci->lo),
                            num(f, sizeof f, ci->hi), ci->coverage * 100);
                else
                    fprintf(fp, "  n/a (n < 6)");
            }
            fputc('\n', fp);
        }
    }
}

/* How shared nodes were counted, then the table of systems. */
static void render_systems_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems;
    const struct fom_result *r = &ev->fom;
    char a[64], b[64], c[64], e[64];

    /* Data-parallel runs: the exchange the backward pass does not hide. */
    for (size_t i = 0; ev->exposed_comm_s && ev->n_scaling && i < np * ns; i++)
        if (isfinite(ev->exposed_comm_s[i]) && ev->n_scaling[i])
            fprintf(fp, "  %s on %s: %s s exposed gradient exchange per pass (after the "
                        "backward pass; fom --format json gives the scaling curve)\n",
                    st->problems[i / ns].id, st->systems[i % ns].id,
                    num(a, sizeof a, ev->exposed_comm_s[i]));
    /* Estimated runs that share a node: say how hours/unit was made. */
    for (size_t i = 0; i < np * ns; i++)
        if (ev->runs_per_node[i] != 1)
            fprintf(fp, "  %s on %s: %s runs side by side per node; hours/unit = one run's "
                        "time / %s\n", st->problems[i / ns].id, st->systems[i % ns].id,
                    num(a, sizeof a, ev->runs_per_node[i]), num(b, sizeof b, ev->runs_per_node[i]));
    fprintf(fp, "\n%-10s %10s %26s %14s %18s %16s %16s\n", "system", "nodes",
            "harmonic rate [units/day]", "FOM [x]", "FOM CI [x]",
            "mean ratio [x]", "harm. ratio [x]");
    for (size_t s = 0; s < ns; s++) {
        char ci[80], lo[32], hi[32];
        if (isfinite(ev->fom_lo[s]))
            snprintf(ci, sizeof ci, "%s .. %s", fixed(lo, sizeof lo, ev->fom_lo[s], 3),
                     fixed(hi, sizeof hi, ev->fom_hi[s], 3));
        else
            snprintf(ci, sizeof ci, "n/a");
        fprintf(fp, "%-10s %10lld %26s %14s %18s %16s %16s\n", st->systems[s].id,
                (long long)st->systems[s].nodes, num(a, sizeof a, r->harmonic_rate[s]),
                fixed(b, sizeof b, r->fom[s], 3), ci,
                fixed(c, sizeof c, r->mean_ratio_arith[s], 3),
                fixed(e, sizeof e, r->mean_ratio_harm[s], 3));
    }
}

/* What each column and interval means, and why FOM and means differ. */
static void render_legend_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    const char *bid = st->systems[base].id;
    int pct = (int)lround(ev->ci_level * 100);
    int varies = ev->has_repeats || ev->has_spread;
    int est = any_estimated(ev);

    fprintf(fp, "\nlegend:\n");
    fprintf(fp, "  units/day = 24 / hours per unit x nodes; ratio = units/day of the system / "
                "units/day of %s\n", bid);
    fprintf(fp, "  harmonic rate H = %s of the per-problem units/day; FOM = H(system) / H(%s)\n",
            st->has_weights ? "weighted harmonic mean sum(w) / sum(w / rate)" : "harmonic mean",
            bid);
    fprintf(fp, "  mean ratio, harm. ratio = %sarithmetic and harmonic mean of the per-problem "
                "ratios, for contrast only\n", st->has_weights ? "weighted " : "");
    if (st->has_weights)
        fprintf(fp, "  why FOM and mean of ratios differ: the FOM weighs each problem's ratio by "
                    "its weight times %s's time per unit of work, the means of ratios by the "
                    "weight alone (the arithmetic one is pulled up by the largest ratio)\n", bid);
    else
        fprintf(fp, "  why FOM and mean of ratios differ: the FOM weighs each problem's ratio by "
                    "%s's time per unit of work (slow problems count more), the means of ratios "
                    "weigh every ratio equally (the arithmetic one is pulled up by the largest "
                    "ratio)\n", bid);
    fprintf(fp, "  ratios are printed rounded to 2 decimals, FOM and means to 3; all are "
                "computed from unrounded rates\n");
    fprintf(fp, "  n = measured times (repeats); hours/unit is their median\n");
    if (ev->has_power)
        fprintf(fp, "  energy/unit = hours/unit on one node x node power (at the stated power: "
                    "datasheet TDPs are maxima)\n");
    if (ev->has_power || ev->has_price)
        fprintf(fp, "  units/day per MW (per M$) = H / system power (price); FOM/W (FOM/$) = that "
                    "of the system / that of %s; n/a where a power or price is not given\n", bid);
    if (est)
        fprintf(fp, "  basis = how an estimated cell's op time was obtained: the method with the "
                    "largest share and that share (fom fom --format json lists them all); "
                    "! = at least %.0f%% from the machine file's roofline, efficiency model or peak scaling, not "
                    "measured kernel tables: peak rates no kernel reaches, optimistic by 2-3.6x "
                    "on GPUs\n", 100 * STUDY_WEAK_SHARE);
    /* per problem, the first estimated cell's anchor and host calibration */
    for (size_t p = 0; p < np; p++) {
        int anchored = 0, scaled = 0;
        for (size_t s = 0; s < ns; s++) {
            const struct estimate_basis *b = &ev->basis[p * ns + s];
            if (!ev->estimated[p * ns + s])
                continue;
            if (!anchored && b->anchor > 0)
                fprintf(fp, "  %s: estimates x %.3f = measured / estimated on %s, the profile's own "
                            "device, so they compare as the machines do\n",
                        st->problems[p].id, b->anchor, b->anchor_system);
            if (!scaled && b->host_scale > 0)
                fprintf(fp, "  %s: the trace's host times x %.3f, so that it replays on its own "
                            "device in its run's step measured without the profiler (its .meta.json)\n",
                        st->problems[p].id, b->host_scale);
            anchored |= b->anchor > 0;
            scaled |= b->host_scale > 0;
        }
    }
    if (ev->has_repeats && !ev->has_spread)
        fprintf(fp, "  FOM CI: %d%% percentile bootstrap over the repeats, %d resamples, "
                    "seed %lu; median CI from order statistics (achieved coverage shown)\n",
                pct, ev->resamples, ev->seed);
    else if (!varies)
        fprintf(fp, "  FOM CI: n/a, every time was measured once (no repeats, no interval)\n");
    if (ev->has_spread) {
        fprintf(fp, "  FOM and ratio CI: %d%% percentile interval over %d resamples (seed %lu); "
                    "each resample takes one of %zu Monte Carlo draws (seed %lu) of every "
                    "estimated cell whose kernel tables give p05/p95%s; other cells stay fixed\n",
                pct, ev->resamples, ev->seed, ev->estimate_draws, ev->estimate_seed,
                ev->has_repeats ? " and a bootstrap resample of every cell with repeats" : "");
        fprintf(fp, "  the Monte Carlo draws each op's device time from a log-normal with the "
                    "table's p05/p95 as its 5%%/95%% quantiles: it reflects kernel timing spread "
                    "only, not the error of the estimator itself\n");
    }
    int fom_na = 0;
    for (size_t s = 0; varies && s < ns; s++)
        if (s != base && !isfinite(ev->fom_lo[s]))
            fom_na = 1;
    if (fom_na)
        fprintf(fp, "  FOM CI n/a: no resampled input moves it (an interval of zero width is not "
                    "reported)\n");
    int ratio_na = 0;
    for (size_t i = 0; varies && i < np * ns; i++)
        if (i % ns != base && !isfinite(ev->ratio_lo[i]))
            ratio_na = 1;
    if (ratio_na)
        fprintf(fp, "  ratio CI n/a: neither the system's nor %s's cell of the problem varies\n",
                bid);
}

static void render_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    const char *bid = st->systems[base].id;
    const struct fom_result *r = &ev->fom;
    char a[64], b[64], c[64];

    fprintf(fp, "study: %s (%s)\n", st->name, st->path);
    fprintf(fp, "baseline: %s (%lld node%s); every ratio is system / %s\n\n", bid,
            (long long)st->systems[base].nodes, st->systems[base].nodes == 1 ? "" : "s", bid);
    render_cells_text(fp, st, ev);
    render_systems_text(fp, st, ev);
    if (ev->has_power || ev->has_price)
        render_econ_text(fp, st, ev);
    size_t o = first_other(st);
    fputc('\n', fp);
    if (o < ns && isfinite(r->fom[o]))
        fprintf(fp, "FOM of %s = H(%s) / H(%s) = %s / %s = %s\n", st->systems[o].id,
                st->systems[o].id, bid, num(a, sizeof a, r->harmonic_rate[o]),
                num(b, sizeof b, r->harmonic_rate[base]), fixed(c, sizeof c, r->fom[o], 3));
    for (size_t i = 0; i < np * ns; i++) {
        const struct estimate_basis *eb = &ev->basis[i];
        if (!ev->estimated[i] || eb->fits != 0)
            continue;
        size_t s = i % ns;
        fprintf(fp, "%s on %s does not fit a device: needs %.1f GB per device (weights %.2f, "
                    "gradients %.2f, optimizer %.2f, autocast copies %.2f, activations %.2f, "
                    "gradients in flight %.2f, workspaces %.2f GB; peak at the %s), "
                    "has %.1f GB; give it more devices per run (devices-per-run) or a smaller "
                    "batch.  The FOM of %s cannot be formed without it.\n",
                st->problems[i / ns].id, st->systems[s].id, eb->mem.total_b / 1e9,
                eb->mem.weights_b / 1e9, eb->mem.grads_b / 1e9, eb->mem.optimizer_b / 1e9,
                eb->mem.casts_b / 1e9, eb->mem.activations_b / 1e9, eb->mem.transient_b / 1e9,
                eb->mem.workspace_b / 1e9, eb->mem.peak_at_step ? "optimizer step" : "backward",
                eb->capacity_b / 1e9,
                s == base ? "any system" : st->systems[s].id);
    }
    render_legend_text(fp, st, ev);
}

/* {"pass_time_s", "bound", "methods": {method: share}, "weak"} of an
 * estimated cell; only methods with a share are listed. */
static void write_basis(struct json *j, const struct study_eval *ev, size_t i)
{
    const struct estimate_basis *b = &ev->basis[i];
    json_obj_begin(j);
    json_knum(j, "pass_time_s", b->pass_time_s);
    json_kstr(j, "bound", est_bound_name(b->bound));
    json_key(j, "methods");
    json_obj_begin(j);
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        if (b->method_share[m] > 0)
            json_knum(j, est_method_name((enum est_method)m), b->method_share[m]);
    json_obj_end(j);
    json_key(j, "mostly_roofline_or_scaled");
    json_bool(j, study_cell_weak(ev, i));
    json_kint(j, "batch", b->batch);
    json_kint(j, "profile_batch", b->profile_batch);
    json_knum(j, "memory_bytes", b->mem.available ? b->mem.total_b : NAN);
    json_knum(j, "device_memory_bytes", b->capacity_b > 0 ? b->capacity_b : NAN);
    json_key(j, "fits");
    if (b->fits < 0)
        json_null(j);
    else
        json_bool(j, b->fits);
    json_key(j, "anchor");
    if (b->anchor > 0) {
        json_obj_begin(j);
        json_kstr(j, "system", b->anchor_system);
        json_knum(j, "measured_over_estimated", b->anchor);
        json_obj_end(j);
    } else {
        json_null(j);
    }
    json_knum(j, "host_scale", b->host_scale > 0 ? b->host_scale : NAN);
    json_key(j, "memory");
    json_obj_begin(j);
    json_knum(j, "weights_bytes", b->mem.available ? b->mem.weights_b : NAN);
    json_knum(j, "gradients_bytes", b->mem.available ? b->mem.grads_b : NAN);
    json_knum(j, "optimizer_bytes", b->mem.available ? b->mem.optimizer_b : NAN);
    json_knum(j, "autocast_copies_bytes", b->mem.available ? b->mem.casts_b : NAN);
    json_knum(j, "activations_bytes", b->mem.activations_b);
    json_knum(j, "gradients_in_flight_bytes", b->mem.transient_b);
    json_knum(j, "workspace_bytes", b->mem.workspace_b);
    json_knum(j, "optimizer_step_temporaries_bytes", b->mem.available ? b->mem.step_temp_b : NAN);
    json_kstr(j, "peak_at", b->mem.peak_at_step ? "optimizer step" : "backward");
    json_kstr(j, "optimizer", mem_optimizer_name(b->mem.optimizer));
    json_kstr(j, "parameters_from", b->params_from);
    json_obj_end(j);
    json_obj_end(j);
}

/* problems[].scaling.<system>: the curve of every data-parallel cell
 * that has one (run/study_eval.h, struct scaling_point). */
static void json_scaling(struct json *j, const struct study *st, const struct study_eval *ev,
                         size_t p)
{
    size_t ns = ev->n_systems;
    json_key(j, "scaling");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++) {
        const struct scaling_point *pt = ev->scaling[p * ns + s];
        size_t n = ev->n_scaling[p * ns + s];
        if (!pt)
            continue;
        json_key(j, st->systems[s].id);
        json_arr_begin(j);
        for (size_t k = 0; k < n; k++) {
            json_obj_begin(j);
            json_kint(j, "devices_per_run", pt[k].devices_per_run);
            json_kint(j, "nodes_per_run", pt[k].nodes_per_run);
            json_knum(j, "per_device_batch", pt[k].per_device_batch);
            json_knum(j, "pass_s", pt[k].pass_s);
            json_knum(j, "exposed_comm_s", pt[k].exposed_comm_s);
            json_knum(j, "comm_s", pt[k].comm_s);
            json_kint(j, "comm_buckets", (int64_t)pt[k].n_buckets);
            json_kint(j, "comm_buckets_from_table", (int64_t)pt[k].n_from_table);
            json_knum(j, "units_per_day", pt[k].run_units_per_day);
            json_knum(j, "ideal_units_per_day", pt[k].ideal_units_per_day);
            json_knum(j, "concurrent_runs", pt[k].concurrent_runs);
            json_knum(j, "system_units_per_day", pt[k].units_per_day);
            json_obj_end(j);
        }
        json_arr_end(j);
    }
    json_obj_end(j);
}

/* problems[].exposed_comm_s and problems[].scaling; both are absent from
 * results built without an evaluation (tests). */
static void json_comm(struct json *j, const struct study *st, const struct study_eval *ev,
                      size_t p)
{
    size_t ns = ev->n_systems;
    if (ev->exposed_comm_s) {
        json_key(j, "exposed_comm_s");
        json_obj_begin(j);
        for (size_t s = 0; s < ns; s++)
            json_knum(j, st->systems[s].id, ev->exposed_comm_s[p * ns + s]);
        json_obj_end(j);
    }
    if (ev->scaling)
        json_scaling(j, st, ev, p);
}

/* "ci": how the intervals were made, or null when nothing varies. */
static void write_ci(struct json *j, const struct study_eval *ev)
{
    json_key(j, "ci");
    if (ev->has_repeats || ev->has_spread) {
        json_obj_begin(j);
        json_kstr(j, "method", !ev->has_spread ? "percentile bootstrap over repeated times"
                  : ev->has_repeats ? "percentile interval: bootstrap over repeated times and "
                                      "Monte Carlo over kernel-table p05/p95 spreads"
                  : "percentile interval of a Monte Carlo over kernel-table p05/p95 spreads");
        json_knum(j, "level", ev->ci_level);
        json_kint(j, "resamples", ev->resamples);
        json_kint(j, "seed", (int64_t)ev->seed);
        if (ev->has_spread) {
            json_kint(j, "estimate_draws", (int64_t)ev->estimate_draws);
            json_kint(j, "estimate_seed", (int64_t)ev->estimate_seed);
            json_kstr(j, "covers", "kernel timing spread only, not the estimator's error");
        }
        json_obj_end(j);
    } else {
        json_null(j);
    }
}

/* "systems": one object per system, FOM and economics. */
static void write_systems(struct json *j, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems;
    const struct fom_result *r = &ev->fom;
    json_key(j, "systems");
    json_arr_begin(j);
    for (size_t s = 0; s < ns; s++) {
        json_obj_begin(j);
        json_kstr(j, "id", st->systems[s].id);
        json_kint(j, "nodes", st->systems[s].nodes);
        json_knum(j, "harmonic_rate", r->harmonic_rate[s]);
        json_knum(j, "fom", r->fom[s]);
        json_key(j, "fom_ci");
        json_interval(j, ev->fom_lo[s], ev->fom_hi[s]);
        json_key(j, "mean_of_ratios");
        json_obj_begin(j);
        json_knum(j, "arithmetic", r->mean_ratio_arith[s]);
        json_knum(j, "harmonic", r->mean_ratio_harm[s]);
        json_obj_end(j);
        json_kstr(j, "machine", st->systems[s].machine);
        json_kstr(j, "kernels", st->systems[s].kernels);
        json_knum(j, "node_power_w", ev->node_power_w ? ev->node_power_w[s] : NAN);
        json_knum(j, "power_w", ev->econ.power_w ? ev->econ.power_w[s] : NAN);
        json_kstr(j, "power_from", ev->power_from ? ev->power_from[s] : NULL);
        json_knum(j, "harmonic_rate_per_mw", ev->econ.rate_per_mw ? ev->econ.rate_per_mw[s] : NAN);
        json_knum(j, "fom_per_watt", ev->econ.fom_per_watt ? ev->econ.fom_per_watt[s] : NAN);
        json_knum(j, "node_price_usd", ev->node_price_usd ? ev->node_price_usd[s] : NAN);
        json_knum(j, "price_usd", ev->econ.cost_usd ? ev->econ.cost_usd[s] : NAN);
        json_kstr(j, "price_from", ev->price_from ? ev->price_from[s] : NULL);
        json_knum(j, "harmonic_rate_per_musd",
                  ev->econ.rate_per_musd ? ev->econ.rate_per_musd[s] : NAN);
        json_knum(j, "fom_per_dollar", ev->econ.fom_per_dollar ? ev->econ.fom_per_dollar[s] : NAN);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* One element of "problems": problem p's ratios, rates and cells by system. */
/* key: {system id: v[system]} over every system of the study. */
static void json_per_system(struct json *j, const char *key, const struct study *st, const double *v)
{
    json_key(j, key);
    json_obj_begin(j);
    for (size_t s = 0; s < st->n_systems; s++)
        json_knum(j, st->systems[s].id, v[s]);
    json_obj_end(j);
}

static void write_problem(struct json *j, const struct study *st, const struct study_eval *ev,
                          size_t p)
{
    size_t ns = ev->n_systems, base = st->baseline;
    size_t o = first_other(st);
    const struct fom_result *r = &ev->fom;
    json_obj_begin(j);
    json_kstr(j, "id", st->problems[p].id);
    json_knum(j, "weight", ev->weights[p]);
    json_knum(j, "ratio", o < ns ? r->ratio[p * ns + o] : NAN);
    json_key(j, "ratio_ci");
    json_interval(j, o < ns ? ev->ratio_lo[p * ns + o] : NAN, o < ns ? ev->ratio_hi[p * ns + o] : NAN);
    json_key(j, "ratios");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++)
        if (s != base)
            json_knum(j, st->systems[s].id, r->ratio[p * ns + s]);
    json_obj_end(j);
    json_key(j, "ratios_ci");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        json_key(j, st->systems[s].id);
        json_interval(j, ev->ratio_lo[p * ns + s], ev->ratio_hi[p * ns + s]);
    }
    json_obj_end(j);
    json_per_system(j, "units_per_day", st, r->units_per_day + p * ns);
    json_per_system(j, "hours_per_unit", st, ev->hours + p * ns);
    json_per_system(j, "runs_per_node", st, ev->runs_per_node + p * ns);
    json_key(j, "repeats");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++)
        json_kint(j, st->systems[s].id, (int64_t)ev->repeats[p * ns + s]);
    json_obj_end(j);
    json_key(j, "energy_kwh_per_unit");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++)
        json_knum(j, st->systems[s].id, ev->econ.energy_kwh_per_unit
                  ? ev->econ.energy_kwh_per_unit[p * ns + s] : NAN);
    json_obj_end(j);
    json_key(j, "estimates");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++)
        if (ev->estimated && ev->estimated[p * ns + s]) {
            json_key(j, st->systems[s].id);
            write_basis(j, ev, p * ns + s);
        }
    json_obj_end(j);
    json_comm(j, st, ev, p);
    json_key(j, "hours_per_unit_ci");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++) {
        const struct median_ci *ci = &ev->hours_ci[p * ns + s];
        json_key(j, st->systems[s].id);
        if (ci->available) {
            json_obj_begin(j);
            json_knum(j, "lo", ci->lo);
            json_knum(j, "hi", ci->hi);
            json_knum(j, "coverage", ci->coverage);
            json_obj_end(j);
        } else {
            json_null(j);
        }
    }
    json_obj_end(j);
    json_obj_end(j);
}

static void render_json(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    size_t o = first_other(st);
    const struct fom_result *r = &ev->fom;
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "study", st->name);
    json_kstr(&j, "file", st->path);
    json_kstr(&j, "baseline", st->systems[base].id);
    json_kstr(&j, "compared", o < ns ? st->systems[o].id : NULL);
    json_knum(&j, "fom", o < ns ? r->fom[o] : NAN);
    json_key(&j, "fom_by_system");
    json_obj_begin(&j);
    for (size_t s = 0; s < ns; s++)
        json_knum(&j, st->systems[s].id, r->fom[s]);
    json_obj_end(&j);
    json_key(&j, "fom_ci");
    json_interval(&j, o < ns ? ev->fom_lo[o] : NAN, o < ns ? ev->fom_hi[o] : NAN);
    json_key(&j, "mean_of_ratios");
    json_obj_begin(&j);
    json_knum(&j, "arithmetic", o < ns ? r->mean_ratio_arith[o] : NAN);
    json_knum(&j, "harmonic", o < ns ? r->mean_ratio_harm[o] : NAN);
    json_obj_end(&j);
    json_key(&j, "weighted");
    json_bool(&j, st->has_weights);
    write_ci(&j, ev);
    write_systems(&j, st, ev);
    json_key(&j, "problems");
    json_arr_begin(&j);
    for (size_t p = 0; p < np; p++)
        write_problem(&j, st, ev, p);
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}
static void csv_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, ",%.15g", v);
    else
        fputs(",", fp);
}

/* pass_time, bound and the method shares of an estimated cell; empty
 * fields for measured cells and system rows (i = (size_t)-1). */
static void csv_basis(FILE *fp, const struct study_eval *ev, size_t i)
{
    int est = i != (size_t)-1 && ev->estimated && ev->estimated[i];
    const struct estimate_basis *b = est ? &ev->basis[i] : NULL;
    csv_num(fp, est ? b->pass_time_s : NAN);
    fputc(',', fp);
    if (est)
        fputs(est_bound_name(b->bound), fp);
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        csv_num(fp, est ? b->method_share[m] : NAN);
    csv_num(fp, est && b->mem.available ? b->mem.total_b : NAN);
    csv_num(fp, est && b->capacity_b > 0 ? b->capacity_b : NAN);
    fputs(!est || b->fits < 0 ? "," : b->fits ? ",yes" : ",no", fp);
}

/* One table: "problem" rows per problem and system, then "system" rows
 * whose units_per_day column holds the harmonic rate and whose ratio
 * column holds the FOM; ci_lo/ci_hi bound the row's ratio column (the
 * problem's ratio, or the FOM).  Empty cells mean not applicable or
 * unavailable. */
static void render_csv(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    const struct fom_result *r = &ev->fom;
    const char *bid = st->systems[base].id;
    fputs("row,problem,system,nodes,weight,repeats,hours_per_unit [h],"
          "units_per_day [1/day],", fp);
    struct strbuf h = STRBUF_INIT;
    strbuf_addf(&h, "ratio_to_%s [x]", bid);
    csv_field(fp, strbuf_str(&h));
    strbuf_release(&h);
    fputs(",ci_lo [x],ci_hi [x],mean_of_ratios_arithmetic [x],"
          "mean_of_ratios_harmonic [x],energy_per_unit [kWh],power [W],fom_per_watt [x],"
          "price [USD],fom_per_dollar [x],pass_time [s],bound", fp);
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        fprintf(fp, ",share_%s [1]", est_method_name((enum est_method)m));
    fputs(",memory [B],device_memory [B],fits\n", fp);
    for (size_t p = 0; p < np; p++) {
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            fputs("problem,", fp);
            csv_field(fp, st->problems[p].id);
            fputc(',', fp);
            csv_field(fp, st->systems[s].id);
            fprintf(fp, ",%lld", (long long)st->systems[s].nodes);
            csv_num(fp, ev->weights[p]);
            fprintf(fp, ",%zu", ev->repeats[i]);
            csv_num(fp, ev->hours[i]);
            csv_num(fp, r->units_per_day[i]);
            csv_num(fp, r->ratio[i]);
            csv_num(fp, ev->ratio_lo[i]);
            csv_num(fp, ev->ratio_hi[i]);
            fputs(",,", fp);
            csv_num(fp, ev->econ.energy_kwh_per_unit[i]);
            fputs(",,,,", fp);
            csv_basis(fp, ev, i);
            fputc('\n', fp);
        }
    }
    for (size_t s = 0; s < ns; s++) {
        fputs("system,,", fp);
        csv_field(fp, st->systems[s].id);
        fprintf(fp, ",%lld,,,", (long long)st->systems[s].nodes);
        csv_num(fp, r->harmonic_rate[s]);
        csv_num(fp, r->fom[s]);
        csv_num(fp, ev->fom_lo[s]);
        csv_num(fp, ev->fom_hi[s]);
        csv_num(fp, r->mean_ratio_arith[s]);
        csv_num(fp, r->mean_ratio_harm[s]);
        fputc(',', fp);
        csv_num(fp, ev->econ.power_w[s]);
        csv_num(fp, ev->econ.fom_per_watt[s]);
        csv_num(fp, ev->econ.cost_usd[s]);
        csv_num(fp, ev->econ.fom_per_dollar[s]);
        csv_basis(fp, ev, (size_t)-1);
        fputc('\n', fp);
    }
}

void fom_render(FILE *fp, enum out_format f, const struct study *st,
                const struct study_eval *ev)
{
    switch (f) {
    case FMT_JSON: render_json(fp, st, ev); break;
    case FMT_CSV: render_csv(fp, st, ev); break;
    default: render_text(fp, st, ev); break;
    }
}
