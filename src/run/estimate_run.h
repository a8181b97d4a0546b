/* `fom estimate` and every other user of the estimator (study evaluation,
 * reports): load a profile, a machine and kernel tables, estimate, render. */
#ifndef FOM_ESTIMATE_RUN_H
#define FOM_ESTIMATE_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "core/ctx.h"
#include "model/estimate.h"
#include "model/kernel_table.h"
#include "model/machine.h"
#include "model/basis.h"
#include "model/memory.h"
#include "model/profile.h"

struct diag;

struct estimate_run_opts {
    const char *profile;            /* trace or saved profile */
    const char *machine;            /* machine XML */
    const char *const *kernels;     /* --kernels paths (CSV, folder, db) */
    size_t n_kernels;
    const char *source_machine;     /* machine the profile ran on, or NULL */
    enum precision precision;       /* PREC_UNKNOWN: as profiled */
    int cudnn_tf32;                 /* the target run's fp32 convolutions and
                                       recurrent layers use TF32 (--cudnn-tf32) */
    int64_t batch;                  /* 0: as profiled */
    int no_shipped;                 /* do not look for the profiled device's shipped
                                       tables and machine file (tests) */
    int64_t profile_batch;          /* batch of the profiled run when the
                                       trace does not say it; 0: unknown */
    const char *batch_file;         /* a study's <workload> that set batch, cudnn-tf32 and
                                       profile-batch (for messages); NULL: the
                                       command line's --batch / --profile-batch */
    long batch_line;
    int64_t parameters;             /* trained parameters for the memory
                                       estimate; 0: the trace's .meta.json */
    /* the profiled run's step without the profiler, to calibrate the
     * trace's host times: > 0 given (--measured-step), 0 the trace's
     * .meta.json when it has one, < 0 none (--measured-step none) */
    double measured_step_s;
    size_t mc_draws;                /* Monte Carlo draws of the pass kept on the
                                       estimate (a study's FOM interval); 0: none */
    enum out_format format;
    const char *out_path;           /* NULL: standard output */
};

void estimate_run_opts_init(struct estimate_run_opts *o);

/* Everything an estimate is made from, owned together. */
struct estimate_inputs {
    struct profile profile;
    struct machine machine;
    struct machine source;
    int has_source;
    struct kernel_set tables;
    char *batch_from;               /* where the profiled batch came from
                                       ("--profile-batch", "the saved profile",
                                       a trace's .meta.json), NULL: unknown */
    /* The shipped tables (estimators/ beside the machine file's folder)
     * and the shipped machine files (the machine file's folder): the
     * profiled device's tables and machine are found there by the trace's
     * device name when not given, and the efficiency model learns from
     * the tables of machines other than the target. */
    struct kernel_set shipped;
    struct machine *ref_machines;
    size_t n_ref_machines;
    char *source_table_path;        /* where the profiled device's tables were found, or NULL */
    char *source_machine_path;      /* where its machine file was found, or NULL */
    double measured_step_s;         /* the run's step without the profiler, 0: unknown */
    double measured_step_lo_s, measured_step_hi_s;  /* its median's 95% interval, 0: none */
    char *measured_step_from;       /* "--measured-step" or the .meta.json read */
};

/* Load the inputs named in o.  in is released by estimate_inputs_release,
 * also after a failure. */
int estimate_inputs_load(const struct estimate_run_opts *o, struct estimate_inputs *in,
                         struct diag *d);
void estimate_inputs_release(struct estimate_inputs *in);
/* The estimator options that come from the loaded inputs: the profiled
 * device's machine and tables, the shipped reference tables and machines. */
struct estimate_opts;
void estimate_opts_from_inputs(const struct estimate_inputs *in, struct estimate_opts *eo);

/* Load, estimate and fill *out (OUT: release with estimate_release; its
 * op names point into in->profile, so keep in until out is released). */
int estimate_run_inputs(const struct estimate_run_opts *o, struct estimate_inputs *in,
                        struct estimate *out, struct diag *d);

/* The pass time alone, for callers that need one number (study files). */
int estimate_pass_time(const struct estimate_run_opts *o, double *pass_s, struct diag *d);

/* The pass time and its Monte Carlo draws (OUT: *draws owned by the
 * caller, NULL and *n_draws = 0 when no op has a table spread). */
int estimate_pass_draws(const struct estimate_run_opts *o, double *pass_s, double **draws,
                        size_t *n_draws, struct diag *d);

void estimate_basis_of(const struct estimate *e, struct estimate_basis *b);

/* estimate_run_inputs and the basis of its pass time (memory and fit
 * included), for callers that need the estimate's ops and inputs too. */
int estimate_run_basis(const struct estimate_run_opts *o, struct estimate_inputs *in,
                       struct estimate *out, struct estimate_basis *basis, struct diag *d);

/* The pass time, its basis and its Monte Carlo draws (as
 * estimate_pass_draws). */
int estimate_pass_basis(const struct estimate_run_opts *o, struct estimate_basis *basis,
                        double **draws, size_t *n_draws, struct diag *d);

/* `fom estimate`: load, estimate, render to o->out_path or stdout. */
int estimate_run(const struct estimate_run_opts *o, struct diag *d);

#endif
