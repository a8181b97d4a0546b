/* The gradient exchange of a data-parallel run: how long an all-reduce
 * takes on a machine (alpha-beta model of ring and tree algorithms,
 * hierarchical inside then across nodes, or a measured time where a
 * `comm` table covers the message and the rank count), and how much of it
 * the backward pass hides when gradients are exchanged in buckets as they
 * are produced.  Pure functions of their arguments: no I/O.
 *
 * Notation (every term below is reported so that a reader can redo the
 * sum by hand from the machine file):
 *   n        bytes all-reduced per rank (one bucket)
 *   g        ranks of the run on one node (devices used per node)
 *   N        nodes of the run (ranks / g)
 *   b_intra  intra-node link bandwidth per device per direction
 *   a_intra  intra-node latency per ring step
 *   B_node   the node's injection bandwidth (NICs x bandwidth per NIC)
 *   a_inter  inter-node latency per step
 *   a_0      fixed cost of one collective call (COMM_CALL_LATENCY_S)
 * All-reduce of n bytes over g x N ranks:
 *   inside the node, a ring reduce-scatter then a ring all-gather:
 *     2 (g-1)/g x n / b_intra + 2 (g-1) x a_intra
 *   across nodes, the g shards of n/g bytes at once, sharing B_node, so
 *   each moves at B_node / g; the faster of
 *     ring: 2 (N-1)/N x n / B_node + 2 (N-1) x a_inter
 *     tree: 2 x n / B_node + 2 ceil(log2 N) x a_inter
 *   (the double binary tree of NCCL 2.4: each rank sends and receives the
 *   whole message once in the reduce and once in the broadcast)
 *   plus a_0. */
#ifndef FOM_COMM_H
#define FOM_COMM_H
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"

/* Fixed host and launch cost of one collective call: NCCL's own cost
 * model puts 8.4 us on a ring all-reduce with the Simple protocol, the one
 * it picks for buckets of megabytes (NVIDIA/nccl src/graph/tuning.cc,
 * baseLat[Ring][Simple]). */
#define COMM_CALL_LATENCY_S 8.4e-6

/* PyTorch DistributedDataParallel's default bucket_cap_mb = 25, which it
 * turns into int(25 * 1024 * 1024) bytes (torch/nn/parallel/distributed.py);
 * the first bucket (the last layers, whose gradients come first) is capped
 * at dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB so that the exchange starts
 * early. */
#define COMM_DDP_BUCKET_B (25.0 * 1024 * 1024)
#define COMM_DDP_FIRST_BUCKET_B (1024.0 * 1024)

/* Gradients are exchanged in fp32: mixed precision (autocast) keeps fp32
 * parameters, and DDP all-reduces gradients in the parameters' dtype. */
#define COMM_GRAD_BYTES_PER_PARAM 4.0

enum comm_algo { COMM_NONE, COMM_RING, COMM_TREE };
const char *comm_algo_name(enum comm_algo a);   /* "none", "ring", "tree" */

/* Ring all-reduce of bytes over p ranks: 2 (p-1)/p x bytes / bw_bs +
 * 2 (p-1) x latency_s.  0 for p = 1; NaN for invalid input. */
double comm_ring_allreduce_s(double bytes, int64_t p, double bw_bs, double latency_s);
/* Double binary tree all-reduce: 2 x bytes / bw_bs + 2 ceil(log2 p) x
 * latency_s.  0 for p = 1; NaN for invalid input. */
double comm_tree_allreduce_s(double bytes, int64_t p, double bw_bs, double latency_s);

/* A measured all-reduce time (a row of a `comm` kernel table). */
struct comm_point {
    int64_t ranks;
    double bytes;           /* per rank */
    double time_s;
};

/* Where an all-reduce time came from. */
enum comm_source { COMM_FROM_MACHINE, COMM_FROM_TABLE };
const char *comm_source_name(enum comm_source s);   /* "machine", "table" */

/* One all-reduce, with every term of the sum. */
struct comm_allreduce {
    double bytes;
    int64_t ranks, per_node, nodes;     /* ranks = per_node x nodes */
    enum comm_source source;
    /* machine model terms (0 when the level is not crossed) */
    double intra_bw_s, intra_lat_s;
    double inter_bw_s, inter_lat_s;
    enum comm_algo inter_algo;
    double call_s;                      /* a_0 */
    double machine_s;                   /* the machine model's total (NaN when the
                                           machine file lacks a link the run
                                           crosses and the table gave the time) */
    double time_s;                      /* the total used: the table's or machine_s */
};

/* All-reduce of bytes per rank over ranks devices of machine m, the run
 * spread over whole nodes when ranks exceed a node.  table (n_table
 * points, may be NULL) holds measured all-reduce times on one host: it is
 * used when the run fits in one node, the table has rows at exactly that
 * rank count, and bytes lies within their sizes (log-log interpolation
 * between the two nearest sizes); otherwise the machine model.  Returns 0,
 * or -1 with *why set (a static string) when the machine lacks the link
 * the run crosses, or ranks neither fit in a node nor fill whole nodes. */
int comm_allreduce(double bytes, int64_t ranks, const struct machine *m,
                   const struct comm_point *table, size_t n_table,
                   struct comm_allreduce *out, const char **why);

/* The all-reduce rows of a measured kernel table (kind comm, op
 * all_reduce, precision fp32: gradients are exchanged in fp32) as
 * comm_points, in *out (owned by the caller; NULL when there are none).
 * Returns their count. */
struct kernel_table;
size_t comm_points_from_table(const struct kernel_table *t, struct comm_point **out);

/* The gradient exchange of one training step of a DDP run. */
struct comm_step {
    double grad_bytes;          /* parameters x COMM_GRAD_BYTES_PER_PARAM */
    size_t n_buckets;
    size_t n_from_table;        /* buckets timed from the measured table */
    double bucket_b;            /* size of a full bucket */
    double backward_s;          /* time the backward pass lasts (the window) */
    double total_s;             /* all buckets' exchange times, summed */
    double exposed_s;           /* what the step waits for after the backward pass */
    double last_bucket_s;       /* exchange time of the last bucket (never hidden) */
    struct comm_allreduce full; /* one all-reduce of a full bucket, for the report */
};

/* Buckets exchanged as the backward pass produces them.  Gradients are
 * taken to be produced at an even rate over backward_s (bucket k is ready
 * at backward_s x its cumulative share of grad_bytes); one exchange runs
 * at a time, in bucket order, each starting when its bucket is ready and
 * the previous exchange is done.  The exposed time is what runs past the
 * end of the backward pass: at least the last bucket's exchange, which
 * cannot start before the backward pass ends.  backward_s 0 exposes all
 * of it.  Returns 0, or -1 with *why as comm_allreduce. */
int comm_step_exchange(double parameters, double backward_s, int64_t ranks,
                       const struct machine *m, const struct comm_point *table,
                       size_t n_table, struct comm_step *out, const char **why);

/* Trained parameters as the profile says them: the multi-tensor optimizer
 * ops (aten::_foreach_*, aten::_fused_*) take the parameter list as their
 * first argument, so with recorded shapes the sum of its tensors' element
 * counts is the parameter count; the largest such sum over those ops is
 * returned (momentum and state lists have the same shapes).  0 when the
 * profile has no such op with shapes (single-tensor optimizers, traces
 * without shapes). */
struct profile;
double comm_profile_parameters(const struct profile *p);

#endif
