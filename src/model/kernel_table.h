/* Measured kernel tables (DeepBench style) of one piece of hardware, in
 * memory, and the lookups the estimator needs.  Pure: loading lives in
 * src/run/kernels.c (CSV readers in src/ingest/, SQLite in src/store/). */
#ifndef FOM_KERNEL_TABLE_H
#define FOM_KERNEL_TABLE_H
#include <stddef.h>
#include <stdint.h>

#include "model/precision.h"
#include "model/profile.h"

enum kernel_kind { KERNEL_GEMM, KERNEL_CONV, KERNEL_ELTWISE, KERNEL_KIND_COUNT };
enum conv_pass { CONV_FWD, CONV_BWD_DATA, CONV_BWD_FILTER, CONV_PASS_COUNT };

struct kernel_row {
    enum kernel_kind kind;
    enum precision prec;
    /* gemm */
    int64_t m, n, k;
    char a_t, b_t;                  /* 'N' or 'T' */
    /* conv: NCHW input n x c x h x w, k filters r(=f_h) x s(=f_w) */
    int64_t n_, c, h, w, kf, r, s, pad_h, pad_w, stride_h, stride_w;
    /* eltwise */
    char *op;                       /* "copy", "add", ... or NULL */
    double elements, bytes;
    /* times in seconds; conv rows hold one time per pass */
    double time_s[CONV_PASS_COUNT]; /* gemm/eltwise: [0]; 0 = not measured */
    double time_lo_s, time_hi_s;    /* p05/p95 (or min/max) of [0]; 0 if absent */
    double time_loop_s;             /* mean of back-to-back calls (DeepBench's way); 0 if absent */
    int reps;
    char *source;                   /* "deepbench_train", "grid", file name... */
};

struct kernel_table {
    char *hw;                       /* hardware name, e.g. "NVIDIA H100 80GB HBM3" */
    char *origin;                   /* where the rows came from (paths, db) */
    char *software;                 /* e.g. "PyTorch 2.11.0, CUDA 13.0" or NULL */
    struct kernel_row *rows;
    size_t n_rows, alloc_rows;
    void *index;                    /* private lookup index, built lazily */
};

enum lookup_method { LOOKUP_NONE, LOOKUP_EXACT, LOOKUP_INTERP, LOOKUP_EXTRAP };

struct kernel_estimate {
    double time_s;                  /* estimated time of one call */
    double time_lo_s, time_hi_s;    /* spread from the rows' p05/p95, 0 if unknown */
    enum lookup_method method;
    int neighbours;                 /* rows the estimate used */
};

const char *kernel_kind_name(enum kernel_kind k);   /* "gemm", "conv", "eltwise" */
enum kernel_kind kernel_kind_parse(const char *s);  /* KERNEL_KIND_COUNT if unknown */
const char *lookup_method_name(enum lookup_method m); /* "exact", "interp", "extrap", "none" */

/* Each returns 0 with *out filled, or -1 when the table has no rows of that
 * kind and precision (the caller falls back to the roofline and warns). */
int kernel_table_gemm(const struct kernel_table *t, enum precision p,
                      int64_t m, int64_t n, int64_t k, char a_t, char b_t,
                      struct kernel_estimate *out);
int kernel_table_conv(const struct kernel_table *t, enum precision p,
                      const struct conv_shape *cs, enum conv_pass pass,
                      struct kernel_estimate *out);
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

#endif
