#include "model/est_internal.h"
#include "model/ops.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/xalloc.h"

/* Host dispatch per op: measured when the profile ran on a GPU (the host
 * does the same work whatever the GPU; the reader took the profiler's
 * recording cost out, see struct profile: event_gap_s); else (a CPU
 * trace, whose host times hold the compute) the target's per-op cost. */

/* The layers and directions of the stack that a recurrent call belongs
 * to: the call's own, or a per-layer call's stack (its kmode); -1 when a
 * per-layer call does not say. */
static int rnn_stack(const struct op *op, int *layers, int *dirs)
{
    const struct op_table_sizes *ts = op_sizes(op);
    if (ts->kmode[0])
        return sscanf(ts->kmode, "%dx%d", layers, dirs) == 2 ? 0 : -1;
    if (op->name && strstr(op->name, "mkldnn_rnn_layer"))
        return -1;
    *layers = (int)ts->kdim[RNN_LAYERS];
    *dirs = op->kflag > 0 ? 2 : 1;
    return 0;
}

/* Whether cuDNN runs a CPU trace's recurrent call as persistent kernels
 * on the GPU target (the whole sequence in a few launches, no launch per
 * step), as PyTorch picks the algorithm (aten/src/ATen/native/cudnn/RNN.cpp,
 * get_algo, PyTorch 2.x):
 *  - PERSIST_STATIC_SMALL_H, any precision but fp64, GPUs from sm_60 on:
 *    LSTM and GRU up to a hidden size of 192 in the forward pass and 128
 *    in the backward, plain tanh/relu cells up to 384 and 256
 *    (use_rnn_persist_small_h);
 *  - PERSIST_STATIC, half precision: one layer, one direction, hidden size
 *    up to 1024 and hidden and input sizes multiples of 128
 *    (use_persist_common_heuristics), on GPUs of compute capability 8 and
 *    more with 98 SMs or more: LSTMs and plain cells at batches that are
 *    multiples of 8 up to 128, plain cells not at batch 96 and more with
 *    hidden 896 and more, never GRUs (use_persist_device_heuristics).
 * The layer and direction counts are the stack's (rnn_stack): a CPU
 * trace may run each layer and direction as a call of its own.  Packed
 * sequences run the standard algorithm; a CPU trace's calls here are of
 * unpacked tensors (a packed one's batch sizes are not read).  The
 * H200's recurrent layers agree row for row: 131 configurations of GRU
 * and LSTM, fp32 and bf16 (bf16 counts as half there, PyTorch 2.11, cuDNN
 * 9.19), 1 to 10 launches a call where the rules say persistent and 49 and
 * more where they do not (estimators/h200/rnn-host/run3), as do the
 * development set's H200 traces (a TFT's LSTM of 160: 4 launches forward,
 * 347 backward).  The rules are cuDNN's: a target whose vendor names
 * NVIDIA only, taken as sm_60 or later when it has matrix units for fp16,
 * as compute capability 8 when it has TF32. */
static int rnn_persistent(const struct est *c, const struct op *op, int64_t batch)
{
    const struct op_table_sizes *ts = op_sizes(op);
    const int64_t *dim = ts->kdim;
    int fwd = op->phase != PHASE_BACKWARD;
    int plain = strncmp(ts->kop, "rnn_", 4) == 0;
    int gated = strcmp(ts->kop, "lstm") == 0 || strcmp(ts->kop, "gru") == 0;
    int64_t h = dim[RNN_HIDDEN];
    /* an LSTM with projections runs the standard algorithm at every size
     * (the H200's projected layers launch per step where the same layers
     * without projections run persistent: estimators/h200/rnn-host/run4) */
    if (dim[RNN_PROJ] > 0)
        return 0;
    if ((!plain && !gated) || h <= 0 || !c->m->vendor || !strstr(c->m->vendor, "NVIDIA")
        || machine_peak(c->m, PREC_FP16, EXEC_MATRIX) <= 0)
        return 0;
    if (h <= (plain ? (fwd ? 384 : 256) : (fwd ? 192 : 128)))
        return 1;
    int half = c->want == PREC_BF16 || c->want == PREC_FP16;
    int layers, dirs;
    if (!half || strcmp(ts->kop, "gru") == 0 || rnn_stack(op, &layers, &dirs) != 0 || layers != 1
        || dirs != 1 || h > 1024 || h % 128 != 0 || dim[RNN_INPUT] % 128 != 0)
        return 0;
    if (!machine_has_tf32(c->m) || c->m->compute_units < 98)
        return 0;
    if (batch <= 0 || batch % 8 != 0 || batch > 128)
        return 0;
    return !plain || batch < 96 || h < 896;
}

/* The batch a CPU trace's recurrent call runs at on the target. */
static int64_t rnn_target_batch(const struct est *c, const struct op *op)
{
    int64_t b = op_sizes(op)->kdim[RNN_BATCH];
    return b == c->b_old && c->b_new > 0 ? c->b_new : b;
}

/* Kernels of one time step of the standard algorithm: the recurrent
 * GEMM and the pointwise kernel; an LSTM with projections (RNN_PROJ)
 * adds the projection's GEMM forward, and backward its data gradient's
 * GEMM and the kernel that sums the hidden state's two gradients (an
 * H200 trace of such a layer: nvjet GEMMs, elemWiseRNNcell,
 * LSTM_dgrad_combine_dh_di, 3.3 and 5.4 kernels a step with cuBLAS's
 * split-K reductions). */
static double rnn_step_launches(const struct op *op)
{
    if (op_sizes(op)->kdim[RNN_PROJ] <= 0)
        return 2;
    return op->phase == PHASE_BACKWARD ? 4 : 3;
}

/* Kernels one call of a CPU trace's recurrent layer launches on a GPU,
 * one by one from the host (0 when the trace does not say its layers and
 * steps).  cuDNN's standard algorithm, PyTorch's default, runs per layer
 * and direction one GEMM of every step's input, then per time step one
 * recurrent GEMM and one pointwise kernel: layers x directions x
 * (2 x steps + 1).  The H100 traces of the development set agree: a
 * 2-layer GRU over 128 steps launches 577 forward kernels (514 by the
 * count), a 1-layer bidirectional LSTM over 64 steps 259 (258).  A
 * persistent call (rnn_persistent) launches 9 forward and 7 backward
 * per layer and direction whatever its steps: the medians of the H200's
 * 92 and 76 persistent configurations (1 to 10; run3 above). */
double est_rnn_launches(const struct est *c, const struct op *op)
{
    if (c->src_gpu || !c->tgt_gpu || op->kind != OP_RNN)
        return 0;
    const int64_t *dim = op_sizes(op)->kdim;
    if (dim[RNN_LAYERS] <= 0 || dim[RNN_SEQ] <= 0)
        return 0;
    double dirs = op->kflag > 0 ? 2 : 1;
    if (rnn_persistent(c, op, rnn_target_batch(c, op)))
        return (double)dim[RNN_LAYERS] * dirs * (op->phase == PHASE_BACKWARD ? 7 : 9);
    return (double)dim[RNN_LAYERS] * dirs * (rnn_step_launches(op) * (double)dim[RNN_SEQ] + 1);
}

/* Ops whose CUDA implementation in PyTorch launches more than one kernel
 * (or memset) per call, from GPU traces: the medians over the H100 and
 * H200 fp32 traces of the development set (136 traces), for ops seen in
 * the traces of two models or more (estimators/measure/kernels_per_call.py,
 * whose text gives the rule; its output is this table).  A CPU trace
 * holds none of this: a dense embedding's backward sorts its indices and
 * reduces segments in 31 launches on the GPU, where the CPU runs one loop.
 * What such a call costs the host is its op's (est_host_ops.c). */
static const struct multi_kernel_op {
    const char *name;
    enum op_phase phase;
    double kernels;
} multi_kernel_ops[] = {
    { "aten::_efficient_attention_backward", PHASE_BACKWARD, 5 },
    { "aten::_embedding_bag_backward", PHASE_BACKWARD, 32 },
    { "aten::_fft_r2c", PHASE_BACKWARD, 3 },
    { "aten::_index_put_impl_", PHASE_BACKWARD, 12 },
    { "aten::_softmax_backward_data", PHASE_BACKWARD, 2 },
    { "aten::binary_cross_entropy_with_logits", PHASE_FORWARD, 6 },
    { "aten::dropout_", PHASE_FORWARD, 3 },
    { "aten::embedding_backward", PHASE_BACKWARD, 31 },
    { "aten::gather_backward", PHASE_BACKWARD, 2 },
    { "aten::index_select_backward", PHASE_BACKWARD, 2 },
    { "aten::masked_fill", PHASE_BACKWARD, 2 },
    { "aten::masked_fill", PHASE_FORWARD, 2 },
    { "aten::max_pool2d_with_indices_backward", PHASE_BACKWARD, 2 },
    { "aten::max_pool3d_with_indices_backward", PHASE_BACKWARD, 2 },
    { "aten::mse_loss", PHASE_FORWARD, 3 },
    { "aten::mse_loss_backward", PHASE_BACKWARD, 2 },
    { "aten::nll_loss2d_backward", PHASE_BACKWARD, 2 },
    { "aten::nll_loss_backward", PHASE_BACKWARD, 2 },
    { "aten::pad", PHASE_FORWARD, 2 },
    { "aten::select_backward", PHASE_BACKWARD, 2 },
    { "aten::silu_", PHASE_FORWARD, 2 },
    { "aten::slice_backward", PHASE_BACKWARD, 2 },
    { "aten::topk", PHASE_FORWARD, 22 },
    { "aten::value_selecting_reduction_backward", PHASE_BACKWARD, 2 },
};

static const struct multi_kernel_op *multi_kernel_of(const struct est *c, const struct op *op)
{
    if (c->src_gpu || !c->tgt_gpu || !op->name || op->kernels > 0)
        return NULL;
    for (size_t i = 0; i < sizeof multi_kernel_ops / sizeof multi_kernel_ops[0]; i++)
        if (multi_kernel_ops[i].phase == op->phase && strcmp(multi_kernel_ops[i].name, op->name) == 0)
            return &multi_kernel_ops[i];
    return NULL;
}

double est_gpu_kernels_per_call(const struct est *c, const struct op *op)
{
    const struct multi_kernel_op *mk = multi_kernel_of(c, op);
    return mk ? mk->kernels : 0;
}

/* A step of an LSTM with projections costs the host this many times a
 * step of the same layer without: the medians, forward and backward, of
 * 192 pairs of layers with and without projections (P 192 and 384, H
 * 768 to 3072, 1 and 2 layers and directions, 40 and 100 steps, batch 24
 * and 96, fp32 and bf16; the device kept busy, so the issue cost alone)
 * on a lent H200 machine's host (estimators/h200/rnn-host/run4): cuDNN's
 * bookkeeping per GEMM it calls, which the machine file's per-step
 * figures (layers without projections) do not hold. */
#define RNN_PROJ_FWD_STEP 1.42
#define RNN_PROJ_BWD_STEP 1.41

/* What one call of a CPU trace's recurrent layer costs a GPU target's
 * host besides its dispatch (0 when it is not such a call).  cuDNN issues
 * the layer as a loop on the host, a time step's kernels while the device
 * runs the step before, so a layer of short steps is as slow as that loop:
 * on the H100 machine's host, layers built for the purpose took 26 us per
 * layer, direction and step in the forward and 32 us in the backward,
 * while their kernels ran in a fifth of that (estimators/h100/rnn-host).
 * The machine file's measured figure per step is taken when it has one
 * for the op's pass (the per-call part, 0.4 to 1.5 ms, is left out: a CPU
 * trace runs a layer as one call per layer and direction, cuDNN as one
 * call for them all); else each launch of the count costs the machine's
 * launch latency, a bare launch, which is below what cuDNN spends. */
static double rnn_step_s(const struct machine *m, const struct op *op)
{
    double step_s = op->phase == PHASE_BACKWARD ? m->rnn_bwd_step_s : m->rnn_fwd_step_s;
    if (op_sizes(op)->kdim[RNN_PROJ] > 0)
        step_s *= op->phase == PHASE_BACKWARD ? RNN_PROJ_BWD_STEP : RNN_PROJ_FWD_STEP;
    return step_s;
}

/* A persistent call's host time (the machine file's per-call figure for
 * its pass and precision, 0 when it has none): cuDNN's setup of the call,
 * whatever its steps. */
static double rnn_persistent_call_s(const struct est *c, const struct op *op)
{
    const struct machine *m = c->m;
    int bwd = op->phase == PHASE_BACKWARD;
    int half = c->want == PREC_BF16 || c->want == PREC_FP16;
    double fp32_s = bwd ? m->rnn_persist_bwd_s : m->rnn_persist_fwd_s;
    double half_s = bwd ? m->rnn_persist_bwd_half_s : m->rnn_persist_fwd_half_s;
    return half && half_s > 0 ? half_s : fp32_s;
}

double est_rnn_host_s(const struct est *c, const struct op *op)
{
    double launches = est_rnn_launches(c, op);
    if (launches <= 0)
        return 0;
    const int64_t *dim = op_sizes(op)->kdim;
    double dirs = op->kflag > 0 ? 2 : 1;
    /* a CPU trace's call per layer and direction each pays a persistent
     * call's setup: where cuDNN runs a stack as one call this is high */
    if (rnn_persistent(c, op, rnn_target_batch(c, op))) {
        double call_s = rnn_persistent_call_s(c, op);
        return call_s > 0 ? call_s : launches * c->m->launch_latency_s;
    }
    double step_s = rnn_step_s(c->m, op);
    if (step_s <= 0)
        return launches * c->m->launch_latency_s;
    return (double)dim[RNN_LAYERS] * dirs * (double)dim[RNN_SEQ] * step_s;
}

/* A CPU trace's convolution with a bias on a GPU: PyTorch runs cuDNN's
 * convolution without the bias and adds it after, an add_ of its own
 * (at::_convolution: at::cudnn_convolution, then output.add_(bias)), and
 * the backward pass sums the incoming gradient for the bias's in a
 * reduction kernel inside convolution_backward; oneDNN, the CPU's
 * backend, does both inside its convolution, and the tables' rows time
 * convolutions without a bias (estimators/measure/measure.py).  A
 * depthwise convolution of contiguous tensors runs PyTorch's own CUDA
 * kernel (_conv_depthwise2d), which adds the bias itself; on
 * channels-last tensors it runs cuDNN.  The H100 and H200 traces of the
 * development set show every biased convolution that way.  Returns the
 * ops dispatched besides the convolution per call (the forward's add_),
 * 0 or 1; *kernels (when not NULL) the kernels added per call. */
double est_conv_bias_calls(const struct est *c, const struct op *op, double *kernels)
{
    if (kernels)
        *kernels = 0;
    if (c->src_gpu || !c->tgt_gpu || op->kind != OP_CONV || !op_has_flag(op, "bias"))
        return 0;
    const struct conv_shape *cs = op_conv(op);
    int depthwise = cs->groups > 1 && cs->groups == cs->c;
    if (op->phase == PHASE_FORWARD && depthwise && !op_has_flag(op, "channels-last"))
        return 0;
    if (kernels)
        *kernels = 1;
    return op->phase == PHASE_FORWARD ? 1 : 0;
}

/* The device time per pass of those kernels at shape s: the add reads
 * and writes the output (and reads the bias), the reduction reads the
 * output's gradient; both stream memory, timed by the target table's
 * elementwise rows, else its bandwidth and launch latency. */
double est_conv_bias_s(const struct est *c, const struct op *op, const struct shape *s)
{
    double kernels;
    est_conv_bias_calls(c, op, &kernels);
    const struct conv_shape *cs = &s->conv;
    double out = conv_output_elems(op, cs);
    double ch = (double)conv_output_channels(op, cs);
    double calls = op->count > 0 ? op->count : 1;
    if (!(kernels > 0) || !(out > 0))
        return 0;
    double eb = precision_bytes(s->prec);
    double bytes = op->phase == PHASE_FORWARD ? (2 * out + ch) * eb : out * eb + ch * 4;
    struct lookup lk;
    memset(&lk, 0, sizeof lk);
    if (c->tt && est_lk_stream(c->tt, s->prec, bytes * calls, calls, &lk) == 0)
        return lk.time_s;
    if (machine_mem_bw(c->m) > 0)
        return calls * (bytes / machine_mem_bw(c->m) + c->m->launch_latency_s);
    return 0;
}

/* What a GPU's host spends issuing one op of a training step, in units
 * of the machine's `dispatch` (a bare add in a loop, host_calib.py), by
 * what the op is.  From the development set's GPU traces (profiles/devset,
 * H100 and H200, fp32 and bf16: 540 traces of 120 models), each replayed
 * on its own machine with its run's measured step (est_calibrate_host),
 * so that its host times are the timed run's: per trace, a class's host
 * time over its calls, over the machine file's dispatch; the median over
 * the traces (estimators/measure/host_weights.py, whose text gives the
 * rules).  The estimate adds its calls' costs, so a figure is the mean
 * cost of a call (a ratio of sums in each trace), not the typical call's:
 * the median call, which these figures were before, sits a third below
 * the mean in a class whose few long calls hold much of its time, and
 * made the host of CPU traces on a GPU 19% short in the median of the
 * development set's cases.  A call costs its own time and the host's time
 * between top-level calls, HOST_GAP a call (quartiles 0.38 to 0.63):
 *  - an op of one kernel per call (elementwise, activations, GEMMs, ...):
 *    HOST_ONE (1.60 to 2.62), its name's ratio to that where the traces
 *    measured it (est_host_ops.c);
 *  - the norms (batch, layer, group): 4.04 (3.19 to 5.11), cuDNN's or
 *    PyTorch's descriptors and heuristics besides the dispatch;
 *  - views and reads of a host scalar (view, reshape, t, narrow, slice,
 *    expand, item; no kernel): 0.12 (0.08 to 0.16);
 *  - cuDNN's convolutions: conv_host_ratio;
 *  - optimizer ops, outside autograd, and a collective: once.
 * The class figures below are those plus HOST_GAP; the cudnn-conv one is
 * the mean of a 2-D convolution's two passes, shown where no call says
 * more.  Chains of 32 layers of one kind timed on two lent H200 hosts
 * (estimators/measure/op_host.py, estimators/h200/op-host/ORIGIN.md) gave
 * 2.2 for the ops of one kernel, 4.0 for the norms and 0.5 for the views,
 * their toy sizes with the device idle: the same order. */
#define HOST_ONE 2.08
#define HOST_GAP 0.49
#define CONV_FWD_2D 3.56    /* conv_host_ratio, below */
#define CONV_BWD_2D 6.72
static const double host_weights[HOST_CLASS_COUNT] = {
    HOST_GAP + HOST_ONE * (CONV_FWD_2D + CONV_BWD_2D) / 2, HOST_GAP + 4.04, HOST_GAP + HOST_ONE, HOST_GAP + 0.12, 1.0,
};

/* cuDNN's convolutions by pass and spatial dimensions, [3-D][backward]:
 * a backward call runs two (data and filter gradients, 4 launches a call
 * in the median of 2-D ones, 10 of 3-D ones), a forward one (1 and 4).
 * The same traces and rule, each trace's host time of its convolutions
 * per call over its figure for the ops of one kernel: 2-D (and 1-D)
 * forward 3.56 (quartiles 2.59 to 4.73), backward 6.72 (5.18 to 8.68), of
 * 273 traces of 59 models; 3-D 3.52 and 7.50 (30 traces of 7 models).
 * Models differ by up to twice that from one another (a ShuffleNet's
 * backward call 1.9, a VQ-VAE's 5.1): the algorithm cuDNN's heuristics
 * pick for a shape decides how many launches and workspaces a call
 * takes, which a CPU trace does not say. */
static const double conv_host_ratio[2][2] = { { CONV_FWD_2D, CONV_BWD_2D }, { 3.52, 7.50 } };

/* The weight of an op whose own host time per call is r times the mean
 * op of one kernel: its own time and the host's time between calls. */
static double weight_of_ratio(double r)
{
    return HOST_GAP + r * HOST_ONE;
}

/* The host of a pass that runs the same ops with the same shapes again
 * and again (a loop over time steps, iterations or layers of one shape)
 * issues each call faster: over the same traces, each trace's figure for
 * the ops of one kernel falls with its pass's calls per op record as
 * that ratio to the power -0.129 (least squares in logs; 95% interval
 * -0.173 to -0.077 from resampling the models), whose median trace runs
 * 3.87 calls a record, where the figures above hold.  The calls of a
 * recurrent language model's Python loop (thousands of calls of a few
 * records) take about 0.6 of them; a model whose every op has its own
 * shape 1.2.  Within a trace an op record's calls cost the same whether
 * it has one call or hundreds (its ratio to the trace's op of one kernel
 * does not move with its count): it is the pass, the host's caches and
 * allocator kept warm by the repeats, not the op.  An optimizer's ops and
 * a collective (once), outside the passes, and a recurrent layer's loop
 * (its own measured figures) take no factor. */
#define REPEAT_MEDIAN 3.87
#define REPEAT_SLOPE (-0.129)

void est_host_repeat(struct est *c)
{
    struct estimate *out = c->out;
    const struct profile *p = c->p;
    c->host_repeat = 1;
    if (c->src_gpu || !c->tgt_gpu)
        return;
    double calls = 0, records = 0;
    for (size_t i = 0; i < p->n_ops; i++)
        if ((p->ops[i].phase == PHASE_FORWARD || p->ops[i].phase == PHASE_BACKWARD) && p->ops[i].count > 0) {
            calls += p->ops[i].count;
            records++;
        }
    double rep = records > 0 ? calls / records : REPEAT_MEDIAN;
    out->host_calls_per_record = rep;
    c->host_repeat = out->host_repeat_scale = pow(rep / REPEAT_MEDIAN, REPEAT_SLOPE);
}

static const char *const host_class_names[HOST_CLASS_COUNT] = {
    "cudnn-conv", "norm", "kernel-op", "view", "once",
};

const char *est_host_class_name(enum est_host_class k)
{
    return (unsigned)k < HOST_CLASS_COUNT ? host_class_names[k] : "unknown";
}

double est_host_class_weight(enum est_host_class k)
{
    return (unsigned)k < HOST_CLASS_COUNT ? host_weights[k] : 1;
}

static enum est_host_class host_class(const struct est *c, const struct op *op)
{
    if (!c->tgt_gpu)
        return HOST_CLASS_ONCE;
    /* an optimizer's item() reads its step count, a CPU tensor */
    if (est_is_view_op(op->name)
        || (op->phase == PHASE_OPTIMIZER && op->name && strcmp(op->name, "aten::item") == 0))
        return HOST_CLASS_VIEW;
    if (op->phase == PHASE_OPTIMIZER)
        return HOST_CLASS_ONCE;
    switch (op->kind) {
    case OP_CONV:
        return HOST_CLASS_CONV;
    case OP_NORM:
        return HOST_CLASS_LIBRARY;
    case OP_OPTIMIZER:
    case OP_COMM:
    case OP_RNN:
        return HOST_CLASS_ONCE;
    default:
        return HOST_CLASS_KERNEL;
    }
}

/* What one call of a CPU trace's op costs the target's host, in parts:
 * its own dispatches (an optimizer's per-tensor call the share of a
 * foreach launch) at its class's weight, its bias add's (a kernel op),
 * a recurrent layer's loop on the host (est_rnn_host_s). */
struct call_host {
    enum est_host_class cls;
    double n, bias, rnn_s;
    double w;           /* the weight of a dispatch: its class's, or the op's own */
    int multi;          /* an op of several kernels on the GPU (multi_kernel_ops) */
};

static struct call_host call_host(const struct est *c, const struct op *op)
{
    struct call_host h = { .cls = host_class(c, op), .n = 1 };
    h.w = host_weights[h.cls];
    if (h.cls == HOST_CLASS_KERNEL) {
        double r = est_op_host_ratio(op->name, op->phase);
        if (r > 0)
            h.w = weight_of_ratio(r);
        h.multi = multi_kernel_of(c, op) != NULL;
    }
    if (h.cls == HOST_CLASS_CONV)
        h.w = weight_of_ratio(conv_host_ratio[op_conv(op)->dims == 3][op->phase == PHASE_BACKWARD]);
    if (est_is_foreach_on_gpu(c, op) && op->count > 0)
        h.n = est_foreach_launches(op->count) / op->count;
    h.bias = est_conv_bias_calls(c, op, NULL);
    h.rnn_s = est_rnn_host_s(c, op);
    return h;
}

/* The call's dispatches at the pass's repetition (est_host_repeat),
 * but for an optimizer's or collective's: their own. */
static double call_own(const struct call_host *h, double repeat)
{
    return h->n * h->w * (h->cls == HOST_CLASS_ONCE ? 1 : repeat);
}

/* The call's convolution bias add, a kernel op, at the pass's repetition */
static double call_bias(const struct call_host *h, double repeat)
{
    return h->bias * host_weights[HOST_CLASS_KERNEL] * repeat;
}

static double call_host_s(const struct call_host *h, double dispatch_s, double repeat)
{
    return (call_own(h, repeat) + call_bias(h, repeat)) * dispatch_s + h->rnn_s;
}

double est_call_host_s(const struct est *c, const struct op *op)
{
    struct call_host h = call_host(c, op);
    return call_host_s(&h, c->m->dispatch_s, c->host_repeat);
}

/* The host time of op on the target: measured when the profile ran on a
 * GPU, else its calls' (est_call_host_s), counted by class in the
 * estimate on a GPU (struct estimate: host_calls). */
double est_host_of(struct est *c, const struct op *op)
{
    if (c->src_gpu)
        return op->host_time_s * c->host_scale;
    double calls = op->count > 0 ? op->count : 1, d = c->m->dispatch_s;
    if (est_rnn_launches(c, op) > 0) {
        if (rnn_persistent(c, op, rnn_target_batch(c, op))) {
            c->n_rnn_persistent++;
            if (!(rnn_persistent_call_s(c, op) > 0))
                c->n_rnn_persist_fallback++;
        } else if (rnn_step_s(c->m, op) <= 0) {
            c->n_rnn_launch_host++;
        }
    }
    struct call_host h = call_host(c, op);
    if (c->tgt_gpu) {
        struct estimate *out = c->out;
        out->host_dispatch_s = d;
        double own_s = calls * call_own(&h, c->host_repeat) * d;
        out->host_calls[h.cls] += calls * h.n;
        out->host_class_s[h.cls] += own_s;
        if (h.multi) {
            out->host_multi_calls += calls * h.n;
            out->host_multi_s += own_s;
        }
        out->host_calls[HOST_CLASS_KERNEL] += calls * h.bias;
        out->host_class_s[HOST_CLASS_KERNEL] += calls * call_bias(&h, c->host_repeat) * d;
        out->host_rnn_loop_s += calls * h.rnn_s;
    }
    return calls * call_host_s(&h, d, c->host_repeat);
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
    if (op->phase != PHASE_FORWARD || ops_keeps_precision(op))
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
    if (op->kind == OP_CONV && op_conv(op)->k > 0 && op_conv(op)->c > 0) {
        const struct conv_shape *cs = op_conv(op);
        int64_t g = cs->groups > 0 ? cs->groups : 1;
        double e = (double)cs->k * (double)(cs->c / g) * (double)(cs->r > 0 ? cs->r : 1)
                   * (double)(cs->s > 0 ? cs->s : 1);
        struct group_count gc;
        memset(&gc, 0, sizeof gc);
        est_shape_groups(op->shapes, count_group, &gc);
        *tensors = 1;
        int64_t ch = conv_output_channels(op, cs);     /* a bias has one per output channel */
        if (gc.n >= 3 && gc.numel[2] == ch) {
            e += (double)ch;
            *tensors = 2;
        }
        return e;
    }
    return 0;
}

/* Activations around an op autocast runs in fp32 (ops_autocast_fp32),
 * at the target batch.  Each boundary between the low-precision and the
 * fp32 parts of the graph is one cast forward and its gradient's cast
 * backward.  Where the boundaries lie follows from autocast's rules:
 *  - a norm over features (layer_norm) reads the residual stream, which
 *    is fp32 (the stream starts at an fp32 embedding and each residual add
 *    of fp32 and bf16 promotes to fp32), and feeds a low-precision GEMM:
 *    its output is cast, its input not;
 *  - log_softmax and the losses read a low-precision layer's output and
 *    end in an fp32 scalar: their input is cast, their output not; the
 *    nll_loss after a log_softmax reads fp32 and casts nothing;
 *  - group_norm and softmax sit between low-precision convolutions or
 *    GEMMs: both their input and their output are cast.
 * Each cast moves the op's first input's elements. */
static double fp32_op_elems(const struct est *c, const struct op *op, int *tensors)
{
    static const char *const no_cast[] = { "nll_loss", "nll_loss_nd", "nll_loss2d", NULL };
    static const char *const both[] = { "group_norm", "native_group_norm", "softmax", "_softmax",
                                        NULL };
    *tensors = 0;
    if (op->phase != PHASE_FORWARD || !ops_autocast_fp32(op, 0))
        return 0;
    const char *base = ops_base_name(op);
    int boundaries = 1;
    for (int i = 0; no_cast[i]; i++)
        if (strcmp(base, no_cast[i]) == 0)
            boundaries = 0;
    for (int i = 0; both[i]; i++)
        if (strcmp(base, both[i]) == 0)
            boundaries = 2;
    struct group_count gc;
    memset(&gc, 0, sizeof gc);
    est_shape_groups(op->shapes, count_group, &gc);
    if (!boundaries || gc.n < 1 || !(gc.numel[0] > 1))
        return 0;
    double f = c->b_new > 0 && c->b_old > 0 ? (double)c->b_new / (double)c->b_old : 1;
    *tensors = boundaries;
    return boundaries * (double)gc.numel[0] * f;
}

/* A GPU trace's bias add of a convolution: PyTorch runs cuDNN's
 * convolution without its bias and adds it after (est_conv_bias_calls), an
 * add_ of the output [n, k, ...] and the bias viewed as [1, k, 1, ...].
 * Autocast casts that bias with the convolution's weight; the trace's
 * convolution op does not take it.  Returns k, or 0. */
struct bias_shape { int n; int64_t rank[2], dim1[2], ones[2]; };

static void bias_group(const int64_t *dims, int n, void *arg)
{
    struct bias_shape *b = arg;
    if (b->n < 2) {
        b->rank[b->n] = n;
        b->dim1[b->n] = n > 1 ? dims[1] : 0;
        b->ones[b->n] = 0;
        for (int i = 0; i < n; i++)
            b->ones[b->n] += i != 1 && dims[i] == 1;
    }
    b->n++;
}

static double gpu_conv_bias_elems(const struct est *c, const struct op *op)
{
    if (!c->src_gpu || op->phase != PHASE_FORWARD || op->kind != OP_ELEMENTWISE
        || strcmp(ops_base_name(op), "add_") != 0)
        return 0;
    struct bias_shape b;
    memset(&b, 0, sizeof b);
    est_shape_groups(op->shapes, bias_group, &b);
    if (b.n < 2 || b.rank[0] < 3 || b.rank[1] != b.rank[0] || b.dim1[1] != b.dim1[0]
        || b.dim1[0] <= 1 || b.ones[1] != b.rank[1] - 1)
        return 0;
    return (double)b.dim1[0];
}

/* What running under autocast adds to the host's issue time of a training
 * step, per forward call, forward and backward, in bare adds (the
 * machine's dispatch).  Measured, not taken from the casts' count alone:
 * chains of 32 layers of one kind (estimators/measure/op_host.py) timed on
 * the host with and without autocast, the difference per layer over the
 * same run's add loop, on three H100 and four H200 runs' hosts, toy and
 * real sizes (estimators/h100/op-host, estimators/h200/op-host, ORIGIN.md
 * there); the medians, forward / backward:
 *  - AC_CONV: a convolution without bias (conv3x3, conv1x1; 24 pairs):
 *    2.0 / 3.4, the weight's cast each way and cuDNN's low-precision path;
 *  - AC_GEMM: a linear layer without bias (10): 1.7 / 1.7;
 *  - AC_BIAS: a bias, of either (conv3x3_bias over conv3x3, linear over
 *    linear_nobias; 22): 1.1 / 1.9;
 *  - AC_ACT: a cast of an activation that an fp32 op made, as a layer
 *    norm's output into a linear layer (ln_linear over linear and
 *    layernorm; 6): 2.3 / 2.0;
 *  - AC_CACHED: a call of a linear layer whose weight's cast autocast has
 *    cached (one layer shared by the chain's 32 places, linear_shared
 *    with and without autocast; one H200 host, toy and real sizes, the
 *    twelfth round's device run, estimators/h200/op-host): 0.2 / 0.3, the
 *    cache's lookup in place of the cast.
 * A batch norm reading a convolution's low-precision output costs no
 * more (conv_bn over conv3x3: +1.1 / -1.1), nor do activations, norms and
 * softmax on their own (within 0.3 of 0). */
enum { AC_CONV, AC_GEMM, AC_BIAS, AC_ACT, AC_CACHED, AC_COUNT };
static const double ac_adds[AC_COUNT][2] = {
    [AC_CONV] = { 2.0, 3.4 },
    [AC_GEMM] = { 1.7, 1.7 },
    [AC_BIAS] = { 1.1, 1.9 },
    [AC_ACT] = { 2.3, 2.0 },
    [AC_CACHED] = { 0.2, 0.3 },
};

static void ac_add(double *fwd, double *bwd, int kind, double times)
{
    *fwd += times * ac_adds[kind][0];
    *bwd += times * ac_adds[kind][1];
}

/* The casts autocast adds to a forward call of op i (elements *e in
 * *tensors tensors, cast forward and their gradients back) and the host's
 * extra issue time, in adds, forward (*fwd) and backward (*bwd).  ac holds
 * what the walk through the profile's calls found (est_autocast_flow):
 * activations, and parameters where the optimizer named them (else each
 * call's, param_elems); without a walk (no calls), the activations around
 * the ops of autocast's fp32 list are counted by their position in a
 * typical graph (fp32_op_elems). */
static void op_autocast(const struct est *c, const struct op *op, const struct ac_casts *ac,
                        size_t i, double *e, double *tensors, double *fwd, double *bwd)
{
    *e = 0;
    *tensors = 0;
    *fwd = *bwd = 0;
    double bias = gpu_conv_bias_elems(c, op);
    if (bias > 0) {
        *e = bias;
        *tensors = 1;
        ac_add(fwd, bwd, AC_BIAS, 1);
        return;
    }
    if (op->phase != PHASE_FORWARD || ops_keeps_precision(op))
        return;
    const struct ac_call *k = ac->op ? &ac->op[i] : NULL;
    if (k && ac->params) {
        *e = k->w_e;
        *tensors = k->w_t + k->b_t;
        ac_add(fwd, bwd, op->kind == OP_CONV ? AC_CONV : AC_GEMM, k->w_t);
        ac_add(fwd, bwd, AC_BIAS, k->b_t);
        ac_add(fwd, bwd, AC_CACHED, k->w_cached);
    } else {
        int params;
        *e = param_elems(op, &params);
        if (*e > 0) {
            *tensors = params;
            ac_add(fwd, bwd, op->kind == OP_CONV ? AC_CONV : AC_GEMM, 1);
            ac_add(fwd, bwd, AC_BIAS, params - 1);
        }
    }
    if (k) {
        if (k->act_t > 0 && k->act_e > 0) {
            double f = c->b_new > 0 && c->b_old > 0 ? (double)c->b_new / (double)c->b_old : 1;
            *e += k->act_e * f;
            *tensors += k->act_t;
            ac_add(fwd, bwd, AC_ACT, k->act_t);
        }
        return;
    }
    if (*e > 0)
        return;
    int acts;
    *e = fp32_op_elems(c, op, &acts);
    *tensors = acts;
    if (*e > 0)
        ac_add(fwd, bwd, AC_ACT, acts);
}

/* Retargeting an fp32 profile to bf16/fp16 means running it under
 * autocast, which adds work an fp32 trace does not show: each forward
 * GEMM/convolution call casts its fp32 parameters to the low precision,
 * and the backward pass casts their gradients back, each cast one
 * elementwise kernel reading and writing the tensor; and the host issues
 * the step slower (op_autocast).  The casts become one entry in the
 * estimate; the replay issues them beside their calls. */
void est_autocast_casts(struct est *c)
{
    const struct profile *p = c->p;
    struct estimate *out = c->out;
    c->cast_op = SIZE_MAX;
    if (c->want != PREC_BF16 && c->want != PREC_FP16)
        return;
    double n_all = 0, dev_all = 0, bytes_all = 0, host_all = 0;
    int eb = precision_bytes(c->want);
    /* the host's adds in the target's units; a CPU target runs no
     * autocast dispatch of a GPU's */
    double d = c->tgt_gpu ? c->m->dispatch_s * c->host_repeat : 0;
    const struct ac_casts *ac = &c->flow;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *op = &p->ops[i];
        double tensors;
        if (est_op_prec(p, op) != PREC_FP32 && est_op_prec(p, op) != PREC_TF32)
            continue;
        double e, fwd, bwd;
        op_autocast(c, op, ac, i, &e, &tensors, &fwd, &bwd);
        if (!(e > 0) && !(fwd + bwd > 0))
            continue;
        if (!c->cast_n) {
            c->cast_n = xcalloc(p->n_ops, sizeof *c->cast_n);
            c->cast_dev_s = xcalloc(p->n_ops, sizeof *c->cast_dev_s);
            c->cast_host_s = xcalloc(p->n_ops, sizeof *c->cast_host_s);
            c->cast_back_s = xcalloc(p->n_ops, sizeof *c->cast_back_s);
        }
        /* forward and backward: e elements each way, 4 + eb bytes per
         * element, one kernel per tensor */
        double bytes = 2 * e * (4 + eb);
        struct lookup lk;
        double t = 0;
        memset(&lk, 0, sizeof lk);
        if (!(e > 0))
            t = 0;  /* cached casts only: host time, no kernel */
        else if (c->tt && est_lk_stream(c->tt, c->want, bytes, 2 * tensors, &lk) == 0)
            t = lk.time_s;
        else if (machine_mem_bw(c->m) > 0)
            t = bytes / machine_mem_bw(c->m) + 2 * tensors * c->m->launch_latency_s;
        c->cast_n[i] = 2 * tensors;
        c->cast_dev_s[i] = t;
        c->cast_host_s[i] = fwd * d;
        c->cast_back_s[i] = bwd * d;
        double calls = op->count > 0 ? op->count : 1;
        n_all += 2 * tensors * calls;
        dev_all += t * calls;
        bytes_all += bytes * calls;
        host_all += (fwd + bwd) * d * calls;
    }
    if (!(n_all > 0))
        return;
    struct op_estimate *oe = &out->ops[out->n_ops];
    c->cast_op = out->n_ops++;
    oe->name = "(autocast casts)";
    oe->kind = OP_ELEMENTWISE;
    oe->phase = PHASE_UNKNOWN;
    oe->prec = c->want;
    oe->count = n_all;
    oe->bytes = bytes_all;
    oe->device_s = oe->time_lo_s = oe->time_hi_s = dev_all;
    oe->host_s = host_all;
    oe->time_s = c->tgt_gpu ? oe->device_s : oe->device_s + oe->host_s;
    oe->method = c->tt ? EST_TABLE_INTERP : EST_ROOFLINE;
    oe->bound = c->tgt_gpu && oe->host_s > oe->device_s ? BOUND_HOST : BOUND_MEMORY;
    oe->ratio = 1;
    est_warn(c, "autocast to %s: %.0f casts added per pass (parameters, the activations of "
             "ops it runs in fp32, and their gradients), %.3g ms more host time (op-host chains)",
             precision_name(c->want), n_all, host_all * 1e3);
}
