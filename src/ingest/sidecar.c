#include "ingest/sidecar.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/stats.h"

/* A harness description is a few kilobytes; anything much larger is not one. */
#define SIDECAR_MAX_BYTES (1 << 20)

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* NAME of NAME.json.gz, NAME.pt.trace.json, NAME.table.txt, NAME.json. */
static void sidecar_path(const char *trace, struct strbuf *out)
{
    static const char *const sfx[] = { ".gz", ".json", ".txt", ".csv", ".table", ".pt.trace" };
    size_t n = strlen(trace);
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
        if (ends_with(trace, n, sfx[i]))
            n -= strlen(sfx[i]);
    strbuf_add(out, trace, n);
    strbuf_addstr(out, ".meta.json");
}

static int64_t get_int(yajl_val root, const char *key)
{
    const char *path[] = { key, NULL };
    yajl_val v = yajl_tree_get(root, path, yajl_t_number);
    return YAJL_IS_INTEGER(v) && v->u.number.i > 0 ? (int64_t)v->u.number.i : 0;
}

/* The 95% interval of the median of "step_time_s"'s "all" (the timed
 * steps), when it has six or more positive numbers. */
static void get_step_ci(yajl_val root, struct trace_sidecar *out)
{
    const char *path[] = { "step_time_s", "all", NULL };
    yajl_val v = yajl_tree_get(root, path, yajl_t_array);
    if (!v || !YAJL_IS_ARRAY(v) || v->u.array.len == 0 || v->u.array.len > 100000)
        return;
    size_t n = 0;
    double *x = xmalloc(v->u.array.len * sizeof *x);
    for (size_t i = 0; i < v->u.array.len; i++) {
        yajl_val e = v->u.array.values[i];
        double s = YAJL_IS_DOUBLE(e) ? e->u.number.d : YAJL_IS_INTEGER(e) ? (double)e->u.number.i : -1;
        if (isfinite(s) && s > 0)
            x[n++] = s;
    }
    struct median_ci ci;
    if (n == v->u.array.len && stats_median_ci(x, n, 0.95, &ci) == 0 && ci.available) {
        out->step_lo_s = ci.lo;
        out->step_hi_s = ci.hi;
    }
    free(x);
}

/* "step_time_s": a summary object's median, or a bare number of seconds;
 * absent: 0; anything else: -1. */
static double get_step(yajl_val root)
{
    const char *key[] = { "step_time_s", NULL }, *med[] = { "median", NULL };
    yajl_val v = yajl_tree_get(root, key, yajl_t_any);
    if (!v)
        return 0;
    if (YAJL_IS_OBJECT(v))
        v = yajl_tree_get(v, med, yajl_t_any);
    if (!v || !YAJL_IS_NUMBER(v))
        return -1;
    double s = YAJL_IS_DOUBLE(v) ? v->u.number.d : (double)v->u.number.i;
    return isfinite(s) && s > 0 ? s : -1;
}

int trace_sidecar_read(const char *trace, struct trace_sidecar *out, struct diag *d)
{
    struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    yajl_val root = NULL;
    FILE *fp = NULL;
    int rc = 0;
    char err[256] = "";
    memset(out, 0, sizeof *out);
    sidecar_path(trace, &path);
    fp = fopen(path.buf, "r");
    if (!fp) {
        if (errno != ENOENT)
            rc = diag_syserr(d, "cannot open '%s': %s", path.buf, strerror(errno));
        goto out;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        strbuf_add(&text, buf, n);
        if (text.len > SIDECAR_MAX_BYTES) {
            rc = diag_error_at(d, path.buf, 0, 0, "found more than %d bytes, expected the "
                               "small JSON object a harness writes beside its trace",
                               SIDECAR_MAX_BYTES);
            goto out;
        }
    }
    if (ferror(fp)) {
        rc = diag_syserr(d, "cannot read '%s': %s", path.buf, strerror(errno));
        goto out;
    }
    root = yajl_tree_parse(strbuf_str(&text), err, sizeof err);
    if (!root || !YAJL_IS_OBJECT(root)) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = 0;
        rc = diag_error_at(d, path.buf, 0, 0, "found %s, expected a JSON object",
                           root ? "another JSON value" : err);
        goto out;
    }
    out->batch = get_int(root, "batch");
    out->params = get_int(root, "params");
    out->step_s = get_step(root);
    if (out->step_s > 0)
        get_step_ci(root, out);
    if (out->step_s < 0) {
        rc = diag_error_at(d, path.buf, 0, 0, "found a step_time_s that is not a positive number "
                           "of seconds, expected {\"median\": S} or S, the step measured "
                           "without the profiler");
        goto out;
    }
    out->path = strbuf_detach(&path);
out:
    if (fp)
        fclose(fp);
    yajl_tree_free(root);
    strbuf_release(&path);
    strbuf_release(&text);
    return rc;
}

void trace_sidecar_release(struct trace_sidecar *s)
{
    free(s->path);
    memset(s, 0, sizeof *s);
}
