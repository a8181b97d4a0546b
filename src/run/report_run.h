/* `fom report`: study -> evaluation -> per-problem estimates -> charts ->
 * report.md, report.html, report.json and every chart as SVG and PNG in
 * one directory, each file written atomically.  Without gnuplot the text
 * and JSON are still written and the report says the charts were skipped. */
#ifndef FOM_REPORT_RUN_H
#define FOM_REPORT_RUN_H

struct diag;

struct report_run_opts {
    const char *study;      /* STUDY.xml */
    const char *out_dir;    /* created if missing (one level) */
    const char *version;    /* fom version, for the sources section */
};

/* Returns FOM_OK, FOM_EDATA (bad study or inputs), FOM_ESYS (cannot
 * write, gnuplot failed). */
int report_run(const struct report_run_opts *o, struct diag *d);

#endif
