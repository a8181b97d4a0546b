#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/ops.h"
#include "model/profile.h"

static void test_classify(void **state)
{
    (void)state;
    static const struct { const char *name; enum op_kind kind; int transparent, major; } t[] = {
        { "aten::addmm", OP_GEMM, 0, 1 },
        { "aten::mm", OP_GEMM, 0, 1 },
        { "aten::bmm", OP_GEMM, 0, 1 },
        { "aten::baddbmm", OP_GEMM, 0, 1 },
        { "aten::linear", OP_OTHER, 1, 0 },
        { "aten::matmul", OP_OTHER, 1, 0 },
        { "aten::conv2d", OP_OTHER, 1, 0 },
        { "aten::convolution", OP_CONV, 0, 1 },
        { "aten::cudnn_convolution", OP_CONV, 0, 1 },
        { "aten::mkldnn_convolution", OP_CONV, 0, 1 },
        { "aten::convolution_backward", OP_CONV, 0, 1 },
        { "aten::_scaled_dot_product_flash_attention", OP_ATTENTION, 0, 1 },
        { "aten::_cudnn_rnn", OP_RNN, 0, 1 },
        { "aten::lstm", OP_RNN, 0, 1 },
        { "aten::mkldnn_rnn_layer", OP_RNN, 0, 1 },
        { "aten::relu", OP_ELEMENTWISE, 0, 0 },
        { "aten::add_", OP_ELEMENTWISE, 0, 0 },
        { "aten::sum", OP_REDUCTION, 0, 0 },
        { "aten::native_layer_norm", OP_NORM, 0, 0 },
        { "aten::native_batch_norm_backward", OP_NORM, 0, 0 },
        { "aten::normal_", OP_ELEMENTWISE, 0, 0 },
        { "aten::embedding", OP_EMBEDDING, 0, 0 },
        { "aten::_foreach_add_", OP_OPTIMIZER, 0, 0 },
        { "aten::_fused_adamw_", OP_OPTIMIZER, 0, 0 },
        { "aten::copy_", OP_MEMCPY, 0, 0 },
        { "aten::to", OP_MEMCPY, 0, 0 },
        { "aten::view", OP_OTHER, 0, 0 },
        { "nccl:all_reduce", OP_COMM, 0, 0 },
        { "aten::broadcast_tensors", OP_OTHER, 0, 0 },
        { "aten::broadcast_to", OP_OTHER, 0, 0 },
        { "AddmmBackward0", OP_OTHER, 1, 0 },
        { "autograd::engine::evaluate_function: MmBackward0", OP_OTHER, 1, 0 },
        /* torch.compile: the region holds the ops compiled into it */
        { "Torch-Compiled Region: 0/0", OP_OTHER, 1, 0 },
        { "CompiledFunction", OP_OTHER, 1, 0 },
        { "triton_poi_fused_add_cos_sin_0", OP_ELEMENTWISE, 0, 0 },
        { "triton_red_fused_sum_1", OP_REDUCTION, 0, 0 },
        { "triton_per_fused__softmax_2", OP_REDUCTION, 0, 0 },
        { "triton_tem_fused_mm_3", OP_GEMM, 0, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct op_class c;
        ops_classify(t[i].name, &c);
        if (c.kind != t[i].kind || c.transparent != t[i].transparent || c.major != t[i].major)
            fail_msg("%s: kind %s transparent %d major %d", t[i].name, op_kind_name(c.kind),
                     c.transparent, c.major);
    }
    struct op_class c;
    ops_classify("MmBackward0", &c);
    assert_true(c.backward);
    assert_int_equal(ops_classify_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), OP_COMM);
    assert_int_equal(ops_classify_kernel("Memcpy HtoD (Pinned -> Device)"), OP_MEMCPY);
    assert_int_equal(ops_classify_kernel("flash_fwd_kernel"), OP_ATTENTION);
    /* an FBGEMM embedding backward kernel is not a GEMM */
    assert_int_equal(ops_classify_kernel("fbgemm_gpu::split_embedding_backward_codegen_sgd_"
                                         "unweighted_kernel_cta_per_row_1"), OP_EMBEDDING);
    assert_int_equal(ops_classify_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), OP_GEMM);
    /* kernels of the shipped traces that words inside other words misfiled */
    static const struct { const char *name; enum op_kind kind; } k[] = {
        { "fbgemm_gpu::permute_2D_data_kernel<float>", OP_OTHER },
        { "void fbgemm_gpu::jagged_dense_elementwise_dense_output_kernel_", OP_ELEMENTWISE },
        { "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize256x64x8", OP_CONV },
        { "sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc", OP_CONV },
        { "void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16>", OP_CONV },
        { "void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1>", OP_CONV },
        { "void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*)", OP_OTHER },
        { "void cublasLt::splitKreduce_kernel<32, 16, int, float>", OP_GEMM },
        { "void at::native::normal_kernel<float>", OP_OTHER },
        { "void at::native::batch_norm_collect_statistics_kernel<float>", OP_NORM },
        { "triton_poi_fused_add_cos_sin_0", OP_ELEMENTWISE },
        { "triton_tem_fused_addmm_0", OP_GEMM },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (ops_classify_kernel(k[i].name) != k[i].kind)
            fail_msg("%s: kind %s, expected %s", k[i].name,
                     op_kind_name(ops_classify_kernel(k[i].name)), op_kind_name(k[i].kind));
}

static void fill(struct op *o, const char *name, enum op_kind kind, const char *dims,
                 const char *types, const char *strides, const char *conc, double *f, double *b)
{
    memset(o, 0, sizeof *o);
    o->name = xstrdup(name);
    o->kind = kind;
    struct op_args a = { dims, types, strides, conc };
    ops_fill(o, &a, f, b);
}

static void clear(struct op *o)
{
    op_release(o);
}

/* Tensor.to(float32) (ScalarType 6 second, or third after a device) is
 * flagged to-fp32, the cast autocast makes real; a cast to bf16 (15) or a
 * move between devices is not. */
static void test_cast_to_fp32(void **state)
{
    (void)state;
    static const struct { const char *name, *dims, *types, *conc; int want; } cases[] = {
        { "aten::to", "[[256, 200, 40002], [], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
          "[\"\", \"6\", \"False\", \"False\", \"\"]", 1 },
        { "aten::to", "[[8], [], [], [], [], []]", "[\"float\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
          "[\"\", \"\", \"6\", \"False\", \"False\", \"\"]", 1 },
        { "aten::to", "[[8, 4], [], [], [], []]", "[\"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
          "[\"\", \"15\", \"False\", \"False\", \"\"]", 0 },
        { "aten::to", "[[8, 4], [], [], [], []]", "[\"float\", \"Device\", \"Scalar\", \"Scalar\", \"\"]",
          "[\"\", \"\", \"False\", \"False\", \"\"]", 0 },
        { "aten::add", "[[8, 4], []]", "[\"float\", \"Scalar\"]", "[\"\", \"6\"]", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct op o;
        double f, b;
        fill(&o, cases[i].name, OP_MEMCPY, cases[i].dims, cases[i].types, NULL, cases[i].conc, &f, &b);
        assert_int_equal(op_has_flag(&o, "to-fp32"), cases[i].want);
        clear(&o);
    }
}

static void test_gemm(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    /* addmm(bias, mat1 [m,k], mat2 [k,n]); mat2 = W^T has strides [1, k] */
    fill(&o, "aten::addmm", OP_GEMM, "[[1000], [100, 29532], [29532, 1000], [], []]",
         "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
         "[[1], [29532, 1], [1, 29532], [], []]", NULL, &f, &b);
    assert_int_equal(o.m, 100);
    assert_int_equal(o.k, 29532);
    assert_int_equal(o.n, 1000);
    assert_int_equal(o.batch, 1);
    assert_int_equal(o.a_t, 'N');
    assert_int_equal(o.b_t, 'T');
    assert_int_equal(o.dtype, PREC_FP32);
    assert_close(f, 2.0 * 100 * 1000 * 29532, 1e-15);
    assert_close(b, 4.0 * (100.0 * 29532 + 29532.0 * 1000 + 100.0 * 1000), 1e-15);
    assert_string_equal(o.shapes, "[1000], [100, 29532], [29532, 1000], [], []");
    clear(&o);
    /* bmm [b,m,k] x [b,k,n], bf16, no strides: 'N' */
    fill(&o, "aten::bmm", OP_GEMM, "[[96, 1024, 64], [96, 64, 1024]]",
         "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL, NULL, &f, &b);
    assert_int_equal(o.batch, 96);
    assert_int_equal(o.m, 1024);
    assert_int_equal(o.n, 1024);
    assert_int_equal(o.k, 64);
    assert_int_equal(o.a_t, 'N');
    assert_int_equal(o.dtype, PREC_BF16);
    assert_close(f, 2.0 * 96 * 1024 * 1024 * 64, 1e-15);
    clear(&o);
    /* baddbmm(bias, [b,m,k], [b,k,n]) */
    fill(&o, "aten::baddbmm", OP_GEMM, "[[2, 3, 5], [2, 3, 4], [2, 4, 5], [], []]",
         "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_close(f, 2.0 * 2 * 3 * 5 * 4, 1e-15);
    clear(&o);
}

/* Recurrent layers: 2 x rows x weight elements, rows = time x batch;
 * backward twice that; steps = time steps x layers (shapes as PyTorch 2.11
 * records them for a 2-layer LSTM, hidden 1024, input 512). */
static void test_rnn(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    /* cuDNN: input [batch 64, seq 100, 512], weights list, hidden [2, 64, 1024] */
    fill(&o, "aten::_cudnn_rnn", OP_RNN,
         "[[64, 100, 512], [[4096, 512], [4096, 1024], [4096], [4096], [4096, 1024], [4096, 1024], "
         "[4096], [4096]], [], [14696448], [2, 64, 1024], [2, 64, 1024]]",
         "[\"float\", \"TensorList\", \"\", \"float\", \"float\", \"float\"]", NULL, NULL, &f, &b);
    double w = 4096.0 * 512 + 4096.0 * 1024 * 3 + 4 * 4096.0;
    assert_close(f, 2.0 * 6400 * w, 1e-12);
    assert_int_equal(o.batch, 100 * 2);
    clear(&o);
    /* oneDNN: one layer, input time-major [100, 16, 512]; its backward
     * takes 3-D sequences ([time, batch, hidden]) that are no hidden state */
    fill(&o, "aten::mkldnn_rnn_layer_backward", OP_RNN,
         "[[100, 16, 1024], [4096, 1024], [4096, 1024], [4096], [4096], [16, 1024], [16, 1024], "
         "[100, 16, 1024]]", NULL, NULL, NULL, &f, &b);
    assert_close(f, 2.0 * 2 * 1600 * (2 * 4096.0 * 1024 + 2 * 16.0 * 1024), 1e-12);
    assert_int_equal(o.batch, 100);
    assert_string_equal(op_sizes(&o)->kmode, "");
    clear(&o);
    /* a per-layer call keeps its stack (num_layers, bidirectional) in
     * kmode: one direction of a bidirectional LSTM of 256 */
    fill(&o, "aten::mkldnn_rnn_layer", OP_RNN,
         "[[100, 4, 512], [1024, 512], [1024, 256], [1024], [1024], [4, 256], [4, 256], [], [], [], [], [], "
         "[], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"True\", \"[]\", \"2\", \"256\", \"1\", \"True\", "
         "\"True\", \"True\", \"True\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "lstm");
    assert_int_equal(op_sizes(&o)->kdim[1], 256);  /* RNN_HIDDEN */
    assert_int_equal(o.kflag, 0);
    assert_string_equal(op_sizes(&o)->kmode, "1x2");
    clear(&o);
}

/* A convolution with a bias is flagged "bias": a forward that takes a
 * bias of K elements (oneDNN's and the generic ops; cuDNN's convolution
 * takes none), a backward whose output mask asks for the bias's
 * gradient; without the tensor, or with the mask's third entry False,
 * it is not. */
static void test_conv_bias(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    const char *conc = "[\"\", \"\", \"\", \"[0, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\"]";
    fill(&o, "aten::mkldnn_convolution", OP_CONV, "[[8, 8, 1, 4096], [128, 8, 1, 3], [128], [], [], [], []]",
         NULL, NULL, conc, &f, &b);
    assert_true(f > 0);
    assert_true(op_has_flag(&o, "bias"));
    clear(&o);
    fill(&o, "aten::mkldnn_convolution", OP_CONV, "[[8, 8, 1, 4096], [128, 8, 1, 3], [], [], [], [], []]",
         NULL, NULL, conc, &f, &b);
    assert_true(f > 0);
    assert_false(op_has_flag(&o, "bias"));
    clear(&o);
    /* a third tensor that is not K long is not this layer's bias */
    fill(&o, "aten::mkldnn_convolution", OP_CONV, "[[8, 8, 1, 4096], [128, 8, 1, 3], [64], [], [], [], []]",
         NULL, NULL, conc, &f, &b);
    assert_false(op_has_flag(&o, "bias"));
    clear(&o);
    fill(&o, "aten::cudnn_convolution", OP_CONV, "[[32, 96, 56, 56], [96, 96, 3, 3], [], [], [], [], [], [], []]",
         NULL, NULL, "[\"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]",
         &f, &b);
    assert_true(f > 0);
    assert_false(op_has_flag(&o, "bias"));
    clear(&o);
    const char *bdims = "[[8, 128, 4096], [8, 128, 4096], [128, 128, 3], [], [], [], [], [], [], [], []]";
    fill(&o, "aten::convolution_backward", OP_CONV, bdims, NULL, NULL,
         "[\"\", \"\", \"\", \"[128]\", \"[1]\", \"[32]\", \"[32]\", \"False\", \"[0]\", \"1\", "
         "\"[True, True, True]\"]", &f, &b);
    assert_true(f > 0);
    assert_true(op_has_flag(&o, "bias"));
    clear(&o);
    fill(&o, "aten::convolution_backward", OP_CONV, bdims, NULL, NULL,
         "[\"\", \"\", \"\", \"[128]\", \"[1]\", \"[32]\", \"[32]\", \"False\", \"[0]\", \"1\", "
         "\"[True, True, False]\"]", &f, &b);
    assert_true(f > 0);
    assert_false(op_has_flag(&o, "bias"));
    clear(&o);
}

/* A convolution whose input's strides put the channels adjacent
 * (ConvNeXt's depthwise 7x7 under channels-last) is flagged; the same
 * shape contiguous, a 1x1 spatial tensor (whose strides say nothing) and
 * a convolution without strides are not; a backward pass goes by its
 * input and weight, not by its incoming gradient. */
static void test_conv_channels_last(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    const char *dims = "[[32, 96, 56, 56], [96, 1, 7, 7], [], [], [], [], [], [], []]";
    const char *conc = "[\"\", \"\", \"[3, 3]\", \"[1, 1]\", \"[1, 1]\", \"96\", \"False\", \"False\", \"True\"]";
    fill(&o, "aten::cudnn_convolution", OP_CONV, dims, NULL,
         "[[301056, 1, 5376, 96], [49, 49, 7, 1], [], [], [], [], [], [], []]", conc, &f, &b);
    assert_true(op_has_flag(&o, "channels-last"));
    assert_int_equal(op_conv(&o)->groups, 96);
    clear(&o);
    fill(&o, "aten::cudnn_convolution", OP_CONV, dims, NULL,
         "[[301056, 3136, 56, 1], [49, 49, 7, 1], [], [], [], [], [], [], []]", conc, &f, &b);
    assert_false(op_has_flag(&o, "channels-last"));
    clear(&o);
    fill(&o, "aten::cudnn_convolution", OP_CONV, "[[32, 96, 1, 1], [96, 1, 1, 1], [], [], [], [], [], [], []]",
         NULL, "[[96, 1, 96, 96], [1, 1, 1, 1], [], [], [], [], [], [], []]", conc, &f, &b);
    assert_false(op_has_flag(&o, "channels-last"));
    clear(&o);
    fill(&o, "aten::cudnn_convolution", OP_CONV, dims, NULL, NULL, conc, &f, &b);
    assert_false(op_has_flag(&o, "channels-last"));
    clear(&o);
    /* a channels-last weight makes the layer channels-last (PyTorch's
     * choice for cuDNN) though its input of 3 channels is contiguous */
    fill(&o, "aten::cudnn_convolution", OP_CONV, "[[64, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
         NULL, "[[150528, 50176, 224, 1], [147, 1, 21, 3], [], [], [], [], [], [], []]",
         "[\"\", \"\", \"[3, 3]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]", &f, &b);
    assert_true(op_has_flag(&o, "channels-last"));
    clear(&o);
    /* the backward of a vision transformer's patch embedding: its incoming
     * gradient is strided channels-last (the output is viewed transposed),
     * its input and weight contiguous: a contiguous convolution */
    const char *bdims = "[[64, 768, 14, 14], [64, 3, 224, 224], [768, 3, 16, 16], [], [], [], [], [], [], [], []]";
    const char *bconc = "[\"\", \"\", \"\", \"[768]\", \"[16, 16]\", \"[0, 0]\", \"[1, 1]\", \"False\", "
                        "\"[0, 0]\", \"1\", \"[False, True, True]\"]";
    fill(&o, "aten::convolution_backward", OP_CONV, bdims, NULL,
         "[[150528, 1, 10752, 768], [150528, 50176, 224, 1], [768, 256, 16, 1], [], [], [], [], [], [], [], []]",
         bconc, &f, &b);
    assert_false(op_has_flag(&o, "channels-last"));
    assert_int_equal(op_conv(&o)->stride_h, 16);
    clear(&o);
    /* the same backward with a channels-last input is a channels-last one */
    fill(&o, "aten::convolution_backward", OP_CONV, bdims, NULL,
         "[[150528, 1, 10752, 768], [150528, 1, 672, 3], [768, 256, 16, 1], [], [], [], [], [], [], [], []]",
         bconc, &f, &b);
    assert_true(op_has_flag(&o, "channels-last"));
    clear(&o);
}

static void test_conv(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    /* ResNet stem: 64x3x224x224 * 64x3x7x7, stride 2, pad 3 -> 112x112 */
    fill(&o, "aten::cudnn_convolution", OP_CONV,
         "[[64, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
         "[\"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
         NULL, "[\"\", \"\", \"[3, 3]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]",
         &f, &b);
    assert_int_equal(op_conv(&o)->stride_h, 2);
    assert_int_equal(op_conv(&o)->pad_w, 3);
    assert_int_equal(op_conv(&o)->p, 112);
    assert_int_equal(op_conv(&o)->q, 112);
    assert_close(f, 2.0 * 64 * 64 * 3 * 7 * 7 * 112 * 112, 1e-15);
    clear(&o);
    /* 1-D conv (NT3): [20,1,60483] * [128,1,20], stride 1, pad 0 -> 60464 */
    fill(&o, "aten::mkldnn_convolution", OP_CONV, "[[20, 1, 60483], [128, 1, 20], [128], [], [], [], []]",
         "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]",
         NULL, "[\"\", \"\", \"\", \"[0]\", \"[1]\", \"[1]\", \"1\"]", &f, &b);
    assert_int_equal(op_conv(&o)->h, 1);
    assert_int_equal(op_conv(&o)->r, 1);
    assert_int_equal(op_conv(&o)->s, 20);
    assert_int_equal(op_conv(&o)->q, 60464);
    assert_close(f, 2.0 * 20 * 128 * 1 * 20 * 60464, 1e-15);
    clear(&o);
    /* backward: grad [N,K,P,Q] first; both gradients: 2x forward; grouped */
    const char *dims = "[[8, 32, 14, 14], [8, 64, 14, 14], [32, 16, 3, 3], [], [], [], [], [], [], [], []]";
    const char *conc = "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"4\", \"[True, True, False]\"]";
    fill(&o, "aten::convolution_backward", OP_CONV, dims, NULL, NULL, conc, &f, &b);
    assert_int_equal(op_conv(&o)->groups, 4);
    double fwd = 2.0 * 8 * 32 * (64 / 4) * 3 * 3 * 14 * 14;
    assert_close(f, 2 * fwd, 1e-15);
    clear(&o);
    const char *conc1 = "[\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"4\", \"[False, True, False]\"]";
    fill(&o, "aten::convolution_backward", OP_CONV, dims, NULL, NULL, conc1, &f, &b);
    assert_close(f, fwd, 1e-15);    /* first layer: weight gradient only */
    clear(&o);
}

/* Transposed convolutions (ConvTranspose1d of a Demucs-shaped decoder, as
 * a CPU trace records them): kept as the convolution whose data gradient
 * they compute, so their flops are 2 x N x Cin x Cout x kernel x input
 * positions, not those of a convolution of the weight read the other way. */
static void test_conv_transposed(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    /* forward: [8, 48, 10836] -> [8, 4, 43348], weight [48, 4, 8], stride
     * 4: (10836 - 1) x 4 + (8 - 1) + 1 = 43348 */
    fill(&o, "aten::_convolution", OP_CONV,
         "[[8, 48, 10836], [48, 4, 8], [4], [], [], [], [], [], [], [], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"\", \"[4]\", \"[0]\", \"[1]\", \"True\", \"[0]\", \"1\", \"False\", "
         "\"False\", \"True\", \"True\"]",
         &f, &b);
    const struct conv_shape *c = op_conv(&o);
    assert_true(op_has_flag(&o, "transposed"));
    assert_true(op_has_flag(&o, "bias"));   /* a bias of Cout = 4 */
    assert_int_equal(c->c, 4);
    assert_int_equal(c->k, 48);
    assert_int_equal(c->w, 43348);
    assert_int_equal(c->q, 10836);
    assert_int_equal(conv_output_channels(&o, c), 4);
    assert_close(conv_output_elems(&o, c), 8.0 * 4 * 43348, 1e-15);
    assert_close(f, 2.0 * 8 * 48 * 4 * 8 * 10836, 1e-15);
    assert_close(b, 4.0 * (8.0 * 48 * 10836 + 48 * 4 * 8 + 8.0 * 4 * 43348), 1e-15);
    clear(&o);
    /* the same without the flag reads as a strided convolution 48 -> 48 */
    fill(&o, "aten::_convolution", OP_CONV,
         "[[8, 48, 10836], [48, 4, 8], [4], [], [], [], [], [], [], [], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"\", \"[4]\", \"[0]\", \"[1]\", \"False\", \"[0]\", \"1\", \"False\", "
         "\"False\", \"True\", \"True\"]",
         &f, &b);
    assert_false(op_has_flag(&o, "transposed"));
    assert_int_equal(op_conv(&o)->q, 2708);
    clear(&o);
    /* backward, both gradients and the bias's: the gradient [8, 4, 43348]
     * is the output; grouped in 2: weight [48, 2, 8], Cout = 4 */
    fill(&o, "aten::convolution_backward", OP_CONV,
         "[[8, 4, 43348], [8, 48, 10836], [48, 2, 8], [], [], [], [], [], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"\", \"[4]\", \"[4]\", \"[0]\", \"[1]\", \"True\", \"[0]\", \"2\", "
         "\"[True, True, True]\"]",
         &f, &b);
    c = op_conv(&o);
    assert_true(op_has_flag(&o, "transposed"));
    assert_int_equal(c->groups, 2);
    assert_int_equal(c->c, 4);
    assert_int_equal(c->w, 43348);
    assert_int_equal(c->q, 10836);
    assert_close(f, 2 * 2.0 * 8 * 48 * (4 / 2) * 8 * 10836, 1e-15);
    clear(&o);
    /* 2-D with output padding: [2, 64, 16, 16] -> [2, 32, 32, 32], 3x3
     * stride 2 pad 1 output_padding 1: (16 - 1) x 2 - 2 + 2 + 1 + 1 = 32 */
    fill(&o, "aten::convolution", OP_CONV, "[[2, 64, 16, 16], [64, 32, 3, 3], [32], [], [], [], [], [], []]",
         NULL, NULL,
         "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[1, 1]\", \"1\"]", &f, &b);
    c = op_conv(&o);
    assert_int_equal(c->h, 32);
    assert_int_equal(c->w, 32);
    assert_int_equal(c->p, 16);
    assert_close(f, 2.0 * 2 * 64 * 32 * 3 * 3 * 16 * 16, 1e-15);
    clear(&o);
    /* cuDNN's transposed convolution, which a GPU trace keeps as the
     * leaf: transposed by its name, (self, weight, padding,
     * output_padding, stride, dilation, groups, ...).  A MedNeXt-shaped
     * depthwise 5^3 up-sampling: [2, 512, 8, 8, 8] -> [2, 512, 16, 16, 16],
     * stride 2, pad 2, output_padding 1, 512 groups:
     * (8 - 1) x 2 - 4 + 4 + 1 + 1 = 16 */
    fill(&o, "aten::cudnn_convolution_transpose", OP_CONV,
         "[[2, 512, 8, 8, 8], [512, 1, 5, 5, 5], [], [], [], [], [], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"[2, 2, 2]\", \"[1, 1, 1]\", \"[2, 2, 2]\", \"[1, 1, 1]\", \"512\", "
         "\"False\", \"False\", \"True\"]",
         &f, &b);
    c = op_conv(&o);
    assert_true(op_has_flag(&o, "transposed"));
    assert_int_equal(c->dims, 3);
    assert_int_equal(c->groups, 512);
    assert_int_equal(c->c, 512);
    assert_int_equal(c->k, 512);
    assert_int_equal(c->d, 16);
    assert_int_equal(c->h, 16);
    assert_int_equal(c->w, 16);
    assert_int_equal(c->o, 8);
    assert_int_equal(c->stride_h, 2);
    assert_int_equal(c->pad_h, 2);
    assert_close(f, 2.0 * 2 * 512 * 1 * 125 * 8 * 8 * 8, 1e-15);
    clear(&o);
    /* sizes whose output would overflow int64 leave the shape unknown */
    fill(&o, "aten::convolution", OP_CONV, "[[8, 48, 100], [48, 4, 8], [4], [], [], [], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"\", \"[4611686018427387904]\", \"[0]\", \"[1]\", \"True\", \"[0]\", \"1\"]",
         &f, &b);
    assert_false(op_has_flag(&o, "transposed"));
    assert_true(f == 0);
    clear(&o);
}

/* The kernel-table parameters (src/model/op_params.c) of each kind from
 * argument lists as Kineto records them (copied from the shipped traces
 * where they have the op, else written after the ATen schema). */
static void test_table_params(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    /* 3-D conv, dilated: [2,4,8,16,16] * [8,4,3,3,3], stride 1, pad 2, dil 2 */
    fill(&o, "aten::convolution", OP_CONV, "[[2, 4, 8, 16, 16], [8, 4, 3, 3, 3], [], [], [], [], [], [], []]",
         NULL, NULL, "[\"\", \"\", \"\", \"[1, 1, 1]\", \"[2, 2, 2]\", \"[2, 2, 2]\", \"False\", \"[0, 0, 0]\", \"1\"]",
         &f, &b);
    assert_int_equal(op_conv(&o)->dims, 3);
    assert_int_equal(op_conv(&o)->d, 8);
    assert_int_equal(op_conv(&o)->t, 3);
    assert_int_equal(op_conv(&o)->dil_d, 2);
    assert_int_equal(op_conv(&o)->pad_d, 2);
    assert_int_equal(op_conv(&o)->o, 8);  /* 8 + 4 - 2*2 - 1 + 1 */
    assert_int_equal(op_conv(&o)->p, 16);
    assert_close(f, 2.0 * 2 * 8 * 4 * 27 * 8 * 16 * 16, 1e-15);
    clear(&o);
    /* _cudnn_rnn (lstm_h200 trace): batch_first, mode 2 = LSTM */
    fill(&o, "aten::_cudnn_rnn", OP_RNN,
         "[[64, 100, 512], [[4096, 512], [4096, 1024]], [], [14696448], [2, 64, 1024], [2, 64, 1024], [], [], [], [], [], [], [], [], [], []]",
         NULL, NULL,
         "[\"\", \"\", \"4\", \"\", \"\", \"\", \"2\", \"1024\", \"0\", \"2\", \"True\", \"0.\", \"True\", \"False\", \"[]\", \"\"]",
         &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "lstm");
    const int64_t rnn[5] = { 512, 1024, 2, 100, 64 };
    assert_memory_equal(op_sizes(&o)->kdim, rnn, sizeof rnn);
    assert_int_equal(o.kflag, 0);
    clear(&o);
    /* an LSTM with projections (the held-out LSTM-2048-512's traces):
     * cuDNN's call gives proj_size at 8 (its backward at 12) */
    fill(&o, "aten::_cudnn_rnn", OP_RNN,
         "[[64, 128, 512], [[8192, 512], [8192, 512], [8192], [8192], [512, 2048]], [], [18907136], [2, 64, 512], [2, 64, 2048], [], [], [], [], [], [], [], [], [], [6488064]]",
         NULL, NULL,
         "[\"\", \"\", \"5\", \"\", \"\", \"\", \"2\", \"2048\", \"512\", \"2\", \"True\", \"0.1\", \"True\", \"False\", \"[]\", \"\"]",
         &f, &b);
    const int64_t lstmp[6] = { 512, 2048, 2, 128, 64, 512 };
    assert_memory_equal(op_sizes(&o)->kdim, lstmp, sizeof lstmp);
    clear(&o);
    fill(&o, "aten::_cudnn_rnn_backward", OP_RNN,
         "[[64, 128, 512], [[8192, 512]], [], [18907136], [2, 64, 512], [2, 64, 2048], [64, 128, 512], [64, 128, 512], [], [], [], [], [], [], [], [], [], [], [], [], [], [6488064], [453509376], []]",
         NULL, NULL,
         "[\"\", \"\", \"5\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"2\", \"2048\", \"512\", \"2\", \"True\", \"0.1\", \"True\", \"False\", \"[]\", \"\", \"\", \"[True, False, False, True]\"]",
         &f, &b);
    assert_memory_equal(op_sizes(&o)->kdim, lstmp, sizeof lstmp);
    clear(&o);
    /* the CPU's layer op: h [2, 8, 512] and c [2, 8, 2048] in one list,
     * the cell size from c's elements; a plain LSTM's h and c agree */
    fill(&o, "aten::lstm", OP_RNN,
         "[[8, 128, 512], [[2, 8, 512], [2, 8, 2048]], [[8192, 512], [8192, 512], [8192], [8192], [512, 2048]], [], [], [], [], [], []]",
         NULL, NULL, "[\"\", \"\", \"\", \"True\", \"2\", \"0.1\", \"True\", \"False\", \"True\"]", &f, &b);
    const int64_t lstmp_cpu[6] = { 512, 2048, 2, 128, 8, 512 };
    assert_memory_equal(op_sizes(&o)->kdim, lstmp_cpu, sizeof lstmp_cpu);
    clear(&o);
    fill(&o, "aten::lstm", OP_RNN,
         "[[8, 128, 512], [[2, 8, 256], [2, 8, 256]], [[1024, 512], [1024, 256], [1024], [1024]], [], [], [], [], [], []]",
         NULL, NULL, "[\"\", \"\", \"\", \"True\", \"2\", \"0.1\", \"True\", \"False\", \"True\"]", &f, &b);
    const int64_t lstm_cpu[6] = { 512, 256, 2, 128, 8, 0 };
    assert_memory_equal(op_sizes(&o)->kdim, lstm_cpu, sizeof lstm_cpu);
    clear(&o);
    /* gru, sequence first, bidirectional: hidden from hx [L*2, B, H] */
    fill(&o, "aten::gru", OP_RNN, "[[50, 8, 32], [4, 8, 64], [[192, 32]], [], [], [], [], [], []]", NULL,
         NULL, "[\"\", \"\", \"\", \"True\", \"2\", \"0.\", \"True\", \"True\", \"False\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "gru");
    const int64_t gru[5] = { 32, 64, 2, 50, 8 };
    assert_memory_equal(op_sizes(&o)->kdim, gru, sizeof gru);
    assert_int_equal(o.kflag, 1);
    clear(&o);
    /* _flash_attention_forward: [batch, len, heads, dim], is_causal at 8 */
    fill(&o, "aten::_flash_attention_forward", OP_ATTENTION,
         "[[4, 512, 16, 64], [4, 256, 16, 64], [4, 256, 16, 64], [], [], [], [], [], [], [], []]", NULL,
         NULL, "[\"\", \"\", \"\", \"\", \"\", \"512\", \"256\", \"0.\", \"False\", \"False\", \"\"]", &f, &b);
    const int64_t att[5] = { 4, 16, 512, 256, 64 };
    assert_memory_equal(op_sizes(&o)->kdim, att, sizeof att);
    assert_int_equal(o.kflag, 0);
    clear(&o);
    /* _cudnn_attention_backward (gpt2_h200 trace): q second, causal at 14 */
    fill(&o, "aten::_cudnn_attention_backward", OP_ATTENTION,
         "[[8, 12, 1024, 64], [8, 12, 1024, 64], [8, 12, 1024, 64], [8, 12, 1024, 64], [8, 12, 1024, 64], [8, 12, 1024, 1], [], [], [], [], [], [], [], [], [], []]",
         NULL, NULL,
         "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.1\", \"True\", \"0.125\"]",
         &f, &b);
    const int64_t att2[5] = { 8, 12, 1024, 1024, 64 };
    assert_memory_equal(op_sizes(&o)->kdim, att2, sizeof att2);
    assert_int_equal(o.kflag, 1);
    clear(&o);
    /* native_layer_norm_backward (gpt2 trace): c from normalized_shape */
    fill(&o, "aten::native_layer_norm_backward", OP_NORM,
         "[[8, 1024, 768], [8, 1024, 768], [], [8, 1024, 1], [8, 1024, 1], [768], [768], []]", NULL, NULL,
         "[\"\", \"\", \"[768]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "layer_norm");
    const int64_t ln[4] = { 8, 768, 1024, 0 };
    assert_memory_equal(op_sizes(&o)->kdim, ln, sizeof ln);
    clear(&o);
    /* group_norm(input, num_groups, ...) on [2, 64, 32, 32] */
    fill(&o, "aten::group_norm", OP_NORM, "[[2, 64, 32, 32], [], [64], [64], [], []]", NULL, NULL,
         "[\"\", \"8\", \"\", \"\", \"1e-05\", \"True\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "group_norm");
    const int64_t gn[4] = { 2, 64, 1024, 8 };
    assert_memory_equal(op_sizes(&o)->kdim, gn, sizeof gn);
    clear(&o);
    /* upsample_bilinear2d(input, output_size, align_corners, scales_h, scales_w)
     * (stylegan2 trace): [2, 512, 4, 4] to 8 x 8 */
    fill(&o, "aten::upsample_bilinear2d", OP_ELEMENTWISE, "[[2, 512, 4, 4], [], [], [], []]", NULL, NULL,
         "[\"\", \"[8, 8]\", \"False\", \"2.\", \"2.\"]", &f, &b);
    assert_true(op_is_resample(&o));
    assert_string_equal(op_sizes(&o)->kop, "upsample_bilinear2d");
    const int64_t up[6] = { 2 * 512 * 16, 0, 2, 512, 64, 16 };
    assert_memory_equal(op_sizes(&o)->kdim, up, sizeof up);
    /* it reads its input and writes an output four times as large */
    assert_true(b == 4.0 * 2 * 512 * (64 + 16));
    assert_false(op_has_flag(&o, "channels-last"));
    clear(&o);
    /* channels-last input (segformer trace: a Linear's output permuted and
     * reshaped into maps): PyTorch's kernel for that layout, said */
    fill(&o, "aten::upsample_bilinear2d", OP_ELEMENTWISE, "[[16, 256, 64, 64], [], [], [], []]", NULL,
         "[[1048576, 1, 16384, 256], [], [], [], []]", "[\"\", \"[128, 128]\", \"False\", \"\", \"\"]",
         &f, &b);
    assert_true(op_is_resample(&o));
    assert_true(op_has_flag(&o, "channels-last"));
    clear(&o);
    /* the .vec overload: no output size, scale factors last */
    fill(&o, "aten::upsample_bilinear2d", OP_ELEMENTWISE, "[[2, 3, 4, 4], [], [], []]", NULL, NULL,
         "[\"\", \"\", \"False\", \"[2.5, 2.]\"]", &f, &b);
    assert_int_equal(op_sizes(&o)->kdim[OP_RS_OUT], 10 * 8);
    assert_int_equal(op_sizes(&o)->kdim[OP_RS_IN], 16);
    clear(&o);
    /* the backward: grad_output is the output, input_size the input
     * (deeplab trace: a pooled 1 x 1 map spread over 32 x 32) */
    fill(&o, "aten::upsample_bilinear2d_backward", OP_ELEMENTWISE, "[[16, 256, 32, 32], [], [], [], [], []]",
         NULL, NULL, "[\"\", \"[32, 32]\", \"[16, 256, 1, 1]\", \"False\", \"\", \"\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "upsample_bilinear2d");
    const int64_t upb[4] = { 16, 256, 1024, 1 };
    assert_memory_equal(&op_sizes(&o)->kdim[OP_RS_N], upb, sizeof upb);
    clear(&o);
    /* sizes past any tensor (a hostile trace) or a scale of 1e300: no sizes */
    fill(&o, "aten::upsample_nearest2d", OP_ELEMENTWISE, "[[1, 1, 4294967296, 4294967296], [], []]", NULL,
         NULL, "[\"\", \"[4294967296, 4294967296]\", \"\"]", &f, &b);
    assert_false(op_is_resample(&o));
    clear(&o);
    fill(&o, "aten::upsample_nearest2d", OP_ELEMENTWISE, "[[1, 1, 4, 4], [], []]", NULL, NULL,
         "[\"\", \"\", \"[1e300, 2.]\"]", &f, &b);
    assert_false(op_is_resample(&o));
    clear(&o);
    /* without its sizes (no concrete inputs) it is a plain elementwise op */
    fill(&o, "aten::upsample_nearest3d", OP_ELEMENTWISE, "[[2, 8, 4, 4, 4], [], []]", NULL, NULL, NULL,
         &f, &b);
    assert_false(op_is_resample(&o));
    assert_string_equal(op_sizes(&o)->kop, "upsample_nearest3d");
    clear(&o);
    /* embedding_bag: 1-D indices of 4 bags (include_last_offset) in mean mode */
    fill(&o, "aten::_embedding_bag", OP_EMBEDDING, "[[1000, 32], [40], [5], [], [], [], [], [], []]", NULL,
         NULL, "[\"\", \"\", \"\", \"False\", \"1\", \"False\", \"\", \"True\", \"-1\"]", &f, &b);
    assert_string_equal(op_sizes(&o)->kop, "embedding_bag");
    assert_string_equal(op_sizes(&o)->kmode, "mean");
    const int64_t eb[4] = { 1000, 32, 10, 4 };
    assert_memory_equal(op_sizes(&o)->kdim, eb, sizeof eb);
    clear(&o);
    /* embedding_dense_backward (lstm trace): rows from num_weights */
    fill(&o, "aten::embedding_dense_backward", OP_EMBEDDING, "[[64, 100, 512], [64, 100], [], [], []]",
         NULL, NULL, "[\"\", \"\", \"10000\", \"-1\", \"False\"]", &f, &b);
    const int64_t emb[4] = { 10000, 512, 100, 64 };
    assert_memory_equal(op_sizes(&o)->kdim, emb, sizeof emb);
    assert_string_equal(op_sizes(&o)->kmode, "none");
    clear(&o);
    /* an attention op fom does not know: shapes from q, k; causal unknown */
    fill(&o, "aten::_some_new_attention", OP_ATTENTION, "[[2, 4, 16, 8], [2, 4, 32, 8]]", NULL, NULL,
         NULL, &f, &b);
    assert_int_equal(op_sizes(&o)->kdim[3], 32);  /* kv_len */
    assert_int_equal(o.kflag, -1);
    clear(&o);
}

static void test_elementwise_and_lists(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    fill(&o, "aten::add_", OP_ELEMENTWISE, "[[100, 1000], [100, 1000], []]",
         "[\"c10::Half\", \"c10::Half\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_int_equal(o.dtype, PREC_FP16);
    assert_close(f, 1e5, 1e-15);
    assert_close(b, 2.0 * (2e5 + 1e5), 1e-15);   /* read two, write one */
    clear(&o);
    /* _foreach over tensor lists: every tensor of every list counts */
    fill(&o, "aten::_foreach_mul_", OP_OPTIMIZER, "[[[10, 20], [5]], []]",
         "[\"TensorList\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_close(b, 4.0 * (205 + 205), 1e-15);
    clear(&o);
    fill(&o, "aten::view", OP_OTHER, "[[10, 20], []]", "[\"float\", \"ScalarList\"]", NULL, NULL, &f, &b);
    assert_close(b, 0, 0);
    clear(&o);
}

/* Ops that move rows through an index: a gather's output is the index's
 * rows, not its largest input, and the bytes are those
 * estimators/measure/index_rows.py writes beside the measured rows (the
 * table looks them up by these bytes, so both must count alike). */
static void test_indexed(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    const double n = 6000, w = 40, e = 18000;     /* rows, row width, index */
    fill(&o, "aten::index_select", OP_ELEMENTWISE, "[[6000, 40], [], [18000]]",
         "[\"float\", \"Scalar\", \"long int\"]", NULL, "[\"\", \"0\", \"\"]", &f, &b);
    assert_close(f, e * w, 1e-15);
    assert_close(b, 4.0 * (n * w + e + e * w), 1e-15);
    clear(&o);
    /* along the last dimension: [6000, 40] cut to [6000, 7] */
    fill(&o, "aten::index_select", OP_ELEMENTWISE, "[[6000, 40], [], [7]]",
         "[\"float\", \"Scalar\", \"long int\"]", NULL, "[\"\", \"-1\", \"\"]", &f, &b);
    assert_close(f, n * 7, 1e-15);
    clear(&o);
    /* no dimension recorded: the largest input, as for any op */
    fill(&o, "aten::index_select", OP_ELEMENTWISE, "[[6000, 40], [], [18000]]",
         "[\"float\", \"Scalar\", \"long int\"]", NULL, NULL, &f, &b);
    assert_close(f, n * w, 1e-15);
    clear(&o);
    fill(&o, "aten::gather", OP_ELEMENTWISE, "[[6000, 40], [], [18000, 40], []]",
         "[\"c10::BFloat16\", \"Scalar\", \"long int\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_close(b, 2.0 * (n * w + 2 * e * w), 1e-15);
    clear(&o);
    fill(&o, "aten::index_add_", OP_ELEMENTWISE, "[[6000, 40], [], [18000], [18000, 40], []]",
         "[\"float\", \"Scalar\", \"long int\", \"float\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_close(b, 4.0 * (n * w + e + 2 * e * w), 1e-15);
    clear(&o);
    fill(&o, "aten::index_select_backward", OP_ELEMENTWISE, "[[18000, 40], [], [], [18000]]",
         "[\"float\", \"ScalarList\", \"Scalar\", \"long int\"]", NULL, NULL, &f, &b);
    assert_close(b, 4.0 * (2 * e * w + e), 1e-15);
    clear(&o);
    fill(&o, "aten::scatter_add_", OP_ELEMENTWISE, "[[6000, 40], [], [18000, 40], [18000, 40]]",
         "[\"float\", \"Scalar\", \"long int\", \"float\"]", NULL, NULL, &f, &b);
    assert_close(b, 4.0 * (n * w + 3 * e * w), 1e-15);
    clear(&o);
    assert_true(ops_is_indexed("index_add_"));
    assert_true(ops_is_indexed("index"));       /* x[idx]: a gather of rows */
    assert_true(ops_is_indexed("_index_put_impl_"));
    assert_false(ops_is_indexed("index_put"));
    assert_false(ops_is_indexed("add_"));
    assert_false(ops_is_indexed(NULL));
}

/* Complex tensors: two parts of their precision per element, four real
 * products and four adds per complex multiply-add; FFTs and complex ops
 * keep their precision in a bf16 run. */
static void test_complex(void **state)
{
    (void)state;
    struct op o;
    double f, b;
    fill(&o, "aten::bmm", OP_GEMM, "[[256, 32, 16], [256, 16, 32]]",
         "[\"c10::complex<float>\", \"c10::complex<float>\"]", NULL, NULL, &f, &b);
    assert_int_equal(o.dtype, PREC_FP32);
    assert_true(ops_is_complex(&o));
    assert_true(ops_keeps_precision(&o));
    assert_close(f, 8.0 * 32 * 32 * 16 * 256, 1e-15);
    assert_close(b, 8.0 * (32 * 16 + 16 * 32 + 32 * 32) * 256, 1e-15);
    clear(&o);
    /* the same product of reals */
    fill(&o, "aten::bmm", OP_GEMM, "[[256, 32, 16], [256, 16, 32]]", "[\"float\", \"float\"]",
         NULL, NULL, &f, &b);
    assert_false(ops_is_complex(&o));
    assert_false(ops_keeps_precision(&o));
    assert_close(f, 2.0 * 32 * 32 * 16 * 256, 1e-15);
    clear(&o);
    /* an inverse FFT reads complex elements and writes reals */
    fill(&o, "aten::_fft_c2r", OP_ELEMENTWISE, "[[16, 32, 128, 65], [], [], []]",
         "[\"c10::complex<float>\", \"ScalarList\", \"Scalar\", \"Scalar\"]", NULL, NULL, &f, &b);
    assert_close(b, 8.0 * 2 * 16 * 32 * 128 * 65, 1e-15);
    assert_true(ops_keeps_precision(&o));
    clear(&o);
    fill(&o, "aten::fft_rfft2", OP_ELEMENTWISE, "[[16, 32, 128, 128], [], [], []]",
         "[\"float\", \"\", \"ScalarList\", \"\"]", NULL, NULL, &f, &b);
    assert_false(ops_is_complex(&o));
    assert_true(ops_keeps_precision(&o));
    clear(&o);
    assert_int_equal(ops_complex_parts("c10::complex<double>"), PREC_FP64);
    assert_int_equal(ops_complex_parts("c10::complex<c10::Half>"), PREC_FP16);
    assert_int_equal(ops_complex_parts("c10::complex<float"), PREC_UNKNOWN);
    assert_int_equal(ops_complex_parts("c10::complex<float>x"), PREC_UNKNOWN);
    assert_int_equal(ops_complex_parts("c10::complex<int>"), PREC_UNKNOWN);
    assert_int_equal(ops_complex_parts("float"), PREC_UNKNOWN);
    assert_int_equal(ops_complex_parts(NULL), PREC_UNKNOWN);
}

/* One op of p, as ops_fill leaves it, with count calls per pass. */
static struct op *add_filled(struct profile *p, const char *name, enum op_phase phase,
                             const char *dims, const char *types, double count)
{
    struct op *o = profile_add_op(p);
    double f, b;
    fill(o, name, OP_ELEMENTWISE, dims, types, NULL, NULL, &f, &b);
    o->phase = phase;
    o->count = count;
    o->flops = f * count;
    o->bytes = b * count;
    return o;
}

/* x[nbr] records no shape for its index list, so ops_fill can only take
 * its input's size; the gradient's put (values of the result's shape
 * into x's) gives the result: 98,304 x 12 rows of 64 gathered.  Puts
 * into tensors of x's shape that disagree leave the op as it was, and an
 * indexing whose index shapes are recorded is not touched. */
static void test_index_outputs(void **state)
{
    (void)state;
    struct profile p;
    profile_init(&p);
    const double n = 98304, w = 64, e = 98304.0 * 12;
    struct op *ix = add_filled(&p, "aten::index", PHASE_FORWARD, "[[98304, 64], []]",
                               "[\"c10::BFloat16\", \"\"]", 3);
    assert_close(ix->bytes, 3 * 2.0 * (n * w + n * w), 1e-15);     /* the input's size */
    add_filled(&p, "aten::_index_put_impl_", PHASE_BACKWARD, "[[98304, 64], [], [98304, 12, 64], [], []]",
               "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]", 3);
    /* another indexing, of a tensor whose puts disagree */
    struct op *other = add_filled(&p, "aten::index", PHASE_FORWARD, "[[5000, 32], []]",
                                  "[\"float\", \"\"]", 1);
    add_filled(&p, "aten::index_put_", PHASE_BACKWARD, "[[5000, 32], [], [9000, 32], []]",
               "[\"float\", \"\", \"float\", \"Scalar\"]", 1);
    add_filled(&p, "aten::index_put_", PHASE_BACKWARD, "[[5000, 32], [], [7000, 32], []]",
               "[\"float\", \"\", \"float\", \"Scalar\"]", 1);
    double other_bytes = other->bytes;
    ops_index_outputs(&p);
    ix = &p.ops[0];
    assert_close(ix->bytes, 3 * 2.0 * (n * w + e * w), 1e-15);
    assert_close(ix->flops, 3 * e * w, 1e-15);
    assert_int_equal(op_sizes(ix)->kdim[0], (int64_t)(e * w));
    assert_true(op_has_flag(ix, "index-size-from-gradient"));
    assert_close(p.ops[2].bytes, other_bytes, 1e-15);
    assert_false(op_has_flag(&p.ops[2], "index-size-from-gradient"));
    profile_release(&p);
}

static void test_top(void **state)
{
    (void)state;
    struct profile p;
    profile_init(&p);
    const double times[] = { 1, 5, 2, 2 };
    for (int i = 0; i < 4; i++) {
        struct op *o = profile_add_op(&p);
        o->name = xstrdup(i == 1 ? "big" : "small");
        o->time_s = times[i];
    }
    ops_sort(&p);
    assert_string_equal(p.ops[0].name, "big");
    assert_close(p.total_time_s, 10, 1e-15);
    ops_select_top(&p, 0.7);                    /* 5 + 2 = 7 covers 70% */
    assert_int_equal(p.n_ops, 2);
    assert_int_equal(p.dropped_ops, 2);
    assert_close(p.dropped_time_s, 3, 1e-15);
    assert_close(p.coverage, 0.7, 1e-15);
    assert_close(p.total_time_s, 7, 1e-15);
    profile_release(&p);
}

/* Ops whose name and shapes live in the profile's string blocks: every
 * copy reads back whole across block boundaries (one name longer than a
 * block), and releasing the profile or dropping ops with --top frees the
 * blocks once, not the borrowed strings one by one (a free of a pointer
 * into a block aborts). */
static void test_borrowed_strings(void **state)
{
    (void)state;
    struct profile p;
    profile_init(&p);
    size_t long_b = 70000;
    char *long_name = xmalloc(long_b + 1);
    memset(long_name, 'x', long_b);
    long_name[long_b] = '\0';
    char buf[64];
    for (int i = 0; i < 5000; i++) {
        struct op *o = profile_add_op(&p);
        o->strs_borrowed = 1;
        if (i == 2500) {
            o->name = profile_strndup(&p, long_name, long_b);
        } else {
            int n = snprintf(buf, sizeof buf, "aten::op%d", i);
            o->name = profile_strndup(&p, buf, (size_t)n);
        }
        int n = snprintf(buf, sizeof buf, "[%d, %d]", i, i + 1);
        o->shapes = profile_strndup(&p, buf, (size_t)n);
        o->time_s = 5000 - i;
    }
    struct op *own = profile_add_op(&p);
    own->name = xstrdup("owned");
    for (int i = 0; i < 5000; i++) {
        if (i == 2500) {
            assert_int_equal(strlen(p.ops[i].name), long_b);
            assert_memory_equal(p.ops[i].name, long_name, long_b);
        } else {
            snprintf(buf, sizeof buf, "aten::op%d", i);
            assert_string_equal(p.ops[i].name, buf);
        }
        snprintf(buf, sizeof buf, "[%d, %d]", i, i + 1);
        assert_string_equal(p.ops[i].shapes, buf);
    }
    ops_sort(&p);
    ops_select_top(&p, 0.5);
    assert_true(p.n_ops < 5001);
    assert_string_equal(p.ops[0].name, "aten::op0");
    profile_release(&p);
    assert_null(p.strs);
    free(long_name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_cast_to_fp32),
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_conv_transposed),
        cmocka_unit_test(test_conv_channels_last),
        cmocka_unit_test(test_conv_bias),
        cmocka_unit_test(test_table_params),
        cmocka_unit_test(test_rnn),
        cmocka_unit_test(test_elementwise_and_lists),
        cmocka_unit_test(test_indexed),
        cmocka_unit_test(test_index_outputs),
        cmocka_unit_test(test_complex),
        cmocka_unit_test(test_top),
        cmocka_unit_test(test_borrowed_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
