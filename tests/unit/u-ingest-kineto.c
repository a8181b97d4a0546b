#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "model/profile.h"

/* Old Kineto generation: GPU "External id" == "correlation", so a kernel
 * reaches its op only through the cudaLaunchKernel call nested in time
 * inside it.  Keys in unusual order, traceEvents before deviceProperties,
 * integer microseconds.  By hand:
 *   step 0..1000 us; aten::linear 10..110 wraps aten::addmm 20..70
 *   (launch at 30, corr 900 -> kernel 40 us) and aten::t 72..80;
 *   aten::relu 120..140 (launch at 125, corr 901 -> kernel 3 us);
 *   aten::relu 2000.. is outside the step and must not count;
 *   a kernel with corr 902 has no launch call: unattributed. */
static const char old_trace[] =
    "{\"traceEvents\": [\n"
    "{\"name\": \"aten::linear\", \"ph\": \"X\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 10, \"dur\": 100, \"args\": {\"External id\": 5, \"Input Dims\": [[32, 128], [64, 128], [64]],"
    " \"Input type\": [\"float\", \"float\", \"float\"]}},\n"
    "{\"args\": {\"Input type\": [\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"],"
    " \"External id\": 6, \"Input Dims\": [[64], [32, 128], [128, 64], [], []]},"
    " \"ts\": 20, \"dur\": 50, \"tid\": 1, \"pid\": 1, \"cat\": \"cpu_op\", \"ph\": \"X\", \"name\": \"aten::addmm\"},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::t\", \"pid\": 1, \"tid\": 1, \"ts\": 72, \"dur\": 8,"
    " \"args\": {\"External id\": 8, \"Input Dims\": [[64, 128]], \"Input type\": [\"float\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 120, \"dur\": 20,"
    " \"args\": {\"External id\": 7, \"Input Dims\": [[32, 64]], \"Input type\": [\"float\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 2000, \"dur\": 20,"
    " \"args\": {\"External id\": 9, \"Input Dims\": [[32, 64]], \"Input type\": [\"float\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 0, \"dur\": 1000, \"args\": {\"External id\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 30, \"dur\": 5, \"args\": {\"External id\": 900, \"correlation\": 900}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 125, \"dur\": 5, \"args\": {\"External id\": 901, \"correlation\": 901}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sgemm_128x64_tn\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 200, \"dur\": 40, \"args\": {\"External id\": 900, \"correlation\": 900}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu_kernel\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 250, \"dur\": 3, \"args\": {\"External id\": 901, \"correlation\": 901}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclAllReduceKernel\", \"pid\": 0, \"tid\": 8,"
    " \"ts\": 300, \"dur\": 10, \"args\": {\"correlation\": 902}},\n"
    "{\"ph\": \"s\", \"id\": 900, \"pid\": 1, \"tid\": 1, \"ts\": 30, \"cat\": \"ac2g\", \"name\": \"ac2g\"}\n"
    "], \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}], \"schemaVersion\": 1}\n";

static char *write_tmp(const char *text, size_t len)
{
    char *path = strdup("/tmp/u-ingest-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

static const struct op *find(const struct profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_ops; i++)
        if (strcmp(p->ops[i].name, name) == 0)
            return &p->ops[i];
    return NULL;
}

static void test_old_linkage(void **state)
{
    (void)state;
    char *path = write_tmp(old_trace, sizeof old_trace - 1);
    struct profile p;
    struct diag d;
    struct ingest_opts o = { TRACE_AUTO, 0, 1.0, NULL };
    diag_init(&d, stderr);
    profile_init(&p);
    assert_int_equal(ingest_read(path, &o, &p, &d), 0);
    assert_int_equal(p.steps, 1);
    assert_true(p.has_device);
    assert_string_equal(p.device_name, "Test GPU");
    assert_string_equal(p.format, "kineto");
    assert_close(p.step_time_s, 1000e-6, 1e-12);
    assert_null(find(&p, "aten::linear"));  /* wrapper: its addmm counts */
    const struct op *mm = find(&p, "aten::addmm");
    assert_non_null(mm);
    assert_int_equal(mm->kind, OP_GEMM);
    assert_int_equal(mm->phase, PHASE_FORWARD);
    assert_int_equal(mm->dtype, PREC_FP32);
    assert_close(mm->count, 1, 0);
    assert_close(mm->device_time_s, 40e-6, 1e-12);
    assert_close(mm->time_s, 40e-6, 1e-12);
    /* the profiler's cost per recorded event: linear's start to its
     * first child, addmm (10 us), plus its last child's end, t's, to its
     * own end (30 us); addmm recorded one event (its kernel launch):
     * 50 - 40 us of its host time are the program's */
    assert_close(p.event_gap_s, 40e-6, 1e-12);
    assert_close(mm->events, 1, 0);
    assert_close(mm->host_time_s, 10e-6, 1e-12);
    assert_close(mm->kernels, 1, 0);
    assert_int_equal(mm->m, 32);
    assert_int_equal(mm->k, 128);
    assert_int_equal(mm->n, 64);
    assert_close(mm->flops, 2.0 * 32 * 64 * 128, 1e-15);
    const struct op *relu = find(&p, "aten::relu");
    assert_non_null(relu);
    assert_close(relu->count, 1, 0);   /* the one at 2000 us is outside the step */
    assert_close(relu->device_time_s, 3e-6, 1e-12);
    const struct op *t = find(&p, "aten::t");
    assert_non_null(t);                /* not under a counted op: its own entry */
    assert_close(t->device_time_s, 0, 0);
    const struct op *nccl = find(&p, "ncclAllReduceKernel");
    assert_non_null(nccl);
    assert_int_equal(nccl->kind, OP_COMM);
    assert_close(nccl->device_time_s, 10e-6, 1e-12);
    assert_close(p.total_time_s, 53e-6, 1e-9);
    profile_release(&p);
    unlink(path);
    free(path);
}

/* The same linking through "External id" (new generation), with ts as
 * relative microseconds with three decimals. */
static const char new_trace[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"name\": \"New GPU\"}], \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 4796986454157.582, \"dur\": 100.000},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 4796986454257.582, \"dur\": 100.000},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::bmm\", \"pid\": 1, \"tid\": 1, \"ts\": 4796986454160.001, \"dur\": 10.5,"
    " \"args\": {\"External id\": 13, \"Input Dims\": [[4, 8, 16], [4, 16, 32]], \"Input Strides\": [[128, 16, 1], [512, 1, 16]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::bmm\", \"pid\": 1, \"tid\": 1, \"ts\": 4796986454260.001, \"dur\": 10.5,"
    " \"args\": {\"External id\": 14, \"Input Dims\": [[4, 8, 16], [4, 16, 32]], \"Input Strides\": [[128, 16, 1], [512, 1, 16]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 4796986454170.000, \"dur\": 2.001, \"args\": {\"External id\": 13, \"correlation\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 4796986454270.000, \"dur\": 3.003, \"args\": {\"External id\": 14, \"correlation\": 78}}\n"
    "]}";

static void test_new_linkage(void **state)
{
    (void)state;
    char *path = write_tmp(new_trace, sizeof new_trace - 1);
    struct profile p;
    struct diag d;
    struct ingest_opts o = { TRACE_KINETO, 0, 1.0, NULL };
    diag_init(&d, stderr);
    profile_init(&p);
    assert_int_equal(ingest_read(path, &o, &p, &d), 0);
    assert_int_equal(p.steps, 2);
    assert_int_equal(p.n_ops, 1);
    const struct op *b = &p.ops[0];
    assert_int_equal(b->dtype, PREC_BF16);
    assert_int_equal(p.dtype, PREC_BF16);
    assert_int_equal(b->batch, 4);
    assert_int_equal(b->a_t, 'N');
    assert_int_equal(b->b_t, 'T');
    assert_close(b->count, 1, 0);
    /* (2.001 + 3.003) us over 2 steps, exact to the ns */
    assert_close(b->device_time_s, 2.502e-6, 1e-12);
    assert_close(b->host_time_s, 10.5e-6, 1e-12);
    assert_close(b->flops, 2.0 * 4 * 8 * 32 * 16, 1e-15);
    profile_release(&p);
    unlink(path);
    free(path);
}

/* Read TEXT as a trace file of format F into *p (the caller releases
 * it), messages to DIAGFP; the ingest's return code. */
static int read_text(const char *text, size_t len, enum trace_format f, FILE *diagfp,
                     struct profile *p)
{
    char *path = write_tmp(text, len);
    struct diag d;
    struct ingest_opts o = { f, 0, 1.0, NULL };
    diag_init(&d, diagfp);
    profile_init(p);
    int rc = ingest_read(path, &o, p, &d);
    unlink(path);
    free(path);
    return rc;
}

/* fp32 ops whose kernels say TF32: by name (..._tf32f32_...) or by
 * CUTLASS's tensor-op GEMM of single-precision data (s1688gemm, the
 * Ampere TF32 MMA); an SIMT sgemm and a half-precision tensor-op GEMM
 * (s16816gemm) leave an fp32 op IEEE.  KERNEL is the kernel's name. */
static enum precision fp32_op_ran_as(const char *kernel)
{
    char text[2048];
    int n = snprintf(text, sizeof text,
        "{\"schemaVersion\": 1, \"deviceProperties\": [{\"name\": \"G\"}], \"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::lstm\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 20,"
        " \"args\": {\"External id\": 5, \"Input Dims\": [[8, 4, 16]], \"Input type\": [\"float\"]}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": 120, \"dur\": 5,"
        " \"args\": {\"External id\": 5, \"correlation\": 50}}\n"
        "]}", kernel);
    assert_true(n > 0 && (size_t)n < sizeof text);
    struct profile p;
    assert_int_equal(read_text(text, (size_t)n, TRACE_KINETO, stderr, &p), 0);
    const struct op *op = find(&p, "aten::lstm");
    assert_non_null(op);
    enum precision got = op->dtype;
    profile_release(&p);
    return got;
}

static void test_tf32_kernels(void **state)
{
    (void)state;
    assert_int_equal(fp32_op_ran_as("cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4"), PREC_TF32);
    assert_int_equal(fp32_op_ran_as("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32"), PREC_TF32);
    assert_int_equal(fp32_op_ran_as("cutlass_80_tensorop_s1684gemm_128x128_16x4_nt_align4"), PREC_TF32);
    assert_int_equal(fp32_op_ran_as("ampere_sgemm_128x64_nn"), PREC_FP32);
    assert_int_equal(fp32_op_ran_as("cutlass_80_tensorop_s16816gemm_f16_128x128_32x3_nn_align8"), PREC_FP32);
}

static int read_err(const char *text, size_t len, enum trace_format f, char **msg)
{
    struct profile p;
    size_t mlen = 0;
    FILE *fp = open_memstream(msg, &mlen);
    int rc = read_text(text, len, f, fp, &p);
    fclose(fp);
    profile_release(&p);
    return rc;
}

static void test_bad_input(void **state)
{
    (void)state;
    char *msg = NULL;
    /* truncated in the middle of an event */
    assert_int_equal(read_err(old_trace, 700, TRACE_AUTO, &msg), FOM_EDATA);
    assert_non_null(strstr(msg, "byte 700"));
    assert_non_null(strstr(msg, ":5: error:"));  /* byte 700 is on line 5 */
    free(msg);
    assert_int_equal(read_err("", 0, TRACE_KINETO, &msg), FOM_EDATA);
    assert_non_null(strstr(msg, "empty file"));
    free(msg);
    assert_int_equal(read_err("{\"traceEvents\": [}", 18, TRACE_AUTO, &msg), FOM_EDATA);
    assert_non_null(strstr(msg, "invalid JSON at byte 18"));
    free(msg);
    assert_int_equal(read_err("{\"schemaVersion\": 1}", 20, TRACE_AUTO, &msg), FOM_EDATA);
    assert_non_null(strstr(msg, "without a traceEvents array"));
    free(msg);
    assert_int_equal(read_err(old_trace, sizeof old_trace - 1, TRACE_TFPROF, &msg), FOM_EDATA);
    assert_non_null(strstr(msg, "found a PyTorch profiler (Kineto) JSON trace, expected TensorFlow tfprof text"));
    free(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_linkage),
        cmocka_unit_test(test_new_linkage),
        cmocka_unit_test(test_tf32_kernels),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
