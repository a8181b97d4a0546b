/* The estimation chain on hand-built profiles, machines and tables.  Every
 * expected time below is worked out by hand in the comment beside it. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/xalloc.h"
#include "model/estimate.h"
#include "model/ops.h"

/* A GPU with fp32 10 TFLOP/s (vector), bf16 100 TFLOP/s (matrix),
 * 1 TB/s, 5 us per launch, 20 us host dispatch per op. */
static void gpu(struct machine *m, const char *dev)
{
    memset(m, 0, sizeof *m);
    m->id = "testgpu";
    m->name = "Test GPU";
    m->device_name = (char *)dev;
    m->kind = MACHINE_GPU;
    m->peak_flops[PREC_FP32][EXEC_VECTOR] = 10e12;
    /* tf32 tensor cores: fp32 work may run on them (the roofline limit
     * takes the best rate of the precision family), so the table rows
     * below, faster than the fp32 vector peak, are within physics */
    m->peak_flops[PREC_TF32][EXEC_MATRIX] = 100e12;
    m->peak_flops[PREC_BF16][EXEC_MATRIX] = 100e12;
    static struct mem_level hbm = { "HBM", 80e9, 1e12 };
    m->mem = &hbm;
    m->n_mem = 1;
    m->launch_latency_s = 5e-6;
    m->dispatch_s = 20e-6;
}

/* The test GPU and an empty table of its own, to be filled by the test. */
static struct kernel_table *gpu_with_table(struct machine *m, struct kernel_set *ks)
{
    gpu(m, "Test GPU");
    kernel_set_init(ks);
    return kernel_set_get(ks, "Test GPU");
}

static struct op *add(struct profile *p, const char *name, enum op_kind k, double count)
{
    struct op *o = profile_add_op(p);
    o->name = xstrdup(name);
    o->kind = k;
    o->count = count;
    o->dtype = PREC_FP32;
    o->phase = PHASE_FORWARD;
    return o;
}

/* A CPU trace's op of a pass: 10 us of CPU time over its 4 KiB */
static struct op *add_cpu(struct profile *p, const char *name, enum op_kind k, double count,
                          enum op_phase phase)
{
    struct op *o = add(p, name, k, count);
    o->phase = phase;
    o->time_s = 10e-6;
    o->bytes = 4096;
    return o;
}

static void gemm_row(struct kernel_table *t, enum precision p, int64_t m, int64_t n, int64_t k,
                     double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_GEMM;
    r->prec = p;
    r->m = m;
    r->n = n;
    r->k = k;
    r->a_t = r->b_t = 'N';
    r->time_s[0] = time_s;
    r->time_lo_s = time_s * 0.9;
    r->time_hi_s = time_s * 1.2;
    r->reps = 20;
}

static struct diag quiet(FILE **fp)
{
    struct diag d;
    *fp = tmpfile();
    diag_init(&d, *fp);
    return d;
}

/* A GPU and an empty GPU trace of one step. */
static void gpu_step(struct machine *m, struct profile *p)
{
    gpu(m, "Test GPU");
    profile_init(p);
    p->has_device = 1;
    p->steps = 1;
}

/* Estimate p on m at precision prec (PREC_UNKNOWN: as profiled), its
 * messages to a temporary file *fp for the caller to close. */
static int estimate_quiet(struct profile *p, const struct machine *m, struct kernel_set *ks,
                          enum precision prec, struct estimate *e, FILE **fp)
{
    estimate_init(e);
    struct diag d = quiet(fp);
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = prec;
    return estimate_profile(p, m, ks, &eo, e, &d);
}

/* The estimate of the op named name (the first), or NULL. */
static const struct op_estimate *est_named(const struct estimate *e, const char *name)
{
    for (size_t i = 0; i < e->n_ops; i++)
        if (e->ops[i].name && strcmp(e->ops[i].name, name) == 0)
            return &e->ops[i];
    return NULL;
}

static int warned(const struct estimate *e, const char *needle)
{
    for (size_t i = 0; i < e->n_warnings; i++)
        if (strstr(e->warnings[i], needle))
            return 1;
    return 0;
}

static void test_exact_hit(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.dispatch_s = 10e-6;       /* the host well under the device (below) */
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    gemm_row(&ks.tables[0], PREC_FP32, 1024, 1024, 1024, 100e-6);
    gemm_row(&ks.tables[0], PREC_FP32, 2048, 2048, 2048, 700e-6);

    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::mm", OP_GEMM, 2);
    o->m = o->n = o->k = 1024;
    o->a_t = o->b_t = 'N';
    o->flops = 2 * 2.0 * 1024 * 1024 * 1024;
    o->time_s = 0.5;    /* CPU-only source: a host time */

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    assert_int_equal(e.ops[0].method, EST_TABLE_EXACT);
    /* two calls of the 100 us row */
    assert_close(e.ops[0].device_s, 200e-6, 1e-12);
    assert_close(e.ops[0].time_lo_s, 180e-6, 1e-12);
    assert_close(e.ops[0].time_hi_s, 240e-6, 1e-12);
    /* host: 2 calls x (0.49 + 2.02 x 2.08) x 10 us dispatch (a matrix
     * product's forward, 2.02 times the mean op of one kernel, 2.08 bare
     * adds, and the host's 0.49 between calls; est_host.c, est_host_ops.c)
     * x the pass's repetition (2 calls a record: (2 / 3.87)^-0.129) =
     * 102 us < 200 us device */
    assert_close(e.host_repeat_scale, pow(2 / 3.87, -0.129), 1e-12);
    assert_close(e.host_time_s, 2 * (0.49 + 2.02 * 2.08) * 10e-6 * pow(2 / 3.87, -0.129), 1e-12);
    /* no call order in the profile: max(200, 102) us + 5 us sync */
    assert_close(e.pass_time_s, 205e-6, 1e-9);
    assert_int_equal(e.bound, BOUND_COMPUTE);
    assert_close(e.method_time_s[EST_TABLE_EXACT], 200e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* Bound follows the roofline terms, not how far the time is above them:
 * a 1024^3 GEMM measured at 1 ms runs at a fifth of its 214.7 us compute
 * roofline (2 x 1024^3 FLOP at 10 TFLOP/s) and is still compute-bound;
 * a 16^3 GEMM (8192 FLOP: 0.8 ns; 3 x 16 x 16 x 4 B = 3 KiB: 3 ns at
 * 1 TB/s) is under its 5 us launch and is latency-bound. */
static void test_bound_rule(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.dispatch_s = 1e-6;    /* below both kernels: neither op is host-bound */
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    gemm_row(&ks.tables[0], PREC_FP32, 1024, 1024, 1024, 1e-3);
    gemm_row(&ks.tables[0], PREC_FP32, 16, 16, 16, 6e-6);

    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::mm", OP_GEMM, 1);
    o->m = o->n = o->k = 1024;
    o->a_t = o->b_t = 'N';
    o->flops = 2.0 * 1024 * 1024 * 1024;
    o->bytes = 3.0 * 1024 * 1024 * 4;
    o->time_s = 0.5;
    o = add(&p, "aten::mm", OP_GEMM, 1);
    o->m = o->n = o->k = 16;
    o->a_t = o->b_t = 'N';
    o->flops = 2.0 * 16 * 16 * 16;
    o->bytes = 3.0 * 16 * 16 * 4;
    o->time_s = 0.001;

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    for (size_t i = 0; i < e.n_ops; i++) {
        assert_int_equal(e.ops[i].method, EST_TABLE_EXACT);
        if (e.ops[i].flops > 1e9)
            assert_int_equal(e.ops[i].bound, BOUND_COMPUTE);
        else
            assert_int_equal(e.ops[i].bound, BOUND_LATENCY);
    }
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

static void test_roofline_bounds(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.dispatch_s = 1e-6;    /* below the launch latency: not host-bound */
    struct profile p;
    profile_init(&p);
    struct op *g = add(&p, "aten::mm", OP_GEMM, 1);
    g->flops = 1e10;    /* 1e10 / 10e12 = 1 ms compute */
    g->bytes = 1e6;     /* 1e6 / 1e12 = 1 us memory */
    struct op *a = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    a->flops = 1e6;     /* 0.1 us compute */
    a->bytes = 2e9;     /* 2 ms memory */
    struct op *v = add(&p, "aten::relu", OP_ELEMENTWISE, 4);
    v->bytes = 4e3;     /* 4 ns memory, 4 launches = 20 us latency */

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_int_equal(e.ops[0].method, EST_ROOFLINE);
    assert_close(e.ops[0].device_s, 1e-3 + 5e-6, 1e-12);
    assert_int_equal(e.ops[0].bound, BOUND_COMPUTE);
    assert_close(e.ops[1].device_s, 2e-3 + 5e-6, 1e-12);
    assert_int_equal(e.ops[1].bound, BOUND_MEMORY);
    assert_close(e.ops[2].device_s, 4e-9 + 20e-6, 1e-12);
    assert_int_equal(e.ops[2].bound, BOUND_LATENCY);
    /* device 3.03 ms > host: each call 0.49 + its op's ratio x 2.08 bare
     * adds of 1 us (est_host_ops.c: mm 2.02, add 0.87, relu 0.93), at the
     * pass's 2 calls a record */
    assert_close(e.device_time_s, 3.030004e-3, 1e-9);
    assert_close(e.host_time_s, ((0.49 + 2.02 * 2.08) + (0.49 + 0.87 * 2.08) + 4 * (0.49 + 0.93 * 2.08)) * 1e-6
                                    * pow(2 / 3.87, -0.129), 1e-12);
    /* max(3.030004 ms, 6 us) + 5 us sync */
    assert_close(e.pass_time_s, 3.035004e-3, 1e-9);
    assert_int_equal(e.bound, BOUND_MEMORY);
    /* with 20 us dispatch the 4 relu calls (80 us) outrun their 20 us of
     * launches: that op is host-bound, the pass is not */
    m.dispatch_s = 20e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_int_equal(e.ops[2].bound, BOUND_HOST);
    assert_int_equal(e.bound, BOUND_MEMORY);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

static void test_host_bound_same_device(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("test gpu");    /* names compare without case */
    for (int i = 0; i < 10; i++) {
        struct op *o = add(&p, "aten::addmm", OP_GEMM, 1);
        o->device_time_s = 10e-6;
        o->host_time_s = 100e-6;
        o->time_s = 10e-6;
        o->flops = 1e6;
    }
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_int_equal(e.ops[3].method, EST_MEASURED);
    assert_int_equal(e.ops[3].bound, BOUND_HOST);
    /* device 10 x 10 us = 100 us; host 10 x 100 us = 1 ms;
     * max(0.1, 1) ms + 5 us sync = 1.005 ms */
    assert_close(e.device_time_s, 100e-6, 1e-12);
    assert_close(e.host_time_s, 1e-3, 1e-12);
    assert_close(e.pass_time_s, 1.005e-3, 1e-9);
    assert_int_equal(e.bound, BOUND_HOST);
    /* the profile's own host busy time wins over the sum of its ops */
    p.host_time_s = 2e-3;
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.pass_time_s, 2.005e-3, 1e-9);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

static void test_precision_fallback_warns(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.peak_flops[PREC_BF16][EXEC_MATRIX] = 0;   /* no bf16 in the file */
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    gemm_row(&ks.tables[0], PREC_FP32, 1024, 1024, 1024, 100e-6);

    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::mm", OP_GEMM, 1);
    o->m = o->n = o->k = 1024;
    o->flops = 2.0 * 1024 * 1024 * 1024;
    o->bytes = 3.0 * 1024 * 1024 * 4;
    struct op *a = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    a->bytes = 3e9;

    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = PREC_BF16;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    assert_true(warned(&e, "no bf16 gemm rows"));
    assert_true(warned(&e, "no bf16 units: its bf16 matrix ops are estimated as emulated in fp32"));
    assert_true(e.n_warnings >= 2);  /* kept on the result: the caller says them once */
    /* roofline at the fp32 peak: 2^31 / 10e12 s; bf16 bytes are half */
    assert_int_equal(e.ops[0].method, EST_ROOFLINE);
    assert_close(e.ops[0].device_s, 2.0 * 1024 * 1024 * 1024 / 10e12 + 5e-6, 1e-12);
    assert_close(e.ops[0].bytes, 1.5 * 1024 * 1024 * 4, 1e-12);
    /* elementwise bytes halve: 1.5e9 / 1e12 = 1.5 ms */
    assert_close(e.ops[1].device_s, 1.5e-3 + 5e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* --precision bf16 leaves complex ops and FFTs in fp32 (autocast casts
 * floating-point tensors only; PyTorch's FFTs have no bf16), casts none of
 * their operands, and a complex GEMM is timed from the real rows of its
 * [Re -Im; Im Re] form: (2m x 2k) by (2k x n). */
static void test_complex_ops(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    gemm_row(&ks.tables[0], PREC_FP32, 2 * 64 * 8, 64, 2 * 32, 40e-6);
    gemm_row(&ks.tables[0], PREC_FP32, 64 * 8, 64, 32, 10e-6);
    gemm_row(&ks.tables[0], PREC_BF16, 64 * 8, 64, 32, 7e-6);
    gemm_row(&ks.tables[0], PREC_BF16, 512, 512, 512, 30e-6);

    struct profile p;
    profile_init(&p);
    struct op *c = add(&p, "aten::bmm", OP_GEMM, 1);
    c->m = 64; c->n = 64; c->k = 32; c->batch = 8;
    c->a_t = c->b_t = 'N';
    c->flops = 8.0 * 64 * 64 * 32 * 8;
    c->bytes = 8.0 * (64 * 32 + 32 * 64 + 64 * 64) * 8;
    op_add_flag(c, "complex");
    struct op *r = add(&p, "aten::bmm", OP_GEMM, 1);    /* the same product of reals */
    r->m = 64; r->n = 64; r->k = 32; r->batch = 8;
    r->a_t = r->b_t = 'N';
    r->flops = 2.0 * 64 * 64 * 32 * 8;
    r->bytes = 4.0 * (64 * 32 + 32 * 64 + 64 * 64) * 8;
    struct op *f = add(&p, "aten::_fft_r2c", OP_ELEMENTWISE, 1);
    f->bytes = 1e6;
    struct op *w = add(&p, "aten::mm", OP_GEMM, 1);     /* a weight autocast casts */
    w->m = w->n = w->k = 512;
    w->a_t = w->b_t = 'N';
    w->flops = 2.0 * 512 * 512 * 512;
    w->bytes = 3.0 * 512 * 512 * 4;
    struct op *wc = add(&p, "aten::mm", OP_GEMM, 1);    /* a complex one it does not */
    wc->m = wc->n = wc->k = 512;
    wc->a_t = wc->b_t = 'N';
    wc->flops = 4 * 2.0 * 512 * 512 * 512;
    wc->bytes = 3.0 * 512 * 512 * 8;
    op_add_flag(wc, "complex");

    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = PREC_BF16;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    assert_int_equal(e.ops[0].prec, PREC_FP32);
    assert_int_equal(e.ops[0].method, EST_TABLE_EXACT);
    assert_close(e.ops[0].device_s, 40e-6, 1e-12);
    assert_close(e.ops[0].bytes, 8.0 * (64 * 32 + 32 * 64 + 64 * 64) * 8, 1e-12);
    assert_int_equal(e.ops[1].prec, PREC_BF16);
    assert_close(e.ops[1].device_s, 7e-6, 1e-12);
    assert_int_equal(e.ops[2].prec, PREC_FP32);
    assert_close(e.ops[2].bytes, 1e6, 1e-12);
    assert_int_equal(e.ops[3].prec, PREC_BF16);
    assert_int_equal(e.ops[4].prec, PREC_FP32);
    /* one weight cast each way, the complex weight's none */
    assert_true(warned(&e, "2 casts added per pass"));
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

static void test_batch_rescale(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.launch_latency_s = 0;
    struct profile p;
    profile_init(&p);
    p.batch = 100;
    struct op *g = add(&p, "aten::addmm", OP_GEMM, 1);   /* m = batch */
    g->m = 100; g->n = 1000; g->k = 500;
    g->flops = 2.0 * 100 * 1000 * 500;
    struct op *w = add(&p, "aten::mm", OP_GEMM, 1);      /* weight grad: k = batch */
    w->m = 500; w->n = 1000; w->k = 100;
    w->flops = 2.0 * 100 * 1000 * 500;
    struct op *x = add(&p, "aten::mm", OP_GEMM, 1);      /* no batch dim */
    x->m = 64; x->n = 64; x->k = 64;
    x->flops = 2.0 * 64 * 64 * 64;
    struct op *t = add(&p, "aten::mm", OP_GEMM, 1);      /* rows of a flattened [100, 7, 32] */
    t->m = 700; t->n = 32; t->k = 32;
    t->flops = 2.0 * 700 * 32 * 32;
    struct op *f = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    f->shapes = xstrdup("[100, 7, 32], [32]");
    f->bytes = 1e6;
    struct op *s = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    s->shapes = xstrdup("[500, 1000], [500, 1000]");   /* weights */
    s->bytes = 1e6;
    struct op *o = add(&p, "aten::_foreach_add_", OP_OPTIMIZER, 1);
    o->shapes = xstrdup("[100, 1000]");
    o->bytes = 1e6;
    struct op *c = add(&p, "aten::convolution", OP_CONV, 1);
    *op_conv_mut(c) = (struct conv_shape){ .n = 100, .c = 3, .h = 32, .w = 32, .k = 8, .r = 3, .s = 3,
                                   .stride_h = 1, .stride_w = 1, .p = 30, .q = 30, .groups = 1 };
    c->flops = 1e9;
    /* a graph's scatter-add over the batch's rows names 1,600 edges (16
     * a sample): the gradient of the gather over them, which carries only
     * the edges, grows with the batch too; the index of an op over rows
     * that are not the batch's names nothing */
    struct op *ia = add(&p, "aten::index_add_", OP_ELEMENTWISE, 1);
    ia->shapes = xstrdup("[100, 8], [], [1600], [1600, 8], []");
    ia->bytes = 1e6;
    struct op *ib = add(&p, "aten::index_select_backward", OP_ELEMENTWISE, 1);
    ib->shapes = xstrdup("[1600, 8], [], [], [1600]");
    ib->bytes = 1e6;
    struct op *iw = add(&p, "aten::index_select", OP_ELEMENTWISE, 1);
    iw->shapes = xstrdup("[3000, 8], [], [900]");
    iw->bytes = 1e6;
    struct op *iv = add(&p, "aten::index_select_backward", OP_ELEMENTWISE, 1);
    iv->shapes = xstrdup("[900, 8], [], [], [900]");
    iv->bytes = 1e6;
    /* a mixture-of-experts layer gathers the tokens routed to an expert
     * from the batch's flattened rows ([100, 7, 32] as 700 x 32): 183 of
     * them, a number the data decide, and the expert's GEMM runs over them */
    struct op *ir = add(&p, "aten::index_select", OP_ELEMENTWISE, 1);
    ir->shapes = xstrdup("[700, 32], [], [183]");
    ir->bytes = 1e6;
    struct op *ex = add(&p, "aten::addmm", OP_GEMM, 1);
    ex->m = 183; ex->n = 64; ex->k = 32;
    ex->flops = 2.0 * 183 * 64 * 32;
    /* an optimizer step in its for-loop form (a CPU trace): a parameter
     * that leads with the flattened rows' 700 by chance keeps its size,
     * and a parameter that leads with the batch names no rows: the
     * [300, 5] activation stays */
    struct op *ow = add(&p, "aten::addcdiv_", OP_ELEMENTWISE, 1);
    ow->phase = PHASE_OPTIMIZER;
    ow->shapes = xstrdup("[700, 32], [700, 32], [700, 32], []");
    ow->bytes = 1e6;
    struct op *op3 = add(&p, "aten::mul_", OP_ELEMENTWISE, 1);
    op3->phase = PHASE_OPTIMIZER;
    op3->shapes = xstrdup("[100, 3, 11], []");
    op3->bytes = 1e6;
    struct op *a3 = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    a3->shapes = xstrdup("[300, 5], [5]");
    a3->bytes = 1e6;
    /* the 1,600 edges' rows flattened further: [1600, 12, 8] (an atom's
     * 12 neighbours' features) is 19,200 rows of the batch's, which the
     * linear layer over them carries alone */
    struct op *nb = add(&p, "aten::mul", OP_ELEMENTWISE, 1);
    nb->shapes = xstrdup("[1600, 12, 8], [1600, 12, 8]");
    nb->bytes = 1e6;
    struct op *ng = add(&p, "aten::addmm", OP_GEMM, 1);
    ng->m = 19200; ng->n = 16; ng->k = 8;
    ng->flops = 2.0 * 19200 * 16 * 8;

    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.batch = 250;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, &eo, &e, &d), 0);
    assert_close(e.batch_scale, 2.5, 1e-15);
    assert_close(e.ops[0].flops, 2.0 * 250 * 1000 * 500, 1e-12);
    assert_close(e.ops[1].flops, 2.0 * 250 * 1000 * 500, 1e-12);
    assert_close(e.ops[2].flops, 2.0 * 64 * 64 * 64, 1e-12);
    assert_close(e.ops[3].flops, 2.0 * 1750 * 32 * 32, 1e-12);
    assert_close(e.ops[4].bytes, 2.5e6, 1e-12);
    assert_close(e.ops[5].bytes, 1e6, 1e-12);
    assert_close(e.ops[6].bytes, 1e6, 1e-12);
    assert_close(e.ops[7].flops, 2.5e9, 1e-12);
    assert_close(e.ops[8].bytes, 2.5e6, 1e-12);
    assert_close(e.ops[9].bytes, 2.5e6, 1e-12);
    assert_close(e.ops[10].bytes, 1e6, 1e-12);
    assert_close(e.ops[11].bytes, 1e6, 1e-12);
    assert_close(e.ops[12].bytes, 2.5e6, 1e-12);
    assert_close(e.ops[13].flops, 2.0 * 458 * 64 * 32, 1e-12);   /* 183 x 2.5, rounded */
    assert_close(e.ops[14].bytes, 1e6, 1e-12);
    assert_close(e.ops[15].bytes, 1e6, 1e-12);
    assert_close(e.ops[16].bytes, 1e6, 1e-12);
    assert_close(e.ops[17].bytes, 2.5e6, 1e-12);
    assert_close(e.ops[18].flops, 2.0 * 48000 * 16 * 8, 1e-12);
    /* roofline time follows: 2*250*1000*500 / 10e12 = 25 us */
    assert_close(e.ops[0].device_s, 25e-6, 1e-12);
    /* the forward ops that kept their sizes (the 64-cube product, the
     * weights' add, the index ops over other rows) are counted with their
     * share of the device time; the optimizer's is not */
    double kept = e.ops[2].device_s + e.ops[5].device_s + e.ops[10].device_s + e.ops[11].device_s
                  + e.ops[16].device_s;
    double all = 0;
    for (size_t i = 0; i < e.n_ops; i++)
        all += e.ops[i].device_s;
    char want[160];
    snprintf(want, sizeof want, "5 op(s) of the forward and backward passes, %.0f%% of the estimated "
             "device time, show no batch dimension", 100 * kept / all);
    assert_true(warned(&e, want));
    assert_true(warned(&e, "keep their profiled sizes at batch 250"));
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* Interpolating upsamplings of a CPU trace timed on a GPU by their bytes
 * are counted with their share of the device time and said; a nearest
 * upsampling (one thread per element, near the copy rate) is not, nor
 * are the same ops of a GPU trace, whose kernels were measured. */
static void test_resample_by_bytes(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    const char *names[] = { "aten::upsample_bilinear2d", "aten::upsample_bilinear2d_backward",
                            "aten::upsample_trilinear3d", "aten::upsample_nearest2d", "aten::add" };
    for (int i = 0; i < 5; i++) {
        struct op *o = add(&p, names[i], OP_ELEMENTWISE, 2);
        o->phase = i == 1 ? PHASE_BACKWARD : PHASE_FORWARD;
        o->bytes = 4e7 * (i + 1);
        o->time_s = 1e-3;
    }
    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_UNKNOWN, &e, &fp), 0);
    double counted = e.ops[0].device_s + e.ops[1].device_s + e.ops[2].device_s, all = 0;
    for (size_t i = 0; i < e.n_ops; i++)
        all += e.ops[i].device_s;
    assert_true(counted > 0 && counted < all);
    char want[160];
    snprintf(want, sizeof want, "3 bilinear, bicubic or trilinear upsampling op(s), %.1f%% of the "
             "estimated device time, are timed by their bytes", 100 * counted / all);
    assert_true(warned(&e, want));
    estimate_release(&e);

    fclose(fp);
    p.has_device = 1;
    p.device_name = "Test GPU";
    for (size_t i = 0; i < p.n_ops; i++)
        p.ops[i].device_time_s = 1e-3;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_UNKNOWN, &e, &fp), 0);
    assert_false(warned(&e, "upsampling"));
    estimate_release(&e);
    p.device_name = NULL;
    profile_release(&p);
    fclose(fp);
}

static void elt_row(struct kernel_table *t, const char *op, enum precision p, double bytes,
                    double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_ELTWISE;
    r->prec = p;
    r->op = xstrdup(op);
    r->bytes = bytes;
    r->time_s[0] = time_s;
    r->reps = 20;
}

static void rs_row(struct kernel_table *t, enum kernel_pass pass, int64_t planes, double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_RESAMPLE;
    r->prec = PREC_FP32;
    r->pass = pass;
    r->op = xstrdup("upsample_bilinear2d");
    r->dim[RS_N] = 1;
    r->dim[RS_C] = planes;
    r->dim[RS_OUT] = 4096;
    r->dim[RS_IN] = 1024;
    r->time_s[0] = time_s;
    r->reps = 20;
}

/* Upsampling from a CPU trace, where the target's tables have resample
 * rows: each pass from its own rows at the target's batch (the planes
 * move with it), not from its bytes, and no warning; a GPU trace moved
 * to a machine whose tables lack such rows takes the ratio of the bytes'
 * rows on both, not of resample rows over bytes. */
static void test_resample_rows(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    for (int i = 0; i < 2; i++) {
        elt_row(t, "copy", PREC_FP32, 1e6 * (i ? 100 : 1), 1e-6 * (i ? 100 : 1));    /* 1 TB/s */
        rs_row(t, KPASS_FWD, 1024 << (2 * i), 0.4e-6 * (1024 << (2 * i)));
        rs_row(t, KPASS_BWD, 1024 << (2 * i), 3e-6 * (1024 << (2 * i)));
    }
    struct profile p;
    profile_init(&p);
    p.batch = 2;
    for (int i = 0; i < 2; i++) {
        struct op *o = add(&p, i ? "aten::upsample_bilinear2d_backward" : "aten::upsample_bilinear2d",
                           OP_ELEMENTWISE, 3);
        o->phase = i ? PHASE_BACKWARD : PHASE_FORWARD;
        o->time_s = 30e-3;
        o->bytes = 3 * 2 * 512 * 5120.0 * 4;
        struct op_table_sizes *ts = op_sizes_mut(o);
        snprintf(ts->kop, sizeof ts->kop, "upsample_bilinear2d");
        ts->kdim[0] = 2 * 512 * 4096;
        ts->kdim[OP_RS_N] = 2;
        ts->kdim[OP_RS_C] = 512;
        ts->kdim[OP_RS_OUT] = 4096;
        ts->kdim[OP_RS_IN] = 1024;
    }
    struct estimate e;
    estimate_init(&e);
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.batch = 8;                               /* 4,096 planes: the second rows */
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    for (size_t i = 0; i < e.n_ops; i++) {
        int bwd = e.ops[i].phase == PHASE_BACKWARD;
        assert_int_equal(e.ops[i].method, EST_TABLE_EXACT);
        assert_close(e.ops[i].device_s, 3 * 4096 * (bwd ? 3e-6 : 0.4e-6), 1e-6);
    }
    assert_false(warned(&e, "upsampling"));
    /* on channels-last tensors PyTorch runs a kernel paced by the bytes:
     * the elementwise rows' 1 TB/s over the bytes at batch 8, said by no
     * warning about upsampling by bytes */
    for (size_t i = 0; i < p.n_ops; i++)
        op_add_flag(&p.ops[i], "channels-last");
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    for (size_t i = 0; i < e.n_ops; i++)
        assert_close(e.ops[i].device_s, 4 * p.ops[i].bytes / 1e12, 1e-3);
    assert_false(warned(&e, "upsampling"));
    for (size_t i = 0; i < p.n_ops; i++) {
        free(p.ops[i].flags);
        p.ops[i].flags = NULL;
    }
    /* the same ops traced on this GPU, moved to another whose tables time
     * elementwise ops at half the rate and have no resample rows */
    p.has_device = 1;
    p.device_name = "Test GPU";
    for (size_t i = 0; i < p.n_ops; i++)
        p.ops[i].device_time_s = 1e-3;
    struct machine m2;
    gpu(&m2, "Other GPU");
    m2.name = "Other GPU";
    struct kernel_table *t2 = kernel_set_get(&ks, "Other GPU");
    elt_row(t2, "copy", PREC_FP32, 1e6, 2e-6);
    elt_row(t2, "copy", PREC_FP32, 1e8, 200e-6);
    estimate_opts_init(&eo);
    assert_int_equal(estimate_profile(&p, &m2, &ks, &eo, &e, &d), 0);
    for (size_t i = 0; i < e.n_ops; i++) {
        assert_int_equal(e.ops[i].method, EST_SCALED_TABLE);
        assert_close(e.ops[i].device_s, 2e-3, 1e-6);
    }
    estimate_release(&e);
    p.device_name = NULL;
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* A CPU trace's biased convolution on a GPU: the forward gains cuDNN's
 * separate bias add (read and write the output, read the bias: one
 * kernel and one dispatch per call), the backward the reduction of the
 * output's gradient (one kernel, no dispatch); a depthwise forward on
 * contiguous tensors (PyTorch's own kernel adds the bias) and a GPU
 * trace's convolutions (whose measured kernels hold it) gain nothing. */
static void test_conv_bias(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    const struct conv_shape cs = { .n = 10, .c = 16, .h = 32, .w = 32, .k = 16, .r = 3, .s = 3, .pad_h = 1,
                                   .pad_w = 1, .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1,
                                   .p = 32, .q = 32, .groups = 1, .dims = 2 };
    const char *names[] = { "aten::mkldnn_convolution", "aten::mkldnn_convolution",
                            "aten::convolution_backward", "aten::convolution_backward",
                            "aten::mkldnn_convolution", "aten::mkldnn_convolution" };
    for (int i = 0; i < 6; i++) {
        struct op *o = add(&p, names[i], OP_CONV, 3);
        *op_conv_mut(o) = cs;
        if (i >= 4)
            op_conv_mut(o)->groups = 16;    /* depthwise */
        o->phase = i == 2 || i == 3 ? PHASE_BACKWARD : PHASE_FORWARD;
        o->flops = 3e9;
        o->bytes = 3e7;
        o->time_s = 1e-3;
        if (i % 2 == 0)
            op_add_flag(o, "bias");
    }
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    double out = 10.0 * 16 * 32 * 32, bw = 1e12, calls = 3;
    double add_s = calls * ((2 * out + 16) * 4 / bw + m.launch_latency_s);
    double red_s = calls * ((out * 4 + 16 * 4) / bw + m.launch_latency_s);
    assert_close(e.ops[0].device_s - e.ops[1].device_s, add_s, 1e-9);
    /* a 2-D convolution's dispatch in a training step is 3.56 times the
     * mean op of one kernel (2.08 bare adds) forward, 6.72 backward, and
     * the host's 0.49 between calls (est_host.c: conv_host_ratio), its
     * bias add's 2.57 (HOST_CLASS_KERNEL), at the pass's repetition */
    double fwd = (0.49 + 3.56 * 2.08) * e.host_repeat_scale, bwd = (0.49 + 6.72 * 2.08) * e.host_repeat_scale;
    assert_close(e.host_repeat_scale, pow(3 / 3.87, -0.129), 1e-12);
    assert_close(e.ops[0].host_s, (fwd + 2.57 * e.host_repeat_scale) * calls * m.dispatch_s, 1e-12);
    assert_close(e.ops[1].host_s, fwd * calls * m.dispatch_s, 1e-12);
    assert_close(e.ops[2].device_s - e.ops[3].device_s, red_s, 1e-9);
    assert_close(e.ops[2].host_s, bwd * calls * m.dispatch_s, 1e-12);
    assert_close(e.ops[4].device_s, e.ops[5].device_s, 1e-12);
    assert_close(e.ops[4].host_s, fwd * calls * m.dispatch_s, 1e-12);
    /* the class's weight in the estimate is its calls' mean: 4 forward
     * and 2 backward calls of 3 */
    assert_close(e.host_class_s[HOST_CLASS_CONV],
                 calls * (4 * fwd + 2 * bwd) * m.dispatch_s, 1e-12);
    /* the spread moves with the point estimate */
    assert_close(e.ops[0].time_hi_s - e.ops[1].time_hi_s, add_s, 1e-9);
    estimate_release(&e);

    /* channels-last: the depthwise forward runs cuDNN, bias add and all */
    op_add_flag(&p.ops[4], "channels-last");
    op_add_flag(&p.ops[5], "channels-last");
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_true(e.ops[4].device_s > e.ops[5].device_s);
    assert_close(e.ops[4].host_s, (fwd + 2.57 * e.host_repeat_scale) * calls * m.dispatch_s, 1e-12);
    estimate_release(&e);

    /* a 3-D convolution's backward costs the host more: 3.52 and 7.50
     * times the mean op of one kernel */
    for (int i = 0; i < 4; i++)
        op_conv_mut(&p.ops[i])->dims = 3;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[1].host_s, (0.49 + 3.52 * 2.08) * e.host_repeat_scale * calls * m.dispatch_s, 1e-12);
    assert_close(e.ops[3].host_s, (0.49 + 7.50 * 2.08) * e.host_repeat_scale * calls * m.dispatch_s, 1e-12);
    estimate_release(&e);
    for (int i = 0; i < 4; i++)
        op_conv_mut(&p.ops[i])->dims = 2;

    /* a GPU trace: the measured kernels hold the bias already */
    p.has_device = 1;
    p.device_name = "Test GPU";
    for (size_t i = 0; i < p.n_ops; i++) {
        p.ops[i].device_time_s = 1e-3;
        p.ops[i].host_time_s = 1e-4;
    }
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, e.ops[1].device_s, 1e-15);
    assert_close(e.ops[2].device_s, e.ops[3].device_s, 1e-15);
    assert_close(e.ops[0].host_s, e.ops[1].host_s, 1e-15);
    estimate_release(&e);
    p.device_name = NULL;
    profile_release(&p);
    fclose(fp);
}

static void test_scaled_table(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Target GPU");
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Target GPU");
    gemm_row(&ks.tables[0], PREC_FP32, 512, 512, 512, 20e-6);
    gemm_row(&ks.tables[0], PREC_BF16, 512, 512, 512, 5e-6);
    kernel_set_get(&ks, "Source GPU");
    gemm_row(&ks.tables[1], PREC_FP32, 512, 512, 512, 40e-6);

    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("Source GPU");
    struct op *o = add(&p, "aten::mm", OP_GEMM, 3);
    o->m = o->n = o->k = 512;
    o->a_t = o->b_t = 'N';
    o->device_time_s = 150e-6;  /* 3 calls measured 50 us each */
    o->host_time_s = 30e-6;
    o->flops = 3 * 2.0 * 512 * 512 * 512;

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    /* 150 us x (3 x 20 us) / (3 x 40 us) = 75 us */
    assert_int_equal(e.ops[0].method, EST_SCALED_TABLE);
    assert_close(e.ops[0].device_s, 75e-6, 1e-12);
    assert_close(e.ops[0].ratio, 0.5, 1e-12);
    assert_true(warned(&e, "scaled-table"));
    /* as bf16: 150 us x 5 / 40 = 18.75 us */
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = PREC_BF16;
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    assert_int_equal(e.ops[0].method, EST_SCALED_TABLE);
    assert_close(e.ops[0].device_s, 18.75e-6, 1e-12);
    /* autocast adds 2 casts (the weight, its gradient) per call: 6 casts;
     * a linear layer without bias costs the host 1.7 + 1.7 adds of 20 us
     * more per call (the op-host chains): host 30 + 3 x 68 = 234 us from
     * the profile and autocast beats the device (18.75 us + casts), no
     * call order: max + 5 us */
    assert_close(e.ops[1].count, 6, 1e-12);
    assert_close(e.ops[1].host_s, 204e-6, 1e-12);
    assert_close(e.host_time_s, 234e-6, 1e-12);
    assert_close(e.pass_time_s, 239e-6, 1e-9);
    assert_int_equal(e.bound, BOUND_HOST);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* GEMMs past the table's rows moved from fp32 to bf16 on their own GPU:
 * each side runs at the rate of a cube GEMM of its work or at the
 * bandwidth, whichever is slower.  A batched product of 100,000 [1 x 64]
 * by [64 x 64] matrices is one kernel: 1.69 GB in fp32 against 0.85 GB in
 * bf16 at 1 TB/s, far above the cube's time, so the measurement moves by
 * 0.5 (not by the ratio of 100,000 launches of a 16-wide cube).  A
 * 100,000 x 1024 x 128 product is aligned: its cube (2352 wide) runs at
 * the aligned rows' rates, 5 TFLOP/s fp32 and 50 bf16, so it moves by
 * 0.1, not by the rate of the slower rows of unaligned sizes near a
 * 2357-wide cube (5 TFLOP/s in bf16 too). */
static void test_gemm_past_rows(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    struct kernel_table *t = &ks.tables[0];
    const int64_t even[] = { 256, 512, 1024, 2048 }, odd[] = { 999, 1001, 1999, 2001 };
    for (int i = 0; i < 4; i++) {
        double cube = 2.0 * even[i] * even[i] * even[i];
        gemm_row(t, PREC_FP32, even[i], even[i], even[i], cube / 5e12);
        gemm_row(t, PREC_BF16, even[i], even[i], even[i], cube / 50e12);
        gemm_row(t, PREC_BF16, odd[i], odd[i], odd[i], 2.0 * odd[i] * odd[i] * odd[i] / 5e12);
    }

    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("Test GPU");
    struct op *b = add(&p, "aten::bmm", OP_GEMM, 1);
    b->m = 1, b->n = 64, b->k = 64, b->batch = 100000;
    b->a_t = b->b_t = 'N';
    b->flops = 2.0 * 100000 * 64 * 64;
    b->bytes = 4.0 * (100000.0 * 64 + 100000.0 * 64 * 64 + 100000.0 * 64);
    b->device_time_s = 2e-3;
    struct op *g = add(&p, "aten::mm", OP_GEMM, 1);
    g->m = 100000, g->n = 1024, g->k = 128;
    g->a_t = g->b_t = 'N';
    g->flops = 2.0 * 100000 * 1024 * 128;
    g->bytes = 4.0 * (100000.0 * 128 + 128.0 * 1024 + 100000.0 * 1024);
    g->device_time_s = 5e-3;

    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, &ks, PREC_BF16, &e, &fp), 0);
    const struct op_estimate *eb = est_named(&e, "aten::bmm"), *eg = est_named(&e, "aten::mm");
    assert_non_null(eb);
    assert_non_null(eg);
    assert_int_equal(eb->method, EST_SCALED_TABLE);
    assert_close(eb->ratio, 0.5, 1e-9);
    assert_int_equal(eg->method, EST_SCALED_TABLE);
    assert_close(eg->ratio, 0.1, 1e-3);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* Autocast on a GPU trace's convolution: the trace's cuDNN convolution
 * takes no bias, PyTorch adds it after ([n, k, h, w] += [1, k, 1, 1]);
 * autocast casts the weight and that bias (2 casts each way per call),
 * and the host pays a convolution's and a bias's extra time (2.0 + 3.4
 * and 1.1 + 1.9 adds of 20 us); an add of two activations casts nothing. */
/* A batched GEMM of small matrices runs at its batched rows' time where
 * they surround it (here bf16 three times fp32's, as cuBLAS's generic
 * batched kernels are), past their largest batch at that time per
 * product, and only among rows of its own layout: a transposed query
 * with no such rows takes the flattened GEMM (bound by its bytes, half in
 * bf16). */
static void batched_row(struct kernel_table *t, enum precision p, int64_t m, int64_t n, int64_t k,
                        int64_t batch, double time_s)
{
    gemm_row(t, p, m, n, k, time_s);
    t->rows[t->n_rows - 1].batch = batch;
}

static void add_bmm(struct profile *p, const char *name, int64_t mnk, int64_t batch, char a_t,
                    double dev_s)
{
    struct op *b = add(p, name, OP_GEMM, 1);
    b->m = b->n = b->k = mnk;
    b->batch = batch;
    b->a_t = a_t;
    b->b_t = 'N';
    b->flops = 2.0 * (double)batch * mnk * mnk * mnk;
    b->bytes = 4.0 * 3 * (double)batch * mnk * mnk;
    b->device_time_s = dev_s;
}

/* A CPU trace's recurrent layer on a GPU: cuDNN runs small hidden sizes
 * (and one-layer half-precision LSTMs of multiples of 128 at batches up to
 * 128) as persistent kernels, PyTorch's choice: the host pays the
 * machine's per-call figure of the pass and precision, not a loop per
 * time step; other layers pay the step loop, and a target of another
 * vendor (no cuDNN) pays the loop too. */
static struct op *add_rnn(struct profile *p, const char *name, const char *cell, enum op_phase ph,
                          int64_t input, int64_t hidden, int64_t seq, int64_t batch)
{
    struct op *o = add(p, name, OP_RNN, 1);
    o->phase = ph;
    o->kflag = 0;
    struct op_table_sizes *ts = op_sizes_mut(o);
    snprintf(ts->kop, sizeof ts->kop, "%s", cell);
    ts->kdim[RNN_INPUT] = input;
    ts->kdim[RNN_HIDDEN] = hidden;
    ts->kdim[RNN_LAYERS] = 1;
    ts->kdim[RNN_SEQ] = seq;
    ts->kdim[RNN_BATCH] = batch;
    o->flops = 2.0 * 4 * (double)hidden * (double)(input + hidden) * (double)(seq * batch);
    o->bytes = 4.0 * (double)(seq * batch) * (double)(input + hidden);
    o->host_time_s = 1e-3;
    o->time_s = 1e-3;
    return o;
}

/* An NVIDIA GPU of 132 multiprocessors with the H200 machine file's
 * recurrent host figures: per step, and per persistent call. */
static void rnn_host_figures(struct machine *m)
{
    m->vendor = "NVIDIA";
    m->compute_units = 132;
    m->peak_flops[PREC_FP16][EXEC_MATRIX] = 100e12;
    m->rnn_fwd_step_s = 26e-6;
    m->rnn_bwd_step_s = 34e-6;
    m->rnn_persist_fwd_s = 280e-6;
    m->rnn_persist_bwd_s = 1058e-6;
    m->rnn_persist_fwd_half_s = 623e-6;
    m->rnn_persist_bwd_half_s = 1268e-6;
}

static void test_rnn_persistent(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    rnn_host_figures(&m);
    for (int v = 0; v < 2; v++)
        for (int half = 0; half < 2; half++) {
            if (v)
                m.vendor = "AMD";
            struct profile p;
            profile_init(&p);
            add_rnn(&p, "small.f", "gru", PHASE_FORWARD, 100, 100, 163, 32);
            add_rnn(&p, "small.b", "gru", PHASE_BACKWARD, 100, 100, 163, 32);
            add_rnn(&p, "mid.b", "gru", PHASE_BACKWARD, 160, 160, 50, 32);
            add_rnn(&p, "wide.f", "lstm", PHASE_FORWARD, 256, 256, 50, 64);
            add_rnn(&p, "wide_gru.f", "gru", PHASE_FORWARD, 256, 256, 50, 64);
            /* a CPU trace's call per layer and direction: its stack decides */
            struct op *bi = add_rnn(&p, "bi.f", "lstm", PHASE_FORWARD, 256, 256, 50, 64);
            snprintf(op_sizes_mut(bi)->kmode, sizeof op_sizes_mut(bi)->kmode, "1x2");
            struct op *one = add_rnn(&p, "one.f", "lstm", PHASE_FORWARD, 256, 256, 50, 64);
            snprintf(op_sizes_mut(one)->kmode, sizeof op_sizes_mut(one)->kmode, "1x1");
            add_rnn(&p, "aten::mkldnn_rnn_layer", "lstm", PHASE_FORWARD, 256, 256, 50, 64);
            struct estimate e;
            FILE *fp;
            assert_int_equal(estimate_quiet(&p, &m, NULL, half ? PREC_BF16 : PREC_FP32, &e, &fp), 0);
            double disp = m.dispatch_s;
            const struct op_estimate *sf = est_named(&e, "small.f"), *sb = est_named(&e, "small.b");
            const struct op_estimate *mb = est_named(&e, "mid.b"), *wf = est_named(&e, "wide.f");
            const struct op_estimate *gf = est_named(&e, "wide_gru.f");
            assert_non_null(sf);
            assert_non_null(sb);
            assert_non_null(mb);
            assert_non_null(wf);
            assert_non_null(gf);
            if (!v) {
                assert_close(sf->host_s - disp, half ? 623e-6 : 280e-6, 1e-9);
                assert_close(sb->host_s - disp, half ? 1268e-6 : 1058e-6, 1e-9);
                /* hidden 160: persistent forward only; its backward loops */
                assert_close(mb->host_s - disp, 50 * 34e-6, 1e-9);
                /* a one-layer LSTM of 256 at batch 64: persistent in half
                 * precision only; a GRU of 256 never */
                assert_close(wf->host_s - disp, half ? 623e-6 : 50 * 26e-6, 1e-9);
                assert_close(gf->host_s - disp, 50 * 26e-6, 1e-9);
                assert_close(est_named(&e, "bi.f")->host_s - disp, 50 * 26e-6, 1e-9);
                assert_close(est_named(&e, "one.f")->host_s - disp, half ? 623e-6 : 50 * 26e-6, 1e-9);
                assert_close(est_named(&e, "aten::mkldnn_rnn_layer")->host_s - disp, 50 * 26e-6, 1e-9);
                assert_true(warned(&e, half ? "4 recurrent op(s) of the CPU trace run as cuDNN's persistent"
                                            : "2 recurrent op(s) of the CPU trace run as cuDNN's persistent"));
            } else {
                assert_close(sf->host_s - disp, 163 * 26e-6, 1e-9);
                assert_close(sb->host_s - disp, 163 * 34e-6, 1e-9);
                assert_false(warned(&e, "persistent"));
            }
            estimate_release(&e);
            profile_release(&p);
            fclose(fp);
        }
}

/* An LSTM with projections (RNN_PROJ) is timed from the row of the LSTM
 * of its cell size, moved by the per-step GEMMs that the projection
 * changes (est_lookup.c: lk_rnn_projection): forward the recurrent GEMM
 * B x 4H x P and the projection B x P x H for the row's B x 4H x H,
 * backward B x P x 4H and B x H x P for B x H x 4H.  A row of 10 ms over
 * 50 steps at B 64, H 1024, P 256: forward 10 ms + 50 x (8 + 6 - 20) us,
 * backward 10 ms + 50 x (9 + 7 - 30) us; never below the projected
 * GEMMs alone (a row of 0.5 ms: 50 x 14 us).  Without projections the
 * row's time.  Its host: never persistent, each step 1.42 (forward) and
 * 1.41 (backward) times the machine's figure (run4 of the H200's
 * rnn-host measurements), where the same layer without projections runs
 * persistent in bf16. */
static void test_rnn_projection(void **state)
{
    (void)state;
    for (int low = 0; low < 2; low++) {
        struct machine m;
        struct kernel_set ks;
        struct kernel_table *t = gpu_with_table(&m, &ks);
        rnn_host_figures(&m);
        double row_s = low ? 0.5e-3 : 10e-3;
        for (int bwd = 0; bwd < 2; bwd++) {
            struct kernel_row *r = kernel_table_add(t);
            r->kind = KERNEL_RNN;
            r->prec = PREC_FP32;
            r->pass = bwd ? KPASS_BWD : KPASS_FWD;
            r->op = xstrdup("lstm");
            const int64_t dim[5] = { 256, 1024, 1, 50, 64 };
            memcpy(r->dim, dim, sizeof dim);
            r->time_s[0] = row_s;
            r->reps = 20;
        }
        gemm_row(t, PREC_FP32, 64, 4096, 1024, 20e-6);
        gemm_row(t, PREC_FP32, 64, 4096, 256, 8e-6);
        gemm_row(t, PREC_FP32, 64, 256, 1024, 6e-6);
        gemm_row(t, PREC_FP32, 64, 1024, 4096, 30e-6);
        gemm_row(t, PREC_FP32, 64, 256, 4096, 9e-6);
        gemm_row(t, PREC_FP32, 64, 1024, 256, 7e-6);
        struct profile p;
        profile_init(&p);
        const char *names[4] = { "plain.f", "plain.b", "proj.f", "proj.b" };
        for (int i = 0; i < 4; i++) {
            struct op *o = add_rnn(&p, names[i], "lstm", i % 2 ? PHASE_BACKWARD : PHASE_FORWARD, 256,
                                   1024, 50, 64);
            op_sizes_mut(o)->kdim[RNN_PROJ] = i >= 2 ? 256 : 0;
        }
        struct estimate e;
        FILE *fp;
        assert_int_equal(estimate_quiet(&p, &m, &ks, PREC_FP32, &e, &fp), 0);
        assert_close(est_named(&e, "plain.f")->device_s, row_s, 1e-9);
        assert_close(est_named(&e, "plain.b")->device_s, row_s, 1e-9);
        if (low) {
            assert_close(est_named(&e, "proj.f")->device_s, 50 * 14e-6, 1e-9);
            assert_close(est_named(&e, "proj.b")->device_s, 50 * 16e-6, 1e-9);
        } else {
            assert_close(est_named(&e, "proj.f")->device_s, 10e-3 + 50 * (14e-6 - 20e-6), 1e-9);
            assert_close(est_named(&e, "proj.b")->device_s, 10e-3 + 50 * (16e-6 - 30e-6), 1e-9);
        }
        double disp = m.dispatch_s;
        assert_close(est_named(&e, "proj.f")->host_s - disp, 50 * 26e-6 * 1.42, 1e-9);
        assert_close(est_named(&e, "proj.b")->host_s - disp, 50 * 34e-6 * 1.41, 1e-9);
        estimate_release(&e);
        fclose(fp);
        /* bf16: the layer without projections persistent, with them not */
        assert_int_equal(estimate_quiet(&p, &m, &ks, PREC_BF16, &e, &fp), 0);
        assert_close(est_named(&e, "plain.f")->host_s - disp, 623e-6, 1e-9);
        assert_close(est_named(&e, "proj.f")->host_s - disp, 50 * 26e-6 * 1.42, 1e-9);
        estimate_release(&e);
        fclose(fp);
        profile_release(&p);
        kernel_set_release(&ks);
    }
}

static void test_batched_rows(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    struct kernel_table *t = &ks.tables[0];
    const int64_t even[] = { 256, 512, 1024, 2048 };
    for (int i = 0; i < 4; i++) {
        double cube = 2.0 * even[i] * even[i] * even[i];
        gemm_row(t, PREC_FP32, even[i], even[i], even[i], cube / 5e12);
        gemm_row(t, PREC_BF16, even[i], even[i], even[i], cube / 50e12);
    }
    const int64_t side[] = { 8, 16 }, batches[] = { 4096, 65536 };
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 2; c++)
                for (int j = 0; j < 2; j++) {
                    batched_row(t, PREC_FP32, side[a], side[b], side[c], batches[j], batches[j] * 4e-9);
                    batched_row(t, PREC_BF16, side[a], side[b], side[c], batches[j], batches[j] * 12e-9);
                }

    for (int cpu = 0; cpu < 2; cpu++) {
        struct profile p;
        profile_init(&p);
        if (!cpu) {
            p.has_device = 1;
            p.device_name = xstrdup("Test GPU");
        }
        add_bmm(&p, "inside", 12, 16384, 'N', 1e-3);
        add_bmm(&p, "past", 12, 262144, 'N', 1e-3);
        add_bmm(&p, "transposed", 12, 16384, 'T', 1e-3);
        struct estimate e;
        FILE *fp;
        assert_int_equal(estimate_quiet(&p, &m, &ks, cpu ? PREC_UNKNOWN : PREC_BF16, &e, &fp), 0);
        const struct op_estimate *in = est_named(&e, "inside"), *past = est_named(&e, "past");
        const struct op_estimate *tr = est_named(&e, "transposed");
        assert_non_null(in);
        assert_non_null(past);
        assert_non_null(tr);
        if (!cpu) {
            assert_int_equal(in->method, EST_SCALED_TABLE);
            assert_close(in->ratio, 3, 1e-6);
            assert_close(past->ratio, 3, 1e-6);
            assert_true(tr->ratio < 0.5 + 1e-9);
        } else {
            /* from a CPU trace: the fp32 rows' time, 4 ns a product
             * (less the launch gap a timed row holds: within 2%) */
            assert_close(in->device_s, 16384 * 4e-9, 0.02);
            assert_close(past->device_s, 262144 * 4e-9, 0.02);
        }
        estimate_release(&e);
        profile_release(&p);
        fclose(fp);
    }
    kernel_set_release(&ks);
}

static void test_autocast_conv_bias(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    struct op *c = add(&p, "aten::cudnn_convolution", OP_CONV, 2);
    *op_conv_mut(c) = (struct conv_shape){ .n = 8, .c = 16, .h = 32, .w = 32, .k = 32, .r = 3, .s = 3,
                                   .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1,
                                   .p = 32, .q = 32, .groups = 1 };
    c->flops = 2 * 2.0 * 8 * 16 * 32 * 32 * 32 * 9;
    c->device_time_s = 40e-6;
    c->host_time_s = 60e-6;
    struct op *b = add(&p, "aten::add_", OP_ELEMENTWISE, 2);
    b->shapes = xstrdup("[8, 32, 32, 32], [1, 32, 1, 1], []");
    b->bytes = 2 * 3.0 * 8 * 32 * 32 * 32 * 4;
    b->device_time_s = 10e-6;
    b->host_time_s = 20e-6;
    struct op *a = add(&p, "aten::add_", OP_ELEMENTWISE, 1);
    a->shapes = xstrdup("[8, 32, 32, 32], [8, 32, 32, 32], []");
    a->bytes = 3.0 * 8 * 32 * 32 * 32 * 4;
    a->device_time_s = 5e-6;
    a->host_time_s = 10e-6;

    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_BF16, &e, &fp), 0);
    assert_int_equal(e.n_ops, 4);
    assert_string_equal(e.ops[3].name, "(autocast casts)");
    /* weight and bias, forward and backward, 2 calls */
    assert_close(e.ops[3].count, 8, 1e-12);
    assert_true(warned(&e, "8 casts added per pass"));
    /* 2 x (5.4 + 3.0) adds x 20 us */
    assert_close(e.ops[3].host_s, 2 * 8.4 * 20e-6, 1e-12);
    /* the casts move 32 x 16 x 9 + 32 elements each way, 4 + 2 bytes */
    assert_close(e.ops[3].bytes, 2 * 2 * (32.0 * 16 * 9 + 32) * 6, 1e-9);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* A dilated convolution from a table that measured no dilation: timed as
 * its undilated twin, and the estimate says so; with a dilated pair in
 * the table, the twin's time times the pair's ratio and no warning. */
static void test_dilation_unmeasured(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    const int64_t dils[] = { 1, 2 };
    for (int i = 0; i < 3; i++) {
        struct kernel_row *r = kernel_table_add(t);
        r->kind = KERNEL_CONV;
        r->prec = PREC_FP32;
        r->dims = 2;
        r->n_ = 8, r->c = 16 << i, r->h = r->w = 32, r->kf = 16 << i, r->r = r->s = 3;
        r->pad_h = r->pad_w = 1, r->stride_h = r->stride_w = 1, r->groups = 1;
        r->dil_h = r->dil_w = 1;
        r->time_s[CONV_FWD] = 30e-6 * (1 << i);
    }
    struct profile p;
    profile_init(&p);
    struct op *c = add(&p, "aten::mkldnn_convolution", OP_CONV, 1);
    *op_conv_mut(c) = (struct conv_shape){ .n = 8, .c = 16, .h = 32, .w = 32, .k = 16, .r = 3, .s = 3,
                                          .pad_h = 2, .pad_w = 2, .stride_h = 1, .stride_w = 1,
                                          .dil_h = 2, .dil_w = 2, .p = 32, .q = 32, .groups = 1,
                                          .dims = 2 };
    c->flops = 2.0 * 8 * 16 * 16 * 9 * 32 * 32;
    c->time_s = 1e-3;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, 30e-6, 1e-12);
    assert_true(warned(&e, "1 dilated convolution(s) are timed from undilated rows"));
    estimate_release(&e);
    /* the pair: dilation 2 at 1.5x its twin's 30 us */
    for (int i = 0; i < 2; i++) {
        struct kernel_row *r = kernel_table_add(t);
        r->kind = KERNEL_CONV;
        r->prec = PREC_FP32;
        r->dims = 2;
        r->n_ = 4, r->c = 16, r->h = r->w = 32, r->kf = 16, r->r = r->s = 3;
        r->pad_h = r->pad_w = dils[i], r->stride_h = r->stride_w = 1, r->groups = 1;
        r->dil_h = r->dil_w = dils[i];
        r->time_s[CONV_FWD] = i ? 24e-6 : 16e-6;
    }
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, 45e-6, 1e-12);
    assert_false(warned(&e, "dilated convolution"));
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* A 1-D convolution as a CPU trace gives it ([N, C, 1, W], filters of
 * height 1) is timed from the table's 1-D rows, ten times slower here
 * than the 2-D rows of the same implicit GEMM, which keep timing the
 * 2-D convolution. */
static void test_conv_1d_rows(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    for (int i = 0; i < 3; i++) {
        for (int one_d = 0; one_d < 2; one_d++) {
            struct kernel_row *r = kernel_table_add(t);
            r->kind = KERNEL_CONV;
            r->prec = PREC_FP32;
            r->dims = one_d ? 1 : 2;
            r->n_ = 8, r->c = 16 << i, r->kf = 16 << i;
            r->h = one_d ? 1 : 32, r->w = one_d ? 1024 : 32;
            r->r = one_d ? 1 : 3, r->s = 3;
            r->pad_h = one_d ? 0 : 1, r->pad_w = 1, r->stride_h = r->stride_w = 1, r->groups = 1;
            r->dil_h = r->dil_w = 1;
            r->time_s[CONV_FWD] = (one_d ? 300e-6 : 30e-6) * (1 << i);
        }
    }
    struct profile p;
    profile_init(&p);
    const int64_t h[] = { 1, 32 }, w[] = { 1024, 32 }, r[] = { 1, 3 };
    for (int i = 0; i < 2; i++) {
        struct op *c = add(&p, "aten::mkldnn_convolution", OP_CONV, 1);
        *op_conv_mut(c) = (struct conv_shape){ .n = 8, .c = 32, .h = h[i], .w = w[i], .k = 32, .r = r[i],
                                              .s = 3, .pad_h = i, .pad_w = 1, .stride_h = 1,
                                              .stride_w = 1, .dil_h = 1, .dil_w = 1, .p = h[i],
                                              .q = w[i], .groups = 1, .dims = 2 };
        c->flops = 2.0 * 8 * 32 * 32 * 3 * (double)(r[i] * h[i] * w[i]);
        c->time_s = 1e-3;
    }
    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, &ks, PREC_UNKNOWN, &e, &fp), 0);
    assert_close(e.ops[0].device_s, 600e-6, 1e-12);
    assert_int_equal(e.ops[0].method, EST_TABLE_EXACT);
    assert_close(e.ops[1].device_s, 60e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* A convolution of 2 groups far past its table's grouped rows (512
 * channels against rows of 64): timed as its two groups' dense
 * convolutions (256 to 256 channels, a dense row of 200 us) at the
 * grouped kernel's speed over such dense ones at its nearest grouped row
 * (the rows of 64 channels in 2 groups: 50 us, where two dense
 * convolutions of 32 take 2 x 20 us), 2 x 200 x 50 / 40 = 500 us, and
 * the estimate says so.  Depthwise convolutions never (their groups are
 * their channels), nor ops inside the grouped rows. */
static void test_grouped_as_dense(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    const int64_t dense_c[] = { 32, 64, 128, 256 };
    for (int i = 0; i < 4; i++) {
        struct kernel_row *r = kernel_table_add(t);
        r->kind = KERNEL_CONV;
        r->prec = PREC_FP32;
        r->dims = 2;
        r->n_ = 8, r->c = dense_c[i], r->h = r->w = 14, r->kf = dense_c[i], r->r = r->s = 3;
        r->pad_h = r->pad_w = 1, r->stride_h = r->stride_w = 1, r->groups = 1;
        r->dil_h = r->dil_w = 1;
        r->time_s[CONV_FWD] = i == 0 ? 20e-6 : i == 3 ? 200e-6 : 20e-6 * (1 << (2 * i));
    }
    for (int i = 0; i < 2; i++) {
        struct kernel_row *r = kernel_table_add(t);
        r->kind = KERNEL_CONV;
        r->prec = PREC_FP32;
        r->dims = 2;
        r->n_ = 8, r->c = 64, r->h = r->w = i ? 7 : 14, r->kf = 64, r->r = r->s = 3;
        r->pad_h = r->pad_w = 1, r->stride_h = r->stride_w = 1, r->groups = 2;
        r->dil_h = r->dil_w = 1;
        r->time_s[CONV_FWD] = i ? 30e-6 : 50e-6;
    }
    struct profile p;
    profile_init(&p);
    const int64_t ch[2] = { 512, 64 };
    for (int i = 0; i < 2; i++) {
        struct op *c = add(&p, i ? "small" : "wide", OP_CONV, 1);
        *op_conv_mut(c) = (struct conv_shape){ .n = 8, .c = ch[i], .h = 14, .w = 14, .k = ch[i], .r = 3,
                                              .s = 3, .pad_h = 1, .pad_w = 1, .stride_h = 1,
                                              .stride_w = 1, .dil_h = 1, .dil_w = 1, .p = 14, .q = 14,
                                              .groups = 2, .dims = 2 };
        c->flops = 2.0 * 8 * (double)ch[i] * (double)ch[i] / 2 * 9 * 14 * 14;
        c->time_s = 1e-3;
    }
    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, &ks, PREC_FP32, &e, &fp), 0);
    assert_close(est_named(&e, "wide")->device_s, 2 * 200e-6 * 50e-6 / 40e-6, 1e-9);
    assert_close(est_named(&e, "small")->device_s, 50e-6, 1e-9);
    assert_true(warned(&e, "1 grouped convolution(s) lie outside the table's grouped rows"));
    estimate_release(&e);
    fclose(fp);
    profile_release(&p);
    kernel_set_release(&ks);
}

/* --batch on the profiled device (its own table, no warning): memory-bound
 * ops grow linearly above their fixed part, GEMMs by the table's ratio kept
 * within [measured, linear], convolutions beyond the table's batches
 * linearly.  Launch 5 us per kernel. */
static void test_scaled_table_batch(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    gemm_row(t, PREC_FP32, 100, 512, 512, 10e-6);
    gemm_row(t, PREC_FP32, 400, 512, 512, 25e-6);
    gemm_row(t, PREC_FP32, 100, 256, 512, 5e-6);
    gemm_row(t, PREC_FP32, 400, 256, 512, 40e-6);
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_ELTWISE;
    r->prec = PREC_FP32;
    r->elements = 1e6;
    r->bytes = 8e6;
    r->time_s[0] = 20e-6;
    r = kernel_table_add(t);
    r->kind = KERNEL_CONV;
    r->prec = PREC_FP32;
    r->n_ = 8, r->c = 16, r->h = r->w = 32, r->kf = 16, r->r = r->s = 3;
    r->pad_h = r->pad_w = 1, r->stride_h = r->stride_w = 1;
    r->time_s[CONV_FWD] = 30e-6;
    /* batch 16 at 256 x 256: implicit-GEMM rows 16 x 256 x 256 = 1048576
     * enclose the query's 400 x 32 x 32 = 409600, its batch still does not */
    r = kernel_table_add(t);
    r->kind = KERNEL_CONV;
    r->prec = PREC_FP32;
    r->n_ = 16, r->c = 16, r->h = r->w = 256, r->kf = 16, r->r = r->s = 3;
    r->pad_h = r->pad_w = 1, r->stride_h = r->stride_w = 1;
    r->time_s[CONV_FWD] = 500e-6;

    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("Test GPU");
    p.batch = 100;
    struct op *a = add(&p, "aten::add", OP_ELEMENTWISE, 2);
    a->shapes = xstrdup("[100, 1000], [100, 1000]");
    a->bytes = 2.4e6;
    a->kernels = 2;
    a->device_time_s = 60e-6;
    struct op *b = add(&p, "aten::relu", OP_ELEMENTWISE, 2);
    b->shapes = xstrdup("[100, 10]");
    b->bytes = 16e3;
    b->kernels = 2;
    b->device_time_s = 6e-6;
    struct op *g = add(&p, "aten::mm", OP_GEMM, 1);
    g->m = 100, g->n = 512, g->k = 512, g->a_t = g->b_t = 'N';
    g->flops = 2.0 * 100 * 512 * 512;
    g->device_time_s = 12e-6;
    struct op *h = add(&p, "aten::mm", OP_GEMM, 1);
    h->m = 100, h->n = 256, h->k = 512, h->a_t = h->b_t = 'N';
    h->flops = 2.0 * 100 * 256 * 512;
    h->device_time_s = 10e-6;
    struct op *c = add(&p, "aten::cudnn_convolution", OP_CONV, 1);
    *op_conv_mut(c) = (struct conv_shape){ .n = 100, .c = 16, .h = 32, .w = 32, .k = 16, .r = 3, .s = 3,
                                   .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1,
                                   .p = 32, .q = 32, .groups = 1 };
    c->flops = 2.0 * 100 * 16 * 32 * 32 * 16 * 9;
    c->device_time_s = 105e-6;

    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.batch = 400;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    assert_false(warned(&e, "scaled-table"));
    for (int i = 0; i < 5; i++)
        assert_int_equal(e.ops[i].method, EST_SCALED_TABLE);
    /* add: 4x the bytes; fixed 2 x 5 = 10 us, 10 + 50 x 4 = 210 us */
    assert_close(e.ops[0].device_s, 210e-6, 1e-12);
    assert_close(e.ops[0].ratio, 3.5, 1e-12);
    /* relu: 6 us, below its fixed 10 us: nothing scales */
    assert_close(e.ops[1].device_s, 6e-6, 1e-12);
    /* mm: table 25 / 10 = 2.5 x 12 = 30 us, within [12, 5 + 7 x 4 = 33] */
    assert_close(e.ops[2].device_s, 30e-6, 1e-12);
    /* mm: table 40 / 5 = 8 x 10 = 80 us, above linear 5 + 5 x 4 = 25 us */
    assert_close(e.ops[3].device_s, 25e-6, 1e-12);
    /* conv: the table ran batch 8 only: 5 + 100 x 4 = 405 us */
    assert_close(e.ops[4].device_s, 405e-6, 1e-12);
    struct kernel_estimate ke;
    assert_int_equal(kernel_table_conv(t, PREC_FP32, op_conv(c), CONV_FWD, CONV_CONTIGUOUS, &ke), 0);
    assert_int_equal(ke.method, LOOKUP_EXTRAP);
    struct conv_shape in = *op_conv(c);
    in.n = 8;
    assert_int_equal(kernel_table_conv(t, PREC_FP32, &in, CONV_FWD, CONV_CONTIGUOUS, &ke), 0);
    assert_int_equal(ke.method, LOOKUP_EXACT);
    assert_close(ke.time_s, 30e-6, 1e-15);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* A CPU profile on a GPU target: a view launches nothing (device 0) but
 * is still dispatched (20 us); a real op keeps its table time. */
static void test_cpu_view_ops(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    struct op *v = add(&p, "aten::t", OP_OTHER, 3);
    v->time_s = 60e-6;              /* CPU time of 3 calls */
    struct op *w = add(&p, "aten::transposed_conv_like", OP_OTHER, 1);
    w->time_s = 40e-6;              /* not a view: keeps its time (scaled) */
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, 0, 0);
    /* a view's dispatch: 0.12 bare adds and the host's 0.49 between calls
     * (est_host.c: the view class) */
    double rs = e.host_repeat_scale;
    assert_close(rs, pow(2 / 3.87, -0.129), 1e-12);     /* 4 calls of 2 records */
    assert_close(e.ops[0].host_s, 3 * 0.61 * 20e-6 * rs, 1e-15);
    assert_close(e.ops[1].device_s, 40e-6, 1e-15);
    /* an op the traces did not measure: the mean op of one kernel */
    assert_close(e.ops[1].host_s, 2.57 * 20e-6 * rs, 1e-15);
    /* no call order: max(device 40, host) + 5 us sync */
    assert_close(e.pass_time_s, (3 * 0.61 + 2.57) * 20e-6 * rs + 5e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* An op that moves rows through an index (a scatter-add of atomic adds)
 * takes the time of its own rows, not of the stream of contiguous
 * elements, whose curve its rows stay out of; in bf16 its rows run no
 * faster than fp32 (as measured, estimators/h100/index-ops), so neither
 * does the op.  An add of the same bytes keeps the stream's time. */
static void test_indexed_rows(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    for (int i = 0; i < 2; i++) {
        enum precision pr = i ? PREC_BF16 : PREC_FP32;
        double eb = i ? 2 : 4;
        elt_row(t, "copy", pr, eb * 1e6, eb * 1e6 / 1e12 * 1.25);       /* 80% of 1 TB/s */
        elt_row(t, "copy", pr, eb * 1e7, eb * 1e7 / 1e12 * 1.25);
        elt_row(t, "index_add_", pr, eb * 1e6, 30e-6);                  /* fp32 and bf16 alike */
        elt_row(t, "index_add_", pr, eb * 1e7, 300e-6);
    }
    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::index_add_", OP_ELEMENTWISE, 2);
    o->time_s = 9e-3;                           /* host CPU time of 2 calls */
    o->bytes = 2 * 4e6;
    snprintf(op_sizes_mut(o)->kop, sizeof op_sizes_mut(o)->kop, "index_add_");
    struct op *a = add(&p, "aten::add", OP_ELEMENTWISE, 2);
    a->time_s = 1e-3;
    a->bytes = 2 * 4e6;
    snprintf(op_sizes_mut(a)->kop, sizeof op_sizes_mut(a)->kop, "add");

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    /* 2 calls of 4 MB: the index row at 4 MB, 30 us a call */
    const struct op_estimate *oi = &e.ops[0], *oa = &e.ops[1];
    if (strcmp(e.ops[0].name, "aten::index_add_") != 0) {
        oi = &e.ops[1];
        oa = &e.ops[0];
    }
    assert_int_equal(oi->method, EST_TABLE_EXACT);
    assert_close(oi->device_s, 2 * 30e-6, 1e-3);
    /* the add: the copy rows' 80% of 1 TB/s, 5 us a call; the slow index
     * rows at the same bytes leave the stream curve alone */
    assert_close(oa->device_s, 2 * 5e-6, 1e-3);
    /* bf16: 2 MB a call, the bf16 index rows' 30 us, no faster */
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = PREC_BF16;
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    oi = strcmp(e.ops[0].name, "aten::index_add_") == 0 ? &e.ops[0] : &e.ops[1];
    assert_close(oi->device_s, 2 * 30e-6, 1e-3);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

static struct kernel_row *norm_row(struct kernel_table *t, const char *op, int64_t n, int64_t c,
                                   int64_t sp, double time_s)
{
    struct kernel_row *r = kernel_table_add(t);
    r->kind = KERNEL_NORM;
    r->prec = PREC_FP32;
    r->pass = KPASS_BWD;
    r->op = xstrdup(op);
    r->dim[NORM_N] = n;
    r->dim[NORM_C] = c;
    r->dim[NORM_S] = sp;
    r->dim[NORM_GROUPS] = 1;    /* a batch norm's, as the reader stores it */
    r->time_s[0] = time_s;
    r->reps = 20;
    return r;
}

/* A profile at batch n, measured on the test GPU, of one fp32 norm op
 * (kop) over [n, c, sp] in `groups` groups, 1 ms on the device and 20 us
 * on the host a pass, reading and writing its input once. */
static void norm_profile(struct profile *p, const char *name, const char *kop, int64_t n,
                         int64_t c, int64_t sp, int64_t groups)
{
    profile_init(p);
    p->batch = n;
    p->has_device = 1;
    p->device_name = xstrdup("Test GPU");
    struct op *o = add(p, name, OP_NORM, 1);
    o->device_time_s = o->time_s = 1e-3;
    o->host_time_s = 20e-6;
    o->bytes = 2.0 * (double)n * (double)c * (double)sp * 4;
    struct op_table_sizes *ts = op_sizes_mut(o);
    snprintf(ts->kop, sizeof ts->kop, "%s", kop);
    ts->kdim[NORM_N] = n;
    ts->kdim[NORM_C] = c;
    ts->kdim[NORM_S] = sp;
    ts->kdim[NORM_GROUPS] = groups;
}

/* A group norm's forward gives each group of each sample a block: with
 * fewer such rows than the device has multiprocessors it takes as long
 * as one row, and more rows up to one per multiprocessor cost nothing.
 * A profile at batch 2 with [2, 16, 4096] in 2 groups (4 rows) measured
 * at 1 ms, on a device of 8 multiprocessors, whose table rows grow
 * linearly with the batch: at batch 4 (8 rows) it stays 1 ms, at batch
 * 8 (16 rows, two per multiprocessor) it takes 2 ms, and at batch 1 (2
 * rows) still 1 ms.  A device whose file gives no multiprocessors, or a
 * batch norm (its channels are its rows, which the batch leaves alone),
 * grows with the bytes: 2 ms at batch 4.  (Above the kernel's 5 us
 * launch, which stays.) */
static void test_idle_rows(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    const char *kops[2] = { "group_norm", "batch_norm" };
    for (int k = 0; k < 2; k++)
        for (int64_t n = 1; n <= 8; n *= 2) {
            struct kernel_row *r = norm_row(t, kops[k], n, 16, 4096, 100e-6 * (double)n);
            r->pass = KPASS_FWD;
            r->dim[NORM_GROUPS] = k == 0 ? 2 : 1;
        }
    struct { int cu; const char *kop; int64_t batch; double growth; int held; } cases[] = {
        { 8, "group_norm", 4, 1, 1 },
        { 8, "group_norm", 8, 2, 1 },
        { 8, "group_norm", 1, 1, 1 },
        { 0, "group_norm", 4, 2, 0 },
        { 8, "batch_norm", 4, 2, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        m.compute_units = cases[i].cu;
        struct profile p;
        norm_profile(&p, "aten::group_norm", cases[i].kop, 2, 16, 4096,
                     strcmp(cases[i].kop, "group_norm") == 0 ? 2 : 0);
        struct estimate e;
        estimate_init(&e);
        struct estimate_opts eo;
        estimate_opts_init(&eo);
        eo.batch = cases[i].batch;
        FILE *fp;
        struct diag d = quiet(&fp);
        assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
        assert_int_equal(e.ops[0].method, EST_SCALED_TABLE);
        assert_close(e.ops[0].device_s, 5e-6 + 995e-6 * cases[i].growth, 1e-9);
        assert_int_equal(!!(e.ops[0].limits & (1u << LIMIT_IDLE_ROWS)), cases[i].held);
        assert_int_equal(e.limit_ops[LIMIT_IDLE_ROWS], (size_t)cases[i].held);
        estimate_release(&e);
        profile_release(&p);
        fclose(fp);
    }
    kernel_set_release(&ks);
}

/* A batch norm moved from fp32 to bf16 on its own GPU, whose table has
 * bf16 rows ten times slower than its fp32 rows at [1..4, 64, 1024].  At
 * [2, 64, 1024] the rows are measured: their ratio stands (1 ms becomes
 * 10 ms).  At [64, 64, 1024], far past the rows, both lookups extrapolate
 * and their ratio is held to the envelope of the test GPU's spec ratios
 * between the two precisions: peaks 10 or 100 TFLOP/s in fp32 against 100
 * in bf16 (0.1 and 1), half the bytes (0.5), the same launch (1); so no
 * more than 1, and the op says ratio-high. */
static void test_extrapolated_ratio(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    for (int64_t n = 1; n <= 4; n++)
        for (int b = 0; b < 2; b++) {
            struct kernel_row *r = norm_row(t, "batch_norm", n, 64, 1024, (b ? 100e-6 : 10e-6) * (double)n);
            r->prec = b ? PREC_BF16 : PREC_FP32;
            r->pass = KPASS_FWD;
        }
    const int64_t batch[2] = { 2, 64 };
    for (int i = 0; i < 2; i++) {
        struct profile p;
        norm_profile(&p, "aten::native_batch_norm", "batch_norm", batch[i], 64, 1024, 0);
        struct estimate e;
        estimate_init(&e);
        struct estimate_opts eo;
        estimate_opts_init(&eo);
        eo.precision = PREC_BF16;
        FILE *fp;
        struct diag d = quiet(&fp);
        assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
        const struct op_estimate *on = NULL;
        for (size_t k = 0; k < e.n_ops; k++)
            if (strcmp(e.ops[k].name, "aten::native_batch_norm") == 0)
                on = &e.ops[k];
        assert_non_null(on);
        assert_int_equal(on->method, EST_SCALED_TABLE);
        assert_close(on->device_s, i == 0 ? 10e-3 : 1e-3, 1e-6);
        assert_int_equal(!!(on->limits & (1u << LIMIT_RATIO_HIGH)), i == 1);
        estimate_release(&e);
        profile_release(&p);
        fclose(fp);
    }
    kernel_set_release(&ks);
}

/* An instance norm's gradient is a batch norm's over its input seen as
 * [1, N x C, S]: at another batch its channels grow, not its leading 1.
 * A profile at batch 2 with an instance norm over [2, 16, 4096] and the
 * batch norm backward [1, 32, 4096]: at batch 8 the backward is looked
 * up at [1, 128, 4096] (the row's exact 40 us), with 4x the bytes.
 * Without the instance norm the same backward is a batch norm of its
 * own, whose leading 1 is no batch: its row [1, 32, 4096] stays. */
static void test_instance_norm_batch(void **state)
{
    (void)state;
    struct machine m;
    struct kernel_set ks;
    struct kernel_table *t = gpu_with_table(&m, &ks);
    norm_row(t, "batch_norm", 1, 32, 4096, 10e-6);
    norm_row(t, "batch_norm", 1, 128, 4096, 40e-6);
    norm_row(t, "batch_norm", 4, 32, 4096, 400e-6);    /* not linear: a wrong lookup shows */
    for (int with = 1; with >= 0; with--) {
        struct profile p;
        profile_init(&p);
        p.batch = 2;
        if (with) {
            struct op *f = add(&p, "aten::instance_norm", OP_NORM, 1);
            f->time_s = 1e-3;
            f->bytes = 2.0 * 16 * 4096 * 4 * 2;
            struct op_table_sizes *fs = op_sizes_mut(f);
            snprintf(fs->kop, sizeof fs->kop, "group_norm");
            fs->kdim[NORM_N] = 2;
            fs->kdim[NORM_C] = 16;
            fs->kdim[NORM_S] = 4096;
            fs->kdim[NORM_GROUPS] = 16;
        }
        struct op *b = add(&p, "aten::native_batch_norm_backward", OP_NORM, 1);
        b->phase = PHASE_BACKWARD;
        b->time_s = 2e-3;
        b->bytes = 32.0 * 4096 * 4 * 3;
        struct op_table_sizes *bs = op_sizes_mut(b);
        snprintf(bs->kop, sizeof bs->kop, "batch_norm");
        bs->kdim[NORM_N] = 1;
        bs->kdim[NORM_C] = 32;
        bs->kdim[NORM_S] = 4096;
        struct estimate e;
        estimate_init(&e);
        struct estimate_opts eo;
        estimate_opts_init(&eo);
        eo.batch = 8;
        FILE *fp;
        struct diag d = quiet(&fp);
        assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
        const struct op_estimate *ob = NULL;
        for (size_t i = 0; i < e.n_ops; i++)
            if (strcmp(e.ops[i].name, "aten::native_batch_norm_backward") == 0)
                ob = &e.ops[i];
        assert_non_null(ob);
        assert_int_equal(ob->method, EST_TABLE_EXACT);
        assert_close(ob->device_s, with ? 40e-6 : 10e-6, 1e-6);
        if (with)
            assert_close(ob->bytes, 4 * b->bytes, 1e-9);
        estimate_release(&e);
        profile_release(&p);
        fclose(fp);
    }
    kernel_set_release(&ks);
}

/* A CPU trace's op on a GPU costs the host by what it is: a norm as
 * cuDNN's ops (4.04 bare adds and 0.49 between calls), an optimizer's op once, an optimizer's
 * item() (its step count, a CPU tensor) as a view, a CPU target a bare
 * dispatch whatever the op. */
static void test_cpu_host_weights(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    add_cpu(&p, "aten::native_layer_norm", OP_NORM, 2, PHASE_FORWARD);
    add_cpu(&p, "aten::foo_", OP_ELEMENTWISE, 1, PHASE_OPTIMIZER);
    add_cpu(&p, "aten::item", OP_OTHER, 4, PHASE_OPTIMIZER)->bytes = 0;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    /* the forward and backward passes' 2 calls of one record (not the
     * optimizer's, whose ops keep their own dispatch) */
    double rs = pow(2 / 3.87, -0.129);
    assert_close(e.host_repeat_scale, rs, 1e-12);
    assert_close(e.ops[0].host_s, 2 * 4.53 * 20e-6 * rs, 1e-12);
    assert_close(e.ops[1].host_s, 20e-6, 1e-12);
    assert_close(e.ops[2].host_s, 4 * 0.61 * 20e-6 * rs, 1e-12);
    /* what the host time rests on, by class, adds up to it */
    assert_close(e.host_dispatch_s, 20e-6, 1e-15);
    assert_close(e.host_calls[HOST_CLASS_LIBRARY], 2, 1e-15);
    assert_close(e.host_calls[HOST_CLASS_ONCE], 1, 1e-15);
    assert_close(e.host_calls[HOST_CLASS_VIEW], 4, 1e-15);
    assert_close(e.host_calls[HOST_CLASS_KERNEL], 0, 0);
    double sum = 0;
    for (int k = 0; k < HOST_CLASS_COUNT; k++)
        sum += e.host_class_s[k];
    assert_close(sum, e.host_time_s, 1e-12);
    assert_close(est_host_class_weight(HOST_CLASS_LIBRARY), 4.53, 1e-12);
    assert_close(est_host_class_weight(HOST_CLASS_CONV), 0.49 + 2.08 * (3.56 + 6.72) / 2, 1e-12);
    assert_string_equal(est_host_class_name(HOST_CLASS_CONV), "cudnn-conv");
    assert_string_equal(est_host_class_name(HOST_CLASS_LIBRARY), "norm");
    estimate_release(&e);
    m.kind = MACHINE_CPU;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[0].host_s, 2 * 20e-6, 1e-12);
    assert_close(e.host_dispatch_s, 0, 0);     /* no GPU host to rest on */
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* A CPU trace's op of the kernel class costs a GPU's host its name's
 * figure from the GPU traces (est_host_ops.c, a table searched by name
 * and pass: its first row, its last and one between are found), the mean
 * op of one kernel where the traces did not measure it (a name, or a
 * name in another pass). */
static void test_cpu_op_host_rows(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    static const struct { const char *name; enum op_phase phase; double w; } cases[] = {
        { "aten::_conj", PHASE_BACKWARD, 0.49 + 0.19 * 2.08 },
        { "aten::zeros_like", PHASE_BACKWARD, 0.49 + 0.69 * 2.08 },
        { "aten::mm", PHASE_BACKWARD, 0.49 + 1.61 * 2.08 },
        { "aten::mm", PHASE_FORWARD, 0.49 + 2.02 * 2.08 },
        { "aten::_conj", PHASE_FORWARD, 2.57 },
        { "aten::not_an_op", PHASE_FORWARD, 2.57 },
    };
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        add_cpu(&p, cases[i].name, OP_ELEMENTWISE, 3, cases[i].phase);
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_int_equal(e.n_ops, n);
    size_t found = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < e.n_ops; j++)
            if (strcmp(e.ops[j].name, cases[i].name) == 0 && e.ops[j].phase == cases[i].phase) {
                assert_close(e.ops[j].host_s, 3 * cases[i].w * 20e-6 * pow(3 / 3.87, -0.129), 1e-12);
                found++;
            }
    assert_int_equal(found, n);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* A pass that repeats its ops issues them faster (est_host.c:
 * est_host_dispatch): the dispatch is the machine's times (calls per op
 * record / 3.87)^-0.129, for every call of the pass, whatever its own
 * count; the optimizer's ops do not count as records.  A CPU target takes
 * no such factor (its host is the trace's). */
static void test_cpu_host_repeat(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    struct op *a = add_cpu(&p, "aten::add", OP_ELEMENTWISE, 223, PHASE_FORWARD);
    add_cpu(&p, "aten::mul", OP_ELEMENTWISE, 1, PHASE_BACKWARD);
    add_cpu(&p, "aten::add_", OP_ELEMENTWISE, 50, PHASE_OPTIMIZER);
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    double rs = pow(112.0 / 3.87, -0.129);    /* 224 calls of 2 records: 0.648 */
    assert_close(e.host_calls_per_record, 112, 1e-12);
    assert_close(e.host_repeat_scale, rs, 1e-12);
    assert_true(rs > 0.64 && rs < 0.66);
    assert_close(e.host_dispatch_s, 20e-6, 0);
    assert_close(e.ops[0].host_s, 223 * (0.49 + 0.87 * 2.08) * 20e-6 * rs, 1e-12);
    assert_close(e.ops[1].host_s, (0.49 + 0.77 * 2.08) * 20e-6 * rs, 1e-12);
    estimate_release(&e);
    /* one call of each: 1 a record */
    a->count = 1;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.host_repeat_scale, pow(1 / 3.87, -0.129), 1e-12);
    assert_close(e.ops[0].host_s, (0.49 + 0.87 * 2.08) * 20e-6 * pow(1 / 3.87, -0.129), 1e-12);
    estimate_release(&e);
    m.kind = MACHINE_CPU;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.host_repeat_scale, 0, 0);
    assert_close(e.ops[0].host_s, 20e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* A CPU trace's op that PyTorch runs as several kernels on a GPU (a dense
 * embedding's backward: 31 launches, 9.10 times the mean op of one
 * kernel on the host, est_host.c and est_host_ops.c) costs the GPU's host
 * and device that many: the host 2 calls x (0.49 + 9.10 x 2.08) bare adds
 * (the op's own time grows, not the host's time between calls), the
 * device no less than 2 x 31 launches.  The same name in another pass, or an op the trace saw run
 * its kernels (a GPU trace), is not moved. */
static void test_cpu_multi_kernel(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    struct op *b = add(&p, "aten::embedding_backward", OP_EMBEDDING, 2);
    b->phase = PHASE_BACKWARD;
    b->time_s = 40e-6;
    b->bytes = 2 * 4096;
    struct op *f = add(&p, "aten::embedding_backward", OP_EMBEDDING, 2);
    f->time_s = 40e-6;
    f->bytes = 2 * 4096;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    const struct op_estimate *ob = &e.ops[0], *of = &e.ops[1];
    if (e.ops[0].phase != PHASE_BACKWARD) {
        ob = &e.ops[1];
        of = &e.ops[0];
    }
    double rs = pow(2 / 3.87, -0.129);       /* 2 calls a record */
    assert_close(ob->host_s, 2 * (0.49 + 9.10 * 2.08) * 20e-6 * rs, 1e-12);
    assert_true(ob->device_s >= 2 * 31 * 5e-6 * (1 - 1e-9));
    assert_close(of->host_s, 2 * 2.57 * 20e-6 * rs, 1e-12);
    assert_true(of->device_s < 2 * 31 * 5e-6);
    assert_close(e.host_multi_calls, 2, 0);
    assert_close(e.host_multi_s, ob->host_s, 1e-12);
    estimate_release(&e);
    /* a GPU trace's op: its own kernels and host time */
    b->kernels = 2;
    b->host_time_s = 30e-6;
    b->device_time_s = 40e-6;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.host_multi_calls, 0, 0);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* Without bytes, tables or a source machine a measured op keeps its time;
 * that loses something (a warning) only above its fixed per-kernel part:
 * 1 kernel x 5 us launch. */
static void test_keep_measured_warning(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Target GPU");
    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("Source GPU");
    struct op *o = add(&p, "aten::fill_", OP_ELEMENTWISE, 1);
    o->kernels = 1;
    o->device_time_s = 2e-6;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, 2e-6, 1e-15);
    assert_false(warned(&e, "keep their measured time"));
    o->device_time_s = 40e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, 40e-6, 1e-15);
    assert_true(warned(&e, "keep their measured time"));
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

static void test_scaled_last_resort(void **state)
{
    (void)state;
    struct machine m, src;
    gpu(&m, "Target GPU");
    gpu(&src, "Source GPU");
    src.mem = NULL;
    src.n_mem = 0;
    static struct mem_level slow = { "HBM", 16e9, 0.5e12 };
    src.mem = &slow;
    src.n_mem = 1;
    struct profile p;
    profile_init(&p);
    p.has_device = 1;
    p.device_name = xstrdup("Source GPU");
    struct op *o = add(&p, "aten::copy_", OP_MEMCPY, 1);
    o->device_time_s = 40e-6;   /* no bytes known: cannot roofline */
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.source = &src;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, &eo, &e, &d), 0);
    /* bandwidth 0.5 TB/s -> 1 TB/s: 40 us x 0.5 = 20 us */
    assert_int_equal(e.ops[0].method, EST_SCALED);
    assert_close(e.ops[0].device_s, 20e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(est_method_name(EST_SCALED_TABLE), "scaled-table");
    assert_string_equal(est_limit_name(LIMIT_IDLE_ROWS), "idle-rows");
    assert_string_equal(est_method_name(EST_TABLE_INTERP), "table-interp");
    assert_string_equal(est_bound_name(BOUND_HOST), "host");
    assert_string_equal(est_method_name(EST_METHOD_COUNT), "unknown");
}

static void call(struct profile *p, size_t id, double start_s, double host_s, double dev_s)
{
    ALLOC_GROW(p->calls, p->n_calls + 1, p->alloc_calls);
    struct op_call *c = &p->calls[p->n_calls++];
    memset(c, 0, sizeof *c);
    c->op_id = id;
    c->host_start_s = start_s;
    c->host_s = host_s;
    c->device_s = dev_s;
}

/* Op i + 1 of a walk through one step's calls: one call each, in order,
 * 4 us on the device and 10 us on the host; a GEMM of m x n x k. */
static struct op *add_called(struct profile *p, size_t i, const char *name, enum op_kind kind,
                             enum op_phase phase, const char *shapes, double bytes,
                             int64_t m, int64_t n, int64_t k)
{
    struct op *o = add(p, name, kind, 1);
    o->id = i + 1;
    o->phase = phase;
    o->shapes = xstrdup(shapes);
    o->bytes = bytes;
    o->device_time_s = 4e-6;
    o->host_time_s = 10e-6;
    if (kind == OP_GEMM) {
        o->m = m;
        o->n = n;
        o->k = k;
        o->batch = 1;
        o->flops = 2.0 * (double)m * n * k;
    }
    call(p, i + 1, (double)i * 10e-6, 10e-6, 4e-6);
    return o;
}

/* The ops autocast does not cast run in their inputs' types: after a
 * softplus (autocast's fp32 list) the mul that reads it stays fp32 at
 * bf16, while a relu after a linear runs in bf16; a backward mul of a
 * shape that two fp32 results and one bf16 result had moves 2/3 of its
 * elements at fp32.  Without calls to follow, all of them are taken as
 * bf16. */
static void test_autocast_promotion(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    static const struct {
        const char *name, *shapes;
        enum op_kind kind;
        enum op_phase phase;
    } ops[] = {
        { "aten::addmm", "[64], [128, 64], [64, 64], [], []", OP_GEMM, PHASE_FORWARD },
        { "aten::softplus", "[128, 64], [], []", OP_ELEMENTWISE, PHASE_FORWARD },
        { "aten::mul", "[128, 64], [128, 64]", OP_ELEMENTWISE, PHASE_FORWARD },
        { "aten::addmm", "[16], [32, 64], [64, 16], [], []", OP_GEMM, PHASE_FORWARD },
        { "aten::relu", "[32, 16]", OP_ELEMENTWISE, PHASE_FORWARD },
        { "aten::mul", "[128, 64], [128, 64]", OP_ELEMENTWISE, PHASE_BACKWARD },
    };
    for (size_t i = 0; i < 6; i++)
        add_called(&p, i, ops[i].name, ops[i].kind, ops[i].phase, ops[i].shapes, 3 * 128 * 64 * 4,
                   i ? 32 : 128, i ? 16 : 64, 64);
    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_BF16, &e, &fp), 0);
    fclose(fp);
    double b = 3 * 128 * 64 * 4;
    assert_int_equal(e.ops[2].prec, PREC_FP32);
    assert_close(e.ops[2].bytes, b, 1e-9);
    assert_int_equal(e.ops[4].prec, PREC_BF16);
    assert_close(e.ops[4].bytes, b / 2, 1e-9);
    assert_int_equal(e.ops[5].prec, PREC_FP32);
    assert_close(e.ops[5].bytes, b * (2.0 / 3 + 1.0 / 3 / 2), 1e-9);
    /* the softplus is autocast's to keep in fp32, not the walk's */
    assert_true(warned(&e, "2 op(s) that autocast does not cast"));
    estimate_release(&e);

    p.n_calls = 0;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_BF16, &e, &fp), 0);
    fclose(fp);
    assert_int_equal(e.ops[2].prec, PREC_BF16);
    assert_close(e.ops[2].bytes, b / 2, 1e-9);
    assert_close(e.ops[5].bytes, b / 2, 1e-9);
    assert_false(warned(&e, "autocast does not cast"));
    estimate_release(&e);
    profile_release(&p);
}

/* Autocast's casts followed through the calls: a linear layer applied four
 * times with a softplus (autocast's fp32 list) after each.  Each softplus
 * casts its low-precision input to fp32 and the next linear casts it back;
 * the linear's weight and bias are cast once, at the first call (autocast
 * caches the casts of parameters, which the optimizer's list names), else
 * at every call. */
static void test_autocast_flow(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    struct op *l = add(&p, "aten::addmm", OP_GEMM, 4);
    l->id = 1;
    l->shapes = xstrdup("[64], [128, 64], [64, 64], [], []");
    l->m = 128;
    l->n = 64;
    l->k = 64;
    l->batch = 1;
    l->flops = 4 * 2.0 * 128 * 64 * 64;
    l->device_time_s = 4e-6;
    l->host_time_s = 40e-6;
    struct op *sp = add(&p, "aten::softplus", OP_ELEMENTWISE, 4);
    sp->id = 2;
    sp->shapes = xstrdup("[128, 64], [], []");
    sp->bytes = 4 * 2.0 * 128 * 64 * 4;
    sp->device_time_s = 4e-6;
    sp->host_time_s = 40e-6;
    struct op *opt = add(&p, "aten::_foreach_add_", OP_OPTIMIZER, 1);
    opt->id = 3;
    opt->phase = PHASE_OPTIMIZER;
    opt->shapes = xstrdup("[[64, 64], [64]], [[64, 64], [64]]");
    opt->device_time_s = 2e-6;
    opt->host_time_s = 10e-6;
    for (int i = 0; i < 8; i++)
        call(&p, 1 + i % 2, i * 10e-6, 10e-6, 1e-6);
    call(&p, 3, 80e-6, 10e-6, 2e-6);

    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.precision = PREC_BF16;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, &eo, &e, &d), 0);
    const struct op_estimate *c = &e.ops[e.n_ops - 1];
    assert_string_equal(c->name, "(autocast casts)");
    /* 8 activations and 2 parameters, each forward and backward */
    assert_close(c->count, 20, 1e-12);
    assert_true(warned(&e, "20 casts added per pass"));
    /* adds: 8 x (2.3 + 2.0) + (1.7 + 1.7) + (1.1 + 1.9), and 3 calls
     * with the cached casts 3 x (0.2 + 0.3), 20 us each */
    assert_close(c->host_s, 42.3 * 20e-6, 1e-12);
    /* elements: 8 x 128 x 64 activations, 64 x 64 + 64 parameters */
    assert_close(c->bytes, 2 * (8 * 128.0 * 64 + 64 * 64 + 64) * 6, 1e-6);
    estimate_release(&e);

    /* no parameter list: the weight and bias at every call */
    opt->phase = PHASE_FORWARD;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, &eo, &e, &d), 0);
    c = &e.ops[e.n_ops - 1];
    assert_close(c->count, 32, 1e-12);
    assert_close(c->host_s, (8 * 4.3 + 4 * 6.4) * 20e-6, 1e-12);
    estimate_release(&e);

    /* an optimizer per tensor (a CPU's): the op that meets each parameter
     * once names them (addcdiv_, not mul_, which meets the weight twice) */
    const char *const per[][2] = { { "aten::addcdiv_", "[64, 64], [64, 64], [64, 64], []" },
                                   { "aten::addcdiv_", "[64], [64], [64], []" },
                                   { "aten::mul_", "[64, 64], []" } };
    for (int i = 0; i < 3; i++) {
        struct op *o = add(&p, per[i][0], OP_ELEMENTWISE, i == 2 ? 2 : 1);
        o->phase = PHASE_OPTIMIZER;
        o->shapes = xstrdup(per[i][1]);
        o->id = 10 + (size_t)i;
    }
    estimate_init(&e);
    assert_int_equal(estimate_profile(&p, &m, NULL, &eo, &e, &d), 0);
    c = &e.ops[e.n_ops - 1];
    assert_close(c->count, 20, 1e-12);
    assert_close(c->host_s, 42.3 * 20e-6, 1e-12);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* Softmax under autocast returns fp32 either way, but only fp16 on a GPU
 * fuses the cast of its input into the kernel; a bf16 input is cast to
 * fp32 by a kernel of its own first (aten's SoftMax.cpp), so at bf16 the
 * scores between two batched GEMMs add one cast forward and one back, and
 * its fp32 result is cast down for the GEMM after it at either precision. */
static void test_autocast_softmax(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    double b = 2 * 8 * 64 * 64 * 4.0;
    struct op *q = add_called(&p, 0, "aten::bmm", OP_GEMM, PHASE_FORWARD, "[8, 64, 32], [8, 32, 64]",
                              0, 64, 64, 32);
    q->batch = 8;
    add_called(&p, 1, "aten::softmax", OP_ELEMENTWISE, PHASE_FORWARD, "[8, 64, 64], [], []", b, 0, 0,
               0);
    q = add_called(&p, 2, "aten::bmm", OP_GEMM, PHASE_FORWARD, "[8, 64, 64], [8, 64, 32]", 0, 64, 32,
                   64);
    q->batch = 8;
    struct estimate e16, e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_FP16, &e16, &fp), 0);
    fclose(fp);
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_BF16, &e, &fp), 0);
    fclose(fp);
    const struct op_estimate *c16 = &e16.ops[e16.n_ops - 1], *c = &e.ops[e.n_ops - 1];
    assert_string_equal(c->name, "(autocast casts)");
    assert_string_equal(c16->name, "(autocast casts)");
    assert_close(c->count - c16->count, 2, 1e-12);
    assert_close(c->bytes - c16->bytes, 2 * 8 * 64 * 64 * 6.0, 1e-6);
    /* the softmax itself on fp32 copies either way (ops_autocast_fp32) */
    assert_close(e.ops[1].bytes, b, 1e-9);
    assert_close(e16.ops[1].bytes, b, 1e-9);
    estimate_release(&e16);
    estimate_release(&e);
    profile_release(&p);
}

/* A concatenation promotes across its list: a linear layer's bf16 output
 * concatenated with fp32 features ([128, 64] and [128, 16] into
 * [128, 80]) is fp32, so the linear layer that reads it casts it.  The
 * walk counts that cast (the [128, 80] activation, forward and back) as
 * well as the first layer's of the fp32 input, and the two layers'
 * weights and biases (no optimizer list: at every call). */
static void test_autocast_concat(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    static const struct {
        const char *name, *shapes;
        enum op_kind kind;
        int64_t m, n, k;
    } ops[] = {
        { "aten::mul", "[128, 16], [16]", OP_ELEMENTWISE, 0, 0, 0 },
        { "aten::addmm", "[64], [128, 64], [64, 64], [], []", OP_GEMM, 128, 64, 64 },
        { "aten::cat", "[[128, 64], [128, 16]], []", OP_MEMCPY, 0, 0, 0 },
        { "aten::addmm", "[32], [128, 80], [80, 32], [], []", OP_GEMM, 128, 32, 80 },
    };
    for (size_t i = 0; i < 4; i++)
        add_called(&p, i, ops[i].name, ops[i].kind, PHASE_FORWARD, ops[i].shapes, 4.0 * 128 * 80,
                   ops[i].m, ops[i].n, ops[i].k);
    struct estimate e;
    FILE *fp;
    assert_int_equal(estimate_quiet(&p, &m, NULL, PREC_BF16, &e, &fp), 0);
    fclose(fp);
    const struct op_estimate *c = &e.ops[e.n_ops - 1];
    assert_string_equal(c->name, "(autocast casts)");
    assert_close(c->count, 12, 1e-12);
    assert_close(c->bytes, 2 * (128.0 * 64 + 128.0 * 80 + 64 * 64 + 64 + 80 * 32 + 32) * 6, 1e-6);
    /* the cat itself runs in fp32: its bytes stay */
    assert_int_equal(e.ops[2].prec, PREC_FP32);
    estimate_release(&e);
    profile_release(&p);
}

/* The replay: calls in order, kernels when launched and the device is
 * free, a 5 us device gap after each measured kernel. */
static void test_replay(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    p.device_name = xstrdup("Test GPU");
    struct op *a = add(&p, "aten::mm", OP_GEMM, 1);
    a->id = 7;
    a->device_time_s = 100e-6;
    a->host_time_s = 10e-6;
    a->kernels = 1;
    struct op *b = add(&p, "aten::relu", OP_ELEMENTWISE, 2);
    b->id = 3;
    b->device_time_s = 10e-6;
    b->host_time_s = 40e-6;
    b->kernels = 2;
    /* relu (host 0..20 us), mm (20..30 us), relu (30..50 us) */
    call(&p, 3, 0, 20e-6, 5e-6);
    call(&p, 7, 20e-6, 10e-6, 100e-6);
    call(&p, 3, 30e-6, 20e-6, 5e-6);

    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    /* relu 1 launched at 20 us, runs 5 + 5 us gap -> 30; mm launched at
     * 30 us, 100 + 5 -> 135; relu 2 launched at 50 us waits -> 145;
     * host done at 50 us; + 5 us sync = 150 us (the totals alone, max(110,
     * 50) + 5, would say 115 us) */
    assert_close(e.pass_time_s, 150e-6, 1e-9);
    /* a host-bound order: the mm first, then the host is slow */
    p.calls[0].op_id = 7;
    p.calls[0].host_s = 10e-6;
    p.calls[0].device_s = 100e-6;
    p.calls[1].op_id = 3;
    p.calls[1].host_start_s = 10e-6;
    p.calls[1].host_s = 200e-6;
    p.calls[1].device_s = 5e-6;
    p.calls[2].host_start_s = 210e-6;
    /* mm launched at 10 us -> 115; relu launched at 210 -> 220; relu at
     * 230 -> 240; + 5 us sync = 245 us */
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    assert_close(e.pass_time_s, 245e-6, 1e-9);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* A CPU trace on a GPU: a call whose result the host reads (nonzero's
 * count) waits for the device's queue, so after a long GEMM the next calls
 * are issued only once it is done: the device then waits for their
 * dispatch.  The same order without the sync overlaps them. */
static void test_replay_sync(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    struct profile p;
    profile_init(&p);
    p.steps = 1;
    p.framework = xstrdup("PyTorch");
    struct op *a = add(&p, "aten::mm", OP_GEMM, 1);
    a->id = 1;
    a->m = a->n = a->k = 1000;
    a->flops = 2e9;                             /* 200 us at 10 TFLOP/s */
    struct op *b = add(&p, "aten::nonzero", OP_ELEMENTWISE, 1);
    b->id = 2;
    b->bytes = 1e3;
    struct op *r = add(&p, "aten::relu", OP_ELEMENTWISE, 1);
    r->id = 3;
    r->bytes = 1e3;
    call(&p, 1, 0, 1e-3, 0);
    call(&p, 2, 1e-3, 1e-3, 0);
    call(&p, 3, 2e-3, 1e-3, 0);
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    double with_sync = e.pass_time_s;
    /* the GEMM launched after its dispatch (0.49 + 2.02 x 2.08 bare adds of
     * 20 us, est_host.c) runs to then + its time; nonzero's dispatch (an
     * op the traces did not measure: 2.57) starts then, relu's (0.49 +
     * 0.93 x 2.08) after it: the device ends at the GEMM's end + both
     * dispatches + relu's time */
    double rs = e.host_repeat_scale;          /* 3 calls of 3 records: 1.191 */
    assert_close(rs, pow(1 / 3.87, -0.129), 1e-12);
    double dispatch = (0.49 + 2.02 * 2.08) * m.dispatch_s * rs;
    double gemm_end = dispatch + e.ops[0].device_s;
    double rest = (2.57 + 0.49 + 0.93 * 2.08) * m.dispatch_s * rs;
    assert_close(with_sync, gemm_end + rest + e.ops[2].device_s + e.sync_s, 1e-9);
    free(p.ops[1].name);
    p.ops[1].name = xstrdup("aten::abs");
    assert_int_equal(estimate_profile(&p, &m, NULL, NULL, &e, &d), 0);
    /* queued behind the GEMM: its end + the two small kernels */
    assert_close(e.pass_time_s, gemm_end + e.ops[1].device_s + e.ops[2].device_s + e.sync_s, 1e-9);
    assert_true(with_sync > e.pass_time_s + dispatch);
    assert_true(ops_syncs_host("aten::_local_scalar_dense"));
    assert_false(ops_syncs_host("aten::nonzero_static"));
    assert_false(ops_syncs_host("nonzero"));
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* Host calibration: two host-bound relu calls of 100 us each (the
 * profiler's 100 us already taken out) replay to 200f + 10 us of device
 * end + 5 us sync with the host at f times the trace's; a measured step
 * of 115 us gives f = 0.5, one above what the trace with the profiler's
 * cost left in allows (f = 1.5) stops there, one below the device's
 * work keeps the host as traced, and a CPU trace has nothing to scale. */
static void test_host_calibration(void **state)
{
    (void)state;
    struct machine m;
    struct profile p;
    gpu_step(&m, &p);
    p.device_name = xstrdup("Test GPU");
    p.host_time_s = 200e-6;
    p.profiler_host_s = 100e-6;
    struct op *a = add(&p, "aten::relu", OP_ELEMENTWISE, 2);
    a->id = 3;
    a->device_time_s = 10e-6;
    a->host_time_s = 200e-6;
    a->kernels = 2;
    call(&p, 3, 0, 100e-6, 5e-6);
    call(&p, 3, 100e-6, 100e-6, 5e-6);
    struct estimate_opts o;
    estimate_opts_init(&o);
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_NONE);
    assert_close(e.pass_time_s, 215e-6, 1e-9);
    o.measured_step_s = 115e-6;
    o.measured_step_from = "x.meta.json";
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_APPLIED);
    assert_string_equal(e.calib_from, "x.meta.json");
    assert_close(e.host_scale, 0.5, 1e-6);
    assert_close(e.calib_replay_s, 215e-6, 1e-9);
    assert_close(e.pass_time_s, 115e-6, 1e-9);
    assert_close(e.host_time_s, 100e-6, 1e-9);
    assert_close(e.ops[0].host_s, 100e-6, 1e-9);
    o.measured_step_s = 500e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_CLAMPED);
    assert_close(e.host_scale, 1.5, 1e-12);
    assert_close(e.host_scale_max, 1.5, 1e-12);
    assert_close(e.pass_time_s, 315e-6, 1e-9);
    /* the least host (1/64 of it) launches the first relu at 100/64 us,
     * the device runs both back to back: 100/64 + 2 x 10 + 5 us > 10 us;
     * the host's 200 us are held to the step, f = 0.05: launches at 5
     * and 10 us, the device done at 5 + 10 + 10, + 5 us sync = 30 us */
    o.measured_step_s = 10e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_CLAMPED);
    assert_close(e.host_scale, 0.05, 1e-12);
    assert_close(e.calib_floor_s, 100e-6 / 64 + 25e-6, 1e-9);
    assert_close(e.pass_time_s, 30e-6, 1e-9);
    /* the measured median is met even where its interval holds the
     * trace's own replay; the interval is said beside it */
    o.measured_step_s = 205e-6;
    o.measured_step_lo_s = 200e-6;
    o.measured_step_hi_s = 220e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_APPLIED);
    assert_close(e.pass_time_s, 205e-6, 1e-9);
    assert_close(e.calib_lo_s, 200e-6, 0);
    assert_close(e.calib_hi_s, 220e-6, 0);
    o.measured_step_lo_s = o.measured_step_hi_s = 0;
    /* a step the trace replays to already: nothing moves */
    o.measured_step_s = 215e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_APPLIED);
    assert_close(e.host_scale, 1, 1e-6);
    p.has_device = 0;
    o.measured_step_s = 115e-6;
    assert_int_equal(estimate_profile(&p, &m, NULL, &o, &e, &d), 0);
    assert_int_equal(e.calib, CALIB_NOT_APPLICABLE);
    assert_close(e.host_scale, 1, 0);
    estimate_release(&e);
    profile_release(&p);
    fclose(fp);
}

/* Physics limits: a table row faster than the target's roofline is held to
 * it (and says so), and a measured op moved to another GPU at the same shape
 * changes by no more than the machines' spec ratios allow. */
static void test_limits(void **state)
{
    (void)state;
    struct machine m;
    gpu(&m, "Test GPU");
    m.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;   /* fp32: 10 TFLOP/s at best */
    struct kernel_set ks;
    kernel_set_init(&ks);
    kernel_set_get(&ks, "Test GPU");
    /* 2 GFLOP in 100 us would be 21 TFLOP/s: faster than the machine */
    gemm_row(&ks.tables[0], PREC_FP32, 1024, 1024, 1024, 100e-6);
    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::mm", OP_GEMM, 1);
    o->m = o->n = o->k = 1024;
    o->a_t = o->b_t = 'N';
    o->flops = 2.0 * 1024 * 1024 * 1024;
    o->time_s = 0.5;
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    assert_int_equal(estimate_profile(&p, &m, &ks, NULL, &e, &d), 0);
    assert_close(e.ops[0].device_s, o->flops / 10e12, 1e-12);
    assert_true(e.ops[0].limits & (1u << LIMIT_ROOFLINE));
    assert_int_equal(e.limit_ops[LIMIT_ROOFLINE], 1);

    /* the same op measured at 400 us on a source GPU of the same peak and
     * half the bandwidth: on the target it takes between 0.5x (bandwidth)
     * and 1x (peak, launch) of that, whatever the table says (250 us here
     * would be within; 100 us is below 0.5 x 400 us) */
    struct machine src;
    gpu(&src, "Source GPU");
    static struct mem_level slow = { "HBM", 80e9, 0.5e12 };
    src.mem = &slow;
    src.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;
    m.peak_flops[PREC_FP32][EXEC_VECTOR] = 100e12;
    src.peak_flops[PREC_FP32][EXEC_VECTOR] = 100e12;
    p.has_device = 1;
    p.device_name = xstrdup("Source GPU");
    o->device_time_s = 400e-6;
    o->host_time_s = 10e-6;
    struct estimate_opts eo;
    estimate_opts_init(&eo);
    eo.source = &src;
    assert_int_equal(estimate_profile(&p, &m, &ks, &eo, &e, &d), 0);
    assert_close(e.ops[0].device_s, 200e-6, 1e-12);
    assert_true(e.ops[0].limits & (1u << LIMIT_RATIO_LOW));
    assert_int_equal(e.limit_ops[LIMIT_RATIO_LOW], 1);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    fclose(fp);
}

/* A machine file alone: the efficiency model takes the fraction of its peak
 * another machine's table achieves at the op's size and intensity (here
 * 25%: a 1024^3 GEMM in 4 x its peak time) and applies it to the target's
 * peak, never the target's own table; the output says so.  With
 * per_call 0 the other table's rows were timed queued and the row of the
 * op's own shape is nearer measured data: the op is that row moved by the
 * two peaks (scaled-table), said in a warning. */
/* A square fp32 product n x n x n, its flops and least bytes, taking
 * time_s on the profiled machine. */
static struct op *mm_op(struct profile *p, int64_t n, double time_s)
{
    struct op *o = add(p, "aten::mm", OP_GEMM, 1);
    o->m = o->n = o->k = n;
    o->a_t = o->b_t = 'N';
    o->flops = 2.0 * (double)n * (double)n * (double)n;
    o->bytes = 3.0 * (double)n * (double)n * 4;
    o->time_s = time_s;
    return o;
}

/* Options whose reference tables are refs, measured on ref; the target
 * tgt is named among the reference machines too (its own tables, where
 * refs has them, are never learned from). */
static void with_reference(struct estimate_opts *eo, struct kernel_set *refs, struct machine ms[2],
                           const struct machine *ref, const struct machine *tgt)
{
    estimate_opts_init(eo);
    ms[0] = *ref;
    ms[1] = *tgt;
    eo->reference = refs;
    eo->ref_machines = ms;
    eo->n_ref_machines = 2;
}

/* Estimate p on tgt (its own tables own, NULL for none) with refs,
 * measured on ref, as the reference tables, at precision prec
 * (PREC_UNKNOWN: the profile's own); the estimate must succeed.  The
 * caller releases *e and closes *fp, the quiet diagnostics' stream. */
static void estimate_with_reference(struct profile *p, struct kernel_set *own, struct kernel_set *refs,
                                    const struct machine *ref, const struct machine *tgt,
                                    enum precision prec, struct estimate *e, FILE **fp)
{
    struct estimate_opts eo;
    struct machine ms[2];
    with_reference(&eo, refs, ms, ref, tgt);
    eo.precision = prec;
    estimate_init(e);
    struct diag d = quiet(fp);
    assert_int_equal(estimate_profile(p, tgt, own, &eo, e, &d), 0);
}

static void efficiency_or_peer(int per_call)
{
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    tgt.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;
    ref.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;
    tgt.peak_flops[PREC_FP32][EXEC_VECTOR] = 20e12;
    double f1 = 2.0 * 1024 * 1024 * 1024;
    struct kernel_set refs;
    kernel_set_init(&refs);
    kernel_set_get(&refs, "Ref GPU");
    gemm_row(&refs.tables[0], PREC_FP32, 1024, 1024, 1024, 4 * f1 / 10e12);
    if (per_call)
        refs.tables[0].software = xstrdup(KERNEL_TIMED_PER_CALL);
    kernel_set_get(&refs, "Target GPU");     /* the target's own: never learned from */
    gemm_row(&refs.tables[1], PREC_FP32, 1024, 1024, 1024, 1e-3);
    struct profile p;
    profile_init(&p);
    mm_op(&p, 1024, 0.5);
    struct estimate e;
    FILE *fp;
    estimate_with_reference(&p, NULL, &refs, &ref, &tgt, PREC_UNKNOWN, &e, &fp);
    if (per_call) {
        assert_int_equal(e.ops[0].method, EST_EFFICIENCY);
        /* 25% of 20 TFLOP/s, plus one launch (the limit of a model method) */
        assert_close(e.ops[0].device_s, f1 / (0.25 * 20e12), 1e-9);
        assert_false(warned(&e, "rows measure at their shape"));
        assert_true(e.efficiency_model);
        assert_true(warned(&e, "efficiency model"));
    } else {
        assert_int_equal(e.ops[0].method, EST_SCALED_TABLE);
        /* the row's time by the peaks' ratio, ref's over the target's */
        double rp = ref.peak_flops[PREC_FP32][EXEC_VECTOR] / tgt.peak_flops[PREC_FP32][EXEC_VECTOR];
        assert_close(e.ops[0].device_s, 4 * f1 / 10e12 * rp, 1e-9);
        assert_true(warned(&e, "'Ref GPU' rows measure at their shape"));
        assert_false(e.efficiency_model);
    }
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&refs);
    fclose(fp);
}

/* The efficiency model learns the ops that move rows through an index
 * apart, per precision: they take their own rows' fraction of the
 * bandwidth (bf16 no faster than fp32), and the stream's fraction that
 * every other op takes is the copies' alone. */
static void test_efficiency_indexed(void **state)
{
    (void)state;
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    tgt.launch_latency_s = 0;
    struct kernel_set refs;
    kernel_set_init(&refs);
    struct kernel_table *t = kernel_set_get(&refs, "Ref GPU");
    t->software = xstrdup(KERNEL_TIMED_PER_CALL);   /* no peer rows: the model alone */
    elt_row(t, "copy", PREC_FP32, 4e6, 5e-6);           /* 80% of 1 TB/s */
    elt_row(t, "index_add_", PREC_FP32, 4e6, 40e-6);    /* 10% */
    elt_row(t, "index_add_", PREC_BF16, 2e6, 40e-6);    /* 5%: no faster */
    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::index_add_", OP_ELEMENTWISE, 1);
    o->time_s = 1e-3;
    o->bytes = 4e6;
    snprintf(op_sizes_mut(o)->kop, sizeof op_sizes_mut(o)->kop, "index_add_");
    struct op *a = add(&p, "aten::add", OP_ELEMENTWISE, 1);
    a->time_s = 1e-4;
    a->bytes = 4e6;
    snprintf(op_sizes_mut(a)->kop, sizeof op_sizes_mut(a)->kop, "add");
    struct estimate_opts eo;
    struct machine ms[2];
    with_reference(&eo, &refs, ms, &ref, &tgt);
    struct estimate e;
    estimate_init(&e);
    FILE *fp;
    struct diag d = quiet(&fp);
    for (int bf16 = 0; bf16 < 2; bf16++) {
        eo.precision = bf16 ? PREC_BF16 : PREC_UNKNOWN;
        assert_int_equal(estimate_profile(&p, &tgt, NULL, &eo, &e, &d), 0);
        int seen = 0;
        for (size_t i = 0; i < e.n_ops; i++) {
            seen += strcmp(e.ops[i].name, "aten::index_add_") == 0;
            if (strcmp(e.ops[i].name, "aten::index_add_") == 0) {
                assert_int_equal(e.ops[i].method, EST_EFFICIENCY);
                /* 4 MB at 10% of 1 TB/s; bf16: 2 MB at 5% */
                assert_close(e.ops[i].device_s, 40e-6, 1e-9);
            } else if (strcmp(e.ops[i].name, "aten::add") == 0 && !bf16) {
                assert_int_equal(e.ops[i].method, EST_EFFICIENCY);
                assert_close(e.ops[i].device_s, 5e-6, 1e-9);  /* 80%, the copies' */
            }
        }
        assert_int_equal(seen, 1);
    }
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&refs);
    fclose(fp);
}

/* The efficiency model times attention from attention rows, not GEMM
 * ones: the fraction of the peak the reference's rows of its pass reach
 * (30% here) at its work, a head smaller than any row's padded to the
 * smallest (16 to 64: the work, hence the time, of a head of 64). */
static void test_efficiency_attention(void **state)
{
    (void)state;
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    tgt.launch_latency_s = 0;
    double pk = 100e12;     /* both machines' bf16 peak (gpu()) */
    struct kernel_set refs;
    kernel_set_init(&refs);
    struct kernel_table *t = kernel_set_get(&refs, "Ref GPU");
    t->software = xstrdup(KERNEL_TIMED_PER_CALL);   /* no peer rows: the model alone */
    for (int64_t seq = 512; seq <= 1024; seq *= 2) {
        struct kernel_row *r = kernel_table_add(t);
        r->kind = KERNEL_ATTENTION;
        r->prec = PREC_BF16;
        r->pass = KPASS_FWD;
        int64_t dim[5] = { 8, 16, seq, seq, 64 };
        memcpy(r->dim, dim, sizeof dim);
        r->time_s[0] = 4.0 * 8 * 16 * (double)seq * (double)seq * 64 / (0.3 * pk);
    }
    struct profile p;
    profile_init(&p);
    struct op *o = add(&p, "aten::_flash_attention_forward", OP_ATTENTION, 1);
    o->dtype = PREC_BF16;
    o->kflag = 0;
    o->time_s = 1e-3;
    int64_t q[5] = { 8, 16, 768, 768, 16 };
    memcpy(op_sizes_mut(o)->kdim, q, sizeof q);
    o->flops = 4.0 * 8 * 16 * 768 * 768 * 16;
    o->bytes = 4.0 * 8 * 16 * 768 * 16 * 2;
    struct estimate e;
    FILE *fp;
    estimate_with_reference(&p, NULL, &refs, &ref, &tgt, PREC_UNKNOWN, &e, &fp);
    assert_int_equal(e.ops[0].method, EST_EFFICIENCY);
    assert_close(e.ops[0].device_s, 4.0 * 8 * 16 * 768 * 768 * 64 / (0.3 * pk), 1e-9);
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&refs);
    fclose(fp);
}

static void test_efficiency_model(void **state)
{
    (void)state;
    efficiency_or_peer(1);
}

/* The efficiency model keeps GEMMs apart by the alignment class of their
 * rows: in bf16 an odd-sized product takes the fraction of the reference's
 * odd rows (5%), an aligned one the aligned rows' (25%), and one of sizes
 * 2 mod 4, a class no reference row measures, the aligned rows'. */
static void test_efficiency_alignment(void **state)
{
    (void)state;
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    double pk = 100e12;     /* both machines' bf16 peak (gpu()) */
    struct kernel_set refs;
    kernel_set_init(&refs);
    struct kernel_table *t = kernel_set_get(&refs, "Ref GPU");
    t->software = xstrdup(KERNEL_TIMED_PER_CALL);   /* no peer rows: the model alone */
    double f1 = 2.0 * 1024 * 1024 * 1024, f0 = 2.0 * 1021 * 1021 * 1021;
    gemm_row(t, PREC_BF16, 1024, 1024, 1024, f1 / (0.25 * pk));
    gemm_row(t, PREC_BF16, 1021, 1021, 1021, f0 / (0.05 * pk));
    static const struct { int64_t n; double frac; } cases[] = { { 1023, 0.05 }, { 1024, 0.25 },
                                                                { 1022, 0.25 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct profile p;
        profile_init(&p);
        mm_op(&p, cases[i].n, 0.5);
        struct estimate e;
        FILE *fp;
        estimate_with_reference(&p, NULL, &refs, &ref, &tgt, PREC_BF16, &e, &fp);
        int seen = 0;
        for (size_t k = 0; k < e.n_ops; k++) {
            if (strcmp(e.ops[k].name, "aten::mm") != 0)
                continue;
            seen++;
            assert_int_equal(e.ops[k].method, EST_EFFICIENCY);
            double n = (double)cases[i].n;
            assert_close(e.ops[k].device_s, 2 * n * n * n / (cases[i].frac * pk), 1e-9);
        }
        assert_int_equal(seen, 1);
        estimate_release(&e);
        profile_release(&p);
        fclose(fp);
    }
    kernel_set_release(&refs);
}

static void test_peer_rows(void **state)
{
    (void)state;
    efficiency_or_peer(0);
}

/* A target with tables of its own that do not reach an op (rows only far
 * above it) takes the op from another GPU's row at its shape, moved by
 * the two machines' peaks; an op past the target's largest rows and past
 * the peer's too keeps the target's own rate (a scaled measurement of its
 * own): the peer's rate carried past its rows ties with it, and the tie
 * goes to the target's rows. */
static void test_peer_rows_beside_own_table(void **state)
{
    (void)state;
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    tgt.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;
    ref.peak_flops[PREC_TF32][EXEC_MATRIX] = 0;
    tgt.peak_flops[PREC_FP32][EXEC_VECTOR] = 20e12;
    tgt.launch_latency_s = ref.launch_latency_s = 0;
    struct kernel_set own, refs;
    kernel_set_init(&own);
    kernel_set_init(&refs);
    gemm_row(kernel_set_get(&own, "Target GPU"), PREC_FP32, 1024, 1024, 1024, 200e-6);
    gemm_row(kernel_set_get(&refs, "Ref GPU"), PREC_FP32, 64, 64, 64, 8e-6);
    struct profile p;
    profile_init(&p);
    mm_op(&p, 64, 1e-3);
    mm_op(&p, 2048, 1.0);
    struct estimate e;
    FILE *fp;
    estimate_with_reference(&p, &own, &refs, &ref, &tgt, PREC_UNKNOWN, &e, &fp);
    int seen = 0;
    for (size_t i = 0; i < e.n_ops; i++) {
        if (e.ops[i].flops < 1e6) {
            /* 8 us at the ref's 10 TFLOP/s, the target's 20: 4 us */
            assert_int_equal(e.ops[i].method, EST_SCALED_TABLE);
            assert_close(e.ops[i].device_s, 4e-6, 1e-9);
            seen++;
        } else {
            /* 8x the work of the target's own 1024^3 row at its rate */
            assert_int_not_equal(e.ops[i].method, EST_SCALED_TABLE);
            assert_close(e.ops[i].device_s, 8 * 200e-6, 1e-6);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    assert_true(warned(&e, "tables of 'testgpu' do not reach"));
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&own);
    kernel_set_release(&refs);
    fclose(fp);
}

/* An op past the target's own rows that a peer GPU measures at its size
 * takes the peer's row, not the target's rate carried past its rows: a
 * batch norm forward over [64, 16, 4096], the target's rows at batches 1
 * and 2 (10 us a sample), the peer's at 32, 64 and 128 (1 us a sample).
 * The peer's 64 us moves by the two machines' specs: the share f of it
 * that is the bytes at the peer's 1 TB/s by the bandwidth ratio (1), the
 * rest by the fp32 vector peaks (10 against the target's 20 TFLOP/s:
 * 0.5).  The target's own rate would give 640 us. */
static void test_peer_rows_past_own_table(void **state)
{
    (void)state;
    struct machine tgt, ref;
    gpu(&tgt, "Target GPU");
    gpu(&ref, "Ref GPU");
    tgt.peak_flops[PREC_FP32][EXEC_VECTOR] = 20e12;
    tgt.launch_latency_s = ref.launch_latency_s = 0;
    struct kernel_set own, refs;
    kernel_set_init(&own);
    kernel_set_init(&refs);
    for (int64_t n = 1; n <= 2; n++)
        norm_row(kernel_set_get(&own, "Target GPU"), "batch_norm", n, 16, 4096,
                 10e-6 * (double)n)->pass = KPASS_FWD;
    for (int64_t n = 32; n <= 128; n *= 2)
        norm_row(kernel_set_get(&refs, "Ref GPU"), "batch_norm", n, 16, 4096,
                 1e-6 * (double)n)->pass = KPASS_FWD;
    struct profile p;
    norm_profile(&p, "aten::native_batch_norm", "batch_norm", 64, 16, 4096, 0);
    p.has_device = 0;
    struct estimate e;
    FILE *fp;
    estimate_with_reference(&p, &own, &refs, &ref, &tgt, PREC_UNKNOWN, &e, &fp);
    const struct op_estimate *on = est_named(&e, "aten::native_batch_norm");
    assert_non_null(on);
    assert_int_equal(on->method, EST_SCALED_TABLE);
    double f = p.ops[0].bytes / 1e12 / 64e-6;
    assert_close(on->device_s, 64e-6 * (f + (1 - f) * 0.5), 1e-9);
    assert_close(on->distance, 2.0, 1e-12);
    assert_true(warned(&e, "rows only below or above their size"));
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&own);
    kernel_set_release(&refs);
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_hit),
        cmocka_unit_test(test_roofline_bounds),
        cmocka_unit_test(test_bound_rule),
        cmocka_unit_test(test_host_bound_same_device),
        cmocka_unit_test(test_precision_fallback_warns),
        cmocka_unit_test(test_complex_ops),
        cmocka_unit_test(test_batch_rescale),
        cmocka_unit_test(test_resample_by_bytes),
        cmocka_unit_test(test_resample_rows),
        cmocka_unit_test(test_scaled_table),
        cmocka_unit_test(test_gemm_past_rows),
        cmocka_unit_test(test_batched_rows),
        cmocka_unit_test(test_rnn_persistent),
        cmocka_unit_test(test_rnn_projection),
        cmocka_unit_test(test_grouped_as_dense),
        cmocka_unit_test(test_autocast_conv_bias),
        cmocka_unit_test(test_autocast_flow),
        cmocka_unit_test(test_autocast_concat),
        cmocka_unit_test(test_autocast_softmax),
        cmocka_unit_test(test_autocast_promotion),
        cmocka_unit_test(test_scaled_table_batch),
        cmocka_unit_test(test_cpu_view_ops),
        cmocka_unit_test(test_cpu_host_weights),
        cmocka_unit_test(test_cpu_op_host_rows),
        cmocka_unit_test(test_cpu_host_repeat),
        cmocka_unit_test(test_cpu_multi_kernel),
        cmocka_unit_test(test_indexed_rows),
        cmocka_unit_test(test_instance_norm_batch),
        cmocka_unit_test(test_idle_rows),
        cmocka_unit_test(test_extrapolated_ratio),
        cmocka_unit_test(test_efficiency_indexed),
        cmocka_unit_test(test_peer_rows_beside_own_table),
        cmocka_unit_test(test_peer_rows_past_own_table),
        cmocka_unit_test(test_keep_measured_warning),
        cmocka_unit_test(test_scaled_last_resort),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_replay_sync),
        cmocka_unit_test(test_host_calibration),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_efficiency_model),
        cmocka_unit_test(test_efficiency_attention),
        cmocka_unit_test(test_efficiency_alignment),
        cmocka_unit_test(test_peer_rows),
        cmocka_unit_test(test_conv_bias),
        cmocka_unit_test(test_dilation_unmeasured),
        cmocka_unit_test(test_conv_1d_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
