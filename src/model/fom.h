/* The CANDLE figure of merit.  For every problem p and system s the rate
 * is U[p][s] = 24 / hours[p][s] x nodes[s] units of work per day; the
 * ratio of p on s is U[p][s] / U[p][baseline].  A system's rate over all
 * problems is the (weighted) harmonic mean of its per-problem rates,
 * H_s = sum(w) / sum(w / U[p][s]), because rates of different work must be
 * combined through the times they imply; FOM_s = H_s / H_baseline.  The
 * arithmetic and harmonic means of the per-problem ratios are computed
 * too, only to show how far they can be from the FOM.  No intermediate
 * value is rounded. */
#ifndef FOM_FOM_H
#define FOM_FOM_H
#include <stddef.h>

struct fom_input {
    size_t n_systems, n_problems;
    size_t baseline;            /* index of the baseline system */
    const double *nodes;        /* [n_systems] */
    const double *hours;        /* [p * n_systems + s]: hours per unit of work */
    const double *weights;      /* [n_problems], NULL = all 1 */
};

struct fom_result {
    size_t n_systems, n_problems;
    double *units_per_day;      /* [p * n_systems + s] */
    double *ratio;              /* [p * n_systems + s], to the baseline */
    double *harmonic_rate;      /* [s], units per day */
    double *fom;                /* [s], H_s / H_baseline (1 for the baseline) */
    double *mean_ratio_arith;   /* [s], (weighted) arithmetic mean of ratios */
    double *mean_ratio_harm;    /* [s], (weighted) harmonic mean of ratios */
};

/* Fills out (owned by the caller, released with fom_result_release).
 * Returns 0, or -1 when an input is not a positive finite number (the
 * affected outputs are NaN). */
int fom_compute(const struct fom_input *in, struct fom_result *out);
void fom_result_release(struct fom_result *r);

#endif
