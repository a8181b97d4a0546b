/* From a loaded study to its figure of merit: resolves the hours per unit
 * of work of every problem on every system (the median of the measured
 * repeats, or an estimate from the problem's workload), then computes the
 * rates, ratios and FOM (model/fom.h) and, when some inputs vary,
 * percentile confidence intervals of the per-problem ratios and the FOM:
 * each resample takes a bootstrap resample of every cell measured more
 * than once, and one of the estimator's Monte Carlo draws (over the
 * kernel tables' p05/p95, model/estimate.h) of every estimated cell that
 * has them; other cells stay fixed. */
#ifndef FOM_STUDY_EVAL_H
#define FOM_STUDY_EVAL_H
#include <stddef.h>

#include <stdint.h>

#include "model/fom.h"
#include "model/stats.h"
#include "model/study.h"

struct diag;
struct estimate_run_opts;
struct machine;

#define STUDY_CI_LEVEL 0.95

struct study_eval {
    size_t n_systems, n_problems;
    double *nodes;              /* [s] */
    double *weights;            /* [p], 1 when not given */
    double *hours;              /* [p * n_systems + s], hours per unit of work for
                                   one node: the median measured time, or an
                                   estimated run's time / runs_per_node */
    double *runs_per_node;      /* [p * n_systems + s], runs a node trains side by
                                   side (estimated cells; 1 for measured ones) */
    size_t *repeats;            /* [p * n_systems + s], measured times used */
    struct median_ci *hours_ci; /* [p * n_systems + s], CI of that median */
    struct fom_result fom;
    int has_repeats;            /* some system/problem has more than one time */
    double ci_level;            /* of every interval below */
    unsigned long seed;         /* bootstrap seed */
    int resamples;              /* bootstrap resamples, 0 when none were drawn */
    double *fom_lo, *fom_hi;    /* [s], NaN when unavailable (no cell varies) */
    double **hours_draws;       /* [p * n_systems + s], owned: hours per unit of
                                   each Monte Carlo draw of an estimated cell,
                                   NULL when it has none */
    size_t *n_hours_draws;      /* [p * n_systems + s] */
    int has_spread;             /* some estimated cell has draws */
    size_t estimate_draws;      /* draws per estimated cell (EST_MC_DRAWS) */
    unsigned long estimate_seed;/* their seed (EST_MC_SEED) */
    double *ratio_lo, *ratio_hi;/* [p * n_systems + s], NaN when unavailable
                                   (the baseline, or neither cell varies) */
};

/* Fills ev (caller releases it with study_eval_release, also on failure).
 * Returns FOM_OK or FOM_EDATA (an input cannot be resolved). */
int study_eval_run(const struct study *st, struct study_eval *ev, struct diag *d);
void study_eval_release(struct study_eval *ev);

/* Hours per unit of work of a workload whose one training pass takes
 * pass_s: pass -> epoch -> run.  NaN for invalid input. */
double study_workload_hours(const struct study_workload *w, double pass_s);

/* Hours of one measured time as a whole unit of work (per-epoch times are
 * multiplied by the problem's epochs). */
double study_time_hours(const struct study_problem *p, const struct study_time *t);

/* How one run of problem p sits on a node of system s (machine m): the
 * devices it trains on (data parallel), how many such runs a node holds,
 * and the gradient all-reduce each pass costs.  FOM_EDATA when the run
 * does not fit a node or needs a link the machine file does not give. */
struct run_layout {
    int64_t devices_per_run;
    int64_t runs_per_node;
    double allreduce_s;         /* per pass, 0 for one device */
};
int study_layout(const struct study *st, size_t p, size_t s, const struct machine *m,
                 struct run_layout *out, struct diag *d);
/* Hours per unit of work for one node: a run of pass_s passes (plus the
 * all-reduce) rolled up, divided by the runs a node holds. */
double study_cell_hours(const struct study_workload *w, const struct run_layout *l,
                        double pass_s);

/* The estimate options of problem p on system s (workload profile, the
 * system's machine, its kernels and the study's other kernel tables).  kern
 * is storage for st->n_systems paths and must outlive o. */
void study_estimate_opts(const struct study *st, size_t p, size_t s,
                         struct estimate_run_opts *o, const char **kern);

#endif
