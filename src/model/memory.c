#include "model/memory.h"
#include "model/ops.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *mem_optimizer_name(enum mem_optimizer o)
{
    switch (o) {
    case MEM_OPT_SGD: return "sgd";
    case MEM_OPT_MOMENTUM: return "sgd-momentum";
    case MEM_OPT_ADAM: return "adam";
    default: return "none seen";
    }
}

/* The name without the "aten::" namespace and the "_foreach_" prefix, so
 * that the for-loop and the foreach forms of an optimizer read alike. */
static const char *base_name(const char *name)
{
    const char *s = strstr(name, "::");
    s = s ? s + 2 : name;
    if (strncmp(s, "_foreach_", 9) == 0)
        s += 9;
    return s;
}

static int is_one_of(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(s, *names) == 0)
            return 1;
    return 0;
}

/* torch.optim's update rules: Adam/AdamW lerp or addcmul the first
 * moment, sqrt and addcdiv with the second (or run one fused kernel);
 * SGD with momentum scales its buffer (mul_) before adding the gradient;
 * plain SGD only adds to the weights. */
enum mem_optimizer mem_optimizer_of(const struct profile *p)
{
    static const char *const adam[] = { "lerp_", "addcmul_", "addcdiv_", "sqrt", "sqrt_",
                                        "_fused_adam_", "_fused_adamw_", NULL };
    int adam_seen = 0, mul = 0, add = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        if (op->phase != PHASE_OPTIMIZER && op->kind != OP_OPTIMIZER)
            continue;
        const char *b = base_name(op->name ? op->name : "");
        if (is_one_of(b, adam) || strstr(op->name ? op->name : "", "adam"))
            adam_seen = 1;
        else if (strcmp(b, "mul_") == 0)
            mul = 1;
        else if (strcmp(b, "add_") == 0)
            add = 1;
    }
    if (adam_seen)
        return MEM_OPT_ADAM;
    if (mul)
        return MEM_OPT_MOMENTUM;
    return add ? MEM_OPT_SGD : MEM_OPT_NONE_SEEN;
}

/* Whether autograd keeps the op's input for the backward pass.  An
 * embedding keeps only its indices (its first 2-D input is the weight
 * table, a parameter already counted); ops whose derivative does not
 * depend on their inputs (add, sub, copies and casts, concatenation,
 * fills) keep nothing. */
static int saves_input(const struct op *op)
{
    static const char *const none[] = { "add", "add_", "sub", "sub_", "neg", "to", "_to_copy",
                                        "copy_", "clone", "contiguous", "cat", "fill_", "zero_",
                                        "zeros", "ones_like", "zeros_like", "empty", "arange",
                                        "cudnn_is_acceptable", NULL };
    switch (op->kind) {
    case OP_GEMM: case OP_CONV: case OP_RNN: case OP_ATTENTION: case OP_REDUCTION: case OP_NORM:
        return 1;
    case OP_ELEMENTWISE:
        return !is_one_of(base_name(op->name ? op->name : ""), none);
    default:
        return 0;
    }
}

/* Dimensions of the n-th top-level bracketed group (0-based) of a shapes
 * text; a nested list counts as one group and its first tensor is read.
 * Returns the number of dimensions read (at most 4). */
static int group_dims(const char *shapes, int n, int t, long long dim[4])
{
    const char *s = shapes;
    int g = 0, depth = 0;
    for (; s && *s; s++) {
        if (*s == '[' && depth++ == 0 && g++ == n) {
            const char *q = s + 1;
            if (*q == '[') {            /* the t-th tensor of a list */
                for (int k = 0; k < t && q; k++) {
                    q = strchr(q, ']');
                    q = q ? strchr(q, '[') : NULL;
                }
                if (!q)
                    return 0;
                q++;
            }
            int k = 0;
            while (k < 4) {
                char *end;
                long long v = strtoll(q, &end, 10);
                if (end == q)
                    break;
                dim[k++] = v;
                q = end;
                while (*q == ',' || *q == ' ')
                    q++;
            }
            return k;
        } else if (*s == ']' && depth > 0) {
            depth--;
        }
    }
    return 0;
}

/* cuDNN's LSTM/GRU keep, per layer and direction, every time step's gate
 * activations and hidden (and cell) state for the backward pass (the
 * reserve space): (layers x directions) x steps x batch x (gates x hidden
 * + 2 x hidden) elements.  Read from aten::_cudnn_rnn's inputs: x [T, B,
 * I], the weight list (w_ih, w_hh, b_ih [gates x hidden], ...; the bias
 * keeps its length when autocast flattens the weights) and hx [layers x
 * directions, B, H].  0 when the shapes do not read as an LSTM (4 gates)
 * or GRU (3 gates). */
static double rnn_reserve_elems(const char *shapes)
{
    long long x[4], b[4], h[4];
    if (group_dims(shapes, 0, 0, x) < 3 || group_dims(shapes, 1, 2, b) < 1 ||
        group_dims(shapes, 4, 0, h) < 3 || h[2] <= 0 || (h[1] != x[0] && h[1] != x[1]) ||
        (b[0] != 3 * h[2] && b[0] != 4 * h[2]))
        return 0;
    return (double)h[0] * (double)x[0] * (double)x[1] * ((double)b[0] + 2.0 * (double)h[2]);
}

/* Elements of the first bracketed group of two or more dimensions in a
 * shapes text such as "[3072], [8192, 768], [768, 3072]"; 0 if none.
 * Nested lists (tensor lists) are skipped. */
static double first_activation_elems(const char *shapes)
{
    const char *s = shapes;
    while (s && (s = strchr(s, '[')) != NULL) {
        if (s[1] == '[') {              /* a list of tensors: skip it whole */
            const char *e = strstr(s, "]]");
            s = e ? e + 2 : NULL;
            continue;
        }
        double elems = 1;
        int dims = 0;
        const char *q = s + 1;
        while (*q && *q != ']') {
            char *end;
            long long v = strtoll(q, &end, 10);
            if (end == q)
                break;
            elems *= (double)(v > 0 ? v : 0);
            dims++;
            q = end;
            while (*q == ',' || *q == ' ')
                q++;
        }
        if (dims >= 2)
            return elems;
        s = *q ? q + 1 : NULL;
    }
    return 0;
}

static double dtype_bytes(enum precision p)
{
    switch (p) {
    case PREC_BF16: case PREC_FP16: return 2;
    case PREC_FP64: return 8;
    case PREC_FP8: case PREC_INT8: return 1;
    default: return 4;
    }
}

/* Ops whose derivative is written with their result, not their input
 * (PyTorch's tools/autograd/derivatives.yaml: relu, sigmoid, tanh, exp,
 * softmax): what they keep is their output, which the next op keeps as its
 * input and is counted there (log_softmax too, see call_saved_b).  Not
 * in-place activations: PyTorch
 * runs some (hardtanh_, MobileNet's ReLU6) through their out-of-place
 * kernel, so their input survives beside their result. */
static int keeps_result(const struct op *op)
{
    static const char *const res[] = { "relu", "sigmoid", "tanh", "exp", "softmax", "_softmax",
                                       NULL };
    return is_one_of(base_name(op->name ? op->name : ""), res);
}

static const char *const log_softmax[] = { "log_softmax", "_log_softmax", NULL };

static int is_dropout(const struct op *op)
{
    static const char *const drop[] = { "dropout", "dropout_", "native_dropout",
                                        "feature_dropout", "feature_dropout_", NULL };
    return is_one_of(base_name(op->name ? op->name : ""), drop);
}

/* Elements of the idx-th top-level group of a shapes text (0 if it is not
 * a tensor of two or more dimensions). */
static double group_elems(const char *shapes, int idx)
{
    long long d[4];
    int n = group_dims(shapes, idx, 0, d);
    double e = 1;
    for (int k = 0; k < n; k++)
        e *= (double)(d[k] > 0 ? d[k] : 0);
    return n >= 2 ? e : 0;
}

/* Bytes one call of op saves for the backward pass, and in *grad_b the
 * bytes of one gradient of its saved input (what its backward receives
 * and what it returns are alive together, each of that size). */
static double call_saved_b(const struct op *op, int autocast, double *grad_b)
{
    double bytes = autocast && ops_autocast_fp32(op, 0) ? 4 : dtype_bytes(op->dtype);
    double elems = first_activation_elems(op->shapes);
    *grad_b = elems * bytes;
    if (keeps_result(op))
        return 0;
    if (is_one_of(base_name(op->name ? op->name : ""), log_softmax))
        /* its result is the loss's input, counted there; its input is the
         * model's output, which the training loop holds through the
         * backward in the precision the last layer produced it: 16-bit
         * under autocast (a fp32 copy made for the loss is freed once
         * the loss has its result) */
        return elems * (autocast ? 2 : dtype_bytes(op->dtype));
    if (is_dropout(op)) {
        /* native_dropout keeps its bool mask, one byte an element, not
         * its input; with p = 0 (or in eval) aten::dropout returns its
         * input and launches nothing, keeping nothing */
        if (op->kernels <= 0)
            *grad_b = 0;
        return op->kernels > 0 ? elems : 0;
    }
    if (op->kind == OP_ATTENTION) {
        /* scaled_dot_product_attention's flash, efficient and cuDNN
         * backends keep query, key and value (and the output, which the
         * next op keeps) plus one fp32 log-sum-exp per query row:
         * [B, H, L] of q [B, H, L, D] */
        long long q[4];
        double kv = group_elems(op->shapes, 1) + group_elems(op->shapes, 2);
        double lse = group_dims(op->shapes, 0, 0, q) == 4 ? (double)q[0] * q[1] * q[2] : 0;
        return (elems + kv) * bytes + 4 * lse;
    }
    if (op->kind == OP_RNN)
        elems += rnn_reserve_elems(op->shapes);
    return elems * bytes;
}

/* Position of each op id in p->ops, or NULL when the profile has no
 * calls; *n_idx is the table's length. */
static size_t *op_index(const struct profile *p, size_t *n_idx)
{
    size_t max_id = 0;
    *n_idx = 0;
    if (!p->n_calls)
        return NULL;
    for (size_t i = 0; i < p->n_ops; i++)
        if (p->ops[i].id > max_id)
            max_id = p->ops[i].id;
    size_t *idx = malloc((max_id + 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (size_t i = 0; i <= max_id; i++)
        idx[i] = SIZE_MAX;
    for (size_t i = 0; i < p->n_ops; i++)
        idx[p->ops[i].id] = i;
    *n_idx = max_id + 1;
    return idx;
}

/* The backward pass frees each op's saved tensors once it has run, in the
 * reverse of the forward order, so when op i's backward runs the tensors
 * of ops 0..i are alive beside its two gradients: the peak is the largest
 * prefix of saved bytes plus that op's gradient pair, walked over the
 * first profiled step's calls in issue order.  0 when the profile has no
 * calls (then the caller takes the whole saved set and the largest
 * gradient pair, an upper bound). */
static double call_order_peak_b(const struct profile *p, int autocast, double *saved_b)
{
    size_t n_idx;
    size_t *idx = op_index(p, &n_idx);
    double prefix = 0, peak = 0;
    if (!idx)
        return 0;
    int step = p->calls[0].step;
    for (size_t j = 0; j < p->n_calls && p->calls[j].step == step; j++) {
        size_t id = p->calls[j].op_id;
        size_t i = id < n_idx ? idx[id] : SIZE_MAX;
        if (i == SIZE_MAX)
            continue;
        const struct op *op = &p->ops[i];
        if (op->phase != PHASE_FORWARD || !saves_input(op) || !op->shapes)
            continue;
        double grad_b;
        prefix += call_saved_b(op, autocast, &grad_b);
        if (prefix + 2 * grad_b > peak)
            peak = prefix + 2 * grad_b;
    }
    free(idx);
    *saved_b = prefix;
    return peak;
}

double mem_activations_b(const struct profile *p)
{
    int autocast = p->dtype == PREC_BF16 || p->dtype == PREC_FP16;
    double b = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        if (op->phase != PHASE_FORWARD || !saves_input(op) || !op->shapes)
            continue;
        double grad_b;
        b += call_saved_b(op, autocast, &grad_b) * op->count;
    }
    return b;
}

double mem_backward_peak_b(const struct profile *p)
{
    int autocast = p->dtype == PREC_BF16 || p->dtype == PREC_FP16;
    double saved_b = 0, peak = call_order_peak_b(p, autocast, &saved_b);
    if (peak > 0)
        return peak;
    double largest = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        double grad_b;
        if (op->phase != PHASE_FORWARD || !saves_input(op) || !op->shapes)
            continue;
        call_saved_b(op, autocast, &grad_b);
        if (grad_b > largest)
            largest = grad_b;
    }
    return mem_activations_b(p) + 2 * largest;
}

static int foreach_sqrt_seen(const struct profile *p)
{
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        if ((op->phase == PHASE_OPTIMIZER || op->kind == OP_OPTIMIZER) && op->name &&
            strstr(op->name, "_foreach_sqrt"))
            return 1;
    }
    return 0;
}

void mem_estimate_run(const struct profile *p, int64_t parameters, double batch_scale,
                      struct mem_estimate *out)
{
    static const double states[] = { 0, 0, 1, 2 };  /* per enum mem_optimizer */
    double scale = batch_scale > 0 ? batch_scale : 1;
    memset(out, 0, sizeof *out);
    out->optimizer = mem_optimizer_of(p);
    out->autocast = p->dtype == PREC_BF16 || p->dtype == PREC_FP16;
    out->activations_b = mem_activations_b(p) * scale;
    out->transient_b = mem_backward_peak_b(p) * scale - out->activations_b;
    if (out->transient_b < 0)
        out->transient_b = 0;
    /* cuBLAS's workspace, which PyTorch takes from its caching allocator
     * once per handle and stream: 32 MiB, the size cuBLAS recommends for
     * Hopper (cublasSetWorkspace, cuBLAS documentation; smaller devices
     * take 4 MiB, so this is the upper figure), and two handles: the
     * forward pass's thread and the autograd engine's device thread
     * (handles are per thread). */
    out->workspace_b = p->has_device ? 2.0 * 32 * 1024 * 1024 : 0;
    if (parameters <= 0)
        return;
    double n = (double)parameters;
    out->available = 1;
    out->weights_b = 4 * n;
    out->grads_b = 4 * n;
    out->optimizer_b = 4 * n * states[out->optimizer];
    out->casts_b = out->autocast ? 2 * n : 0;
    /* torch.optim's foreach Adam takes sqrt of the second moments into a
     * new list (one fp32 copy of the parameters) before addcdiv_; its
     * for-loop form holds one parameter's at a time, its fused form none,
     * and SGD's updates run in place */
    out->step_temp_b = out->optimizer == MEM_OPT_ADAM && foreach_sqrt_seen(p) ? 4 * n : 0;
    /* zero_grad(set_to_none=True), PyTorch's default since 2.0, frees the
     * gradients after every step and the backward allocates them as it
     * frees the activations: at the backward's peak (its first ops, for a
     * model whose largest gradients come last) few exist, so the step's
     * peak is the larger of the backward's (activations, no gradients)
     * and the optimizer step's (gradients and its temporaries, no
     * activations) */
    double fixed_b = out->weights_b + out->optimizer_b + out->workspace_b;
    double backward_b = fixed_b + out->casts_b + out->activations_b + out->transient_b;
    double step_b = fixed_b + out->grads_b + out->step_temp_b;
    out->peak_at_step = step_b > backward_b;
    out->total_b = out->peak_at_step ? step_b : backward_b;
}
