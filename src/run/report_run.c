#include "run/report_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/diag.h"
#include "core/outdir.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/machine_xml.h"
#include "ingest/study_xml.h"
#include "model/estimate.h"
#include "report/fom_render.h"
#include "report/gnuplot.h"
#include "report/report.h"
#include "report/report_charts.h"
#include "report/roofline_chart.h"
#include "run/estimate_run.h"
#include "run/roofline_run.h"
#include "model/comm.h"
#include "run/study_eval.h"

#define CHART_W 1000
#define CHART_H 560

/* Everything the report borrows from, owned here. */
struct report_state {
    struct study st;
    struct study_eval ev;
    struct report r;
    struct machine *machines;       /* [s], zeroed when not loaded */
    int *machine_ok;                /* [s] */
    struct estimate_inputs *inputs; /* [p * ns + s] */
    struct estimate *est;           /* [p * ns + s] */
    int *est_ok;                    /* [p * ns + s] */
    struct profile *profiles;       /* [p]: metadata of the first estimate */
};

static int cell_is_estimated(const struct study *st, size_t p, size_t s)
{
    const struct study_problem *pr = &st->problems[p];
    if (!pr->workload.present)
        return 0;
    for (size_t k = 0; k < pr->n_times; k++)
        if (pr->times[k].system == s)
            return 0;
    return 1;
}

static int cmp_op_time(const void *a, const void *b)
{
    double x = ((const struct report_op *)a)->time_s, y = ((const struct report_op *)b)->time_s;
    return (x < y) - (x > y);
}

static void fill_cell(struct report_cell *c, const struct estimate *e,
                      const struct estimate_inputs *in)
{
    c->estimated = 1;
    c->pass_s = e->pass_time_s;
    int spread = e->pass_lo_s > 0 && e->pass_hi_s > 0 &&
                 (e->pass_lo_s != e->pass_time_s || e->pass_hi_s != e->pass_time_s);
    c->pass_lo_s = spread ? e->pass_lo_s : NAN;
    c->pass_hi_s = spread ? e->pass_hi_s : NAN;
    c->pass_ci_lo_s = e->n_spread_ops ? e->pass_ci_lo_s : NAN;
    c->pass_ci_hi_s = e->n_spread_ops ? e->pass_ci_hi_s : NAN;
    c->n_spread_ops = e->n_spread_ops;
    c->bound = est_bound_name(e->bound);
    c->n_methods = 0;
    for (int m = 0; m < EST_METHOD_COUNT && c->n_methods < 8; m++) {
        if (e->method_time_s[m] > 0) {
            c->methods[c->n_methods].name = est_method_name((enum est_method)m);
            c->methods[c->n_methods].time_s = e->method_time_s[m];
            c->n_methods++;
        }
    }
    double kind_s[OP_KIND_COUNT] = { 0 };
    c->ops = xcalloc(e->n_ops ? e->n_ops : 1, sizeof *c->ops);
    c->n_ops = e->n_ops;
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *oe = &e->ops[i];
        if ((unsigned)oe->kind < OP_KIND_COUNT)
            kind_s[oe->kind] += oe->time_s;
        c->ops[i].name = oe->name;
        c->ops[i].kind = op_kind_name(oe->kind);
        c->ops[i].time_s = oe->time_s;
        c->ops[i].flops = oe->flops;
        c->ops[i].bytes = oe->bytes;
        c->ops[i].method = est_method_name(oe->method);
        c->ops[i].bound = est_bound_name(oe->bound);
    }
    qsort(c->ops, c->n_ops, sizeof *c->ops, cmp_op_time);
    c->n_kinds = 0;
    for (int k = 0; k < OP_KIND_COUNT; k++) {
        if (kind_s[k] > 0) {
            c->kinds[c->n_kinds].name = op_kind_name((enum op_kind)k);
            c->kinds[c->n_kinds].time_s = kind_s[k];
            c->n_kinds++;
        }
    }
    c->machine_hw = e->target_hw;
    const struct kernel_table *t = e->target_hw ? kernel_set_find(&in->tables, e->target_hw) : NULL;
    c->kernels_software = t ? t->software : NULL;
    c->kernels_origin = t ? t->origin : NULL;
    c->warnings = e->warnings;
    c->n_warnings = e->n_warnings;
}

/* Estimate every cell the study evaluation estimated, keeping the per-op
 * results the evaluation does not return. */
static int run_estimates(struct report_state *rs, struct diag *d)
{
    const struct study *st = &rs->st;
    size_t ns = st->n_systems, np = st->n_problems;
    for (size_t p = 0; p < np; p++) {
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            if (!cell_is_estimated(st, p, s))
                continue;
            const struct study_workload *w = &st->problems[p].workload;
            struct estimate_run_opts o;
            const char **kern = xcalloc(ns, sizeof *kern);
            study_estimate_opts(st, p, s, &o, kern);
            o.mc_draws = 0;     /* the evaluation drew them; the report needs none */
            /* the evaluation already printed this estimate's warnings;
             * they are kept in the estimate and shown in the report */
            struct diag quiet;
            diag_init(&quiet, NULL);
            int rc = estimate_run_inputs(&o, &rs->inputs[i], &rs->est[i], &quiet);
            if (rc) {
                /* say why, this time out loud */
                estimate_release(&rs->est[i]);
                estimate_inputs_release(&rs->inputs[i]);
                estimate_init(&rs->est[i]);
                memset(&rs->inputs[i], 0, sizeof rs->inputs[i]);
                rc = estimate_run_inputs(&o, &rs->inputs[i], &rs->est[i], d);
                free(kern);
                return rc;
            }
            free(kern);
            rs->est_ok[i] = 1;
            fill_cell(&rs->r.cells[i], &rs->est[i], &rs->inputs[i]);
            struct run_layout lay;
            rc = study_layout(st, p, s, &rs->inputs[i].machine, &lay, d);
            struct comm_inputs ci;
            study_comm_inputs(&rs->inputs[i], &rs->est[i],
                              rs->ev.basis ? &rs->ev.basis[i] : NULL, &ci);
            if (!rc)
                rc = study_layout_comm(st, p, s, &rs->inputs[i].machine, &ci, &lay, d);
            rs->r.cells[i].comm_table_hw = ci.table_hw;
            study_comm_inputs_release(&ci);
            if (rc)
                return rc;
            rs->r.cells[i].layout = lay;
            rs->r.cells[i].machine = &rs->inputs[i].machine;
            double h = study_cell_hours(w, &lay, rs->est[i].pass_time_s);
            if (isfinite(rs->ev.hours[i]) &&
                fabs(h - rs->ev.hours[i]) > 1e-9 * fabs(rs->ev.hours[i]))
                diag_warn(d, "problem '%s' on '%s': the report's estimate gives %.6g h per "
                             "unit, the evaluation %.6g h; the tables show the evaluation's",
                          st->problems[p].id, st->systems[s].id, h, rs->ev.hours[i]);
            struct report_problem *rp = &rs->r.problems[p];
            if (!rp->profile_path) {
                const struct profile *pf = &rs->inputs[i].profile;
                rp->profile_path = w->profile;
                rp->profile_format = pf->format;
                rp->profile_device = pf->device_name;
                rp->profile_framework = pf->framework;
                rp->profile_steps = pf->steps;
                rp->profile_batch = pf->batch;
                rp->profile_step_s = pf->step_time_s;
            }
        }
    }
    return 0;
}

static void load_machines(struct report_state *rs, struct diag *d)
{
    const struct study *st = &rs->st;
    for (size_t s = 0; s < st->n_systems; s++) {
        if (!st->systems[s].machine)
            continue;
        if (machine_load(st->systems[s].machine, &rs->machines[s], d) == 0) {
            rs->machine_ok[s] = 1;
            rs->r.systems[s].machine_name = rs->machines[s].name;
            rs->r.systems[s].machine_path = st->systems[s].machine;
            rs->r.systems[s].machine_source = rs->machines[s].source;
            rs->r.systems[s].devices_per_node = rs->machines[s].devices_per_node;
            rs->r.systems[s].device_name = rs->machines[s].device_name;
        }
    }
}

static struct report_chart *add_chart(struct report *r, const char *id, const char *title)
{
    ALLOC_GROW(r->charts, r->n_charts + 1, r->alloc_charts);
    struct report_chart *c = &r->charts[r->n_charts++];
    memset(c, 0, sizeof *c);
    c->id = xstrdup(id);
    c->title = xstrdup(title);
    return c;
}

/* Render one chart as SVG (kept for the HTML) and PNG into dir. */
static int draw_sized(const char *dir, struct report_chart *c, const char *script, int w, int h,
                      struct diag *d)
{
    struct strbuf svg = STRBUF_INIT, path = STRBUF_INIT;
    int rc = gnuplot_render(script, GP_SVG, w, h, &svg, d);
    if (rc)
        goto out;
    strbuf_addf(&path, "%s/%s.svg", dir, c->id);
    rc = write_file_atomic(path.buf, svg.buf, svg.len, d);
    if (rc)
        goto out;
    c->svg = strbuf_detach(&svg);
    strbuf_reset(&path);
    strbuf_addf(&path, "%s/%s.png", dir, c->id);
    rc = gnuplot_write(path.buf, script, w, h, d);
    if (rc == 0)
        c->has_png = 1;
out:
    strbuf_release(&svg);
    strbuf_release(&path);
    return rc;
}

static int draw(const char *dir, struct report_chart *c, const char *script, struct diag *d)
{
    return draw_sized(dir, c, script, CHART_W, CHART_H, d);
}

static int draw_charts(struct report_state *rs, const char *dir, struct diag *d)
{
    struct report *r = &rs->r;
    const struct study *st = &rs->st;
    size_t ns = st->n_systems, np = st->n_problems;
    struct strbuf sb = STRBUF_INIT, t = STRBUF_INIT, id = STRBUF_INIT;
    int rc = 0;

    if (chart_ratios(r, &sb) == 0) {
        strbuf_addf(&t, "Per-problem ratios, FOM and means of ratios against %s",
                    st->systems[st->baseline].id);
        rc = draw(dir, add_chart(r, "ratios", t.buf), sb.buf, d);
        if (rc)
            goto out;
    }
    strbuf_reset(&sb);
    if (chart_units_per_day(r, &sb) == 0) {
        rc = draw(dir, add_chart(r, "units-per-day", "Units of work per day per problem and system"),
                  sb.buf, d);
        if (rc)
            goto out;
    }
    strbuf_reset(&sb);
    if (chart_economics(r, &sb) == 0) {
        rc = draw(dir, add_chart(r, "economics", "FOM, FOM per MW and FOM per $ (ratios to the "
                                 "base case)"), sb.buf, d);
        if (rc)
            goto out;
    }
    for (size_t p = 0; p < np; p++) {
        strbuf_reset(&sb);
        if (chart_breakdown(r, p, &sb))
            continue;
        strbuf_reset(&t);
        strbuf_reset(&id);
        strbuf_addf(&t, "Estimated pass time of %s by op kind", st->problems[p].id);
        strbuf_addf(&id, "breakdown-%zu", p + 1);
        rc = draw(dir, add_chart(r, id.buf, t.buf), sb.buf, d);
        if (rc)
            goto out;
    }
    for (size_t p = 0; p < np; p++) {
        strbuf_reset(&sb);
        if (chart_scaling(r, p, &sb))
            continue;
        strbuf_reset(&t);
        strbuf_reset(&id);
        strbuf_addf(&t, "Scaling of %s: units of work per day of one run against devices per "
                        "run, with the ideal lines", st->problems[p].id);
        strbuf_addf(&id, "scaling-%zu", p + 1);
        rc = draw(dir, add_chart(r, id.buf, t.buf), sb.buf, d);
        if (rc)
            goto out;
    }
    for (size_t s = 0; s < ns; s++) {
        if (!rs->machine_ok[s])
            continue;
        /* one series per estimated problem on this machine */
        struct roof_series *ser = xcalloc(np ? np : 1, sizeof *ser);
        struct roof_point **pts = xcalloc(np ? np : 1, sizeof *pts);
        size_t nser = 0;
        for (size_t p = 0; p < np; p++) {
            size_t i = p * ns + s;
            if (!rs->est_ok[i])
                continue;
            pts[nser] = roofline_points_estimate(&rs->est[i], &ser[nser].n);
            ser[nser].pts = pts[nser];
            ser[nser].title = st->problems[p].id;
            nser++;
        }
        strbuf_reset(&sb);
        strbuf_reset(&t);
        strbuf_reset(&id);
        strbuf_addf(&t, "Roofline: %s (per device)", rs->machines[s].name);
        roofline_script(&rs->machines[s], t.buf,
                        nser ? "points: ops of each estimated problem at their estimated rate" : NULL,
                        ser, nser, &sb, NULL);
        strbuf_reset(&t);
        strbuf_addf(&t, "Roofline of %s (%s)%s", st->systems[s].id, rs->machines[s].name,
                    nser ? " with the estimated ops" : "");
        strbuf_addf(&id, "roofline-%zu", s + 1);
        /* the roofline's legend is long: a wider canvas keeps the plot square-ish */
        rc = draw_sized(dir, add_chart(r, id.buf, t.buf), sb.buf, 1150, 640, d);
        for (size_t k = 0; k < nser; k++)
            free(pts[k]);
        free(pts);
        free(ser);
        if (rc)
            goto out;
    }
out:
    strbuf_release(&sb);
    strbuf_release(&t);
    strbuf_release(&id);
    return rc;
}

typedef void (*writer_fn)(FILE *, const struct report *, const char *);

static void md_writer(FILE *fp, const struct report *r, const char *x) { (void)x; report_write_md(fp, r); }
static void html_writer(FILE *fp, const struct report *r, const char *x) { (void)x; report_write_html(fp, r); }

static int write_one(const char *dir, const char *name, writer_fn fn, const struct report *r,
                     const char *arg, struct diag *d)
{
    struct strbuf path = STRBUF_INIT;
    struct outfile of;
    strbuf_addf(&path, "%s/%s", dir, name);
    int rc = outfile_open(&of, path.buf, d);
    if (rc == 0) {
        fn(of.fp, r, arg);
        rc = outfile_commit(&of, d);
    }
    strbuf_release(&path);
    return rc;
}

/* The files a report folder holds: the three reports and the charts. */
static int report_file_name(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, "report.json") == 0 || strcmp(name, "report.md") == 0 ||
           strcmp(name, "report.html") == 0 ||
           (n > 4 && (strcmp(name + n - 4, ".svg") == 0 || strcmp(name + n - 4, ".png") == 0));
}

/* Allocate the per-system and per-cell arrays of rs for its evaluated
 * study. */
static void report_state_alloc(struct report_state *rs, const char *version)
{
    size_t ns = rs->st.n_systems, np = rs->st.n_problems, ncell = ns * np;
    rs->machines = xcalloc(ns, sizeof *rs->machines);
    rs->machine_ok = xcalloc(ns, sizeof *rs->machine_ok);
    rs->inputs = xcalloc(ncell ? ncell : 1, sizeof *rs->inputs);
    rs->est = xcalloc(ncell ? ncell : 1, sizeof *rs->est);
    rs->est_ok = xcalloc(ncell ? ncell : 1, sizeof *rs->est_ok);
    rs->r.st = &rs->st;
    rs->r.ev = &rs->ev;
    rs->r.fom_version = version;
    rs->r.cells = xcalloc(ncell ? ncell : 1, sizeof *rs->r.cells);
    rs->r.systems = xcalloc(ns, sizeof *rs->r.systems);
    rs->r.problems = xcalloc(np ? np : 1, sizeof *rs->r.problems);
    for (size_t i = 0; i < ncell; i++) {
        estimate_init(&rs->est[i]);
        rs->r.cells[i].pass_s = rs->r.cells[i].pass_lo_s = rs->r.cells[i].pass_hi_s = NAN;
        rs->r.cells[i].pass_ci_lo_s = rs->r.cells[i].pass_ci_hi_s = NAN;
    }
}

static void report_state_release(struct report_state *rs)
{
    size_t ncell = rs->st.n_systems * rs->st.n_problems;
    for (size_t i = 0; i < rs->r.n_charts; i++) {
        free(rs->r.charts[i].id);
        free(rs->r.charts[i].title);
        free(rs->r.charts[i].svg);
    }
    free(rs->r.charts);
    for (size_t i = 0; rs->r.cells && i < ncell; i++)
        free(rs->r.cells[i].ops);
    free(rs->r.cells);
    free(rs->r.systems);
    free(rs->r.problems);
    for (size_t i = 0; rs->est && i < ncell; i++) {
        estimate_release(&rs->est[i]);
        if (rs->est_ok[i] || rs->inputs[i].profile.ops)
            estimate_inputs_release(&rs->inputs[i]);
    }
    free(rs->est);
    free(rs->est_ok);
    free(rs->inputs);
    for (size_t s = 0; rs->machines && s < rs->st.n_systems; s++)
        if (rs->machine_ok[s])
            machine_release(&rs->machines[s]);
    free(rs->machines);
    free(rs->machine_ok);
    study_eval_release(&rs->ev);
    study_release(&rs->st);
}

/* Draw the charts when gnuplot is there; otherwise say in the report (and
 * once on stderr) that they were skipped.  Returns the status of the
 * charts that failed, which fails the run after the tables are written. */
static int report_charts(struct report_state *rs, const char *out_dir, struct diag *d)
{
    char *gp = gnuplot_find();
    if (!gp) {
        rs->r.charts_note = "charts skipped: gnuplot not found (install the Debian package "
                            "gnuplot-nox); the tables below are complete";
        diag_warn(d, "charts skipped: gnuplot not found");
        return 0;
    }
    free(gp);
    int rc = draw_charts(rs, out_dir, d);
    if (rc)
        rs->r.charts_note = "some charts could not be drawn (gnuplot failed); the tables "
                            "below are complete";
    return rc;
}

/* report.json (the fom document with the report's keys), report.md and
 * report.html, each atomically. */
static int report_write_all(struct report_state *rs, const char *out_dir, struct diag *d)
{
    char *fom_json = NULL;
    size_t fom_len = 0;
    int rc = 0;
    FILE *mem = open_memstream(&fom_json, &fom_len);
    if (!mem) {
        rc = diag_syserr(d, "out of memory");
        goto out;
    }
    fom_render(mem, FMT_JSON, &rs->st, &rs->ev);
    fclose(mem);

    rc = write_one(out_dir, "report.json", report_write_json, &rs->r, fom_json, d);
    if (!rc)
        rc = write_one(out_dir, "report.md", md_writer, &rs->r, NULL, d);
    if (!rc)
        rc = write_one(out_dir, "report.html", html_writer, &rs->r, NULL, d);
out:
    free(fom_json);
    return rc;
}

int report_run(const struct report_run_opts *o, struct diag *d)
{
    struct report_state rs;
    struct outdir od = { 0 };
    int rc, chart_rc = 0;

    memset(&rs, 0, sizeof rs);
    study_init(&rs.st);
    rc = study_load(o->study, &rs.st, d);
    if (rc)
        goto out;
    rc = study_eval_run(&rs.st, &rs.ev, d);
    if (rc)
        goto out;
    report_state_alloc(&rs, o->version);
    rc = run_estimates(&rs, d);
    if (rc)
        goto out;
    load_machines(&rs, d);
    rc = outdir_open(&od, o->out_dir, report_file_name, d);
    if (rc)
        goto out;
    chart_rc = report_charts(&rs, od.fresh, d);
    rc = report_write_all(&rs, od.fresh, d);
    /* a failed chart (gnuplot's failure or a full disk) fails the run: the
     * previous report stays whole rather than be replaced by a partial one */
    if (!rc)
        rc = chart_rc;
    if (!rc)
        rc = outdir_commit(&od, d);
out:
    outdir_abort(&od);
    report_state_release(&rs);
    return rc;
}
