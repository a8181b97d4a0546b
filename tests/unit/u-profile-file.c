/* Reading back saved profiles (JSON and CSV). */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/xalloc.h"
#include "ingest/ingest.h"
#include "model/profile.h"
#include "report/profile_render.h"

#include "reader_run.h"

static void build(struct profile *p)
{
    profile_init(p);
    p->format = strdup("kineto");
    p->source = strdup("traces/a,b \"q\".json");
    p->device_name = strdup("NVIDIA H200");
    p->framework = strdup("PyTorch 2.11.0");
    p->steps = 2;
    p->batch = 100;
    p->has_device = 1;
    p->dtype = PREC_FP32;
    p->total_time_s = 0.00125;
    p->step_time_s = 0.0016;
    p->host_time_s = 0.0009;
    p->coverage = 0.97;
    p->dropped_time_s = 0.0000375;
    p->dropped_ops = 4;
    struct op *g = profile_add_op(p);
    g->name = strdup("aten::addmm");
    g->kind = OP_GEMM;
    g->phase = PHASE_FORWARD;
    g->dtype = PREC_FP32;
    g->count = 1;
    g->time_s = 0.000357197;
    g->device_time_s = 0.000357197;
    g->host_time_s = 5.39175e-05;
    g->kernels = 1;
    g->flops = 5906400000;
    g->bytes = 130341200;
    g->m = 100; g->n = 1000; g->k = 29532; g->batch = 1;
    g->a_t = 'N'; g->b_t = 'T';
    g->shapes = strdup("[1000], [100, 29532], [29532, 1000], [], []");
    g->flags = strdup("ambiguous-orientation,x");
    struct op *c = profile_add_op(p);
    c->name = strdup("aten::cudnn_convolution");
    c->kind = OP_CONV;
    c->phase = PHASE_BACKWARD;
    c->dtype = PREC_BF16;
    c->count = 53;
    c->time_s = 0.0008;
    c->device_time_s = 0.0008;
    c->host_time_s = 0.0001;
    c->kernels = 106;
    c->flops = 1.5e12;
    c->bytes = 3e8;
    struct conv_shape cs = { 64, 3, 224, 224, 64, 7, 7, 2, 2, 3, 3, 1, 1, 1, 112, 112, 0, 0, 0, 0, 0, 0, 0 };
    *op_conv_mut(c) = cs;
    c->shapes = strdup("[64, 3, 224, 224], [64, 3, 7, 7]");
    struct op *e = profile_add_op(p);
    e->name = strdup("Optimizer \"step\"\nline2");
    e->kind = OP_OPTIMIZER;
    e->phase = PHASE_OPTIMIZER;
    e->count = 0.5;
    e->time_s = 0.0000925;
    e->host_time_s = 0.0000925;
    g->id = 7;
    c->id = 3;
    e->id = 12;
    /* Times that need all 17 digits, a subnormal, and a call of an op
     * that --top dropped (id 40 names none of the ops). */
    const struct op_call calls[] = {
        { 7, 0, 0, 3.1109e-05, 0.000357437, 0 },
        { 3, 0, 4.9327000000000004e-05, 0.1 + 0.2, 1.0 / 3.0, 0 },
        { 40, 0, 0.00013153900000000002, 2.0 / 7.0, 0, 0 },
        { 12, 1, 1e-300, 5e-324, 1.7976931348623157e308, 0 },
        { 7, 1, 0.0012305780000000002, 1.7075e-05, 9.772800000000001e-05, 0 },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        ALLOC_GROW(p->calls, p->n_calls + 1, p->alloc_calls);
        p->calls[p->n_calls++] = calls[i];
    }
}

/* Bit for bit: the estimator replays these times. */
static void same_double(double a, double b)
{
    if (memcmp(&a, &b, sizeof a) != 0)
        fail_msg("%.17g read back as %.17g", a, b);
}

static void same_str(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void compare(const struct profile *a, const struct profile *b)
{
    same_str(a->format, b->format);
    same_str(a->device_name, b->device_name);
    same_str(a->framework, b->framework);
    assert_int_equal(a->steps, b->steps);
    assert_int_equal(a->batch, b->batch);
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->has_device, b->has_device);
    assert_close(b->total_time_s, a->total_time_s, 1e-9);
    assert_close(b->step_time_s, a->step_time_s, 1e-9);
    assert_close(b->host_time_s, a->host_time_s, 1e-9);
    assert_close(b->coverage, a->coverage, 1e-9);
    assert_close(b->dropped_time_s, a->dropped_time_s, 1e-9);
    assert_int_equal(a->dropped_ops, b->dropped_ops);
    assert_int_equal(a->n_ops, b->n_ops);
    for (size_t i = 0; i < a->n_ops; i++) {
        const struct op *x = &a->ops[i], *y = &b->ops[i];
        same_str(x->name, y->name);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->phase, y->phase);
        assert_int_equal(x->dtype, y->dtype);
        assert_close(y->count, x->count, 1e-9);
        assert_close(y->time_s, x->time_s, 1e-9);
        assert_close(y->device_time_s, x->device_time_s, 1e-9);
        assert_close(y->host_time_s, x->host_time_s, 1e-9);
        assert_close(y->kernels, x->kernels, 1e-9);
        assert_close(y->flops, x->flops, 1e-9);
        assert_close(y->bytes, x->bytes, 1e-9);
        assert_int_equal(x->m, y->m);
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->k, y->k);
        assert_int_equal(x->batch, y->batch);
        assert_int_equal(x->a_t, y->a_t);
        assert_int_equal(x->b_t, y->b_t);
        assert_memory_equal(op_conv(x), op_conv(y), sizeof(struct conv_shape));
        same_str(x->shapes, y->shapes);
        same_str(x->flags, y->flags);
        assert_int_equal(x->id, y->id);
    }
    assert_int_equal(a->n_calls, b->n_calls);
    for (size_t i = 0; i < a->n_calls; i++) {
        const struct op_call *x = &a->calls[i], *y = &b->calls[i];
        /* the dropped op's call: an id above every op's (12) */
        assert_int_equal(y->op_id, x->op_id == 40 ? 13 : x->op_id);
        assert_int_equal(x->step, y->step);
        same_double(x->host_start_s, y->host_start_s);
        same_double(x->host_s, y->host_s);
        same_double(x->device_s, y->device_s);
    }
}

static void round_trip(enum out_format f)
{
    struct profile p;
    build(&p);
    struct run r = { 0 };
    strcpy(r.path, "/tmp/u-profile-file-XXXXXX");
    int fd = mkstemp(r.path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    profile_render(fp, &p, f);
    fclose(fp);
    run_on(&r, profile_file_read, r.path, 0);
    if (r.rc)
        fail_msg("%s", r.msg);
    assert_string_equal(r.msg, "");
    compare(&p, &r.p);
    run_done(&r);
    profile_release(&p);
}

static void test_round_trip_json(void **state) { (void)state; round_trip(FMT_JSON); }
static void test_round_trip_csv(void **state) { (void)state; round_trip(FMT_CSV); }

/* Written by hand: keys in another order, unknown keys with nested values,
 * nulls, the conv object, p and q left for the reader to work out. */
static void test_json_by_hand(void **state)
{
    (void)state;
    struct run r = { 0 };
    run_text(&r, profile_file_read,
             "{\"ops\":[{\"flags\":null,\"kind\":\"conv\",\"extra\":{\"a\":[1,[2,{}]]},\"name\":\"c\","
             "\"count\":2,\"time_s\":0.25,\"conv\":{\"n\":8,\"c\":3,\"h\":32,\"w\":32,\"k\":16,\"r\":3,\"s\":3,"
             "\"stride_h\":2,\"stride_w\":2,\"pad_h\":1,\"pad_w\":1,\"dil_h\":1,\"dil_w\":1,\"groups\":1},"
             "\"a_t\":\"\",\"phase\":\"backward\"}],"
             "\"future\":[true,false,null],\"steps\":3,\"format\":\"tfprof\",\"device\":null}\n",
             0);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.p.format, "tfprof");
    assert_int_equal(r.p.steps, 3);
    assert_null(r.p.device_name);
    assert_false(r.p.has_device);
    assert_int_equal(r.p.n_ops, 1);
    const struct op *c = &r.p.ops[0];
    assert_string_equal(c->name, "c");
    assert_int_equal(c->kind, OP_CONV);
    assert_int_equal(c->phase, PHASE_BACKWARD);
    assert_close(c->count, 2, 0);
    assert_null(c->flags);
    assert_int_equal(c->a_t, 0);
    /* (32 + 2*1 - 1*(3-1) - 1) / 2 + 1 = 16 */
    assert_int_equal(op_conv(c)->p, 16);
    assert_int_equal(op_conv(c)->q, 16);
    assert_close(r.p.total_time_s, 0.25, 1e-15);   /* not in the file: the sum */
    assert_close(r.p.coverage, 1.0, 0);
    run_done(&r);
}

static void test_csv_by_hand(void **state)
{
    (void)state;
    struct run r = { 0 };
    run_text(&r, profile_file_read,
             "# format: pt-table\n"
             "# device: null\n"
             "# steps: 2\n"
             "# batch: 100\n"
             "name,time_s [s],kind,count,flops [FLOP],shapes,future\n"
             "\"a,b\",0.5,gemm,3,1e9,\"[1, 2], [2, 3]\",x\n"
             "\r\n"
             "\"multi\n\"\"line\"\"\",0.25,other,1,,,\n",
             0);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.p.format, "pt-table");
    assert_int_equal(r.p.steps, 2);
    assert_int_equal(r.p.batch, 100);
    assert_int_equal(r.p.n_ops, 2);
    assert_string_equal(r.p.ops[0].name, "a,b");
    assert_string_equal(r.p.ops[0].shapes, "[1, 2], [2, 3]");
    assert_close(r.p.ops[0].flops, 1e9, 0);
    assert_close(r.p.ops[0].count, 3, 0);
    assert_string_equal(r.p.ops[1].name, "multi\n\"line\"");
    assert_close(r.p.ops[1].flops, 0, 0);
    assert_close(r.p.total_time_s, 0.75, 1e-15);
    run_done(&r);
}

/* Calls before the ops, a dropped op's call (null), csv calls before and
 * after the header; old files without ids or calls still read. */
static void test_calls_by_hand(void **state)
{
    (void)state;
    struct run r = { 0 };
    run_text(&r, profile_file_read,
             "{\"calls\":[[5,0,0.5,0.25,0.125],[null,1,0,1e-3,0]],"
             "\"ops\":[{\"name\":\"a\",\"id\":5},{\"name\":\"b\",\"id\":2}]}", 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_ops, 2);
    assert_int_equal(r.p.ops[0].id, 5);
    assert_int_equal(r.p.ops[1].id, 2);
    assert_int_equal(r.p.n_calls, 2);
    assert_int_equal(r.p.calls[0].op_id, 5);
    assert_int_equal(r.p.calls[0].step, 0);
    assert_close(r.p.calls[0].host_start_s, 0.5, 0);
    assert_close(r.p.calls[0].host_s, 0.25, 0);
    assert_close(r.p.calls[0].device_s, 0.125, 0);
    assert_int_equal(r.p.calls[1].op_id, 6);
    assert_int_equal(r.p.calls[1].step, 1);
    assert_close(r.p.calls[1].host_s, 1e-3, 0);
    run_done(&r);

    run_text(&r, profile_file_read,
             "# call: 1, 0, 0, 2.5e-6, 1e-6\n"
             "name,id\n"
             "a,1\n"
             "# call: ,0,1,2,3\n", 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_calls, 2);
    assert_int_equal(r.p.calls[0].op_id, 1);
    assert_close(r.p.calls[0].host_s, 2.5e-6, 0);
    assert_close(r.p.calls[0].device_s, 1e-6, 0);
    assert_int_equal(r.p.calls[1].op_id, 2);
    assert_close(r.p.calls[1].device_s, 3, 0);
    run_done(&r);

    run_text(&r, profile_file_read, "name,kind\na,gemm\nb,gemm\n", 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.n_calls, 0);
    assert_null(r.p.calls);
    run_done(&r);
}

static void test_bad_calls(void **state)
{
    (void)state;
    expect_error(profile_file_read, "{\"ops\":[{\"name\":\"a\",\"id\":1}],\"calls\":[[2,0,0,0,0]]}",
                 ": byte 39: error: found a call of op id 2, expected the id of an op", "--top");
    expect_error(profile_file_read,
                 "{\"calls\":[[1,0,0,0,0],[2,0,0,0,0]],\"ops\":[{\"name\":\"a\",\"id\":1}]}",
                 ": byte 23: error: found a call of op id 2", "");
    expect_error(profile_file_read,
                 "{\"ops\":[{\"name\":\"a\",\"id\":1},{\"name\":\"b\",\"id\":1}],\"calls\":[[1,0,0,0,0]]}",
                 ": byte 29: error: found op id 1 a second time", "distinct");
    expect_error(profile_file_read, "{\"ops\":[],\"calls\":[[1,0,0,0]]}",
                 ": byte 28: error: found a call of 4 numbers, expected 5", "");
    expect_error(profile_file_read, "{\"ops\":[],\"calls\":[[1,-1,0,0,0]]}",
                 ": byte 24: error: found -1 as a call's step", "");
    expect_error(profile_file_read, "{\"ops\":[],\"calls\":[{}]}",
                 ": byte 20: error: found an object inside \"calls\"", "");
    expect_error(profile_file_read, "{\"ops\":[],\"calls\":[[1,0,0,0,0,0]]}",
                 ": byte 31: error: found 0 after a call's 5 numbers", "");
    expect_error(profile_file_read, "{\"ops\":[],\"calls\":[3]}",
                 ": byte 20: error: found 3 inside \"calls\"", "");
    expect_error(profile_file_read, "name,id\na,1\n# call: 2,0,0,0,0\n",
                 ":3: error: found a call of op id 2, expected the id of an op", "");
    expect_error(profile_file_read, "name,id\na,1\nb,1\n# call: 1,0,0,0,0\n",
                 ":3: error: found op id 1 a second time", "");
    expect_error(profile_file_read, "name,id\na,1\n# call: 1,0,0,0\n",
                 ":3: error: found 4 numbers in a call, expected 5", "");
    expect_error(profile_file_read, "name,id\na,1\n# call: 1,0,0,0,0,0\n",
                 ":3: error: found more than 5 numbers in a call", "");
    expect_error(profile_file_read, "name,id\na,1\n# call: x,0,0,0,0\n",
                 ":3: error: found 'x' as a call's op_id", "op id");
    expect_error(profile_file_read, "name,id\na,1\n# call: 1,0,nan,0,0\n",
                 ":3: error: found 'nan' as a call's host_start_s", "finite");
    expect_error(profile_file_read, "name,id\na,16777216\n",
                 ":2: error: found '16777216' in column 'id'", "below 16777216");
}

static void test_bad(void **state)
{
    (void)state;
    expect_error(profile_file_read, "", ": error: found an empty file", "saved profile");
    expect_error(profile_file_read, "{\"ops\":[{\"name\":\"a\",\"kind\":\"gem\"}]}",
                 ": byte 32: error: found gem for \"kind\"", "expected a kind");
    expect_error(profile_file_read, "{\"ops\":[{\"name\":\"a\",\"time_s\":-1}]}",
                 ": byte 31: error: found -1 for \"time_s\"", ">= 0");
    expect_error(profile_file_read, "{\"ops\":[{\"kind\":\"gemm\"}]}",
                 ": byte 23: error: found an op without \"name\"", "");
    expect_error(profile_file_read, "{\"ops\":[{\"name\":\"a\",",
                 ": byte 20: error: found the end of the file inside a JSON value", "truncated");
    expect_error(profile_file_read, "{\"steps\":2}", ": byte 11: error: found no \"ops\" array", "");
    expect_error(profile_file_read, "{\"ops\" [", ": byte 8: error: found invalid JSON", "expected a saved profile");
    expect_error(profile_file_read, "name,kind\na,gemm,3\n", ":2: error: found 3 fields, expected 2", "");
    expect_error(profile_file_read, "name,kind,m\na,gemm,1.5\n", ":2: error: found '1.5' in column 'm'",
                 "whole number");
    expect_error(profile_file_read, "# steps: many\nname\n", ":1: error: found 'many' for 'steps'", "");
    expect_error(profile_file_read, "kind,time_s\ngemm,1\n", ":1: error: found a header without a 'name'",
                 "");
    expect_error(profile_file_read, "name,kind\n\"a,gemm\n", ":2: error: found a quoted field that is never closed",
                 "");
    expect_error(profile_file_read, "# format: x\n", ":1: error: found no header line", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_json),
        cmocka_unit_test(test_round_trip_csv),
        cmocka_unit_test(test_json_by_hand),
        cmocka_unit_test(test_csv_by_hand),
        cmocka_unit_test(test_calls_by_hand),
        cmocka_unit_test(test_bad_calls),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
