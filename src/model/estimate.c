#include "model/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/stats.h"

static const char *const method_names[EST_METHOD_COUNT] = {
    "table-exact", "table-interp", "roofline", "scaled", "scaled-table", "measured",
};
static const char *const bound_names[BOUND_COUNT] = { "compute", "memory", "latency", "host" };

const char *est_method_name(enum est_method m)
{
    return (unsigned)m < EST_METHOD_COUNT ? method_names[m] : "unknown";
}

const char *est_bound_name(enum est_bound b)
{
    return (unsigned)b < BOUND_COUNT ? bound_names[b] : "unknown";
}

void estimate_opts_init(struct estimate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->precision = PREC_UNKNOWN;
    o->mc_draws = EST_MC_DRAWS;
    o->mc_seed = EST_MC_SEED;
}

void estimate_init(struct estimate *e)
{
    memset(e, 0, sizeof *e);
    e->precision = PREC_UNKNOWN;
    e->batch_scale = 1;
    e->ci_level = EST_CI_LEVEL;
    e->pass_ci_lo_s = e->pass_ci_hi_s = NAN;
}

void estimate_release(struct estimate *e)
{
    for (size_t i = 0; i < e->n_warnings; i++)
        free(e->warnings[i]);
    free(e->warnings);
    free(e->ops);
    free(e->pass_draws);
    estimate_init(e);
}

/* ---------------------------------------------------------------- state */

#define MAX_FLAT 16

struct est {
    const struct profile *p;
    const struct machine *m;
    const struct machine *src_m;
    const struct kernel_table *tt;  /* target's table, or NULL */
    const struct kernel_table *st;  /* profiled device's table, or NULL */
    int same_device;                /* target is the profiled device */
    int src_gpu;                    /* profile holds device times */
    int tgt_gpu;                    /* target has a device apart from the host */
    enum precision want;
    int64_t b_old, b_new;
    /* Rows of flattened [batch, seq, ...] inputs (batch x seq), so that the
     * backward GEMMs of a transformer, whose inputs are already 2-D, are
     * still recognised as proportional to the batch. */
    int64_t flat[MAX_FLAT];
    size_t n_flat;
    struct estimate *out;
    struct diag *d;
    /* autocast: casts issued before each forward call of op i, and
     * their device time per call (see autocast_casts()) */
    double *cast_n, *cast_dev_s;
    double cast_one_s;              /* host time of one cast */
    size_t cast_op;                 /* out->ops entry of the casts, or SIZE_MAX */
};

static void est_warn(struct est *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Each distinct warning is given once: a fallback usually concerns
 * hundreds of ops and one line says it. */
static void est_warn(struct est *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->out->n_warnings; i++) {
        if (strcmp(c->out->warnings[i], strbuf_str(&sb)) == 0) {
            strbuf_release(&sb);
            return;
        }
    }
    diag_warn(c->d, "%s", strbuf_str(&sb));
    ALLOC_GROW(c->out->warnings, c->out->n_warnings + 1, c->out->alloc_warnings);
    c->out->warnings[c->out->n_warnings++] = strbuf_detach(&sb);
}

static int same_name(const char *a, const char *b)
{
    return a && b && *a && strcasecmp(a, b) == 0;
}

static int is_float(enum precision p)
{
    return p == PREC_FP32 || p == PREC_TF32 || p == PREC_BF16 || p == PREC_FP16;
}

static int is_matrix_kind(enum op_kind k)
{
    return k == OP_GEMM || k == OP_CONV || k == OP_RNN || k == OP_ATTENTION;
}

/* -------------------------------------------------------- shape parsing */

/* Calls fn for every bracketed group of integers in text such as
 * "[4, 1024, 768], [768, 2304], []". */
static void shape_groups(const char *s, void (*fn)(const int64_t *dims, int n, void *arg), void *arg)
{
    while (s && (s = strchr(s, '[')) != NULL) {
        int64_t dims[8];
        int n = 0;
        s++;
        while (*s && *s != ']') {
            if (*s >= '0' && *s <= '9') {
                char *end;
                long long v = strtoll(s, &end, 10);
                if (n < 8)
                    dims[n++] = v;
                s = end;
            } else if (*s == '[') {
                break;  /* nested list: restart from the inner group */
            } else {
                s++;
            }
        }
        if (n > 0)
            fn(dims, n, arg);
    }
}

static void collect_flat(const int64_t *dims, int n, void *arg)
{
    struct est *c = arg;
    if (n < 3 || dims[0] != c->b_old)
        return;
    int64_t rows = 1;
    for (int i = 0; i < n - 1; i++)
        rows *= dims[i];
    for (size_t i = 0; i < c->n_flat; i++)
        if (c->flat[i] == rows)
            return;
    if (c->n_flat < MAX_FLAT)
        c->flat[c->n_flat++] = rows;
}

struct lead_arg { const struct est *c; int hit; };

static void check_lead(const int64_t *dims, int n, void *arg)
{
    struct lead_arg *a = arg;
    if (n < 1)
        return;
    if (dims[0] == a->c->b_old)
        a->hit = 1;
    for (size_t i = 0; i < a->c->n_flat; i++)
        if (dims[0] == a->c->flat[i])
            a->hit = 1;
}

static int is_flat(const struct est *c, int64_t v)
{
    for (size_t i = 0; i < c->n_flat; i++)
        if (v == c->flat[i])
            return 1;
    return 0;
}

/* ------------------------------------------------------------ op shapes */

/* The shape an op is estimated at: the profiled one, retargeted. */
struct shape {
    enum precision prec;
    int64_t m, n, k, nb;        /* gemm (nb: bmm batch, >= 1) */
    struct conv_shape conv;
    double calls;               /* calls per pass */
    double kernels;             /* kernel launches per pass */
    double flops, bytes;        /* per pass */
};

static enum precision op_prec(const struct profile *p, const struct op *op)
{
    if ((unsigned)op->dtype < PREC_COUNT)
        return op->dtype;
    if ((unsigned)p->dtype < PREC_COUNT)
        return p->dtype;
    return PREC_FP32;
}

static void shape_of(const struct est *c, const struct op *op, struct shape *s)
{
    memset(s, 0, sizeof *s);
    s->prec = op_prec(c->p, op);
    s->m = op->m;
    s->n = op->n;
    s->k = op->k;
    s->nb = op->batch > 0 ? op->batch : 1;
    s->conv = op->conv;
    s->calls = op->count > 0 ? op->count : 1;
    s->kernels = op->kernels > 0 ? op->kernels : s->calls;
    s->flops = op->flops;
    s->bytes = op->bytes;
}

static double gemm_bytes(int64_t m, int64_t n, int64_t k, int64_t nb, int eb)
{
    return (double)nb * ((double)m * k + (double)k * n + (double)m * n) * eb;
}

/* Apply --precision and --batch.  Returns 1 when the op changed. */
static int retarget(const struct est *c, const struct op *op, struct shape *s)
{
    int changed = 0;
    enum precision from = s->prec;
    /* The optimizer works on the fp32 master weights whatever the compute
     * precision (autocast keeps parameters in fp32), so it is left alone. */
    if (c->want != PREC_UNKNOWN && is_float(from) && c->want != from && op->kind != OP_OPTIMIZER) {
        s->prec = c->want;
        changed = 1;
        if (!is_matrix_kind(op->kind) || op->kind == OP_ATTENTION) {
            /* tf32 is stored as fp32: only the storage size moves bytes. */
            s->bytes *= (double)precision_bytes(s->prec) / precision_bytes(from);
        } else if (op->kind == OP_GEMM || op->kind == OP_CONV) {
            s->bytes *= (double)precision_bytes(s->prec) / precision_bytes(from);
        }
    }
    if (c->b_new <= 0 || c->b_old <= 0 || c->b_new == c->b_old || op->kind == OP_OPTIMIZER)
        return changed;
    double f = (double)c->b_new / (double)c->b_old;
    if ((op->kind == OP_GEMM || op->kind == OP_RNN) && s->m > 0 && s->n > 0 && s->k > 0) {
        int64_t *dim = NULL, nv = 0;
        if (s->m == c->b_old)
            dim = &s->m;
        else if (s->n == c->b_old)
            dim = &s->n;
        else if (s->k == c->b_old)
            dim = &s->k;
        if (dim) {
            nv = c->b_new;
        } else {
            if (is_flat(c, s->m))
                dim = &s->m;
            else if (is_flat(c, s->n))
                dim = &s->n;
            else if (is_flat(c, s->k))
                dim = &s->k;
            if (dim)
                nv = (int64_t)llround((double)*dim * f);
        }
        if (!dim && s->nb > 1 && s->nb % c->b_old == 0) {
            dim = &s->nb;
            nv = (int64_t)llround((double)s->nb * f);
        }
        if (!dim || nv < 1)
            return changed;
        double eb = precision_bytes(s->prec);
        double old_b = gemm_bytes(s->m, s->n, s->k, s->nb, (int)eb);
        double r = (double)nv / (double)*dim;
        *dim = nv;
        s->flops *= r;
        if (old_b > 0)
            s->bytes *= gemm_bytes(s->m, s->n, s->k, s->nb, (int)eb) / old_b;
        return 1;
    }
    if (op->kind == OP_CONV && s->conv.n > 0) {
        if (s->conv.n != c->b_old)
            return changed;
        s->conv.n = c->b_new;
        s->flops *= f;
        s->bytes *= f;  /* activations dominate; weights are small */
        return 1;
    }
    int prop;
    if (op->shapes) {
        struct lead_arg a = { c, 0 };
        shape_groups(op->shapes, check_lead, &a);
        prop = a.hit;
    } else {
        prop = op->phase == PHASE_FORWARD || op->phase == PHASE_BACKWARD;
    }
    if (!prop)
        return changed;
    s->flops *= f;
    s->bytes *= f;
    return 1;
}

/* ------------------------------------------------------------- lookups */

struct lookup {
    double time_s, lo_s, hi_s;      /* per pass */
    enum lookup_method method;
};

static void lk_add(struct lookup *acc, const struct kernel_estimate *e, double times)
{
    acc->time_s += e->time_s * times;
    acc->lo_s += (e->time_lo_s > 0 ? e->time_lo_s : e->time_s) * times;
    acc->hi_s += (e->time_hi_s > 0 ? e->time_hi_s : e->time_s) * times;
    if (e->method > acc->method)
        acc->method = e->method;    /* the weakest lookup names the whole */
}

static int lk_gemm(const struct kernel_table *t, enum precision p, int64_t m, int64_t n, int64_t k,
                   char a_t, char b_t, double times, struct lookup *acc)
{
    struct kernel_estimate e;
    if (m < 1 || n < 1 || k < 1)
        return -1;
    if (kernel_table_gemm(t, p, m, n, k, a_t ? a_t : 'N', b_t ? b_t : 'N', &e) != 0 || !(e.time_s > 0))
        return -1;
    lk_add(acc, &e, times);
    return 0;
}

/* Convolution as the GEMM cuDNN's implicit-GEMM algorithms run. */
static int lk_conv_as_gemm(const struct kernel_table *t, enum precision p, const struct conv_shape *cs,
                           enum conv_pass pass, double times, struct lookup *acc)
{
    int64_t g = cs->groups > 0 ? cs->groups : 1;
    int64_t r = cs->r > 0 ? cs->r : 1, s = cs->s > 0 ? cs->s : 1;
    int64_t pq = (cs->p > 0 ? cs->p : cs->h) * (cs->q > 0 ? cs->q : cs->w);
    int64_t crs = cs->c / g * r * s;
    switch (pass) {
    case CONV_FWD:
        return lk_gemm(t, p, cs->n * pq, cs->k / g, crs, 'N', 'N', times * g, acc);
    case CONV_BWD_DATA:
        return lk_gemm(t, p, cs->n * cs->h * cs->w, cs->c / g, cs->k / g * r * s, 'N', 'N', times * g, acc);
    default:
        return lk_gemm(t, p, cs->k / g, crs, cs->n * pq, 'N', 'N', times * g, acc);
    }
}

static int is_conv_backward(const struct op *op)
{
    return op->phase == PHASE_BACKWARD || (op->name && strstr(op->name, "backward"));
}

static int lk_conv(const struct kernel_table *t, const struct op *op, const struct shape *s,
                   struct lookup *acc)
{
    enum conv_pass passes[2] = { CONV_FWD, CONV_FWD };
    int np = 1;
    if (is_conv_backward(op)) {
        passes[0] = CONV_BWD_DATA;
        passes[1] = CONV_BWD_FILTER;
        np = 2;
    }
    if (s->conv.n < 1 || s->conv.c < 1 || s->conv.k < 1)
        return -1;
    for (int i = 0; i < np; i++) {
        struct kernel_estimate e;
        if (kernel_table_conv(t, s->prec, &s->conv, passes[i], &e) == 0 && e.time_s > 0)
            lk_add(acc, &e, s->calls);
        else if (lk_conv_as_gemm(t, s->prec, &s->conv, passes[i], s->calls, acc) != 0)
            return -1;
    }
    return 0;
}

static int lk_stream(const struct kernel_table *t, enum precision p, double bytes, double kernels,
                     struct lookup *acc)
{
    struct kernel_estimate e;
    if (!(bytes > 0) || !(kernels > 0))
        return -1;
    if (kernel_table_stream(t, p, bytes / kernels, &e) != 0 || !(e.time_s > 0))
        return -1;
    lk_add(acc, &e, kernels);
    return 0;
}

/* Attention (and GEMM-like ops known only by their flops) run at the rate
 * the table measures for a cube GEMM of the same work. */
static int lk_flops(const struct kernel_table *t, enum precision p, double flops, double calls,
                    struct lookup *acc)
{
    if (!(flops > 0) || !(calls > 0))
        return -1;
    double per = flops / calls;
    double n = cbrt(per / 2);
    if (n < 16)
        n = 16;
    if (n > 16384)
        n = 16384;
    int64_t ni = (int64_t)llround(n);
    struct lookup one = { 0, 0, 0, LOOKUP_NONE };
    if (lk_gemm(t, p, ni, ni, ni, 'N', 'N', 1, &one) != 0)
        return -1;
    double rate = 2.0 * (double)ni * ni * ni / one.time_s;
    double k = flops / rate / one.time_s;
    acc->time_s += one.time_s * k;
    acc->lo_s += one.lo_s * k;
    acc->hi_s += one.hi_s * k;
    if (one.method > acc->method)
        acc->method = one.method;
    if (acc->method == LOOKUP_EXACT)
        acc->method = LOOKUP_INTERP;    /* a rate carried over is not an exact hit */
    return 0;
}

/* One table lookup of a whole op per pass.  Returns 0 or -1 (no rows). */
static int lookup_op(const struct kernel_table *t, const struct op *op, const struct shape *s,
                     double bw_bs, struct lookup *acc)
{
    memset(acc, 0, sizeof *acc);
    if (!t)
        return -1;
    switch (op->kind) {
    case OP_GEMM:
        if (s->m > 0 && s->n > 0 && s->k > 0) {
            if (lk_gemm(t, s->prec, s->m, s->n, s->k, op->a_t, op->b_t, s->calls * s->nb, acc) != 0)
                return -1;
            if (acc->method == LOOKUP_EXTRAP) {
                /* Outside the rows the table measured, the fit of the
                 * neighbours says little (a skinny k = batch weight
                 * gradient is not a slower cube).  Such a GEMM runs at
                 * the measured rate of a GEMM of the same work, unless
                 * its memory traffic takes longer. */
                struct lookup cube = { 0, 0, 0, LOOKUP_NONE };
                if (lk_flops(t, s->prec, s->flops, s->calls * s->nb, &cube) == 0 && cube.time_s > 0) {
                    double mem = bw_bs > 0 ? s->bytes / bw_bs : 0;
                    double f = (cube.time_s > mem ? cube.time_s : mem) / acc->time_s;
                    acc->time_s *= f;
                    acc->lo_s *= f;
                    acc->hi_s *= f;
                }
            }
            return 0;
        }
        return lk_flops(t, s->prec, s->flops, s->calls, acc);
    case OP_RNN:
        /* RNN: its GEMM per time step, nb time steps per call. */
        if (s->m > 0 && s->n > 0 && s->k > 0)
            return lk_gemm(t, s->prec, s->m, s->n, s->k, op->a_t, op->b_t, s->calls * s->nb, acc);
        return lk_flops(t, s->prec, s->flops, s->kernels, acc);
    case OP_CONV:
        if (lk_conv(t, op, s, acc) == 0)
            return 0;
        memset(acc, 0, sizeof *acc);
        return lk_flops(t, s->prec, s->flops, s->calls, acc);
    case OP_ATTENTION:
        return lk_flops(t, s->prec, s->flops, s->calls, acc);
    case OP_COMM:
        return -1;
    default:
        return lk_stream(t, s->prec, s->bytes, s->kernels, acc);
    }
}

static enum kernel_kind table_kind(enum op_kind k)
{
    if (k == OP_CONV)
        return KERNEL_CONV;
    if (is_matrix_kind(k))
        return KERNEL_GEMM;
    return KERNEL_ELTWISE;
}

/* ------------------------------------------------------------ roofline */

struct roof {
    double compute_s, memory_s, latency_s;
};

/* Peak for an op's precision on a machine; falls back to fp32 (then any)
 * with a warning when the file lacks it. */
static double peak_of(struct est *c, const struct machine *m, enum precision p, int matrix)
{
    double v = m->peak_flops[p][EXEC_VECTOR];
    double x = matrix ? m->peak_flops[p][EXEC_MATRIX] : 0;
    double best = x > v ? x : v;
    if (best > 0)
        return best;
    enum precision alt[] = { PREC_FP32, PREC_TF32, PREC_BF16, PREC_FP16, PREC_FP64 };
    for (size_t i = 0; i < sizeof alt / sizeof alt[0]; i++) {
        double a = m->peak_flops[alt[i]][EXEC_VECTOR];
        double b = matrix ? m->peak_flops[alt[i]][EXEC_MATRIX] : 0;
        if (b > a)
            a = b;
        if (a > 0) {
            est_warn(c, "machine '%s' has no %s peak; using its %s peak instead",
                     m->id ? m->id : "?", precision_name(p), precision_name(alt[i]));
            return a;
        }
    }
    return 0;
}

static void roof_of(struct est *c, const struct machine *m, const struct op *op,
                    const struct shape *s, struct roof *r)
{
    double pk = s->flops > 0 ? peak_of(c, m, s->prec, is_matrix_kind(op->kind)) : 0;
    double bw = machine_mem_bw(m);
    r->compute_s = pk > 0 ? s->flops / pk : 0;
    r->memory_s = bw > 0 ? s->bytes / bw : 0;
    r->latency_s = s->kernels * m->launch_latency_s;
}

/* The roofline term that limits the op: compute or memory, whichever is
 * larger, unless even the larger one is below the op's launch cost, in
 * which case no hardware rate matters and the op is latency-bound.  A
 * kernel that runs far below its roofline (a badly shaped GEMM) is still
 * compute- or memory-bound: it would speed up with more of that resource,
 * not with cheaper launches. */
static enum est_bound bound_of(const struct roof *r)
{
    double cm = r->compute_s > r->memory_s ? r->compute_s : r->memory_s;
    if (cm <= r->latency_s)
        return BOUND_LATENCY;
    return r->compute_s >= r->memory_s ? BOUND_COMPUTE : BOUND_MEMORY;
}

/* -------------------------------------------------------- one op chain */

static void set_from_lookup(struct op_estimate *oe, const struct lookup *lk, double factor)
{
    oe->device_s = lk->time_s * factor;
    oe->time_lo_s = lk->lo_s * factor;
    oe->time_hi_s = lk->hi_s * factor;
    oe->lookup = lookup_method_name(lk->method);
}

/* PyTorch ops that only make a new view of a tensor (aliases sharing its
 * storage): they launch no kernel on a GPU.  A CPU profile charges them
 * host time, which on a GPU target is dispatch, not device time.  A view
 * that must copy (reshape of a strided tensor) records the copy as an op
 * of its own. */
static int is_view_op(const char *name)
{
    static const char *const views[] = {
        "view", "_unsafe_view", "view_as", "reshape", "t", "transpose", "permute", "expand",
        "expand_as", "as_strided", "slice", "select", "narrow", "split", "split_with_sizes",
        "chunk", "unbind", "unsqueeze", "squeeze", "flatten", "unflatten", "detach", "detach_",
        "alias", "broadcast_tensors", "numpy_T", "lift_fresh",
    };
    if (!name)
        return 0;
    if (strncmp(name, "aten::", 6) == 0)
        name += 6;
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (strcmp(name, views[i]) == 0)
            return 1;
    return 0;
}

/* Work of an op at a shape: flops for matrix ops, bytes for the others
 * (either when the other is absent). */
static double work_of(const struct op *op, const struct shape *s)
{
    double a = is_matrix_kind(op->kind) ? s->flops : s->bytes;
    double b = is_matrix_kind(op->kind) ? s->bytes : s->flops;
    return a > 0 ? a : b;
}

/* Time of a measured kernel whose work grows by f: its fixed part (the
 * device's per-kernel cost, the machine's `launch` per kernel, never more
 * than the time itself) stays, the rest moves f times the bytes or flops.
 * Above that fixed part a kernel is running its work, so the rest scales
 * with it at the rate the kernel achieved. */
static double linear_above_fixed(const struct est *c, double time_s, double kernels, double f)
{
    double fixed = kernels * c->m->launch_latency_s;
    if (fixed > time_s)
        fixed = time_s;
    return fixed + (time_s - fixed) * f;
}

/* scaled-table: the measured time moves to the target's kernels by the
 * ratio of the two tables at the profiled shape (device and precision
 * change the kernel, not the work), then to the target's batch:
 *  - memory-bound ops (elementwise, norm, reduction...): linearly in their
 *    bytes above the fixed part.  The bandwidth table's small rows hold
 *    ~18 us of harness overhead per call, far above such a kernel's own
 *    fixed cost, so a ratio of its rows says ~1x where the work grew 4x;
 *    and a kernel much slower than the table's copies (batch norm) is
 *    paced by its own work, not by the table's;
 *  - GEMM/conv outside the rows the table measured (ResNet's batch 256
 *    convolutions against rows of batch 4..32): linearly, at the rate the
 *    kernel achieved, as the table's extrapolation says nothing there;
 *  - GEMM/conv within the rows: by the target table's ratio between the two shapes, kept
 *    between "takes no less time" and "runs no slower per flop" (the
 *    linear bound): a larger problem never lowers the achieved rate, and
 *    an interpolated ratio outside these bounds is interpolation noise.
 * Returns -1 when a table lacks the shape (the caller falls back). */
static int scaled_table(struct est *c, const struct op *op, const struct shape *s0,
                        const struct shape *s, const struct lookup *lt, double src_dev,
                        struct op_estimate *oe)
{
    struct lookup ls, lp;
    struct shape sp = *s0;
    struct est nobatch = *c;
    nobatch.b_new = 0;
    retarget(&nobatch, op, &sp);
    double src_bw = c->src_m ? machine_mem_bw(c->src_m) : 0;
    if (lookup_op(c->st, op, s0, src_bw, &ls) != 0 || !(ls.time_s > 0))
        return -1;
    if (lookup_op(c->tt, op, &sp, machine_mem_bw(c->m), &lp) != 0 || !(lp.time_s > 0))
        return -1;
    double t1 = src_dev * lp.time_s / ls.time_s;
    double w0 = work_of(op, &sp), w1 = work_of(op, s);
    double t = t1 * lt->time_s / lp.time_s;
    if (w0 > 0 && w1 > 0 && w1 != w0) {
        double lin = linear_above_fixed(c, t1, s->kernels, w1 / w0);
        if (!is_matrix_kind(op->kind) || lt->method == LOOKUP_EXTRAP) {
            t = lin;
        } else {
            double lo = t1 < lin ? t1 : lin, hi = t1 < lin ? lin : t1;
            t = t < lo ? lo : t > hi ? hi : t;
        }
    }
    oe->method = EST_SCALED_TABLE;
    oe->ratio = t / src_dev;
    set_from_lookup(oe, lt, t / lt->time_s);
    return 0;
}

static void estimate_op(struct est *c, const struct op *op, struct op_estimate *oe)
{
    struct shape s0, s;
    shape_of(c, op, &s0);
    s = s0;
    int changed = retarget(c, op, &s);
    double src_dev = c->src_gpu ? op->device_time_s : 0;
    struct roof r;

    oe->name = op->name;
    oe->kind = op->kind;
    oe->phase = op->phase;
    oe->prec = s.prec;
    oe->count = op->count;
    oe->flops = s.flops;
    oe->bytes = s.bytes;
    oe->src_time_s = op->time_s;
    oe->ratio = 1;
    roof_of(c, c->m, op, &s, &r);

    if (c->src_gpu && c->same_device && !changed) {
        oe->method = EST_MEASURED;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = src_dev;
        goto out;
    }
    if (c->src_gpu && !(src_dev > 0) && c->tgt_gpu) {
        /* No kernel of its own (views, reshapes): nothing to run. */
        oe->method = c->same_device ? EST_MEASURED : EST_SCALED;
        oe->device_s = 0;
        goto out;
    }

    if (!c->src_gpu && c->tgt_gpu && is_view_op(op->name)) {
        /* a view: its host time is dispatch (host_of), its device time nil */
        oe->method = EST_ROOFLINE;
        oe->device_s = 0;
        goto out;
    }
    struct lookup lt;
    int have_t = lookup_op(c->tt, op, &s, machine_mem_bw(c->m), &lt) == 0;
    if (!have_t && c->tt && op->kind != OP_COMM) {
        if (!kernel_table_has(c->tt, table_kind(op->kind), s.prec))
            est_warn(c, "tables of '%s' have no %s rows for %s ops; falling back to the roofline",
                     c->tt->hw ? c->tt->hw : "?", precision_name(s.prec), op_kind_name(op->kind));
    }
    if (have_t && c->st && src_dev > 0
        && scaled_table(c, op, &s0, &s, &lt, src_dev, oe) == 0)
        goto out;
    if (have_t) {
        oe->method = lt.method == LOOKUP_EXACT ? EST_TABLE_EXACT : EST_TABLE_INTERP;
        set_from_lookup(oe, &lt, 1);
        goto out;
    }
    if ((r.compute_s > 0 || r.memory_s > 0) && (op->kind != OP_COMM)) {
        oe->method = EST_ROOFLINE;
        double cm = r.compute_s > r.memory_s ? r.compute_s : r.memory_s;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = cm + r.latency_s;
        goto out;
    }
    /* Last resort: the measured time by the ratio of peaks. */
    oe->method = EST_SCALED;
    double base = c->src_gpu ? src_dev : op->time_s;
    if (c->src_m && c->src_m != c->m) {
        double a, b;
        if (is_matrix_kind(op->kind)) {
            a = peak_of(c, c->src_m, s0.prec, 1);
            b = peak_of(c, c->m, s.prec, 1);
        } else {
            a = machine_mem_bw(c->src_m);
            b = machine_mem_bw(c->m);
        }
        if (a > 0 && b > 0)
            oe->ratio = a / b;
    } else if (!c->same_device && base > s.kernels * c->m->launch_latency_s) {
        /* A kernel within its fixed per-kernel part (a fill of a few
         * elements) is latency-bound and keeps its time on any device;
         * only longer ones lose something here. */
        est_warn(c, "%s ops without flops, bytes or table rows keep their measured time "
                 "(no source machine to scale by)", op_kind_name(op->kind));
    }
    if (changed && s0.flops + s0.bytes > 0)
        oe->ratio *= (s.flops + s.bytes) / (s0.flops + s0.bytes);
    oe->device_s = oe->time_lo_s = oe->time_hi_s = base * oe->ratio;
out:
    oe->bound = bound_of(&r);
    if (!(oe->flops > 0) && !(oe->bytes > 0) && oe->device_s > 0 && oe->method != EST_MEASURED
        && oe->method != EST_SCALED_TABLE)
        oe->bound = BOUND_LATENCY;
}

/* Host dispatch per op: measured when the profile ran on a GPU (the host
 * does the same work whatever the GPU), else the target's per-op cost. */
static double host_of(struct est *c, const struct op *op)
{
    if (c->src_gpu)
        return op->host_time_s;
    double calls = op->count > 0 ? op->count : 1;
    return calls * c->m->dispatch_s;
}

/* ----------------------------------------------------------- the pass */

static const struct kernel_table *pick_target(const struct kernel_set *ks, const struct machine *m)
{
    if (!ks || ks->n == 0)
        return NULL;
    const struct kernel_table *t = NULL;
    if (m->device_name)
        t = kernel_set_find(ks, m->device_name);
    if (!t && m->name)
        t = kernel_set_find(ks, m->name);
    if (!t && m->id)
        t = kernel_set_find(ks, m->id);
    return t;
}

struct group_count { int n, nonempty; int64_t numel[8]; };

static void count_group(const int64_t *dims, int n, void *arg)
{
    struct group_count *g = arg;
    int64_t e = 1;
    for (int i = 0; i < n; i++)
        e *= dims[i];
    if (g->n < 8)
        g->numel[g->n] = e;
    g->n++;
}

/* Parameters a forward GEMM or convolution call reads: what autocast
 * casts to the low precision before the call (and whose gradient it casts
 * back to fp32 in the backward pass).  A GEMM's weight is its k x n
 * operand, plus a bias of n for addmm; a convolution's weight is
 * k x c/g x r x s, plus a bias when the call takes a third input.  Batched
 * GEMMs multiply activations, which autocast already holds in the low
 * precision. */
static double param_elems(const struct op *op, int *tensors)
{
    *tensors = 0;
    if (op->phase != PHASE_FORWARD)
        return 0;
    if (op->kind == OP_GEMM && op->batch <= 1 && op->n > 0 && op->k > 0) {
        double e = (double)op->k * (double)op->n;
        *tensors = 1;
        if (op->name && strstr(op->name, "addmm")) {
            e += (double)op->n;
            *tensors = 2;
        }
        return e;
    }
    if (op->kind == OP_CONV && op->conv.k > 0 && op->conv.c > 0) {
        const struct conv_shape *cs = &op->conv;
        int64_t g = cs->groups > 0 ? cs->groups : 1;
        double e = (double)cs->k * (double)(cs->c / g) * (double)(cs->r > 0 ? cs->r : 1)
                   * (double)(cs->s > 0 ? cs->s : 1);
        struct group_count gc;
        memset(&gc, 0, sizeof gc);
        shape_groups(op->shapes, count_group, &gc);
        *tensors = 1;
        if (gc.n >= 3 && gc.numel[2] == cs->k) {
            e += (double)cs->k;
            *tensors = 2;
        }
        return e;
    }
    return 0;
}

/* Retargeting an fp32 profile to bf16/fp16 means running it under
 * autocast, which adds work an fp32 trace does not show: each forward
 * GEMM/convolution call casts its fp32 parameters to the low precision,
 * and the backward pass casts their gradients back.  Each cast is one
 * dispatch on the host (the target's dispatch cost) and one elementwise
 * kernel reading and writing the tensor.  The casts become one entry in
 * the estimate; the replay issues them beside their calls. */
static void autocast_casts(struct est *c)
{
    const struct profile *p = c->p;
    struct estimate *out = c->out;
    c->cast_op = SIZE_MAX;
    if (c->want != PREC_BF16 && c->want != PREC_FP16)
        return;
    double n_all = 0, dev_all = 0, bytes_all = 0;
    int eb = precision_bytes(c->want);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        int tensors;
        if (op_prec(p, op) != PREC_FP32 && op_prec(p, op) != PREC_TF32)
            continue;
        double e = param_elems(op, &tensors);
        if (!(e > 0))
            continue;
        if (!c->cast_n) {
            c->cast_n = xcalloc(p->n_ops, sizeof *c->cast_n);
            c->cast_dev_s = xcalloc(p->n_ops, sizeof *c->cast_dev_s);
        }
        /* forward and backward: e elements each way, 4 + eb bytes per
         * element, one kernel per tensor */
        double bytes = 2 * e * (4 + eb);
        struct lookup lk;
        double t = 0;
        memset(&lk, 0, sizeof lk);
        if (c->tt && lk_stream(c->tt, c->want, bytes, 2 * tensors, &lk) == 0)
            t = lk.time_s;
        else if (machine_mem_bw(c->m) > 0)
            t = bytes / machine_mem_bw(c->m) + 2 * tensors * c->m->launch_latency_s;
        c->cast_n[i] = 2 * tensors;
        c->cast_dev_s[i] = t;
        double calls = op->count > 0 ? op->count : 1;
        n_all += 2 * tensors * calls;
        dev_all += t * calls;
        bytes_all += bytes * calls;
    }
    if (!(n_all > 0))
        return;
    c->cast_one_s = c->tgt_gpu ? c->m->dispatch_s : 0;
    struct op_estimate *oe = &out->ops[out->n_ops];
    c->cast_op = out->n_ops++;
    oe->name = "(autocast casts)";
    oe->kind = OP_ELEMENTWISE;
    oe->phase = PHASE_UNKNOWN;
    oe->prec = c->want;
    oe->count = n_all;
    oe->bytes = bytes_all;
    oe->device_s = oe->time_lo_s = oe->time_hi_s = dev_all;
    oe->host_s = n_all * c->cast_one_s;
    oe->time_s = c->tgt_gpu ? oe->device_s : oe->device_s + oe->host_s;
    oe->method = c->tt ? EST_TABLE_INTERP : EST_ROOFLINE;
    oe->bound = c->tgt_gpu && oe->host_s > oe->device_s ? BOUND_HOST : BOUND_MEMORY;
    oe->ratio = 1;
    est_warn(c, "autocast to %s: %.0f casts of parameters and their gradients added per pass",
             precision_name(c->want), n_all);
}

/* The calls of the profile, indexed once for every replay of it. */
struct replay_index {
    size_t max_id;
    size_t *idx;                    /* op id -> profile op index, SIZE_MAX if none */
    double *ncalls;                 /* [n_ops + 1] calls of each op */
    int steps;
};

static void replay_index_build(const struct profile *p, struct replay_index *ri)
{
    size_t n = p->n_ops;
    memset(ri, 0, sizeof *ri);
    for (size_t i = 0; i < n; i++)
        if (p->ops[i].id > ri->max_id)
            ri->max_id = p->ops[i].id;
    ri->idx = xmalloc((ri->max_id + 1) * sizeof *ri->idx);
    ri->ncalls = xcalloc(n + 1, sizeof *ri->ncalls);
    for (size_t i = 0; i <= ri->max_id; i++)
        ri->idx[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        ri->idx[p->ops[i].id] = i;
    int last_step = -1;
    for (size_t j = 0; j < p->n_calls; j++) {
        size_t id = p->calls[j].op_id;
        if (id <= ri->max_id && ri->idx[id] != SIZE_MAX)
            ri->ncalls[ri->idx[id]] += 1;
        if (p->calls[j].step != last_step)
            ri->steps++;
        last_step = p->calls[j].step;
    }
}

static void replay_index_release(struct replay_index *ri)
{
    free(ri->idx);
    free(ri->ncalls);
    memset(ri, 0, sizeof *ri);
}

/* One profiled step replayed on the target: the host issues the calls
 * in their order, each taking its host time; a call's kernels start when
 * both the host has launched them (the call's end) and the device is free;
 * the step ends when the host and the device are both done.  Host-bound
 * stretches (small kernels) and device-bound ones (large kernels) then
 * add up as they did in the trace, with no overlap constant.  Ops without
 * calls (kernels no op claimed) run after the last call.  dev_s[i] is the
 * device time per pass of out->ops[i] (the estimate, its spread, or a
 * Monte Carlo draw).  Returns the mean step time over the profiled
 * steps, or -1 when the profile has no calls. */
static double replay(const struct est *c, const struct replay_index *ri, const struct estimate *out,
                     const double *dev_s)
{
    const struct profile *p = c->p;
    size_t n = p->n_ops, max_id = ri->max_id;
    const size_t *idx = ri->idx;
    const double *ncalls = ri->ncalls;
    int steps = ri->steps;
    double total = 0;
    if (!p->n_calls || !c->tgt_gpu)
        return -1;
    double rest = 0;    /* per step: ops that no call issues */
    for (size_t i = 0; i < out->n_ops; i++) {
        if ((i >= n || ncalls[i] == 0) && i != c->cast_op)
            rest += dev_s[i];
    }
    size_t j = 0;
    while (j < p->n_calls) {
        int st = p->calls[j].step;
        double host = 0, dev = 0, shift = 0, back_n = 0, back_dev = 0;
        for (; j < p->n_calls && p->calls[j].step == st; j++) {
            const struct op_call *k = &p->calls[j];
            size_t id = k->op_id;
            size_t i = id <= max_id ? idx[id] : SIZE_MAX;
            /* autocast casts: a forward call's parameters before it;
             * the gradients' casts back once the backward pass is over */
            int opt = i != SIZE_MAX && p->ops[i].phase == PHASE_OPTIMIZER;
            if (back_n > 0 && opt) {
                host = (host > k->host_start_s + shift ? host : k->host_start_s + shift)
                       + back_n * c->cast_one_s;
                dev = (dev > host ? dev : host) + back_dev;
                shift = host - k->host_start_s;
                back_n = back_dev = 0;
            }
            if (i != SIZE_MAX && c->cast_n && c->cast_n[i] > 0) {
                double half = c->cast_n[i] / 2;
                double begin0 = c->src_gpu ? k->host_start_s + shift : host;
                if (begin0 < host)
                    begin0 = host;
                host = begin0 + half * c->cast_one_s;
                dev = (dev > host ? dev : host) + c->cast_dev_s[i] / 2;
                if (c->src_gpu)
                    shift = host - k->host_start_s;
                back_n += half;
                back_dev += c->cast_dev_s[i] / 2;
            }
            double d = 0, kn = 1;
            if (i != SIZE_MAX) {
                const struct op_estimate *oe = &out->ops[i];
                const struct op *op = &p->ops[i];
                double t = dev_s[i];
                /* the call's share of its op, as measured when the
                 * profile has device times (so that kernels that ran
                 * on parallel streams keep their overlap) */
                if (c->src_gpu && op->device_time_s > 0 && k->device_s > 0)
                    d = t * k->device_s / op->device_time_s;
                else if (!c->src_gpu || op->device_time_s > 0)
                    d = t * steps / ncalls[i];
                kn = op->kernels > 0 && op->count > 0 ? op->kernels / op->count : 1;
                if (kn < 1)
                    kn = 1;
                /* kernel durations from a trace leave out the gap the
                 * device needs between two kernels, even queued ones;
                 * table times and the roofline hold a launch already */
                if (d > 0 && (oe->method == EST_MEASURED || oe->method == EST_SCALED_TABLE
                              || oe->method == EST_SCALED)) {
                    double sh = c->src_gpu && op->device_time_s > 0 && k->device_s > 0
                                ? k->device_s * ncalls[i] / steps / op->device_time_s : 1;
                    d += kn * c->m->launch_latency_s * (sh < 1 ? sh : 1);
                }
            }
            double begin, launch;
            if (c->src_gpu) {
                begin = k->host_start_s + shift;
                launch = begin + k->host_s;
            } else {
                /* a CPU trace's host times hold the compute: the
                 * target pays its own dispatch per call */
                begin = host;
                launch = host + c->m->dispatch_s;
            }
            if (launch > host)
                host = launch;
            if (d > 0) {
                /* a call's kn kernels are launched one by one over its
                 * host time: the first can start after 1/kn of it, the
                 * last not before the call ends */
                double first = begin + (launch - begin) / kn;
                dev = (dev > first ? dev : first) + d;
                if (dev < launch + d / kn)
                    dev = launch + d / kn;
            }
        }
        if (back_n > 0) {
            host += back_n * c->cast_one_s;
            dev = (dev > host ? dev : host) + back_dev;
        }
        dev += rest;
        total += host > dev ? host : dev;
    }
    return steps ? total / steps : -1;
}

/* The pass time from the ops' device times dev_s[] (and the fixed host
 * time host_s): the replay when the profile has a call order, else the
 * larger of device and host time (as if they overlapped perfectly) on an
 * accelerator, their sum on a CPU.  The point estimate, its spread and
 * every Monte Carlo draw go through here. */
static double compose_pass(const struct est *c, const struct replay_index *ri,
                           const struct estimate *out, const double *dev_s, double host_s)
{
    double step = c->tgt_gpu ? replay(c, ri, out, dev_s) : -1;
    if (step >= 0)
        return step + out->sync_s;
    double dev = 0;
    for (size_t i = 0; i < out->n_ops; i++)
        dev += dev_s[i];
    if (c->tgt_gpu)
        return (dev > host_s ? dev : host_s) + out->sync_s;
    return dev + host_s;
}

/* ------------------------------------------------------- uncertainty */

/* z of the 95% quantile of the standard normal: p05 and p95 sit at -z95
 * and +z95 sigmas of ln(time) from the median. */
static double z95(void)
{
    return gsl_cdf_ugaussian_Pinv(0.95);
}

int est_spread_of(double est_s, double lo_s, double hi_s, struct est_spread *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->median_s = est_s;
    if (!(est_s > 0) || !isfinite(est_s))
        return 0;
    /* a p05 above the estimate or a p95 below it (rows interpolated
     * apart) gives that half no width rather than a negative one */
    if (lo_s > 0 && lo_s < est_s)
        sp->sigma_lo = log(est_s / lo_s) / z95();
    if (hi_s > est_s && isfinite(hi_s))
        sp->sigma_hi = log(hi_s / est_s) / z95();
    return sp->sigma_lo > 0 || sp->sigma_hi > 0;
}

double est_spread_at(const struct est_spread *sp, double z)
{
    return sp->median_s * exp(z * (z < 0 ? sp->sigma_lo : sp->sigma_hi));
}

double est_spread_quantile(const struct est_spread *sp, double q)
{
    return est_spread_at(sp, gsl_cdf_ugaussian_Pinv(q));
}

/* The Monte Carlo of the pass time (see estimate.h): o->mc_draws passes,
 * each with every spread op's device time drawn independently (one
 * standard normal per op and draw, in op order, from mt19937 seeded with
 * o->mc_seed), composed by compose_pass.  dev_s is scratch of n_ops. */
static void monte_carlo(const struct est *c, const struct replay_index *ri,
                        const struct estimate_opts *o, double host_s, double *dev_s)
{
    struct estimate *out = c->out;
    size_t n = out->n_ops, ns = 0;
    struct est_spread *sp = xmalloc((n + 1) * sizeof *sp);
    size_t *which = xmalloc((n + 1) * sizeof *which);
    gsl_rng *rng = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct op_estimate *oe = &out->ops[i];
        dev_s[i] = oe->device_s;
        if (est_spread_of(oe->device_s, oe->time_lo_s, oe->time_hi_s, &sp[ns]))
            which[ns++] = i;
    }
    out->n_spread_ops = ns;
    out->mc_seed = o->mc_seed;
    if (!ns || !o->mc_draws)
        goto out;
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        goto out;
    gsl_rng_set(rng, o->mc_seed);
    out->pass_draws = xmalloc(o->mc_draws * sizeof *out->pass_draws);
    for (size_t b = 0; b < o->mc_draws; b++) {
        for (size_t k = 0; k < ns; k++)
            dev_s[which[k]] = est_spread_at(&sp[k], gsl_ran_ugaussian(rng));
        out->pass_draws[b] = compose_pass(c, ri, out, dev_s, host_s);
    }
    out->n_draws = o->mc_draws;
    double *sorted = xmalloc(out->n_draws * sizeof *sorted);
    memcpy(sorted, out->pass_draws, out->n_draws * sizeof *sorted);
    gsl_sort(sorted, 1, out->n_draws);
    double a = 1 - out->ci_level;
    out->pass_ci_lo_s = stats_quantile_sorted(sorted, out->n_draws, a / 2);
    out->pass_ci_hi_s = stats_quantile_sorted(sorted, out->n_draws, 1 - a / 2);
    free(sorted);
out:
    if (rng)
        gsl_rng_free(rng);
    free(sp);
    free(which);
}

int estimate_profile(const struct profile *p, const struct machine *target,
                     const struct kernel_set *tables, const struct estimate_opts *o,
                     struct estimate *out, struct diag *d)
{
    struct estimate_opts defo;
    struct est c;
    struct replay_index ri;
    int rc = FOM_OK;

    memset(&ri, 0, sizeof ri);
    if (!o) {
        estimate_opts_init(&defo);
        o = &defo;
    }
    estimate_release(out);
    memset(&c, 0, sizeof c);
    c.p = p;
    c.m = target;
    c.src_m = o->source;
    c.out = out;
    c.d = d;
    c.want = (unsigned)o->precision < PREC_COUNT ? o->precision : PREC_UNKNOWN;
    c.b_old = p->batch;
    c.b_new = o->batch;
    c.src_gpu = p->has_device != 0;
    c.tgt_gpu = target->kind != MACHINE_CPU;
    c.same_device = c.src_gpu && (same_name(p->device_name, target->device_name)
                                  || same_name(p->device_name, target->name));
    if (c.src_gpu && tables)
        c.st = kernel_set_find(tables, p->device_name);
    c.tt = pick_target(tables, target);
    if (tables && tables->n > 0 && !c.tt)
        est_warn(&c, "no kernel table is for '%s'; its ops are estimated from the machine file",
                 target->device_name ? target->device_name : target->id ? target->id : "?");
    if (!c.tt)
        c.st = NULL;    /* scaled-table needs both ends */

    out->machine = target->id ? target->id : target->name;
    out->target_hw = c.tt ? c.tt->hw : NULL;
    out->source_hw = c.st ? c.st->hw : NULL;
    out->precision = c.want;
    out->batch = o->batch;
    out->src_batch = p->batch;
    out->src_pass_time_s = p->step_time_s;

    if (c.b_new > 0 && c.b_old <= 0) {
        est_warn(&c, "the profile does not say its batch; --batch %lld is ignored", (long long)c.b_new);
        c.b_new = 0;
    }
    if (c.b_new > 0 && c.b_old > 0)
        out->batch_scale = (double)c.b_new / (double)c.b_old;
    if (c.b_new > 0 && c.b_new != c.b_old)
        for (size_t i = 0; i < p->n_ops; i++)
            shape_groups(p->ops[i].shapes, collect_flat, &c);
    if (c.want != PREC_UNKNOWN && c.tt) {
        if (!kernel_table_has(c.tt, KERNEL_GEMM, c.want))
            est_warn(&c, "tables of '%s' have no %s gemm rows", c.tt->hw ? c.tt->hw : "?",
                     precision_name(c.want));
    }
    /* A profile estimated on its own device scales by its own table only
     * where the batch or precision changes: nothing to warn about. */
    if (c.st && c.st != c.tt)
        est_warn(&c, "scaled-table: measured times on '%s' are scaled by the ratio of the "
                 "'%s' and '%s' table entries", c.st->hw, c.tt->hw, c.st->hw);
    if (!c.tt && machine_mem_bw(target) <= 0 && target->peak_flops[PREC_FP32][EXEC_VECTOR] <= 0
        && !c.same_device && !c.src_m) {
        rc = diag_error(d, "machine '%s' gives neither peaks nor bandwidth and no kernel table "
                        "matches it: nothing to estimate from", out->machine ? out->machine : "?");
        goto out;
    }

    out->ops = xcalloc(p->n_ops + 2, sizeof *out->ops);
    double host = 0, dev = 0, lo = 0, hi = 0, src_dev = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        struct op_estimate *oe = &out->ops[out->n_ops++];
        estimate_op(&c, &p->ops[i], oe);
        oe->host_s = host_of(&c, &p->ops[i]);
        oe->time_s = c.tgt_gpu ? oe->device_s : oe->device_s + oe->host_s;
        if (c.tgt_gpu && oe->host_s > oe->device_s)
            oe->bound = BOUND_HOST;
        host += oe->host_s;
        dev += oe->device_s;
        lo += oe->time_lo_s;
        hi += oe->time_hi_s;
        src_dev += c.src_gpu ? p->ops[i].device_time_s : p->ops[i].time_s;
        out->method_time_s[oe->method] += oe->device_s;
        out->bound_time_s[oe->bound] += oe->time_s;
    }
    /* Ops dropped by --top still run: carry them at the kept ops' ratio. */
    if (p->dropped_time_s > 0 && src_dev > 0) {
        struct op_estimate *oe = &out->ops[out->n_ops++];
        oe->name = "(ops dropped from the profile)";
        oe->kind = OP_OTHER;
        oe->phase = PHASE_UNKNOWN;
        oe->prec = PREC_UNKNOWN;
        oe->src_time_s = p->dropped_time_s;
        oe->ratio = dev / src_dev;
        oe->device_s = oe->time_lo_s = oe->time_hi_s = p->dropped_time_s * oe->ratio;
        oe->time_s = oe->device_s;
        oe->method = EST_SCALED;
        oe->bound = BOUND_LATENCY;
        dev += oe->device_s;
        lo += oe->device_s;
        hi += oe->device_s;
        out->method_time_s[EST_SCALED] += oe->device_s;
        out->bound_time_s[BOUND_LATENCY] += oe->device_s;
        est_warn(&c, "%zu ops dropped from the profile are scaled by the kept ops' ratio %.3g",
                 p->dropped_ops, oe->ratio);
    }
    if (c.src_gpu && p->host_time_s > 0)
        host = p->host_time_s;
    autocast_casts(&c);
    if (c.cast_op != SIZE_MAX) {
        const struct op_estimate *oe = &out->ops[c.cast_op];
        dev += oe->device_s;
        lo += oe->device_s;
        hi += oe->device_s;
        host += oe->host_s;
        out->method_time_s[oe->method] += oe->device_s;
        out->bound_time_s[oe->bound] += oe->time_s;
    }
    if (!c.src_gpu && c.tgt_gpu && !(target->dispatch_s > 0))
        est_warn(&c, "machine '%s' gives no dispatch cost; host time is taken as zero",
                 out->machine ? out->machine : "?");
    out->device_time_s = dev;
    out->host_time_s = host;
    out->sync_s = c.tgt_gpu ? target->launch_latency_s : 0;
    replay_index_build(p, &ri);
    double *dev_s = xmalloc((out->n_ops + 1) * sizeof *dev_s);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].device_s;
    out->pass_time_s = compose_pass(&c, &ri, out, dev_s, host);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].time_lo_s;
    out->pass_lo_s = compose_pass(&c, &ri, out, dev_s, host);
    for (size_t i = 0; i < out->n_ops; i++)
        dev_s[i] = out->ops[i].time_hi_s;
    out->pass_hi_s = compose_pass(&c, &ri, out, dev_s, host);
    monte_carlo(&c, &ri, o, host, dev_s);
    free(dev_s);
    if (c.tgt_gpu && host > dev) {
        out->bound = BOUND_HOST;
    } else {
        enum est_bound b = BOUND_COMPUTE;
        for (int i = 0; i < BOUND_HOST; i++)
            if (out->bound_time_s[i] > out->bound_time_s[b])
                b = (enum est_bound)i;
        out->bound = b;
    }
out:
    replay_index_release(&ri);
    free(c.cast_n);
    free(c.cast_dev_s);
    return rc;
}
