/* The result of evaluating a study (run/study_eval.c fills it): the hours
 * per unit of work of every problem on every system, the rates, ratios and
 * FOM (model/fom.h) and their confidence intervals.  Plain data that the
 * renderers read; the pure roll-ups from a pass time to hours per unit live
 * here too. */
#ifndef FOM_STUDY_RESULT_H
#define FOM_STUDY_RESULT_H
#include <stddef.h>
#include <stdint.h>

#include "model/basis.h"
#include "model/comm.h"
#include "model/econ.h"
#include "model/fom.h"
#include "model/stats.h"
#include "model/study.h"

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
                                   (the baseline, or neither cell varies; an
                                   interval of zero width is unavailable too) */
    struct estimate_basis *basis;/* [p * n_systems + s], what an estimated cell
                                   rests on (pass time, bound, method shares,
                                   memory and fit; model/basis.h) */
    int *estimated;             /* [p * n_systems + s], 1 for estimated cells */
    /* Power and price of one node of each system (study override, else the
     * machine file; NaN when neither gives it), where each came from, and
     * the figures beside the FOM (model/econ.h). */
    double *node_power_w, *node_price_usd;  /* [s] */
    char **power_from, **price_from;        /* [s], owned, NULL when unknown */
    struct econ_result econ;
    int has_power, has_price;   /* some system has one */
    size_t unfit;               /* estimated cells whose run does not fit a device */
    int *fom_unformed;          /* [s], 1 when a cell of s (or of the baseline)
                                   does not fit: its FOM is NaN */
    double *exposed_comm_s;     /* [p * n_systems + s], per pass, NaN for measured
                                   cells, 0 for one device per run */
    struct scaling_point **scaling; /* [p * n_systems + s], owned, NULL when the cell
                                   has no curve (measured, or one device per run) */
    size_t *n_scaling;
};

/* A cell mostly (at least STUDY_WEAK_SHARE of its op time) estimated from
 * the machine file's roofline or from peak ratios (methods roofline and
 * scaled) rather than measured kernel tables: the roofline assumes peak
 * rates no kernel reaches (2-3.6x optimistic for an A100 or MI250X node
 * against measured tables), so such cells are marked wherever the FOM is
 * shown. */
#define STUDY_WEAK_SHARE 0.5
double study_weak_share(const struct estimate_basis *b);
int study_cell_weak(const struct study_eval *ev, size_t i);

/* Frees what ev holds, not ev itself. */
void study_eval_release(struct study_eval *ev);

/* Hours per unit of work of a workload whose one training pass takes
 * pass_s: pass -> epoch -> run.  NaN for invalid input. */
double study_workload_hours(const struct study_workload *w, double pass_s);

/* Hours of one measured time as a whole unit of work (per-epoch times are
 * multiplied by the problem's epochs). */
double study_time_hours(const struct study_problem *p, const struct study_time *t);

/* How one run of a problem sits on a system (run/study_eval.h
 * study_layout, study_layout_comm): the devices it trains on (data
 * parallel), the nodes it spans, how many such runs a node holds (a
 * fraction for runs over several nodes: the runs the system holds side by
 * side, divided by its nodes), and the gradient exchange each pass costs
 * (model/comm.h). */
struct run_layout {
    int64_t devices_per_run;
    int64_t nodes_per_run;      /* 1 for runs inside one node */
    double runs_per_node;
    double concurrent_runs;     /* runs the whole system holds side by side */
    double parameters;          /* gradients exchanged, 0 for one device */
    const char *parameters_from;/* static: where parameters came from (words) */
    struct comm_step comm;      /* the exchange of one pass (zero for one device) */
    double exposed_comm_s;      /* per pass, what the backward pass does not hide */
};
/* Hours per unit of work for one node: a run of pass_s passes (plus the
 * exposed exchange) rolled up, divided by the runs a node holds. */
double study_cell_hours(const struct study_workload *w, const struct run_layout *l,
                        double pass_s);

/* One width of a scaling curve: one run of the problem on devices_per_run
 * devices (strong scaling: the workload's batch split over them), and as
 * many such runs side by side as the system holds (weak scaling). */
struct scaling_point {
    int64_t devices_per_run, nodes_per_run;
    double per_device_batch;
    double pass_s;              /* estimated pass at the per-device batch */
    double exposed_comm_s, comm_s;  /* per pass: exposed, and all buckets summed */
    size_t n_buckets, n_from_table; /* buckets, and those timed from the measured table */
    double run_units_per_day;   /* one run: 86400 s / its time */
    double ideal_units_per_day; /* one run if it scaled perfectly from the
                                   narrowest width: that rate x width ratio */
    double concurrent_runs;
    double units_per_day;       /* the whole system: concurrent runs x run rate */
};

#endif
