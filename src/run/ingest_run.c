#include "run/ingest_run.h"

#include "core/diag.h"
#include "core/outfile.h"
#include "core/progress.h"
#include "report/profile_render.h"

int ingest_run(const struct ingest_run_opts *o, struct diag *d)
{
    struct ingest_opts read = o->read;
    struct progress prog;
    struct profile p;
    struct outfile of = { 0 };
    profile_init(&p);
    progress_init(&prog, o->progress, o->trace);
    read.progress = &prog;
    int rc = ingest_read(o->trace, &read, &p, d);
    if (rc)
        goto out;
    rc = outfile_open(&of, o->out_path, d);
    if (rc)
        goto out;
    profile_render(of.fp, &p, o->format);
    rc = outfile_commit(&of, d);
out:
    profile_release(&p);
    return rc;
}
