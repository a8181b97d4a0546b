/* The distinct kernel shapes of one or more profiles (`fom kernels
 * shapes`), in the shapes-file form of estimators/measure/FORMATS.md:
 * one row per kind, precision, op and shape, with the calls per pass and
 * the share of the pass time.  Pure: rendering is report/shapes_render.c. */
#ifndef FOM_KERNEL_SHAPES_H
#define FOM_KERNEL_SHAPES_H
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* Integer columns of the shapes file, in its column order after kind, op,
 * cell, mode, precision, a_t and b_t (kernel_shape_col_name). */
enum {
    KS_M, KS_N, KS_K, KS_BATCH, KS_DIMS, KS_C, KS_D, KS_H, KS_W, KS_F_D, KS_F_H, KS_F_W,
    KS_PAD_D, KS_PAD_H, KS_PAD_W, KS_STRIDE_D, KS_STRIDE_H, KS_STRIDE_W, KS_DIL_D, KS_DIL_H,
    KS_DIL_W, KS_GROUPS, KS_INPUT, KS_HIDDEN, KS_LAYERS, KS_SEQ, KS_BIDIRECTIONAL, KS_HEADS,
    KS_Q_LEN, KS_KV_LEN, KS_HEAD_DIM, KS_CAUSAL, KS_S, KS_ROWS, KS_DIM, KS_LOOKUPS, KS_PARAMS,
    KS_TENSORS, KS_ELEMENTS, KS_COL_COUNT
};
#define KS_EMPTY INT64_MIN      /* a cell that does not apply to the row's kind */

struct kernel_shape {
    enum op_kind kind;          /* gemm, conv, rnn, attention, norm, embedding,
                                   elementwise, reduction, optimizer */
    enum precision prec;
    char op[32];                /* norm/embedding/elementwise/optimizer op, "" else */
    char cell[16];              /* rnn cell, "" else */
    char mode[8];               /* embedding mode, "" else */
    char layout[16];            /* conv: "contiguous" or "channels-last", "" else */
    char a_t, b_t;              /* gemm: 'N'/'T'; 0 else */
    int64_t col[KS_COL_COUNT];  /* KS_EMPTY where the kind has no such column */
    double bytes;               /* elementwise/reduction: per call; 0 else */
    double count;               /* calls per pass, summed over the profiles */
    double time_s;              /* time per pass, summed over the profiles */
    double share;               /* time_s / the summed pass times */
};

struct kernel_shapes {
    struct kernel_shape *rows;
    size_t n, alloc;
    double pass_time_s;         /* summed pass times of the profiles */
    size_t skipped[OP_KIND_COUNT]; /* ops of a shape kind whose shape the trace lacks */
};

void kernel_shapes_init(struct kernel_shapes *s);
void kernel_shapes_release(struct kernel_shapes *s);
/* Add the ops of p (one pass each). */
void kernel_shapes_add(struct kernel_shapes *s, const struct profile *p);
/* Sort by kind, then by share (largest first), and set each share. */
void kernel_shapes_finish(struct kernel_shapes *s);
/* Name of integer column c ("m", ..., "elements"). */
const char *kernel_shape_col_name(int c);

#endif
