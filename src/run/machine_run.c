#include "run/machine_run.h"

#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "core/xalloc.h"
#include "ingest/machine_xml.h"
#include "report/gnuplot.h"
#include "report/machine_chart.h"
#include "report/machine_render.h"

int machine_run_check_chart(const char *path, struct diag *d)
{
    if (path && gp_term_from_path(path) < 0)
        return diag_usage(d, "found chart '%s', expected a file name ending in .svg or .png", path);
    return FOM_OK;
}

int machine_run_validate(char *const *paths, int n, const struct machine_run_opts *o,
                         struct diag *d)
{
    struct outfile of = { 0 };
    int worst = 0;
    int rc = outfile_open(&of, o->out_path, d);
    if (rc)
        return rc;
    for (int i = 0; i < n; i++) {
        struct machine m;
        rc = machine_load(paths[i], &m, d);
        if (rc == 0)
            fprintf(of.fp, "%s: ok\n", paths[i]);
        else if (rc > worst)
            worst = rc;
        machine_release(&m);
    }
    rc = outfile_commit(&of, d);
    return rc ? rc : worst;
}

int machine_run_show(const char *path, const struct machine_run_opts *o, struct diag *d)
{
    struct machine m;
    struct outfile of = { 0 };
    int rc = machine_load(path, &m, d);
    if (rc)
        goto out;
    rc = outfile_open(&of, o->out_path, d);
    if (rc)
        goto out;
    machine_render_show(of.fp, &m, o->format);
    rc = outfile_commit(&of, d);
out:
    machine_release(&m);
    return rc;
}

int machine_run_compare(char *const *paths, int n, const struct machine_run_opts *o,
                        struct diag *d)
{
    struct machine *ms = xcalloc(n, sizeof *ms);
    struct outfile of = { 0 };
    int rc = 0;
    /* Report every bad file at once rather than one per run. */
    for (int i = 0; i < n; i++) {
        int r = machine_load(paths[i], &ms[i], d);
        if (r > rc)
            rc = r;
    }
    if (rc)
        goto out;
    rc = outfile_open(&of, o->out_path, d);
    if (rc)
        goto out;
    machine_render_compare(of.fp, ms, n, o->format);
    rc = outfile_commit(&of, d);
    if (rc == 0 && o->chart_path)
        rc = machine_compare_chart(ms, (size_t)n, o->chart_path, d);
out:
    for (int i = 0; i < n; i++)
        machine_release(&ms[i]);
    free(ms);
    return rc;
}
