/* Figures beside the FOM for a committee that buys work per budget and
 * per megawatt: the harmonic rate of each system per megawatt of its
 * power and per million dollars of its price, their ratios to the
 * baseline, and the energy one unit of work takes.  They never replace
 * the FOM.  A figure whose inputs are missing (no power or price for the
 * system, or for the baseline) is NaN: unavailable, never invented. */
#ifndef FOM_ECON_H
#define FOM_ECON_H
#include <stddef.h>

struct econ_input {
    size_t n_systems, n_problems;
    size_t baseline;
    const double *nodes;            /* [s] */
    const double *node_power_w;     /* [s], <= 0 or NaN when unknown */
    const double *node_price_usd;   /* [s], <= 0 or NaN when unknown */
    const double *harmonic_rate;    /* [s], units of work per day */
    const double *hours;            /* [p * n_systems + s], hours per unit of work
                                       on one node (study_eval.hours) */
};

struct econ_result {
    size_t n_systems, n_problems;
    double *power_w;                /* [s], nodes x node power */
    double *cost_usd;               /* [s], nodes x node price */
    double *rate_per_mw;            /* [s], harmonic rate / (power in MW) */
    double *rate_per_musd;          /* [s], harmonic rate / (cost in millions of $) */
    double *fom_per_watt;           /* [s], rate_per_mw / the baseline's */
    double *fom_per_dollar;         /* [s], rate_per_musd / the baseline's */
    double *energy_kwh_per_unit;    /* [p * n_systems + s]: hours on one node x node
                                       power; the same for any node count */
};

void econ_compute(const struct econ_input *in, struct econ_result *out);
void econ_result_release(struct econ_result *r);

#endif
