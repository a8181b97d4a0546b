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

/* One row of the per-problem table: problem p on system s. */
static void text_row(FILE *fp, const struct study *st, const struct study_eval *ev, size_t p,
                     size_t s)
{
    size_t ns = ev->n_systems, base = st->baseline, i = p * ns + s;
    const struct fom_result *r = &ev->fom;
    char a[64], b[64], c[64], e[64], f[64];
    fprintf(fp, "%-10s %-10s %10lld %7s %4zu %16s %20s %16s",
            st->problems[p].id, st->systems[s].id, (long long)st->systems[s].nodes,
            num(a, sizeof a, ev->weights[p]), ev->repeats[i],
            num(b, sizeof b, ev->hours[i]), num(c, sizeof c, r->units_per_day[i]),
            s == base ? "(baseline)" : fixed(e, sizeof e, r->ratio[i], 2));
    if (ev->has_repeats || ev->has_spread) {
        char ci[64];
        if (s == base)
            snprintf(ci, sizeof ci, "-");
        else if (isfinite(ev->ratio_lo[i]))
            snprintf(ci, sizeof ci, "%.2f .. %.2f", ev->ratio_lo[i], ev->ratio_hi[i]);
        else
            snprintf(ci, sizeof ci, "n/a");
        fprintf(fp, " %18s", ci);
    }
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

/* The heading and the per-problem table, with a note for every estimated
 * run that shares a node. */
static void text_problems(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    const char *bid = st->systems[base].id;
    char a[64], b[64];
    int pct = (int)lround(ev->ci_level * 100);

    fprintf(fp, "study: %s (%s)\n", st->name, st->path);
    fprintf(fp, "baseline: %s (%lld node%s); every ratio is system / %s\n\n", bid,
            (long long)st->systems[base].nodes, st->systems[base].nodes == 1 ? "" : "s", bid);

    fprintf(fp, "%-10s %-10s %10s %7s %4s %16s %20s %16s",
            "problem", "system", "nodes", "weight", "n", "hours/unit [h]",
            "units/day [1/day]", "ratio [x]");
    if (ev->has_repeats || ev->has_spread)
        fprintf(fp, " %18s", "ratio CI [x]");
    if (ev->has_repeats)
        fprintf(fp, "  %d%% CI of median [h]", pct);
    fputc('\n', fp);
    for (size_t p = 0; p < np; p++)
        for (size_t s = 0; s < ns; s++)
            text_row(fp, st, ev, p, s);

    /* Estimated runs that share a node: say how hours/unit was made. */
    for (size_t i = 0; i < np * ns; i++)
        if (ev->runs_per_node[i] != 1)
            fprintf(fp, "  %s on %s: %s runs side by side per node; hours/unit = one run's "
                        "time / %s\n", st->problems[i / ns].id, st->systems[i % ns].id,
                    num(a, sizeof a, ev->runs_per_node[i]), num(b, sizeof b, ev->runs_per_node[i]));
}

/* The per-system table and the FOM of the first other system. */
static void text_systems(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, base = st->baseline;
    const char *bid = st->systems[base].id;
    const struct fom_result *r = &ev->fom;
    char a[64], b[64], c[64], e[64];
    fprintf(fp, "\n%-10s %10s %26s %14s %18s %16s %16s\n", "system", "nodes",
            "harmonic rate [units/day]", "FOM [x]", "FOM CI [x]",
            "mean ratio [x]", "harm. ratio [x]");
    for (size_t s = 0; s < ns; s++) {
        char ci[64];
        if (isfinite(ev->fom_lo[s]))
            snprintf(ci, sizeof ci, "%.3f .. %.3f", ev->fom_lo[s], ev->fom_hi[s]);
        else
            snprintf(ci, sizeof ci, "n/a");
        fprintf(fp, "%-10s %10lld %26s %14s %18s %16s %16s\n", st->systems[s].id,
                (long long)st->systems[s].nodes, num(a, sizeof a, r->harmonic_rate[s]),
                fixed(b, sizeof b, r->fom[s], 3), ci,
                fixed(c, sizeof c, r->mean_ratio_arith[s], 3),
                fixed(e, sizeof e, r->mean_ratio_harm[s], 3));
    }

    size_t o = first_other(st);
    fputc('\n', fp);
    if (o < ns)
        fprintf(fp, "FOM of %s = H(%s) / H(%s) = %s / %s = %.3f\n", st->systems[o].id,
                st->systems[o].id, bid, num(a, sizeof a, r->harmonic_rate[o]),
                num(b, sizeof b, r->harmonic_rate[base]), r->fom[o]);
}

/* The legend lines about the intervals. */
static void text_legend_ci(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    int pct = (int)lround(ev->ci_level * 100);
    int varies = ev->has_repeats || ev->has_spread;
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
    int ratio_na = 0;
    for (size_t i = 0; varies && i < np * ns; i++)
        if (i % ns != base && !isfinite(ev->ratio_lo[i]))
            ratio_na = 1;
    if (ratio_na)
        fprintf(fp, "  ratio CI n/a: neither the system's nor %s's cell of the problem varies\n",
                st->systems[base].id);
}

static void text_legend(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    const char *bid = st->systems[st->baseline].id;
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
    text_legend_ci(fp, st, ev);
}

static void render_text(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    text_problems(fp, st, ev);
    text_systems(fp, st, ev);
    text_legend(fp, st, ev);
}

/* The "ci" key: how the intervals were made, or null when none were. */
static void json_ci_method(struct json *j, const struct study_eval *ev)
{
    json_key(j, "ci");
    if (!ev->has_repeats && !ev->has_spread) {
        json_null(j);
        return;
    }
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
}

/* The contract's summary keys, about the first other system. */
static void json_summary(struct json *j, const struct study *st, const struct study_eval *ev)
{
    size_t ns = ev->n_systems, o = first_other(st);
    const struct fom_result *r = &ev->fom;
    json_kstr(j, "study", st->name);
    json_kstr(j, "file", st->path);
    json_kstr(j, "baseline", st->systems[st->baseline].id);
    json_kstr(j, "compared", o < ns ? st->systems[o].id : NULL);
    json_knum(j, "fom", o < ns ? r->fom[o] : NAN);
    json_key(j, "fom_by_system");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++)
        json_knum(j, st->systems[s].id, r->fom[s]);
    json_obj_end(j);
    json_key(j, "fom_ci");
    json_interval(j, o < ns ? ev->fom_lo[o] : NAN, o < ns ? ev->fom_hi[o] : NAN);
    json_key(j, "mean_of_ratios");
    json_obj_begin(j);
    json_knum(j, "arithmetic", o < ns ? r->mean_ratio_arith[o] : NAN);
    json_knum(j, "harmonic", o < ns ? r->mean_ratio_harm[o] : NAN);
    json_obj_end(j);
    json_key(j, "weighted");
    json_bool(j, st->has_weights);
    json_ci_method(j, ev);
}

static void json_systems(struct json *j, const struct study *st, const struct study_eval *ev)
{
    const struct fom_result *r = &ev->fom;
    json_key(j, "systems");
    json_arr_begin(j);
    for (size_t s = 0; s < ev->n_systems; s++) {
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
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* key: { system: v[p * ns + s] } over every system (skip: one to leave
 * out, or ns for none); v_int, when given, writes integers instead of v. */
static void json_by_system(struct json *j, const char *key, const struct study *st, size_t ns,
                           size_t p, size_t skip, const double *v, const size_t *v_int)
{
    json_key(j, key);
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++) {
        if (s == skip)
            continue;
        if (v_int)
            json_kint(j, st->systems[s].id, (int64_t)v_int[p * ns + s]);
        else
            json_knum(j, st->systems[s].id, v[p * ns + s]);
    }
    json_obj_end(j);
}

static void json_hours_ci(struct json *j, const struct study *st, const struct study_eval *ev,
                          size_t p)
{
    size_t ns = ev->n_systems;
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
}

static void json_problem(struct json *j, const struct study *st, const struct study_eval *ev,
                         size_t p)
{
    size_t ns = ev->n_systems, base = st->baseline, o = first_other(st);
    const struct fom_result *r = &ev->fom;
    json_obj_begin(j);
    json_kstr(j, "id", st->problems[p].id);
    json_knum(j, "weight", ev->weights[p]);
    json_knum(j, "ratio", o < ns ? r->ratio[p * ns + o] : NAN);
    json_key(j, "ratio_ci");
    json_interval(j, o < ns ? ev->ratio_lo[p * ns + o] : NAN, o < ns ? ev->ratio_hi[p * ns + o] : NAN);
    json_by_system(j, "ratios", st, ns, p, base, r->ratio, NULL);
    json_key(j, "ratios_ci");
    json_obj_begin(j);
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        json_key(j, st->systems[s].id);
        json_interval(j, ev->ratio_lo[p * ns + s], ev->ratio_hi[p * ns + s]);
    }
    json_obj_end(j);
    json_by_system(j, "units_per_day", st, ns, p, ns, r->units_per_day, NULL);
    json_by_system(j, "hours_per_unit", st, ns, p, ns, ev->hours, NULL);
    json_by_system(j, "runs_per_node", st, ns, p, ns, ev->runs_per_node, NULL);
    json_by_system(j, "repeats", st, ns, p, ns, NULL, ev->repeats);
    json_hours_ci(j, st, ev, p);
    json_obj_end(j);
}

static void render_json(FILE *fp, const struct study *st, const struct study_eval *ev)
{
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_summary(&j, st, ev);
    json_systems(&j, st, ev);
    json_key(&j, "problems");
    json_arr_begin(&j);
    for (size_t p = 0; p < ev->n_problems; p++)
        json_problem(&j, st, ev, p);
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
          "mean_of_ratios_harmonic [x]\n", fp);
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
            fputs(",,\n", fp);
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
