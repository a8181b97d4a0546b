#include "model/rollup.h"

#include <math.h>

static int bad(double x)
{
    return !(x > 0) || !isfinite(x);
}

int64_t rollup_minibatches(int64_t samples_per_epoch, int64_t batch)
{
    if (samples_per_epoch <= 0 || batch <= 0)
        return 0;
    return samples_per_epoch / batch + (samples_per_epoch % batch != 0);
}

double rollup_epoch_s(double pass_s, int64_t samples_per_epoch, int64_t batch)
{
    int64_t mb = rollup_minibatches(samples_per_epoch, batch);
    if (bad(pass_s) || mb == 0)
        return NAN;
    return pass_s * (double)mb;
}

double rollup_run_s(double epoch_s, double epochs)
{
    if (bad(epoch_s) || bad(epochs))
        return NAN;
    return epoch_s * epochs;
}

double rollup_runs_per_day(double run_s)
{
    if (bad(run_s))
        return NAN;
    return ROLLUP_DAY_S / run_s;
}

double rollup_units_per_day(double run_s, double nodes)
{
    if (bad(run_s) || bad(nodes))
        return NAN;
    return ROLLUP_DAY_S / run_s * nodes;
}

double rollup_hours(double run_s)
{
    if (bad(run_s))
        return NAN;
    return run_s / 3600.0;
}

double rollup_allreduce_s(double bytes, int64_t devices, double bw_bs, double latency_s)
{
    if (devices < 1 || !(bytes >= 0) || !(latency_s >= 0) || !isfinite(bytes))
        return NAN;
    if (devices == 1)
        return 0;
    if (!(bw_bs > 0) || !isfinite(bw_bs))
        return NAN;
    double d = (double)devices;
    return 2.0 * (d - 1.0) / d * bytes / bw_bs + 2.0 * (d - 1.0) * latency_s;
}
