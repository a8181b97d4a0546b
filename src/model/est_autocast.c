#include "model/est_internal.h"
#include "model/ops.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

/* The casts autocast would add, followed through a profiled step.
 *
 * An fp32 trace does not say which tensors a low-precision run would hold
 * in bf16 and which in fp32, yet that decides where autocast casts an
 * activation: before a GEMM or convolution that reads an fp32 tensor, and
 * before an op of its fp32 list (softplus, exp, pow, layer_norm, the
 * losses, ...) that reads a low-precision one.  The rules are PyTorch's
 * (torch.amp documentation, "Autocast Op Reference"; aten's
 * autocast_mode.cpp):
 *  - the lower-precision list (matmuls, linear, convolutions, attention)
 *    casts its fp32 inputs and returns the low precision;
 *  - the fp32 list casts a low-precision input to fp32 and returns fp32;
 *    its reductions and softmax (sum, prod, cumsum, cumprod, softmax,
 *    log_softmax, norms) take an fp32 output type instead: an fp32
 *    result, and no cast kernel but in softmax and log_softmax, which
 *    fuse the cast only for fp16 on a GPU (aten's SoftMax.cpp: a bf16
 *    input, or any on a CPU, is converted to fp32 by a cast kernel first,
 *    the aten::to inside aten::softmax of the development set's bf16
 *    traces), so their gradient is cast back too;
 *  - any other op runs in its inputs' type, and mixed inputs promote to
 *    fp32 (a bf16 activation times an fp32 tensor is fp32); an in-place op
 *    keeps its first input's type, an embedding its fp32 weight's; a
 *    concatenation promotes across its whole list;
 *  - a parameter (a leaf that requires grad) is cast once per autocast
 *    region and the cast reused by every later call (its cast cache): a
 *    layer applied in a loop casts its weight once per step.
 * Tensors are known here by their shapes (the trace records input
 * shapes, not identities): each op's output shape is derived from its
 * inputs and kept with the type it would have, and with its number of
 * elements, by which the views of it are known (a view keeps the count,
 * not the shape); an input takes the type of the later of the two.  One
 * found by neither is a parameter (fp32) or, read by a lower-precision
 * op, a view of the last result.  The input batch starts each step in
 * fp32.  The parameters' shapes come from the optimizer's calls.  Where
 * two tensors share a shape the walk can miss a cast or count one too
 * many; on the development set's traces it counts 0.90 of the casts their
 * bf16 runs made in the median (the forward and backward _to_copy calls of
 * 50 models' bf16 traces against the estimate from their fp32 traces). */
enum { F_LOW = 1, F_FP32 = 2 };
enum flow_policy { POL_LOW, POL_FP32, POL_FP32_OUT, POL_KEEP, POL_EMBED, POL_PROMOTE };

static double numel(const int64_t *d, int n)
{
    double e = 1;
    for (int i = 0; i < n; i++)
        e *= (double)(d[i] > 0 ? d[i] : 0);
    return e;
}

static uint64_t dims_key(const int64_t *d, int n)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)d[i];
        h *= 1099511628211ULL;
    }
    return h ? h : 1;
}

/* A map from a shape's hash to what is known of tensors of that shape. */
struct kval {
    uint32_t n;             /* how many (parameters, their casts) */
    uint32_t n_fp32, n_low; /* results of the step so far of each type */
    unsigned char prec;     /* the latest tensor's type (F_LOW, F_FP32) */
    unsigned char prev;     /* the type of the one before it */
    size_t when;            /* the call that made the latest */
};

struct kmap {
    uint64_t *key;          /* 0: empty slot */
    struct kval *val;
    size_t cap, used;
};

static size_t kmap_slot(const struct kmap *m, uint64_t k)
{
    size_t j = k & (m->cap - 1);
    while (m->key[j] && m->key[j] != k)
        j = (j + 1) & (m->cap - 1);
    return j;
}

/* The entry of k, made when missing. */
static struct kval *kmap_at(struct kmap *m, uint64_t k)
{
    if (2 * (m->used + 1) > m->cap) {
        struct kmap g = { NULL, NULL, m->cap ? 2 * m->cap : 256, m->used };
        g.key = xcalloc(g.cap, sizeof *g.key);
        g.val = xcalloc(g.cap, sizeof *g.val);
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = kmap_slot(&g, m->key[i]);
                g.key[j] = m->key[i];
                g.val[j] = m->val[i];
            }
        free(m->key);
        free(m->val);
        *m = g;
    }
    size_t j = kmap_slot(m, k);
    if (!m->key[j]) {
        m->key[j] = k;
        m->used++;
    }
    return &m->val[j];
}

static const struct kval *kmap_find(const struct kmap *m, uint64_t k)
{
    if (!m->cap)
        return NULL;
    size_t j = kmap_slot(m, k);
    return m->key[j] ? &m->val[j] : NULL;
}

static void kmap_release(struct kmap *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* A tensor of type prec made by call `when`. */
static void kmap_put(struct kmap *m, uint64_t k, int prec, size_t when)
{
    struct kval *v = kmap_at(m, k);
    if (prec == F_FP32)
        v->n_fp32++;
    else
        v->n_low++;
    v->prev = v->prec;
    v->prec = (unsigned char)prec;
    v->when = when;
}

static void add_param(const int64_t *dims, int n, void *arg)
{
    kmap_at(arg, dims_key(dims, n))->n += 1;
}

static void count_one(const int64_t *dims, int n, void *arg)
{
    (void)dims;
    (void)n;
    *(size_t *)arg += 1;
}

/* The first tensor list of a foreach or fused optimizer call (its
 * parameters), as text to free, or NULL. */
static char *first_list(const struct op *op)
{
    const char *base = ops_base_name(op);
    if (op->phase != PHASE_OPTIMIZER || !op->shapes || strncmp(op->shapes, "[[", 2) != 0
        || (strncmp(base, "_foreach_", 9) != 0 && strncmp(base, "_fused_", 7) != 0))
        return NULL;
    const char *end = strstr(op->shapes, "]]");
    size_t len = end ? (size_t)(end - op->shapes) + 2 : strlen(op->shapes);
    char *s = xmalloc(len + 1);
    memcpy(s, op->shapes, len);
    s[len] = 0;
    return s;
}

/* enough for the tensor lists of most concatenations (a longer list's
 * result is not followed) */
#define FLOW_GROUPS 16
struct flow_groups {
    int n;
    int rank[FLOW_GROUPS];
    int64_t dims[FLOW_GROUPS][8];
};

static void take_group(const int64_t *dims, int n, void *arg)
{
    struct flow_groups *g = arg;
    if (g->n < FLOW_GROUPS) {
        g->rank[g->n] = n;
        memcpy(g->dims[g->n], dims, (size_t)n * sizeof *dims);
    }
    g->n++;
}

/* The parameters of a profile whose optimizer runs per tensor (the
 * default on a CPU): the optimizer op that meets the most shapes, of the
 * fewest calls among those (Adam's lerp_ or addcdiv_ meet each parameter
 * once, its mul_ twice), its calls per pass by first input's shape. */
static void params_per_tensor(const struct profile *p, struct kmap *params)
{
    /* per distinct optimizer op name (an optimizer has a handful; more
     * are left out): the shapes it meets and its calls, in one pass */
    enum { NAMES = 64 };
    struct { const char *name; size_t shapes; double calls; } by[NAMES];
    size_t n_by = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *a = &p->ops[i];
        if (a->phase != PHASE_OPTIMIZER || !a->name)
            continue;
        struct flow_groups g;
        memset(&g, 0, sizeof g);
        est_shape_groups(a->shapes, take_group, &g);
        if (!g.n)
            continue;
        size_t k = 0;
        while (k < n_by && strcmp(by[k].name, a->name) != 0)
            k++;
        if (k == n_by) {
            if (n_by == NAMES)
                continue;
            by[n_by].name = a->name;
            by[n_by].shapes = 0;
            by[n_by].calls = 0;
            n_by++;
        }
        by[k].shapes++;
        by[k].calls += a->count;
    }
    const char *best = NULL;
    size_t best_shapes = 0;
    double best_calls = 0;
    for (size_t k = 0; k < n_by; k++)
        if (by[k].shapes > best_shapes
            || (by[k].shapes == best_shapes && by[k].calls < best_calls)) {
            best = by[k].name;
            best_shapes = by[k].shapes;
            best_calls = by[k].calls;
        }
    if (!best)
        return;
    for (size_t j = 0; j < p->n_ops; j++) {
        const struct op *b = &p->ops[j];
        struct flow_groups g;
        memset(&g, 0, sizeof g);
        if (b->phase != PHASE_OPTIMIZER || !b->name || strcmp(b->name, best) != 0)
            continue;
        est_shape_groups(b->shapes, take_group, &g);
        if (!g.n || !(b->count > 0))
            continue;
        /* a hostile trace's count must not overflow the conversion */
        uint32_t k = b->count < 1e9 ? (uint32_t)(b->count + 0.5) : 1000000000u;
        kmap_at(params, dims_key(g.dims[0], g.rank[0]))->n += k;
    }
}

/* The shapes of the parameters: the optimizer call's list with the most
 * of them, else the optimizer's ops per tensor; none when the profile's
 * optimizer does not show them. */
static void params_of(const struct profile *p, struct kmap *params)
{
    size_t best = SIZE_MAX, best_n = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        char *l = first_list(&p->ops[i]);
        size_t n = 0;
        if (l)
            est_shape_groups(l, count_one, &n);
        free(l);
        if (n > best_n) {
            best_n = n;
            best = i;
        }
    }
    if (best == SIZE_MAX) {
        params_per_tensor(p, params);
        return;
    }
    char *l = first_list(&p->ops[best]);
    est_shape_groups(l, add_param, params);
    free(l);
}

/* Tensors by shape and, for the views between them (a view keeps the
 * number of elements, not the shape), by element count. */
struct flow {
    struct kmap shape, count;
    int cur;                /* the type of the last result */
    /* the parameters by shape, and their casts so far in the step:
     * autocast casts a parameter once and reuses the cast until the
     * autocast region ends (its cast cache) */
    struct kmap params, cast;
    int softmax_casts;      /* softmax converts a low-precision input by a
                               cast kernel before it (not fused) */
};

/* The key of an element count: its bits (a count past int64_t, from a
 * hostile trace's dims, must not be converted). */
static uint64_t count_key(double e)
{
    int64_t d;
    memcpy(&d, &e, sizeof d);
    return dims_key(&d, 1);
}

/* The type of an input of shape d: the later of the tensor of that shape
 * and the one of that many elements (a view of it); neither: a tensor no
 * op of the step made, a parameter (fp32) or, for the activation of a
 * lower-precision op, a view of the last result. */
static int flow_type(const struct flow *f, const int64_t *d, int n, int param)
{
    const struct kval *vs = kmap_find(&f->shape, dims_key(d, n));
    const struct kval *vc = kmap_find(&f->count, count_key(numel(d, n)));
    int ps = vs ? vs->prec : 0, pc = vc ? vc->prec : 0;
    size_t ws = vs ? vs->when : 0, wc = vc ? vc->when : 0;
    if (ps && (!pc || ws >= wc))
        return ps;
    if (pc)
        return pc;
    return param ? F_FP32 : f->cur;
}

static int name_in(const char *base, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(base, names[i]) == 0)
            return 1;
    return 0;
}

/* torch.cat and its kin: one result from a list of tensors, in the
 * type their promotion gives (a bf16 activation concatenated with fp32
 * features is fp32; PyTorch's cat has promoted its inputs since 1.5) */
static int is_concat(const struct op *op)
{
    static const char *const names[] = { "cat", "_cat", "concat", "concatenate", "stack",
                                         "hstack", "vstack", NULL };
    return name_in(ops_base_name(op), names);
}

/* softmax and log_softmax: fp32 outputs under autocast, like the
 * reductions of policy(), and the casts of their inputs (flow_op) */
static int is_softmax(const struct op *op)
{
    static const char *const names[] = { "softmax", "_softmax", "log_softmax", "_log_softmax",
                                         NULL };
    return name_in(ops_base_name(op), names);
}

static enum flow_policy policy(const struct op *op)
{
    static const char *const fp32_out[] = { "sum", "prod", "cumsum", "cumprod", "norm",
                                            "linalg_vector_norm", NULL };
    const char *base = ops_base_name(op);
    if (name_in(base, fp32_out) || is_softmax(op))
        return POL_FP32_OUT;
    if (is_concat(op))
        return POL_PROMOTE;
    if (ops_autocast_fp32(op, 0))
        return POL_FP32;
    if ((op->kind == OP_GEMM || op->kind == OP_CONV || op->kind == OP_ATTENTION)
        && !ops_keeps_precision(op))
        return POL_LOW;
    if (op->kind == OP_EMBEDDING)
        return POL_EMBED;
    size_t n = strlen(base);
    if (op->kind == OP_NORM || op->kind == OP_MEMCPY || est_is_view_op(op->name)
        || (n > 1 && base[n - 1] == '_' && base[n - 2] != '_'))
        return POL_KEEP;
    return POL_PROMOTE;
}

/* The group a lower-precision op reads as its activation: addmm's and
 * baddbmm's first input is the added term. */
static int act_group(const struct op *op, const struct flow_groups *g)
{
    const char *base = ops_base_name(op);
    int a = (strcmp(base, "addmm") == 0 || strcmp(base, "baddbmm") == 0) ? 1 : 0;
    return a < g->n && a < FLOW_GROUPS ? a : -1;
}

/* A result's shape, or where only its element count is known (a
 * concatenation whose axis the shapes do not tell), rank 0 and count. */
struct flow_out { int64_t dims[8]; int rank; double count; };

/* A concatenation's result: its inputs' shapes summed along the one axis
 * where they differ; where none differs (the axis cannot be told) or
 * ranks differ (stack adds one), the summed element count alone. */
static void concat_shape(const struct flow_groups *g, struct flow_out *o)
{
    if (g->n < 1 || g->n > FLOW_GROUPS)
        return;
    int r = g->rank[0], axis = -1, same_rank = 1;
    for (int q = 0; q < g->n; q++) {
        o->count += numel(g->dims[q], g->rank[q]);
        if (g->rank[q] != r)
            same_rank = 0;
    }
    if (!same_rank || r < 1 || r > 8)
        return;
    for (int i = 0; i < r; i++)
        for (int q = 1; q < g->n; q++)
            if (g->dims[q][i] != g->dims[0][i]) {
                if (axis >= 0 && axis != i)
                    return;
                axis = i;
            }
    if (axis < 0)
        return;
    memcpy(o->dims, g->dims[0], (size_t)r * sizeof *o->dims);
    o->dims[axis] = 0;
    for (int q = 0; q < g->n; q++)
        o->dims[axis] += g->dims[q][axis];
    o->rank = r;
}

/* The output shape of op's call (rank 0 when it cannot be told). */
static void out_shape(const struct op *op, const struct flow_groups *g, enum flow_policy pol,
                      struct flow_out *o)
{
    o->rank = 0;
    o->count = 0;
    int ng = g->n < FLOW_GROUPS ? g->n : FLOW_GROUPS;
    if (is_concat(op)) {
        concat_shape(g, o);
        return;
    }
    if (op->kind == OP_CONV) {
        int64_t d[5];
        conv_output_shape(op, op_conv(op), d);
        int r = 0;
        for (int i = 0; i < 5; i++)
            if (i != 2 || d[2] > 0)
                o->dims[r++] = d[i];
        o->rank = r;
        return;
    }
    if (pol == POL_LOW && op->kind == OP_GEMM) {
        int a = act_group(op, g);
        if (a < 0 || g->rank[a] < 1 || op->n <= 0)
            return;
        o->rank = g->rank[a];
        memcpy(o->dims, g->dims[a], (size_t)o->rank * sizeof *o->dims);
        o->dims[o->rank - 1] = op->n;
        return;
    }
    if (pol == POL_EMBED) {
        if (ng < 2 || g->rank[1] > 7 || g->rank[0] < 2)
            return;
        o->rank = g->rank[1] + 1;
        memcpy(o->dims, g->dims[1], (size_t)g->rank[1] * sizeof *o->dims);
        o->dims[g->rank[1]] = g->dims[0][g->rank[0] - 1];
        return;
    }
    if (pol == POL_KEEP && est_is_view_op(op->name))
        return;
    /* elementwise and the rest: the largest input, which broadcasting
     * gives the output's shape */
    int best = -1;
    for (int i = 0; i < ng; i++)
        if (best < 0 || numel(g->dims[i], g->rank[i]) > numel(g->dims[best], g->rank[best]))
            best = i;
    if (best < 0)
        return;
    o->rank = g->rank[best];
    memcpy(o->dims, g->dims[best], (size_t)o->rank * sizeof *o->dims);
}

static void flow_put(struct flow *f, const struct flow_out *o, int prec, size_t when)
{
    if (o->rank > 0) {
        kmap_put(&f->shape, dims_key(o->dims, o->rank), prec, when);
        kmap_put(&f->count, count_key(numel(o->dims, o->rank)), prec, when);
    } else if (o->count > 0) {
        kmap_put(&f->count, count_key(o->count), prec, when);
    }
    f->cur = prec;
}

/* Forgets the step's tensors and casts (the parameters stay). */
static void flow_step(struct flow *f)
{
    kmap_release(&f->shape);
    kmap_release(&f->count);
    kmap_release(&f->cast);
    f->cur = F_FP32;
}

/* A parameter of shape d that a lower-precision call reads (in either
 * orientation when swap: a GEMM reads a linear layer's weight
 * transposed): cast unless its cast is cached (counted in *cached when
 * not NULL).  A tensor the optimizer does not step is cast at every call. */
static void param_cast(struct flow *f, const int64_t *d, int n, int swap, double *t, double *e,
                       double *cached)
{
    uint64_t k = dims_key(d, n);
    const struct kval *have = kmap_find(&f->params, k);
    if (!have && swap && n == 2) {
        int64_t r[2] = { d[1], d[0] };
        k = dims_key(r, 2);
        have = kmap_find(&f->params, k);
    }
    if (have) {
        struct kval *done = kmap_at(&f->cast, k);
        if (done->n >= have->n) {
            if (cached)
                *cached += 1;
            return;
        }
        done->n += 1;
    }
    *t += 1;
    *e += numel(d, n);
}

/* The parameters a lower-precision call casts: a convolution's weight
 * (its second input) and bias (a third of k elements), a GEMM's weight
 * (addmm's third input, else its second) and bias (addmm's first,
 * linear's third). */
static void param_casts(struct flow *f, const struct op *op, const struct flow_groups *g,
                        struct ac_call *ac)
{
    int ng = g->n < FLOW_GROUPS ? g->n : FLOW_GROUPS;
    const char *base = ops_base_name(op);
    int w = -1, b = -1, swap = 1;
    if (op->kind == OP_CONV && op_conv(op)->k > 0) {
        w = 1;
        b = ng >= 3 && g->rank[2] == 1 && g->dims[2][0] == conv_output_channels(op, op_conv(op)) ? 2 : -1;
        swap = 0;
    } else if (op->kind == OP_GEMM && op->batch <= 1) {
        int addmm = strcmp(base, "addmm") == 0, linear = strcmp(base, "linear") == 0;
        w = addmm ? 2 : 1;
        b = addmm ? 0 : linear && ng >= 3 ? 2 : -1;
        swap = !linear;
    }
    if (w >= 0 && w < ng)
        param_cast(f, g->dims[w], g->rank[w], swap, &ac->w_t, &ac->w_e, &ac->w_cached);
    if (b >= 0 && b < ng && g->rank[b] == 1)
        param_cast(f, g->dims[b], g->rank[b], 0, &ac->b_t, &ac->w_e, NULL);
}

/* A view's result, whose shape the trace does not give: a view that keeps
 * the number of elements is known by it; select and unbind drop one
 * dimension, each of which is taken as a shape it may have. */
static void flow_view(struct flow *f, const struct op *op, const struct flow_groups *g, int prec,
                      size_t when)
{
    static const char *const same_count[] = { "view", "_unsafe_view", "view_as", "reshape", "t",
                                              "transpose", "permute", "unsqueeze", "squeeze",
                                              "flatten", "unflatten", "alias", "numpy_T", NULL };
    static const char *const drop_one[] = { "select", "unbind", NULL };
    const char *base = ops_base_name(op);
    if (name_in(base, same_count)) {
        kmap_put(&f->count, count_key(numel(g->dims[0], g->rank[0])), prec, when);
        return;
    }
    if (!name_in(base, drop_one) || g->rank[0] < 2)
        return;
    for (int d = 0; d < g->rank[0]; d++) {
        struct flow_out o = { .rank = 0 };
        for (int i = 0; i < g->rank[0]; i++)
            if (i != d)
                o.dims[o.rank++] = g->dims[0][i];
        kmap_put(&f->shape, dims_key(o.dims, o.rank), prec, when);
        kmap_put(&f->count, count_key(numel(o.dims, o.rank)), prec, when);
    }
}

/* A forward call of an op autocast leaves alone (it runs in its inputs'
 * types): the share of its tensors' elements, inputs and result, that
 * are fp32, added to ac's tally.  A reduction's result is small beside
 * its input and left out. */
static void typed_call(const struct flow *f, const struct op *op, const struct flow_groups *g,
                       enum flow_policy pol, int out, const struct flow_out *o,
                       struct ac_call *ac)
{
    static const char *const reduces[] = { "sum", "prod", "norm", "linalg_vector_norm", "mean",
                                           "amax", "amin", "max", "min", NULL };
    if (est_is_view_op(op->name))
        return;
    int ng = g->n < FLOW_GROUPS ? g->n : FLOW_GROUPS;
    double all = 0, fp32 = 0;
    for (int q = 0; q < ng; q++) {
        double e = numel(g->dims[q], g->rank[q]);
        all += e;
        if (flow_type(f, g->dims[q], g->rank[q], q > 0) == F_FP32)
            fp32 += e;
    }
    if (o->rank > 0 && !(pol == POL_FP32_OUT && name_in(ops_base_name(op), reduces))) {
        double e = numel(o->dims, o->rank);
        all += e;
        if (out == F_FP32)
            fp32 += e;
    }
    if (all > 0) {
        ac->fp32_calls += fp32 / all;
        ac->fp32_n += 1;
    }
}

/* A backward call of an op autocast leaves alone: a gradient has the type
 * of the tensor it is the gradient of, found among the forward's results
 * by the shape of the call's largest input (the share of that shape's
 * results that were fp32). */
static void typed_backward(const struct flow *f, const struct op *op, struct ac_call *ac)
{
    if (ops_autocast_fp32(op, 1) || ops_keeps_precision(op) || est_is_view_op(op->name))
        return;
    enum flow_policy pol = policy(op);
    if (pol != POL_PROMOTE && pol != POL_KEEP && pol != POL_FP32_OUT)
        return;
    struct flow_groups g;
    memset(&g, 0, sizeof g);
    est_shape_groups(op->shapes, take_group, &g);
    int ng = g.n < FLOW_GROUPS ? g.n : FLOW_GROUPS, best = -1;
    for (int q = 0; q < ng; q++)
        if (best < 0 || numel(g.dims[q], g.rank[q]) > numel(g.dims[best], g.rank[best]))
            best = q;
    if (best < 0)
        return;
    const struct kval *v = kmap_find(&f->shape, dims_key(g.dims[best], g.rank[best]));
    if (!v || !(v->n_fp32 + v->n_low))
        v = kmap_find(&f->count, count_key(numel(g.dims[best], g.rank[best])));
    if (!v || !(v->n_fp32 + v->n_low))
        return;
    ac->fp32_calls += (double)v->n_fp32 / ((double)v->n_fp32 + v->n_low);
    ac->fp32_n += 1;
}

/* One forward call of op: the activations it casts (*t tensors of *e
 * elements added) and the type of its result, recorded in f. */
static void flow_call(struct flow *f, const struct op *op, size_t when, int *low_cast,
                      uint64_t *low_key, struct ac_call *ac)
{
    double *t = &ac->act_t, *e = &ac->act_e;
    struct flow_groups g;
    memset(&g, 0, sizeof g);
    est_shape_groups(op->shapes, take_group, &g);
    int ng = g.n < FLOW_GROUPS ? g.n : FLOW_GROUPS;
    enum flow_policy pol = policy(op);
    if (pol != POL_LOW && !est_is_view_op(op->name))
        *low_key = 0;
    int in0 = ng > 0 ? flow_type(f, g.dims[0], g.rank[0], 0) : f->cur;
    int out = f->cur;
    switch (pol) {
    case POL_LOW: {
        int a = act_group(op, &g);
        /* attention and batched GEMMs multiply activations that views
         * of the last results feed (heads split, keys transposed) */
        int batched = op->kind == OP_ATTENTION || (op->kind == OP_GEMM && op->batch > 1);
        if (a < 0)
            break;
        uint64_t key = dims_key(g.dims[a], g.rank[a]);
        /* GEMMs that read one activation one after the other (query,
         * key and value projections) each cast it: autocast caches the
         * casts of parameters only */
        int fp32 = batched ? f->cur == F_FP32
                   : key == *low_key ? *low_cast
                   : flow_type(f, g.dims[a], g.rank[a], 0) == F_FP32;
        if (fp32) {
            *t += 1;
            *e += numel(g.dims[a], g.rank[a]);
        }
        *low_key = key;
        *low_cast = fp32;
        if (f->params.used)
            param_casts(f, op, &g, ac);
        out = F_LOW;
        break;
    }
    case POL_FP32:
        if (ng > 0 && in0 == F_LOW) {
            *t += 1;
            *e += numel(g.dims[0], g.rank[0]);
        }
        out = F_FP32;
        break;
    case POL_FP32_OUT:
        if (f->softmax_casts && ng > 0 && in0 == F_LOW && is_softmax(op)) {
            *t += 1;
            *e += numel(g.dims[0], g.rank[0]);
        }
        out = F_FP32;
        break;
    case POL_EMBED:
        out = F_FP32;
        break;
    case POL_KEEP:
        out = in0;
        /* an explicit cast to fp32 (logits.float()): a no-op in the fp32
         * step, a cast kernel of a bf16 input under autocast */
        if (op_has_flag(op, "to-fp32")) {
            if (ng > 0 && in0 == F_LOW) {
                *t += 1;
                *e += numel(g.dims[0], g.rank[0]);
            }
            out = F_FP32;
        }
        break;
    case POL_PROMOTE: {
        /* a tensor that no op of the step made: a parameter (fp32) read
         * by an elementwise op, the last result in a concatenation */
        int param = !is_concat(op);
        out = in0;
        for (int q = 1; q < ng; q++) {
            uint64_t key = dims_key(g.dims[q], g.rank[q]);
            /* two inputs of one shape are two tensors: the latest of that
             * shape and the one before it (a residual stream and the
             * branch added to it) */
            const struct kval *v = kmap_find(&f->shape, key);
            if (key == dims_key(g.dims[0], g.rank[0]) && v && v->prev == F_FP32)
                out = F_FP32;
            if (flow_type(f, g.dims[q], g.rank[q], param) == F_FP32)
                out = F_FP32;
        }
        break;
    }
    }
    struct flow_out o;
    out_shape(op, &g, pol, &o);
    if (pol == POL_PROMOTE || pol == POL_KEEP || pol == POL_FP32_OUT)
        typed_call(f, op, &g, pol, out, &o, ac);
    flow_put(f, &o, out, when);
    if (pol == POL_KEEP && ng > 0 && est_is_view_op(op->name))
        flow_view(f, op, &g, out, when);
}

/* Autocast's casts per forward call of each op of the profile, from its
 * calls in issue order (struct ac_casts).  Returns 0, or -1 when the
 * profile has no calls to follow. */
int est_autocast_flow(const struct est *c, struct ac_casts *out)
{
    const struct profile *p = c->p;
    memset(out, 0, sizeof *out);
    if (!p->calls || !p->n_calls || !p->n_ops)
        return -1;
    struct replay_index ri;
    est_replay_index_build(p, &ri);
    struct ac_call *ac = xcalloc(p->n_ops, sizeof *ac);
    double *n = xcalloc(p->n_ops, sizeof *n);
    struct flow f;
    memset(&f, 0, sizeof f);
    f.softmax_casts = c->want != PREC_FP16 || !c->tgt_gpu;
    params_of(p, &f.params);
    int step = -1, low_cast = 0;
    uint64_t low_key = 0;
    for (size_t j = 0; j < p->n_calls; j++) {
        const struct op_call *k = &p->calls[j];
        if (k->step != step) {
            /* each step starts from its fp32 input batch */
            flow_step(&f);
            step = k->step;
            low_key = 0;
        }
        size_t i = k->op_id <= ri.max_id ? ri.idx[k->op_id] : SIZE_MAX;
        if (i != SIZE_MAX && p->ops[i].phase == PHASE_BACKWARD)
            typed_backward(&f, &p->ops[i], &ac[i]);
        if (i == SIZE_MAX || p->ops[i].phase != PHASE_FORWARD)
            continue;
        n[i] += 1;
        flow_call(&f, &p->ops[i], j + 1, &low_cast, &low_key, &ac[i]);
    }
    for (size_t i = 0; i < p->n_ops; i++)
        if (n[i] > 0) {
            ac[i].act_t /= n[i];
            ac[i].act_e /= n[i];
            ac[i].w_t /= n[i];
            ac[i].b_t /= n[i];
            ac[i].w_e /= n[i];
            ac[i].w_cached /= n[i];
        }
    free(n);
    out->params = f.params.used > 0;
    flow_step(&f);
    kmap_release(&f.params);
    est_replay_index_release(&ri);
    out->op = ac;
    return 0;
}

/* The share of op's tensor elements that would be fp32 under autocast, by
 * the walk through the profile's calls (struct ac_call); -1 where the
 * walk did not type the op (no calls, or an op autocast casts). */
double est_autocast_fp32_share(const struct est *c, const struct op *op)
{
    if (!c->flow.op || op < c->p->ops || op >= c->p->ops + c->p->n_ops)
        return -1;
    const struct ac_call *k = &c->flow.op[op - c->p->ops];
    return k->fp32_n > 0 ? k->fp32_calls / k->fp32_n : -1;
}

/* Before any op is estimated at a low precision: the walk that says
 * which tensors autocast would leave in fp32, for the casts it adds
 * (est_autocast_casts) and the ops that run in their inputs' fp32
 * (est_retarget). */
void est_autocast_begin(struct est *c)
{
    if (c->want == PREC_BF16 || c->want == PREC_FP16)
        est_autocast_flow(c, &c->flow);
}
