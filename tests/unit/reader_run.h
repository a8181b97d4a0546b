/* Running a trace reader on a file or on text written to a temporary
 * file, with everything it says captured, for the reader unit tests. */
#ifndef FOM_READER_RUN_H
#define FOM_READER_RUN_H
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "model/profile.h"

struct run {
    struct profile p;
    struct diag d;
    char *msg;          /* everything the reader said */
    size_t msg_len;
    FILE *mf;
    int rc;
    char path[64];
};

typedef int reader_fn(const char *, const struct ingest_opts *, struct profile *, struct diag *);

/* tests/data/REL, wherever the tests run from. */
static inline const char *data_path(const char *rel, char *buf, size_t n)
{
    const char *dir = getenv("TESTS_DIR");
    snprintf(buf, n, "%s/data/%s", dir ? dir : "tests", rel);
    return buf;
}

static inline void write_file(struct run *r, const char *text)
{
    snprintf(r->path, sizeof r->path, "/tmp/fom-unit-XXXXXX");
    int fd = mkstemp(r->path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
}

static inline void run_on(struct run *r, reader_fn *fn, const char *path, int64_t batch)
{
    struct ingest_opts o = { TRACE_AUTO, batch, 1.0, NULL };
    profile_init(&r->p);
    r->mf = open_memstream(&r->msg, &r->msg_len);
    diag_init(&r->d, r->mf);
    r->rc = fn(path, &o, &r->p, &r->d);
    fflush(r->mf);
}

static inline void run_text(struct run *r, reader_fn *fn, const char *text, int64_t batch)
{
    write_file(r, text);
    run_on(r, fn, r->path, batch);
}

static inline void run_done(struct run *r)
{
    fclose(r->mf);
    free(r->msg);
    profile_release(&r->p);
    if (r->path[0])
        unlink(r->path);
}

static inline int has_flag(const struct op *op, const char *f)
{
    return op->flags && strstr(op->flags, f) != NULL;
}

/* The reader fails on text with FOM_EDATA and says where (the temporary
 * file's name followed by where_suffix, e.g. ":3:") and what (msg_part). */
static inline void expect_error(reader_fn *fn, const char *text, const char *where_suffix,
                                       const char *msg_part)
{
    struct run r = { 0 };
    run_text(&r, fn, text, 0);
    assert_int_equal(r.rc, FOM_EDATA);
    char want[256];
    snprintf(want, sizeof want, "%s%s", r.path, where_suffix);
    if (!strstr(r.msg, want) || !strstr(r.msg, msg_part))
        fail_msg("message '%s' lacks '%s' / '%s'", r.msg, want, msg_part);
    run_done(&r);
}

#endif
