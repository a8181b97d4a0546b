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

/* How one run of problem p sits on a node of system s (machine m): the
 * devices it trains on (data parallel), how many such runs a node holds,
 * and the gradient all-reduce each pass costs (struct run_layout,
 * model/study_result.h).  FOM_EDATA when the run does not fit a node or
 * needs a link the machine file does not give. */
int study_layout(const struct study *st, size_t p, size_t s, const struct machine *m,
                 struct run_layout *out, struct diag *d);
/* The estimate options of problem p on system s (workload profile, the
 * system's machine, its kernels and the study's other kernel tables).  kern
 * is storage for st->n_systems paths and must outlive o. */
void study_estimate_opts(const struct study *st, size_t p, size_t s,
                         struct estimate_run_opts *o, const char **kern);

#endif
