/* A workload profile: the ops of ONE training pass (one minibatch step),
 * reduced from whatever trace the user had.  Every count, time, flop and
 * byte figure here is per pass (totals over the profiled steps divided by
 * the number of steps). */
#ifndef FOM_PROFILE_H
#define FOM_PROFILE_H
#include <stddef.h>
#include <stdint.h>

#include "model/precision.h"

enum op_kind {
    OP_GEMM, OP_CONV, OP_RNN, OP_ATTENTION, OP_ELEMENTWISE, OP_REDUCTION,
    OP_NORM, OP_EMBEDDING, OP_OPTIMIZER, OP_MEMCPY, OP_COMM, OP_OTHER,
    OP_KIND_COUNT,
};

enum op_phase { PHASE_FORWARD, PHASE_BACKWARD, PHASE_OPTIMIZER, PHASE_UNKNOWN };

struct conv_shape {
    int64_t n, c, h, w;     /* input NCHW (1-D convs: h = 1) */
    int64_t k, r, s;        /* filters k of r x s (r along h) */
    int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
    int64_t p, q;           /* output h, w */
    /* 3-D convolutions: input depth d, filter depth t, output depth o;
     * 0 reads as 1 (and pad_d as 0) for 1-D and 2-D ones. */
    int64_t d, t, stride_d, pad_d, dil_d, o;
    int dims;               /* 1, 2 or 3 spatial dimensions; 0 = unknown (2) */
};

/* rnn, attention, norm, embedding, optimizer, elementwise/reduction: the
 * sizes a kernel table keys on, in the order of kernel_table.h's RNN_*,
 * ATT_*, NORM_*, EMB_*, OPT_* (elementwise: [0] elements of the largest
 * input); 0 where the trace does not say.  kop: the rnn cell or
 * norm/embedding op ("lstm", "layer_norm", "embedding_bag"; "" if
 * unknown); kmode: the embedding mode, or for a recurrent call that runs
 * one layer and direction of a stack (oneDNN's mkldnn_rnn_layer) the
 * stack's layers and directions, "2x1" ("" if unknown). */
struct op_table_sizes {
    int64_t kdim[6];
    char kop[32];
    char kmode[8];
};
/* An upsampling op (elementwise, aten::upsample_*) keeps after its
 * elements (kdim[0]) the sizes of a resample row (kernel_table.h RS_*):
 * batch, channels, output and input points; its kop is the row's op. */
enum { OP_RS_N = 2, OP_RS_C, OP_RS_OUT, OP_RS_IN };

struct op {
    char *name;             /* framework op name, e.g. "aten::addmm" */
    enum op_kind kind;
    enum op_phase phase;
    enum precision dtype;
    int kflag;              /* rnn bidirectional or attention causal, -1 when
                               the trace does not say */
    double count;           /* occurrences per pass */
    double time_s;          /* measured time per pass (all occurrences):
                               device time when the trace has a device,
                               else host time */
    double device_time_s;   /* per pass, sum of its kernels; 0 if none */
    double host_time_s;     /* per pass, wall time of the op on the host */
    double kernels;         /* device kernel launches per pass */
    double events;          /* per pass, profiler events recorded inside its calls (ops
                               below them, kernel launches), whose recording cost was
                               taken out of host_time_s (Kineto traces; 0 when unknown) */
    double flops;           /* per pass */
    double bytes;           /* per pass, moved to/from memory (estimate) */
    /* GEMM: C[m x n] = op(A)[m x k] op(B)[k x n], batch >= 1 for bmm.
     * RNN: batch = the sequential steps per call (time steps x layers). */
    int64_t m, n, k, batch;
    char a_t, b_t;          /* 'N' or 'T'; 0 when unknown */
    /* name and shapes point into the profile's string blocks
     * (profile_strndup) instead of being owned by the op */
    unsigned char strs_borrowed;
    /* OP_CONV only: the convolution's geometry, allocated by op_conv_mut
     * when a reader sets it, NULL when nothing was (op_conv reads it as
     * zeros).  Apart from the op because only convolutions need its
     * 184 bytes: a profile of a million distinct GEMMs would carry them
     * all for nothing. */
    struct conv_shape *conv;
    /* The kernel-table sizes (struct op_table_sizes), allocated by
     * op_sizes_mut when a reader sets them, NULL when nothing was
     * (op_sizes reads it as zeros): apart from the op for the same reason
     * as conv, GEMMs and convolutions have none. */
    struct op_table_sizes *sizes;
    char *shapes;           /* input shapes as text, e.g. "[100, 29532], [1000, 29532]" */
    char *flags;            /* notes such as "ambiguous-orientation", or NULL */
    size_t id;              /* what op_call.op_id refers to (Kineto traces) */
};

/* One op call in issue order, so that a step can be replayed: the host
 * issues calls one after the other and the device runs their kernels as
 * soon as both the launch and the device allow (Kineto traces only). */
struct op_call {
    size_t op_id;           /* the op's `id` (ops are sorted and cut after reading) */
    int step;               /* profiled step, 0-based */
    double host_start_s;    /* host busy time since the step began (idle gaps left out) */
    double host_s;          /* host time of the call */
    double device_s;        /* device busy time of its kernels: the union of their
                               intervals, so kernels on parallel streams count once */
    double events;          /* profiler events recorded inside the call (see op.events) */
};

/* A block of the profile's strings (profile_strndup). */
struct str_block {
    struct str_block *next;
    size_t used, size;
    char text[];
};

struct profile {
    char *source;           /* path it was read from */
    char *format;           /* "kineto", "tfprof", "tf-timeline", "pt-table", "profile-json", ... */
    char *device_name;      /* GPU name from deviceProperties, or NULL (host only) */
    char *framework;        /* e.g. "PyTorch 2.11.0", or NULL */
    int steps;              /* profiled steps the per-pass figures came from */
    int has_device;         /* times are device times */
    int64_t batch;          /* minibatch size if known, else 0 */
    enum precision dtype;   /* dominant precision of the gemm/conv ops */
    struct op *ops;
    size_t n_ops, alloc_ops;
    double total_time_s;    /* sum of op time_s per pass (of the kept ops) */
    double step_time_s;     /* wall time of one step when the trace shows it, else 0 */
    double host_time_s;     /* host-side busy time per step (dispatch), else 0 */
    /* What recording one event costs the host, the trace's own measure
     * of it (0 when unknown).  PyTorch's profiler takes an op's start
     * time after its entry callbacks (input shapes, flops arguments) and
     * its end time before its exit callbacks, so a child's recording lies
     * in its parent's time outside the child: between the parent's start
     * and its first child's start (the entry) and between its last
     * child's end and its own end (the exit).  Those two spans also hold
     * some of the parent's own work; their medians over every parent of
     * the trace, summed, are the typical event's cost (the least span is
     * the cheapest event's: an op with few inputs records less). */
    double event_gap_s;
    /* Host time per pass taken out of host_time_s (of the profile, its ops
     * and its calls) as the profiler's: each op's and call's recorded
     * events x event_gap_s; the host times above are the program's. */
    double profiler_host_s;
    /* The run's step time measured without the profiler (a harness's
     * .meta.json beside the trace, kept in a saved profile) and the file
     * it came from; 0 / NULL when unknown.  It calibrates the host times
     * of the estimate (struct estimate: host_scale). */
    double measured_step_s;
    double measured_step_lo_s, measured_step_hi_s;  /* its median's 95% interval, 0: none */
    char *measured_step_from;
    double coverage;        /* fraction of the full pass time the kept ops cover */
    double dropped_time_s;  /* time of ops dropped by --top */
    size_t dropped_ops;
    struct op_call *calls;  /* every profiled step's calls in issue order, or NULL */
    size_t n_calls, alloc_calls;
    struct str_block *strs; /* op names and shapes that ops borrow, or NULL */
};

const char *op_kind_name(enum op_kind k);       /* "gemm" ... */
enum op_kind op_kind_parse(const char *s);      /* OP_KIND_COUNT if unknown */
const char *op_phase_name(enum op_phase p);     /* "forward", "backward", "optimizer", "unknown" */
enum op_phase op_phase_parse(const char *s);

/* The longest op or kernel name kept, in bytes: every reader cuts longer
 * names there (a name is text for people and for the name rules, which
 * read its start).  16 KiB: three times the longest name in the shipped
 * traces, a 5123-byte templated CUDA kernel name
 * (tests/data/traces/third-party/kineto_simple_add_pair_of_et.json.gz). */
#define OP_NAME_MAX 16384
/* How many of the len bytes of name s to keep: len up to OP_NAME_MAX,
 * else OP_NAME_MAX less the bytes of a UTF-8 sequence the cut would
 * split. */
size_t op_name_len(const char *s, size_t len);

/* A dense or grouped convolution along one axis: 1-D, or 2-D over rows of
 * height 1 with filters of height 1, as oneDNN is handed a Conv1d (its
 * trace shows [N, C, 1, W] inputs where the GPU's shows [N, C, W]). */
int conv_shape_1d(const struct conv_shape *c);
/* One group and no dilation too: what a table's 1-D rows time
 * (kernel_lookup.c, est_lookup.c, est_eff.c). */
int conv_shape_dense_1d(const struct conv_shape *c);

/* o's convolution geometry, all zeros when it has none: never NULL. */
const struct conv_shape *op_conv(const struct op *o);
/* o's convolution geometry to be set, allocated (zeroed) on first use and
 * freed with the op (profile_release, op_release). */
struct conv_shape *op_conv_mut(struct op *o);
/* o's kernel-table sizes, all zeros when it has none: never NULL. */
const struct op_table_sizes *op_sizes(const struct op *o);
/* Whether o is an upsampling op whose resample sizes the trace gave
 * (OP_RS_N .. OP_RS_IN). */
int op_is_resample(const struct op *o);
/* o's kernel-table sizes to be set, allocated (zeroed) on first use and
 * freed with the op. */
struct op_table_sizes *op_sizes_mut(struct op *o);
/* A copy of the len bytes at s (and a NUL) that lives as long as p: for
 * op names and shapes of ops marked strs_borrowed, kept one after the
 * other in blocks rather than one allocation each. */
char *profile_strndup(struct profile *p, const char *s, size_t len);
/* Frees what o owns (name and shapes unless borrowed, flags, conv,
 * sizes), not o itself. */
void op_release(struct op *o);

void profile_init(struct profile *p);
/* Append a zeroed op and return it (owned by the profile). */
struct op *profile_add_op(struct profile *p);
/* Append flag to op->flags (comma-separated), unless it is already one of
 * them. */
void op_add_flag(struct op *op, const char *flag);
/* 1 when flag is one of op->flags' comma-separated entries. */
int op_has_flag(const struct op *op, const char *flag);
void profile_release(struct profile *p);  /* frees members, not p itself (README: ownership) */

#endif
