/* All-reduce times and their overlap with the backward pass; the model
 * and its sources are described in comm.h. */
#include "model/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/kernel_table.h"
#include "model/profile.h"

const char *comm_algo_name(enum comm_algo a)
{
    return a == COMM_RING ? "ring" : a == COMM_TREE ? "tree" : "none";
}

const char *comm_source_name(enum comm_source s)
{
    return s == COMM_FROM_TABLE ? "table" : "machine";
}

static int bad_args(double bytes, int64_t p, double latency_s)
{
    return p < 1 || !(bytes >= 0) || !isfinite(bytes) || !(latency_s >= 0) || !isfinite(latency_s);
}

double comm_ring_allreduce_s(double bytes, int64_t p, double bw_bs, double latency_s)
{
    if (bad_args(bytes, p, latency_s))
        return NAN;
    if (p == 1)
        return 0;
    if (!(bw_bs > 0) || !isfinite(bw_bs))
        return NAN;
    double d = (double)p;
    return 2.0 * (d - 1.0) / d * bytes / bw_bs + 2.0 * (d - 1.0) * latency_s;
}

/* ceil(log2 p) for p >= 1, exactly (no floating-point log). */
static int ceil_log2(int64_t p)
{
    int k = 0;
    while (((int64_t)1 << k) < p && k < 62)
        k++;
    return k;
}

double comm_tree_allreduce_s(double bytes, int64_t p, double bw_bs, double latency_s)
{
    if (bad_args(bytes, p, latency_s))
        return NAN;
    if (p == 1)
        return 0;
    if (!(bw_bs > 0) || !isfinite(bw_bs))
        return NAN;
    return 2.0 * bytes / bw_bs + 2.0 * ceil_log2(p) * latency_s;
}

/* Measured time at exactly `ranks` ranks and `bytes`, interpolated in
 * log(time) over log(bytes) between the two nearest measured sizes; a
 * size outside the measured range is not extrapolated (returns 0). */
static int table_time(const struct comm_point *t, size_t n, int64_t ranks, double bytes,
                      double *time_s)
{
    const struct comm_point *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct comm_point *q = &t[i];
        if (q->ranks != ranks || !(q->bytes > 0) || !(q->time_s > 0))
            continue;
        if (q->bytes <= bytes && (!lo || q->bytes > lo->bytes))
            lo = q;
        if (q->bytes >= bytes && (!hi || q->bytes < hi->bytes))
            hi = q;
    }
    if (!lo || !hi)
        return 0;
    if (hi->bytes == lo->bytes) {
        *time_s = lo->time_s;
        return 1;
    }
    double f = log(bytes / lo->bytes) / log(hi->bytes / lo->bytes);
    *time_s = exp(log(lo->time_s) + f * log(hi->time_s / lo->time_s));
    return 1;
}

/* Split ranks into per_node x nodes on machine m. */
static int layout(int64_t ranks, const struct machine *m, struct comm_allreduce *o,
                  const char **why)
{
    int64_t dpn = m->devices_per_node > 0 ? m->devices_per_node : 1;
    if (ranks <= dpn) {
        o->per_node = ranks;
        o->nodes = 1;
        return 0;
    }
    if (ranks % dpn) {
        *why = "a run larger than one node must fill whole nodes (ranks a multiple of the "
               "devices per node)";
        return -1;
    }
    o->per_node = dpn;
    o->nodes = ranks / dpn;
    return 0;
}

static int machine_time(const struct machine *m, struct comm_allreduce *o, const char **why)
{
    double n = o->bytes;
    int64_t g = o->per_node, N = o->nodes;
    if (g > 1) {
        if (!(m->intra.bw_bs > 0)) {
            *why = "the machine file gives no intra-node link bandwidth";
            return -1;
        }
        double gg = (double)g;
        o->intra_bw_s = 2.0 * (gg - 1.0) / gg * n / m->intra.bw_bs;
        o->intra_lat_s = 2.0 * (gg - 1.0) * m->intra.latency_s;
    }
    if (N > 1) {
        if (!(m->inter.bw_bs > 0)) {
            *why = "the machine file gives no inter-node network bandwidth";
            return -1;
        }
        double NN = (double)N, B = m->inter.bw_bs, a = m->inter.latency_s;
        double ring_bw = 2.0 * (NN - 1.0) / NN * n / B, ring_lat = 2.0 * (NN - 1.0) * a;
        double tree_bw = 2.0 * n / B, tree_lat = 2.0 * ceil_log2(N) * a;
        int ring = ring_bw + ring_lat <= tree_bw + tree_lat;
        o->inter_algo = ring ? COMM_RING : COMM_TREE;
        o->inter_bw_s = ring ? ring_bw : tree_bw;
        o->inter_lat_s = ring ? ring_lat : tree_lat;
    }
    o->call_s = COMM_CALL_LATENCY_S;
    o->time_s = o->intra_bw_s + o->intra_lat_s + o->inter_bw_s + o->inter_lat_s + o->call_s;
    return 0;
}

int comm_allreduce(double bytes, int64_t ranks, const struct machine *m,
                   const struct comm_point *table, size_t n_table,
                   struct comm_allreduce *out, const char **why)
{
    struct comm_allreduce o = { 0 };
    o.bytes = bytes;
    o.ranks = ranks;
    o.source = COMM_FROM_MACHINE;
    o.inter_algo = COMM_NONE;
    *out = o;
    if (ranks < 1 || !(bytes >= 0) || !isfinite(bytes)) {
        *why = "an all-reduce needs one or more ranks and a finite size";
        return -1;
    }
    if (layout(ranks, m, &o, why))
        return -1;
    if (ranks == 1) {
        *out = o;
        return 0;
    }
    double t = 0;
    int from_table = o.nodes == 1 && table && table_time(table, n_table, ranks, bytes, &t);
    /* the machine model's terms are kept beside a table time, so that a
     * reader sees both; its failure matters only when it is the one used */
    if (machine_time(m, &o, why)) {
        if (!from_table)
            return -1;
        o.machine_s = NAN;
    } else {
        o.machine_s = o.time_s;
    }
    if (from_table) {
        o.source = COMM_FROM_TABLE;
        o.time_s = t;
    }
    *out = o;
    return 0;
}

size_t comm_points_from_table(const struct kernel_table *t, struct comm_point **out)
{
    size_t n = 0;
    *out = NULL;
    for (size_t i = 0; t && i < t->n_rows; i++) {
        const struct kernel_row *r = &t->rows[i];
        if (r->kind != KERNEL_COMM || r->prec != PREC_FP32 || !r->op ||
            strcmp(r->op, "all_reduce") != 0 || !(r->time_s[0] > 0))
            continue;
        if (!*out)
            *out = xcalloc(t->n_rows, sizeof **out);
        (*out)[n].ranks = r->dim[COMM_RANKS];
        (*out)[n].bytes = (double)r->dim[COMM_BYTES];
        (*out)[n].time_s = r->time_s[0];
        n++;
    }
    return n;
}

int comm_step_exchange(double parameters, double backward_s, int64_t ranks,
                       const struct machine *m, const struct comm_point *table,
                       size_t n_table, struct comm_step *out, const char **why)
{
    struct comm_step s = { 0 };
    s.grad_bytes = parameters * COMM_GRAD_BYTES_PER_PARAM;
    s.bucket_b = COMM_DDP_BUCKET_B;
    s.backward_s = backward_s > 0 && isfinite(backward_s) ? backward_s : 0;
    *out = s;
    if (!(parameters >= 0) || !isfinite(parameters)) {
        *why = "the gradient exchange needs a finite, non-negative parameter count";
        return -1;
    }
    if (comm_allreduce(COMM_DDP_BUCKET_B, ranks, m, table, n_table, &s.full, why))
        return -1;
    if (ranks == 1 || s.grad_bytes == 0) {
        *out = s;
        return 0;
    }
    /* Walk the buckets in the order the backward pass fills them: a 1 MiB
     * first one, then full ones, the remainder last. */
    double done_b = 0, free_at_s = 0;
    while (done_b < s.grad_bytes) {
        double cap = s.n_buckets == 0 ? COMM_DDP_FIRST_BUCKET_B : COMM_DDP_BUCKET_B;
        double b = fmin(cap, s.grad_bytes - done_b);
        struct comm_allreduce one;
        if (comm_allreduce(b, ranks, m, table, n_table, &one, why))
            return -1;
        done_b += b;
        double ready_s = s.backward_s * done_b / s.grad_bytes;
        free_at_s = fmax(free_at_s, ready_s) + one.time_s;
        s.total_s += one.time_s;
        s.last_bucket_s = one.time_s;
        s.n_buckets++;
        s.n_from_table += one.source == COMM_FROM_TABLE;
    }
    s.exposed_s = fmax(0.0, free_at_s - s.backward_s);
    *out = s;
    return 0;
}

/* Sum of the element counts of the first tensor list in shapes text such
 * as "[[1000, 29532], [1000]], [[...]], []": 0 when the text does not
 * start with a list of shapes. */
static double first_list_elements(const char *s)
{
    if (!s || s[0] != '[' || s[1] != '[')
        return 0;
    double sum = 0;
    const char *p = s + 1;
    while (*p == '[') {
        double prod = 1;
        char *end;
        p++;
        if (*p == ']')
            prod = 1;   /* a scalar tensor: one element */
        while (*p && *p != ']') {
            long long v = strtoll(p, &end, 10);
            if (end == p || v < 0)
                return 0;
            prod *= (double)v;
            p = end;
            while (*p == ',' || *p == ' ')
                p++;
        }
        if (*p != ']')
            return 0;
        sum += prod;
        p++;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return *p == ']' ? sum : 0;
}

double comm_profile_parameters(const struct profile *p)
{
    double best = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        if (o->kind != OP_OPTIMIZER || !o->name ||
            (strncmp(o->name, "aten::_foreach_", 15) != 0 && strncmp(o->name, "aten::_fused_", 13) != 0))
            continue;
        double n = first_list_elements(o->shapes);
        if (n > best)
            best = n;
    }
    return best;
}
