#include "model/est_internal.h"
#include "model/ops.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

/* -------------------------------------------------------- shape parsing */

/* Calls fn for every bracketed group of integers in text such as
 * "[4, 1024, 768], [768, 2304], []". */
void est_shape_groups(const char *s, void (*fn)(const int64_t *dims, int n, void *arg), void *arg)
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

/* The rows of a tensor flattened to 2-D ([b, t, d] gives b x t) kept
 * as the batch's, once. */
static void add_flat_rows(struct est *c, const int64_t *dims, int n)
{
    int64_t rows = 1;
    for (int i = 0; i < n - 1; i++)
        rows *= dims[i];
    for (size_t i = 0; i < c->n_flat; i++)
        if (c->flat[i] == rows)
            return;
    if (c->n_flat < MAX_FLAT)
        c->flat[c->n_flat++] = rows;
}

void est_collect_flat(const int64_t *dims, int n, void *arg)
{
    struct est *c = arg;
    if (n >= 3 && dims[0] == c->b_old)
        add_flat_rows(c, dims, n);
}

/* The rows of a tensor that leads with rows already known to be the
 * batch's (an index's per-sample length, est_collect_index_rows: a
 * graph's atoms) and flattens more dimensions into rows: [atoms,
 * neighbours, F] gives the atom-neighbour pairs, as many per sample. */
void est_collect_flat_rows(const int64_t *dims, int n, void *arg)
{
    struct est *c = arg;
    if (n < 3 || dims[0] == c->b_old)
        return;
    for (size_t i = 0; i < c->n_flat; i++)
        if (c->flat[i] == dims[0]) {
            add_flat_rows(c, dims, n);
            return;
        }
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

/* The index of an op that moves rows through one (ops_is_indexed) whose
 * rows are the batch's (a tensor leading with the batch, or with the
 * batch's flattened rows) names rows per sample: a graph's edges, a bag's
 * items, the tokens a mixture-of-experts layer routes to one expert.  Its
 * length grows with the batch (in expectation where the data decide it:
 * routed tokens are no multiple of anything), so it is a batch dimension
 * too, for the ops that carry only it (index_select_backward's gradient
 * [edges, F], an expert's GEMMs over its tokens). */
struct index_arg { struct est *c; int batch_led; int64_t len[MAX_FLAT]; size_t n; };

static void index_groups(const int64_t *dims, int n, void *arg)
{
    struct index_arg *a = arg;
    if (n >= 2 && (dims[0] == a->c->b_old || is_flat(a->c, dims[0])))
        a->batch_led = 1;
    if (n == 1 && dims[0] > 1 && dims[0] != a->c->b_old && a->n < MAX_FLAT)
        a->len[a->n++] = dims[0];
}

void est_collect_index_rows(struct est *c, const struct op *op)
{
    const char *base = op->name && strncmp(op->name, "aten::", 6) == 0 ? op->name + 6 : op->name;
    if (!op->shapes || !ops_is_indexed(base) || c->b_old <= 0)
        return;
    struct index_arg a = { c, 0, { 0 }, 0 };
    est_shape_groups(op->shapes, index_groups, &a);
    for (size_t i = 0; a.batch_led && i < a.n; i++)
        if (!is_flat(c, a.len[i]) && c->n_flat < MAX_FLAT)
            c->flat[c->n_flat++] = a.len[i];
}

void est_collect_instance_norm(struct est *c, const struct op *op)
{
    const struct op_table_sizes *ts = op_sizes(op);
    if (op->kind != OP_NORM || !op->name || !strstr(op->name, "instance_norm") ||
        ts->kdim[NORM_N] <= 0 || ts->kdim[NORM_C] <= 0 || c->n_inorm >= MAX_FLAT)
        return;
    int64_t ch = ts->kdim[NORM_N] * ts->kdim[NORM_C], sp = ts->kdim[NORM_S];
    for (size_t i = 0; i < c->n_inorm; i++)
        if (c->inorm[i].ch == ch && c->inorm[i].s == sp)
            return;
    c->inorm[c->n_inorm].ch = ch;
    c->inorm[c->n_inorm++].s = sp;
}

/* A batch norm over [1, C, S] where an instance norm of the profile has
 * [N, C / N, S] with N the profiled batch: that instance norm's gradient,
 * whose channels are the batch's samples times their channels. */
static int is_instance_backward(const struct est *c, const struct op *op, const struct shape *s)
{
    if (op->kind != OP_NORM || strcmp(op_sizes(op)->kop, "batch_norm") != 0 || s->kdim[NORM_N] != 1 ||
        s->kdim[NORM_C] % c->b_old != 0)
        return 0;
    for (size_t i = 0; i < c->n_inorm; i++)
        if (c->inorm[i].ch == s->kdim[NORM_C] && c->inorm[i].s == s->kdim[NORM_S])
            return 1;
    return 0;
}

/* ------------------------------------------------------------ op shapes */


enum precision est_op_prec(const struct profile *p, const struct op *op)
{
    if ((unsigned)op->dtype < PREC_COUNT)
        return op->dtype;
    if ((unsigned)p->dtype < PREC_COUNT)
        return p->dtype;
    return PREC_FP32;
}

/* On a CUDA GPU PyTorch runs fp32 cuDNN convolutions and recurrent
 * layers on the TF32 tensor units unless the script says otherwise
 * (torch.backends.cudnn.conv.fp32_precision and .rnn.fp32_precision
 * default to "tf32"; matrix products default to "ieee").  Read on PyTorch
 * 2.11 on an H100: a 3x3 convolution of 256 channels at batch 32 took
 * 0.53 ms by default and as TF32, 2.91 ms as IEEE fp32.  Many training
 * scripts turn it off for reproducible fp32 (the reference traces in
 * tests/data/validate ran IEEE kernels throughout), and a CPU trace does
 * not say which the GPU run will use (a Kineto GPU trace's kernel names
 * do: the reader marks such ops tf32).  So fp32 means IEEE fp32, as in the
 * tables' fp32 rows, unless --cudnn-tf32 says the target run keeps
 * PyTorch's default: then such an op runs as TF32 on a machine with TF32
 * units, whatever the profiled run used.  The precision of such an op
 * under --cudnn-tf32. */
static enum precision cudnn_fp32(const struct est *c)
{
    return machine_has_tf32(c->m) ? PREC_TF32 : PREC_FP32;
}

/* PyTorch's optimizers loop over the parameters one tensor at a time on
 * the CPU and use their _foreach_ form on a GPU (foreach=None picks it for
 * CUDA tensors: torch/optim/optimizer.py _default_to_fused_or_foreach),
 * one kernel for a chunk of tensors (ATen's multi_tensor_apply takes up to
 * 110, 64, 48, 36 or 30 tensors per launch for 1 to 5 tensor lists;
 * Adam's widest steps, addcmul_, addcdiv_ and lerp_, have 3).  So an
 * optimizer step's per-tensor elementwise op of a CPU trace runs on a GPU
 * as that many launches of the same bytes. */
#define FOREACH_TENSORS_PER_LAUNCH 48

int est_is_foreach_on_gpu(const struct est *c, const struct op *op)
{
    return !c->src_gpu && c->tgt_gpu && op->phase == PHASE_OPTIMIZER && op->kind == OP_ELEMENTWISE
           && c->p->framework && strncmp(c->p->framework, "PyTorch", 7) == 0;
}

double est_foreach_launches(double calls)
{
    return calls > 0 ? ceil(calls / FOREACH_TENSORS_PER_LAUNCH) : 1;
}

void est_shape_of(const struct est *c, const struct op *op, struct shape *s)
{
    memset(s, 0, sizeof *s);
    s->prec = est_op_prec(c->p, op);
    s->m = op->m;
    s->n = op->n;
    s->k = op->k;
    s->nb = op->batch > 0 ? op->batch : 1;
    s->conv = *op_conv(op);
    s->calls = op->count > 0 ? op->count : 1;
    s->kernels = op->kernels > 0 ? op->kernels : s->calls;
    if (est_is_foreach_on_gpu(c, op))
        s->calls = s->kernels = est_foreach_launches(op->count);
    /* a recurrent layer traced without its kernels (a CPU trace) launches
     * at least one GEMM per time step on a GPU */
    if (op->kind == OP_RNN && !(op->kernels > 0) && s->nb > 1)
        s->kernels = s->calls * (double)s->nb;
    /* and an op that PyTorch runs as several kernels on a GPU, as many */
    double kpc = est_gpu_kernels_per_call(c, op);
    if (kpc > 1)
        s->kernels = s->calls * kpc;
    s->flops = op->flops;
    s->bytes = op->bytes;
    memcpy(s->kdim, op_sizes(op)->kdim, sizeof s->kdim);
}

/* The batch size among an op's table sizes (struct op kdim; an upsampling's OP_RS_N), or -1. */
static int kdim_batch(const struct op *op)
{
    if (op_is_resample(op))
        return OP_RS_N;
    switch (op->kind) {
    case OP_RNN: return RNN_BATCH;
    case OP_ATTENTION: return ATT_BATCH;
    case OP_NORM: return NORM_N;
    case OP_EMBEDDING: return EMB_BATCH;
    default: return -1;
    }
}

/* The table sizes at the new batch: the batch entry when it is the
 * profiled batch (or a flattened batch x sequence), moved by f. */
static void retarget_kdim(const struct est *c, const struct op *op, struct shape *s, double f)
{
    int b = kdim_batch(op);
    if (b < 0 || s->kdim[b] <= 0)
        return;
    if (s->kdim[b] == c->b_old)
        s->kdim[b] = c->b_new;
    else if (is_flat(c, s->kdim[b]))
        s->kdim[b] = (int64_t)llround((double)s->kdim[b] * f);
}

static double gemm_bytes(int64_t m, int64_t n, int64_t k, int64_t nb, int eb)
{
    return (double)nb * ((double)m * k + (double)k * n + (double)m * n) * eb;
}

static int batch_moved(struct shape *s)
{
    s->batch_moved = 1;
    return 1;
}

/* Apply --precision.  Returns 1 when the op changed. */
static int retarget_precision(const struct est *c, const struct op *op, struct shape *s)
{
    int changed = 0;
    enum precision from = s->prec;
    enum precision want = c->want;
    if (c->cudnn_tf32 && (want == PREC_FP32 || (want == PREC_UNKNOWN && from == PREC_FP32))
        && (op->kind == OP_CONV || op->kind == OP_RNN)) {
        want = cudnn_fp32(c);
    } else if (c->src_gpu && want == PREC_FP32 && (from == PREC_FP32 || from == PREC_TF32)) {
        /* fp32 as the profiled run had it: its kernels said IEEE or TF32 */
        want = from;
    }
    /* The optimizer works on the fp32 master weights whatever the compute
     * precision (autocast keeps parameters in fp32), so it is left alone. */
    /* Autocast runs its fp32 list (norms over features, softmax, losses)
     * on fp32 copies of their inputs, and complex ops and FFTs stay as
     * they are (ops_keeps_precision): such ops keep fp32 in a
     * low-precision run. */
    if ((want == PREC_BF16 || want == PREC_FP16) && (from == PREC_FP32 || from == PREC_TF32) &&
        (ops_autocast_fp32(op, 1) || ops_keeps_precision(op)))
        want = from;
    /* Any other op runs in its inputs' types, which follow from the ops
     * before it: an activation that a norm or an op of the fp32 list
     * returned stays fp32 through the elementwise ops after it (and mixed
     * inputs promote to fp32) until a GEMM or convolution casts it down.
     * The walk through the profile's calls says what share of the op's
     * elements would be fp32 (est_autocast_fp32_share; -1: not known, all
     * taken as low precision). */
    double fp32_share = -1;
    if ((want == PREC_BF16 || want == PREC_FP16) && (from == PREC_FP32 || from == PREC_TF32)
        && !is_matrix_kind(op->kind))
        fp32_share = est_autocast_fp32_share(c, op);
    if (want != PREC_UNKNOWN && is_float(from) && want != from && op->kind != OP_OPTIMIZER) {
        s->prec = want;
        changed = 1;
        if (fp32_share > 0) {
            double low = (double)precision_bytes(want) / precision_bytes(from);
            s->bytes *= fp32_share + (1 - fp32_share) * low;
            /* looked up among the rows of the type most of it has */
            if (fp32_share >= 0.5)
                s->prec = from;
            s->fp32_share = fp32_share;
        } else if (!is_matrix_kind(op->kind) || op->kind == OP_ATTENTION) {
            /* tf32 is stored as fp32: only the storage size moves bytes. */
            s->bytes *= (double)precision_bytes(s->prec) / precision_bytes(from);
        } else if (op->kind == OP_GEMM || op->kind == OP_CONV) {
            s->bytes *= (double)precision_bytes(s->prec) / precision_bytes(from);
        }
    }
    return changed;
}

/* Apply --precision and --batch.  Returns 1 when the op changed.  An
 * optimizer step's work is its parameters' and their state's, whatever the
 * batch: the for-loop form of a CPU trace's step is elementwise ops in the
 * optimizer phase, whose tensors may lead with a number that equals the
 * batch's flattened rows by chance (a [3072, 768] LSTM weight beside
 * [8 x 384, ...] activations) and must not move with it. */
int est_retarget(const struct est *c, const struct op *op, struct shape *s)
{
    int changed = retarget_precision(c, op, s);
    if (c->b_new <= 0 || c->b_old <= 0 || c->b_new == c->b_old || op->kind == OP_OPTIMIZER
        || op->phase == PHASE_OPTIMIZER)
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
        retarget_kdim(c, op, s, f);
        s->flops *= r;
        if (old_b > 0)
            s->bytes *= gemm_bytes(s->m, s->n, s->k, s->nb, (int)eb) / old_b;
        return batch_moved(s);
    }
    if (op->kind == OP_CONV && s->conv.n > 0) {
        if (s->conv.n != c->b_old)
            return changed;
        s->conv.n = c->b_new;
        s->flops *= f;
        s->bytes *= f;  /* activations dominate; weights are small */
        return batch_moved(s);
    }
    if (is_instance_backward(c, op, s)) {
        s->kdim[NORM_C] = s->kdim[NORM_C] / c->b_old * c->b_new;
        s->flops *= f;
        s->bytes *= f;
        return batch_moved(s);
    }
    int prop;
    if (op->shapes) {
        struct lead_arg a = { c, 0 };
        est_shape_groups(op->shapes, check_lead, &a);
        prop = a.hit;
    } else {
        prop = op->phase == PHASE_FORWARD || op->phase == PHASE_BACKWARD;
    }
    if (!prop)
        return changed;
    retarget_kdim(c, op, s, f);
    s->flops *= f;
    s->bytes *= f;
    return batch_moved(s);
}
