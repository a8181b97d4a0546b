/* The estimator's parts, shared between its files (not a public API):
 *   estimate.c      the pass: orchestration, warnings, table choice
 *   est_retarget.c  an op's shape at the requested precision and batch
 *   est_lookup.c    kernel-table lookups of one op
 *   est_op.c        per-op device time: candidates, confidence, bounds
 *   est_eff.c       the efficiency model (fraction of peak from tables)
 *   est_host.c      host time: profiler overhead, dispatch, autocast casts
 *   est_autocast.c  which activations autocast casts, followed through a step
 *   est_replay.c    one profiled step replayed on the target
 *   est_mc.c        the Monte Carlo of the pass time */
#ifndef FOM_EST_INTERNAL_H
#define FOM_EST_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#include "model/estimate.h"

#define MAX_FLAT 64

/* Distances from measured data of the per-op methods (est_op.c picks the
 * nearest).  They rank what each method rests on; the lookups do not
 * give a metric distance yet, so these are ranks by derivation, not
 * fitted numbers:
 *   0    exact row: the target measured this shape
 *   0.5  scaled-table: this op measured, moved by two measured rows
 *   1    interpolation: target rows on both sides of the shape
 *   2    scaled: this op measured, moved by the machines' spec ratios
 *   2.5  scaled-table whose target row is extrapolated
 *   3    efficiency model: other machines' rows at this size and
 *        intensity, moved by the target's specs
 *   3.5  extrapolation: target rows, none near the shape
 *   4    roofline: the target's specs alone */
#define DIST_EXACT 0.0
#define DIST_SCALED_TABLE 0.5
#define DIST_INTERP 1.0
#define DIST_SCALED 2.0
#define DIST_EXTRAP_SCALED 2.5
#define DIST_EFFICIENCY 3.0
#define DIST_EXTRAP 3.5
#define DIST_ROOFLINE 4.0

/* Per forward call of an op: the activations (act_t tensors of act_e
 * elements at the profiled batch) and parameters (w_t weights, b_t biases, w_e elements; w_cached
 * casts autocast's cache saved) autocast casts before it; and over the
 * calls the walk typed (fp32_n of them), how many of the op's tensors
 * would be fp32 (fp32_calls: 1 a call, fractions for a call of mixed
 * types), for the ops autocast leaves alone (est_autocast_fp32_share). */
struct ac_call { double act_t, act_e, w_t, b_t, w_e, w_cached, fp32_calls, fp32_n; };
struct ac_casts { struct ac_call *op; int params; };

struct est {
    const struct profile *p;
    const struct machine *m;
    const struct machine *src_m;
    const struct kernel_table *tt;  /* target's table, or NULL */
    const struct kernel_table *st;  /* profiled device's table, or NULL */
    int conv_choice_differs;        /* st's and tt's convolutions were timed with
                                     * different cuDNN algorithm choices */
    const struct kernel_set *all;   /* every table loaded (efficiency model) */
    int same_device;                /* target is the profiled device */
    int src_gpu;                    /* profile holds device times */
    int tgt_gpu;                    /* target has a device apart from the host */
    enum precision want;
    int cudnn_tf32;                 /* estimate_opts cudnn_tf32, unless a GPU
                                     * trace's kernels show the setting on */
    int64_t b_old, b_new;
    /* Rows of flattened [batch, seq, ...] inputs (batch x seq), so that the
     * backward GEMMs of a transformer, whose inputs are already 2-D, are
     * still recognised as proportional to the batch. */
    int64_t flat[MAX_FLAT];
    size_t n_flat;
    /* [N x C, S] of the instance norms' inputs: PyTorch computes an
     * instance norm's gradient as a batch norm's over its input seen as
     * [1, N x C, S] (native_batch_norm_backward, cudnn_batch_norm_backward),
     * whose channels carry the batch. */
    struct { int64_t ch, s; } inorm[MAX_FLAT];
    size_t n_inorm;
    size_t n_channels_last;         /* channels-last convolutions timed from table rows */
    size_t n_dilation_unmeasured;   /* dilated convolutions timed as undilated ones */
    size_t n_filter_unmeasured;     /* convolutions of filters the rows do not measure */
    size_t n_grouped_dense;         /* grouped convolutions timed as their groups' dense ones */
    size_t n_head_padded;           /* attention ops timed at a larger measured head dim */
    /* ops of the forward and backward passes whose batch dimension --batch
     * did not find (their profiled sizes kept), and their device time */
    size_t n_batch_kept;
    double batch_kept_dev_s;
    /* interpolating upsamplings of a trace without device times timed on
     * a GPU by their bytes (est_op.c: count_resample_by_bytes) */
    size_t n_resample_bytes;
    double resample_bytes_dev_s;
    size_t n_rnn_launch_host;       /* recurrent ops whose host loop fell back on launches */
    size_t n_rnn_persistent;        /* recurrent ops cuDNN runs as persistent kernels */
    size_t n_rnn_persist_fallback;  /* of those, paid as launches: no per-call figure */
    struct estimate *out;
    /* autocast: casts issued before each forward call of op i, and
     * their device time per call (see est_autocast_casts()) */
    double *cast_n, *cast_dev_s;
    /* autocast's extra host time per forward call of op i, issued before
     * the call, and in the backward pass (issued once it is over) */
    double *cast_host_s, *cast_back_s;
    size_t cast_op;                 /* out->ops entry of the casts, or SIZE_MAX */
    /* the walk through the profile's calls under autocast
     * (est_autocast_flow), when retargeting to a low precision; op NULL
     * otherwise */
    struct ac_casts flow;
    size_t n_promoted;              /* ops kept mostly in fp32 by the walk's types */
    double promoted_dev_s;          /* and their device time */
    struct est_eff *eff;            /* efficiency model, or NULL */
    /* other machines' tables and files (est_limit_peers), or NULL */
    const struct kernel_set *ref;
    const struct machine *ref_m;
    size_t n_ref_m;
    const struct kernel_table *peer_said;   /* the peer table last warned of (est_op.c) */
    /* the target table's smallest row time per kind and precision: the
     * measuring harness's dispatch gap (est_op.c, less_dispatch_gap) */
    double floor_s[KERNEL_KIND_COUNT][PREC_COUNT];
    /* factor on a GPU trace's host times, set by est_calibrate_host before
     * any op is estimated (1: none) */
    double host_scale;
    /* the factor on a CPU trace's dispatches on a GPU for its pass's
     * repetition (est_host_repeat, before any op is estimated; 1: none) */
    double host_repeat;
};

/* The shape an op is estimated at: the profiled one, retargeted. */
struct shape {
    enum precision prec;
    int64_t m, n, k, nb;        /* gemm (nb: bmm batch, >= 1) */
    struct conv_shape conv;
    double calls;               /* calls per pass */
    double kernels;             /* kernel launches per pass */
    double flops, bytes;        /* per pass */
    int64_t kdim[6];            /* rnn/attention/norm/embedding sizes (struct op kdim) */
    int contiguous;             /* a convolution looked up among rows of contiguous
                                   tensors whatever its layout (est_op.c: scaled_table) */
    int batch_moved;            /* est_retarget found its batch dimension and moved it */
    double fp32_share;          /* share of its elements autocast leaves in fp32
                                   (est_retarget; 0 when none or not known) */
    int by_bytes;               /* an upsampling or indexed op looked up among the
                                   elementwise rows by its bytes, not among rows of
                                   its own (est_op.c: scaled_table) */
};

struct lookup {
    double time_s, lo_s, hi_s;      /* per pass */
    enum lookup_method method;
    double distance;                /* log distance from the nearest measured rows */
    int above;                      /* extrapolated, and only above the measured sizes */
    enum kernel_kind kind;          /* the kind of the rows used (the last, if several) */
    double calls;                   /* the table calls time_s adds up */
    int layout_fallback;            /* a channels-last convolution timed from rows
                                       of contiguous tensors (none of its own layout) */
    int dilation_unmeasured;        /* a dilated convolution timed from undilated rows
                                       alone (the table measured no dilation) */
    int filter_unmeasured;          /* a convolution whose filter volume no row of its
                                       spatial dimensions measures (kernel_hit) */
    int grouped_dense;              /* a grouped convolution outside its rows timed as its
                                       groups' dense convolutions (est_lookup.c) */
    int op_rows;                    /* an indexed op timed from rows of its own op
                                       (lk_indexed), not from the stream's */
    int head_padded;                /* attention below the rows' smallest head dim,
                                       timed at it (kernel_hit) */
};

struct roof {
    double compute_s, memory_s, latency_s;
};

/* The calls of the profile, indexed once for every replay of it. */
/* What the replay needs of one call that does not change between Monte
 * Carlo draws, in call order (est_replay_plan): every draw then reads
 * the calls front to back instead of each call's op record. */
struct replay_call {
    size_t i;                       /* profile op index, SIZE_MAX if none */
    int opt;                        /* an optimizer op's call */
    int share;                      /* device time dev_s[i] * mul / div; 0: none */
    int launch;                     /* launch_s is added to a positive device time */
    double mul, div;
    double kn;                      /* kernels per call, at least 1 */
    double launch_s;
    double dispatch_s;              /* a CPU trace's call: the target host's dispatch */
    int sync;                       /* a CPU trace's call that reads device data on a GPU
                                       host (ops_syncs_host): it waits for the device */
};

struct replay_index {
    size_t max_id;
    size_t *idx;                    /* op id -> profile op index, SIZE_MAX if none */
    double *ncalls;                 /* [n_ops + 1] calls of each op */
    int steps;
    struct replay_call *calls;      /* [p->n_calls], or NULL (est_replay_plan) */
};

static inline int same_name(const char *a, const char *b)
{
    return a && b && *a && strcasecmp(a, b) == 0;
}

static inline int is_float(enum precision p)
{
    return p == PREC_FP32 || p == PREC_TF32 || p == PREC_BF16 || p == PREC_FP16;
}

static inline int is_matrix_kind(enum op_kind k)
{
    return k == OP_GEMM || k == OP_CONV || k == OP_RNN || k == OP_ATTENTION;
}

/* estimate.c: each distinct warning once, kept on the result */
void est_warn(struct est *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* est_retarget.c */
void est_shape_groups(const char *s, void (*fn)(const int64_t *dims, int n, void *arg), void *arg);
void est_collect_flat(const int64_t *dims, int n, void *arg);
void est_collect_flat_rows(const int64_t *dims, int n, void *arg);
/* The batch dimensions an indexed op's index names (est_retarget.c). */
void est_collect_index_rows(struct est *c, const struct op *op);
/* The [N x C, S] of an instance norm's input (est_retarget.c). */
void est_collect_instance_norm(struct est *c, const struct op *op);
enum precision est_op_prec(const struct profile *p, const struct op *op);
void est_shape_of(const struct est *c, const struct op *op, struct shape *s);
int est_is_foreach_on_gpu(const struct est *c, const struct op *op);
double est_foreach_launches(double calls);
int est_retarget(const struct est *c, const struct op *op, struct shape *s);

/* est_lookup.c */
int est_lk_stream(const struct kernel_table *t, enum precision p, double bytes, double kernels,
                  struct lookup *acc);
int est_lookup_op(const struct kernel_table *t, const struct op *op, const struct shape *s,
                  double bw_bs, struct lookup *acc);
enum kernel_kind est_table_kind(enum op_kind k);

/* est_replay.c: c->host_scale from o->measured_step_s, said on c->out */
void est_calibrate_host(struct est *c, const struct estimate_opts *o);

/* est_op.c */
double est_peak_of(struct est *c, const struct machine *m, enum precision p, int matrix);
int est_is_view_op(const char *name);
/* est_autocast.c: the walk through the profile's calls (struct ac_call
 * per op; parameters only where the profile's optimizer lists them,
 * params) */
int est_autocast_flow(const struct est *c, struct ac_casts *out);
double est_autocast_fp32_share(const struct est *c, const struct op *op);
void est_autocast_begin(struct est *c);
void est_op(struct est *c, const struct op *op, struct op_estimate *oe);

/* est_limits.c */
void est_limit_roofline(struct est *c, const struct op *op, const struct shape *s,
                        struct op_estimate *oe);
void est_limit_ratio(struct est *c, const struct op *op, const struct shape *s0, int changed,
                     double src_dev, struct op_estimate *oe);
void est_limit_peers(struct est *c, const struct op *op, const struct shape *s,
                     struct op_estimate *oe);
/* The least and largest of the spec ratios (target over source time:
 * peaks, bytes at the bandwidths, launch latency) for an op moved from
 * src at p0 to tgt at p1; 0 when fewer than two are known. */
int est_spec_envelope(const struct machine *src, enum precision p0, const struct machine *tgt,
                      enum precision p1, double *lo, double *hi);

/* The profiled device's machine: the target's file when the target is
 * that device, else the file found by the trace's device name (NULL when
 * none was). */
static inline const struct machine *est_profiled_machine(const struct est *c)
{
    return c->same_device ? c->m : c->src_m;
}

/* est_eff.c: the efficiency model (NULL when no reference machine fits) */
struct est_eff;
struct est_eff *est_eff_build(const struct kernel_set *ref, const struct machine *ref_m, size_t n_ref_m,
                              const struct machine *target);
void est_eff_release(struct est_eff *e);
/* The machine of ms that table t was measured on, or NULL. */
const struct machine *est_machine_of(const struct kernel_table *t, const struct machine *ms, size_t n);
/* Table i of c->ref as another machine's measurement of op at s: a table
 * of a machine of the target's kind, not the target's device (nor its
 * table's), with queued set not one timed one call at a time, whose
 * lookup lies inside its rows or past its largest at their best rate.
 * Returns that machine and the lookup in *lk, or NULL. */
const struct machine *est_peer_lookup(const struct est *c, size_t i, int queued, const struct op *op,
                                      const struct shape *s, struct lookup *lk);
int est_eff_time(const struct est_eff *e, const struct machine *target, const struct op *op,
                 const struct shape *s, double *time_s);
size_t est_eff_machines(const struct est_eff *e);

/* est_host.c */
void est_host_repeat(struct est *c);
double est_host_of(struct est *c, const struct op *op);
double est_call_host_s(const struct est *c, const struct op *op);
double est_rnn_launches(const struct est *c, const struct op *op);
double est_gpu_kernels_per_call(const struct est *c, const struct op *op);
double est_rnn_host_s(const struct est *c, const struct op *op);
double est_conv_bias_calls(const struct est *c, const struct op *op, double *kernels);
double est_conv_bias_s(const struct est *c, const struct op *op, const struct shape *s);
void est_autocast_casts(struct est *c);

/* est_host_ops.c: an op's host cost per call over an op of one kernel's
 * on a GPU, by name and pass (0 when the traces did not measure it) */
double est_op_host_ratio(const char *name, enum op_phase phase);

/* est_replay.c */
void est_replay_index_build(const struct profile *p, struct replay_index *ri);
void est_replay_index_release(struct replay_index *ri);
/* Fill ri->calls from the profile and the ops' estimates (methods). */
void est_replay_plan(const struct est *c, const struct estimate *out, struct replay_index *ri);
double est_compose_pass(const struct est *c, const struct replay_index *ri,
                        const struct estimate *out, const double *dev_s, double host_s);

/* est_mc.c */
void est_pass_interval(const struct est *c, const struct replay_index *ri,
                       const struct estimate_opts *o, double host_s, double *dev_s);

#endif
