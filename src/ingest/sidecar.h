/* The run description a measuring harness writes beside a trace
 * (NAME.meta.json next to NAME.json.gz, as in profiles/): the one place a
 * Kineto trace's batch size can be read from reliably, since the trace
 * itself records shapes but not which dimension is the batch. */
#ifndef FOM_SIDECAR_H
#define FOM_SIDECAR_H
#include <stdint.h>

struct diag;

struct trace_sidecar {
    char *path;             /* the .meta.json read (owned) */
    int64_t batch;          /* "batch", 0 when absent */
    int64_t params;         /* "params", trained parameters, 0 when absent */
    double step_s;          /* "step_time_s": {"median": S} (or S), the run's step
                               measured without the profiler; 0 when absent */
    double step_lo_s, step_hi_s;    /* the 95% interval of that median from the
                                       timed steps ("all"), order statistics; 0
                                       when they are not given or too few */
};

/* Look for TRACE's sidecar (the trace's name without .gz and its last
 * extension, plus .meta.json; a .table.txt or .pt.trace name loses that
 * part too).  Returns 0 with out->path set when one was read, 0 with
 * out->path NULL when there is none, FOM_EDATA / FOM_ESYS when one exists
 * but cannot be read (the diag says why).  Release with
 * trace_sidecar_release. */
int trace_sidecar_read(const char *trace, struct trace_sidecar *out, struct diag *d);
void trace_sidecar_release(struct trace_sidecar *s);

#endif
