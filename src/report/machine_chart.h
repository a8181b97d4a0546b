/* The chart of `fom machine compare --chart FILE`: two panels, peak rate
 * per precision [TFLOP/s] (log scale, the best of matrix and vector units)
 * and main-memory bandwidth per device [TB/s], one bar colour per machine. */
#ifndef FOM_MACHINE_CHART_H
#define FOM_MACHINE_CHART_H
#include <stddef.h>

struct machine;
struct strbuf;
struct diag;

/* Append the gnuplot script body; m[0] is the baseline.  Pure. */
void machine_compare_script(const struct machine *m, size_t n, struct strbuf *sb);

/* Write the chart of machines m[0..n) to out_path (.svg or .png,
 * atomically).  Returns 0, FOM_EUSAGE (bad extension) or FOM_ESYS (no
 * gnuplot, cannot write). */
int machine_compare_chart(const struct machine *m, size_t n, const char *out_path,
                          struct diag *d);

#endif
