/* What an estimated pass rests on, for a study's cell: the pass time, its
 * bound, the share of the ops' estimated time that each method gave
 * (shares sum to 1 over the methods; host dispatch and the end-of-pass
 * synchronisation are not attributed to a method), and the peak device
 * memory of one run against the device's capacity. */
#ifndef FOM_BASIS_H
#define FOM_BASIS_H
#include <stdint.h>

#include "model/estimate.h"
#include "model/memory.h"

struct estimate_basis {
    double pass_time_s;
    enum est_bound bound;
    double method_share[EST_METHOD_COUNT];  /* all 0 when the ops add up to no time */
    int64_t batch, profile_batch;           /* estimated at, profiled at (0: as profiled) */
    struct mem_estimate mem;
    double parameters;                      /* the count the memory estimate used, 0 unknown */
    const char *params_from;                /* static: "study", ".meta.json", NULL */
    double capacity_b;                      /* device memory, 0 unknown */
    int fits;                               /* 1 yes, 0 no, -1 unknown (no parameter
                                               count, or no capacity in the machine file) */
    int on_profiled_device;                 /* the machine is the profile's device */
    /* A study cell's estimate scaled to a measurement: the measured time on
     * the profile's own device over fom's estimate there (0: not scaled),
     * and that system's id (borrowed from the study). */
    double anchor;
    const char *anchor_system;
    /* The trace's host times calibrated against its run's step measured
     * without the profiler (struct estimate: host_scale): the factor, 0
     * when not calibrated. */
    double host_scale;
};

#endif
