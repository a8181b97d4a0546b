#include "run/estimate_run.h"

#include <string.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "ingest/ingest.h"
#include "ingest/machine_xml.h"
#include "report/estimate_render.h"
#include "run/kernels.h"

void estimate_run_opts_init(struct estimate_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->precision = PREC_UNKNOWN;
    o->format = FMT_TEXT;
}

int estimate_inputs_load(const struct estimate_run_opts *o, struct estimate_inputs *in,
                         struct diag *d)
{
    struct ingest_opts io = { TRACE_AUTO, o->profile_batch, 1.0, NULL };
    int rc;

    memset(in, 0, sizeof *in);
    profile_init(&in->profile);
    kernel_set_init(&in->tables);
    if (!o->profile || !o->machine)
        return diag_usage(d, "estimate needs --profile and --machine");
    rc = machine_load(o->machine, &in->machine, d);
    if (rc)
        goto out;
    if (o->source_machine) {
        rc = machine_load(o->source_machine, &in->source, d);
        if (rc)
            goto out;
        in->has_source = 1;
    }
    rc = ingest_read(o->profile, &io, &in->profile, d);
    if (rc)
        goto out;
    if (o->profile_batch > 0)
        in->profile.batch = o->profile_batch;
    for (size_t i = 0; i < o->n_kernels; i++) {
        rc = kernels_open(o->kernels[i], &in->tables, d);
        if (rc)
            goto out;
    }
out:
    return rc;
}

void estimate_inputs_release(struct estimate_inputs *in)
{
    profile_release(&in->profile);
    machine_release(&in->machine);
    if (in->has_source)
        machine_release(&in->source);
    kernel_set_release(&in->tables);
    memset(in, 0, sizeof *in);
}

int estimate_run_inputs(const struct estimate_run_opts *o, struct estimate_inputs *in,
                        struct estimate *out, struct diag *d)
{
    struct estimate_opts eo;
    int rc = estimate_inputs_load(o, in, d);
    if (rc)
        return rc;
    estimate_opts_init(&eo);
    eo.precision = o->precision;
    eo.batch = o->batch;
    eo.source = in->has_source ? &in->source : NULL;
    return estimate_profile(&in->profile, &in->machine, &in->tables, &eo, out, d);
}

int estimate_pass_time(const struct estimate_run_opts *o, double *pass_s, struct diag *d)
{
    struct estimate_inputs in;
    struct estimate e;
    estimate_init(&e);
    int rc = estimate_run_inputs(o, &in, &e, d);
    if (!rc)
        *pass_s = e.pass_time_s;
    estimate_release(&e);
    estimate_inputs_release(&in);
    return rc;
}

int estimate_pass_draws(const struct estimate_run_opts *o, double *pass_s, double **draws,
                        size_t *n_draws, struct diag *d)
{
    struct estimate_inputs in;
    struct estimate e;
    estimate_init(&e);
    *draws = NULL;
    *n_draws = 0;
    int rc = estimate_run_inputs(o, &in, &e, d);
    if (!rc) {
        *pass_s = e.pass_time_s;
        *draws = e.pass_draws;
        *n_draws = e.n_draws;
        e.pass_draws = NULL;
        e.n_draws = 0;
    }
    estimate_release(&e);
    estimate_inputs_release(&in);
    return rc;
}

int estimate_run(const struct estimate_run_opts *o, struct diag *d)
{
    struct estimate_inputs in;
    struct estimate e;
    struct outfile of = { NULL, NULL, NULL };
    int opened = 0;
    estimate_init(&e);
    int rc = estimate_run_inputs(o, &in, &e, d);
    if (rc)
        goto out;
    rc = outfile_open(&of, o->out_path, d);
    if (rc)
        goto out;
    opened = 1;
    struct estimate_render_info info = {
        .profile = o->profile,
        .machine_path = o->machine,
        .source_device = in.profile.device_name,
        .kernels = o->kernels,
        .n_kernels = o->n_kernels,
    };
    estimate_render(of.fp, o->format, &e, &info);
    rc = outfile_commit(&of, d);
    opened = 0;
out:
    if (opened)
        outfile_abort(&of);
    estimate_release(&e);
    estimate_inputs_release(&in);
    return rc;
}
