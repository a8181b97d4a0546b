#include "test.h"

#include <math.h>

#include "model/rollup.h"
#include "model/study.h"
#include "run/study_eval.h"

static void test_minibatches(void **state)
{
    (void)state;
    assert_int_equal(rollup_minibatches(1000, 100), 10);
    /* a last partial batch is one more full pass */
    assert_int_equal(rollup_minibatches(1001, 100), 11);
    assert_int_equal(rollup_minibatches(99, 100), 1);
    assert_int_equal(rollup_minibatches(1, 1), 1);
    assert_int_equal(rollup_minibatches(0, 100), 0);
    assert_int_equal(rollup_minibatches(100, 0), 0);
    assert_int_equal(rollup_minibatches(-5, 10), 0);
}

static void test_chain(void **state)
{
    (void)state;
    /* 0.25 s per pass, 10,001 samples at batch 100 -> 101 passes,
     * 25.25 s per epoch, 20 epochs -> 505 s per run;
     * 86400 / 505 = 171.0891... runs per day per node; x 8 nodes. */
    double e = rollup_epoch_s(0.25, 10001, 100);
    assert_close(e, 25.25, 1e-15);
    double r = rollup_run_s(e, 20);
    assert_close(r, 505.0, 1e-15);
    assert_close(rollup_runs_per_day(r), 86400.0 / 505.0, 1e-15);
    assert_close(rollup_units_per_day(r, 8), 8 * 86400.0 / 505.0, 1e-15);
    assert_close(rollup_hours(r), 505.0 / 3600.0, 1e-15);
    /* the seed: 60 h per unit on 18,688 nodes is 24/60 x 18688 = 7475.2 a day */
    assert_close(rollup_units_per_day(60 * 3600.0, 18688), 7475.2, 1e-12);
}

static void test_invalid_is_nan(void **state)
{
    (void)state;
    assert_true(isnan(rollup_epoch_s(0, 100, 10)));
    assert_true(isnan(rollup_epoch_s(-1, 100, 10)));
    assert_true(isnan(rollup_epoch_s(NAN, 100, 10)));
    assert_true(isnan(rollup_epoch_s(1, 100, 0)));
    assert_true(isnan(rollup_run_s(1, 0)));
    assert_true(isnan(rollup_run_s(INFINITY, 1)));
    assert_true(isnan(rollup_runs_per_day(0)));
    assert_true(isnan(rollup_units_per_day(10, 0)));
    assert_true(isnan(rollup_units_per_day(10, -4)));
    assert_true(isnan(rollup_hours(-3)));
}

/* The glue an estimated problem will use: pass time -> hours per unit. */
/* 100M fp32 gradients (4e8 B) over 4 devices at 450 GB/s, 2 us latency:
 * 2 x 3/4 x 4e8 / 450e9 = 1.3333e-3 s, plus 2 x 3 x 2 us = 12 us. */
static void test_allreduce(void **state)
{
    (void)state;
    assert_close(rollup_allreduce_s(4e8, 4, 450e9, 2e-6), 1.5 * 4e8 / 450e9 + 12e-6, 1e-14);
    assert_true(rollup_allreduce_s(4e8, 1, 0, 0) == 0);     /* one device: nothing to reduce */
    assert_true(isnan(rollup_allreduce_s(4e8, 2, 0, 0)));   /* no link */
    assert_true(isnan(rollup_allreduce_s(-1, 2, 1e9, 0)));
    assert_true(isnan(rollup_allreduce_s(1, 0, 1e9, 0)));
}

static void test_workload_hours(void **state)
{
    (void)state;
    struct study_workload w = { 0 };
    w.present = 1;
    w.batch = 100;
    w.samples_per_epoch = 50001;    /* 501 passes */
    w.epochs = 3;
    /* 0.1 s x 501 x 3 = 150.3 s = 0.04175 h */
    assert_close(study_workload_hours(&w, 0.1), 0.04175, 1e-14);
    assert_true(isnan(study_workload_hours(&w, 0)));

    struct study_problem p = { 0 };
    p.epochs = 4;
    struct study_time t = { 0, TIME_PER_EPOCH, 900.0, 1 };
    assert_close(study_time_hours(&p, &t), 1.0, 1e-15);
    t.basis = TIME_PER_UNIT;
    assert_close(study_time_hours(&p, &t), 0.25, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minibatches),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_invalid_is_nan),
        cmocka_unit_test(test_workload_hours),
        cmocka_unit_test(test_allreduce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
