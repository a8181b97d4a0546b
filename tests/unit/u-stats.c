#include "test.h"

#include <math.h>
#include <stdlib.h>

#include "model/stats.h"

static void test_median(void **state)
{
    (void)state;
    double odd[] = { 5, 1, 4, 2, 3 };
    double even[] = { 10, 2, 8, 4 };
    assert_close(stats_median(odd, 5), 3.0, 1e-15);
    assert_close(stats_median(even, 4), 6.0, 1e-15);
    assert_true(odd[0] == 5 && even[0] == 10);   /* input untouched */
    assert_true(isnan(stats_median(odd, 0)));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Selection must agree with the middle of the sorted values for every
 * length from 1 to 64 and every shape that trips a partition: many ties,
 * all equal, ascending, descending, random. */
static void test_median_inplace(void **state)
{
    (void)state;
    double a[64], b[64];
    unsigned seed = 12345;
    for (size_t n = 1; n <= 64; n++) {
        for (int shape = 0; shape < 5; shape++) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;          /* an LCG: any spread will do */
                double r = (double)(seed >> 8);
                a[i] = shape == 0 ? (double)(i % 3) : shape == 1 ? 7.0
                     : shape == 2 ? (double)i : shape == 3 ? (double)(n - i) : r;
            }
            for (size_t i = 0; i < n; i++)
                b[i] = a[i];
            qsort(b, n, sizeof *b, cmp_double);
            double want = n % 2 ? b[n / 2] : (b[n / 2 - 1] + b[n / 2]) / 2.0;
            assert_true(stats_median_inplace(a, n) == want);
        }
    }
}

/* Expected ranks and coverages by hand: coverage of [x(l), x(n+1-l)] is
 * 1 - 2 P(Bin(n, 1/2) <= l - 1).
 *   n = 6:  l = 1: 1 - 2/64 = 0.96875                      -> [x1, x6]
 *   n = 10: l = 2: 1 - 2 (1 + 10)/1024 = 0.978515625       (l = 3: 1 - 2 x 56/1024 = 0.8906 < 0.95)
 *   n = 20: l = 6: 1 - 2 x 21700/1048576 = 0.95861053...   (l = 7: 1 - 2 x 60460/1048576 = 0.8847)
 *   n = 5:  even [x1, x5] covers only 1 - 2/32 = 0.9375 -> unavailable */
static void test_median_ci(void **state)
{
    (void)state;
    struct median_ci ci;
    double six[] = { 6, 1, 5, 2, 4, 3 };
    stats_median_ci(six, 6, 0.95, &ci);
    assert_true(ci.available);
    assert_int_equal(ci.lo_rank, 1);
    assert_int_equal(ci.hi_rank, 6);
    assert_close(ci.lo, 1, 1e-15);
    assert_close(ci.hi, 6, 1e-15);
    assert_close(ci.coverage, 0.96875, 1e-12);

    double ten[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
    stats_median_ci(ten, 10, 0.95, &ci);
    assert_true(ci.available);
    assert_int_equal(ci.lo_rank, 2);
    assert_int_equal(ci.hi_rank, 9);
    assert_close(ci.lo, 2, 1e-15);
    assert_close(ci.hi, 9, 1e-15);
    assert_close(ci.coverage, 0.978515625, 1e-12);

    double twenty[20];
    for (int i = 0; i < 20; i++)
        twenty[i] = (i * 7) % 20 + 0.5;   /* a permutation of 0.5 .. 19.5 */
    stats_median_ci(twenty, 20, 0.95, &ci);
    assert_true(ci.available);
    assert_int_equal(ci.lo_rank, 6);
    assert_int_equal(ci.hi_rank, 15);
    assert_close(ci.lo, 5.5, 1e-15);
    assert_close(ci.hi, 14.5, 1e-15);
    assert_close(ci.coverage, 1 - 2 * 21700.0 / 1048576.0, 1e-12);

    double five[] = { 1, 2, 3, 4, 5 };
    stats_median_ci(five, 5, 0.95, &ci);
    assert_false(ci.available);
    assert_true(isnan(ci.lo) && isnan(ci.hi));
    /* at 90% five values are enough: 0.9375 >= 0.90 */
    stats_median_ci(five, 5, 0.90, &ci);
    assert_true(ci.available);
    assert_close(ci.coverage, 0.9375, 1e-12);
}

static void test_means(void **state)
{
    (void)state;
    double x[] = { 1, 2, 4 };
    double w[] = { 1, 2, 1 };
    assert_close(stats_mean(x, 3), 7.0 / 3, 1e-15);
    /* 3 / (1 + 1/2 + 1/4) = 12/7 */
    assert_close(stats_harmonic_mean(x, 3), 12.0 / 7, 1e-15);
    /* (1+2+1) / (1/1 + 2/2 + 1/4) = 4 / 2.25 = 16/9 */
    assert_close(stats_weighted_harmonic_mean(x, w, 3), 16.0 / 9, 1e-15);
    /* (1 + 4 + 4) / 4 = 9/4 */
    assert_close(stats_weighted_mean(x, w, 3), 9.0 / 4, 1e-15);
    assert_close(stats_weighted_harmonic_mean(x, NULL, 3), 12.0 / 7, 1e-15);
    /* the seed's closed form H = 3 X1 X2 X3 / (X1 X2 + X1 X3 + X2 X3) */
    double t[] = { 7475.2, 74752, 37376 };
    double h = 3 * t[0] * t[1] * t[2] / (t[0] * t[1] + t[0] * t[2] + t[1] * t[2]);
    assert_close(stats_harmonic_mean(t, 3), h, 1e-13);
    double bad[] = { 1, 0, 2 };
    double neg_w[] = { 1, -1, 1 };
    assert_true(isnan(stats_harmonic_mean(bad, 3)));
    assert_true(isnan(stats_weighted_harmonic_mean(x, neg_w, 3)));
    assert_true(isnan(stats_harmonic_mean(x, 0)));
}

static void test_quantile(void **state)
{
    (void)state;
    double s[] = { 1, 2, 3, 4, 5 };
    assert_close(stats_quantile_sorted(s, 5, 0.0), 1, 1e-15);
    assert_close(stats_quantile_sorted(s, 5, 1.0), 5, 1e-15);
    assert_close(stats_quantile_sorted(s, 5, 0.5), 3, 1e-15);
    assert_close(stats_quantile_sorted(s, 5, 0.1), 1.4, 1e-14);  /* h = 0.4 */
}

/* The exact draw of a resample's median must have the distribution of
 * the median of a built resample: same mean and spread over 20000 draws
 * each, on skewed values (x_i = i^2) so that an off-by-one rank moves the
 * mean; odd and even n. */
static void test_resample_median_exact(void **state)
{
    (void)state;
    enum { R = 20000 };
    size_t sizes[] = { 201, 200 };
    for (size_t t = 0; t < 2; t++) {
        size_t n = sizes[t];
        double x[201], buf[201];
        for (size_t i = 0; i < n; i++)
            x[i] = (double)(i * i);
        struct bootstrap *bs = bootstrap_new(BOOTSTRAP_SEED);
        double sum[2] = { 0, 0 }, sq[2] = { 0, 0 };
        for (int r = 0; r < R; r++) {
            double built, exact = bootstrap_resample_median(bs, x, n, buf);
            bootstrap_resample(bs, x, n, buf);
            built = stats_median(buf, n);
            sum[0] += built, sq[0] += built * built;
            sum[1] += exact, sq[1] += exact * exact;
        }
        bootstrap_free(bs);
        double mean[2], sd[2];
        for (int k = 0; k < 2; k++) {
            mean[k] = sum[k] / R;
            sd[k] = sqrt(sq[k] / R - mean[k] * mean[k]);
        }
        /* 5 standard errors of the difference of two means of R draws */
        assert_true(fabs(mean[1] - mean[0]) < 5 * sd[0] * sqrt(2.0 / R));
        /* the spread within 5% (the standard error of each is 0.5%) */
        assert_true(fabs(sd[1] / sd[0] - 1) < 0.05);
    }
}

static void test_bootstrap_reproducible(void **state)
{
    (void)state;
    double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    double a[10], b[10];
    struct bootstrap *b1 = bootstrap_new(BOOTSTRAP_SEED), *b2 = bootstrap_new(BOOTSTRAP_SEED);
    assert_non_null(b1);
    for (int k = 0; k < 50; k++) {
        bootstrap_resample(b1, x, 10, a);
        bootstrap_resample(b2, x, 10, b);
        for (int i = 0; i < 10; i++) {
            assert_true(a[i] == b[i]);
            assert_true(a[i] >= 1 && a[i] <= 10 && a[i] == floor(a[i]));
        }
    }
    bootstrap_free(b1);
    bootstrap_free(b2);

    /* percentile CI of 1..101 (+ NaNs dropped) at 90%: q(0.05) = 6, q(0.95) = 96 */
    double stat[103];
    for (int i = 0; i < 101; i++)
        stat[i] = 101 - i;
    stat[101] = NAN;
    stat[102] = NAN;
    double lo, hi;
    bootstrap_percentile_ci(stat, 103, 0.90, &lo, &hi);
    assert_close(lo, 6, 1e-14);
    assert_close(hi, 96, 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_median_inplace),
        cmocka_unit_test(test_median_ci),
        cmocka_unit_test(test_means),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_bootstrap_reproducible),
        cmocka_unit_test(test_resample_median_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
