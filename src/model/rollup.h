/* The seed's roll-up from one training pass to units of work per day:
 *   pass -> epoch (x minibatches) -> run (x epochs)
 *        -> runs per day per node (86400 s / run) -> units per day (x nodes).
 * Pure functions of their arguments; a non-positive or non-finite input
 * gives NaN, never a number that looks valid. */
#ifndef FOM_ROLLUP_H
#define FOM_ROLLUP_H
#include <stdint.h>

#define ROLLUP_DAY_S 86400.0

/* Minibatches in an epoch: ceil(samples / batch).  A last partial batch
 * counts as a whole pass: frameworks run it as one more step, and on the
 * small batches of these models a step's time is dominated by fixed
 * per-step costs (launches, dispatch, the optimizer update), not by the
 * number of samples in it.  Returns 0 for invalid input. */
int64_t rollup_minibatches(int64_t samples_per_epoch, int64_t batch);

/* Time of one epoch from the time of one pass. */
double rollup_epoch_s(double pass_s, int64_t samples_per_epoch, int64_t batch);
/* Time of one run (one unit of work) from the time of one epoch. */
double rollup_run_s(double epoch_s, double epochs);
/* Runs one node completes per day. */
double rollup_runs_per_day(double run_s);
/* Units of work per day for the whole system. */
double rollup_units_per_day(double run_s, double nodes);
/* Hours per unit of work, the figure the seed's table uses. */
double rollup_hours(double run_s);

/* Time of a ring all-reduce of `bytes` over `devices` devices joined by
 * links of bw_bs bytes/s per direction and latency_s per message:
 * 2 (d - 1) / d x bytes / bw + 2 (d - 1) x latency (each of the 2 (d - 1)
 * steps sends 1/d of the data).  0 for one device; NaN for invalid input. */
double rollup_allreduce_s(double bytes, int64_t devices, double bw_bs, double latency_s);

#endif
