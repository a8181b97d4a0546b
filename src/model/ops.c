/* Op classification and the flop/byte formulas.
 *
 * Formulas (per occurrence; dtype size s from "Input type"):
 *   gemm   C[m x n] = op(A)[m x k] op(B)[k x n]:  flops = 2·m·n·k·batch
 *          aten::mm      Input Dims [[m,k],[k,n]]
 *          aten::addmm   [[bias],[m,k],[k,n]]  (the bias add, m·n, is left out
 *                        so the figure matches DeepBench's 2mnk tables)
 *          aten::bmm     [[b,m,k],[b,k,n]]            -> batch b
 *          aten::baddbmm [[bias],[b,m,k],[b,k,n]]     -> batch b
 *          a_t/b_t: 'T' when the operand's recorded strides say it is
 *          column-major (stride of the last dim != 1 and stride of the
 *          first == 1), else 'N'; 'N' when no strides were recorded.
 *          bytes = s·(m·k + k·n + m·n)·batch.
 *   conv   flops = 2·N·K·(C/groups)·R·S·P·Q with P, Q the output height and
 *          width; geometry from the input [N,C,H,W] (1-D: [N,C,W], H = 1),
 *          weight [K,C/groups,R,S] and stride/padding/dilation/groups from
 *          "Concrete Inputs" at the positions of the op's ATen schema.
 *          convolution_backward computes the input gradient and the weight
 *          gradient, each as costly as the forward: 2x forward flops (1x
 *          when its output_mask asks for only one of them).
 *          bytes = s·(input + weight + output elements).
 *   attention (q [B,H,L,D], k [B,H,S,D]): forward 4·B·H·L·S·D (QK^T and
 *          PV); backward 2.5x forward (recomputed QK^T plus four gradient
 *          products).
 *   elementwise, norm, memcpy, optimizer, embedding, reduction, other:
 *          flops = elements of the largest input (one op per element);
 *          bytes = s·(all tensor input elements + largest input elements),
 *          i.e. everything read plus one output written.  Tensor lists
 *          (_foreach_*) count every tensor of every list.
 *   rnn    (LSTM/GRU layers, fused by cuDNN/oneDNN): every time step of every
 *          layer multiplies its rows by the layer's weight matrices, so
 *          flops = 2 · rows · (elements of the 2-D weights), rows = the
 *          input's first two dims (time × batch); backward ×2 (gradients of
 *          the input and of the weights).  batch = the sequential steps per
 *          call (time steps × layers), the GEMMs a GPU runs one after the
 *          other; hidden states lead with layers × directions, then batch.
 */
#include "model/ops.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/op_args.h"

/* ---------------------------------------------------------------- names */

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int has(const char *s, const char *p)
{
    return strstr(s, p) != NULL;
}

static int is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static const char *const gemm_names[] = {
    "mm", "addmm", "bmm", "baddbmm", "_scaled_mm", "_int_mm", "addbmm", NULL,
};
static const char *const conv_names[] = {
    "convolution", "_convolution", "cudnn_convolution", "mkldnn_convolution",
    "convolution_backward", "convolution_overrideable", "cudnn_convolution_transpose",
    "miopen_convolution", "_slow_conv2d_forward", "_slow_conv2d_backward",
    "thnn_conv2d", "_nnpack_spatial_convolution", "slow_conv3d", "slow_conv_dilated2d",
    "cudnn_convolution_relu", "cudnn_convolution_add_relu", "_convolution_mode",
    "convolution_backward_overrideable", "mkldnn_convolution_backward", NULL,
};
/* Composite wrappers: they dispatch to the op that does the work. */
static const char *const transparent_names[] = {
    "linear", "matmul", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "einsum", "cross_entropy_loss",
    "contiguous", NULL,
};
static const char *const reduction_names[] = {
    "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod",
    "norm", "linalg_vector_norm", "var", "std", "var_mean", "std_mean",
    "softmax", "_softmax", "log_softmax", "_log_softmax", "_softmax_backward_data",
    "_log_softmax_backward_data", "cumsum", "logsumexp", "nll_loss", "nll_loss_forward",
    "nll_loss_backward", "nll_loss2d_forward", "nll_loss2d_backward", "mse_loss",
    "mse_loss_backward", "max_pool1d", "max_pool2d", "max_pool3d",
    "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "max_pool3d_with_indices", "avg_pool2d", "avg_pool2d_backward",
    "adaptive_avg_pool2d", "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d", "mkldnn_max_pool2d", "mkldnn_adaptive_avg_pool2d",
    "topk", "sort", "all", "any", "count_nonzero", "dot", "vdot", "mv", "addmv",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
    "l1_loss", "kl_div", "_masked_softmax", NULL,
};
static const char *const memcpy_names[] = {
    "copy_", "to", "_to_copy", "clone", "_copy_from", "_copy_from_and_resize",
    "cat", "_cat", "stack", "pin_memory", "_pin_memory", NULL,
};
/* Metadata-only ops: no data moved. */
static const char *const meta_names[] = {
    "view", "reshape", "_reshape_alias", "t", "transpose", "permute", "expand",
    "broadcast_tensors", "broadcast_to",
    "as_strided", "unsqueeze", "squeeze", "select", "slice", "detach", "alias",
    "empty", "empty_like", "empty_strided", "resize_", "set_", "flatten",
    "unflatten", "split", "split_with_sizes", "chunk", "narrow", "numpy_T",
    "lift_fresh", "_unsafe_view", "unbind", "expand_as", "view_as", "result_type",
    "is_nonzero", "item", "_local_scalar_dense", "resolve_conj", "resolve_neg",
    "_has_compatible_shallow_copy_type", "size", "stride", "dim", "_to_dense",
    "detach_", "requires_grad_", "retain_grad", "record_stream", "new_empty",
    "new_empty_strided", "_nested_tensor_from_mask_left_aligned", NULL,
};

/* Ops that move rows through an index (ops.h). */
static const char *const indexed_names[] = {
    "index_select", "index_add_", "index_add", "index_select_backward", "gather",
    "scatter_add_", "scatter_add", "index", "_index_put_impl_", NULL,
};

int ops_is_indexed(const char *base)
{
    return base && is_one_of(base, indexed_names);
}

enum precision ops_complex_parts(const char *type)
{
    static const char pre[] = "c10::complex<";
    if (!type || strncmp(type, pre, sizeof pre - 1) != 0)
        return PREC_UNKNOWN;
    const char *in = type + sizeof pre - 1;
    size_t n = strcspn(in, ">");
    if (in[n] != '>' || in[n + 1] != 0)
        return PREC_UNKNOWN;
    char part[32];
    if (n == 0 || n >= sizeof part)
        return PREC_UNKNOWN;
    memcpy(part, in, n);
    part[n] = 0;
    return precision_parse(part);
}

int ops_is_complex(const struct op *op)
{
    return op_has_flag(op, "complex");
}

const char *ops_base_name(const struct op *op)
{
    const char *base = op->name ? strstr(op->name, "::") : NULL;
    return base ? base + 2 : op->name ? op->name : "";
}

int ops_keeps_precision(const struct op *op)
{
    if (ops_is_complex(op))
        return 1;
    const char *base = ops_base_name(op);
    return starts(base, "fft_") || starts(base, "_fft_");
}

int ops_syncs_host(const char *name)
{
    /* ATen's CUDA kernels that copy a size or value to the host before
     * they return (cudaStreamSynchronize or a blocking copy):
     * nonzero and masked_select size their output by a count, _unique2
     * and the unique variants by the uniques, _local_scalar_dense is
     * item(), is_nonzero and equal return a bool */
    static const char *const names[] = {
        "nonzero", "nonzero_numpy", "masked_select", "_unique2", "unique_consecutive",
        "unique_dim", "_local_scalar_dense", "item", "is_nonzero", "equal", NULL,
    };
    if (!name || strncmp(name, "aten::", 6) != 0)
        return 0;
    return is_one_of(name + 6, names);
}

/* TorchInductor names its generated kernels (and the cpu_ops that launch
 * them) by template: triton_poi_ pointwise, triton_red_ reduction,
 * triton_per_ persistent reduction, triton_tem_ a GEMM or convolution
 * template (torch/_inductor/codegen/triton.py, select_algorithm.py). */
static enum op_kind triton_kind(const char *name)
{
    if (starts(name, "triton_poi_"))
        return OP_ELEMENTWISE;
    if (starts(name, "triton_red_") || starts(name, "triton_per_"))
        return OP_REDUCTION;
    if (starts(name, "triton_tem_"))
        return has(name, "convolution") ? OP_CONV : OP_GEMM;
    return OP_OTHER;
}

void ops_classify(const char *name, struct op_class *c)
{
    memset(c, 0, sizeof *c);
    c->kind = OP_OTHER;
    if (!name)
        return;
    if (starts(name, "autograd::engine::evaluate_function")) {
        c->transparent = 1;
        c->backward = 1;
        return;
    }
    /* torch.compile's spans: the region and the compiled autograd
     * function hold the kernels of the ops compiled into them */
    if (starts(name, "ProfilerStep#") || starts(name, "Optimizer.") ||
        starts(name, "torch::autograd::") || starts(name, "Torch-Compiled Region") ||
        strcmp(name, "CompiledFunction") == 0) {
        c->transparent = 1;
        c->backward = starts(name, "torch::autograd::");
        return;
    }
    const char *base = starts(name, "aten::") ? name + 6 : NULL;
    if (!base) {
        /* Autograd nodes ("AddmmBackward0") and other non-aten spans. */
        if (has(name, "Backward")) {
            c->transparent = 1;
            c->backward = 1;
            return;
        }
        if (starts(name, "triton_")) {
            c->kind = triton_kind(name);
            c->major = c->kind == OP_GEMM || c->kind == OP_CONV;
        } else if (has(name, "nccl") || starts(name, "c10d::") || has(name, "record_param_comms"))
            c->kind = OP_COMM;
        else if (has(name, "Optimizer") || has(name, "optimizer"))
            c->kind = OP_OPTIMIZER;
        return;
    }
    c->backward = has(base, "backward");
    if (is_one_of(base, transparent_names)) {
        c->transparent = 1;
    } else if (is_one_of(base, gemm_names)) {
        c->kind = OP_GEMM;
    } else if (is_one_of(base, conv_names) || (has(base, "conv") && has(base, "olution"))) {
        c->kind = OP_CONV;
    } else if (has(base, "attention") || has(base, "flash") || has(base, "_efficient_attention")) {
        c->kind = OP_ATTENTION;
    } else if (has(base, "rnn") || has(base, "lstm") || has(base, "gru")) {
        c->kind = OP_RNN;
    } else if (starts(base, "_foreach_") || starts(base, "_fused_adam") ||
               starts(base, "_fused_sgd") || starts(base, "_fused_adagrad")) {
        c->kind = OP_OPTIMIZER;
    } else if (has(base, "batch_norm") || has(base, "layer_norm") || has(base, "group_norm") ||
               has(base, "instance_norm") || has(base, "rms_norm")) {
        c->kind = OP_NORM;
    } else if (starts(base, "embedding") || starts(base, "_embedding")) {
        c->kind = OP_EMBEDDING;
    } else if (has(base, "nccl") || starts(base, "all_reduce") || starts(base, "all_gather") ||
               starts(base, "reduce_scatter") || strcmp(base, "broadcast") == 0 ||
               strcmp(base, "broadcast_") == 0) {
        /* broadcast the collective, not broadcast_tensors / broadcast_to
         * (shape operations) */
        c->kind = OP_COMM;
    } else if (is_one_of(base, reduction_names)) {
        c->kind = OP_REDUCTION;
    } else if (is_one_of(base, memcpy_names)) {
        c->kind = OP_MEMCPY;
    } else if (is_one_of(base, meta_names)) {
        c->kind = OP_OTHER;
    } else {
        /* What remains in ATen is overwhelmingly pointwise: add, mul,
         * relu, threshold_backward, gelu, dropout, fill_, zero_, where,
         * index, gather, masked_fill, addcmul_, ... */
        c->kind = OP_ELEMENTWISE;
    }
    c->major = c->kind == OP_GEMM || c->kind == OP_CONV || c->kind == OP_ATTENTION ||
               c->kind == OP_RNN;
}

/* "gemm" as a word of a kernel's name, not inside "fbgemm" (the FBGEMM
 * library's kernels are embedding lookups, permutations and quantisation
 * more often than GEMMs). */
static int has_gemm(const char *name)
{
    for (const char *s = strstr(name, "gemm"); s; s = strstr(s + 1, "gemm"))
        if (!(s - name >= 2 && s[-2] == 'f' && s[-1] == 'b'))
            return 1;
    return 0;
}

static const char *const conv_kernel_words[] = {
    "convolve", "convolution", "Convolution", "conv2d", "conv3d", "conv1d",
    "fprop", "dgrad", "wgrad", "implicit_gemm", "ImplicitGemm", NULL,
};
static const char *const norm_kernel_words[] = {
    "batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
    "bn_fw", "bn_bw", NULL,
};

static int has_any(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (has(s, *words))
            return 1;
    return 0;
}

/* A kernel no op claimed, by the words of its name.  Order matters where
 * words overlap: cuDNN's implicit-GEMM convolutions (fprop, dgrad, wgrad)
 * and cuBLASLt's split-K reduction of a GEMM hold "gemm" or "reduce". */
enum op_kind ops_classify_kernel(const char *name)
{
    if (!name)
        return OP_OTHER;
    if (starts(name, "triton_"))
        return triton_kind(name);
    if (has(name, "nccl") || has(name, "rccl"))
        return OP_COMM;
    if (starts(name, "Memcpy") || starts(name, "Memset") || has(name, "memcpy"))
        return OP_MEMCPY;
    if (has(name, "flash") || has(name, "fmha") || has(name, "attention"))
        return OP_ATTENTION;
    if (has(name, "embedding"))
        return OP_EMBEDDING;
    if (has_any(name, conv_kernel_words))
        return OP_CONV;
    if (has_gemm(name) || has(name, "cutlass") || has(name, "Cijk_") || has(name, "xmma") ||
        has(name, "splitKreduce"))
        return OP_GEMM;
    if (has_any(name, norm_kernel_words))
        return OP_NORM;
    if (has(name, "reduce_kernel") || has(name, "softmax"))
        return OP_REDUCTION;
    if (has(name, "elementwise"))
        return OP_ELEMENTWISE;
    return OP_OTHER;
}

/* ------------------------------------------------- recorded argument text */

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* Parse one bracketed element at s into t (a list of ints, or a list of
 * such lists).  Returns the position after it, or NULL on garbage. */
static const char *parse_tensor(const char *s, struct targ *t)
{
    s = skip_ws(s);
    if (*s != '[')
        return NULL;
    s = skip_ws(s + 1);
    if (*s == '[') {
        /* a tensor list */
        while (*s == '[') {
            struct targ sub;
            memset(&sub, 0, sizeof sub);
            s = parse_tensor(s, &sub);
            if (!s)
                return NULL;
            if (sub.present) {
                if (!t->present) {
                    t->ndim = sub.ndim;
                    memcpy(t->d, sub.d, sizeof t->d);
                }
                t->present = 1;
                t->ntensors += sub.ntensors;
                t->elems += sub.elems;
            }
            s = skip_ws(s);
            if (*s == ',')
                s = skip_ws(s + 1);
        }
        s = skip_ws(s);
        return *s == ']' ? s + 1 : NULL;
    }
    double e = 1;
    while (*s && *s != ']') {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0)
            return NULL;    /* a negative size is a corrupt record, not a shape */
        if (t->ndim < MAX_DIMS)
            t->d[t->ndim] = v;
        t->ndim++;
        e *= (double)v;
        s = skip_ws(end);
        if (*s == ',')
            s = skip_ws(s + 1);
    }
    if (*s != ']')
        return NULL;
    if (t->ndim > MAX_DIMS)
        t->ndim = MAX_DIMS;
    /* [] is a non-tensor argument; a 0-d tensor also shows as [] and
     * holds one element, too small to matter. */
    if (t->ndim > 0) {
        t->present = 1;
        t->ntensors = 1;
        t->elems = e;
    }
    return s + 1;
}

/* The arguments of a list's body, s just past its opening bracket (or an
 * op's shapes text, which has none), up to its closing bracket or end. */
static int parse_args(const char *s, struct targ *args)
{
    memset(args, 0, sizeof(struct targ) * MAX_ARGS);
    s = skip_ws(s);
    int n = 0;
    while (*s && *s != ']') {
        struct targ tmp;
        memset(&tmp, 0, sizeof tmp);
        s = parse_tensor(s, n < MAX_ARGS ? &args[n] : &tmp);
        if (!s)
            return n;
        n++;
        s = skip_ws(s);
        if (*s == ',')
            s = skip_ws(s + 1);
    }
    return n < MAX_ARGS ? n : MAX_ARGS;
}

static int parse_dims(const char *s, struct targ *args)
{
    memset(args, 0, sizeof(struct targ) * MAX_ARGS);
    if (!s)
        return 0;
    s = skip_ws(s);
    return *s == '[' ? parse_args(s + 1, args) : 0;
}

/* Parse a JSON list of strings into out[] (malloc'd, caller frees). */
static int parse_strlist(const char *s, char **out, int max)
{
    int n = 0;
    if (!s)
        return 0;
    s = skip_ws(s);
    if (*s != '[')
        return 0;
    s++;
    for (;;) {
        s = skip_ws(s);
        if (*s != '"')
            break;
        s++;
        struct strbuf sb = STRBUF_INIT;
        while (*s && *s != '"') {
            if (*s == '\\' && s[1])
                s++;
            strbuf_addch(&sb, *s++);
        }
        if (*s == '"')
            s++;
        if (n < max)
            out[n++] = strbuf_detach(&sb);
        else
            strbuf_release(&sb);
        s = skip_ws(s);
        if (*s != ',')
            break;
        s++;
    }
    return n;
}

static void free_strlist(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
}

int ops_parse_intlist(const char *s, int64_t *v, int max)
{
    int n = 0;
    if (!s)
        return 0;
    while (*s && n < max) {
        if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))) {
            char *end;
            v[n++] = strtoll(s, &end, 10);
            s = end;
        } else {
            s++;
        }
    }
    return n;
}

/* ------------------------------------------------------------- formulas */

static void gemm_orient(const struct targ *st, int i, char *t)
{
    *t = 'N';
    if (!st[i].present || st[i].ndim < 2)
        return;
    int64_t s_row = st[i].d[st[i].ndim - 2], s_col = st[i].d[st[i].ndim - 1];
    if (s_col != 1 && s_row == 1)
        *t = 'T';
}

static void fill_gemm(struct op *o, const struct targ *a, int na, const struct targ *st, int nst,
                      double *flops1)
{
    const char *base = o->name + 6;
    int off = (strcmp(base, "addmm") == 0 || strcmp(base, "baddbmm") == 0 ||
               strcmp(base, "addbmm") == 0) ? 1 : 0;
    if (na < off + 2 || !a[off].present || !a[off + 1].present)
        return;
    const struct targ *A = &a[off], *B = &a[off + 1];
    if (A->ndim == 2 && B->ndim == 2) {
        o->m = A->d[0];
        o->k = A->d[1];
        o->n = B->d[1];
        o->batch = 1;
    } else if (A->ndim == 3 && B->ndim == 3) {
        o->batch = A->d[0];
        o->m = A->d[1];
        o->k = A->d[2];
        o->n = B->d[2];
        if (strcmp(base, "addbmm") == 0) {
            /* sum over the batch of products: same flops as bmm */
        }
    } else {
        return;
    }
    if (nst >= off + 2) {
        gemm_orient(st, off, &o->a_t);
        gemm_orient(st, off + 1, &o->b_t);
    } else {
        o->a_t = 'N';
        o->b_t = 'N';
    }
    *flops1 = 2.0 * (double)o->m * (double)o->n * (double)o->k * (double)o->batch;
}

/* Positions in the ATen schemas of (input, weight, stride, padding,
 * dilation, groups, output_mask, bias, transposed, output_padding); -1
 * when absent, and `transposed` CONV_TRANSPOSED for an op that is a
 * transposed convolution by its name (cuDNN's, whose trace row a GPU
 * trace keeps under the `convolution` that names it).  bias: the
 * forward's bias tensor (cuDNN's convolution takes none: PyTorch adds the
 * bias after it, see est_conv_bias). */
#define CONV_TRANSPOSED (-2)

static const struct conv_schema {
    const char *name;
    int input, weight, grad_out, stride, pad, dil, groups, mask, bias, transposed, out_pad;
} conv_schemas[] = {
    { "convolution", 0, 1, -1, 3, 4, 5, 8, -1, 2, 6, 7 },
    { "_convolution", 0, 1, -1, 3, 4, 5, 8, -1, 2, 6, 7 },
    { "convolution_overrideable", 0, 1, -1, 3, 4, 5, 8, -1, 2, 6, 7 },
    { "cudnn_convolution", 0, 1, -1, 3, 2, 4, 5, -1, -1, -1, -1 },
    { "cudnn_convolution_transpose", 0, 1, -1, 4, 2, 5, 6, -1, -1, CONV_TRANSPOSED, 3 },
    { "miopen_convolution", 0, 1, -1, 4, 3, 5, 6, -1, 2, -1, -1 },
    { "mkldnn_convolution", 0, 1, -1, 4, 3, 5, 6, -1, 2, -1, -1 },
    { "convolution_backward", 1, 2, 0, 4, 5, 6, 9, 10, -1, 7, 8 },
    { "convolution_backward_overrideable", 1, 2, 0, 3, 4, 5, 8, 9, -1, 6, 7 },
    { "_slow_conv2d_forward", 0, 1, -1, 4, 5, -1, -1, -1, 3, -1, -1 },
    { "thnn_conv2d", 0, 1, -1, 4, 5, -1, -1, -1, 3, -1, -1 },
};

/* Stride, padding or dilation at conc[idx] as (d, h, w); a single
 * value applies to every spatial dimension, absent ones are dflt. */
static void conv_triple(char **conc, int nconc, int idx, int spatial, int64_t dflt, int64_t *dhw)
{
    dhw[0] = dhw[1] = dhw[2] = dflt;
    if (idx < 0 || idx >= nconc)
        return;
    int64_t v[3];
    int n = ops_parse_intlist(conc[idx], v, 3);
    for (int i = 0; i < spatial && n > 0; i++)
        dhw[3 - spatial + i] = v[i < n ? i : n - 1];
}

/* Output size (in + 2 pad - dil (r - 1) - 1) / stride + 1 of a conv; the
 * sizes come from a trace, so arithmetic that would overflow int64 makes
 * the shape unknown (-1) rather than undefined. */
static int conv_out_dim(int64_t in, int64_t pad, int64_t dil, int64_t r, int64_t stride,
                        int64_t *out)
{
    int64_t span, t;
    if (__builtin_mul_overflow(dil, r - 1, &span) || __builtin_mul_overflow(pad, 2, &t) ||
        __builtin_add_overflow(in, t, &t) || __builtin_sub_overflow(t, span, &t) ||
        __builtin_sub_overflow(t, 1, &t))
        return -1;
    *out = t / stride + 1;
    return 0;
}

/* The argument positions of a convolution op, by its name (NULL for an
 * op none describes). */
static const struct conv_schema *conv_schema_of(const struct op *o)
{
    const char *base = o->name && strncmp(o->name, "aten::", 6) == 0 ? o->name + 6 : "";
    for (size_t i = 0; i < sizeof conv_schemas / sizeof conv_schemas[0]; i++)
        if (strcmp(base, conv_schemas[i].name) == 0)
            return &conv_schemas[i];
    return NULL;
}

/* A convolution backward's products by its output_mask "[True, True,
 * False]" (input gradient, weight gradient, bias gradient): 2 without
 * one; *bias becomes the mask's third. */
static double conv_grad_mult(const char *m, int *bias)
{
    if (!m)
        return 2;
    int t0 = 0, t1 = 0, seen = 0;
    for (const char *p = m; *p; p++) {
        if (*p == 'T' || *p == 'F') {
            if (seen == 0)
                t0 = *p == 'T';
            else if (seen == 1)
                t1 = *p == 'T';
            else if (seen == 2)
                *bias = *p == 'T';
            seen++;
            while (*p && *p != ',' && *p != ']')
                p++;
            if (!*p)
                break;
        }
    }
    return seen >= 2 ? t0 + t1 : 2;
}

/* Whether the argument at conc[idx] reads "True". */
static int conc_true(char **conc, int nconc, int idx)
{
    return idx >= 0 && idx < nconc && strcmp(conc[idx], "True") == 0;
}

/* A transposed convolution (ConvTranspose, "transposed" True in its
 * arguments) computes the data gradient of the convolution that maps its
 * output back to its input, with the same stride, padding and dilation:
 * it is kept as that convolution, whose input is its output and whose
 * output is its input (its weight [Cin, Cout / groups, ...] is that
 * convolution's [k, c / groups, ...]), so that the flops, the bytes and
 * the table rows are those of the work done: 2 x N x Cin x Cout / groups
 * x kernel x input positions.  Its output size, where no gradient says
 * it: (in - 1) stride - 2 pad + dil (r - 1) + output_padding + 1. */
static int conv_transposed_geometry(struct conv_shape *c, const struct targ *wt, char **conc, int nconc,
                                    const struct conv_schema *cs)
{
    int spatial = c->dims;
    int64_t opad[3];
    conv_triple(conc, nconc, cs->out_pad, spatial, 0, opad);
    int64_t strd[3] = { c->stride_d, c->stride_h, c->stride_w }, pd[3] = { c->pad_d, c->pad_h, c->pad_w },
            dl[3] = { c->dil_d, c->dil_h, c->dil_w }, kr[3] = { c->t, c->r, c->s },
            src[3] = { c->d, c->h, c->w }, out[3];
    /* the sizes come from a trace: arithmetic that would overflow int64
     * leaves the shape unknown */
    for (int i = 0; i < 3; i++) {
        int64_t t, pad2, span;
        if (__builtin_sub_overflow(src[i], 1, &t) || __builtin_mul_overflow(t, strd[i], &t) ||
            __builtin_mul_overflow(pd[i], 2, &pad2) || __builtin_sub_overflow(t, pad2, &t) ||
            __builtin_sub_overflow(kr[i], 1, &span) || __builtin_mul_overflow(dl[i], span, &span) ||
            __builtin_add_overflow(t, span, &t) ||
            __builtin_add_overflow(t, opad[i], &t) || __builtin_add_overflow(t, 1, &t))
            return -1;
        out[i] = t;
    }
    int64_t cout;
    if (__builtin_mul_overflow(wt->d[1], c->groups, &cout))
        return -1;
    c->o = src[0], c->p = src[1], c->q = src[2];
    c->d = out[0], c->h = out[1], c->w = out[2];
    c->k = wt->d[0];
    c->c = cout;
    return 0;
}

static void fill_conv(struct op *o, const struct targ *a, int na, char **conc, int nconc,
                      double *flops1, double *bytes1, int esz)
{
    const struct conv_schema *cs = conv_schema_of(o);
    if (!cs || cs->input >= na || cs->weight >= na)
        return;
    const struct targ *in = &a[cs->input], *wt = &a[cs->weight];
    if (!in->present || !wt->present || in->ndim < 3 || in->ndim > 5 || wt->ndim != in->ndim)
        return;
    struct conv_shape *c = op_conv_mut(o);
    int spatial = in->ndim - 2;
    int transposed = cs->transposed == CONV_TRANSPOSED || conc_true(conc, nconc, cs->transposed);
    int64_t stride[3], pad[3], dil[3];
    c->dims = spatial;
    c->n = in->d[0];
    c->c = in->d[1];
    c->d = spatial == 3 ? in->d[2] : 1;
    c->h = spatial >= 2 ? in->d[in->ndim - 2] : 1;
    c->w = in->d[in->ndim - 1];
    c->k = wt->d[0];
    c->t = spatial == 3 ? wt->d[2] : 1;
    c->r = spatial >= 2 ? wt->d[wt->ndim - 2] : 1;
    c->s = wt->d[wt->ndim - 1];
    conv_triple(conc, nconc, cs->stride, spatial, 1, stride);
    conv_triple(conc, nconc, cs->pad, spatial, 0, pad);
    conv_triple(conc, nconc, cs->dil, spatial, 1, dil);
    c->stride_d = stride[0], c->stride_h = stride[1], c->stride_w = stride[2];
    c->pad_d = pad[0], c->pad_h = pad[1], c->pad_w = pad[2];
    c->dil_d = dil[0], c->dil_h = dil[1], c->dil_w = dil[2];
    c->groups = 1;
    if (cs->groups >= 0 && cs->groups < nconc) {
        int64_t g;
        if (ops_parse_intlist(conc[cs->groups], &g, 1) == 1 && g > 0)
            c->groups = g;
    }
    if (c->stride_d <= 0 || c->stride_h <= 0 || c->stride_w <= 0)
        return;
    if (transposed) {
        if (conv_transposed_geometry(c, wt, conc, nconc, cs) < 0)
            return;
        op_add_flag(o, "transposed");
    } else if (conv_out_dim(c->d, c->pad_d, c->dil_d, c->t, c->stride_d, &c->o) < 0 ||
               conv_out_dim(c->h, c->pad_h, c->dil_h, c->r, c->stride_h, &c->p) < 0 ||
               conv_out_dim(c->w, c->pad_w, c->dil_w, c->s, c->stride_w, &c->q) < 0) {
        return;
    }
    if (cs->grad_out >= 0 && cs->grad_out < na && a[cs->grad_out].present &&
        a[cs->grad_out].ndim == in->ndim) {
        /* the gradient's shape is the forward output's: trust it (a
         * transposed convolution's output is the input of the
         * convolution it is kept as) */
        const struct targ *g = &a[cs->grad_out];
        int64_t *od = transposed ? &c->d : &c->o, *ph = transposed ? &c->h : &c->p,
                *qw = transposed ? &c->w : &c->q;
        *od = spatial == 3 ? g->d[2] : 1;
        *ph = spatial >= 2 ? g->d[g->ndim - 2] : 1;
        *qw = g->d[g->ndim - 1];
    }
    if (c->o <= 0 || c->p <= 0 || c->q <= 0 || c->d <= 0 || c->h <= 0 || c->w <= 0)
        return;
    double fwd = 2.0 * (double)c->n * (double)c->k * (double)(c->c / c->groups) * (double)c->t *
                 (double)c->r * (double)c->s * (double)c->o * (double)c->p * (double)c->q;
    int bias = cs->bias >= 0 && cs->bias < na && a[cs->bias].present && a[cs->bias].ndim == 1
               && a[cs->bias].d[0] == conv_output_channels(o, c);
    double mult = cs->mask >= 0 ? conv_grad_mult(cs->mask < nconc ? conc[cs->mask] : NULL, &bias) : 1;
    *flops1 = fwd * mult;
    /* the convolution's input, weight and output (a transposed one's
     * output and input) */
    *bytes1 = (double)esz * ((double)c->n * (double)c->c * (double)c->d * (double)c->h * (double)c->w
                             + wt->elems + (double)c->n * (double)c->k * (double)c->o * (double)c->p
                             * (double)c->q);
    /* a bias added (forward) or its gradient summed (backward): which
     * kernels do that depends on the backend (est_conv_bias) */
    if (bias)
        op_add_flag(o, "bias");
}

static void fill_rnn(struct op *o, const struct targ *a, int na, double *flops1)
{
    if (na < 2 || !a[0].present || a[0].ndim != 3)
        return;
    double rows = (double)a[0].d[0] * (double)a[0].d[1], w = 0;
    int64_t layers = 1, batch = 0;
    for (int i = 1; i < na; i++) {
        if (!a[i].present)
            continue;
        if (a[i].ndim == 2)
            w += a[i].elems;            /* weights (biases are 1-D) */
        else if (a[i].ndim == 3 && !batch && (double)a[i].d[0] * (double)a[i].d[1] != rows) {
            /* hidden state: layers x dirs, batch, hidden (a 3-D tensor
             * of rows x features is a sequence: an output or gradient) */
            layers = a[i].d[0];
            batch = a[i].d[1];
        }
    }
    if (!(w > 0))
        return;
    *flops1 = 2.0 * rows * w * (has(o->name, "backward") ? 2 : 1);
    /* time steps: rows / batch; a single-layer op without a 3-D hidden
     * state (oneDNN's rnn_layer) takes its input time-major */
    int64_t steps = batch > 0 ? (int64_t)(rows / (double)batch) : a[0].d[0];
    if (steps > 0 && layers > 0)
        o->batch = steps * layers;
}

static void fill_attention(struct op *o, const struct targ *a, int na, double *flops1)
{
    if (na < 2 || !a[0].present || !a[1].present || a[0].ndim != 4 || a[1].ndim != 4)
        return;
    /* backward ops take grad_out first, then q, k */
    int qi = 0;
    if (has(o->name, "backward") && na >= 3 && a[2].present && a[2].ndim == 4)
        qi = 1;
    const struct targ *q = &a[qi], *k = &a[qi + 1];
    double f = 4.0 * (double)q->d[0] * (double)q->d[1] * (double)q->d[2] *
               (double)k->d[2] * (double)q->d[3];
    if (qi == 1 || o->phase == PHASE_BACKWARD)
        f *= 2.5;
    *flops1 = f;
}

/* Tensor i of a 2-D or 3-D convolution laid out channels-last (NHWC,
 * NDHWC: PyTorch's torch.channels_last formats), by its recorded strides:
 * channels adjacent (stride 1) while the channels and the spatial extent
 * are more than one element each, where the strides tell nothing. */
static int arg_channels_last(const struct targ *a, int na, const struct targ *st, int nst, int i)
{
    if (i < 0 || i >= na || i >= nst || !a[i].present || (a[i].ndim != 4 && a[i].ndim != 5)
        || st[i].ndim != a[i].ndim || a[i].d[1] < 2)
        return 0;
    int64_t spatial = 1;
    for (int k = 2; k < a[i].ndim; k++)
        spatial *= a[i].d[k];
    return spatial > 1 && st[i].d[1] == 1;
}

/* Whether cuDNN runs the convolution on channels-last tensors: PyTorch
 * asks for that layout when its input or its weight is channels-last
 * (cudnn_conv_suggest_memory_format), and brings the other tensors, a
 * backward pass's incoming gradient too, to it.  That gradient's own
 * strides say nothing: a layer whose output is viewed transposed (a
 * vision transformer's patch embedding) receives a channels-last-strided
 * gradient for a contiguous convolution.  Ops without a known schema:
 * their first tensor. */
static int channels_last(const struct op *o, const struct targ *a, int na, const struct targ *st,
                         int nst)
{
    const struct conv_schema *cs = conv_schema_of(o);
    if (!cs)
        return arg_channels_last(a, na, st, nst, 0);
    return arg_channels_last(a, na, st, nst, cs->input) || arg_channels_last(a, na, st, nst, cs->weight);
}

/* The output elements of a gather, whose output follows its index, not
 * its largest input: index_select(self, dim, index) gives self with dim
 * cut to the index's length, gather(self, dim, index) the index's shape.
 * Any other op (or a gather without the arguments to tell): dflt. */
static double gathered_elems(const char *name, const struct targ *a, int na, char **conc, int nc,
                             double dflt)
{
    const char *base = starts(name, "aten::") ? name + 6 : name;
    if (strcmp(base, "gather") == 0 && na >= 3 && a[2].present)
        return a[2].elems;
    if (strcmp(base, "index_select") != 0 || na < 3 || !a[0].present || !a[2].present ||
        nc < 2 || !conc[1])
        return dflt;
    int64_t dim;
    if (ops_parse_intlist(conc[1], &dim, 1) != 1)
        return dflt;
    if (dim < 0)
        dim += a[0].ndim;
    if (dim < 0 || dim >= a[0].ndim || a[0].d[dim] < 1)
        return dflt;
    return a[0].elems / (double)a[0].d[dim] * a[2].elems;
}

/* dtype: the first tensor argument that has one; a complex one is two
 * parts of its precision (flag "complex").  Returns 1 when complex. */
static int fill_dtype(struct op *o, const struct targ *a, int na, char *const *types, int nt)
{
    o->dtype = PREC_UNKNOWN;
    for (int i = 0; i < nt; i++) {
        if (i < na && !a[i].present)
            continue;
        enum precision p = precision_parse(types[i]);
        int cplx = 0;
        if (p == PREC_UNKNOWN && (p = ops_complex_parts(types[i])) != PREC_UNKNOWN)
            cplx = 1;
        if (p != PREC_UNKNOWN) {
            o->dtype = p;
            if (cplx)
                op_add_flag(o, "complex");
            return cplx;
        }
    }
    return 0;
}

int64_t conv_output_channels(const struct op *op, const struct conv_shape *cs)
{
    return op_has_flag(op, "transposed") ? cs->c : cs->k;
}

void conv_output_shape(const struct op *op, const struct conv_shape *cs, int64_t out[5])
{
    int tr = op_has_flag(op, "transposed");
    out[0] = cs->n;
    out[1] = tr ? cs->c : cs->k;
    out[2] = tr ? cs->d : cs->o;
    out[3] = tr ? cs->h : cs->p;
    out[4] = tr ? cs->w : cs->q;
}

double conv_output_elems(const struct op *op, const struct conv_shape *cs)
{
    int64_t d[5];
    conv_output_shape(op, cs, d);
    return (double)d[0] * (double)d[1] * (double)(d[2] > 0 ? d[2] : 1) * (double)(d[3] > 0 ? d[3] : 1)
           * (double)d[4];
}

/* Whether a call is Tensor.to or _to_copy to float32 (ScalarType 6, the
 * dtype argument second, or third after a device): a no-op in an fp32
 * step, a cast kernel under autocast when its input is bf16 (a model's
 * logits.float() before its loss). */
static int casts_to_fp32(const char *name, char *const *types, int nt, char *const *conc, int nc)
{
    if (!name || (strcmp(name, "aten::to") != 0 && strcmp(name, "aten::_to_copy") != 0))
        return 0;
    for (int i = 1; i <= 2 && i < nc && i < nt; i++)
        if (conc[i] && types[i] && strcmp(types[i], "Scalar") == 0)
            return strcmp(conc[i], "6") == 0;
    return 0;
}

void ops_fill(struct op *o, const struct op_args *args, double *flops1, double *bytes1)
{
    struct targ a[MAX_ARGS], st[MAX_ARGS];
    char *types[MAX_ARGS], *conc[MAX_ARGS];
    int na = parse_dims(args->dims, a);
    int nst = parse_dims(args->strides, st);
    int nt = parse_strlist(args->types, types, MAX_ARGS);
    int nc = parse_strlist(args->concrete, conc, MAX_ARGS);
    *flops1 = 0;
    *bytes1 = 0;

    int cplx = fill_dtype(o, a, na, types, nt);
    int esz = precision_bytes(o->dtype) * (cplx ? 2 : 1);

    /* shapes text: the tensor arguments, "[100, 29532], [1000, 29532]" */
    if (args->dims) {
        const char *s = skip_ws(args->dims);
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\n'))
            len--;
        if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
            o->shapes = xstrndup(s + 1, len - 2);
        else
            o->shapes = xstrdup(s);
    }

    double all = 0, largest = 0;
    for (int i = 0; i < na; i++) {
        if (!a[i].present)
            continue;
        all += a[i].elems;
        if (a[i].elems > largest)
            largest = a[i].elems;
    }

    switch (o->kind) {
    case OP_GEMM:
        fill_gemm(o, a, na, st, nst, flops1);
        /* a complex multiply-add is four real products and four adds */
        if (cplx)
            *flops1 *= 4;
        if (*flops1 > 0)
            *bytes1 = (double)esz * ((double)o->m * o->k + (double)o->k * o->n +
                                     (double)o->m * o->n) * (double)o->batch;
        else
            *bytes1 = esz * (all + largest);
        break;
    case OP_CONV:
        fill_conv(o, a, na, conc, nc, flops1, bytes1, esz);
        if (channels_last(o, a, na, st, nst))
            op_add_flag(o, "channels-last");
        if (*flops1 == 0)
            *bytes1 = esz * (all + largest);
        break;
    case OP_ATTENTION:
        fill_attention(o, a, na, flops1);
        *bytes1 = esz * (all + largest);
        break;
    case OP_RNN:
        fill_rnn(o, a, na, flops1);
        *bytes1 = esz * (all + largest);
        break;
    default: {
        /* one output as large as the largest input, except where a gather
         * makes one of the index's length (gathered_elems) */
        double out = gathered_elems(o->name, a, na, conc, nc, largest);
        *flops1 = o->kind == OP_OTHER || o->kind == OP_MEMCPY ? 0 : out;
        *bytes1 = esz * (all + out);
        if (o->kind == OP_OTHER && starts(o->name, "aten::")) {
            /* metadata ops move nothing */
            struct op_class c;
            ops_classify(o->name, &c);
            if (is_one_of(o->name + 6, meta_names))
                *bytes1 = 0;
        }
        break;
    }
    }
    op_params_fill(o, a, na, conc, nc);
    if (op_is_resample(o)) {
        /* an upsampling reads its input and writes its output (the
         * backward the other way round), which the largest tensor's
         * count above does not see: the output of a x2 upsampling is
         * four times its input.  PyTorch's CUDA upsampling runs a kernel
         * of its own (one thread per output element, paced by the bytes)
         * for channels-last tensors, which its resample rows do not time */
        const int64_t *kd = op_sizes(o)->kdim;
        *bytes1 = esz * (double)kd[OP_RS_N] * (double)kd[OP_RS_C] *
                  ((double)kd[OP_RS_OUT] + (double)kd[OP_RS_IN]);
        if (channels_last(o, a, na, st, nst))
            op_add_flag(o, "channels-last");
    }
    if ((o->kind == OP_RNN || o->kind == OP_CONV || o->kind == OP_GEMM ||
         o->kind == OP_ATTENTION) && *flops1 == 0)
        op_add_flag(o, "flops-unknown");
    if (casts_to_fp32(o->name, types, nt, conc, nc))
        op_add_flag(o, "to-fp32");
    free_strlist(types, nt);
    free_strlist(conc, nc);
}

/* ------------------------------------------------ advanced indexing */

/* A put's target shape (its first argument's) and the elements it puts
 * (its values': the first tensor after it). */
struct put_key { int ndim; int64_t d[MAX_DIMS]; double out; };

static int cmp_put(const void *pa, const void *pb)
{
    const struct put_key *a = pa, *b = pb;
    if (a->ndim != b->ndim)
        return a->ndim < b->ndim ? -1 : 1;
    for (int i = 0; i < a->ndim; i++)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* The key of an op's first argument, the elements of the first tensor
 * after it in k->out (0 when none).  Returns 0 without a first tensor. */
static int put_key_of(const struct op *o, struct put_key *k)
{
    struct targ a[MAX_ARGS];
    int na = parse_args(o->shapes, a);
    memset(k, 0, sizeof *k);
    if (na < 1 || !a[0].present)
        return 0;
    k->ndim = a[0].ndim;
    memcpy(k->d, a[0].d, sizeof k->d);
    for (int i = 1; i < na && !(k->out > 0); i++)
        if (a[i].present)
            k->out = a[i].elems;
    return 1;
}

/* aten::index (x[idx], advanced indexing) records its indices as a list
 * whose shapes the profiler leaves out, so its result's size cannot be
 * told from its own inputs: ops_fill took its input's.  Its gradient
 * tells it: the backward of x[idx] scatters values of the result's shape
 * into zeros of x's (aten::index_put_, aten::_index_put_impl_ with
 * accumulate).  A forward aten::index with no index shapes takes the
 * result size of the backward puts into a tensor of its input's shape,
 * where they agree on one; its bytes (input read, result written),
 * elements and table size follow.  Sorted keys and a binary search: a
 * trace of many distinct indexings stays linear-logarithmic. */
void ops_index_outputs(struct profile *p)
{
    struct put_key *puts = NULL;
    size_t n = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        struct put_key k;
        if (o->phase != PHASE_BACKWARD || !o->name || !o->shapes ||
            (strcmp(o->name, "aten::_index_put_impl_") != 0 && strcmp(o->name, "aten::index_put_") != 0)
            || !put_key_of(o, &k) || !(k.out > 0))
            continue;
        if (!puts)
            puts = xcalloc(p->n_ops, sizeof *puts);
        puts[n++] = k;
    }
    if (!n)
        return;
    qsort(puts, n, sizeof *puts, cmp_put);
    for (size_t i = 0; i < p->n_ops; i++) {
        struct op *o = &p->ops[i];
        struct put_key key;
        /* with the indices' shapes there, ops_fill used them */
        if (o->phase != PHASE_FORWARD || !o->name || !o->shapes || strcmp(o->name, "aten::index") != 0
            || !put_key_of(o, &key) || key.out > 0)
            continue;
        struct put_key *hit = bsearch(&key, puts, n, sizeof *puts, cmp_put);
        if (!hit)
            continue;
        size_t lo = (size_t)(hit - puts), hi = lo;
        while (lo > 0 && cmp_put(&puts[lo - 1], &key) == 0)
            lo--;
        while (hi + 1 < n && cmp_put(&puts[hi + 1], &key) == 0)
            hi++;
        int agree = 1;
        for (size_t j = lo; j <= hi; j++)
            agree &= puts[j].out == puts[lo].out;
        struct op_table_sizes *ts = o->sizes;
        double in = ts && ts->kdim[0] > 0 ? (double)ts->kdim[0] : 0;
        int eb = precision_bytes(o->dtype);
        if (!agree || !(in > 0) || eb <= 0 || !(o->count > 0))
            continue;
        double out = puts[lo].out;
        o->bytes = (double)eb * (in + out) * o->count;
        if (o->flops > 0)
            o->flops = out * o->count;
        ts->kdim[0] = (int64_t)out;
        op_add_flag(o, "index-size-from-gradient");
    }
    free(puts);
}

/* ------------------------------------------------------- sort, top, dtype */

int ops_cmp_time_desc(const void *pa, const void *pb)
{
    const struct op *a = pa, *b = pb;
    if (a->time_s != b->time_s)
        return a->time_s < b->time_s ? 1 : -1;
    /* readers share one copy of a name among its ops */
    int c = a->name == b->name ? 0 : strcmp(a->name ? a->name : "", b->name ? b->name : "");
    if (c)
        return c;
    c = strcmp(a->shapes ? a->shapes : "", b->shapes ? b->shapes : "");
    if (c)
        return c;
    return (int)a->phase - (int)b->phase;
}

void ops_sort(struct profile *p)
{
    /* a reader may have sorted them (Kineto: merge_same); qsort would
     * still compare n log n pairs and the order it leaves is the same */
    size_t in_order = 1;
    while (in_order < p->n_ops && ops_cmp_time_desc(&p->ops[in_order - 1], &p->ops[in_order]) <= 0)
        in_order++;
    if (in_order < p->n_ops)
        qsort(p->ops, p->n_ops, sizeof *p->ops, ops_cmp_time_desc);
    double t = 0;
    for (size_t i = 0; i < p->n_ops; i++)
        t += p->ops[i].time_s;
    p->total_time_s = t;
}

void ops_select_top(struct profile *p, double top)
{
    double total = 0;
    for (size_t i = 0; i < p->n_ops; i++)
        total += p->ops[i].time_s;
    p->total_time_s = total;
    p->coverage = 1.0;
    if (top >= 1.0 || total <= 0 || p->n_ops == 0)
        return;
    double acc = 0;
    size_t keep = 0;
    while (keep < p->n_ops && acc < top * total) {
        acc += p->ops[keep].time_s;
        keep++;
    }
    double dropped = 0;
    for (size_t i = keep; i < p->n_ops; i++) {
        dropped += p->ops[i].time_s;
        op_release(&p->ops[i]);
    }
    p->dropped_ops += p->n_ops - keep;
    p->dropped_time_s += dropped;
    p->n_ops = keep;
    p->total_time_s = acc;
    p->coverage = acc / total;
}

enum precision ops_dominant_dtype(const struct profile *p)
{
    double w[PREC_COUNT + 1] = { 0 };
    double wall[PREC_COUNT + 1] = { 0 };
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        int d = (unsigned)o->dtype <= PREC_COUNT ? (int)o->dtype : PREC_COUNT;
        double t = o->time_s > 0 ? o->time_s : 1e-12;
        if (o->kind == OP_GEMM || o->kind == OP_CONV || o->kind == OP_ATTENTION ||
            o->kind == OP_RNN)
            w[d] += t;
        wall[d] += t;
    }
    int best = PREC_UNKNOWN;
    double bw = 0;
    for (int i = 0; i < PREC_COUNT; i++)
        if (w[i] > bw) {
            bw = w[i];
            best = i;
        }
    if (best == PREC_UNKNOWN)
        for (int i = 0; i < PREC_COUNT; i++)
            if (wall[i] > bw) {
                bw = wall[i];
                best = i;
            }
    return (enum precision)best;
}

/* PyTorch's "CUDA ops that can autocast to float32" (torch.amp
 * documentation; its source's list, AT_FORALL_FP32 in
 * aten/src/ATen/autocast_mode.h, adds logsumexp and the upsampling ops,
 * which the development set's bf16 traces show running on float copies),
 * as the profiler names them and their backward ops.
 * The profiler records such an op with its bf16/fp16 input, but the op
 * runs on autocast's fp32 copy of it. */
int ops_autocast_fp32(const struct op *op, int backward_too)
{
    static const char *const fp32[] = { "layer_norm", "native_layer_norm", "group_norm",
                                        "native_group_norm", "softmax", "_softmax",
                                        "log_softmax", "_log_softmax", "nll_loss", "nll_loss_nd",
                                        "nll_loss2d", "cross_entropy_loss", "mse_loss",
                                        "l1_loss", "smooth_l1_loss", "huber_loss",
                                        "binary_cross_entropy_with_logits", "kl_div",
                                        /* the pointwise ops and the rest of the losses
                                         * that the reference lists */
                                        "exp", "expm1", "log", "log10", "log1p", "log2", "pow",
                                        "softplus", "rsqrt", "reciprocal", "erfinv", "acos",
                                        "asin", "cosh", "sinh", "tan", "cdist", "pdist", "dist",
                                        "cosine_similarity", "renorm", "frobenius_norm",
                                        "nuclear_norm", "poisson_nll_loss",
                                        "cosine_embedding_loss", "hinge_embedding_loss",
                                        "margin_ranking_loss", "multilabel_margin_loss",
                                        "soft_margin_loss", "triplet_margin_loss",
                                        "multi_margin_loss", "logsumexp", "upsample_nearest1d",
                                        "_upsample_nearest_exact1d", "upsample_nearest2d",
                                        "_upsample_nearest_exact2d", "upsample_nearest3d",
                                        "_upsample_nearest_exact3d", "upsample_linear1d",
                                        "upsample_bilinear2d", "_upsample_bilinear2d_aa",
                                        "upsample_trilinear3d", "upsample_bicubic2d",
                                        "_upsample_bicubic2d_aa", NULL };
    const char *s = ops_base_name(op);
    size_t n = strlen(s);
    static const char *const bwd[] = { "_backward", "_backward_data", NULL };
    for (int i = 0; backward_too && bwd[i]; i++) {
        size_t b = strlen(bwd[i]);
        if (n > b && strcmp(s + n - b, bwd[i]) == 0) {
            n -= b;
            break;
        }
    }
    for (int i = 0; fp32[i]; i++)
        if (strlen(fp32[i]) == n && strncmp(s, fp32[i], n) == 0)
            return 1;
    return 0;
}
