#include "model/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "core/xalloc.h"

static double *sorted_copy(const double *x, size_t n)
{
    double *s = xmalloc((n ? n : 1) * sizeof *s);
    if (n)
        memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    return s;
}

/* The k-th smallest of a[0..n) (0-based), a reordered: Hoare's selection
 * with a median-of-three pivot, O(n) expected where sorting is O(n log n)
 * (the bootstrap takes a median of every resample). */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

double stats_median_inplace(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double hi = select_kth(x, n, n / 2);
    if (n % 2)
        return hi;
    /* the lower middle is the largest of the part below n/2 */
    double lo = x[0];
    for (size_t i = 1; i < n / 2; i++)
        if (x[i] > lo)
            lo = x[i];
    return (lo + hi) / 2.0;
}

double stats_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    double m = stats_median_inplace(s, n);
    free(s);
    return m;
}

int stats_median_ci(const double *x, size_t n, double level, struct median_ci *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->lo = ci->hi = ci->coverage = NAN;
    if (n == 0 || !(level > 0 && level < 1))
        return 0;
    /* Coverage of [x_(l), x_(n+1-l)] is 1 - 2 P(B <= l-1), B ~ Bin(n, 1/2);
     * it shrinks as l grows, so take the largest l that still reaches the
     * level. */
    size_t best = 0;
    double best_cov = NAN;
    for (size_t l = 1; l <= (n + 1) / 2; l++) {
        double tail = l == 1 ? pow(0.5, (double)n) : gsl_cdf_binomial_P((unsigned)(l - 1), 0.5, (unsigned)n);
        double cov = 1.0 - 2.0 * tail;
        if (cov + 1e-12 < level)
            break;
        best = l;
        best_cov = cov;
    }
    if (!best)
        return 0;
    double *s = sorted_copy(x, n);
    ci->available = 1;
    ci->lo_rank = best;
    ci->hi_rank = n + 1 - best;
    ci->lo = s[ci->lo_rank - 1];
    ci->hi = s[ci->hi_rank - 1];
    ci->coverage = best_cov;
    free(s);
    return 0;
}

double stats_mean(const double *x, size_t n)
{
    return stats_weighted_mean(x, NULL, n);
}

double stats_weighted_mean(const double *x, const double *w, size_t n)
{
    if (n == 0)
        return NAN;
    double sw = 0, swx = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        if (!(wi > 0) || !isfinite(wi) || !isfinite(x[i]))
            return NAN;
        sw += wi;
        swx += wi * x[i];
    }
    return swx / sw;
}

double stats_harmonic_mean(const double *x, size_t n)
{
    return stats_weighted_harmonic_mean(x, NULL, n);
}

double stats_weighted_harmonic_mean(const double *x, const double *w, size_t n)
{
    if (n == 0)
        return NAN;
    double sw = 0, swx = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        if (!(wi > 0) || !isfinite(wi) || !(x[i] > 0) || !isfinite(x[i]))
            return NAN;
        sw += wi;
        swx += wi / x[i];
    }
    return sw / swx;
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0 || !(p >= 0 && p <= 1))
        return NAN;
    double h = (double)(n - 1) * p;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

struct bootstrap {
    gsl_rng *rng;
};

struct bootstrap *bootstrap_new(unsigned long seed)
{
    struct bootstrap *b = xmalloc(sizeof *b);
    b->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!b->rng) {
        free(b);
        return NULL;
    }
    gsl_rng_set(b->rng, seed);
    return b;
}

void bootstrap_free(struct bootstrap *b)
{
    if (!b)
        return;
    gsl_rng_free(b->rng);
    free(b);
}

void bootstrap_resample(struct bootstrap *b, const double *x, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = x[gsl_rng_uniform_int(b->rng, n)];
}

void stats_sort(double *x, size_t n)
{
    gsl_sort(x, 1, n);
}

/* x_sorted[floor(n u)] for u in [0, 1] */
static double at_fraction(const double *x_sorted, size_t n, double u)
{
    size_t i = (size_t)(u * (double)n);
    return x_sorted[i < n ? i : n - 1];
}

double bootstrap_resample_median(struct bootstrap *b, const double *x, size_t n, double *buf)
{
    if (n <= BOOTSTRAP_BUILD_MAX) {
        bootstrap_resample(b, x, n, buf);
        return stats_median_inplace(buf, n);
    }
    /* k: the 1-based rank of the (lower) middle of n values */
    size_t k = (n + 1) / 2;
    double u = gsl_ran_beta(b->rng, (double)k, (double)(n + 1 - k));
    double lo = at_fraction(x, n, u);
    if (n % 2)
        return lo;
    double v = u + (1.0 - u) * gsl_ran_beta(b->rng, 1.0, (double)(n - k));
    return (lo + at_fraction(x, n, v)) / 2.0;
}

size_t bootstrap_index(struct bootstrap *b, size_t n)
{
    return (size_t)gsl_rng_uniform_int(b->rng, n);
}

void bootstrap_percentile_ci(double *stat, size_t n, double level, double *lo, double *hi)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(stat[i]))
            stat[k++] = stat[i];
    gsl_sort(stat, 1, k);
    double a = 1.0 - level;
    *lo = stats_quantile_sorted(stat, k, a / 2);
    *hi = stats_quantile_sorted(stat, k, 1 - a / 2);
}
