/* The procurement report of a study: what `fom report` writes as
 * report.md, report.html (self-contained, charts as inline SVG) and
 * report.json (the `fom fom` document plus per-problem breakdowns).
 *
 * The writers take a struct report that src/run/report_run.c fills from
 * the study, its evaluation and (for estimated problems) the estimator's
 * per-op results; they never read files and never run anything.  Every
 * string that came from a user file is escaped for the output format:
 * HTML entities in report.html, JSON escapes in report.json, and in
 * Markdown the characters that would start markup are backslash-escaped
 * (and < > & written as entities, since Markdown passes HTML through). */
#ifndef FOM_REPORT_H
#define FOM_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "model/study.h"
#include "model/study_result.h"

struct strbuf;

/* A named amount of pass time: per method, per bound or per op kind. */
struct report_share {
    const char *name;       /* "table-exact", "compute", "gemm" */
    double time_s;          /* per pass */
};

struct report_op {
    const char *name;       /* framework op name (user text) */
    const char *kind;       /* "gemm" ... */
    double time_s;          /* per pass on this system */
    double flops, bytes;    /* per pass */
    const char *method;     /* how the time was obtained */
    const char *bound;
};

/* One problem on one system. */
struct report_cell {
    int estimated;          /* the hours came from the estimator */
    double pass_s;          /* estimated pass time; NaN when measured */
    double pass_lo_s, pass_hi_s;    /* spread from table p05/p95, NaN if none */
    double pass_ci_lo_s, pass_ci_hi_s;  /* CI of the pass over its ops' spreads, NaN if none */
    size_t n_spread_ops;    /* ops with a table spread */
    const char *bound;      /* of the whole pass, NULL when unknown */
    struct report_share methods[8];
    size_t n_methods;
    struct report_share kinds[OP_KIND_COUNT];
    size_t n_kinds;
    struct report_op *ops;  /* sorted by time, longest first */
    size_t n_ops;
    const char *machine_hw; /* hw name of the kernel table used, or NULL */
    const char *kernels_software;
    const char *kernels_origin;
    char **warnings;
    size_t n_warnings;
    /* data-parallel runs (devices_per_run > 1 in layout): the layout with
     * its gradient exchange, and the machine its inputs came from
     * (borrowed; NULL for measured cells) */
    struct run_layout layout;
    const struct machine *machine;
    const char *comm_table_hw;      /* borrowed: hardware of the measured
                                       all-reduce table the exchange used, or NULL */
};

struct report_system {
    const char *machine_name;   /* NULL when no machine file */
    const char *machine_path;
    const char *machine_source; /* datasheet citation */
    int devices_per_node;       /* from the machine file, 0 when none */
    const char *device_name;    /* the device as profilers name it, or NULL */
};

struct report_problem {
    const char *profile_path;   /* NULL for measured-only problems */
    const char *profile_format;
    const char *profile_device;
    const char *profile_framework;
    int profile_steps;
    int64_t profile_batch;
    double profile_step_s;      /* measured step time in the trace, 0 if unknown */
};

struct report_chart {
    char *id;               /* file stem: "fom", "units-per-day", "roofline-1" */
    char *title;            /* caption (may hold user text) */
    char *svg;              /* rendered SVG document, NULL when not drawn */
    int has_png;            /* id.png written too */
};

struct report {
    const struct study *st;
    const struct study_eval *ev;
    struct report_cell *cells;      /* [p * n_systems + s] */
    struct report_system *systems;  /* [s] */
    struct report_problem *problems;/* [p] */
    struct report_chart *charts;
    size_t n_charts, alloc_charts;
    const char *charts_note;        /* e.g. "charts skipped: gnuplot not found" */
    const char *fom_version;
};

/* Interval of the ratio of problem p on system s to the baseline.  When
 * either cell is estimated with Monte Carlo draws: the study's percentile
 * CI of the ratio (model/study_result.h: draws of the estimated cells, bootstrap
 * of repeated ones).  Otherwise, from the intervals of the medians of
 * repeats: the widest ratio the two intervals allow (conservative).
 * Returns 0 and sets lo/hi, or -1 when unavailable. */
int report_ratio_interval(const struct report *r, size_t p, size_t s, double *lo, double *hi);
/* Hours per unit interval of one cell: the percentile interval of an
 * estimated cell's Monte Carlo draws, or the CI of a measured median; -1
 * when it has neither. */
int report_hours_interval(const struct report *r, size_t p, size_t s, double *lo, double *hi);

void report_write_md(FILE *fp, const struct report *r);
void report_write_html(FILE *fp, const struct report *r);
/* fom_json: the complete `fom fom --format json` document (an object);
 * report.json is that object with the report's keys added. */
void report_write_json(FILE *fp, const struct report *r, const char *fom_json);

/* Escapers, exposed for the tests. */
void html_escape(struct strbuf *sb, const char *s);
void md_escape(struct strbuf *sb, const char *s);

#endif
