#include "run/roofline_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/machine_xml.h"
#include "model/machine.h"
#include "report/gnuplot.h"
#include "run/estimate_run.h"

#define ROOF_W 1100
#define ROOF_H 650

void roofline_points_profile(const struct profile *p, struct roof_point *pts[OP_KIND_COUNT],
                             size_t n[OP_KIND_COUNT])
{
    double total = 0;
    for (size_t i = 0; i < p->n_ops; i++)
        total += p->ops[i].time_s;
    for (int k = 0; k < OP_KIND_COUNT; k++) {
        pts[k] = NULL;
        n[k] = 0;
    }
    size_t alloc[OP_KIND_COUNT] = { 0 };
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        if ((unsigned)op->kind >= OP_KIND_COUNT || !(op->flops > 0) || !(op->bytes > 0) ||
            !(op->time_s > 0))
            continue;
        int k = op->kind;
        ALLOC_GROW(pts[k], n[k] + 1, alloc[k]);
        pts[k][n[k]].ai_fpb = op->flops / op->bytes;
        pts[k][n[k]].rate_flops = op->flops / op->time_s;
        pts[k][n[k]].weight = total > 0 ? op->time_s / total : 0;
        n[k]++;
    }
}

struct roof_point *roofline_points_estimate(const struct estimate *e, size_t *n)
{
    double total = 0;
    for (size_t i = 0; i < e->n_ops; i++)
        total += e->ops[i].device_s;
    struct roof_point *pts = xcalloc(e->n_ops ? e->n_ops : 1, sizeof *pts);
    size_t k = 0;
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *oe = &e->ops[i];
        if (!(oe->flops > 0) || !(oe->bytes > 0) || !(oe->device_s > 0))
            continue;
        pts[k].ai_fpb = oe->flops / oe->bytes;
        pts[k].rate_flops = oe->flops / oe->device_s;
        pts[k].weight = total > 0 ? oe->device_s / total : 0;
        k++;
    }
    *n = k;
    return pts;
}

/* Points of an estimate's ops grouped by kind, as roofline_points_profile. */
static void points_estimate_by_kind(const struct estimate *e, struct roof_point *pts[OP_KIND_COUNT],
                                    size_t n[OP_KIND_COUNT])
{
    double total = 0;
    size_t alloc[OP_KIND_COUNT] = { 0 };
    for (size_t i = 0; i < e->n_ops; i++)
        total += e->ops[i].device_s;
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *oe = &e->ops[i];
        if ((unsigned)oe->kind >= OP_KIND_COUNT || !(oe->flops > 0) || !(oe->bytes > 0) ||
            !(oe->device_s > 0))
            continue;
        int k = oe->kind;
        ALLOC_GROW(pts[k], n[k] + 1, alloc[k]);
        pts[k][n[k]].ai_fpb = oe->flops / oe->bytes;
        pts[k][n[k]].rate_flops = oe->flops / oe->device_s;
        pts[k][n[k]].weight = total > 0 ? oe->device_s / total : 0;
        n[k]++;
    }
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

int roofline_run(const struct roofline_run_opts *o, struct diag *d)
{
    struct machine m;
    struct profile prof;
    struct estimate_inputs in;
    struct estimate est;
    struct roof_point *pts[OP_KIND_COUNT] = { NULL };
    size_t n[OP_KIND_COUNT] = { 0 };
    struct roof_series ser[OP_KIND_COUNT];
    size_t nser = 0, n_ops = 0;
    struct strbuf script = STRBUF_INIT, title = STRBUF_INIT, note = STRBUF_INIT;
    const struct machine *mp = &m;
    int have_machine = 0, have_est = 0;
    int rc;

    memset(&m, 0, sizeof m);
    memset(&in, 0, sizeof in);
    profile_init(&prof);
    estimate_init(&est);
    if (gp_term_from_path(o->out_path) < 0) {
        rc = diag_usage(d, "found output '%s', expected a file name ending in .svg or .png",
                        o->out_path);
        goto out;
    }
    if (o->profile && o->n_kernels) {
        /* estimated rates on this machine, from its kernel tables */
        struct estimate_run_opts eo;
        estimate_run_opts_init(&eo);
        eo.profile = o->profile;
        eo.machine = o->machine;
        eo.kernels = o->kernels;
        eo.n_kernels = o->n_kernels;
        have_est = 1;
        rc = estimate_run_inputs(&eo, &in, &est, d);
        if (rc)
            goto out;
        mp = &in.machine;
        points_estimate_by_kind(&est, pts, n);
        n_ops = est.n_ops;
    } else {
        rc = machine_load(o->machine, &m, d);
        if (rc)
            goto out;
        have_machine = 1;
        if (o->profile) {
            struct ingest_opts io = { TRACE_AUTO, 0, 1.0, NULL };
            rc = ingest_read(o->profile, &io, &prof, d);
            if (rc)
                goto out;
            roofline_points_profile(&prof, pts, n);
            n_ops = prof.n_ops;
            if (prof.device_name && m.device_name &&
                strcasecmp(prof.device_name, m.device_name) != 0)
                diag_note(d, "the trace was measured on %s, not on %s: its ops show that "
                             "device's rates (give --kernels to place them at rates estimated "
                             "for this machine)", prof.device_name, m.name);
        }
    }
    if (o->profile) {
        size_t placed = 0;
        for (int k = 0; k < OP_KIND_COUNT; k++) {
            if (!n[k])
                continue;
            ser[nser].title = op_kind_name((enum op_kind)k);
            ser[nser].pts = pts[k];
            ser[nser].n = n[k];
            nser++;
            placed += n[k];
        }
        strbuf_addf(&note, "%zu of %zu ops of ", placed, n_ops);
        strbuf_addstr(&note, base_name(o->profile));
        if (have_est)
            strbuf_addstr(&note, " at their estimated rate on this machine");
        else
            strbuf_addf(&note, " at their measured rate on %s",
                        prof.device_name ? prof.device_name : "the profiled host");
        if (placed < n_ops)
            diag_note(d, "%zu ops have no flop or byte count and are not placed", n_ops - placed);
    }
    strbuf_addf(&title, "Roofline: %s (per device)", mp->name ? mp->name : mp->id);
    roofline_script(mp, title.buf, note.len ? note.buf : NULL, ser, nser, &script, NULL);
    rc = gnuplot_write(o->out_path, script.buf, ROOF_W, ROOF_H, d);
    if (rc == GP_NOT_FOUND)
        rc = diag_syserr(d, "gnuplot not found: install the Debian package gnuplot-nox to "
                            "draw charts");
out:
    for (int k = 0; k < OP_KIND_COUNT; k++)
        free(pts[k]);
    strbuf_release(&script);
    strbuf_release(&title);
    strbuf_release(&note);
    estimate_release(&est);
    if (have_est)
        estimate_inputs_release(&in);
    profile_release(&prof);
    if (have_machine)
        machine_release(&m);
    return rc;
}
