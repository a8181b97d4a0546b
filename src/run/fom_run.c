#include "run/fom_run.h"

#include "core/diag.h"
#include "core/outfile.h"
#include "ingest/study_xml.h"
#include "report/fom_render.h"
#include "run/study_eval.h"

int fom_run(const struct fom_run_opts *o, struct diag *d)
{
    struct study st;
    struct study_eval ev = { 0 };
    struct outfile of = { 0 };
    study_init(&st);
    int rc = study_load(o->study, &st, d);
    if (rc)
        goto out;
    rc = study_eval_run(&st, &ev, d);
    if (rc)
        goto out;
    rc = outfile_open(&of, o->out_path, d);
    if (rc)
        goto out;
    fom_render(of.fp, o->format, &st, &ev);
    rc = outfile_commit(&of, d);
out:
    study_eval_release(&ev);
    study_release(&st);
    return rc;
}
