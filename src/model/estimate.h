/* The estimator: from a workload profile measured on one machine, predict
 * the pass time on another, op by op.  Pure: it reads nothing, prints
 * nothing except warnings through the diag it is given, and keeps every
 * decision (method, bound, fallback) in the result so that reports can show
 * how each number was obtained.
 *
 * Per op, the first method that applies wins:
 *   measured       target device is the profiled device and the op is unchanged
 *   scaled-table   the profiled device's tables are loaded too: the measured
 *                  time times target_table(shape) / source_table(shape)
 *   table-exact    the target's table holds the shape
 *   table-interp   the target's table interpolates (or extrapolates) it
 *   roofline       max(flops / peak, bytes / bandwidth) + launch latency
 *   scaled         measured time times the ratio of source and target peaks
 * Pass time: the profiled steps replayed in their call order (host
 * issues calls, the device runs their kernels when launched and free; see
 * estimate.c: replay()) + synchronisation; without a call order, the
 * larger of device and host time + synchronisation.
 *
 * Uncertainty: the pass time's interval over the kernel tables' spreads
 * (see est_spread below), every op that has a spread at one quantile of
 * it, the others and every host time as they are (host times are
 * measured or machine constants, not table rows), composed by the same
 * code as the point estimate: exact, since the pass is monotone in that
 * quantile.  Monte Carlo draws of the same, on request, for callers that
 * combine passes.  It reflects the timing spread of the measured kernels
 * only, not the error of the model itself. */
#ifndef FOM_ESTIMATE_H
#define FOM_ESTIMATE_H
#include <stddef.h>
#include <stdint.h>

#include "model/kernel_table.h"
#include "model/machine.h"
#include "model/profile.h"

struct diag;

enum est_method {
    EST_TABLE_EXACT,
    EST_TABLE_INTERP,
    EST_ROOFLINE,
    EST_SCALED,
    EST_SCALED_TABLE,
    EST_MEASURED,
    EST_EFFICIENCY,
    EST_METHOD_COUNT,
};

enum est_bound { BOUND_COMPUTE, BOUND_MEMORY, BOUND_LATENCY, BOUND_HOST, BOUND_COUNT };

/* What a CPU trace's op costs a GPU's host, by what it is (est_host.c):
 * cuDNN's convolutions and the norms, other ops that run kernels, views,
 * and ops charged one bare dispatch (the optimizer's, collectives,
 * recurrent layers' calls). */
enum est_host_class { HOST_CLASS_CONV, HOST_CLASS_LIBRARY, HOST_CLASS_KERNEL, HOST_CLASS_VIEW,
                      HOST_CLASS_ONCE, HOST_CLASS_COUNT };
const char *est_host_class_name(enum est_host_class k);
/* The class's cost per call in units of the machine's dispatch. */
double est_host_class_weight(enum est_host_class k);

/* Physics limits an op's estimate was held to (bits of op_estimate.limits):
 *   roofline    no faster than the target's roofline for its flops and
 *               bytes (plus its launches where the method holds them)
 *   ratio-low   a time moved from the profiled device no faster than the
 *               most favourable of the two machines' spec ratios allows
 *               (at one precision; or, between two, a ratio of table
 *               rows of which one is extrapolated)
 *   ratio-high  nor slower than the least favourable one
 *   above-peak  not held but flagged: a measured convolution faster than
 *               the peak allows for its direct-algorithm flops (Winograd
 *               and FFT algorithms do fewer multiplications than that
 *               count, so their rate on it can pass the peak)
 *   peer-table  a recurrent layer timed one call at a time held to
 *               other GPUs' rows times the spec ratios (est_limits.c)
 *   idle-rows   not a bound but a rule of the hardware's: a norm kernel
 *               of fewer rows than the device's multiprocessors kept a
 *               row's time while its rows grew (est_op.c: grow_work) */
enum est_limit { LIMIT_ROOFLINE, LIMIT_RATIO_LOW, LIMIT_RATIO_HIGH, LIMIT_ABOVE_PEAK, LIMIT_PEER,
                 LIMIT_IDLE_ROWS, LIMIT_COUNT };
const char *est_limit_name(enum est_limit l);     /* "roofline", ... */

const char *est_method_name(enum est_method m);   /* "table-exact", ... */
const char *est_bound_name(enum est_bound b);     /* "compute", ... */

/* What became of a measured step time given to calibrate the host. */
enum est_calib {
    CALIB_NONE,             /* none given */
    CALIB_APPLIED,          /* the replay meets the measured step */
    CALIB_CLAMPED,          /* it cannot: the nearest the trace allows */
    CALIB_NOT_APPLICABLE,   /* not a GPU trace with its calls on a GPU target */
};
const char *est_calib_name(enum est_calib c);

struct estimate_opts {
    enum precision precision;       /* PREC_UNKNOWN: as profiled */
    /* The target run's fp32 convolutions and recurrent layers use the TF32
     * units (PyTorch's cuDNN default); 0: IEEE fp32, as the tables' fp32. */
    int cudnn_tf32;
    int64_t batch;                  /* 0: as profiled */
    /* The machine the profile was measured on, if known: enables the
     * `scaled` last resort (peak ratios).  May be NULL. */
    const struct machine *source;
    /* Tables and machine files of other machines (the shipped ones): the
     * efficiency model learns from them when the target has no table.
     * May be NULL / 0. */
    const struct kernel_set *reference;
    const struct machine *ref_machines;
    size_t n_ref_machines;
    /* Where the profiled device's tables and machine file were found when
     * the user did not name them (said in the output), or NULL. */
    const char *source_table_path, *source_machine_path;
    /* Monte Carlo draws of the pass time kept for the caller (0: none;
     * the interval needs none) and their RNG seed.  The seed is fixed by
     * default so that the same inputs give the same draws, bit for bit. */
    size_t mc_draws;
    unsigned long mc_seed;
    /* The profiled run's step time measured without the profiler (the
     * harness's, beside the trace) and where it was read; 0 / NULL: none.
     * The trace's host times are scaled so that its replay on its own
     * device gives that step (struct estimate: host_scale). */
    double measured_step_s;
    double measured_step_lo_s, measured_step_hi_s;  /* its median's 95% interval, 0: none */
    const char *measured_step_from;
};

#define EST_MC_DRAWS 1000
/* Each draw replays every call (or sums every op): a profile of more than
 * EST_MC_WORK / EST_MC_DRAWS calls gets EST_MC_WORK / calls draws, at
 * least EST_MC_MIN_DRAWS, so that the Monte Carlo costs what 1000 draws
 * of 16k calls do (about half a second) instead of growing with the
 * profile.  The draws serve a study's interval of its FOM, which
 * resamples them; the pass's own interval is computed without them. */
#define EST_MC_WORK (1u << 24)
#define EST_MC_MIN_DRAWS 100
#define EST_MC_SEED 20170828UL
#define EST_CI_LEVEL 0.95

void estimate_opts_init(struct estimate_opts *o);

struct op_estimate {
    const char *name;               /* borrowed from the profile */
    enum op_kind kind;
    enum op_phase phase;
    enum precision prec;            /* precision estimated at */
    double count;                   /* calls per pass */
    double flops, bytes;            /* per pass, after retargeting */
    double src_time_s;              /* measured per pass in the profile */
    double device_s;                /* estimated device time per pass */
    double host_s;                  /* host dispatch time per pass */
    double time_s;                  /* what this op adds to the pass:
                                       device_s on accelerators, device_s +
                                       host_s on a CPU target */
    double time_lo_s, time_hi_s;    /* spread of device_s from table p05/p95 */
    enum est_method method;
    enum est_bound bound;
    const char *lookup;             /* "exact", "interp", "extrap" or NULL */
    int resample_rows;              /* the time came from resample rows (an upsampling) */
    double ratio;                   /* scaled/scaled-table: factor applied */
    /* Confidence of the method chosen: its distance from measured data
     * (0 the op's own measurement or an exact row; see est_op.c) */
    double distance;
    unsigned limits;                /* bits 1 << enum est_limit that fired */
};

struct estimate {
    const char *machine;            /* borrowed: target machine id */
    const char *target_hw;          /* borrowed: hw of the target table or NULL */
    const char *source_hw;          /* borrowed: hw of the source table or NULL */
    int on_profiled_device;         /* the target is the device the profile ran on */
    const char *source_table_path;  /* borrowed: found by the trace's device name, or NULL */
    const char *source_machine_path;/* borrowed: found by the trace's device name, or NULL */
    enum precision precision;       /* requested, PREC_UNKNOWN if as profiled */
    int cudnn_tf32;                 /* estimate_opts cudnn_tf32 */
    int64_t batch, src_batch;       /* requested (0 = as profiled), profiled */
    double batch_scale;             /* batch / src_batch, 1 if unchanged */
    struct op_estimate *ops;
    size_t n_ops;
    double device_time_s;           /* sum of op device times */
    double host_time_s;             /* host dispatch per pass */
    double sync_s;                  /* end-of-pass synchronisation */
    /* Profiler overhead the trace reader took out of the host times: the
     * cost of one recorded event (the trace's least sibling gap, struct
     * profile: event_gap_s), the events per pass and the host time removed
     * per pass (0 for profiles that do not say). */
    double profiler_event_s, profiler_events, profiler_host_s;
    /* A CPU trace's host time on a GPU, what it rests on: the machine's
     * dispatch, the calls of each class (an optimizer's per-tensor calls
     * as the GPU's foreach launches, a convolution's bias add among the
     * kernel ops) and their time, and the recurrent layers' host loops;
     * all 0 for a GPU trace or a CPU target. */
    double host_dispatch_s;
    /* the pass's calls per op record and the factor they put on its
     * calls' dispatches (est_host.c: est_host_repeat; not on an
     * optimizer's, a collective's or a recurrent loop's) */
    double host_calls_per_record, host_repeat_scale;
    double host_calls[HOST_CLASS_COUNT], host_class_s[HOST_CLASS_COUNT];
    double host_rnn_loop_s;
    /* the calls of ops that launch several kernels a call on the GPU
     * (est_host.c: multi_kernel_ops) among them, and their time */
    double host_multi_calls, host_multi_s;
    /* Host calibration against the profiled run's step measured without
     * the profiler (estimate_opts measured_step_s): that step, the
     * trace's own replay on its device before and after, the factor on
     * the trace's host times that brought it there and the largest the
     * trace allows (its host times with the profiler's cost left in). */
    enum est_calib calib;
    const char *calib_from;         /* borrowed: estimate_opts measured_step_from */
    double calib_step_s, calib_replay_s, calib_replayed_s;
    double calib_floor_s;           /* the replay at the least host (1/64 of the trace's) */
    double calib_lo_s, calib_hi_s;  /* the measured median's 95% interval (said
                                       beside the step), 0: none */
    double host_scale, host_scale_max;
    double pass_time_s;
    double pass_lo_s, pass_hi_s;
    double src_pass_time_s;         /* profiled pass (step) time, 0 if unknown */
    enum est_bound bound;
    double method_time_s[EST_METHOD_COUNT]; /* device time per method */
    double bound_time_s[BOUND_COUNT];       /* op time per op bound */
    size_t limit_ops[LIMIT_COUNT];          /* ops each physics limit fired on */
    int efficiency_model;                   /* some op used the efficiency model */
    char **warnings;                /* owned; also sent to the diag */
    size_t n_warnings, alloc_warnings;
    /* The pass over the ops' table spreads: the CI NaN when no op has a
     * spread; n_draws = 0 and pass_draws NULL when no draws were asked
     * for or no op has a spread. */
    size_t n_spread_ops;            /* ops with a table spread */
    double *pass_draws;             /* owned: [n_draws] pass times, in draw order */
    size_t n_draws;
    unsigned long mc_seed;
    double ci_level;                /* EST_CI_LEVEL */
    double pass_ci_lo_s, pass_ci_hi_s;  /* the pass at the spreads' (1 -+ ci_level) / 2 quantiles */
};

/* The distribution an op's device time is drawn from: a log-normal whose
 * median is the estimate, with the table's p05 and p95 as its 5% and 95%
 * quantiles.  A kernel time is positive and skewed to the right (a run is
 * slowed by many things and sped up by few), which a log-normal is and a
 * normal is not; when p05 and p95 are not symmetric about the estimate in
 * log space, the two halves take their own sigma (a split log-normal) so
 * that both quantiles still hold: sigma_lo = ln(est / p05) / z95 below the
 * median, sigma_hi = ln(p95 / est) / z95 above, z95 = 1.6449. */
struct est_spread {
    double median_s;
    double sigma_lo, sigma_hi;      /* of ln(time) below and above the median */
};
/* Returns 1 and fills sp when lo_s < est_s or hi_s > est_s (a spread),
 * 0 when the op has none (lo = est = hi, or est not positive). */
int est_spread_of(double est_s, double lo_s, double hi_s, struct est_spread *sp);
/* The time at quantile q (0 < q < 1), and the time of a standard normal
 * draw z (the quantile of Phi(z)). */
double est_spread_quantile(const struct est_spread *sp, double q);
double est_spread_at(const struct est_spread *sp, double z);

void estimate_init(struct estimate *e);
void estimate_release(struct estimate *e);  /* frees members, not e */

/* Estimate profile p on machine target with the measured tables (may be
 * NULL or empty).  Returns 0, or FOM_EDATA when nothing can be estimated
 * (e.g. a machine without peaks and no tables); warnings for every
 * fallback go to d and to out->warnings. */
int estimate_profile(const struct profile *p, const struct machine *target,
                     const struct kernel_set *tables, const struct estimate_opts *o,
                     struct estimate *out, struct diag *d);

#endif
