/* torch key_averages table reader. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "model/profile.h"

#include "reader_run.h"

/* tests/data/tables/small.table.txt, made for this test (see ORIGIN.md).
 * Steps: the host-side ProfilerStep* row says 2 (the GPU-side row's 4 is
 * ignored).  Per pass:
 *   aten::mm [[64, 32], [32, 16]]: 4 calls / 2 = 2; Self CUDA 2 ms / 2 = 1 ms;
 *     Self CPU 100 us / 2 = 50 us; flops 2*64*16*32 = 65536 per call x 2 =
 *     131072; bytes (64*32 + 32*16 + 64*16) x 4 B x 2 = 28672.
 *   kernel row (no CPU time): skipped.  aten::linear (a wrapper): skipped.
 *   cut name: kept, 2/2 = 1 call, host 1 ms / 2 = 0.5 ms, device 0.
 *   aten::addmm, cut shapes: flops from "Total MFLOPs" 0.131e6 / 2 = 65500.
 * total_time_s = 1 ms + 0 + 0.15 ms; step_time_s = 8 ms / 2;
 * host_time_s = Self CPU time total 2 ms / 2. */
static void test_small_table(void **state)
{
    (void)state;
    struct run r = { 0 };
    char buf[512];
    run_on(&r, pt_table_read, data_path("tables/small.table.txt", buf, sizeof buf), 0);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.p.format, "pt-table");
    assert_int_equal(r.p.steps, 2);
    assert_true(r.p.has_device);
    assert_int_equal(r.p.n_ops, 3);
    const struct op *mm = &r.p.ops[0], *cut = &r.p.ops[1], *am = &r.p.ops[2];
    assert_string_equal(mm->name, "aten::mm");
    assert_int_equal(mm->kind, OP_GEMM);
    assert_close(mm->count, 2, 0);
    assert_close(mm->time_s, 1e-3, 1e-12);
    assert_close(mm->device_time_s, 1e-3, 1e-12);
    assert_close(mm->host_time_s, 50e-6, 1e-12);
    assert_int_equal(mm->m, 64);
    assert_int_equal(mm->n, 16);
    assert_int_equal(mm->k, 32);
    assert_close(mm->flops, 131072.0, 1e-12);
    assert_close(mm->bytes, 28672.0, 1e-12);
    assert_null(mm->flags);
    assert_string_equal(cut->name, "aten::some_really_long_operator_name_that_was_c...");
    assert_true(has_flag(cut, "name-cut"));
    assert_close(cut->count, 1, 0);
    assert_close(cut->host_time_s, 0.5e-3, 1e-12);
    assert_close(cut->time_s, 0, 0);
    assert_string_equal(am->name, "aten::addmm");
    assert_true(has_flag(am, "shapes-cut"));
    assert_true(has_flag(am, "flops-from-table"));
    assert_close(am->flops, 65500.0, 1e-12);
    assert_close(am->time_s, 150e-6, 1e-12);
    assert_close(r.p.total_time_s, 1.15e-3, 1e-12);
    assert_close(r.p.step_time_s, 4e-3, 1e-12);
    assert_close(r.p.host_time_s, 1e-3, 1e-12);
    assert_non_null(strstr(r.msg, "small.table.txt:7: warning: op name 'aten::some_really_long"));
    assert_non_null(strstr(r.msg, "small.table.txt:8: warning: input shapes of 'aten::addmm' were cut"));
    /* the kernel row's cut name is not worth a warning: it is skipped */
    assert_null(strstr(r.msg, "sgemm_kernel"));
    run_done(&r);
}

/* The P1B3 PyTorch tables: the same 14 GEMMs per pass and 12.14583 GFLOP
 * as the seed's tfprof dump (see u-ingest-tf.c for the sum by hand; the
 * GPU table holds 2 steps, the CPU one 1). */
static void test_p1b3_tables(void **state)
{
    (void)state;
    static const char *const files[] = {
        "tables/p1b3_h200_fp32_b100.table.txt", "tables/p1b3_hostcpu_fp32_b100.table.txt",
    };
    static const int steps[] = { 2, 1 };
    for (int f = 0; f < 2; f++) {
        struct run r = { 0 };
        char buf[512];
        run_on(&r, pt_table_read, data_path(files[f], buf, sizeof buf), 0);
        assert_int_equal(r.rc, 0);
        assert_int_equal(r.p.steps, steps[f]);
        double count = 0, flops = 0;
        for (size_t i = 0; i < r.p.n_ops; i++)
            if (r.p.ops[i].kind == OP_GEMM) {
                count += r.p.ops[i].count;
                flops += r.p.ops[i].flops;
            }
        assert_close(count, 14, 1e-12);
        assert_close(flops, 12.14583e9, 1e-12);
        assert_string_equal(r.msg, "");
        run_done(&r);
    }
}

static const char *const hdr =
    "---------------  ------------  ------------  ------------  ------------\n"
    "           Name    Self CPU %      Self CPU     CPU total    # of Calls\n"
    "---------------  ------------  ------------  ------------  ------------\n";
static const char *const sep =
    "---------------  ------------  ------------  ------------  ------------\n";

static void test_no_step_row(void **state)
{
    (void)state;
    struct run r = { 0 };
    struct strbuf_ { char b[2048]; } t;
    snprintf(t.b, sizeof t.b, "%s%s%s", hdr,
             "       aten::mm        50.00%       1.500ms       2.000ms             3\n", sep);
    run_text(&r, pt_table_read, t.b, 0);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.p.steps, 1);
    assert_false(r.p.has_device);
    assert_int_equal(r.p.n_ops, 1);
    assert_close(r.p.ops[0].time_s, 1.5e-3, 1e-12);   /* host time: no device columns */
    assert_close(r.p.ops[0].count, 3, 0);
    assert_non_null(strstr(r.msg, ":2: warning: no ProfilerStep* row"));
    run_done(&r);
}

static void test_table_bad(void **state)
{
    (void)state;
    char b[2048];
    expect_error(pt_table_read, "", ": error: found an empty file", "key_averages");
    expect_error(pt_table_read, "hello\nworld\n", ":2: error: found no table header", "");
    /* cut inside the rows */
    snprintf(b, sizeof b, "%s%s", hdr,
             "       aten::mm        50.00%       1.500ms       2.000ms             3\n"
             "      aten::add        10.00%       1.2");
    expect_error(pt_table_read, b, ":5: error: found '1.2' in column 'Self CPU'", "a time");
    snprintf(b, sizeof b, "%s%s", hdr,
             "       aten::mm        50.00%       1.500ms       2.000ms             3\n");
    expect_error(pt_table_read, b, ":4: error: found the end of the file inside the table",
                 "truncated");
    snprintf(b, sizeof b, "%s%s%s", hdr,
             "       aten::mm        50.00%       1.500ms       2.000ms           3.5\n", sep);
    expect_error(pt_table_read, b, ":4: error: found '3.5' in column '# of Calls'", "whole");
    snprintf(b, sizeof b, "%s%s%s", hdr,
             "       aten::mm        50.00%        -1.0ms       2.000ms             3\n", sep);
    expect_error(pt_table_read, b, ":4: error: found '-1.0ms' in column 'Self CPU'", "");
    snprintf(b, sizeof b, "%s%s", hdr, "oops\n");
    expect_error(pt_table_read, b, ":4: error:", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_table),
        cmocka_unit_test(test_p1b3_tables),
        cmocka_unit_test(test_no_step_row),
        cmocka_unit_test(test_table_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
