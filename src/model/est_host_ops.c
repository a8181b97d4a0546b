/* What issuing one call of an op costs a GPU's host, by the op's name and
 * pass, over the mean call of an op of one kernel: the development set's
 * GPU traces (profiles/devset, H100 and H200, fp32 and bf16; the 540
 * traces of 120 models that have ops of one kernel), each trace's host
 * time of the op over its calls (a ratio of sums: the estimate adds its
 * calls' costs, so a call's mean cost, not the typical call's) over the
 * same trace's figure for the ops of one kernel per call, which takes out
 * the host's speed; the median over the traces, for the ops seen in the
 * traces of two models or more.  The rows are the output of
 * estimators/measure/host_weights.py --c-table, whose text gives the
 * rules; the class figures it also prints are est_host.c's.
 *
 * An op's cost on the host follows what PyTorch does for it besides the
 * kernel launch (an add's backward hands its gradient on: 0.6; a matrix
 * product's forward picks a cuBLAS kernel and allocates its output: 2.02;
 * a dense embedding's backward sorts and reduces in thirty launches:
 * 9.1), which a class's one figure averages over the ops of the models
 * that measured it. */
#include "model/est_internal.h"

#include <stdlib.h>
#include <string.h>

static const struct op_host_row {
    const char *name;
    enum op_phase phase;
    double ratio;
} op_host_rows[] = {
    { "aten::_conj", PHASE_BACKWARD, 0.19 },
    { "aten::_ctc_loss_backward", PHASE_BACKWARD, 19.59 },
    { "aten::_cudnn_attention_backward", PHASE_BACKWARD, 3.68 },
    { "aten::_cudnn_attention_forward", PHASE_FORWARD, 3.46 },
    { "aten::_efficient_attention_backward", PHASE_BACKWARD, 4.41 },
    { "aten::_efficient_attention_forward", PHASE_FORWARD, 1.31 },
    { "aten::_embedding_bag_backward", PHASE_BACKWARD, 9.19 },
    { "aten::_fft_c2c", PHASE_BACKWARD, 1.23 },
    { "aten::_fft_r2c", PHASE_BACKWARD, 2.94 },
    { "aten::_index_put_impl_", PHASE_BACKWARD, 6.93 },
    { "aten::_log_softmax_backward_data", PHASE_BACKWARD, 1.11 },
    { "aten::_prelu_kernel_backward", PHASE_BACKWARD, 1.69 },
    { "aten::_softmax_backward_data", PHASE_BACKWARD, 1.47 },
    { "aten::abs", PHASE_FORWARD, 1.32 },
    { "aten::adaptive_avg_pool2d", PHASE_FORWARD, 2.20 },
    { "aten::add", PHASE_FORWARD, 0.87 },
    { "aten::add", PHASE_BACKWARD, 0.77 },
    { "aten::add_", PHASE_FORWARD, 0.75 },
    { "aten::add_", PHASE_BACKWARD, 0.58 },
    { "aten::addmm", PHASE_FORWARD, 2.11 },
    { "aten::amax", PHASE_FORWARD, 1.74 },
    { "aten::arange", PHASE_FORWARD, 1.22 },
    { "aten::argmax", PHASE_FORWARD, 1.14 },
    { "aten::argsort", PHASE_FORWARD, 6.09 },
    { "aten::avg_pool2d", PHASE_FORWARD, 1.33 },
    { "aten::avg_pool2d_backward", PHASE_BACKWARD, 1.24 },
    { "aten::bernoulli_", PHASE_FORWARD, 1.03 },
    { "aten::binary_cross_entropy_with_logits", PHASE_FORWARD, 4.64 },
    { "aten::bitwise_not", PHASE_FORWARD, 0.89 },
    { "aten::bmm", PHASE_FORWARD, 1.82 },
    { "aten::bmm", PHASE_BACKWARD, 1.37 },
    { "aten::clamp", PHASE_FORWARD, 1.38 },
    { "aten::clamp_min", PHASE_FORWARD, 0.85 },
    { "aten::constant_pad_nd", PHASE_BACKWARD, 1.08 },
    { "aten::cos", PHASE_FORWARD, 0.75 },
    { "aten::ctc_loss", PHASE_FORWARD, 14.30 },
    { "aten::cudnn_is_acceptable", PHASE_FORWARD, 0.06 },
    { "aten::cumsum", PHASE_FORWARD, 1.59 },
    { "aten::cumsum", PHASE_BACKWARD, 1.91 },
    { "aten::div", PHASE_FORWARD, 0.97 },
    { "aten::div", PHASE_BACKWARD, 1.45 },
    { "aten::div_", PHASE_FORWARD, 0.73 },
    { "aten::div_", PHASE_BACKWARD, 0.97 },
    { "aten::dropout", PHASE_FORWARD, 1.43 },
    { "aten::dropout_", PHASE_FORWARD, 4.01 },
    { "aten::elu", PHASE_FORWARD, 0.93 },
    { "aten::elu_backward", PHASE_BACKWARD, 0.82 },
    { "aten::embedding", PHASE_FORWARD, 2.82 },
    { "aten::embedding_backward", PHASE_BACKWARD, 9.10 },
    { "aten::embedding_bag", PHASE_FORWARD, 1.51 },
    { "aten::empty", PHASE_FORWARD, 0.18 },
    { "aten::eq", PHASE_FORWARD, 0.86 },
    { "aten::eq", PHASE_BACKWARD, 0.96 },
    { "aten::exp", PHASE_FORWARD, 0.92 },
    { "aten::exp", PHASE_BACKWARD, 0.81 },
    { "aten::eye", PHASE_FORWARD, 2.40 },
    { "aten::fft_irfft2", PHASE_FORWARD, 5.25 },
    { "aten::fft_rfft2", PHASE_FORWARD, 2.42 },
    { "aten::flip", PHASE_FORWARD, 2.29 },
    { "aten::flip", PHASE_BACKWARD, 1.58 },
    { "aten::full", PHASE_FORWARD, 0.62 },
    { "aten::gather", PHASE_FORWARD, 1.26 },
    { "aten::gather", PHASE_BACKWARD, 0.68 },
    { "aten::gather_backward", PHASE_BACKWARD, 1.98 },
    { "aten::ge", PHASE_FORWARD, 1.57 },
    { "aten::ge", PHASE_BACKWARD, 1.21 },
    { "aten::gelu", PHASE_FORWARD, 0.80 },
    { "aten::gelu_backward", PHASE_BACKWARD, 0.74 },
    { "aten::glu", PHASE_FORWARD, 1.31 },
    { "aten::glu_backward", PHASE_BACKWARD, 1.05 },
    { "aten::gt", PHASE_FORWARD, 2.00 },
    { "aten::gt", PHASE_BACKWARD, 0.94 },
    { "aten::hardtanh_backward", PHASE_BACKWARD, 0.91 },
    { "aten::index", PHASE_FORWARD, 1.16 },
    { "aten::index_add_", PHASE_FORWARD, 0.89 },
    { "aten::index_select", PHASE_FORWARD, 1.46 },
    { "aten::index_select", PHASE_BACKWARD, 1.23 },
    { "aten::index_select_backward", PHASE_BACKWARD, 1.33 },
    { "aten::l1_loss", PHASE_FORWARD, 4.21 },
    { "aten::leaky_relu", PHASE_FORWARD, 0.84 },
    { "aten::leaky_relu_backward", PHASE_BACKWARD, 0.78 },
    { "aten::linalg_vector_norm", PHASE_FORWARD, 1.48 },
    { "aten::log", PHASE_FORWARD, 1.24 },
    { "aten::log_softmax", PHASE_FORWARD, 1.41 },
    { "aten::logsumexp", PHASE_FORWARD, 5.84 },
    { "aten::lt", PHASE_FORWARD, 0.84 },
    { "aten::lt", PHASE_BACKWARD, 0.83 },
    { "aten::mT", PHASE_FORWARD, 0.31 },
    { "aten::masked_fill", PHASE_FORWARD, 2.22 },
    { "aten::masked_fill", PHASE_BACKWARD, 2.15 },
    { "aten::masked_fill_", PHASE_FORWARD, 1.04 },
    { "aten::masked_fill_", PHASE_BACKWARD, 0.95 },
    { "aten::max", PHASE_FORWARD, 1.33 },
    { "aten::max_pool2d", PHASE_FORWARD, 2.00 },
    { "aten::max_pool2d_with_indices_backward", PHASE_BACKWARD, 2.49 },
    { "aten::max_pool3d", PHASE_FORWARD, 1.63 },
    { "aten::max_pool3d_with_indices_backward", PHASE_BACKWARD, 1.68 },
    { "aten::mean", PHASE_FORWARD, 1.52 },
    { "aten::mm", PHASE_FORWARD, 2.02 },
    { "aten::mm", PHASE_BACKWARD, 1.61 },
    { "aten::mse_loss", PHASE_FORWARD, 3.42 },
    { "aten::mse_loss_backward", PHASE_BACKWARD, 4.78 },
    { "aten::mul", PHASE_FORWARD, 0.94 },
    { "aten::mul", PHASE_BACKWARD, 0.77 },
    { "aten::mul_", PHASE_BACKWARD, 0.72 },
    { "aten::native_dropout_backward", PHASE_BACKWARD, 0.78 },
    { "aten::neg", PHASE_FORWARD, 0.93 },
    { "aten::neg", PHASE_BACKWARD, 0.88 },
    { "aten::new_empty_strided", PHASE_BACKWARD, 0.37 },
    { "aten::new_full", PHASE_FORWARD, 1.03 },
    { "aten::new_ones", PHASE_FORWARD, 0.88 },
    { "aten::new_zeros", PHASE_FORWARD, 1.17 },
    { "aten::new_zeros", PHASE_BACKWARD, 0.88 },
    { "aten::nll_loss2d_backward", PHASE_BACKWARD, 5.34 },
    { "aten::nll_loss_backward", PHASE_BACKWARD, 4.39 },
    { "aten::nll_loss_nd", PHASE_FORWARD, 1.71 },
    { "aten::one_hot", PHASE_FORWARD, 2.42 },
    { "aten::ones", PHASE_FORWARD, 1.07 },
    { "aten::ones_like", PHASE_FORWARD, 1.57 },
    { "aten::pad", PHASE_FORWARD, 1.90 },
    { "aten::pow", PHASE_FORWARD, 1.24 },
    { "aten::pow", PHASE_BACKWARD, 1.68 },
    { "aten::prelu", PHASE_FORWARD, 1.91 },
    { "aten::randint", PHASE_FORWARD, 2.44 },
    { "aten::randn", PHASE_FORWARD, 1.24 },
    { "aten::real", PHASE_BACKWARD, 0.39 },
    { "aten::relu", PHASE_FORWARD, 0.93 },
    { "aten::relu_", PHASE_FORWARD, 1.04 },
    { "aten::remainder", PHASE_FORWARD, 1.09 },
    { "aten::resolve_conj", PHASE_BACKWARD, 0.02 },
    { "aten::roll", PHASE_FORWARD, 1.34 },
    { "aten::roll", PHASE_BACKWARD, 1.34 },
    { "aten::rsqrt", PHASE_FORWARD, 1.05 },
    { "aten::rsub", PHASE_FORWARD, 1.28 },
    { "aten::scalar_tensor", PHASE_BACKWARD, 0.94 },
    { "aten::select_backward", PHASE_BACKWARD, 1.45 },
    { "aten::set_", PHASE_FORWARD, 0.09 },
    { "aten::sgn", PHASE_BACKWARD, 1.18 },
    { "aten::sigmoid", PHASE_FORWARD, 1.09 },
    { "aten::sigmoid", PHASE_BACKWARD, 2.29 },
    { "aten::sigmoid_backward", PHASE_BACKWARD, 0.91 },
    { "aten::silu", PHASE_FORWARD, 0.86 },
    { "aten::silu_", PHASE_FORWARD, 2.08 },
    { "aten::silu_backward", PHASE_BACKWARD, 0.87 },
    { "aten::sin", PHASE_FORWARD, 0.79 },
    { "aten::slice_backward", PHASE_BACKWARD, 1.68 },
    { "aten::softmax", PHASE_FORWARD, 0.96 },
    { "aten::softplus", PHASE_FORWARD, 1.21 },
    { "aten::softplus_backward", PHASE_BACKWARD, 1.13 },
    { "aten::sqrt", PHASE_FORWARD, 0.98 },
    { "aten::square", PHASE_FORWARD, 2.36 },
    { "aten::sub", PHASE_FORWARD, 0.91 },
    { "aten::sub", PHASE_BACKWARD, 0.95 },
    { "aten::sub_", PHASE_BACKWARD, 0.88 },
    { "aten::sum", PHASE_FORWARD, 1.20 },
    { "aten::sum", PHASE_BACKWARD, 1.07 },
    { "aten::tanh", PHASE_FORWARD, 1.07 },
    { "aten::tanh_backward", PHASE_BACKWARD, 0.91 },
    { "aten::threshold_backward", PHASE_BACKWARD, 0.82 },
    { "aten::topk", PHASE_FORWARD, 3.85 },
    { "aten::triu", PHASE_FORWARD, 0.88 },
    { "aten::upsample_bilinear2d", PHASE_FORWARD, 1.65 },
    { "aten::upsample_bilinear2d_backward", PHASE_BACKWARD, 2.07 },
    { "aten::upsample_nearest2d", PHASE_FORWARD, 2.31 },
    { "aten::upsample_nearest2d_backward", PHASE_BACKWARD, 1.17 },
    { "aten::value_selecting_reduction_backward", PHASE_BACKWARD, 1.94 },
    { "aten::view_as_complex", PHASE_FORWARD, 0.44 },
    { "aten::view_as_real", PHASE_BACKWARD, 0.27 },
    { "aten::where", PHASE_FORWARD, 1.60 },
    { "aten::where", PHASE_BACKWARD, 1.30 },
    { "aten::zeros", PHASE_FORWARD, 0.89 },
    { "aten::zeros_like", PHASE_FORWARD, 0.82 },
    { "aten::zeros_like", PHASE_BACKWARD, 0.69 },
};

static int row_cmp(const void *key, const void *elem)
{
    const struct op_host_row *k = key, *r = elem;
    int d = strcmp(k->name, r->name);
    return d ? d : (int)k->phase - (int)r->phase;
}

double est_op_host_ratio(const char *name, enum op_phase phase)
{
    if (!name)
        return 0;
    struct op_host_row k = { name, phase, 0 };
    const struct op_host_row *r = bsearch(&k, op_host_rows, sizeof op_host_rows / sizeof op_host_rows[0],
                                          sizeof op_host_rows[0], row_cmp);
    return r ? r->ratio : 0;
}
