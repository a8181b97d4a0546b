#include "test.h"

#include <string.h>

#include "model/memory.h"

/* A forward op of one call per pass. */
static struct op fwd(const char *name, enum op_kind kind, enum precision dtype,
                     const char *shapes, size_t id)
{
    struct op o;
    memset(&o, 0, sizeof o);
    o.name = (char *)name;
    o.kind = kind;
    o.phase = PHASE_FORWARD;
    o.dtype = dtype;
    o.count = 1;
    o.kernels = 1;
    o.shapes = (char *)shapes;
    o.id = id;
    return o;
}

/* A profile of the given ops, with their calls in array order when
 * with_calls is set. */
static void profile_of(struct profile *p, struct op *ops, size_t n, struct op_call *calls,
                       int with_calls, enum precision dtype)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->n_ops = n;
    p->dtype = dtype;
    p->has_device = 1;
    if (with_calls) {
        for (size_t i = 0; i < n; i++) {
            memset(&calls[i], 0, sizeof calls[i]);
            calls[i].op_id = ops[i].id;
        }
        p->calls = calls;
        p->n_calls = n;
    }
}

/* The backward frees saved tensors in reverse: at op i the tensors of ops
 * 0..i and op i's two gradients are alive.  fp32: gemm input 100x10 =
 * 4000 B, gelu input 1000x10 = 40000 B, log_softmax input 100x50 = 20000 B.
 * Prefixes 4000, 44000, 64000; with the gradient pairs 12000, 124000,
 * 104000: the peak is at the gelu. */
static void test_backward_walk(void **state)
{
    (void)state;
    struct op ops[3] = {
        fwd("aten::mm", OP_GEMM, PREC_FP32, "[100, 10], [10, 1000]", 7),
        fwd("aten::gelu", OP_ELEMENTWISE, PREC_FP32, "[1000, 10], []", 3),
        fwd("aten::log_softmax", OP_REDUCTION, PREC_FP32, "[100, 50], [], []", 5),
    };
    struct op_call calls[3];
    struct profile p;
    profile_of(&p, ops, 3, calls, 1, PREC_FP32);
    assert_close(mem_activations_b(&p), 64000, 1e-15);
    assert_close(mem_backward_peak_b(&p), 124000, 1e-15);
    /* with the log_softmax first in issue order the gelu's prefix holds
     * all three: 64000 + 80000 */
    struct op_call rev[3] = { { .op_id = 5 }, { .op_id = 7 }, { .op_id = 3 } };
    p.calls = rev;
    assert_close(mem_backward_peak_b(&p), 144000, 1e-15);
    /* no calls: every saved tensor plus the largest gradient pair */
    profile_of(&p, ops, 3, calls, 0, PREC_FP32);
    assert_close(mem_backward_peak_b(&p), 64000 + 80000, 1e-15);
}

/* What each op keeps: dropout its one-byte mask (nothing when it launched
 * no kernel: p = 0), relu its result (counted at the next op), autocast's
 * fp32 ops a fp32 copy of their bf16 input, attention q, k, v and a fp32
 * log-sum-exp of [B, H, L]. */
static void test_saved_per_op(void **state)
{
    (void)state;
    struct op ops[6] = {
        fwd("aten::dropout", OP_ELEMENTWISE, PREC_BF16, "[10, 100], [], []", 1),
        fwd("aten::dropout", OP_ELEMENTWISE, PREC_BF16, "[10, 300], [], []", 2),
        fwd("aten::relu", OP_ELEMENTWISE, PREC_BF16, "[10, 100]", 3),
        fwd("aten::layer_norm", OP_NORM, PREC_BF16, "[4, 8, 16], [], [16], [16], [], []", 4),
        fwd("aten::gelu", OP_ELEMENTWISE, PREC_BF16, "[4, 8, 16], []", 5),
        fwd("aten::_flash_attention_forward", OP_ATTENTION, PREC_BF16,
            "[2, 4, 8, 16], [2, 4, 8, 16], [2, 4, 8, 16], [], []", 6),
    };
    ops[1].kernels = 0;
    struct profile p;
    double want[6] = { 1000, 0, 0, 4 * 512, 2 * 512, 2 * 3 * 1024 + 4 * 2 * 4 * 8 };
    for (size_t i = 0; i < 6; i++) {
        profile_of(&p, &ops[i], 1, NULL, 0, PREC_BF16);
        assert_close(mem_activations_b(&p), want[i], 1e-15);
    }
    /* log_softmax recorded on the fp32 copy of a bf16 model output: the
     * loop holds the bf16 output (2 B an element), its fp32 gradients are
     * in flight (2 x 4 B an element) */
    struct op lsm = fwd("aten::log_softmax", OP_REDUCTION, PREC_FP32, "[10, 100], [], []", 9);
    profile_of(&p, &lsm, 1, NULL, 0, PREC_BF16);
    assert_close(mem_activations_b(&p), 2000, 1e-15);
    assert_close(mem_backward_peak_b(&p), 2000 + 8000, 1e-15);
    profile_of(&p, &lsm, 1, NULL, 0, PREC_FP32);
    assert_close(mem_activations_b(&p), 4000, 1e-15);
    /* an fp32 profile: no autocast copy, the norm keeps its input as is */
    profile_of(&p, &ops[3], 1, NULL, 0, PREC_FP32);
    assert_close(mem_activations_b(&p), 2 * 512, 1e-15);
}

/* The peak is the larger of the backward's and the optimizer step's.  One
 * million parameters under Adam (foreach sqrt seen): the step holds
 * weights, gradients, two moments and the sqrt list, 20 B a parameter,
 * plus two 32 MiB cuBLAS workspaces; the backward's 4 + 8 B a parameter
 * and 4000 B of activations is less. */
static void test_peak_phase(void **state)
{
    (void)state;
    struct op ops[2] = {
        fwd("aten::mm", OP_GEMM, PREC_FP32, "[100, 10], [10, 1000]", 1),
        fwd("aten::_foreach_sqrt", OP_OPTIMIZER, PREC_FP32, "[[1000]]", 2),
    };
    ops[1].phase = PHASE_OPTIMIZER;
    struct profile p;
    struct mem_estimate m;
    double ws = 2.0 * 32 * 1024 * 1024;
    profile_of(&p, ops, 2, NULL, 0, PREC_FP32);
    mem_estimate_run(&p, 1000000, 1, &m);
    assert_int_equal(m.optimizer, MEM_OPT_ADAM);
    assert_true(m.peak_at_step);
    assert_close(m.total_b, 20e6 + ws, 1e-15);
    /* a batch 10000 times larger: 40 MB of activations and 80 MB of
     * gradients in flight put the peak in the backward */
    mem_estimate_run(&p, 1000000, 10000, &m);
    assert_false(m.peak_at_step);
    assert_close(m.total_b, 12e6 + 4000 * 10000.0 + 8000 * 10000.0 + ws, 1e-15);
    /* the fused form (one kernel, no sqrt list): 16 B a parameter */
    ops[1].name = "aten::_fused_adamw_";
    mem_estimate_run(&p, 1000000, 1, &m);
    assert_int_equal(m.optimizer, MEM_OPT_ADAM);
    assert_close(m.total_b, 16e6 + ws, 1e-15);
    /* unknown parameters: not available */
    mem_estimate_run(&p, 0, 1, &m);
    assert_false(m.available);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backward_walk),
        cmocka_unit_test(test_saved_per_op),
        cmocka_unit_test(test_peak_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
