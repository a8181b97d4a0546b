/* tfprof op-view text and TF1 timeline readers. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "model/profile.h"

#include "reader_run.h"

/* The seed's "P1B3 Matrix Sizes and Times for One Pass on x86" with batch
 * 100.  Reference by hand, first orientation of NN, NT, TN, TT whose inner
 * dims agree, flops = 2 m n k x runs:
 *   100x100 . 100x50     NN  m100 k100 n50    x2  =  2.0e6
 *   100x29532 . 100x1000 TN  m29532 k100 n1000    =  5.9064e9
 *   100x29532 . 29532x1000 NN m100 k29532 n1000   =  5.9064e9
 *   100x1 . 50x1         NT  m100 k1 n50          =  1.0e4
 *   100x100 . 500x100    NT  m100 k100 n500       =  1.0e7
 *   100x1000 . 1000x500  NN  m100 k1000 n500      =  1.0e8
 *   100x1000 . 100x500   TN  m1000 k100 n500      =  1.0e8
 *   100x50 . 100x1       TN  m50 k100 n1          =  1.0e4
 *   100x50 . 100x50      NT  m100 k50 n100        =  1.0e6
 *   100x50 . 50x1        NN  m100 k50 n1          =  1.0e4
 *   100x500 . 1000x500   NT  m100 k500 n1000      =  1.0e8
 *   100x500 . 100x100    TN  m500 k100 n100       =  1.0e7
 *   100x500 . 500x100    NN  m100 k500 n100       =  1.0e7
 *   100x1000 . 29532x1000 run*0                   =  0
 * runs 2+12x1+0 = 14; sum = 11.8128e9 + 3e8 + 3e7 + 3e6 + 3e4 = 12.14583e9 */
static void test_seed_acceptance(void **state)
{
    (void)state;
    struct run r = { 0 };
    char buf[512];
    run_on(&r, tfprof_read, data_path("tfprof/p1b3_x86_matmul_shapes.txt", buf, sizeof buf), 100);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 14);
    assert_string_equal(r.p.format, "tfprof");
    assert_int_equal(r.p.steps, 1);
    double count = 0, flops = 0, time = 0;
    for (size_t i = 0; i < r.p.n_ops; i++) {
        assert_int_equal(r.p.ops[i].kind, OP_GEMM);
        count += r.p.ops[i].count;
        flops += r.p.ops[i].flops;
        time += r.p.ops[i].time_s;
    }
    assert_close(count, 14, 1e-12);
    assert_close(flops, 12.14583e9, 1e-12);
    /* 549+42270+65310+42+609+1210+1980+26+293+22+2110+592+515+0 us */
    assert_close(time, 115528e-6, 1e-12);
    assert_close(r.p.total_time_s, 115528e-6, 1e-12);
    const struct op *w = &r.p.ops[1];      /* -1x29532 . 100x1000 */
    assert_int_equal(w->m, 29532);
    assert_int_equal(w->n, 1000);
    assert_int_equal(w->k, 100);
    assert_int_equal(w->a_t, 'T');
    assert_int_equal(w->b_t, 'N');
    assert_string_equal(w->shapes, "[-1, 29532], [100, 1000]");
    assert_true(has_flag(w, "assumed-matmul"));
    assert_false(has_flag(w, "ambiguous-orientation"));
    assert_true(has_flag(&r.p.ops[13], "not-run"));
    assert_non_null(strstr(r.msg, ":1: warning: input-shape lines without an op row"));
    run_done(&r);
}

static void test_seed_without_batch(void **state)
{
    (void)state;
    struct run r = { 0 };
    char buf[512];
    run_on(&r, tfprof_read, data_path("tfprof/p1b3_x86_matmul_shapes.txt", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_true(has_flag(&r.p.ops[1], "unresolved-batch"));
    assert_true(has_flag(&r.p.ops[2], "unresolved-batch"));
    assert_close(r.p.ops[1].flops, 0, 0);
    assert_close(r.p.ops[2].flops, 0, 0);
    /* the known part: line 3 is 100x29532? no: -1x29532 . 29532x1000, so k
     * and n are known, m is the batch */
    assert_int_equal(r.p.ops[2].m, 0);
    assert_int_equal(r.p.ops[2].k, 29532);
    assert_int_equal(r.p.ops[2].n, 1000);
    assert_non_null(strstr(r.msg, "p1b3_x86_matmul_shapes.txt:2: warning:"));
    assert_non_null(strstr(r.msg, "p1b3_x86_matmul_shapes.txt:3: warning:"));
    assert_non_null(strstr(r.msg, "--batch"));
    run_done(&r);
}

/* Current TF spelling, with a header, op rows and input_type lines. */
static void test_new_spelling(void **state)
{
    (void)state;
    struct run r = { 0 };
    run_text(&r, tfprof_read,
             "tfprof> op -select micros,bytes,occurrence,input_shapes -order_by micros\n"
             "node name | requested bytes | total execution time | accelerator execution time | "
             "cpu execution time | op occurrence (run|defined) | input shapes\n"
             "MatMul     1.50MB (100.00%, 60.00%),   2.50ms (100.00%, 70.00%),   2.00ms (100.00%, 80.00%),"
             "   500us (100.00%, 50.00%),      3|4\n"
             "input_type: 0:64x256,\t1:256x128\t(run*2|defined*2)\texec_time: 1.20ms\n"
             "input_type: 0:-1x128,\t1:32x128\t(run*1|defined*2)\texec_time: 1.30ms\n"
             "\n"
             "ApplyAdam  12.00KB (40.00%, 40.00%),   1.10sec (30.00%, 30.00%),   0us (0.00%, 0.00%),"
             "   1.10sec (50.00%, 50.00%),      1|1\n",
             16);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 3);
    const struct op *a = &r.p.ops[0], *b = &r.p.ops[1], *c = &r.p.ops[2];
    assert_string_equal(a->name, "MatMul");
    /* 64x256 . 256x128: NN, m64 k256 n128, 2 runs: 2*64*256*128*2 = 8388608 */
    assert_int_equal(a->m, 64);
    assert_int_equal(a->n, 128);
    assert_int_equal(a->k, 256);
    assert_int_equal(a->a_t, 'N');
    assert_int_equal(a->b_t, 'N');
    assert_close(a->count, 2, 0);
    assert_close(a->time_s, 1.2e-3, 1e-12);
    assert_close(a->flops, 8388608.0, 1e-12);
    /* bytes (m k + k n + m n) x 4 B x 2 runs = (16384+32768+8192)*8 */
    assert_close(a->bytes, 458752.0, 1e-12);
    assert_null(a->flags);
    /* -1x128 -> 16x128 . 32x128: NT, m16 k128 n32: 2*16*32*128 = 131072 */
    assert_int_equal(b->m, 16);
    assert_int_equal(b->n, 32);
    assert_int_equal(b->k, 128);
    assert_int_equal(b->b_t, 'T');
    assert_close(b->flops, 131072.0, 1e-12);
    assert_close(b->time_s, 1.3e-3, 1e-12);
    /* op row alone: units sec, KB, occurrence */
    assert_string_equal(c->name, "ApplyAdam");
    assert_int_equal(c->kind, OP_OPTIMIZER);
    assert_int_equal(c->phase, PHASE_OPTIMIZER);
    assert_close(c->time_s, 1.1, 1e-12);
    assert_close(c->host_time_s, 1.1, 1e-12);
    assert_close(c->device_time_s, 0, 0);
    assert_close(c->bytes, 12000.0, 1e-12);
    assert_close(c->count, 1, 0);
    assert_close(r.p.total_time_s, 1.2e-3 + 1.3e-3 + 1.1, 1e-12);
    assert_string_equal(r.msg, "");
    run_done(&r);
}

/* The seed's spelling after an op row, and the orientation rules. */
static void test_orientation(void **state)
{
    (void)state;
    struct run r = { 0 };
    run_text(&r, tfprof_read,
             "node name | total execution time | op occurrence (run|defined)\n"
             "MatMul    10.00ms (100.00%, 100.00%),    6|6\n"
             "0:30x20,\t1:20x10\t(run*1 defined*1)\texec_time:\t1ms\n"   /* NN */
             "0:30x20,\t1:10x20\t(run*1 defined*1)\texec_time:\t2ms\n"   /* NT */
             "0:20x30,\t1:20x10\t(run*1 defined*1)\texec_time:\t3ms\n"   /* TN */
             "0:20x30,\t1:10x20\t(run*1 defined*1)\texec_time:\t4ms\n"   /* TT */
             "0:100x50,\t1:100x50\t(run*1 defined*1)\texec_time:\t293us\n" /* NT and TN */
             "0:30x20,\t1:7x9\t(run*1 defined*1)\texec_time:\t5us\n",    /* none */
             0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 6);
    static const char want[4][2] = { { 'N', 'N' }, { 'N', 'T' }, { 'T', 'N' }, { 'T', 'T' } };
    for (int i = 0; i < 4; i++) {
        const struct op *op = &r.p.ops[i];
        assert_int_equal(op->a_t, want[i][0]);
        assert_int_equal(op->b_t, want[i][1]);
        assert_int_equal(op->m, 30);
        assert_int_equal(op->k, 20);
        assert_int_equal(op->n, 10);
        assert_close(op->flops, 12000.0, 1e-12);
        assert_close(op->time_s, (i + 1) * 1e-3, 1e-12);
        assert_null(op->flags);
    }
    /* 100x50 . 100x50: NT (m100 k50 n100) beats TN (m50 k100 n50) */
    const struct op *amb = &r.p.ops[4];
    assert_int_equal(amb->a_t, 'N');
    assert_int_equal(amb->b_t, 'T');
    assert_int_equal(amb->m, 100);
    assert_int_equal(amb->n, 100);
    assert_int_equal(amb->k, 50);
    assert_close(amb->flops, 1e6, 1e-12);
    assert_true(has_flag(amb, "ambiguous-orientation"));
    const struct op *bad = &r.p.ops[5];
    assert_true(has_flag(bad, "shape-mismatch"));
    assert_close(bad->flops, 0, 0);
    assert_non_null(strstr(r.msg, ":8: warning: MatMul inputs 30x20 and 7x9"));
    run_done(&r);
}

static void test_docs_examples(void **state)
{
    (void)state;
    struct run r = { 0 };
    char buf[512];
    run_on(&r, tfprof_read,
           data_path("tfprof/tfprof_op_view_readme_example.txt", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 2);
    assert_int_equal(r.p.ops[0].kind, OP_REDUCTION);
    assert_close(r.p.ops[0].time_s, 1.37, 1e-12);
    assert_close(r.p.ops[0].count, 30, 0);
    assert_close(r.p.ops[0].bytes, 36.58e6, 1e-12);
    assert_int_equal(r.p.ops[1].kind, OP_GEMM);
    assert_close(r.p.ops[1].count, 2694, 0);
    assert_close(r.p.ops[1].device_time_s, 0.28076, 1e-12);
    assert_close(r.p.ops[1].host_time_s, 0.42739, 1e-12);
    assert_close(r.p.ops[1].bytes, 2720.57e6, 1e-12);
    assert_true(has_flag(&r.p.ops[1], "no-shapes"));
    assert_true(r.p.has_device);
    run_done(&r);

    memset(&r, 0, sizeof r);
    run_on(&r, tfprof_read,
           data_path("tfprof/tfprof_op_view_input_shapes_example.txt", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 2);
    assert_int_equal(r.p.ops[0].kind, OP_CONV);
    assert_close(r.p.ops[0].time_s, 597e-6, 1e-12);
    assert_close(r.p.ops[1].time_s, 4.29e-3, 1e-12);
    /* NHWC 2x6x6x3 input, RSCK 3x3x3x6 filter */
    assert_int_equal(op_conv(&r.p.ops[1])->n, 2);
    assert_int_equal(op_conv(&r.p.ops[1])->c, 3);
    assert_int_equal(op_conv(&r.p.ops[1])->k, 6);
    assert_int_equal(op_conv(&r.p.ops[1])->r, 3);
    run_done(&r);

    memset(&r, 0, sizeof r);
    run_on(&r, tfprof_read, data_path("tfprof/p1b3_x86_op_view.txt", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 14);
    assert_string_equal(r.p.ops[0].name, "MatMul");
    assert_int_equal(r.p.ops[0].kind, OP_GEMM);
    assert_close(r.p.ops[0].time_s, 115.52e-3, 1e-12);
    assert_close(r.p.ops[0].bytes, 121.67e6, 1e-12);
    assert_true(has_flag(&r.p.ops[0], "count-unknown"));
    assert_string_equal(r.p.ops[1].name, "Assign");
    assert_int_equal(r.p.ops[1].kind, OP_OPTIMIZER);
    assert_int_equal(r.p.ops[2].kind, OP_ELEMENTWISE);   /* Mul */
    assert_int_equal(r.p.ops[8].kind, OP_ELEMENTWISE);   /* ReluGrad */
    assert_int_equal(r.p.ops[8].phase, PHASE_BACKWARD);
    assert_int_equal(r.p.ops[9].kind, OP_REDUCTION);     /* BiasAddGrad */
    assert_close(r.p.ops[9].bytes, 6.6e3, 1e-12);
    assert_close(r.p.ops[10].time_s, 868e-6, 1e-12);     /* VariableV2 */
    /* sum of the column: 115.52+73.65+61.46+22.31+2.22+1.75+1.75+1.19+1.11
     * +1.00+0.868+0.849+0.848+0 ms = 284.525 ms */
    assert_close(r.p.total_time_s, 284.525e-3, 1e-12);
    run_done(&r);
}

static void test_tfprof_bad(void **state)
{
    (void)state;
    expect_error(tfprof_read, "", ": error: found an empty file", "tfprof op view");
    expect_error(tfprof_read, "\n\n", ":2: error: found no op rows", "tfprof");
    /* yajl stops after the offending token "X" (bytes 23-25) */
    /* a dump cut in the middle of a shape line */
    expect_error(tfprof_read, "0:100x100,\t1:100x50\t(run*2 defined*2)\texec_time:\t549us\n0:100x1",
                 ":2: error: found '0:100x1'", "(run*N|defined*M)");
    expect_error(tfprof_read, "0:100x100,\t1:100x50\t(run*2 defined*2)\texec_time:\t549\n",
                 ":1: error:", "exec_time like");
    expect_error(tfprof_read, "0:100x,\t1:100x50\t(run*2 defined*2)\texec_time:\t5us\n",
                 ":1: error:", "input shapes like");
    /* an op row cut inside its parentheses */
    expect_error(tfprof_read, "node name | requested bytes | total execution time\n"
                              "MatMul   121.67MB (100.00%, 33.33%),   115.52ms (100.0",
                 ":2: error: found 'MatMul", "expected a tfprof op row");
    expect_error(tfprof_read, "hello world\n", ":1: error: found 'hello world'",
                 "expected a tfprof op row");
    expect_error(tfprof_read, "\x89PNG\r\n\x1a\n", ":1: error: found '?PNG'", "expected");
}

static void test_timeline_real(void **state)
{
    (void)state;
    struct run r = { 0 };
    char buf[512];
    run_on(&r, tf_timeline_read, data_path("tfprof/tf1_timeline_gpu_matmul.json", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.p.format, "tf-timeline");
    assert_int_equal(r.p.steps, 1);
    assert_true(r.p.has_device);
    const struct op *mm = NULL, *cp = NULL;
    for (size_t i = 0; i < r.p.n_ops; i++) {
        if (strcmp(r.p.ops[i].name, "MatMul") == 0)
            mm = &r.p.ops[i];
        if (r.p.ops[i].kind == OP_MEMCPY)
            cp = &r.p.ops[i];
        assert_true(has_flag(&r.p.ops[i], "no-shapes"));
        assert_close(r.p.ops[i].flops, 0, 0);
    }
    assert_non_null(mm);
    assert_int_equal(mm->kind, OP_GEMM);
    /* stream:all 4085 us + memcpy lane 1 us; the stream:12 and stream:7
     * copies are inside stream:all; host lane (gpu:0 Compute) 115421 us */
    assert_close(mm->device_time_s, 4086e-6, 1e-12);
    assert_close(mm->time_s, 4086e-6, 1e-12);
    assert_close(mm->host_time_s, 115421e-6, 1e-12);
    assert_close(mm->count, 1, 0);
    assert_non_null(cp);
    assert_string_equal(cp->name, "edge_22_MatMul (MEMCPYDtoH)");
    assert_close(cp->time_s, 1215e-6, 1e-12);
    run_done(&r);
}

static void test_timeline_small(void **state)
{
    (void)state;
    struct run r = { 0 };
    /* events before their lane's process_name; unknown keys and nested
     * values anywhere */
    run_text(&r, tf_timeline_read,
             "{\"traceEvents\": [\n"
             " {\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"Conv2D\",\"pid\":2,\"tid\":0,\"ts\":100,\"dur\":30,"
             "  \"args\":{\"name\":\"c1/Conv2D\",\"op\":\"Conv2D\",\"input0\":\"x\",\"deep\":{\"a\":[1,{}]}}},\n"
             " {\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"Conv2D\",\"pid\":2,\"ts\":200,\"dur\":20,"
             "  \"args\":{\"name\":\"c1/Conv2D\",\"op\":\"Conv2D\"}},\n"
             " {\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"Conv2D\",\"pid\":1,\"ts\":90,\"dur\":5,"
             "  \"args\":{\"name\":\"c1/Conv2D\",\"op\":\"Conv2D\"}},\n"
             " {\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"Relu\",\"pid\":1,\"ts\":250,\"dur\":7,"
             "  \"args\":{\"name\":\"Relu\",\"op\":\"Relu\"}},\n"
             " {\"ph\":\"s\",\"cat\":\"DataFlow\",\"name\":\"x\",\"pid\":1,\"ts\":1,\"id\":0},\n"
             " {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"/job:localhost/replica:0/task:0/cpu:0 Compute\"}},\n"
             " {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"/gpu:0/stream:all Compute\"}}\n"
             "], \"extra\": [1,2,3]}\n",
             0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 2);
    const struct op *c = &r.p.ops[0], *u = &r.p.ops[1];
    assert_string_equal(c->name, "c1/Conv2D (Conv2D)");
    assert_int_equal(c->kind, OP_CONV);
    assert_close(c->device_time_s, 50e-6, 1e-12);
    assert_close(c->kernels, 2, 0);
    assert_close(c->host_time_s, 5e-6, 1e-12);
    assert_close(c->count, 1, 0);       /* one execution, two kernels */
    assert_close(c->time_s, 50e-6, 1e-12);
    assert_string_equal(u->name, "Relu");
    assert_int_equal(u->kind, OP_ELEMENTWISE);
    assert_close(u->time_s, 7e-6, 1e-12);   /* host-only op: host time */
    assert_close(r.p.total_time_s, 57e-6, 1e-12);
    assert_close(r.p.step_time_s, (257 - 90) * 1e-6, 1e-12);
    run_done(&r);
}

static void test_timeline_bad(void **state)
{
    (void)state;
    expect_error(tf_timeline_read, "", ": error: found an empty file", "TF1 timeline");
    /* cut after 60 bytes */
    expect_error(tf_timeline_read,
                 "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"MatMul\",\"dur\":",
                 ": byte 60: error: found the end of the file inside a JSON value", "truncated");
    expect_error(tf_timeline_read, "{\"traceEvents\": [{\"ph\" \"X\"}]}",
                 ": byte 26: error: found invalid JSON", "expected a TF1 timeline");
    expect_error(tf_timeline_read, "{\"foo\": 1}", ": byte 0: error: found no \"traceEvents\"", "");
    expect_error(tf_timeline_read, "{\"traceEvents\": [{\"ph\":\"M\"}]}",
                 ": byte 29: error: found no op events", "");
    expect_error(tf_timeline_read, "\x1f\x8b garbage", ": error: found corrupt gzip data", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_acceptance),
        cmocka_unit_test(test_seed_without_batch),
        cmocka_unit_test(test_new_spelling),
        cmocka_unit_test(test_orientation),
        cmocka_unit_test(test_docs_examples),
        cmocka_unit_test(test_tfprof_bad),
        cmocka_unit_test(test_timeline_real),
        cmocka_unit_test(test_timeline_small),
        cmocka_unit_test(test_timeline_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
