/* Read back a profile that `fom ingest --format-out json|csv` wrote, so a
 * saved profile is accepted wherever a trace is.
 *
 * JSON: {"format":..., "steps":..., ..., "ops":[{"name":..., "conv":{...}, "id":N}...],
 *        "calls":[[op_id, step, host_start_s, host_s, device_s]...]}
 *       keys in any order, unknown keys (and their values, however nested)
 *       skipped, null read as "absent".
 * CSV:  "# key: value" comment lines for the profile fields, one header
 *       line (names may carry " [unit]"), one RFC-4180 row per op; quoted
 *       fields may hold commas, quotes and newlines.  The calls are comment
 *       lines "# call: op_id,step,host_start_s,host_s,device_s" anywhere.
 * The calls (Kineto traces) let the estimator replay a step; they name
 * ops by id, so when there are calls the op ids must be distinct and each
 * call's id must be one of them.  A call without an op id is the call of
 * an op that --top dropped.
 * The figures in the file are already per pass; they are kept as they are.
 * "format" stays the format of the original trace. */
#include "ingest/ingest.h"
#include "ingest/json_alloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/textio.h"

#define MAX_STR (1u << 16)
#define MAX_OPS (1u << 22)
#define MAX_OP_ID (1u << 24)
#define MAX_CALLS (1u << 24)

/* ------------------------------------------------------------------ */
/* field setters shared by both syntaxes.  val == NULL means null/empty.
 * Return 0 (set), 1 (unknown key, ignored) or -1 (*expected says what
 * would have been accepted). */

static int num(const char *val, double *out, const char **expected)
{
    if (!val || !*val) {
        *out = 0;
        return 0;
    }
    char *end;
    double v;
    /* up to 15 digits: exact in a double, the value strtod would give
     * (counts, sizes and ids, most of a saved profile's numbers) */
    size_t nd = 0;
    int64_t x = 0;
    while (nd < 16 && val[nd] >= '0' && val[nd] <= '9')
        x = x * 10 + (val[nd++] - '0');
    if (nd > 0 && nd <= 15 && (val[nd] == '\0' || val[nd] == ' ')) {
        end = (char *)val + nd;
        v = (double)x;
    } else {
        errno = 0;
        v = strtod(val, &end);
    }
    while (*end == ' ')
        end++;
    if (end == val || *end || !isfinite(v) || v < 0) {
        *expected = "a finite number >= 0";
        return -1;
    }
    *out = v;
    return 0;
}

static int whole(const char *val, int64_t *out, const char **expected)
{
    double v;
    if (num(val, &v, expected) < 0)
        return -1;
    if (v != floor(v) || v > 9.0e15) {
        *expected = "a whole number >= 0";
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int op_id(const char *val, size_t *out, const char **expected)
{
    int64_t v;
    if (whole(val, &v, expected) < 0 || v >= (int64_t)MAX_OP_ID) {
        *expected = "an op id (a whole number below 16777216)";
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static void str(const char *val, char **out)
{
    free(*out);
    *out = val && *val ? xstrdup(val) : NULL;
}

static int conv_set(struct conv_shape *c, const char *key, const char *val, const char **expected)
{
    static const char *const names[] = {
        "n", "c", "h", "w", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
        "dil_h", "dil_w", "groups", "p", "q", "d", "t", "stride_d", "pad_d", "dil_d", "o",
    };
    int64_t *dst[] = {
        &c->n, &c->c, &c->h, &c->w, &c->k, &c->r, &c->s, &c->stride_h, &c->stride_w,
        &c->pad_h, &c->pad_w, &c->dil_h, &c->dil_w, &c->groups, &c->p, &c->q,
        &c->d, &c->t, &c->stride_d, &c->pad_d, &c->dil_d, &c->o,
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(key, names[i]) == 0)
            return whole(val, dst[i], expected);
    if (strcmp(key, "dims") == 0) {
        int64_t v = 0;
        if (whole(val, &v, expected) < 0 || v > 3) {
            *expected = "1, 2 or 3 spatial dimensions";
            return -1;
        }
        c->dims = (int)v;
        return 0;
    }
    return 1;
}

/* A short name into a fixed buffer (struct op kop, kmode). */
static int short_name(const char *val, char *dst, size_t size, const char **expected)
{
    size_t n = val ? strlen(val) : 0;
    if (n >= size) {
        *expected = size > 10 ? "a name of at most 31 characters" : "a mode of at most 7 characters";
        return -1;
    }
    memcpy(dst, val ? val : "", n);
    dst[n] = 0;
    return 0;
}

/* The sizes a kernel table keys on: kdim_0 .. kdim_5, kop, kmode, kflag
 * (struct op).  Returns 1 for another key. */
static int table_sizes_set(struct op *op, const char *key, const char *val, const char **expected)
{
    if (strncmp(key, "kdim_", 5) == 0 && key[5] >= '0' && key[5] <= '5' && !key[6])
        return whole(val, &op_sizes_mut(op)->kdim[key[5] - '0'], expected);
    if (strcmp(key, "kop") == 0)
        return short_name(val, op_sizes_mut(op)->kop, sizeof op->sizes->kop, expected);
    if (strcmp(key, "kmode") == 0)
        return short_name(val, op_sizes_mut(op)->kmode, sizeof op->sizes->kmode, expected);
    if (strcmp(key, "kflag") == 0) {
        /* -1: the trace does not say */
        if (val && strcmp(val, "-1") == 0) {
            op->kflag = -1;
            return 0;
        }
        int64_t v = 0;
        if (whole(val, &v, expected) < 0 || v > 1) {
            *expected = "-1, 0 or 1";
            return -1;
        }
        op->kflag = (int)v;
        return 0;
    }
    return 1;
}

static int op_set(struct op *op, const char *key, const char *val, const char **expected)
{
    if (key[0] == 'n' && strcmp(key, "name") == 0) {
        free(op->name);
        op->name = val && *val ? xstrndup(val, op_name_len(val, strlen(val))) : NULL;
        return 0;
    }
    if (key[0] == 'k' && strcmp(key, "kind") == 0) {
        enum op_kind k = op_kind_parse(val);
        if (k == OP_KIND_COUNT) {
            *expected = "a kind (gemm, conv, rnn, attention, elementwise, reduction, norm, "
                        "embedding, optimizer, memcpy, comm, other)";
            return -1;
        }
        op->kind = k;
        return 0;
    }
    if (key[0] == 'p' && strcmp(key, "phase") == 0) {
        op->phase = op_phase_parse(val);
        if (op->phase == PHASE_UNKNOWN && val && *val && strcmp(val, "unknown") != 0) {
            *expected = "forward, backward, optimizer or unknown";
            return -1;
        }
        return 0;
    }
    if (key[0] == 'd' && strcmp(key, "dtype") == 0) {
        op->dtype = precision_parse(val);
        return 0;
    }
    if ((key[0] == 'a' && strcmp(key, "a_t") == 0) || (key[0] == 'b' && strcmp(key, "b_t") == 0)) {
        char *t = key[0] == 'a' ? &op->a_t : &op->b_t;
        if (!val || !*val)
            *t = 0;
        else if ((val[0] == 'N' || val[0] == 'T') && !val[1])
            *t = val[0];
        else {
            *expected = "\"N\", \"T\" or \"\"";
            return -1;
        }
        return 0;
    }
    if (key[0] == 'i' && strcmp(key, "id") == 0)
        return op_id(val, &op->id, expected);
    if (key[0] == 's' && strcmp(key, "shapes") == 0) {
        str(val, &op->shapes);
        return 0;
    }
    if (key[0] == 'f' && strcmp(key, "flags") == 0) {
        str(val, &op->flags);
        return 0;
    }
    static const char *const dnames[] = {
        "count", "time_s", "device_time_s", "host_time_s", "kernels", "flops", "bytes",
    };
    double *ddst[] = {
        &op->count, &op->time_s, &op->device_time_s, &op->host_time_s, &op->kernels,
        &op->flops, &op->bytes,
    };
    for (size_t i = 0; i < sizeof dnames / sizeof dnames[0]; i++)
        if (key[0] == dnames[i][0] && strcmp(key, dnames[i]) == 0)
            return num(val, ddst[i], expected);
    static const char *const inames[] = { "m", "n", "k", "batch" };
    int64_t *idst[] = { &op->m, &op->n, &op->k, &op->batch };
    for (size_t i = 0; i < 4; i++)
        if (key[0] == inames[i][0] && strcmp(key, inames[i]) == 0)
            return whole(val, idst[i], expected);
    /* after the numbers every op has: no key is in both */
    if (key[0] == 'k') {
        int r = table_sizes_set(op, key, val, expected);
        if (r <= 0)
            return r;
    }
    /* csv spellings of the conv parameters */
    if (strncmp(key, "conv_", 5) == 0)
        return conv_set(op_conv_mut(op), key + 5, val, expected);
    if (strncmp(key, "stride_", 7) == 0 || strncmp(key, "pad_", 4) == 0 ||
        strncmp(key, "dil_", 4) == 0 || (key[0] == 'g' && strcmp(key, "groups") == 0))
        return conv_set(op_conv_mut(op), key, val, expected);
    return 1;
}

struct seen {
    int total, has_device;
};

/* ------------------------------------------------------------------ */
/* calls */

/* No op in the file: the call of an op --top dropped (until check_ids). */
#define DROPPED_OP SIZE_MAX

static const char *const call_fields[] = { "op_id", "step", "host_start_s", "host_s", "device_s" };
#define CALL_FIELDS 5

static int call_set(struct op_call *c, int field, const char *val, const char **expected)
{
    if (field == 0) {
        if (!val || !*val) {
            c->op_id = DROPPED_OP;
            return 0;
        }
        if (op_id(val, &c->op_id, expected) < 0) {
            *expected = "an op id (a whole number below 16777216) or none";
            return -1;
        }
        return 0;
    }
    if (field == 1) {
        int64_t v;
        if (whole(val, &v, expected) < 0 || v > 1000000000) {
            *expected = "a step number (a whole number >= 0)";
            return -1;
        }
        c->step = (int)v;
        return 0;
    }
    double *dst[] = { &c->host_start_s, &c->host_s, &c->device_s };
    return num(val, dst[field - 2], expected);
}

/* Where each op and call began in the file (line, or byte for JSON), for
 * the messages of check_ids. */
struct where {
    int bytes;
    unsigned long long *op, *call;
    size_t alloc_op, alloc_call;
};

static void where_op(struct where *w, size_t i, unsigned long long at)
{
    ALLOC_GROW(w->op, i + 1, w->alloc_op);
    w->op[i] = at;
}

static void where_release(struct where *w)
{
    free(w->op);
    free(w->call);
}

static struct op_call *add_call(struct profile *p, struct where *w, unsigned long long at)
{
    ALLOC_GROW(p->calls, p->n_calls + 1, p->alloc_calls);
    ALLOC_GROW(w->call, p->n_calls + 1, w->alloc_call);
    w->call[p->n_calls] = at;
    struct op_call *c = &p->calls[p->n_calls++];
    memset(c, 0, sizeof *c);
    return c;
}

static int byte_error(struct diag *d, const char *path, unsigned long long at, const char *msg)
{
    char *where = textio_byte_where(path, at);
    int rc = diag_error_at(d, where, 0, 0, "%s", msg);
    free(where);
    return rc;
}

static int where_error(struct diag *d, const char *path, const struct where *w,
                       unsigned long long at, const char *msg)
{
    if (w->bytes)
        return byte_error(d, path, at, msg);
    return diag_error_at(d, path, (long)at, 0, "%s", msg);
}

struct id_at {
    size_t id, i;
};

static int cmp_id_at(const void *pa, const void *pb)
{
    const struct id_at *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Every call names an op by id: known(ctx, id) says whether one has it.
 * Calls of ops dropped by --top get the id `none`, above every op's. */
static int check_calls(struct profile *p, const struct where *w, const char *path, struct diag *d,
                       size_t none, int (*known)(const void *ctx, size_t id), const void *ctx)
{
    for (size_t j = 0; j < p->n_calls; j++) {
        struct op_call *c = &p->calls[j];
        if (c->op_id == DROPPED_OP) {
            c->op_id = none;
            continue;
        }
        if (!known(ctx, c->op_id)) {
            struct strbuf sb = STRBUF_INIT;
            strbuf_addf(&sb, "found a call of op id %zu, expected the id of an op in the file "
                        "(or none for an op dropped by --top)", c->op_id);
            int rc = where_error(d, path, w, w->call[j], sb.buf);
            strbuf_release(&sb);
            return rc;
        }
    }
    return FOM_OK;
}

struct ids_sorted { const struct id_at *ids; size_t n; };

static int id_in_sorted(const void *ctx, size_t id)
{
    const struct ids_sorted *x = ctx;
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->ids[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->n && x->ids[lo].id == id;
}

struct ids_dense { const size_t *at; size_t max_id; };

static int id_in_dense(const void *ctx, size_t id)
{
    const struct ids_dense *x = ctx;
    return id <= x->max_id && x->at[id] != SIZE_MAX;
}

/* check_ids by sorting, for ids spread far above the number of ops. */
static int check_ids_sorted(struct profile *p, const struct where *w, const char *path, struct diag *d)
{
    if (!p->n_calls)
        return FOM_OK;
    int rc = FOM_OK;
    struct strbuf sb = STRBUF_INIT;
    struct id_at *ids = xmalloc((p->n_ops + 1) * sizeof *ids);
    for (size_t i = 0; i < p->n_ops; i++) {
        ids[i].id = p->ops[i].id;
        ids[i].i = i;
    }
    qsort(ids, p->n_ops, sizeof *ids, cmp_id_at);
    for (size_t i = 1; i < p->n_ops; i++)
        if (ids[i].id == ids[i - 1].id) {
            strbuf_addf(&sb, "found op id %zu a second time, expected a distinct id per op "
                        "(the calls name ops by id)", ids[i].id);
            rc = where_error(d, path, w, w->op[ids[i].i], sb.buf);
            goto out;
        }
    struct ids_sorted ctx = { ids, p->n_ops };
    rc = check_calls(p, w, path, d, p->n_ops ? ids[p->n_ops - 1].id + 1 : 0, id_in_sorted, &ctx);
out:
    free(ids);
    strbuf_release(&sb);
    return rc;
}

/* The estimator looks ops up by the calls' ids: every id a call names
 * must be one op's.  Calls of dropped ops get an id above every op's.
 * Where the ids are dense (mostly 0..n-1), a table by id finds them in
 * one pass (a sort cost a tenth of reading a million-op profile); of
 * duplicated ids the least is reported, at its second op, as the sort
 * does. */
static int check_ids(struct profile *p, const struct where *w, const char *path, struct diag *d)
{
    if (!p->n_calls)
        return FOM_OK;
    size_t max_id = 0, dup = SIZE_MAX;
    for (size_t i = 0; i < p->n_ops; i++)
        if (p->ops[i].id > max_id)
            max_id = p->ops[i].id;
    /* a table of at most a few words per op */
    if (max_id > 4 * p->n_ops + 1024)
        return check_ids_sorted(p, w, path, d);
    int rc = FOM_OK;
    struct strbuf sb = STRBUF_INIT;
    size_t *at = xmalloc((max_id + 1) * sizeof *at);
    for (size_t id = 0; id <= max_id; id++)
        at[id] = SIZE_MAX;
    for (size_t i = 0; i < p->n_ops; i++) {
        size_t id = p->ops[i].id;
        if (at[id] == SIZE_MAX)
            at[id] = i;
        else if (dup == SIZE_MAX || id < p->ops[dup].id)
            dup = i;
    }
    if (dup != SIZE_MAX) {
        strbuf_addf(&sb, "found op id %zu a second time, expected a distinct id per op "
                    "(the calls name ops by id)", p->ops[dup].id);
        rc = where_error(d, path, w, w->op[dup], sb.buf);
        goto out;
    }
    struct ids_dense ctx = { at, max_id };
    rc = check_calls(p, w, path, d, p->n_ops ? max_id + 1 : 0, id_in_dense, &ctx);
out:
    free(at);
    strbuf_release(&sb);
    return rc;
}

static int prof_set(struct profile *p, struct seen *seen, const char *key, const char *val,
                    const char **expected)
{
    if (strcmp(key, "format") == 0) {
        str(val, &p->format);
        return 0;
    }
    if (strcmp(key, "source") == 0) {
        str(val, &p->source);
        return 0;
    }
    if (strcmp(key, "device") == 0) {
        str(val, &p->device_name);
        return 0;
    }
    if (strcmp(key, "framework") == 0) {
        str(val, &p->framework);
        return 0;
    }
    if (strcmp(key, "measured_step_from") == 0) {
        str(val, &p->measured_step_from);
        return 0;
    }
    if (strcmp(key, "measured_step_s") == 0) {
        if (!val)
            return 0;
        if (num(val, &p->measured_step_s, expected) < 0 || !(p->measured_step_s > 0)) {
            *expected = "a positive number of seconds or null";
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "dtype") == 0) {
        p->dtype = precision_parse(val);
        return 0;
    }
    if (strcmp(key, "steps") == 0) {
        int64_t v;
        if (whole(val, &v, expected) < 0 || v > 1000000000) {
            *expected = "a whole number of steps";
            return -1;
        }
        p->steps = (int)v;
        return 0;
    }
    if (strcmp(key, "batch") == 0)
        return whole(val, &p->batch, expected);
    if (strcmp(key, "has_device") == 0) {
        p->has_device = val && (strcmp(val, "true") == 0 || strcmp(val, "1") == 0);
        seen->has_device = 1;
        return 0;
    }
    if (strcmp(key, "dropped_ops") == 0) {
        int64_t v;
        if (whole(val, &v, expected) < 0)
            return -1;
        p->dropped_ops = (size_t)v;
        return 0;
    }
    static const char *const dnames[] = {
        "total_time_s", "step_time_s", "host_time_s", "coverage", "dropped_time_s", "profiler_host_s",
        "measured_step_lo_s", "measured_step_hi_s",
    };
    double *ddst[] = {
        &p->total_time_s, &p->step_time_s, &p->host_time_s, &p->coverage, &p->dropped_time_s,
        &p->profiler_host_s, &p->measured_step_lo_s, &p->measured_step_hi_s,
    };
    for (size_t i = 0; i < sizeof dnames / sizeof dnames[0]; i++)
        if (strcmp(key, dnames[i]) == 0) {
            if (i == 0)
                seen->total = 1;
            if (i == 3 && !val)
                return 0;   /* keep 1.0 */
            return num(val, ddst[i], expected);
        }
    return 1;
}

/* Fill what a saved file may leave out, and check what it must have. */
static void finish(struct profile *p, const struct seen *seen, const char *path,
                   const char *fallback_format)
{
    if (!p->format)
        p->format = xstrdup(fallback_format);
    if (!p->source)
        p->source = xstrdup(path);
    if (p->steps <= 0)
        p->steps = 1;
    double sum = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        struct op *op = &p->ops[i];
        sum += op->time_s;
        if (!seen->has_device && op->device_time_s > 0)
            p->has_device = 1;
        struct conv_shape *c = op->conv;
        if (op->kind == OP_CONV && c && c->p == 0 && c->h > 0 && c->r > 0) {
            int64_t sh = c->stride_h > 0 ? c->stride_h : 1, sw = c->stride_w > 0 ? c->stride_w : 1;
            int64_t dh = c->dil_h > 0 ? c->dil_h : 1, dw = c->dil_w > 0 ? c->dil_w : 1;
            int64_t ph = c->h + 2 * c->pad_h - dh * (c->r - 1) - 1;
            int64_t pw = c->w + 2 * c->pad_w - dw * (c->s - 1) - 1;
            if (ph >= 0 && pw >= 0) {
                c->p = ph / sh + 1;
                c->q = pw / sw + 1;
            }
        }
    }
    if (!seen->total)
        p->total_time_s = sum;
    if (p->device_name)
        p->has_device = 1;
}

/* ------------------------------------------------------------------ */
/* JSON */

struct pj {
    struct profile *p;
    struct seen seen;
    int depth;
    int skip;               /* >0: inside a value we ignore */
    int in_ops;             /* the ops array is open */
    int in_op;              /* an op object is open */
    int in_conv;
    int in_calls;           /* the calls array is open */
    int in_call;            /* one call's array is open */
    int call_field;         /* numbers read of that call */
    struct op *op;
    yajl_handle h;
    const unsigned long long *base;
    struct where w;
    char key[64];
    int key_cut;
    char *err;              /* message when a callback stopped the parse */
    int saw_ops, top_ok;
};

static int pj_fail(struct pj *j, const char *key, const char *val, const char *expected)
{
    struct strbuf sb = STRBUF_INIT;
    if (val)
        strbuf_addf(&sb, "found %.60s for \"%s\", expected %s", val, key, expected);
    else
        strbuf_addf(&sb, "found null for \"%s\", expected %s", key, expected);
    free(j->err);
    j->err = strbuf_detach(&sb);
    return 0;
}

static int pj_failf(struct pj *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int pj_failf(struct pj *j, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    free(j->err);
    j->err = strbuf_detach(&sb);
    return 0;
}

static unsigned long long pj_at(const struct pj *j)
{
    return *j->base + yajl_get_bytes_consumed(j->h);
}

static int pj_value(struct pj *j, const char *val)
{
    const char *expected = "";
    if (j->skip)
        return 1;
    if (j->in_call && j->depth == 3) {
        if (j->call_field >= CALL_FIELDS)
            return pj_failf(j, "found %.60s after a call's 5 numbers, expected ']' "
                            "([op_id, step, host_start_s, host_s, device_s])", val ? val : "null");
        int f = j->call_field++;
        if (call_set(&j->p->calls[j->p->n_calls - 1], f, val, &expected) < 0)
            return pj_failf(j, "found %.60s as a call's %s, expected %s", val ? val : "null",
                            call_fields[f], expected);
        return 1;
    }
    if (j->in_calls && j->depth == 2)
        return pj_failf(j, "found %.60s inside \"calls\", expected [op_id, step, host_start_s, "
                        "host_s, device_s] arrays", val ? val : "null");
    if (j->key_cut)
        return 1;   /* no known key is that long */
    if (j->in_conv && j->depth == 4) {
        if (conv_set(op_conv_mut(j->op), j->key, val, &expected) < 0)
            return pj_fail(j, j->key, val, expected);
        return 1;
    }
    if (j->in_op && j->depth == 3) {
        if (op_set(j->op, j->key, val, &expected) < 0)
            return pj_fail(j, j->key, val, expected);
        return 1;
    }
    if (j->depth == 1) {
        if (prof_set(j->p, &j->seen, j->key, val, &expected) < 0)
            return pj_fail(j, j->key, val, expected);
        return 1;
    }
    return 1;
}

static int pj_null(void *ctx) { return pj_value(ctx, NULL); }
static int pj_bool(void *ctx, int b) { return pj_value(ctx, b ? "true" : "false"); }

static int pj_number(void *ctx, const char *s, size_t n)
{
    char buf[64];
    if (n >= sizeof buf)
        return pj_fail(ctx, ((struct pj *)ctx)->key, "a number too long", "a number");
    memcpy(buf, s, n);
    buf[n] = '\0';
    return pj_value(ctx, buf);
}

static int pj_string(void *ctx, const unsigned char *s, size_t n)
{
    struct pj *j = ctx;
    if (j->skip)
        return 1;
    /* names are cut as every reader cuts them; other strings are short */
    if (strcmp(j->key, "name") == 0)
        n = op_name_len((const char *)s, n);
    if (n > MAX_STR || memchr(s, '\0', n))
        return pj_fail(j, j->key, "an overlong or NUL-holding string", "a short text");
    /* most values are short: no allocation for them */
    char small[256];
    char *v = n < sizeof small ? small : xmalloc(n + 1);
    memcpy(v, s, n);
    v[n] = '\0';
    int rc = pj_value(j, v);
    if (v != small)
        free(v);
    return rc;
}

static int pj_key(void *ctx, const unsigned char *s, size_t n)
{
    struct pj *j = ctx;
    j->key_cut = n >= sizeof j->key;
    if (j->key_cut)
        n = sizeof j->key - 1;
    memcpy(j->key, s, n);
    j->key[n] = '\0';
    return 1;
}

static int pj_open(struct pj *j, int is_map)
{
    j->depth++;
    if (j->skip) {
        j->skip++;
        return 1;
    }
    if (j->depth == 1) {
        if (!is_map) {
            free(j->err);
            j->err = xstrdup("found an array, expected a profile object {\"format\":..., \"ops\":[...]}");
            return 0;
        }
        j->top_ok = 1;
        return 1;
    }
    if (j->depth == 2 && !is_map && strcmp(j->key, "ops") == 0 && !j->key_cut) {
        j->in_ops = 1;
        j->saw_ops = 1;
        return 1;
    }
    if (j->depth == 2 && !is_map && strcmp(j->key, "calls") == 0 && !j->key_cut) {
        j->in_calls = 1;
        return 1;
    }
    if (j->depth == 3 && j->in_calls) {
        if (is_map)
            return pj_failf(j, "found an object inside \"calls\", expected [op_id, step, "
                            "host_start_s, host_s, device_s] arrays");
        if (j->p->n_calls >= MAX_CALLS)
            return pj_failf(j, "found too many calls, expected at most %u", MAX_CALLS);
        add_call(j->p, &j->w, pj_at(j));
        j->in_call = 1;
        j->call_field = 0;
        return 1;
    }
    if (j->depth == 4 && j->in_call)
        return pj_failf(j, "found %s inside a call, expected numbers",
                        is_map ? "an object" : "an array");
    if (j->depth == 3 && j->in_ops && is_map) {
        if (j->p->n_ops >= MAX_OPS) {
            free(j->err);
            j->err = xstrdup("found too many ops, expected at most 4194304");
            return 0;
        }
        where_op(&j->w, j->p->n_ops, pj_at(j));
        j->op = profile_add_op(j->p);
        j->in_op = 1;
        return 1;
    }
    if (j->depth == 4 && j->in_op && is_map && strcmp(j->key, "conv") == 0) {
        j->in_conv = 1;
        return 1;
    }
    if (j->depth == 3 && j->in_ops) {
        free(j->err);
        j->err = xstrdup("found an array inside \"ops\", expected op objects");
        return 0;
    }
    j->skip = 1;
    return 1;
}

static int pj_close(struct pj *j)
{
    if (j->skip) {
        j->skip--;
        j->depth--;
        return 1;
    }
    if (j->in_call && j->depth == 3) {
        j->in_call = 0;
        if (j->call_field != CALL_FIELDS)
            return pj_failf(j, "found a call of %d numbers, expected 5: [op_id, step, "
                            "host_start_s, host_s, device_s]", j->call_field);
    } else if (j->in_calls && j->depth == 2)
        j->in_calls = 0;
    else if (j->in_conv && j->depth == 4)
        j->in_conv = 0;
    else if (j->in_op && j->depth == 3) {
        j->in_op = 0;
        if (!j->op->name) {
            free(j->err);
            j->err = xstrdup("found an op without \"name\", expected every op to have one");
            return 0;
        }
    } else if (j->in_ops && j->depth == 2)
        j->in_ops = 0;
    j->depth--;
    return 1;
}

static int pj_start_map(void *ctx) { return pj_open(ctx, 1); }
static int pj_start_array(void *ctx) { return pj_open(ctx, 0); }
static int pj_end(void *ctx) { return pj_close(ctx); }

static const yajl_callbacks pj_callbacks = {
    pj_null, pj_bool, NULL, NULL, pj_number, pj_string,
    pj_start_map, pj_key, pj_end, pj_start_array, pj_end,
};

static int read_json(const char *path, gzFile gz, struct profile *out, struct diag *d)
{
    struct pj j;
    memset(&j, 0, sizeof j);
    j.p = out;
    yajl_handle h = yajl_alloc(&pj_callbacks, json_alloc_funcs(), &j);
    unsigned char *buf = xmalloc(65536);
    unsigned long long base = 0;
    j.h = h;
    j.base = &base;
    j.w.bytes = 1;
    int rc = FOM_OK, status = 0;
    long got;
    while ((got = textio_gzread(gz, path, buf, 65536, d, &status)) > 0) {
        if (yajl_parse(h, buf, (size_t)got) != yajl_status_ok) {
            unsigned long long at = base + yajl_get_bytes_consumed(h);
            if (j.err) {
                rc = byte_error(d, path, at, j.err);
            } else {
                unsigned char *m = yajl_get_error(h, 0, buf, (size_t)got);
                /* yajl's message may end in a newline: keep the first line */
                size_t ml = strcspn((char *)m, "\n");
                struct strbuf sb = STRBUF_INIT;
                strbuf_addf(&sb, "found invalid JSON (%.*s), expected a saved profile", (int)ml,
                            (char *)m);
                yajl_free_error(h, m);
                rc = byte_error(d, path, at, sb.buf);
                strbuf_release(&sb);
            }
            goto out;
        }
        base += (unsigned long long)got;
    }
    if (got < 0) {
        rc = status;
        goto out;
    }
    if (yajl_complete_parse(h) != yajl_status_ok) {
        rc = byte_error(d, path, base,
                        "found the end of the file inside a JSON value, expected a complete "
                        "profile (truncated file?)");
        goto out;
    }
    if (!j.saw_ops) {
        rc = byte_error(d, path, base, "found no \"ops\" array, expected a saved profile");
        goto out;
    }
    finish(out, &j.seen, path, "profile-json");
    rc = check_ids(out, &j.w, path, d);
out:
    where_release(&j.w);
    free(j.err);
    free(buf);
    yajl_free(h);
    return rc;
}

/* ------------------------------------------------------------------ */
/* CSV */

#define MAX_FIELDS 64

/* Split one record (which may span lines: t->cur gets more lines appended)
 * into fields.  Returns the number of fields or -1 (message given). */
static int csv_record(struct textio *t, struct strbuf *rec, char **fields, struct diag *d,
                      int *status)
{
    long start = t->line;
    for (;;) {
        /* is a quote still open? */
        int open = 0;
        for (size_t i = 0; i < rec->len; i++)
            if (rec->buf[i] == '"')
                open = !open;
        if (!open)
            break;
        int got = textio_next(t, d);
        if (got < 0) {
            *status = t->status;
            return -1;
        }
        if (got == 0) {
            *status = diag_error_at(d, t->path, start, 0,
                                    "found a quoted field that is never closed, expected a closing '\"'");
            return -1;
        }
        if (rec->len + t->cur.len > TEXTIO_MAX_LINE) {
            *status = diag_error_at(d, t->path, start, 0,
                                    "found a record longer than %u bytes, expected short rows",
                                    TEXTIO_MAX_LINE);
            return -1;
        }
        strbuf_addch(rec, '\n');
        strbuf_add(rec, t->cur.buf, t->cur.len);
    }
    int n = 0;
    size_t i = 0;
    struct strbuf f = STRBUF_INIT;
    for (;;) {
        strbuf_reset(&f);
        if (i < rec->len && rec->buf[i] == '"') {
            i++;
            while (i < rec->len) {
                if (rec->buf[i] == '"') {
                    if (i + 1 < rec->len && rec->buf[i + 1] == '"') {
                        strbuf_addch(&f, '"');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                strbuf_addch(&f, rec->buf[i++]);
            }
            if (i < rec->len && rec->buf[i] != ',') {
                strbuf_release(&f);
                for (int q = 0; q < n; q++)
                    free(fields[q]);
                *status = diag_error_at(d, t->path, start, 0,
                                        "found text after a closing quote in field %d, expected ','",
                                        n + 1);
                return -1;
            }
        } else {
            while (i < rec->len && rec->buf[i] != ',')
                strbuf_addch(&f, rec->buf[i++]);
        }
        if (n >= MAX_FIELDS) {
            strbuf_release(&f);
            for (int q = 0; q < n; q++)
                free(fields[q]);
            *status = diag_error_at(d, t->path, start, 0,
                                    "found more than %d fields, expected a saved profile row",
                                    MAX_FIELDS);
            return -1;
        }
        fields[n++] = strbuf_detach(&f);
        if (i >= rec->len)
            break;
        i++;    /* the comma */
    }
    strbuf_release(&f);
    return n;
}

/* "# call: op_id,step,host_start_s,host_s,device_s" (op_id empty: dropped) */
static int csv_call(struct textio *t, struct profile *p, struct where *w, struct diag *d)
{
    if (p->n_calls >= MAX_CALLS)
        return diag_error_at(d, t->path, t->line, 0, "found too many calls, expected at most %u",
                             MAX_CALLS);
    struct op_call *c = add_call(p, w, (unsigned long long)t->line);
    const char *s = t->cur.buf + 7;
    for (int f = 0; f < CALL_FIELDS; f++) {
        size_t len = strcspn(s, ",");
        const char *v = textio_trim(s, &len);
        char *val = xstrndup(v, len);
        const char *expected = "";
        int r = call_set(c, f, val, &expected);
        if (r < 0) {
            r = diag_error_at(d, t->path, t->line, 0, "found '%.40s' as a call's %s, expected %s",
                              val, call_fields[f], expected);
            free(val);
            return r;
        }
        free(val);
        s += strcspn(s, ",");
        if (f == CALL_FIELDS - 1)
            break;
        if (*s != ',')
            return diag_error_at(d, t->path, t->line, 0,
                                 "found %d numbers in a call, expected 5: "
                                 "op_id,step,host_start_s,host_s,device_s", f + 1);
        s++;
    }
    if (*s)
        return diag_error_at(d, t->path, t->line, 0,
                             "found more than 5 numbers in a call, expected 5: "
                             "op_id,step,host_start_s,host_s,device_s");
    return FOM_OK;
}

/* "# key: value" before the header: a field of the profile. */
static int csv_meta(const struct textio *t, struct profile *out, struct seen *seen,
                    struct diag *d)
{
    int rc = 0;
    const char *s = t->cur.buf + 1;
    const char *colon = strchr(s, ':');
    if (!colon)
        return diag_error_at(d, t->path, t->line, 0, "found '%.40s', expected '# key: value'",
                             t->cur.buf);
    size_t kl = (size_t)(colon - s), vl = strlen(colon + 1);
    const char *k = textio_trim(s, &kl), *v = textio_trim(colon + 1, &vl);
    char *key = xstrndup(k, kl), *val = xstrndup(v, vl);
    const char *expected = "";
    /* the writer puts '-' for an absent device or framework */
    int none = strcmp(val, "null") == 0 || strcmp(val, "-") == 0;
    int r = prof_set(out, seen, key, none ? NULL : val, &expected);
    if (r < 0)
        rc = diag_error_at(d, t->path, t->line, 0, "found '%.40s' for '%s', expected %s", val,
                           key, expected);
    free(key);
    free(val);
    return rc;
}

/* The header's column names, units dropped ("time_s [s]" -> "time_s");
 * takes the fields.  Sets *name_col, -1 when there is no name column. */
static void csv_header(char **fields, int n_fields, char **cols, int *name_col)
{
    *name_col = -1;
    for (int i = 0; i < n_fields; i++) {
        char *b = strchr(fields[i], '[');
        size_t len = b ? (size_t)(b - fields[i]) : strlen(fields[i]);
        const char *nm = textio_trim(fields[i], &len);
        cols[i] = xstrndup(nm, len);
        if (strcmp(cols[i], "name") == 0)
            *name_col = i;
        free(fields[i]);
    }
}

/* The 1-based column where field k (0-based) of the CSV line s[0..n)
 * starts, for the caret under an error (core/diag.h). */
static long field_col(const char *s, size_t n, int k)
{
    size_t i = 0;
    int quoted = 0;
    for (; i < n && k > 0; i++) {
        if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == ',' && !quoted)
            k--;
    }
    return (long)i + 1;
}

/* One op row, starting at line: its fields set the op's columns. */
static int csv_op(struct textio *t, long line, struct profile *out, struct where *w,
                  char *const *cols, int n_cols, char *const *fields, int n_fields,
                  struct diag *d)
{
    if (n_fields != n_cols)
        return diag_error_at(d, t->path, line, 0, "found %d fields, expected %d as in the header",
                             n_fields, n_cols);
    if (out->n_ops >= MAX_OPS)
        return diag_error_at(d, t->path, line, 0, "found too many ops, expected at most %u",
                             MAX_OPS);
    where_op(w, out->n_ops, (unsigned long long)line);
    struct op *op = profile_add_op(out);
    for (int i = 0; i < n_fields; i++) {
        const char *expected = "";
        if (op_set(op, cols[i], fields[i], &expected) < 0) {
            if (t->src.line == line)
                t->src.col = field_col(t->cur.buf, t->cur.len, i);
            return diag_error_at(d, t->path, line, 0, "found '%.40s' in column '%s', expected %s",
                                 fields[i], cols[i], expected);
        }
    }
    if (!op->name)
        return diag_error_at(d, t->path, line, 0, "found an empty name, expected an op name");
    return FOM_OK;
}

static int read_csv(const char *path, struct profile *out, struct diag *d)
{
    struct textio t;
    struct seen seen;
    struct where w;
    memset(&seen, 0, sizeof seen);
    memset(&w, 0, sizeof w);
    int rc = textio_open(&t, path, d);
    if (rc)
        return rc;
    char *cols[MAX_FIELDS], *fields[MAX_FIELDS];
    int n_cols = -1, n_fields = 0, got;
    struct strbuf rec = STRBUF_INIT;
    int name_col = -1;
    while ((got = textio_next(&t, d)) > 0) {
        if (t.cur.len == 0)
            continue;
        if (strncmp(t.cur.buf, "# call:", 7) == 0) {
            if ((rc = csv_call(&t, out, &w, d)) != FOM_OK)
                goto out;
            continue;
        }
        if (t.cur.buf[0] == '#') {
            /* comments after the header are ignored */
            if (n_cols < 0 && (rc = csv_meta(&t, out, &seen, d)))
                goto out;
            continue;
        }
        long line = t.line;
        strbuf_reset(&rec);
        strbuf_add(&rec, t.cur.buf, t.cur.len);
        n_fields = csv_record(&t, &rec, fields, d, &rc);
        if (n_fields < 0)
            goto out;
        if (n_cols < 0) {
            csv_header(fields, n_fields, cols, &name_col);
            n_cols = n_fields;
            n_fields = 0;
            if (name_col < 0) {
                rc = diag_error_at(d, path, line, 0,
                                   "found a header without a 'name' column, expected "
                                   "'name,kind,phase,...'");
                goto out;
            }
            continue;
        }
        if ((rc = csv_op(&t, line, out, &w, cols, n_cols, fields, n_fields, d)))
            goto out;
        for (int i = 0; i < n_fields; i++)
            free(fields[i]);
        n_fields = 0;
    }
    if (got < 0) {
        rc = t.status;
        goto out;
    }
    if (n_cols < 0) {
        rc = diag_error_at(d, path, t.line, 0,
                           t.line ? "found no header line, expected 'name,kind,phase,...'"
                                  : "found an empty file, expected a saved profile");
        goto out;
    }
    finish(out, &seen, path, "profile-csv");
    rc = check_ids(out, &w, path, d);
out:
    where_release(&w);
    for (int i = 0; i < n_fields; i++)
        free(fields[i]);
    for (int i = 0; i < n_cols; i++)
        free(cols[i]);
    strbuf_release(&rec);
    textio_close(&t);
    return rc;
}

int profile_file_read(const char *path, const struct ingest_opts *o, struct profile *out,
                      struct diag *d)
{
    (void)o;
    /* JSON or CSV: the first non-blank byte decides */
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return diag_syserr(d, "cannot open '%s': %s", path, errno ? strerror(errno) : "out of memory");
    int c;
    do
        c = gzgetc(gz);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    int rc;
    if (c == '{') {
        gzrewind(gz);
        rc = read_json(path, gz, out, d);
        gzclose(gz);
        return rc;
    }
    gzclose(gz);
    return read_csv(path, out, d);
}
