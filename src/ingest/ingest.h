/* Trace readers: each turns one input format into a struct profile (see
 * model/profile.h) holding the ops of ONE training pass.  Readers never
 * print except through the diag they are given, never exit, and return an
 * enum fom_status.  Errors name "file:line" (text formats) or "file: byte
 * N" (JSON, where lines can be megabytes long). */
#ifndef FOM_INGEST_H
#define FOM_INGEST_H
#include <stdint.h>

#include "model/profile.h"

struct diag;
struct progress;

enum trace_format {
    TRACE_AUTO,
    TRACE_KINETO,       /* PyTorch profiler chrome trace (.json, .json.gz) */
    TRACE_TFPROF,       /* TensorFlow tfprof op view text */
    TRACE_TF_TIMELINE,  /* TF1 timeline chrome trace */
    TRACE_PT_TABLE,     /* torch key_averages().table() text */
    TRACE_PROFILE,      /* a profile fom wrote (json or csv) */
};

struct ingest_opts {
    enum trace_format format;
    int64_t batch;      /* --batch N: resolves -1 dims (tfprof); 0 = not given */
    double top;         /* --top FRACTION in (0,1]; 1 keeps everything */
    struct progress *progress;  /* long reads report here; NULL: silent */
};

const char *trace_format_name(enum trace_format f);
/* Returns 0 and sets *f, or -1 for an unknown name. */
int trace_format_parse(const char *s, enum trace_format *f);

/* Read any supported input; with TRACE_AUTO the format is recognised from
 * the content (gzip is looked through).  out must be profile_init()ed. */
int ingest_read(const char *path, const struct ingest_opts *o,
                struct profile *out, struct diag *d);

/* The readers behind ingest_read (path already known to be that format). */
int kineto_read(const char *path, const struct ingest_opts *o, struct profile *out, struct diag *d);
int tfprof_read(const char *path, const struct ingest_opts *o, struct profile *out, struct diag *d);
int tf_timeline_read(const char *path, const struct ingest_opts *o, struct profile *out, struct diag *d);
int pt_table_read(const char *path, const struct ingest_opts *o, struct profile *out, struct diag *d);
int profile_file_read(const char *path, const struct ingest_opts *o, struct profile *out, struct diag *d);

#endif
