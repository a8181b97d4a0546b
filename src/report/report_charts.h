/* The report's charts as gnuplot script bodies (see report/gnuplot.h):
 * pure functions of a struct report that only append to a strbuf. */
#ifndef FOM_REPORT_CHARTS_H
#define FOM_REPORT_CHARTS_H
#include <stddef.h>

struct report;
struct strbuf;

/* Per-problem ratios to the baseline, then the FOM and the arithmetic and
 * harmonic means of the ratios, one bar per non-baseline system, with
 * interval whiskers where intervals exist.  No-op (returns -1) when the
 * study has a single system. */
int chart_ratios(const struct report *r, struct strbuf *sb);
/* Units of work per day per problem and system (log scale), with the
 * intervals of the hours per unit where they exist. */
int chart_units_per_day(const struct report *r, struct strbuf *sb);
/* FOM, FOM per watt and per dollar side by side (-1 without power or price). */
int chart_economics(const struct report *r, struct strbuf *sb);
/* Estimated pass time of problem p on each system where it was estimated,
 * stacked by op kind [ms].  Returns -1 when p has no estimated cell. */
int chart_breakdown(const struct report *r, size_t p, struct strbuf *sb);
/* Strong-scaling curves of problem p (units/day of one run against
 * devices per run, with the ideal lines); 1 when no cell has a curve. */
int chart_scaling(const struct report *r, size_t p, struct strbuf *sb);

#endif
