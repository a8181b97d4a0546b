#include "model/fom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/rollup.h"
#include "model/stats.h"

int fom_compute(const struct fom_input *in, struct fom_result *out)
{
    size_t ns = in->n_systems, np = in->n_problems;
    int rc = 0;
    memset(out, 0, sizeof *out);
    out->n_systems = ns;
    out->n_problems = np;
    out->units_per_day = xcalloc(np * ns + 1, sizeof(double));
    out->ratio = xcalloc(np * ns + 1, sizeof(double));
    out->harmonic_rate = xcalloc(ns + 1, sizeof(double));
    out->fom = xcalloc(ns + 1, sizeof(double));
    out->mean_ratio_arith = xcalloc(ns + 1, sizeof(double));
    out->mean_ratio_harm = xcalloc(ns + 1, sizeof(double));
    double *col = xcalloc(np + 1, sizeof(double));
    double *rcol = xcalloc(np + 1, sizeof(double));

    if (in->baseline >= ns)
        rc = -1;
    for (size_t p = 0; p < np; p++) {
        for (size_t s = 0; s < ns; s++) {
            double u = rollup_units_per_day(in->hours[p * ns + s] * 3600.0, in->nodes[s]);
            if (isnan(u))
                rc = -1;
            out->units_per_day[p * ns + s] = u;
        }
    }
    for (size_t s = 0; s < ns; s++) {
        for (size_t p = 0; p < np; p++) {
            col[p] = out->units_per_day[p * ns + s];
            double b = rc ? NAN : out->units_per_day[p * ns + in->baseline];
            rcol[p] = out->ratio[p * ns + s] = col[p] / b;
        }
        out->harmonic_rate[s] = stats_weighted_harmonic_mean(col, in->weights, np);
        out->mean_ratio_arith[s] = stats_weighted_mean(rcol, in->weights, np);
        out->mean_ratio_harm[s] = stats_weighted_harmonic_mean(rcol, in->weights, np);
        if (isnan(out->harmonic_rate[s]) || isnan(out->mean_ratio_arith[s]))
            rc = -1;
    }
    for (size_t s = 0; s < ns; s++)
        out->fom[s] = rc ? NAN : out->harmonic_rate[s] / out->harmonic_rate[in->baseline];
    /* Times that are valid one by one can still be so far apart that a
     * ratio under- or overflows; a FOM of 0 or inf would look like a
     * result, so it is an error instead. */
    for (size_t i = 0; i < np * ns; i++)
        if (!(out->ratio[i] > 0) || !isfinite(out->ratio[i]))
            rc = -1;
    for (size_t s = 0; s < ns; s++)
        if (!(out->fom[s] > 0) || !isfinite(out->fom[s]) || !(out->mean_ratio_harm[s] > 0) ||
            !isfinite(out->mean_ratio_arith[s]))
            rc = -1;
    free(col);
    free(rcol);
    return rc;
}

void fom_result_release(struct fom_result *r)
{
    free(r->units_per_day);
    free(r->ratio);
    free(r->harmonic_rate);
    free(r->fom);
    free(r->mean_ratio_arith);
    free(r->mean_ratio_harm);
    memset(r, 0, sizeof *r);
}
