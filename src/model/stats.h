/* Summary statistics for measured inputs, following the reproducibility
 * rules the product cites: medians with nonparametric confidence
 * intervals (no normality assumed), harmonic means for rates, and a
 * reproducible bootstrap (fixed seed) where a statistic has no closed-form
 * interval.  Pure: no I/O; inputs are never modified. */
#ifndef FOM_STATS_H
#define FOM_STATS_H
#include <stddef.h>

/* Median of n values (mean of the two middle ones for even n); NaN for
 * n == 0. */
double stats_median(const double *x, size_t n);
/* The same, reordering x (no copy). */
double stats_median_inplace(double *x, size_t n);

/* Distribution-free confidence interval of the median from order
 * statistics: [x_(l), x_(n+1-l)] (1-based, sorted) with the largest l
 * whose coverage 1 - 2 P(Bin(n, 1/2) <= l - 1) is still >= level.  The
 * coverage actually achieved is stored (it is >= level, and not equal to
 * it, because the binomial is discrete). */
struct median_ci {
    int available;      /* 0 when n is too small for the level */
    double lo, hi;
    double coverage;    /* achieved coverage, e.g. 0.96875 for n = 6 */
    size_t lo_rank, hi_rank;  /* 1-based order statistics used */
};
/* Returns 0; ci->available = 0 (and lo, hi NaN) when even [min, max]
 * covers less than level (n < 6 at 95%). */
int stats_median_ci(const double *x, size_t n, double level, struct median_ci *ci);

double stats_mean(const double *x, size_t n);               /* NaN for n == 0 */
/* Harmonic mean n / sum(1/x); NaN if n == 0 or any x <= 0 or not finite. */
double stats_harmonic_mean(const double *x, size_t n);
/* Weighted harmonic mean sum(w) / sum(w/x); w == NULL means all ones.
 * NaN if any weight is <= 0 or any x <= 0. */
double stats_weighted_harmonic_mean(const double *x, const double *w, size_t n);
/* Weighted arithmetic mean sum(w x) / sum(w); w == NULL means all ones. */
double stats_weighted_mean(const double *x, const double *w, size_t n);

/* Quantile of sorted data, linear interpolation between order statistics
 * (type 7 of Hyndman and Fan, what GSL and R use by default). */
double stats_quantile_sorted(const double *sorted, size_t n, double p);

/* Bootstrap: the caller's statistic is evaluated on n_resamples
 * resamples; the helper owns a GSL random generator (mt19937) seeded with
 * a fixed seed so that the same input always gives the same interval. */
struct bootstrap;
#define BOOTSTRAP_SEED 20170828UL   /* fixed: results must be reproducible */
#define BOOTSTRAP_RESAMPLES 2000
struct bootstrap *bootstrap_new(unsigned long seed);  /* caller frees with bootstrap_free */
void bootstrap_free(struct bootstrap *b);
/* Fill out[0..n) with a resample (with replacement) of x[0..n). */
void bootstrap_resample(struct bootstrap *b, const double *x, size_t n, double *out);
/* Up to this many values the median of a resample is taken from a built
 * resample; above, from its exact distribution (bootstrap_resample_median).
 * 64: there, drawing n uniform indices costs more than the two beta
 * variates (each two gamma variates of a few uniforms), and every study
 * measured by hand keeps the intervals the resamples have always given. */
#define BOOTSTRAP_BUILD_MAX 64
/* The median of one resample (with replacement) of x[0..n), n > 0.  Up to
 * BOOTSTRAP_BUILD_MAX values the resample is built in buf (n values) and
 * its median selected; above, x must be sorted (stats_sort) and the
 * median is drawn from its exact distribution in O(1): the k-th smallest
 * of n uniform indices floor(n U) is floor(n U_(k)), U_(k) ~ Beta(k,
 * n + 1 - k), and the next one above U_(k) is U_(k) + (1 - U_(k))
 * Beta(1, n - k). */
double bootstrap_resample_median(struct bootstrap *b, const double *x, size_t n, double *buf);
/* Sort x[0..n) ascending in place. */
void stats_sort(double *x, size_t n);
/* One uniform index in [0, n) from the same generator (n > 0): picks a
 * Monte Carlo draw of a cell that has draws instead of repeats. */
size_t bootstrap_index(struct bootstrap *b, size_t n);
/* Percentile interval [q(a/2), q(1-a/2)] of the n values in stat (sorted
 * in place), a = 1 - level.  NaN values are dropped first. */
void bootstrap_percentile_ci(double *stat, size_t n, double level, double *lo, double *hi);

#endif
