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

#include "model/study_result.h"

struct diag;
struct estimate_run_opts;
struct machine;

/* Fills ev (caller releases it with study_eval_release, also on failure).
 * Returns FOM_OK or FOM_EDATA (an input cannot be resolved). */
int study_eval_run(const struct study *st, struct study_eval *ev, struct diag *d);

/* How one run of problem p sits on system s (machine m): the devices it
 * trains on (data parallel), the nodes it spans (whole nodes when it is
 * wider than one), how many such runs a node holds (a fraction for runs
 * over several nodes: the runs the system's nodes hold side by side,
 * divided by its nodes), and the gradient exchange each pass costs
 * (model/comm.h; struct run_layout in model/study_result.h).  study_layout checks the fit (FOM_EDATA when the run
 * does not fit a node or the system, or does not fill whole nodes);
 * study_layout_comm adds the exchange once the backward pass's
 * time and the profile's parameter count are known (FOM_EDATA when the
 * parameters are unknown or the machine lacks a link the run crosses). */
int study_layout(const struct study *st, size_t p, size_t s, const struct machine *m,
                 struct run_layout *out, struct diag *d);
/* What the gradient exchange of a cell is computed from (filled by
 * study_comm_inputs, released by study_comm_inputs_release). */
struct comm_inputs {
    double backward_s;          /* time the estimated backward pass lasts (study_backward_s) */
    double parameters;          /* when the study gives none, 0 when unknown */
    const char *parameters_from;/* static: where parameters came from, in words */
    struct comm_point *table;   /* the target's measured all-reduce rows (owned), or NULL */
    size_t n_table;
    const char *table_hw;       /* borrowed: the hardware of that table, or NULL */
};
int study_layout_comm(const struct study *st, size_t p, size_t s, const struct machine *m,
                      const struct comm_inputs *ci, struct run_layout *out, struct diag *d);
/* The inputs of a cell's exchange from its estimate: the backward pass
 * of e; the parameter count the memory estimate used (the study's or the
 * trace's .meta.json), else the shapes of the profile's multi-tensor
 * optimizer ops (model/comm.h); and the all-reduce rows of the target's
 * kernel table (the one e was estimated with), which the exchange uses
 * where they cover the bucket size and rank count. */
struct estimate;
struct estimate_basis;
struct estimate_inputs;
void study_comm_inputs(const struct estimate_inputs *in, const struct estimate *e,
                       const struct estimate_basis *b, struct comm_inputs *ci);
void study_comm_inputs_release(struct comm_inputs *ci);
double study_backward_s(const struct estimate *e);

/* The scaling curve of problem p on system s (the estimate inputs already
 * loaded in *in): widths 1, 2, 4, ... and the problem's own
 * devices-per-run, up to 4 x devices-per-run, that fit a node or fill
 * whole nodes, split the batch evenly and fit the system; ci as for the
 * cell (its backward time is replaced by each width's).  *pts is owned by
 * the caller (NULL and 0 points on failure). */
int study_scaling(const struct study *st, size_t p, size_t s, struct estimate_inputs *in,
                  const struct estimate_run_opts *o, const struct comm_inputs *ci,
                  struct scaling_point **pts, size_t *n, struct diag *d);

/* The estimate options of problem p on system s (workload profile, the
 * system's machine, its kernels and the study's other kernel tables).  kern
 * is storage for st->n_systems paths and must outlive o. */
void study_estimate_opts(const struct study *st, size_t p, size_t s,
                         struct estimate_run_opts *o, const char **kern);

#endif
