#include "run/estimate_run.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/machine_xml.h"
#include "ingest/sidecar.h"
#include "report/estimate_render.h"
#include "run/kernels.h"

/* The folder of path ("." when it has none), owned by the caller. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The shipped tables: every folder of estimators/ (beside the machine
 * file's folder) that holds an env.json, each loaded into in->shipped.
 * A shipped file that does not load is left out with a note: these are
 * a help to the estimate, not an input the user named.  *paths gets the
 * folder of each table in in->shipped (same order). */
static void shipped_tables(const char *mdir, struct estimate_inputs *in, char ***paths,
                           struct diag *d)
{
    struct strbuf root = STRBUF_INIT;
    strbuf_addf(&root, "%s/../estimators", mdir);
    DIR *dp = opendir(strbuf_str(&root));
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    while (dp && (de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        ALLOC_GROW(names, n + 1, alloc);
        names[n++] = xstrdup(de->d_name);
    }
    if (dp)
        closedir(dp);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_name);
    *paths = NULL;
    for (size_t i = 0; i < n; i++) {
        struct strbuf dir = STRBUF_INIT, env = STRBUF_INIT;
        struct stat st;
        strbuf_addf(&dir, "%s/%s", strbuf_str(&root), names[i]);
        strbuf_addf(&env, "%s/env.json", strbuf_str(&dir));
        if (is_dir(strbuf_str(&dir)) && stat(strbuf_str(&env), &st) == 0) {
            struct kernel_set one;
            struct diag quiet;
            kernel_set_init(&one);
            diag_init(&quiet, NULL);
            if (kernels_open(strbuf_str(&dir), &one, &quiet) == 0 && one.n == 1) {
                *paths = xrealloc(*paths, (in->shipped.n + 1) * sizeof **paths);
                (*paths)[in->shipped.n] = strbuf_detach(&dir);
                kernel_set_take(&in->shipped, &one);
            } else {
                diag_note(d, "%s: shipped tables left out (they do not load)", strbuf_str(&dir));
            }
            kernel_set_release(&one);
        }
        strbuf_release(&dir);
        strbuf_release(&env);
        free(names[i]);
    }
    free(names);
    strbuf_release(&root);
}

/* The shipped machine files: every *.xml of the machine file's folder. */
static void shipped_machines(const char *mdir, struct estimate_inputs *in)
{
    DIR *dp = opendir(mdir);
    struct dirent *de;
    size_t alloc = 0;
    while (dp && (de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".xml"))
            continue;
        struct strbuf p = STRBUF_INIT;
        struct diag quiet;
        diag_init(&quiet, NULL);
        strbuf_addf(&p, "%s/%s", mdir, de->d_name);
        ALLOC_GROW(in->ref_machines, in->n_ref_machines + 1, alloc);
        struct machine *m = &in->ref_machines[in->n_ref_machines];
        memset(m, 0, sizeof *m);
        if (machine_load(strbuf_str(&p), m, &quiet) == 0)
            in->n_ref_machines++;
        else
            machine_release(m);
        strbuf_release(&p);
    }
    if (dp)
        closedir(dp);
}

/* The profiled device's tables and machine file, found by the trace's
 * device name among the shipped ones when the user did not give them. */
static int find_source(const struct estimate_run_opts *o, struct estimate_inputs *in,
                       struct diag *d)
{
    const char *dev = in->profile.device_name;
    char **paths = NULL;
    int rc = FOM_OK;
    char *mdir = dir_of(o->machine);
    if (o->no_shipped)
        goto out;
    shipped_tables(mdir, in, &paths, d);
    shipped_machines(mdir, in);
    if (!dev || !*dev)
        goto out;
    if (!kernel_set_find(&in->tables, dev) && in->tables.n > 0) {
        for (size_t i = 0; i < in->shipped.n; i++) {
            if (!in->shipped.tables[i].hw || strcasecmp(in->shipped.tables[i].hw, dev) != 0)
                continue;
            rc = kernels_open(paths[i], &in->tables, d);
            if (rc)
                goto out;
            in->source_table_path = xstrdup(paths[i]);
            break;
        }
    }
    if (!in->has_source) {
        for (size_t i = 0; i < in->n_ref_machines; i++) {
            const struct machine *m = &in->ref_machines[i];
            if (!m->device_name || strcasecmp(m->device_name, dev) != 0)
                continue;
            rc = machine_load(m->path, &in->source, d);
            if (rc)
                goto out;
            in->has_source = 1;
            in->source_machine_path = xstrdup(m->path);
            break;
        }
    }
out:
    for (size_t i = 0; paths && i < in->shipped.n; i++)
        free(paths[i]);
    free(paths);
    free(mdir);
    return rc;
}

void estimate_run_opts_init(struct estimate_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->precision = PREC_UNKNOWN;
    o->format = FMT_TEXT;
}

/* The batch the profile was taken at: --profile-batch (or a study's
 * profile-batch), else what a saved profile says, else the "batch" of the
 * .meta.json a harness wrote beside the trace.  A rescale (--batch) with
 * none of these is refused: estimating at the profiled batch instead would
 * ignore the option. */
static int resolve_profile_batch(const struct estimate_run_opts *o, struct estimate_inputs *in,
                                 struct diag *d)
{
    struct profile *p = &in->profile;
    /* Trace readers take their batch from the options only, so a batch
     * already set here was read from a saved profile. */
    const char *opt = o->batch_file ? "profile-batch" : "--profile-batch";
    if (o->profile_batch > 0) {
        if (p->batch > 0 && p->batch != o->profile_batch) {
            if (o->batch_file)
                return diag_error_at(d, o->batch_file, o->batch_line, 0,
                                     "found profile-batch=\"%lld\" but the saved profile '%s' "
                                     "was taken at batch %lld, expected the two to agree",
                                     (long long)o->profile_batch, o->profile, (long long)p->batch);
            return diag_usage(d, "--profile-batch %lld: the saved profile '%s' was taken at batch "
                              "%lld, expected the two to agree", (long long)o->profile_batch,
                              o->profile, (long long)p->batch);
        }
        p->batch = o->profile_batch;
        in->batch_from = xstrdup(opt);
        return 0;
    }
    if (p->batch > 0) {
        in->batch_from = xstrdup("the saved profile");
        return 0;
    }
    if (o->batch <= 0)
        return 0;
    struct trace_sidecar sc;
    int rc = trace_sidecar_read(o->profile, &sc, d);
    if (rc)
        return rc;
    if (sc.path && sc.batch > 0) {
        p->batch = sc.batch;
        in->batch_from = sc.path;
        sc.path = NULL;
    }
    trace_sidecar_release(&sc);
    if (p->batch > 0)
        return 0;
    if (o->batch_file)
        return diag_error_at(d, o->batch_file, o->batch_line, 0,
                             "found batch=\"%lld\" but '%s' does not say the batch it was "
                             "profiled at (no batch in it, no .meta.json beside it), expected "
                             "profile-batch=\"N\" to rescale from", (long long)o->batch, o->profile);
    return diag_usage(d, "--batch %lld: '%s' does not say the batch it was profiled at (no batch "
                      "in it, no .meta.json beside it); give --profile-batch N to rescale from",
                      (long long)o->batch, o->profile);
}

/* The profiled run's step measured without the profiler: given, the
 * profile's (its trace's .meta.json, or kept in a saved profile), or
 * none.  Given, it must have something to
 * calibrate: a GPU trace's calls, replayed on a GPU. */
static int resolve_measured_step(const struct estimate_run_opts *o, struct estimate_inputs *in,
                                 struct diag *d)
{
    const struct profile *p = &in->profile;
    if (o->measured_step_s < 0)
        return 0;
    if (o->measured_step_s > 0) {
        if (!p->has_device || !p->n_calls || in->machine.kind == MACHINE_CPU)
            return diag_usage(d, "--measured-step: '%s' is %s, expected a GPU trace with its "
                              "calls estimated on a GPU, whose host times the measured step "
                              "calibrates", o->profile,
                              !p->has_device ? "not a GPU trace" : !p->n_calls
                              ? "a profile without its calls" : "estimated on a CPU target");
        in->measured_step_s = o->measured_step_s;
        in->measured_step_from = xstrdup("--measured-step");
        return 0;
    }
    if (p->measured_step_s > 0) {
        in->measured_step_s = p->measured_step_s;
        in->measured_step_lo_s = p->measured_step_lo_s;
        in->measured_step_hi_s = p->measured_step_hi_s;
        in->measured_step_from = xstrdup(p->measured_step_from ? p->measured_step_from
                                                               : "the saved profile");
    }
    return 0;
}

int estimate_inputs_load(const struct estimate_run_opts *o, struct estimate_inputs *in,
                         struct diag *d)
{
    struct ingest_opts io = { TRACE_AUTO, o->profile_batch, 1.0, NULL };
    int rc;

    memset(in, 0, sizeof *in);
    profile_init(&in->profile);
    kernel_set_init(&in->tables);
    kernel_set_init(&in->shipped);
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
    rc = resolve_profile_batch(o, in, d);
    if (rc)
        goto out;
    rc = resolve_measured_step(o, in, d);
    if (rc)
        goto out;
    for (size_t i = 0; i < o->n_kernels; i++) {
        rc = kernels_open(o->kernels[i], &in->tables, d);
        if (rc)
            goto out;
    }
    rc = find_source(o, in, d);
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
    free(in->batch_from);
    kernel_set_release(&in->shipped);
    for (size_t i = 0; i < in->n_ref_machines; i++)
        machine_release(&in->ref_machines[i]);
    free(in->ref_machines);
    free(in->source_table_path);
    free(in->source_machine_path);
    free(in->measured_step_from);
    memset(in, 0, sizeof *in);
}

void estimate_opts_from_inputs(const struct estimate_inputs *in, struct estimate_opts *eo)
{
    eo->source = in->has_source ? &in->source : NULL;
    eo->reference = &in->shipped;
    eo->ref_machines = in->ref_machines;
    eo->n_ref_machines = in->n_ref_machines;
    eo->source_table_path = in->source_table_path;
    eo->source_machine_path = in->source_machine_path;
    eo->measured_step_s = in->measured_step_s;
    eo->measured_step_lo_s = in->measured_step_lo_s;
    eo->measured_step_hi_s = in->measured_step_hi_s;
    eo->measured_step_from = in->measured_step_from;
}

int estimate_run_inputs(const struct estimate_run_opts *o, struct estimate_inputs *in,
                        struct estimate *out, struct diag *d)
{
    struct estimate_opts eo;
    int rc = estimate_inputs_load(o, in, d);
    if (rc)
        return rc;
    int tf32 = o->cudnn_tf32;
    if (tf32 && !machine_has_tf32(&in->machine)) {
        /* a study's workload runs on each of its systems: the setting
         * belongs to those with TF32 units, and is said not to apply to
         * the others; asked for on the command line, it is refused */
        if (!o->batch_file)
            return diag_usage(d, "--cudnn-tf32: '%s' is not a GPU with TF32 units (no tf32 peak), "
                              "expected a target whose cuDNN can run fp32 as TF32", o->machine);
        diag_warn_at(d, o->batch_file, o->batch_line, 0, "cudnn-tf32=\"true\" does not apply to "
                     "'%s', which has no TF32 units: its estimate is IEEE fp32", o->machine);
        tf32 = 0;
    }
    estimate_opts_init(&eo);
    eo.precision = o->precision;
    eo.cudnn_tf32 = tf32;
    eo.batch = o->batch;
    eo.mc_draws = o->mc_draws;
    estimate_opts_from_inputs(in, &eo);
    rc = estimate_profile(&in->profile, &in->machine, &in->tables, &eo, out, d);
    /* the estimator keeps its warnings on the result; they are said once here */
    for (size_t i = 0; i < out->n_warnings; i++)
        diag_warn(d, "%s", out->warnings[i]);
    return rc;
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

void estimate_basis_of(const struct estimate *e, struct estimate_basis *b)
{
    double total = 0;
    memset(b, 0, sizeof *b);
    b->pass_time_s = e->pass_time_s;
    b->bound = e->bound;
    b->batch = e->batch;
    b->profile_batch = e->src_batch;
    b->on_profiled_device = e->on_profiled_device;
    b->host_scale = e->calib == CALIB_APPLIED || e->calib == CALIB_CLAMPED ? e->host_scale : 0;
    for (size_t i = 0; i < e->n_ops; i++) {
        const struct op_estimate *op = &e->ops[i];
        if ((unsigned)op->method < EST_METHOD_COUNT && op->time_s > 0) {
            b->method_share[op->method] += op->time_s;
            total += op->time_s;
        }
    }
    for (int m = 0; m < EST_METHOD_COUNT; m++)
        b->method_share[m] = total > 0 ? b->method_share[m] / total : 0;
}

int estimate_pass_draws(const struct estimate_run_opts *o, double *pass_s, double **draws,
                        size_t *n_draws, struct diag *d)
{
    struct estimate_basis b;
    int rc = estimate_pass_basis(o, &b, draws, n_draws, d);
    if (!rc)
        *pass_s = b.pass_time_s;
    return rc;
}

/* The memory one run needs on a device of the target (after the basis of
 * the pass time is filled). */
static int memory_basis(const struct estimate_run_opts *o, const struct estimate_inputs *in,
                        const struct estimate *e, struct estimate_basis *b, struct diag *d)
{
    int64_t params = o->parameters;
    estimate_basis_of(e, b);
    b->params_from = params > 0 ? "study" : NULL;
    if (params <= 0) {
        struct trace_sidecar sc;
        int rc = trace_sidecar_read(o->profile, &sc, d);
        if (rc)
            return rc;
        if (sc.params > 0) {
            params = sc.params;
            b->params_from = ".meta.json";
        }
        trace_sidecar_release(&sc);
    }
    b->parameters = params > 0 ? (double)params : 0;
    double scale = e->batch > 0 && e->src_batch > 0 ? (double)e->batch / (double)e->src_batch : 1;
    mem_estimate_run(&in->profile, params, scale, &b->mem);
    const struct machine *m = &in->machine;
    b->capacity_b = m->n_mem ? m->mem[m->n_mem - 1].capacity_b : 0;
    b->fits = !b->mem.available || b->capacity_b <= 0 ? -1 : b->mem.total_b <= b->capacity_b;
    return 0;
}

int estimate_run_basis(const struct estimate_run_opts *o, struct estimate_inputs *in,
                       struct estimate *out, struct estimate_basis *basis, struct diag *d)
{
    int rc = estimate_run_inputs(o, in, out, d);
    if (!rc)
        rc = memory_basis(o, in, out, basis, d);
    return rc;
}

int estimate_pass_basis(const struct estimate_run_opts *o, struct estimate_basis *basis,
                        double **draws, size_t *n_draws, struct diag *d)
{
    struct estimate_inputs in;
    struct estimate e;
    estimate_init(&e);
    *draws = NULL;
    *n_draws = 0;
    int rc = estimate_run_basis(o, &in, &e, basis, d);
    if (!rc) {
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
    struct outfile of = { 0 };
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
        .batch_from = in.batch_from,
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
