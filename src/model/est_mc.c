#include "model/est_internal.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/xalloc.h"

/* ------------------------------------------------------- uncertainty */

/* z of the 95% quantile of the standard normal: p05 and p95 sit at -z95
 * and +z95 sigmas of ln(time) from the median. */
static double z95(void)
{
    return gsl_cdf_ugaussian_Pinv(0.95);
}

int est_spread_of(double est_s, double lo_s, double hi_s, struct est_spread *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->median_s = est_s;
    if (!(est_s > 0) || !isfinite(est_s))
        return 0;
    /* a p05 above the estimate or a p95 below it (rows interpolated
     * apart) gives that half no width rather than a negative one */
    if (lo_s > 0 && lo_s < est_s)
        sp->sigma_lo = log(est_s / lo_s) / z95();
    if (hi_s > est_s && isfinite(hi_s))
        sp->sigma_hi = log(hi_s / est_s) / z95();
    return sp->sigma_lo > 0 || sp->sigma_hi > 0;
}

double est_spread_at(const struct est_spread *sp, double z)
{
    return sp->median_s * exp(z * (z < 0 ? sp->sigma_lo : sp->sigma_hi));
}

double est_spread_quantile(const struct est_spread *sp, double q)
{
    return est_spread_at(sp, gsl_cdf_ugaussian_Pinv(q));
}

/* The pass's confidence interval and, when asked for, its Monte Carlo
 * draws (see estimate.h).  dev_s is scratch of n_ops.
 *
 * Every spread op's device time sits at the same quantile of its own
 * spread, not one quantile per op: a table row's p05/p95 is the spread of
 * repeated calls on the measuring host, whose causes (clocks, the host's
 * dispatch, the harness) move every row of a table together, not
 * thousands of independent errors that would average out.  Drawn
 * independently, right-skewed spreads would also centre the pass above
 * the sum of the ops' medians, outside an interval around the estimate.
 *
 * With one quantile for all, the pass is a nondecreasing function of it
 * (each op's time grows with z, and the replay only adds and takes
 * maxima), so the pass's a/2 and 1 - a/2 quantiles are the passes
 * composed at the normal's: the interval is exact, two compositions
 * rather than a percentile of many.  The draws (o->mc_draws passes at
 * standard normals from mt19937 seeded with o->mc_seed) are for callers
 * that combine passes, as a study's FOM does. */
void est_pass_interval(const struct est *c, const struct replay_index *ri,
                       const struct estimate_opts *o, double host_s, double *dev_s)
{
    struct estimate *out = c->out;
    size_t n = out->n_ops, ns = 0;
    struct est_spread *sp = xmalloc((n + 1) * sizeof *sp);
    size_t *which = xmalloc((n + 1) * sizeof *which);
    gsl_rng *rng = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct op_estimate *oe = &out->ops[i];
        dev_s[i] = oe->device_s;
        if (est_spread_of(oe->device_s, oe->time_lo_s, oe->time_hi_s, &sp[ns]))
            which[ns++] = i;
    }
    out->n_spread_ops = ns;
    out->mc_seed = o->mc_seed;
    if (!ns)
        goto out;
    double z = gsl_cdf_ugaussian_Pinv((1 + out->ci_level) / 2);
    for (size_t k = 0; k < ns; k++)
        dev_s[which[k]] = est_spread_at(&sp[k], -z);
    out->pass_ci_lo_s = est_compose_pass(c, ri, out, dev_s, host_s);
    for (size_t k = 0; k < ns; k++)
        dev_s[which[k]] = est_spread_at(&sp[k], z);
    out->pass_ci_hi_s = est_compose_pass(c, ri, out, dev_s, host_s);
    size_t per_draw = c->p->n_calls > n ? c->p->n_calls : n;
    size_t draws = o->mc_draws;
    if (per_draw && draws > EST_MC_MIN_DRAWS && draws * per_draw > EST_MC_WORK) {
        draws = EST_MC_WORK / per_draw;
        if (draws < EST_MC_MIN_DRAWS)
            draws = EST_MC_MIN_DRAWS;
    }
    if (!draws)
        goto out;
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        goto out;
    gsl_rng_set(rng, o->mc_seed);
    out->pass_draws = xmalloc(draws * sizeof *out->pass_draws);
    for (size_t b = 0; b < draws; b++) {
        double zb = gsl_ran_ugaussian(rng);
        for (size_t k = 0; k < ns; k++)
            dev_s[which[k]] = est_spread_at(&sp[k], zb);
        out->pass_draws[b] = est_compose_pass(c, ri, out, dev_s, host_s);
    }
    out->n_draws = draws;
out:
    if (rng)
        gsl_rng_free(rng);
    free(sp);
    free(which);
}
