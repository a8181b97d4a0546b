#include "test.h"

#include <math.h>

#include "model/fom.h"

/* The seed's worked example, every expected value computed here from the
 * formulas (units/day = 24 / hours x nodes, H = n / sum(1/x)), not taken
 * from the program. */
static void test_seed_example(void **state)
{
    (void)state;
    const double nodes[2] = { 18688, 94000 };        /* titan, A */
    const double hours[6] = { 60, 4, 6, 0.5, 12, 0.25 };
    struct fom_input in = { 2, 3, 0, nodes, hours, NULL };
    struct fom_result r;
    assert_int_equal(fom_compute(&in, &r), 0);

    double ut[3], ua[3], ratio[3];
    for (int p = 0; p < 3; p++) {
        ut[p] = 24.0 / hours[2 * p] * nodes[0];
        ua[p] = 24.0 / hours[2 * p + 1] * nodes[1];
        ratio[p] = ua[p] / ut[p];
        assert_close(r.units_per_day[2 * p], ut[p], 1e-12);
        assert_close(r.units_per_day[2 * p + 1], ua[p], 1e-12);
        assert_close(r.ratio[2 * p + 1], ratio[p], 1e-12);
        assert_close(r.ratio[2 * p], 1.0, 1e-15);
    }
    /* the seed's printed values, as a sanity check of the formulas above */
    assert_close(ut[0], 7475.2, 1e-12);
    assert_close(ua[2], 9024000, 1e-12);

    double ht = 3 / (1 / ut[0] + 1 / ut[1] + 1 / ut[2]);
    double ha = 3 / (1 / ua[0] + 1 / ua[1] + 1 / ua[2]);
    assert_close(r.harmonic_rate[0], ht, 1e-9);
    assert_close(r.harmonic_rate[1], ha, 1e-9);
    /* exact fractions: H_A = 27072000/19, and with Titan's P1 rate
     * unrounded H_titan = 224256/13 (= 17250.46...), FOM = 229125/2774; the seed's
     * 1676313600/97177 = 17250.1 used 7,475 */
    assert_close(r.harmonic_rate[1], 27072000.0 / 19, 1e-12);
    assert_close(r.harmonic_rate[0], 224256.0 / 13, 1e-12);
    assert_close(r.fom[1], ha / ht, 1e-9);
    assert_close(r.fom[1], 229125.0 / 2774, 1e-12);
    assert_true(fabs(r.fom[1] - 82.597) < 0.0005);
    assert_close(r.fom[0], 1.0, 1e-15);
    assert_close(r.mean_ratio_arith[1], (ratio[0] + ratio[1] + ratio[2]) / 3, 1e-12);
    assert_close(r.mean_ratio_harm[1], 3 / (1 / ratio[0] + 1 / ratio[1] + 1 / ratio[2]), 1e-12);
    assert_true(fabs(r.mean_ratio_harm[1] - 88.33) < 0.005);
    fom_result_release(&r);
}

/* Weighted: H = sum(w) / sum(w / x). Two problems, weights 3 and 1:
 *   base: 1 h, 2 h on 1 node -> 24, 12 a day; new: 0.5 h, 0.5 h on 1 node -> 48, 48
 *   H_base = 4 / (3/24 + 1/12) = 4 / (5/24) = 19.2;  H_new = 4 / (4/48) = 48
 *   FOM = 48 / 19.2 = 2.5; ratios 2, 4: weighted arithmetic (6 + 4)/4 = 2.5,
 *   weighted harmonic 4 / (3/2 + 1/4) = 16/7 */
static void test_weighted(void **state)
{
    (void)state;
    const double nodes[2] = { 1, 1 };
    const double hours[4] = { 1, 0.5, 2, 0.5 };
    const double w[2] = { 3, 1 };
    struct fom_input in = { 2, 2, 0, nodes, hours, w };
    struct fom_result r;
    assert_int_equal(fom_compute(&in, &r), 0);
    assert_close(r.harmonic_rate[0], 19.2, 1e-14);
    assert_close(r.harmonic_rate[1], 48, 1e-14);
    assert_close(r.fom[1], 2.5, 1e-14);
    assert_close(r.mean_ratio_arith[1], 2.5, 1e-14);
    assert_close(r.mean_ratio_harm[1], 16.0 / 7, 1e-14);
    fom_result_release(&r);
}

/* The baseline does not have to be the first system. */
static void test_baseline_second(void **state)
{
    (void)state;
    const double nodes[2] = { 2, 1 };
    const double hours[2] = { 1, 4 };   /* 48 vs 6 a day */
    struct fom_input in = { 2, 1, 1, nodes, hours, NULL };
    struct fom_result r;
    assert_int_equal(fom_compute(&in, &r), 0);
    assert_close(r.ratio[0], 8, 1e-15);
    assert_close(r.fom[0], 8, 1e-15);
    assert_close(r.fom[1], 1, 1e-15);
    fom_result_release(&r);
}

static void test_invalid(void **state)
{
    (void)state;
    const double nodes[2] = { 1, 1 };
    const double hours[2] = { 1, 0 };
    struct fom_input in = { 2, 1, 0, nodes, hours, NULL };
    struct fom_result r;
    assert_int_equal(fom_compute(&in, &r), -1);
    assert_true(isnan(r.fom[1]));
    fom_result_release(&r);

    /* each time is finite, but the ratio 1e-580 underflows to 0: an error,
     * not a FOM of 0 */
    const double far[2] = { 1e-290, 1e290 };
    struct fom_input in2 = { 2, 1, 0, nodes, far, NULL };
    assert_int_equal(fom_compute(&in2, &r), -1);
    fom_result_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_baseline_second),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
