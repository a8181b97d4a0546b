/* TF1 Chrome timeline (tensorflow/python/client/timeline.py):
 *   {"traceEvents": [ {"ph":"M","name":"process_name","pid":5,"args":{"name":"/gpu:0/stream:all Compute"}},
 *                     {"ph":"X","cat":"Op","name":"MatMul","pid":5,"ts":...,"dur":4085,
 *                      "args":{"name":"MatMul","op":"MatMul","input0":...}}, ... ]}
 *
 * Streamed with yajl callbacks; only per (lane, op type, node name) sums
 * are kept, so memory grows with the graph, not the file.
 *
 * Lanes (pids) are told apart by their process name, which may come after
 * the events, so the decision is made at the end:
 *   "/gpu:0/stream:all Compute"  all kernels of the device (an aggregate of
 *                                the per-stream lanes, which are skipped then)
 *   "/gpu:0/stream:N Compute"    kernels of one stream
 *   "/gpu:0/memcpy Compute"      copies (not in stream:all)
 *   "/job:.../gpu:0 Compute"     the executor: host-side time of each op
 * The timeline holds ONE step (one session.run's step_stats): steps = 1.
 * No shapes are recorded (show_memory=False is the default), so flops are 0
 * and every op carries the flag "no-shapes". */
#include "ingest/ingest.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/json_alloc.h"
#include "ingest/textio.h"

#define MAX_KEYS (1u << 22)     /* distinct (lane, op, node) triples */
#define MAX_LANES 4096

enum lane_kind { LANE_UNKNOWN, LANE_HOST, LANE_STREAM_ALL, LANE_STREAM, LANE_MEMCPY };

struct lane {
    char *pid;
    char *name;                 /* process name, NULL until seen */
};

struct agg {
    char *key;                  /* "pid\037op\037node" */
    size_t lane;
    char *op, *node;
    double count, dur_us;
};

struct tl {
    const char *path;
    struct diag *d;
    int status;
    /* parse position */
    int depth;
    int events_depth;           /* depth of the traceEvents array, 0 = not in it */
    int in_args;                /* inside the event's args object */
    int skip_depth;             /* >0: inside a nested value we ignore */
    int top_is_array;
    int saw_events;
    char key[32];               /* current key (truncated: we only need short ones) */
    /* current event */
    struct strbuf ph, cat, name, pid, a_name, a_op;
    double ts, dur;
    int has_ts, has_dur;
    /* results */
    struct lane *lanes;
    size_t n_lanes, alloc_lanes;
    struct agg *aggs;
    size_t n_aggs, alloc_aggs;
    size_t *slots;              /* hash: index+1 into aggs, 0 = empty */
    size_t n_slots;
    double t_min, t_max;
    int have_span;
    size_t n_op_events;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void rehash(struct tl *t)
{
    size_t n = t->n_slots ? t->n_slots * 2 : 1024;
    free(t->slots);
    t->slots = xcalloc(n, sizeof *t->slots);
    t->n_slots = n;
    for (size_t i = 0; i < t->n_aggs; i++) {
        size_t h = (size_t)(hash_str(t->aggs[i].key) & (n - 1));
        while (t->slots[h])
            h = (h + 1) & (n - 1);
        t->slots[h] = i + 1;
    }
}

static size_t lane_index(struct tl *t, const char *pid)
{
    for (size_t i = 0; i < t->n_lanes; i++)
        if (strcmp(t->lanes[i].pid, pid) == 0)
            return i;
    if (t->n_lanes >= MAX_LANES)
        return SIZE_MAX;
    ALLOC_GROW(t->lanes, t->n_lanes + 1, t->alloc_lanes);
    t->lanes[t->n_lanes].pid = xstrdup(pid);
    t->lanes[t->n_lanes].name = NULL;
    return t->n_lanes++;
}

static void sb_set(struct strbuf *sb, const unsigned char *s, size_t n)
{
    strbuf_reset(sb);
    /* every string is cut as names are: keeps garbage bounded */
    strbuf_add(sb, s, op_name_len((const char *)s, n));
}

static void event_reset(struct tl *t)
{
    strbuf_reset(&t->ph);
    strbuf_reset(&t->cat);
    strbuf_reset(&t->name);
    strbuf_reset(&t->pid);
    strbuf_reset(&t->a_name);
    strbuf_reset(&t->a_op);
    t->has_ts = t->has_dur = 0;
    t->ts = t->dur = 0;
}

static int event_end(struct tl *t)
{
    const char *ph = strbuf_str(&t->ph);
    if (strcmp(ph, "M") == 0 && strcmp(strbuf_str(&t->name), "process_name") == 0 &&
        t->pid.len) {
        size_t li = lane_index(t, t->pid.buf);
        if (li == SIZE_MAX)
            return -1;
        free(t->lanes[li].name);
        t->lanes[li].name = xstrdup(strbuf_str(&t->a_name));
        return 0;
    }
    if (strcmp(ph, "X") != 0 || strcmp(strbuf_str(&t->cat), "Op") != 0)
        return 0;
    if (!t->has_dur || t->dur < 0)
        return 0;
    const char *op = t->a_op.len ? t->a_op.buf : strbuf_str(&t->name);
    const char *node = t->a_name.len ? t->a_name.buf : op;
    size_t li = lane_index(t, strbuf_str(&t->pid));
    if (li == SIZE_MAX)
        return -1;
    struct strbuf k = STRBUF_INIT;
    strbuf_addf(&k, "%s\037%s\037%s", strbuf_str(&t->pid), op, node);
    if (t->n_aggs * 2 >= t->n_slots)
        rehash(t);
    size_t h = (size_t)(hash_str(k.buf) & (t->n_slots - 1));
    while (t->slots[h] && strcmp(t->aggs[t->slots[h] - 1].key, k.buf) != 0)
        h = (h + 1) & (t->n_slots - 1);
    struct agg *a;
    if (t->slots[h]) {
        a = &t->aggs[t->slots[h] - 1];
        strbuf_release(&k);
    } else {
        if (t->n_aggs >= MAX_KEYS) {
            strbuf_release(&k);
            return -1;
        }
        ALLOC_GROW(t->aggs, t->n_aggs + 1, t->alloc_aggs);
        a = &t->aggs[t->n_aggs];
        memset(a, 0, sizeof *a);
        a->key = strbuf_detach(&k);
        a->lane = li;
        a->op = xstrdup(op);
        a->node = xstrdup(node);
        t->slots[h] = ++t->n_aggs;
    }
    a->count += 1;
    a->dur_us += t->dur;
    t->n_op_events++;
    if (t->has_ts) {
        double end = t->ts + t->dur;
        if (!t->have_span || t->ts < t->t_min)
            t->t_min = t->ts;
        if (!t->have_span || end > t->t_max)
            t->t_max = end;
        t->have_span = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* yajl callbacks.  Depths: 1 top object (or bare array), 2 events array
 * (when top is an object), event object one deeper, args one deeper. */

static int in_event(struct tl *t) { return t->events_depth && t->depth == t->events_depth + 1; }
static int in_argsobj(struct tl *t) { return t->in_args && t->depth == t->events_depth + 2; }

static int scalar(struct tl *t, const unsigned char *s, size_t n, int is_num)
{
    if (t->skip_depth)
        return 1;
    if (in_event(t)) {
        if (strcmp(t->key, "ph") == 0)
            sb_set(&t->ph, s, n);
        else if (strcmp(t->key, "cat") == 0)
            sb_set(&t->cat, s, n);
        else if (strcmp(t->key, "name") == 0)
            sb_set(&t->name, s, n);
        else if (strcmp(t->key, "pid") == 0)
            sb_set(&t->pid, s, n);
        else if (is_num && (strcmp(t->key, "ts") == 0 || strcmp(t->key, "dur") == 0)) {
            char buf[64];
            if (n >= sizeof buf)
                return 1;
            memcpy(buf, s, n);
            buf[n] = '\0';
            char *end;
            double v = strtod(buf, &end);
            if (*end)
                return 1;
            if (t->key[0] == 't')
                t->ts = v, t->has_ts = 1;
            else
                t->dur = v, t->has_dur = 1;
        }
    } else if (in_argsobj(t)) {
        if (strcmp(t->key, "name") == 0)
            sb_set(&t->a_name, s, n);
        else if (strcmp(t->key, "op") == 0)
            sb_set(&t->a_op, s, n);
    }
    return 1;
}

static int cb_null(void *ctx) { return scalar(ctx, (const unsigned char *)"", 0, 0); }
static int cb_bool(void *ctx, int b) { (void)b; return scalar(ctx, (const unsigned char *)"", 0, 0); }
static int cb_number(void *ctx, const char *s, size_t n) { return scalar(ctx, (const unsigned char *)s, n, 1); }
static int cb_string(void *ctx, const unsigned char *s, size_t n) { return scalar(ctx, s, n, 0); }

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
    struct tl *t = ctx;
    if (n >= sizeof t->key)
        n = sizeof t->key - 1;
    memcpy(t->key, s, n);
    t->key[n] = '\0';
    return 1;
}

static int open_container(struct tl *t, int is_map)
{
    t->depth++;
    if (t->depth > 1000)
        return 0;
    if (t->skip_depth) {
        t->skip_depth++;
        return 1;
    }
    if (t->depth == 1) {
        if (!is_map) {
            t->top_is_array = 1;
            t->events_depth = 1;
            t->saw_events = 1;
        }
        return 1;
    }
    if (t->depth == 2 && !t->top_is_array && !is_map && strcmp(t->key, "traceEvents") == 0) {
        t->events_depth = 2;
        t->saw_events = 1;
        return 1;
    }
    if (t->events_depth && t->depth == t->events_depth + 1 && is_map) {
        event_reset(t);
        t->key[0] = '\0';
        return 1;
    }
    if (t->events_depth && t->depth == t->events_depth + 2 && is_map &&
        strcmp(t->key, "args") == 0) {
        t->in_args = 1;
        return 1;
    }
    t->skip_depth = 1;
    return 1;
}

static int close_container(struct tl *t)
{
    if (t->skip_depth) {
        t->skip_depth--;
        t->depth--;
        return 1;
    }
    if (t->in_args && t->depth == t->events_depth + 2)
        t->in_args = 0;
    else if (t->events_depth && t->depth == t->events_depth + 1) {
        if (event_end(t) < 0)
            return 0;
    } else if (t->events_depth && t->depth == t->events_depth)
        t->events_depth = 0;
    t->depth--;
    return 1;
}

static int cb_start_map(void *ctx) { return open_container(ctx, 1); }
static int cb_end_map(void *ctx) { return close_container(ctx); }
static int cb_start_array(void *ctx) { return open_container(ctx, 0); }
static int cb_end_array(void *ctx) { return close_container(ctx); }

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ------------------------------------------------------------------ */

static enum lane_kind lane_kind_of(const struct lane *l)
{
    if (!l->name)
        return LANE_UNKNOWN;
    if (strstr(l->name, "/stream:all"))
        return LANE_STREAM_ALL;
    if (strstr(l->name, "/stream:"))
        return LANE_STREAM;
    if (strstr(l->name, "/memcpy"))
        return LANE_MEMCPY;
    if (strstr(l->name, " Compute"))
        return LANE_HOST;
    return LANE_UNKNOWN;
}

/* The device a GPU lane belongs to ("/gpu:0" of "/gpu:0/stream:all
 * Compute"): a TF1 timeline names no model, only TensorFlow's device, and
 * a profile with device times must still say it ran on one. */
static char *lane_device(const struct lane *l)
{
    const char *s = strstr(l->name, "/gpu:");
    if (!s)
        s = l->name;
    size_t n = strcspn(s + 1, "/ ") + 1;
    return xstrndup(s, n);
}

/* what == NULL: the message is yajl's */
static int json_error(struct tl *t, yajl_handle h, const unsigned char *buf, size_t len,
                      unsigned long long at, const char *what)
{
    char *where = textio_byte_where(t->path, at);
    if (!what) {
        unsigned char *msg = yajl_get_error(h, 0, buf, len);
        char *m = xstrdup((const char *)msg);
        yajl_free_error(h, msg);
        /* yajl messages may span lines: keep the first */
        char *nl = strchr(m, '\n');
        if (nl)
            *nl = '\0';
        t->status = diag_error_at(t->d, where, 0, 0,
                                  "found invalid JSON (%s), expected a TF1 timeline", m);
        free(m);
    } else {
        t->status = diag_error_at(t->d, where, 0, 0, "%s", what);
    }
    free(where);
    return t->status;
}

/* Turn the per-lane sums into ops: one op per (op type, node). */
static void build_ops(struct tl *t, struct profile *out)
{
    int have_all = 0;
    enum lane_kind *kinds = xcalloc(t->n_lanes ? t->n_lanes : 1, sizeof *kinds);
    for (size_t i = 0; i < t->n_lanes; i++) {
        kinds[i] = lane_kind_of(&t->lanes[i]);
        if (kinds[i] == LANE_STREAM_ALL)
            have_all = 1;
    }
    /* second hash over (op, node) */
    struct strbuf k = STRBUF_INIT;
    size_t n_slots = 1024;
    while (n_slots < t->n_aggs * 2 + 2)
        n_slots *= 2;
    size_t *slots = xcalloc(n_slots, sizeof *slots);
    double *host_count = NULL, *dev_count = NULL;
    size_t *creator = NULL;
    size_t alloc_hc = 0, alloc_dc = 0, alloc_cr = 0;
    for (size_t i = 0; i < t->n_aggs; i++) {
        struct agg *a = &t->aggs[i];
        enum lane_kind lk = kinds[a->lane];
        int device = lk == LANE_STREAM_ALL || lk == LANE_MEMCPY || (lk == LANE_STREAM && !have_all);
        int host = lk == LANE_HOST || lk == LANE_UNKNOWN;
        if (!device && !host)
            continue;       /* a per-stream lane already counted in stream:all */
        strbuf_reset(&k);
        strbuf_addf(&k, "%s\037%s", a->op, a->node);
        size_t h = (size_t)(hash_str(k.buf) & (n_slots - 1));
        struct op *op = NULL;
        size_t idx = 0;
        while (slots[h]) {
            idx = slots[h] - 1;
            /* compare through the agg that created the op: its key minus the pid */
            const char *ck = t->aggs[creator[idx]].key;
            const char *sep = strchr(ck, '\037');
            if (sep && strcmp(sep + 1, k.buf) == 0) {
                op = &out->ops[idx];
                break;
            }
            h = (h + 1) & (n_slots - 1);
        }
        if (!op) {
            op = profile_add_op(out);
            idx = out->n_ops - 1;
            slots[h] = out->n_ops;
            if (strcmp(a->op, a->node) == 0) {
                op->name = xstrdup(a->op);
            } else {
                struct strbuf nm = STRBUF_INIT;
                strbuf_addf(&nm, "%s (%s)", a->node, a->op);
                /* the name as a whole keeps to the cap, as one read whole would */
                op->name = xstrndup(nm.buf, op_name_len(nm.buf, nm.len));
                strbuf_release(&nm);
            }
            op->kind = tf_op_kind(a->op);
            op->phase = tf_op_phase(a->op);
            op->flags = xstrdup("no-shapes");
            ALLOC_GROW(creator, out->n_ops, alloc_cr);
            creator[idx] = i;
            ALLOC_GROW(host_count, out->n_ops, alloc_hc);
            ALLOC_GROW(dev_count, out->n_ops, alloc_dc);
            host_count[idx] = dev_count[idx] = 0;
        }
        if (device) {
            op->device_time_s += a->dur_us * 1e-6;
            op->kernels += a->count;
            dev_count[idx] += a->count;
            out->has_device = 1;
            if (!out->device_name)
                out->device_name = lane_device(&t->lanes[a->lane]);
        } else {
            op->host_time_s += a->dur_us * 1e-6;
            host_count[idx] += a->count;
        }
    }
    for (size_t i = 0; i < out->n_ops; i++) {
        struct op *op = &out->ops[i];
        op->count = host_count[i] > 0 ? host_count[i] : dev_count[i];
        op->time_s = op->kernels > 0 ? op->device_time_s : op->host_time_s;
        out->total_time_s += op->time_s;
    }
    free(host_count);
    free(dev_count);
    free(creator);
    free(slots);
    free(kinds);
    strbuf_release(&k);
}

int tf_timeline_read(const char *path, const struct ingest_opts *o, struct profile *out,
                     struct diag *d)
{
    struct tl t;
    memset(&t, 0, sizeof t);
    t.path = path;
    t.d = d;
    strbuf_init(&t.ph);
    strbuf_init(&t.cat);
    strbuf_init(&t.name);
    strbuf_init(&t.pid);
    strbuf_init(&t.a_name);
    strbuf_init(&t.a_op);
    yajl_handle h = NULL;
    unsigned char *buf = NULL;
    unsigned long long base = 0;
    int rc = FOM_OK;
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        rc = diag_syserr(d, "cannot open '%s': %s", path, errno ? strerror(errno) : "out of memory");
        goto out;
    }
    h = yajl_alloc(&callbacks, json_alloc_funcs(), &t);
    yajl_config(h, yajl_allow_comments, 0);
    buf = xmalloc(65536);
    long got;
    while ((got = textio_gzread(gz, path, buf, 65536, d, &t.status)) > 0) {
        if (yajl_parse(h, buf, (size_t)got) != yajl_status_ok) {
            rc = json_error(&t, h, buf, (size_t)got, base + yajl_get_bytes_consumed(h),
                            t.depth > 1000 ? "found JSON nested deeper than 1000 levels, expected a TF1 timeline"
                            : t.n_aggs >= MAX_KEYS || t.n_lanes >= MAX_LANES
                                ? "found too many distinct ops or lanes, expected a TF1 timeline"
                                : NULL);
            goto out;
        }
        base += (unsigned long long)got;
    }
    if (got < 0) {
        rc = t.status;
        goto out;
    }
    if (base == 0) {
        rc = diag_error_at(d, path, 0, 0, "found an empty file, expected a TF1 timeline");
        goto out;
    }
    if (yajl_complete_parse(h) != yajl_status_ok) {
        rc = json_error(&t, h, buf, 0, base, "found the end of the file inside a JSON value, "
                        "expected a complete TF1 timeline (truncated file?)");
        goto out;
    }
    if (!t.saw_events) {
        char *where = textio_byte_where(path, 0);
        rc = diag_error_at(d, where, 0, 0, "found no \"traceEvents\" array, expected a TF1 timeline");
        free(where);
        goto out;
    }
    if (t.n_op_events == 0) {
        char *where = textio_byte_where(path, base);
        rc = diag_error_at(d, where, 0, 0,
                           "found no op events (\"ph\":\"X\", \"cat\":\"Op\"), expected a TF1 timeline");
        free(where);
        goto out;
    }
    build_ops(&t, out);
    free(out->format);
    out->format = xstrdup("tf-timeline");
    free(out->source);
    out->source = xstrdup(path);
    out->steps = 1;
    out->batch = o ? o->batch : 0;
    out->step_time_s = t.have_span ? (t.t_max - t.t_min) * 1e-6 : 0;
out:
    if (h)
        yajl_free(h);
    if (gz)
        gzclose(gz);
    free(buf);
    for (size_t i = 0; i < t.n_lanes; i++) {
        free(t.lanes[i].pid);
        free(t.lanes[i].name);
    }
    free(t.lanes);
    for (size_t i = 0; i < t.n_aggs; i++) {
        free(t.aggs[i].key);
        free(t.aggs[i].op);
        free(t.aggs[i].node);
    }
    free(t.aggs);
    free(t.slots);
    strbuf_release(&t.ph);
    strbuf_release(&t.cat);
    strbuf_release(&t.name);
    strbuf_release(&t.pid);
    strbuf_release(&t.a_name);
    strbuf_release(&t.a_op);
    return rc;
}
