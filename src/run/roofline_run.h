/* `fom roofline`: a machine's roofline, optionally with a workload's ops
 * placed at (flops / bytes, flops / time).  The rate of an op is the
 * estimated one on this machine when kernel tables are given (or the
 * roofline model alone, via the estimator), else the rate measured in the
 * trace, which the chart then says was measured on the trace's device. */
#ifndef FOM_ROOFLINE_RUN_H
#define FOM_ROOFLINE_RUN_H
#include <stddef.h>

#include "model/estimate.h"
#include "model/profile.h"
#include "report/roofline_chart.h"

struct diag;

struct roofline_run_opts {
    const char *machine;            /* MACHINE.xml */
    const char *profile;            /* trace or profile, or NULL */
    const char *const *kernels;     /* tables for an estimate, may be empty */
    size_t n_kernels;
    int estimate;                   /* place ops at estimated rates */
    const char *out_path;           /* .svg or .png */
};

/* Points of a profile's ops at their measured rates, one array per op
 * kind: pts[k] (n[k] points, caller frees each) for k < OP_KIND_COUNT. */
void roofline_points_profile(const struct profile *p, struct roof_point *pts[OP_KIND_COUNT],
                             size_t n[OP_KIND_COUNT]);
/* Points of an estimate's ops at their estimated device rates (caller
 * frees); ops without flops or bytes are left out. */
struct roof_point *roofline_points_estimate(const struct estimate *e, size_t *n);

int roofline_run(const struct roofline_run_opts *o, struct diag *d);

#endif
