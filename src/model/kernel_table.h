/* Measured kernel tables (DeepBench style) of one piece of hardware, in
 * memory, and the lookups the estimator needs.  Pure: loading lives in
 * src/run/kernels.c (CSV readers in src/ingest/, SQLite in src/store/). */
#ifndef FOM_KERNEL_TABLE_H
#define FOM_KERNEL_TABLE_H
#include <stddef.h>
#include <stdint.h>

#include "model/precision.h"
#include "model/profile.h"

/* Kinds of measured kernel rows (the files of estimators/measure/FORMATS.md).
 * Names: "gemm", "conv", "eltwise", "rnn", "attention", "norm", "embedding",
 * "optimizer", "comm", "resample". */
enum kernel_kind {
    KERNEL_GEMM, KERNEL_CONV, KERNEL_ELTWISE, KERNEL_RNN, KERNEL_ATTENTION, KERNEL_NORM,
    KERNEL_EMBEDDING, KERNEL_OPTIMIZER, KERNEL_COMM, KERNEL_RESAMPLE, KERNEL_KIND_COUNT
};
/* Slots of kernel_row.time_s for conv rows (one row may hold all three). */
enum conv_pass { CONV_FWD, CONV_BWD_DATA, CONV_BWD_FILTER, CONV_PASS_COUNT };
/* A convolution row's memory layout (kernel_row.flag 0 or 1): cuDNN runs
 * other kernels for channels-last (NHWC) tensors than for contiguous ones. */
enum conv_layout { CONV_CONTIGUOUS, CONV_CHANNELS_LAST, CONV_LAYOUT_COUNT };
/* The pass a row (or query) times: FORMATS.md's `pass` column.  Conv rows
 * use bwd_data / bwd_weight; the optimizer only step; gemm, eltwise and
 * comm rows have no pass (KPASS_FWD). */
enum kernel_pass { KPASS_FWD, KPASS_BWD, KPASS_BWD_DATA, KPASS_BWD_WEIGHT, KPASS_STEP, KPASS_COUNT };

/* Size parameters of the kinds without fields of their own, in
 * kernel_row.dim / kernel_query.dim; each >= 1. */
#define KERNEL_DIMS_MAX 6
/* RNN_PROJ: an LSTM's projection size (proj_size), 0 without; no table
 * keys on it (tables time layers without projections, est_lookup.c) */
enum { RNN_INPUT, RNN_HIDDEN, RNN_LAYERS, RNN_SEQ, RNN_BATCH, RNN_PROJ };
enum { ATT_BATCH, ATT_HEADS, ATT_Q_LEN, ATT_KV_LEN, ATT_HEAD_DIM };
enum { NORM_N, NORM_C, NORM_S, NORM_GROUPS };
enum { EMB_ROWS, EMB_DIM, EMB_LOOKUPS, EMB_BATCH };
enum { OPT_PARAMS, OPT_TENSORS };
enum { COMM_RANKS, COMM_BYTES };
/* resample: batch, channels, output and input points (h x w, d x h x w) */
enum { RS_N, RS_C, RS_OUT, RS_IN };
/* The ops of resample rows: PyTorch's upsampling ops without "aten::",
 * a leading '_' and "_backward" (the pass says which). */
#define KERNEL_RESAMPLE_OPS                                                                  \
    "upsample_nearest1d,upsample_linear1d,upsample_nearest2d,upsample_bilinear2d,"             \
    "upsample_bicubic2d,upsample_nearest3d,upsample_trilinear3d,upsample_nearest_exact1d,"     \
    "upsample_nearest_exact2d,upsample_nearest_exact3d,upsample_bilinear2d_aa,"               \
    "upsample_bicubic2d_aa"

struct kernel_row {
    enum kernel_kind kind;
    enum precision prec;
    enum kernel_pass pass;          /* rnn, attention, norm, embedding, optimizer */
    /* gemm; batch > 1: a batched GEMM (bmm) of batch m x n x k products */
    int64_t m, n, k, batch;
    char a_t, b_t;                  /* 'N' or 'T' */
    /* conv: input n x c x d x h x w, k filters t(=f_d) x r(=f_h) x s(=f_w);
     * dims 1: d = h = 1; dims 2: d = 1.  0 in d/t/strides/dilations/groups
     * reads as 1 (rows of the older 2-D form). */
    int64_t n_, c, d, h, w, kf, t, r, s, pad_d, pad_h, pad_w, stride_d, stride_h, stride_w;
    int64_t dil_d, dil_h, dil_w, groups;
    int dims;                       /* conv: 1, 2 or 3 (0 = 2, the older form) */
    /* rnn .. comm: the size parameters (RNN_*, ATT_*, ... above) */
    int64_t dim[KERNEL_DIMS_MAX];
    char *op;                       /* eltwise/norm/embedding/optimizer/comm op, rnn cell */
    char *mode;                     /* embedding mode, optimizer form, comm backend,
                                       attention backend (informative only) */
    int flag;                       /* rnn bidirectional, attention causal, conv
                                       channels-last tensors (0/1) */
    double elements, bytes;         /* eltwise; optimizer bytes; comm bytes is dim[COMM_BYTES] */
    /* times in seconds; conv rows hold one time per pass */
    double time_s[CONV_PASS_COUNT]; /* others: [0]; 0 = not measured */
    double time_lo_s, time_hi_s;    /* p05/p95 (or min/max) of [0]; 0 if absent */
    double time_loop_s;             /* mean of back-to-back calls (DeepBench's way); 0 if absent */
    int reps;
    char *source;                   /* "deepbench_train", "grid", file name... */
};

/* In kernel_table.software: the rows were timed one call at a time by
 * events around the call (estimators/measure/measure.py), so a row shorter
 * than the host's dispatch of one call holds that dispatch. */
#define KERNEL_TIMED_PER_CALL "timed per call by estimators/measure/measure.py"

/* In kernel_table.software: cuDNN chose convolution algorithms by timing
 * them (torch.backends.cudnn.benchmark = True), not by its heuristics,
 * PyTorch's default.  The two choices give different kernels for one
 * shape, so a ratio of rows of the two kinds says nothing about devices. */
#define KERNEL_CUDNN_AUTOTUNED "cuDNN algorithms autotuned"

struct kernel_table {
    char *hw;                       /* hardware name, e.g. "NVIDIA H100 80GB HBM3" */
    char *origin;                   /* where the rows came from (paths, db) */
    char *software;                 /* e.g. "PyTorch 2.11.0, CUDA 13.0" or NULL */
    struct kernel_row *rows;
    size_t n_rows, alloc_rows;
    void *index;                    /* private lookup index, built lazily */
    void *lookup_index;             /* private index of kernel_table_lookup */
};

enum lookup_method { LOOKUP_NONE, LOOKUP_EXACT, LOOKUP_INTERP, LOOKUP_EXTRAP };

struct kernel_estimate {
    double time_s;                  /* estimated time of one call */
    double time_lo_s, time_hi_s;    /* spread from the rows' p05/p95, 0 if unknown */
    enum lookup_method method;
    int neighbours;                 /* rows the estimate used */
    int above;                      /* extrapolated above the rows' sizes only */
    /* conv: the dilated-over-undilated ratio of the table's dilated rows
     * applied to a dilated query (0: undilated or an exact row; -1:
     * dilated, and the table measured no dilation) */
    double dilation;
};

/* ------------------------------------------------------------------ */
/* kernel_table_lookup: one call for every kind                        */

/* What to look up: one call of one kernel.  Zero the struct, set kind,
 * prec, pass and the fields of the kind:
 *   gemm       m, n, k, batch (0 or 1: plain GEMM), a_t, b_t ('N'/'T', 0 = any)
 *   conv       conv (dims from conv.d: 0/1 = 2-D or 1-D), pass KPASS_FWD,
 *              KPASS_BWD_DATA, KPASS_BWD_WEIGHT or KPASS_BWD (data + weight),
 *              flag = channels-last tensors
 *   eltwise    op (NULL: any op) and bytes (read + written)
 *   rnn        op = cell ("lstm", "gru", "rnn_tanh"), flag = bidirectional,
 *              dim[RNN_*], pass KPASS_FWD or KPASS_BWD
 *   attention  flag = causal, dim[ATT_*], pass
 *   norm       op ("batch_norm", "layer_norm", "rms_norm", "group_norm"),
 *              dim[NORM_*] (groups 1 unless group norm), pass
 *   embedding  op ("embedding", "embedding_bag"), mode ("none", "sum",
 *              "mean", "max"), dim[EMB_*], pass
 *   optimizer  op ("sgd", "sgd_momentum", "adam", "adamw"), mode = form
 *              ("single", "foreach", "fused"), dim[OPT_*]; pass KPASS_STEP
 *   comm       op ("all_reduce", ...), mode = backend (NULL: any),
 *              dim[COMM_RANKS], dim[COMM_BYTES]
 *   resample   op ("upsample_bilinear2d", ...), dim[RS_*], pass */
struct kernel_query {
    enum kernel_kind kind;
    enum precision prec;
    enum kernel_pass pass;
    int64_t m, n, k, batch;
    char a_t, b_t;
    struct conv_shape conv;
    const char *op, *mode;
    int flag;
    int64_t dim[KERNEL_DIMS_MAX];
    double bytes;
};

/* The answer.  Interpolation runs in natural-log space over the kind's
 * size parameters ("axes", named by kernel_hit_axis_name):
 *   gemm       log m, log n, log k (+ log batch for batched rows)
 *   conv       its implicit GEMM per group: log(N*out spatial),
 *              log(K/groups), log(C/groups * filter volume); log N; log groups
 *   eltwise    log bytes
 *   resample   log planes (n x c), log output points, log input points
 *   the others log dim[0..], as many as the kind has
 * and only among rows of the same categorical parameters: precision,
 * pass, and cell / direction / causal / op / mode / groups class (dense,
 * depthwise, grouped) / memory layout as the kind has them.
 *
 * distance: Euclidean distance, in those log axes, from the query to the
 * nearest measured row of its category: 0 for an exact row, ln 2 ~ 0.69
 * for a shape twice as large as the nearest row in one axis.
 * outside[a]: -1 the query lies below every row of its category on axis
 * a, +1 above, 0 inside the measured range of that axis; method is
 * LOOKUP_EXTRAP when any axis is outside (or, for conv, the batch is),
 * LOOKUP_INTERP when inside, LOOKUP_EXACT for a row of the same shape. */
struct kernel_hit {
    double time_s;                  /* one call; 0 when method is LOOKUP_NONE */
    double time_lo_s, time_hi_s;    /* spread from the rows' p05/p95, 0 if unknown */
    enum lookup_method method;
    int neighbours;                 /* rows the estimate used */
    double distance;                /* see above; -1 when method is LOOKUP_NONE */
    int n_axes;
    signed char outside[KERNEL_DIMS_MAX];
    const struct kernel_row *row;   /* the row of an exact hit (owned by the table), else NULL */
    int filter_unmeasured;          /* dense or grouped conv: no row of the query's spatial
                                       dimensions has its filter volume inside their measured
                                       range (LOOKUP_EXTRAP; kernel_lookup.c says why) */
    int head_padded;                /* attention: the query's head dim is below every row's;
                                       timed at the smallest measured (kernel_lookup.c) */
};

/* Look q up in t.  Returns 0 with *hit filled, or -1 with hit->method
 * LOOKUP_NONE when t has no row of q's kind, precision and categorical
 * parameters (the caller falls back to its model), or q is malformed
 * (a size < 1).  Rows of other precisions are never used. */
int kernel_table_lookup(const struct kernel_table *t, const struct kernel_query *q,
                        struct kernel_hit *hit);
/* The query of one call of profile op o in pass `pass` (ignored for gemm
 * and elementwise): its kind from o->kind (elementwise and reduction ops
 * are eltwise queries of any op, bytes per call), its shape from o's
 * fields (m..b_t, conv, kdim/kop/kmode/kflag).  Returns 0, or -1 for an
 * op without a table kind (memcpy, comm, optimizer, other) or whose shape
 * the profile does not give.  q borrows o's strings.  An attention op
 * whose causal flag is unknown is looked up as not causal. */
int kernel_query_from_op(const struct op *o, enum kernel_pass pass, struct kernel_query *q);
/* Name of axis a of kind ("m", "gemm_m", "q_len", ...), NULL past the last. */
const char *kernel_hit_axis_name(enum kernel_kind kind, int a);
/* Size-parameter names of the kinds with dim[] ("input", "hidden", ...),
 * as in the CSV headers; NULL past the last.  *n_out: their count. */
const char *const *kernel_kind_dims(enum kernel_kind kind, int *n_out);
const char *kernel_pass_name(enum kernel_pass p);   /* "fwd", "bwd", "bwd_data", ... */
enum kernel_pass kernel_pass_parse(const char *s);  /* KPASS_COUNT if unknown */

/* ------------------------------------------------------------------ */
/* Older per-kind lookups (kept while the estimator moves to the above) */

const char *kernel_kind_name(enum kernel_kind k);   /* "gemm", "conv", "eltwise", ... */
enum kernel_kind kernel_kind_parse(const char *s);  /* KERNEL_KIND_COUNT if unknown */
const char *lookup_method_name(enum lookup_method m); /* "exact", "interp", "extrap", "none" */

/* Each returns 0 with *out filled, or -1 when the table has no rows of that
 * kind and precision (the caller falls back to the roofline and warns). */
int kernel_table_gemm(const struct kernel_table *t, enum precision p,
                      int64_t m, int64_t n, int64_t k, char a_t, char b_t,
                      struct kernel_estimate *out);
/* A dense 2-D convolution among the rows of one memory layout (-1 when
 * the table has none of that layout, precision and pass). */
int kernel_table_conv(const struct kernel_table *t, enum precision p,
                      const struct conv_shape *cs, enum conv_pass pass, enum conv_layout layout,
                      struct kernel_estimate *out);
/* The bytes (1 to 16) that every row of an m x n x k GEMM of elements of
 * elem_bytes is a multiple of: 16 lets its kernels load 16-byte vectors,
 * less restricts them to narrower loads (a measured property of the
 * kernels, kernel_table.c). */
int kernel_table_gemm_align_bytes(int elem_bytes, double m, double n, double k);
/* The kernels' class of a GEMM of precision p whose rows are aligned to
 * align_b bytes: 2 for 16 (kernels that load 16-byte vectors), 1 for 4
 * and 8, 0 for 2 and less; fp32 (IEEE, TF32 off) is one class, 2.  On an
 * H200 the bf16 GEMMs of sizes 2 and 4 mod 8 ran at the same rates
 * (medians 250 TFLOP/s), odd ones at 95-145, aligned ones at 740, and the
 * fp32 ones at 48-52 in every class: the classes are what the rates
 * separate (estimators/h200/h200_gemm_misaligned.csv; the H100's
 * DeepBench rows agree, odd fp32 at 50-51 and aligned at 53-54). */
int kernel_table_gemm_class(enum precision p, int align_b);
/* The best rate (FLOP/s) t's GEMM rows of precision p reach in the
 * alignment class of an m x n x k GEMM or a worse one; 0 when the GEMM is
 * aligned or fewer than four rows are that misaligned. */
double kernel_table_gemm_rate_cap(const struct kernel_table *t, enum precision p, double m, double n,
                                  double k);
/* The convolution row of t nearest to cs among the rows of its precision,
 * groups, dimensions, filter, strides, dilations and layout that time
 * pass `pass`, its shape in *row_shape; NULL when none
 * (src/model/kernel_lookup.c). */
const struct kernel_row *kernel_table_nearest_conv(const struct kernel_table *t, enum precision p,
                                                   const struct conv_shape *cs, int channels_last,
                                                   enum conv_pass pass, struct conv_shape *row_shape);
/* The layouts of the table's dense 2-D convolution rows in precision p:
 * bit 1 << CONV_CONTIGUOUS, bit 1 << CONV_CHANNELS_LAST. */
int kernel_table_conv_layouts(const struct kernel_table *t, enum precision p);
/* Memory-bound ops: time to move `bytes` from the measured bandwidth curve. */
int kernel_table_stream(const struct kernel_table *t, enum precision p,
                        double bytes, struct kernel_estimate *out);
int kernel_table_has(const struct kernel_table *t, enum kernel_kind kind, enum precision p);

void kernel_table_init(struct kernel_table *t);
struct kernel_row *kernel_table_add(struct kernel_table *t);  /* zeroed row */
void kernel_table_release(struct kernel_table *t);
/* Drop the lazily built index; call after editing rows in place (adding
 * rows through kernel_table_add does this already). */
void kernel_table_reindex(struct kernel_table *t);

/* A set of tables, one per hardware (several --kernels options). */
struct kernel_set {
    struct kernel_table *tables;
    size_t n, alloc;
};
void kernel_set_init(struct kernel_set *s);
void kernel_set_release(struct kernel_set *s);
/* The table for hw (case-insensitive, exact name), or NULL. */
const struct kernel_table *kernel_set_find(const struct kernel_set *s, const char *hw);
/* The table for hw, appended (empty, owned by the set) when absent. */
struct kernel_table *kernel_set_get(struct kernel_set *s, const char *hw);
/* Move every row of src into the same-named tables of dst (appended, so
 * they win over older rows with the same key); src is left empty. */
void kernel_set_take(struct kernel_set *dst, struct kernel_set *src);

/* The convolution geometry of a KERNEL_CONV row (zeros where the row
 * has none), as a profile's op holds it. */
void kernel_row_conv(const struct kernel_row *r, struct conv_shape *c);

/* Internal to src/model/kernel_*.c: the order of exact keys (kind first
 * is the caller's business) and the release of kernel_table_lookup's index. */
int kernel_row_key_cmp(const struct kernel_row *a, const struct kernel_row *b);
void kernel_lookup_index_free(void *ix);
/* Row indices of one kind and precision in key order, one per key (the
 * row added last); *n their count.  Owned by the table's index. */
const size_t *kernel_table_keys(const struct kernel_table *t, enum kernel_kind kind, enum precision p,
                                size_t *n);

#endif
