#include "model/econ.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

static double known(double v)
{
    return isfinite(v) && v > 0 ? v : NAN;
}

void econ_compute(const struct econ_input *in, struct econ_result *out)
{
    size_t ns = in->n_systems, np = in->n_problems, b = in->baseline;
    memset(out, 0, sizeof *out);
    out->n_systems = ns;
    out->n_problems = np;
    out->power_w = xcalloc(ns + 1, sizeof *out->power_w);
    out->cost_usd = xcalloc(ns + 1, sizeof *out->cost_usd);
    out->rate_per_mw = xcalloc(ns + 1, sizeof *out->rate_per_mw);
    out->rate_per_musd = xcalloc(ns + 1, sizeof *out->rate_per_musd);
    out->fom_per_watt = xcalloc(ns + 1, sizeof *out->fom_per_watt);
    out->fom_per_dollar = xcalloc(ns + 1, sizeof *out->fom_per_dollar);
    out->energy_kwh_per_unit = xcalloc(np * ns + 1, sizeof *out->energy_kwh_per_unit);
    for (size_t s = 0; s < ns; s++) {
        out->power_w[s] = in->nodes[s] * known(in->node_power_w[s]);
        out->cost_usd[s] = in->nodes[s] * known(in->node_price_usd[s]);
        /* NaN propagates: a system without power has no rate per MW */
        out->rate_per_mw[s] = known(in->harmonic_rate[s]) / (out->power_w[s] / 1e6);
        out->rate_per_musd[s] = known(in->harmonic_rate[s]) / (out->cost_usd[s] / 1e6);
    }
    for (size_t s = 0; s < ns; s++) {
        out->fom_per_watt[s] = out->rate_per_mw[s] / out->rate_per_mw[b];
        out->fom_per_dollar[s] = out->rate_per_musd[s] / out->rate_per_musd[b];
    }
    for (size_t p = 0; p < np; p++)
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            out->energy_kwh_per_unit[i] = known(in->hours[i]) * known(in->node_power_w[s]) / 1e3;
        }
}

void econ_result_release(struct econ_result *r)
{
    free(r->power_w);
    free(r->cost_usd);
    free(r->rate_per_mw);
    free(r->rate_per_musd);
    free(r->fom_per_watt);
    free(r->fom_per_dollar);
    free(r->energy_kwh_per_unit);
    memset(r, 0, sizeof *r);
}
