/* The roofline chart of one machine: a log-log plot of attainable rate
 * [TFLOP/s] against arithmetic intensity [FLOP/byte], with one slanted
 * line per memory level that has a bandwidth, one flat ceiling per
 * distinct peak rate (precisions/units with the same rate share a line),
 * and optional series of points: a workload's ops at (flops/bytes, rate). */
#ifndef FOM_ROOFLINE_CHART_H
#define FOM_ROOFLINE_CHART_H
#include <stddef.h>

struct machine;
struct strbuf;

struct roof_point {
    double ai_fpb;          /* arithmetic intensity, FLOP per byte */
    double rate_flops;      /* attained rate, FLOP/s */
    double weight;          /* share of pass time, sizes the marker; 0..1 */
};

struct roof_series {
    const char *title;      /* legend entry (user text: escaped) */
    const struct roof_point *pts;
    size_t n;
};

/* Write the gnuplot script body for m's roofline with the given series.
 * title: chart title (escaped); note: an optional second line under it,
 * e.g. "ops: measured rate on NVIDIA H200".  Points with a non-positive
 * or non-finite coordinate are left out and counted in *skipped (may be
 * NULL).  Pure: only appends to script. */
void roofline_script(const struct machine *m, const char *title, const char *note,
                     const struct roof_series *series, size_t n_series,
                     struct strbuf *script, size_t *skipped);

#endif
