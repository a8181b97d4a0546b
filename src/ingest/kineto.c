/* PyTorch profiler (Kineto) chrome traces -> one training pass.
 *
 * The file is streamed through yajl's callback parser from zlib's gzread
 * (which reads plain files too), so the whole document never sits in
 * memory; in between, jsonfix escapes the raw quotes that old PyTorch
 * versions left inside names.  Linking a GPU kernel to the op that launched it needs events
 * that may be far apart in the file (Kineto writes every CPU op first and
 * the CUPTI activities after), so each relevant event leaves a compact
 * record: 32 bytes per cpu_op (times, ids, an interned key of its name and
 * arguments), 24 per launch call of old traces, and kernels are summed on
 * the fly per launching id.  Strings (names, shapes) are interned, so
 * memory grows with the number of distinct ops, plus those small records.
 *
 * After the parse, per thread, the ops are nested by time (they nest
 * properly on a thread) and counted as follows: the compute ops (gemm,
 * conv, attention, rnn) that contain no other compute op are counted and
 * absorb their callees; other recognised ops are counted unless an
 * ancestor already is; wrappers (aten::linear, aten::matmul, autograd
 * nodes) are never counted; so a parent's time is never added on top of
 * a counted child.  Device time goes from each kernel to the innermost op
 * that launched it (new traces: kernel "External id" == the op's; old
 * ones: kernel correlation -> launch call nested in time inside the op),
 * then up to the counted op that covers it. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "core/diag.h"
#include "core/progress.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/json_alloc.h"
#include "ingest/jsonfix.h"
#include "ingest/textio.h"
#include "model/ops.h"

/* ------------------------------------------------------------- interning */

/* The strings live one after the other in one buffer, each with its NUL,
 * rather than one allocation each: a trace of a million distinct shapes
 * holds millions of short strings, and an allocation costs its 16-byte
 * header and rounding on top of a 20-byte string. */
struct intern {
    char *text;             /* every string, id 0 "" at offset 0 */
    size_t text_len, text_alloc;
    size_t *off;            /* id -> offset in text */
    size_t n, alloc;
    /* open addressing: the string's hash (low 32 bits) above id + 1, 0 =
     * empty.  A probe compares the hashes before the text, so passing
     * other strings costs no visit to theirs, and growing rehashes none. */
    uint64_t *slot;
    size_t nslot;
};

/* The string of id: valid until the next intern_get (text may move). */
static const char *intern_str(const struct intern *t, uint32_t id)
{
    return t->text + t->off[id];
}

/* Eight bytes at a time: op identities are a few hundred bytes and one is
 * hashed per cpu_op event. */
static uint64_t hash_bytes(const void *p, size_t len)
{
    const unsigned char *s = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        s += 8;
        len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 32;
    return h;
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void intern_init(struct intern *t)
{
    memset(t, 0, sizeof *t);
    t->nslot = 1024;
    t->slot = xcalloc(t->nslot, sizeof *t->slot);
    ALLOC_GROW(t->off, 1, t->alloc);
    ALLOC_GROW(t->text, 1, t->text_alloc);
    t->text[0] = '\0';
    t->text_len = 1;
    t->off[t->n++] = 0;
}

static void intern_release(struct intern *t)
{
    free(t->text);
    free(t->off);
    free(t->slot);
}

/* Adds s as a new string, without looking it up (see intern_get). */
static uint32_t intern_append(struct intern *t, const char *s, size_t len)
{
    ALLOC_GROW(t->off, t->n + 1, t->alloc);
    ALLOC_GROW(t->text, t->text_len + len + 1, t->text_alloc);
    memcpy(t->text + t->text_len, s, len);
    t->text[t->text_len + len] = '\0';
    t->off[t->n] = t->text_len;
    t->text_len += len + 1;
    return (uint32_t)t->n++;
}

/* Whether the string of id is the len bytes at s. */
static int intern_is(const struct intern *t, uint32_t id, const char *s, size_t len)
{
    const char *c = intern_str(t, id);
    return strncmp(c, s, len) == 0 && c[len] == '\0';
}

/* The id of the len bytes at s whose hash_bytes is h, added if new. */
static uint32_t intern_get_h(struct intern *t, const char *s, size_t len, uint64_t h)
{
    if (len == 0)
        return 0;
    if ((t->n + 1) * 2 > t->nslot) {
        size_t ns = t->nslot * 2;
        uint64_t *nsl = xcalloc(ns, sizeof *nsl);
        for (size_t i = 0; i < t->nslot; i++) {
            if (!t->slot[i])
                continue;
            size_t j = (size_t)(t->slot[i] >> 32) & (ns - 1);
            while (nsl[j])
                j = (j + 1) & (ns - 1);
            nsl[j] = t->slot[i];
        }
        free(t->slot);
        t->slot = nsl;
        t->nslot = ns;
    }
    uint64_t tag = (uint64_t)(uint32_t)h << 32;
    size_t j = (size_t)(uint32_t)h & (t->nslot - 1);
    while (t->slot[j]) {
        uint32_t id = (uint32_t)t->slot[j] - 1;
        if ((t->slot[j] & ~UINT64_C(0xffffffff)) == tag && intern_is(t, id, s, len))
            return id;
        j = (j + 1) & (t->nslot - 1);
    }
    uint32_t id = intern_append(t, s, len);
    t->slot[j] = tag | (id + 1);
    return id;
}

static uint32_t intern_get(struct intern *t, const char *s, size_t len)
{
    return len ? intern_get_h(t, s, len, hash_bytes(s, len)) : 0;
}

/* A generic open-addressing map from a 64-bit key to a 32-bit value.  A
 * slot holds both, so that a probe of a map larger than the caches (the
 * keys and groups of a million distinct ops) misses once, not twice. */
struct u64slot {
    uint64_t key;
    uint32_t val;           /* value + 1, 0 = empty */
};

struct u64map {
    struct u64slot *slot;
    size_t nslot, n;
};

/* A map with room for n entries before it grows (256 slots at least). */
static void u64map_init_for(struct u64map *m, size_t n)
{
    m->nslot = 256;
    while (n * 10 > m->nslot * 7)
        m->nslot *= 2;
    m->n = 0;
    m->slot = xcalloc(m->nslot, sizeof *m->slot);
}

static void u64map_init(struct u64map *m)
{
    u64map_init_for(m, 0);
}

static void u64map_release(struct u64map *m)
{
    free(m->slot);
}

/* Returns the slot for k (existing or empty). */
static size_t u64map_slot(const struct u64map *m, uint64_t k)
{
    size_t j = hash_u64(k) & (m->nslot - 1);
    while (m->slot[j].val && m->slot[j].key != k)
        j = (j + 1) & (m->nslot - 1);
    return j;
}

static int u64map_get(const struct u64map *m, uint64_t k, uint32_t *v)
{
    size_t j = u64map_slot(m, k);
    if (!m->slot[j].val)
        return 0;
    *v = m->slot[j].val - 1;
    return 1;
}

static void u64map_put(struct u64map *m, uint64_t k, uint32_t v)
{
    if ((m->n + 1) * 10 > m->nslot * 7) {
        struct u64map n2;
        n2.nslot = m->nslot * 2;
        n2.n = m->n;
        n2.slot = xcalloc(n2.nslot, sizeof *n2.slot);
        for (size_t i = 0; i < m->nslot; i++)
            if (m->slot[i].val)
                n2.slot[u64map_slot(&n2, m->slot[i].key)] = m->slot[i];
        u64map_release(m);
        *m = n2;
    }
    size_t j = u64map_slot(m, k);
    if (!m->slot[j].val)
        m->n++;
    m->slot[j].key = k;
    m->slot[j].val = v + 1;
}

/* --------------------------------------------------------------- records */

/* The identity of a cpu_op: its name and recorded arguments. */
struct kt_key {
    uint32_t name, dims, types, strides, conc;
    /* the name's struct op_class in a byte each (key_class): 24 bytes a
     * key instead of 36, one key per distinct op */
    uint8_t kind, transparent, major, backward;
};

static struct op_class key_class(const struct kt_key *e)
{
    struct op_class c = { (enum op_kind)e->kind, e->transparent, e->major, e->backward };
    return c;
}

/* Fills e's class bytes from its name (key_class reads them back). */
static void key_set_class(struct kt_key *e, const char *name)
{
    struct op_class cls;
    ops_classify(name, &cls);
    e->kind = (uint8_t)cls.kind;
    e->transparent = cls.transparent != 0;
    e->major = cls.major != 0;
    e->backward = cls.backward != 0;
}

struct kt_op {
    int64_t ts, end, ext;   /* ns, ns, External id (-1 none) */
    uint32_t key;
    uint16_t tid;
    uint16_t flags;         /* KF_* */
};

enum {
    KF_MAJOR_DESC = 1,      /* a major (compute) op below */
    KF_REC_DESC = 2,        /* a recognised op below */
    KF_CHILD = 4,
    KF_RNN_FOLD = 8,        /* a recurrent layer run as per-step ops: counted whole */
};

/* An op's autograd sequence number, kept once a recurrent layer has been
 * read (see kt_rnn_folds): the backward's functions carry the number of
 * the forward op whose gradient they compute. */
struct kt_seq {
    int64_t ts, seq;
    uint32_t tid;
};

struct kt_thread {
    struct kt_op *ops;
    size_t n, alloc;
};

struct kt_ann {
    int64_t ts, end;
    uint32_t name;
    uint16_t tid;
};

struct kt_launch {
    int64_t ts, corr;
    uint16_t tid;
};

/* Device work summed per launching id. */
struct kt_dev {
    int64_t key, dev_ns, ts;
    int64_t end;            /* latest end of its kernels */
    uint32_t n;             /* kernels (DEV_KERNELS); flags DEV_USED, DEV_TF32 */
    uint32_t name;          /* first kernel's name */
};
#define DEV_USED 0x80000000u     /* attributed already */
#define DEV_TF32 0x40000000u     /* a kernel is named for TF32 math */
#define DEV_KERNELS 0x3fffffffu

/* One (op key, phase) group being summed. */
struct kt_acc {
    uint32_t key;           /* kt_key index, or KEY_KERNEL | kernel name */
    uint16_t phase;
    uint16_t tf32;          /* a kernel of its calls is named for TF32 math */
    double count;
    int64_t host_ns, dev_ns, kernels;
    int64_t desc;           /* ops recorded below its calls */
};
#define KEY_KERNEL 0x80000000u

enum ev_cat { CAT_NONE, CAT_CPU_OP, CAT_ANN, CAT_KERNEL, CAT_MEMCPY, CAT_RUNTIME };
enum ev_key { EK_NONE, EK_PH, EK_CAT, EK_NAME, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ARGS };
enum arg_key { AK_NONE, AK_EXT, AK_CORR, AK_DIMS, AK_TYPES, AK_STRIDES, AK_CONC, AK_SEQ };

#define CAP_MAX 32

struct kt {
    struct progress *progress;  /* NULL: silent */
    uint64_t file_b;            /* size of the file on disk, for progress */
    const char *path;
    struct diag *d;
    /* parse state */
    int depth;
    int top_is_obj;
    int ev_depth;           /* depth of an event object; 0 = not in events */
    int saw_events;
    int in_event, in_args;
    int top_key;            /* 1 traceEvents, 2 deviceProperties, 3 version */
    int dev_depth;          /* depth of the first deviceProperties object */
    int dev_done;
    int dev_key_name;
    enum ev_key ekey;
    enum arg_key akey;
    struct strbuf *cap;     /* capturing an argument's JSON text */
    int cap_base;
    unsigned char cap_comma[CAP_MAX];
    /* the event being read */
    char ph;
    enum ev_cat cat;
    struct strbuf name;
    int64_t pid, tid, ts, dur, ext, corr, seq;
    int has_ts, has_ext, has_corr, has_seq;
    struct strbuf dims, types, strides, conc;
    int cat_unknown_str;
    /* results */
    struct intern strs;
    struct kt_key *keys;
    size_t n_keys, alloc_keys;
    struct u64map keymap;   /* hash of the 5 strings -> chain start, see key_get */
    uint32_t *key_next;
    size_t alloc_key_next;
    struct u64map threads;
    size_t n_threads;
    struct kt_thread *th;    /* per thread index: its ops in file order */
    size_t alloc_th;
    size_t n_ops;
    struct kt_ann *anns;
    size_t n_anns, alloc_anns;
    struct kt_launch *launches;
    size_t n_launches, alloc_launches;
    struct kt_seq *seqs;    /* from the first recurrent layer on */
    size_t n_seqs, alloc_seqs;
    int rnn_seen;
    struct kt_dev *devs;
    size_t n_devs, alloc_devs;
    struct u64map dev_by_ext, dev_by_corr;
    int64_t n_events, n_device;
    char *device_name;
    char *version;
    int too_many_threads;
    int64_t n_neg_dur;      /* events with a negative duration, counted as 0 */
    /* while the ops are built: string id -> index in op_name, the copy in
     * the profile's strings the ops of that name share */
    struct u64map op_name_of;
    const char **op_name;
    size_t n_op_name, alloc_op_name;
};

/* ------------------------------------------------------------ small parse */

/* Microseconds as written ("4796986455254.707", "1683564901559309") ->
 * int64 ns, exactly: no detour through double, whose 53 bits cannot hold
 * epoch microseconds at ns resolution. */
static int parse_us_ns(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    int64_t ip = 0, fp = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    size_t d0 = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ip > (INT64_MAX / 10000))
            return -1;
        ip = ip * 10 + (s[i++] - '0');
    }
    if (i == d0)
        return -1;
    int nf = 0;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (nf < 3) {
                fp = fp * 10 + (s[i] - '0');
                nf++;
            } else if (nf == 3) {
                /* round to the nearest ns */
                if (s[i] >= '5')
                    fp++;
                nf++;
            }
            i++;
        }
    }
    if (i < len) {
        /* exponent form: rare, take the double */
        char tmp[64];
        if (len >= sizeof tmp)
            return -1;
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        char *end;
        double v = strtod(tmp, &end);
        /* the bound of the digit path above, so ts + dur cannot overflow */
        if (*end || !(fabs(v) <= (double)(INT64_MAX / 10000)))
            return -1;
        *out = (int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5));
        return 0;
    }
    while (nf < 3) {
        fp *= 10;
        nf++;
    }
    int64_t v = ip * 1000 + fp;
    *out = neg ? -v : v;
    return 0;
}

static int parse_int(const char *s, size_t len, int64_t *out)
{
    int64_t ns;
    size_t i = 0;
    int neg = 0;
    int64_t v = 0;
    if (i < len && s[i] == '-')
        neg = 1, i++;
    size_t d0 = i;
    while (i < len && s[i] >= '0' && s[i] <= '9' && v < INT64_MAX / 10)
        v = v * 10 + (s[i++] - '0');
    if (i == len && i > d0) {
        *out = neg ? -v : v;
        return 0;
    }
    if (parse_us_ns(s, len, &ns) < 0)
        return -1;
    *out = ns / 1000;
    return 0;
}

/* ------------------------------------------------------------- capturing */

static void cap_sep(struct kt *k)
{
    int lvl = k->depth - k->cap_base;
    if (lvl < 0 || lvl >= CAP_MAX)
        return;
    if (k->cap_comma[lvl])
        strbuf_add(k->cap, ", ", 2);
    k->cap_comma[lvl] = 1;
}

static void cap_string(struct strbuf *sb, const unsigned char *s, size_t len)
{
    strbuf_addch(sb, '"');
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"' || s[i] == '\\') {
            strbuf_add(sb, s + from, i - from);
            strbuf_addch(sb, '\\');
            from = i;
        }
    }
    strbuf_add(sb, s + from, len - from);
    strbuf_addch(sb, '"');
}

/* What the parser saw, for the one capture path. */
enum cap_tok {
    TOK_NULL, TOK_TRUE, TOK_FALSE, TOK_NUMBER, TOK_STRING, TOK_KEY,
    TOK_OPEN_MAP, TOK_OPEN_ARRAY, TOK_CLOSE_MAP, TOK_CLOSE_ARRAY,
};

/* Start a fresh comma state for the current level of the capture. */
static void cap_level(struct kt *k)
{
    int lvl = k->depth - k->cap_base;
    if (lvl >= 0 && lvl < CAP_MAX)
        k->cap_comma[lvl] = 0;
}

/* While an args value is being captured (k->cap set), every callback comes
 * here: the token is copied back as compact JSON text, with ", " and ": "
 * separators, and the capture ends with the bracket that closes it. */
static int capture(struct kt *k, enum cap_tok tok, const unsigned char *s, size_t len)
{
    static const char *const words[] = { "null", "true", "false" };
    switch (tok) {
    case TOK_NULL: case TOK_TRUE: case TOK_FALSE:
        cap_sep(k);
        strbuf_addstr(k->cap, words[tok]);
        break;
    case TOK_NUMBER:
        cap_sep(k);
        strbuf_add(k->cap, s, len);
        break;
    case TOK_STRING:
        cap_sep(k);
        cap_string(k->cap, s, len);
        break;
    case TOK_KEY:
        cap_sep(k);
        cap_string(k->cap, s, len);
        strbuf_add(k->cap, ": ", 2);
        cap_level(k);
        break;
    case TOK_OPEN_MAP: case TOK_OPEN_ARRAY:
        /* a nested object or array: its own comma state */
        cap_sep(k);
        strbuf_addch(k->cap, tok == TOK_OPEN_MAP ? '{' : '[');
        k->depth++;
        cap_level(k);
        break;
    case TOK_CLOSE_MAP:
        strbuf_addch(k->cap, '}');
        k->depth--;
        break;
    case TOK_CLOSE_ARRAY:
        strbuf_addch(k->cap, ']');
        if (k->depth == k->cap_base)
            k->cap = NULL;
        k->depth--;
        break;
    }
    return 1;
}

/* ------------------------------------------------------------- callbacks */

static void ev_reset(struct kt *k)
{
    k->ph = 0;
    k->cat = CAT_NONE;
    strbuf_reset(&k->name);
    k->pid = k->tid = 0;
    k->ts = k->dur = 0;
    k->ext = k->corr = -1;
    k->has_ts = k->has_ext = k->has_corr = k->has_seq = 0;
    strbuf_reset(&k->dims);
    strbuf_reset(&k->types);
    strbuf_reset(&k->strides);
    strbuf_reset(&k->conc);
    k->ekey = EK_NONE;
    k->akey = AK_NONE;
}

static enum ev_cat cat_of(const char *s, size_t len)
{
#define IS(lit) (len == sizeof(lit) - 1 && strncasecmp(s, lit, len) == 0)
    if (IS("cpu_op") || IS("operator"))
        return CAT_CPU_OP;
    if (IS("user_annotation"))
        return CAT_ANN;
    if (IS("kernel"))
        return CAT_KERNEL;
    if (IS("gpu_memcpy") || IS("gpu_memset") || IS("memcpy") || IS("memset"))
        return CAT_MEMCPY;
    if (IS("cuda_runtime") || IS("cuda_driver") || IS("runtime") || IS("driver"))
        return CAT_RUNTIME;
#undef IS
    return CAT_NONE;
}

static int64_t str_id_key(struct kt *k, const unsigned char *s, size_t len)
{
    return (int64_t)intern_get(&k->strs, (const char *)s, len) | (INT64_C(1) << 62);
}

static int cb_null(void *ctx)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_NULL, NULL, 0);
    return 1;
}

static int cb_bool(void *ctx, int b)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, b ? TOK_TRUE : TOK_FALSE, NULL, 0);
    return 1;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_NUMBER, (const unsigned char *)s, len);
    if (k->in_event && k->depth == k->ev_depth) {
        switch (k->ekey) {
        case EK_TS:
            k->has_ts = parse_us_ns(s, len, &k->ts) == 0;
            break;
        case EK_DUR:
            if (parse_us_ns(s, len, &k->dur) < 0)
                k->dur = 0;
            break;
        case EK_PID:
            parse_int(s, len, &k->pid);
            break;
        case EK_TID:
            parse_int(s, len, &k->tid);
            break;
        default:
            break;
        }
    } else if (k->in_args && k->depth == k->ev_depth + 1) {
        if (k->akey == AK_EXT)
            k->has_ext = parse_int(s, len, &k->ext) == 0;
        else if (k->akey == AK_CORR)
            k->has_corr = parse_int(s, len, &k->corr) == 0;
        else if (k->akey == AK_SEQ)
            k->has_seq = parse_int(s, len, &k->seq) == 0;
    }
    return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_STRING, s, len);
    if (k->in_event && k->depth == k->ev_depth) {
        switch (k->ekey) {
        case EK_PH:
            k->ph = len ? (char)s[0] : 0;
            break;
        case EK_CAT:
            k->cat = cat_of((const char *)s, len);
            break;
        case EK_NAME:
            strbuf_add(&k->name, s, op_name_len((const char *)s, len));
            break;
        case EK_PID:
            k->pid = str_id_key(k, s, len);
            break;
        case EK_TID:
            k->tid = str_id_key(k, s, len);
            break;
        case EK_TS:
            k->has_ts = parse_us_ns((const char *)s, len, &k->ts) == 0;
            break;
        case EK_DUR:
            if (parse_us_ns((const char *)s, len, &k->dur) < 0)
                k->dur = 0;
            break;
        default:
            break;
        }
    } else if (k->dev_depth && k->depth == k->dev_depth && k->dev_key_name && !k->device_name) {
        k->device_name = xstrndup((const char *)s, len);
    } else if (k->depth == 1 && k->top_key == 3 && !k->version) {
        k->version = xstrndup((const char *)s, len);
    }
    return 1;
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    struct kt *k = ctx;
#define KEY(lit) (len == sizeof(lit) - 1 && memcmp(s, lit, len) == 0)
    if (k->cap)
        return capture(k, TOK_KEY, s, len);
    if (k->in_event && k->depth == k->ev_depth) {
        k->ekey = EK_NONE;
        if (len == 2 && s[0] == 'p' && s[1] == 'h')
            k->ekey = EK_PH;
        else if (KEY("cat"))
            k->ekey = EK_CAT;
        else if (KEY("name"))
            k->ekey = EK_NAME;
        else if (KEY("pid"))
            k->ekey = EK_PID;
        else if (KEY("tid"))
            k->ekey = EK_TID;
        else if (KEY("ts"))
            k->ekey = EK_TS;
        else if (KEY("dur"))
            k->ekey = EK_DUR;
        else if (KEY("args"))
            k->ekey = EK_ARGS;
    } else if (k->in_args && k->depth == k->ev_depth + 1) {
        k->akey = AK_NONE;
        if (KEY("External id"))
            k->akey = AK_EXT;
        else if (KEY("correlation"))
            k->akey = AK_CORR;
        else if (KEY("Input Dims"))
            k->akey = AK_DIMS;
        else if (KEY("Input type"))
            k->akey = AK_TYPES;
        else if (KEY("Input Strides"))
            k->akey = AK_STRIDES;
        else if (KEY("Concrete Inputs"))
            k->akey = AK_CONC;
        else if (KEY("Sequence number"))
            k->akey = AK_SEQ;
    } else if (k->depth == 1 && k->top_is_obj) {
        k->top_key = 0;
        if (KEY("traceEvents"))
            k->top_key = 1;
        else if (KEY("deviceProperties"))
            k->top_key = 2;
        else if (KEY("pytorch_version") || KEY("torch_version") || KEY("pytorchVersion"))
            k->top_key = 3;
    } else if (k->dev_depth && k->depth == k->dev_depth) {
        k->dev_key_name = KEY("name");
    }
#undef KEY
    return 1;
}

static int cb_start_map(void *ctx)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_OPEN_MAP, NULL, 0);
    k->depth++;
    if (k->depth == 1) {
        k->top_is_obj = 1;
    } else if (k->ev_depth && k->depth == k->ev_depth && !k->in_event) {
        k->in_event = 1;
        ev_reset(k);
    } else if (k->in_event && k->depth == k->ev_depth + 1 && k->ekey == EK_ARGS) {
        k->in_args = 1;
    } else if (k->depth == 3 && k->top_key == 2 && !k->dev_done && !k->ev_depth) {
        k->dev_depth = 3;
    }
    return 1;
}

static int kt_event(struct kt *k);

static int cb_end_map(void *ctx)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_CLOSE_MAP, NULL, 0);
    if (k->in_args && k->depth == k->ev_depth + 1) {
        k->in_args = 0;
    } else if (k->in_event && k->depth == k->ev_depth) {
        k->in_event = 0;
        if (!kt_event(k)) {
            k->depth--;
            return 0;
        }
    } else if (k->dev_depth && k->depth == k->dev_depth) {
        k->dev_depth = 0;
        k->dev_done = 1;
    }
    k->depth--;
    return 1;
}

/* Strides (gemm orientation) and concrete inputs (conv geometry, rnn
 * layers and cell, attention's causal flag, a norm's normalised shape or
 * groups, an embedding's rows and mode, index_select's dimension, an
 * upsampling's output and input sizes, a cast's dtype)
 * matter for few ops; skipping them
 * elsewhere saves most of the copying and hashing.  Kineto writes "name"
 * before "args"; if not, keep everything. */
static int needs_detail(const struct kt *k)
{
    const char *n = k->name.buf;
    if (!k->name.len)
        return 1;
    return strstr(n, "mm") || strstr(n, "conv") || strstr(n, "attention") ||
           strstr(n, "flash") || strstr(n, "rnn") || strstr(n, "lstm") || strstr(n, "gru") ||
           strstr(n, "norm") || strstr(n, "embedding") || strstr(n, "index_select") ||
           strstr(n, "upsample") || strcmp(n, "aten::to") == 0 || strcmp(n, "aten::_to_copy") == 0;
}

static int cb_start_array(void *ctx)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_OPEN_ARRAY, NULL, 0);
    if (k->in_args && k->depth == k->ev_depth + 1 && k->akey >= AK_DIMS &&
        (k->akey < AK_STRIDES || needs_detail(k))) {
        k->cap = k->akey == AK_DIMS ? &k->dims : k->akey == AK_TYPES ? &k->types
               : k->akey == AK_STRIDES ? &k->strides : &k->conc;
        strbuf_reset(k->cap);
        strbuf_addch(k->cap, '[');
        k->depth++;
        k->cap_base = k->depth;
        memset(k->cap_comma, 0, sizeof k->cap_comma);
        return 1;
    }
    k->depth++;
    if (k->depth == 1) {
        /* legacy export: a bare array of events */
        k->ev_depth = 2;
        k->saw_events = 1;
    } else if (k->depth == 2 && k->top_is_obj && k->top_key == 1 && !k->ev_depth) {
        k->ev_depth = 3;
        k->saw_events = 1;
    }
    return 1;
}

static int cb_end_array(void *ctx)
{
    struct kt *k = ctx;
    if (k->cap)
        return capture(k, TOK_CLOSE_ARRAY, NULL, 0);
    if (k->ev_depth && k->depth == k->ev_depth - 1)
        k->ev_depth = 0;
    k->depth--;
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* --------------------------------------------------------- event records */

static uint32_t thread_index(struct kt *k)
{
    uint64_t key = hash_u64((uint64_t)k->pid) ^ (uint64_t)k->tid;
    uint32_t v;
    if (u64map_get(&k->threads, key, &v))
        return v;
    if (k->n_threads >= 65535) {
        k->too_many_threads = 1;
        return 65535;
    }
    v = (uint32_t)k->n_threads++;
    u64map_put(&k->threads, key, v);
    return v;
}

/* The event's identity: its name and recorded arguments, in the order
 * of struct kt_key's string ids. */
#define KEY_PARTS 5
static void key_parts(struct kt *k, const struct strbuf *part[KEY_PARTS])
{
    part[0] = &k->name;
    part[1] = &k->dims;
    part[2] = &k->types;
    part[3] = &k->strides;
    part[4] = &k->conc;
}

static int key_is(const struct kt *k, const struct kt_key *e, const struct strbuf *part[KEY_PARTS])
{
    const uint32_t ids[KEY_PARTS] = { e->name, e->dims, e->types, e->strides, e->conc };
    for (int i = 0; i < KEY_PARTS; i++) {
        if (ids[i] == 0 ? part[i]->len != 0
                        : !intern_is(&k->strs, ids[i], strbuf_str(part[i]), part[i]->len))
            return 0;
    }
    return 1;
}

/* The key of the event being read, added if new.  One hash lookup per
 * op, on the hashes of its five strings: the strings themselves are
 * interned only for a new key, so a trace of distinct shapes keeps each
 * identity once. */
static uint32_t key_get(struct kt *k)
{
    const struct strbuf *part[KEY_PARTS];
    uint64_t ph[KEY_PARTS], h = 0;
    uint32_t i;
    key_parts(k, part);
    for (int p = 0; p < KEY_PARTS; p++) {
        ph[p] = part[p]->len ? hash_bytes(strbuf_str(part[p]), part[p]->len) : 0;
        h = hash_u64(h ^ ph[p]);
    }
    if (u64map_get(&k->keymap, h, &i)) {
        for (uint32_t j = i; j != UINT32_MAX; j = k->key_next[j])
            if (key_is(k, &k->keys[j], part))
                return j;
    } else {
        i = UINT32_MAX;
    }
    uint32_t ids[KEY_PARTS];
    for (int p = 0; p < KEY_PARTS; p++)
        ids[p] = intern_get_h(&k->strs, strbuf_str(part[p]), part[p]->len, ph[p]);
    ALLOC_GROW(k->keys, k->n_keys + 1, k->alloc_keys);
    ALLOC_GROW(k->key_next, k->n_keys + 1, k->alloc_key_next);
    struct kt_key *e = &k->keys[k->n_keys];
    e->name = ids[0];
    e->dims = ids[1];
    e->types = ids[2];
    e->strides = ids[3];
    e->conc = ids[4];
    key_set_class(e, intern_str(&k->strs, e->name));
    k->key_next[k->n_keys] = i;
    u64map_put(&k->keymap, h, (uint32_t)k->n_keys);
    return (uint32_t)k->n_keys++;
}

static int is_launch(const char *s)
{
    return strstr(s, "Launch") || strstr(s, "Memcpy") || strstr(s, "Memset") ||
           strstr(s, "memcpy") || strstr(s, "memset");
}

/* cuBLAS's and cuDNN's TF32 kernels say so in their names
 * (sm90_xmma_..._tf32f32_..., ..._s1688tf32gemm_...), and CUTLASS's
 * tensor-op GEMMs of fp32 data by their instruction: s1688 and s1684 are
 * the Ampere MMA shapes of TF32 with fp32 accumulation (cuDNN's recurrent
 * layers run cutlass_80_tensorop_s1688gemm_* kernels under the TF32
 * default).  Only fp32 ops read the flag (kt_op_of), so half-precision
 * kernels of the same instruction shape name do not count. */
static int kernel_runs_tf32(const char *name)
{
    return strstr(name, "tf32") || strstr(name, "s1688gemm") || strstr(name, "s1684gemm");
}

static void dev_add(struct kt *k, struct u64map *m, int64_t key)
{
    uint32_t i;
    if (!u64map_get(m, (uint64_t)key, &i)) {
        uint32_t name = intern_get(&k->strs, strbuf_str(&k->name), k->name.len);
        ALLOC_GROW(k->devs, k->n_devs + 1, k->alloc_devs);
        i = (uint32_t)k->n_devs++;
        struct kt_dev *e = &k->devs[i];
        e->key = key;
        e->dev_ns = 0;
        e->ts = k->ts;
        e->end = k->ts + k->dur;
        e->n = 0;
        e->name = name;
        u64map_put(m, (uint64_t)key, i);
    }
    if (k->ts < k->devs[i].ts)
        k->devs[i].ts = k->ts;
    if (k->ts + k->dur > k->devs[i].end)
        k->devs[i].end = k->ts + k->dur;
    k->devs[i].dev_ns += k->dur;
    k->devs[i].n++;
    if (kernel_runs_tf32(strbuf_str(&k->name)))
        k->devs[i].n |= DEV_TF32;
}

/* One complete event object: keep what linking and counting need. */
static int kt_event(struct kt *k)
{
    k->n_events++;
    if (k->ph != 'X' || k->cat == CAT_NONE || !k->has_ts)
        return 1;
    if (k->dur < 0) {
        k->n_neg_dur++;
        k->dur = 0;
    }
    switch (k->cat) {
    case CAT_CPU_OP: {
        uint32_t key = key_get(k);
        uint32_t t = thread_index(k);
        if (t >= k->alloc_th) {
            size_t old = k->alloc_th;
            ALLOC_GROW(k->th, t + 1, k->alloc_th);
            memset(k->th + old, 0, (k->alloc_th - old) * sizeof *k->th);
        }
        struct kt_thread *th = &k->th[t];
        ALLOC_GROW(th->ops, th->n + 1, th->alloc);
        struct kt_op *o = &th->ops[th->n++];
        k->n_ops++;
        o->ts = k->ts;
        o->end = k->ts + k->dur;
        o->ext = k->has_ext ? k->ext : -1;
        o->key = key;
        o->tid = (uint16_t)t;
        o->flags = 0;
        if (k->keys[key].kind == OP_RNN)
            k->rnn_seen = 1;
        if (k->rnn_seen && k->has_seq) {
            ALLOC_GROW(k->seqs, k->n_seqs + 1, k->alloc_seqs);
            k->seqs[k->n_seqs++] = (struct kt_seq){ k->ts, k->seq, t };
        }
        break;
    }
    case CAT_ANN: {
        ALLOC_GROW(k->anns, k->n_anns + 1, k->alloc_anns);
        struct kt_ann *a = &k->anns[k->n_anns++];
        a->ts = k->ts;
        a->end = k->ts + k->dur;
        a->name = intern_get(&k->strs, strbuf_str(&k->name), k->name.len);
        a->tid = (uint16_t)thread_index(k);
        break;
    }
    case CAT_KERNEL:
    case CAT_MEMCPY: {
        k->n_device++;
        if (k->has_ext && (!k->has_corr || k->ext != k->corr))
            dev_add(k, &k->dev_by_ext, k->ext);
        else if (k->has_corr)
            dev_add(k, &k->dev_by_corr, k->corr);
        else
            dev_add(k, &k->dev_by_corr,
                    -(int64_t)intern_get(&k->strs, strbuf_str(&k->name), k->name.len) - 1);
        break;
    }
    case CAT_RUNTIME:
        if (k->has_corr && (!k->has_ext || k->ext == k->corr) && is_launch(strbuf_str(&k->name))) {
            ALLOC_GROW(k->launches, k->n_launches + 1, k->alloc_launches);
            struct kt_launch *l = &k->launches[k->n_launches++];
            l->ts = k->ts;
            l->corr = k->corr;
            l->tid = (uint16_t)thread_index(k);
        }
        break;
    default:
        break;
    }
    return 1;
}

/* ------------------------------------------------------------ the reading */

static long line_at(const char *path, uint64_t offset)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return 0;
    long line = 1;
    char buf[65536];
    uint64_t done = 0;
    while (done < offset) {
        int n = gzread(f, buf, sizeof buf);
        if (n <= 0)
            break;
        size_t lim = (uint64_t)n < offset - done ? (size_t)n : (size_t)(offset - done);
        for (size_t i = 0; i < lim; i++)
            line += buf[i] == '\n';
        done += (uint64_t)n;
    }
    gzclose(f);
    return line;
}

/* Parses n bytes of repaired JSON; a yajl error is reported at its byte in
 * the input file (the repair's inserted bytes taken off). */
static int kt_yajl(struct kt *k, yajl_handle h, const struct jsonfix *fx,
                   const unsigned char *out, size_t n)
{
    int rc = FOM_OK;
    /* fx->out_b already counts these n bytes */
    uint64_t out_start = fx->out_b - n;

    if (yajl_parse(h, out, n) != yajl_status_ok) {
        uint64_t at = jsonfix_in_offset(fx, out_start + yajl_get_bytes_consumed(h));
        unsigned char *msg = yajl_get_error(h, 0, out, n);
        char *nl = strchr((char *)msg, '\n');
        if (nl)
            *nl = '\0';
        rc = diag_error_at(k->d, k->path, line_at(k->path, at), 0,
                           "found invalid JSON at byte %llu (%s), expected a chrome trace",
                           (unsigned long long)at, (char *)msg);
        yajl_free_error(h, msg);
    }
    return rc;
}

static int kt_parse(struct kt *k)
{
    int rc = FOM_OK;
    gzFile f = NULL;
    yajl_handle h = NULL;
    unsigned char *buf = NULL, *fixed = NULL;
    const size_t bufsz = 1 << 20;
    uint64_t fed = 0;
    struct jsonfix fx;

    jsonfix_init(&fx);
    f = gzopen(k->path, "rb");
    if (!f) {
        rc = diag_syserr(k->d, "cannot open '%s': %s", k->path, strerror(errno));
        goto out;
    }
    gzbuffer(f, 1 << 18);
    h = yajl_alloc(&callbacks, json_alloc_funcs(), k);
    yajl_config(h, yajl_dont_validate_strings, 1);
    buf = xmalloc(bufsz);
    fixed = xmalloc(jsonfix_out_max(bufsz));
    for (;;) {
        int n = gzread(f, buf, (unsigned)bufsz);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(f, &zerr);
            rc = diag_error_at(k->d, k->path, 0, 0,
                               "found damaged gzip data after byte %llu of JSON (%s), "
                               "expected a complete .gz file",
                               (unsigned long long)fed, msg);
            goto out;
        }
        if (n == 0)
            break;
        rc = textio_gz_check_ratio(f, k->path, k->d);
        if (rc)
            goto out;
        rc = kt_yajl(k, h, &fx, fixed, jsonfix_feed(&fx, buf, (size_t)n, fixed));
        if (rc)
            goto out;
        fed += (uint64_t)n;
        if (k->progress)
            /* the compressed position against the file size: the only total known in advance */
            progress_bytes(k->progress, (uint64_t)gzoffset(f), k->file_b);
    }
    {
        int zerr;
        const char *msg = gzerror(f, &zerr);
        if (zerr != Z_OK && zerr != Z_STREAM_END) {
            rc = diag_error_at(k->d, k->path, 0, 0,
                               "found a truncated or damaged gzip stream after byte %llu "
                               "of JSON (%s), expected a complete .gz file",
                               (unsigned long long)fed, msg);
            goto out;
        }
    }
    if (fed == 0) {
        rc = diag_error_at(k->d, k->path, 0, 0,
                           "found an empty file at byte 0, expected a chrome trace");
        goto out;
    }
    rc = kt_yajl(k, h, &fx, fixed, jsonfix_finish(&fx, fixed));
    if (rc)
        goto out;
    if (yajl_complete_parse(h) != yajl_status_ok) {
        rc = diag_error_at(k->d, k->path, line_at(k->path, fed), 0,
                           "found the end of the file at byte %llu inside the JSON, "
                           "expected the rest of the trace (truncated file?)",
                           (unsigned long long)fed);
        goto out;
    }
    if (fx.n_repaired)
        diag_warn_at(k->d, k->path, 0, 0, "repaired %llu unescaped quotes inside strings "
                     "(older PyTorch traces write names with raw quotes)",
                     (unsigned long long)fx.n_repaired);
    if (!k->saw_events) {
        rc = diag_error_at(k->d, k->path, 0, 0,
                           "found JSON without a traceEvents array, expected a Kineto trace");
        goto out;
    }
    if (k->n_neg_dur)
        diag_warn_at(k->d, k->path, 0, 0, "found %lld events with a negative duration, "
                     "counted as 0 s (expected durations >= 0)", (long long)k->n_neg_dur);
    if (k->too_many_threads) {
        rc = diag_error_at(k->d, k->path, 0, 0,
                           "found more than 65535 threads, expected fewer");
        goto out;
    }
out:
    free(buf);
    free(fixed);
    jsonfix_release(&fx);
    if (h)
        yajl_free(h);
    if (f)
        gzclose(f);
    return rc;
}

/* ---------------------------------------------------- nesting and counting */

static int cmp_op(const void *pa, const void *pb)
{
    const struct kt_op *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;  /* the parent first */
    return 0;
}

static int cmp_launch(const void *pa, const void *pb)
{
    const struct kt_launch *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return 0;
}

struct ival {
    int64_t ts, end;
};

static int cmp_ival(const void *pa, const void *pb)
{
    const struct ival *a = pa, *b = pb;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static int in_ivals(const struct ival *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].ts <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* v[lo-1] is the last interval starting at or before t; intervals
     * of one thread do not overlap */
    return lo > 0 && t <= v[lo - 1].end;
}

/* Index of the last interval starting at or before t (0 if none). */
static size_t step_index(const struct ival *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].ts <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? lo - 1 : 0;
}

struct frame {
    size_t op;
    int counted, covered, in_step, launcher;
    enum op_phase phase;
    int64_t group;          /* acc index the op's device time goes to, -1 none */
    int64_t call;           /* kt_call its device time goes to, -1 none */
    int replay;             /* in one of the first KT_REPLAY_STEPS steps */
    int in_fold;            /* inside a folded recurrent layer or its backward */
};

/* Calls are kept for replay from the first steps only: they are a record
 * per op call, and a long trace (hundreds of steps) must still be read in
 * bounded memory; a few steps are what a replay needs. */
#define KT_REPLAY_STEPS 8

/* One counted op call in a step, for the profile's issue-order replay. */
struct kt_call {
    int64_t acc, ts, end;   /* group; host start and end */
    int64_t dev_ns, dev_ts, dev_end;
    int64_t events;         /* recorded events inside it: ops below it, kernel launches */
};

struct counter {
    struct kt *k;
    struct kt_op *ops;      /* the thread being counted */
    struct kt_acc *acc;
    size_t n_acc, alloc_acc;
    uint32_t *acc_of;       /* group + 1 of op key * N_PHASES + phase, 0 none */
    size_t n_acc_of;
    struct u64map accmap;   /* groups of unclaimed kernels */
    struct ival *steps, *optim;
    size_t n_steps, n_optim;
    int64_t host_busy_ns;
    struct kt_call *calls;
    size_t n_calls, alloc_calls;
    struct ival *busy;      /* top-level ops in steps, every thread */
    size_t n_busy, alloc_busy;
    uint32_t *desc;         /* the thread being counted: ops below each op */
    struct u64map fold_seq; /* sequence number -> fold (kt_rnn_folds), ops inside folded layers */
    struct kt_fold *folds;
    size_t n_folds, alloc_folds;
    /* Recording costs seen in the trace (mark_descendants): a parent's
     * start to its first child's start holds the child's entry recording,
     * its last child's end to its own end the child's exit recording.
     * Histograms of 10 ns bins, the last bin everything above. */
    uint32_t *lead_hist, *trail_hist;
};

#define REC_BIN_NS 10
#define REC_BINS 5001   /* up to 50 us: parents' own work beyond that is not recording */

/* A recurrent layer the trace shows as per-step ops (no fused kernel
 * below it: PyTorch's CPU GRU, for one), read as one call of the layer
 * forward and one of its backward, the calls a fused implementation makes
 * (cuDNN, oneDNN) and the kernel tables measure. */
struct kt_fold {
    uint32_t bwd_key;       /* "<layer>_backward" with the layer's arguments */
    int64_t last_step;      /* the step whose backward call is counted, -1 none */
};

static int64_t call_new(struct counter *c, int64_t group, const struct kt_op *o)
{
    ALLOC_GROW(c->calls, c->n_calls + 1, c->alloc_calls);
    struct kt_call *x = &c->calls[c->n_calls];
    memset(x, 0, sizeof *x);
    x->acc = group;
    x->ts = o->ts;
    x->end = o->end;
    x->events = c->desc ? (int64_t)c->desc[o - c->ops] : 0;
    return (int64_t)c->n_calls++;
}

#define N_PHASES 4    /* enum op_phase's values */
_Static_assert(PHASE_UNKNOWN < N_PHASES, "a phase outside the group table");

/* The group of (key, phase), added if new.  Op keys are indices from 0:
 * their groups are found in a table indexed by key and phase (16 bytes a
 * key, against 32 for the hash map's slots, and no probing: a million
 * distinct ops looked each up twice, cache misses both); the groups of
 * kernels no op claimed (KEY_KERNEL | name) in the map. */
static size_t acc_get(struct counter *c, uint32_t key, int phase)
{
    uint64_t h = ((uint64_t)key << 3) | (uint64_t)phase;
    uint32_t i, *slot = NULL;
    if (!(key & KEY_KERNEL)) {
        size_t at = (size_t)key * N_PHASES + (size_t)phase;
        if (at >= c->n_acc_of) {
            /* keys made while counting (folded backward layers) */
            size_t n = c->n_acc_of ? c->n_acc_of : N_PHASES;
            while (n <= at)
                n *= 2;
            c->acc_of = xrealloc(c->acc_of, n * sizeof *c->acc_of);
            memset(c->acc_of + c->n_acc_of, 0, (n - c->n_acc_of) * sizeof *c->acc_of);
            c->n_acc_of = n;
        }
        slot = &c->acc_of[at];
        if (*slot)
            return *slot - 1;
    } else if (u64map_get(&c->accmap, h, &i)) {
        return i;
    }
    ALLOC_GROW(c->acc, c->n_acc + 1, c->alloc_acc);
    struct kt_acc *a = &c->acc[c->n_acc];
    memset(a, 0, sizeof *a);
    a->key = key;
    a->phase = phase;
    if (slot)
        *slot = (uint32_t)c->n_acc + 1;
    else
        u64map_put(&c->accmap, h, (uint32_t)c->n_acc);
    return c->n_acc++;
}

/* Device work e (launched inside the frame f) joins f's counted op. */
static void attribute(struct counter *c, struct frame *f, struct kt_dev *e)
{
    if (e->n & DEV_USED)
        return;
    e->n |= DEV_USED;
    if (!f->in_step)
        return;
    if (f->group < 0) {
        /* launched by a wrapper that is not counted: count it itself */
        const struct kt_op *o = &c->ops[f->op];
        f->group = (int64_t)acc_get(c, o->key, f->phase);
        f->launcher = 1;
        c->acc[f->group].count += 1;
        c->acc[f->group].host_ns += o->end - o->ts;
        c->acc[f->group].desc += c->desc[f->op];
        if (f->replay)
            f->call = call_new(c, f->group, o);
    }
    if (f->call >= 0) {
        struct kt_call *x = &c->calls[f->call];
        if (x->dev_ns == 0 || e->ts < x->dev_ts)
            x->dev_ts = e->ts;
        if (x->dev_ns == 0 || e->end > x->dev_end)
            x->dev_end = e->end;
        x->dev_ns += e->dev_ns;
        x->events += e->n & DEV_KERNELS;
    }
    struct kt_acc *a = &c->acc[f->group];
    a->dev_ns += e->dev_ns;
    a->kernels += e->n & DEV_KERNELS;
    if (e->n & DEV_TF32)
        a->tf32 = 1;    /* an fp32 op of it ran as TF32 (kt_op_of) */
}

static void attribute_launch(struct counter *c, struct frame *stack, size_t depth,
                             const struct kt_launch *l)
{
    uint32_t di;
    if (!u64map_get(&c->k->dev_by_corr, (uint64_t)l->corr, &di))
        return;
    /* innermost op containing the call */
    while (depth > 0 && c->ops[stack[depth - 1].op].end < l->ts)
        depth--;
    if (depth == 0)
        return;
    attribute(c, &stack[depth - 1], &c->k->devs[di]);
}

static int op_order_ok(const struct kt_op *ops, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_op(&ops[i - 1], &ops[i]) > 0)
            return 0;
    return 1;
}

static void rec_hist_add(uint32_t *h, int64_t ns)
{
    int64_t b = ns < 0 ? 0 : ns / REC_BIN_NS;
    h[b < REC_BINS - 1 ? b : REC_BINS - 1]++;
}

/* The median of a histogram in ns (its bin's lower edge), 0 when empty. */
static double rec_hist_median_ns(const uint32_t *h)
{
    uint64_t n = 0, seen = 0;
    for (size_t b = 0; b < REC_BINS; b++)
        n += h[b];
    if (!n)
        return 0;
    for (size_t b = 0; b < REC_BINS; b++) {
        seen += h[b];
        if (2 * seen >= n)
            return (double)b * REC_BIN_NS;
    }
    return 0;
}

/* Pass 1 over one thread's ops (sorted): mark in each op's flags what lies
 * below it (children, major or recognised descendants), count the ops
 * below each (c->desc, freed after the thread) and record the time from
 * each parent's start to its first child and from its last child's end to
 * its own end (struct profile: event_gap_s). */
static void mark_descendants(struct counter *c, struct kt_op *ops, size_t n_ops)
{
    const struct kt *k = c->k;
    size_t *pstack = NULL, palloc = 0, pdepth = 0;
    int64_t sib_end = -1;   /* end of the last op closed below the open one */
    c->desc = xcalloc(n_ops + 1, sizeof *c->desc);
    for (size_t i = 0; i <= n_ops; i++) {
        struct kt_op *o = i < n_ops ? &ops[i] : NULL;
        while (pdepth > 0) {
            struct kt_op *t = &ops[pstack[pdepth - 1]];
            if (o && t->tid == o->tid && (o->ts < t->end || o->ts == t->ts))
                break;
            pdepth--;
            if (sib_end >= 0)
                rec_hist_add(c->trail_hist, t->end - sib_end);
            sib_end = pdepth > 0 ? t->end : -1;
            if (pdepth > 0) {
                struct kt_op *p = &ops[pstack[pdepth - 1]];
                c->desc[pstack[pdepth - 1]] += c->desc[pstack[pdepth]] + 1;
                const struct kt_key *cl = &k->keys[t->key];
                p->flags |= KF_CHILD | (t->flags & (KF_MAJOR_DESC | KF_REC_DESC));
                if (cl->major)
                    p->flags |= KF_MAJOR_DESC;
                if (!cl->transparent && cl->kind != OP_OTHER)
                    p->flags |= KF_REC_DESC;
            }
        }
        if (!o)
            break;
        if (pdepth > 0 && sib_end < 0)
            rec_hist_add(c->lead_hist, o->ts - ops[pstack[pdepth - 1]].ts);
        sib_end = -1;
        ALLOC_GROW(pstack, pdepth + 1, palloc);
        pstack[pdepth++] = i;
    }
    free(pstack);
}

/* The first of the sorted k->seqs at or after (thread tid, time ts). */
static size_t seq_lower_bound(const struct kt *k, uint32_t tid, int64_t ts)
{
    size_t lo = 0, hi = k->n_seqs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct kt_seq *q = &k->seqs[mid];
        if (q->tid < tid || (q->tid == tid && q->ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The fold (kt_rnn_folds) whose layer's forward made the autograd node
 * that a backward function (autograd::engine::evaluate_function: ...)
 * evaluates: the op's sequence number is one of the layer's ops'.
 * Returns -1 when there is none. */
static int64_t fold_of_backward(const struct counter *c, const struct kt_op *o)
{
    static const char fn[] = "autograd::engine::evaluate_function";
    const struct kt *k = c->k;
    if (!c->n_folds || strncmp(intern_str(&k->strs, k->keys[o->key].name), fn, sizeof fn - 1) != 0)
        return -1;
    size_t lo = seq_lower_bound(k, o->tid, o->ts);
    uint32_t fi;
    if (lo == k->n_seqs || k->seqs[lo].tid != o->tid || k->seqs[lo].ts != o->ts ||
        !u64map_get(&c->fold_seq, (uint64_t)k->seqs[lo].seq, &fi))
        return -1;
    return fi;
}

/* A backward function of a folded layer: its time joins the layer's one
 * backward call per step (the first function of the step opens it). */
static struct frame frame_fold_backward(struct counter *c, size_t i, const struct kt_op *o,
                                        struct frame f, size_t fi)
{
    struct kt_fold *fd = &c->folds[fi];
    f.phase = PHASE_BACKWARD;
    f.counted = f.in_fold = 1;
    f.group = (int64_t)acc_get(c, fd->bwd_key, PHASE_BACKWARD);
    if (!f.in_step)
        return f;
    struct kt_acc *a = &c->acc[f.group];
    a->host_ns += o->end - o->ts;
    a->desc += c->desc[i];
    int64_t st = c->n_steps ? (int64_t)step_index(c->steps, c->n_steps, o->ts) : 0;
    if (st != fd->last_step) {
        fd->last_step = st;
        a->count += 1;
        if (f.replay)
            f.call = call_new(c, f.group, o);
    }
    return f;
}

/* The frame of op i (o) under its parent frame p (NULL at the top): its
 * step, phase, whether it is counted or covered by a counted ancestor, and
 * its group and replay call.  Counts the op when it is counted in a step. */
static struct frame frame_open(struct counter *c, size_t i, const struct kt_op *o,
                               const struct frame *p)
{
    const struct op_class cls = key_class(&c->k->keys[o->key]), *cl = &cls;
    struct frame f;
    memset(&f, 0, sizeof f);
    f.op = i;
    f.group = -1;
    f.call = -1;
    f.in_step = c->n_steps == 0 || (p ? p->in_step : in_ivals(c->steps, c->n_steps, o->ts));
    f.replay = p ? p->replay
                 : f.in_step && step_index(c->steps, c->n_steps, o->ts) < KT_REPLAY_STEPS;
    f.phase = p ? p->phase : PHASE_FORWARD;
    if (cl->backward)
        f.phase = PHASE_BACKWARD;
    if (f.phase == PHASE_FORWARD &&
        (cl->kind == OP_OPTIMIZER || (!p && in_ivals(c->optim, c->n_optim, o->ts))))
        f.phase = PHASE_OPTIMIZER;
    f.covered = p && (p->counted || p->covered);
    int maj = (o->flags & KF_MAJOR_DESC) != 0, rec = (o->flags & KF_REC_DESC) != 0;
    if (cl->transparent)
        f.counted = 0;
    else if (cl->major)
        f.counted = !maj;
    else if (cl->kind != OP_OTHER)
        f.counted = !maj && !f.covered;
    else
        f.counted = !rec && !f.covered;
    if ((o->flags & KF_RNN_FOLD) && !f.covered)
        f.counted = f.in_fold = 1;
    if (p && p->in_fold) {
        /* the layer's call holds everything below it */
        f.in_fold = 1;
        f.counted = 0;
    }
    int64_t fold = f.counted || f.covered ? -1 : fold_of_backward(c, o);
    if (fold >= 0)
        return frame_fold_backward(c, i, o, f, (size_t)fold);
    if (f.counted) {
        f.group = (int64_t)acc_get(c, o->key, f.phase);
        if (f.in_step) {
            c->acc[f.group].count += 1;
            c->acc[f.group].host_ns += o->end - o->ts;
            c->acc[f.group].desc += c->desc[i];
            if (f.replay)
                f.call = call_new(c, f.group, o);
        }
    } else if (f.covered) {
        f.group = p->group;
        f.call = p->call;
    }
    return f;
}

/* Count one thread's ops; *li walks the launch calls (sorted by thread). */
static void kt_count_thread(struct counter *c, uint16_t tid, struct kt_op *ops, size_t n_ops,
                            size_t *lip)
{
    struct kt *k = c->k;
    struct frame *stack = NULL;
    size_t depth = 0, alloc = 0;

    /* Kineto writes each thread's ops in time order: sorting is the
     * exception (and then only of this thread's records) */
    if (!op_order_ok(ops, n_ops))
        qsort(ops, n_ops, sizeof *ops, cmp_op);
    c->ops = ops;
    while (*lip < k->n_launches && k->launches[*lip].tid < tid)
        (*lip)++;
    mark_descendants(c, ops, n_ops);

    /* pass 2: count, phase, attach device time */
    size_t li = *lip;
    for (size_t i = 0; i <= n_ops; i++) {
        struct kt_op *o = i < n_ops ? &ops[i] : NULL;
        /* launch calls before this op go to the innermost op open at
         * their time (frames that ended before them are left) */
        while (li < k->n_launches &&
               (!o ? k->launches[li].tid == tid : k->launches[li].tid < o->tid ||
                (k->launches[li].tid == o->tid && k->launches[li].ts < o->ts))) {
            const struct kt_launch *l = &k->launches[li++];
            while (depth > 0 && (ops[stack[depth - 1].op].tid != l->tid ||
                                 ops[stack[depth - 1].op].end < l->ts))
                depth--;
            if (depth > 0)
                attribute_launch(c, stack, depth, l);
        }
        while (depth > 0) {
            struct kt_op *t = &ops[stack[depth - 1].op];
            if (o && t->tid == o->tid && (o->ts < t->end || o->ts == t->ts))
                break;
            depth--;
        }
        if (!o)
            break;

        struct frame *p = depth ? &stack[depth - 1] : NULL;
        struct frame f = frame_open(c, i, o, p);
        if (!p && f.in_step)
            c->host_busy_ns += o->end - o->ts;
        if (!p && f.replay) {
            ALLOC_GROW(c->busy, c->n_busy + 1, c->alloc_busy);
            c->busy[c->n_busy].ts = o->ts;
            c->busy[c->n_busy++].end = o->end;
        }
        ALLOC_GROW(stack, depth + 1, alloc);
        stack[depth++] = f;
        uint32_t di;
        if (o->ext >= 0 && u64map_get(&k->dev_by_ext, (uint64_t)o->ext, &di))
            attribute(c, &stack[depth - 1], &k->devs[di]);
    }
    *lip = li;
    free(stack);
    free(c->desc);
    c->desc = NULL;
}

static int cmp_seq(const void *pa, const void *pb)
{
    const struct kt_seq *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

/* A fold for layer o of thread t: the key of its backward call and the
 * sequence numbers of the ops inside it (k->seqs sorted). */
static void fold_add(struct counter *c, uint32_t t, const struct kt_op *o)
{
    struct kt *k = c->k;
    const struct kt_key fk = k->keys[o->key];   /* a copy: key_get may move the keys */
    /* the reading's lookups are gone (kt_parse_tables_release): the name
     * and the key are appended; two folds of one layer give two equal
     * keys, whose ops merge_same joins */
    struct strbuf nm = STRBUF_INIT;
    strbuf_addf(&nm, "%s_backward", intern_str(&k->strs, fk.name));
    ALLOC_GROW(k->keys, k->n_keys + 1, k->alloc_keys);
    struct kt_key *e = &k->keys[k->n_keys];
    *e = fk;
    e->name = intern_append(&k->strs, nm.buf, nm.len);
    strbuf_release(&nm);
    key_set_class(e, intern_str(&k->strs, e->name));
    uint32_t bkey = (uint32_t)k->n_keys++;
    ALLOC_GROW(c->folds, c->n_folds + 1, c->alloc_folds);
    c->folds[c->n_folds] = (struct kt_fold){ bkey, -1 };
    size_t lo = seq_lower_bound(k, t, o->ts);
    for (; lo < k->n_seqs && k->seqs[lo].tid == t && k->seqs[lo].ts < o->end; lo++)
        u64map_put(&c->fold_seq, (uint64_t)k->seqs[lo].seq, (uint32_t)c->n_folds);
    c->n_folds++;
}

/* Recurrent layers run as per-step ops.  A layer op (lstm, gru, rnn_*)
 * with matrix products below it but no recurrent op (cuDNN's _cudnn_rnn,
 * oneDNN's mkldnn_rnn_layer) is PyTorch's step-by-step implementation:
 * thousands of small GEMMs and pointwise ops per pass that a GPU runs as a
 * few fused kernels.  Such a layer is counted as one forward call, and the
 * backward functions of the ops inside it (matched by autograd sequence
 * number) as one backward call, so that the layer is estimated from the
 * recurrent tables like the fused call it becomes. */
static void kt_rnn_folds(struct counter *c)
{
    struct kt *k = c->k;
    if (!k->n_seqs)
        return;
    qsort(k->seqs, k->n_seqs, sizeof *k->seqs, cmp_seq);
    for (size_t t = 0; t < k->alloc_th; t++) {
        struct kt_thread *th = &k->th[t];
        if (th->n && !op_order_ok(th->ops, th->n))
            qsort(th->ops, th->n, sizeof *th->ops, cmp_op);
        for (size_t i = 0; i < th->n; i++) {
            struct kt_op *o = &th->ops[i];
            const struct kt_key *cl = &k->keys[o->key];
            if (cl->kind != OP_RNN || cl->transparent || cl->backward)
                continue;
            int major = 0, rnn = 0;
            for (size_t j = i + 1; j < th->n && th->ops[j].ts < o->end; j++) {
                const struct kt_key *cj = &k->keys[th->ops[j].key];
                rnn |= cj->kind == OP_RNN;
                major |= cj->major;
            }
            if (rnn || !major)
                continue;
            o->flags |= KF_RNN_FOLD;
            fold_add(c, (uint32_t)t, o);
        }
    }
}

static void kt_count(struct counter *c)
{
    struct kt *k = c->k;
    size_t li = 0;
    if (k->n_launches > 1)
        qsort(k->launches, k->n_launches, sizeof *k->launches, cmp_launch);
    for (size_t t = 0; t < k->alloc_th; t++)
        if (k->th[t].n)
            kt_count_thread(c, (uint16_t)t, k->th[t].ops, k->th[t].n, &li);
}

/* ------------------------------------------------------------ the profile */

static int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int cmp_identity(const void *pa, const void *pb)
{
    const struct op *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    if (a->phase != b->phase)
        return (int)a->phase - (int)b->phase;
    if (a->dtype != b->dtype)
        return (int)a->dtype - (int)b->dtype;
    c = strcmp(a->shapes ? a->shapes : "", b->shapes ? b->shapes : "");
    if (c)
        return c;
    if (a->a_t != b->a_t)
        return a->a_t - b->a_t;
    if (a->b_t != b->b_t)
        return a->b_t - b->b_t;
    if ((c = memcmp(op_conv(a), op_conv(b), sizeof(struct conv_shape))))
        return c;
    /* kernel-table parameters from scalar arguments (an embedding's rows,
     * an rnn's layers, attention's causal flag) */
    const struct op_table_sizes *sa = op_sizes(a), *sb = op_sizes(b);
    if ((c = memcmp(sa->kdim, sb->kdim, sizeof sa->kdim)) || (c = strcmp(sa->kop, sb->kop)) ||
        (c = strcmp(sa->kmode, sb->kmode)))
        return c;
    return a->kflag - b->kflag;
}

/* A hash of what cmp_identity compares: equal identities, equal hashes. */
static uint64_t identity_hash(const struct op *o)
{
    const char *sh = o->shapes ? o->shapes : "";
    const struct conv_shape *cv = op_conv(o);
    const struct op_table_sizes *sz = op_sizes(o);
    uint64_t small = (uint64_t)o->kind | (uint64_t)o->phase << 8 | (uint64_t)o->dtype << 16 |
                     (uint64_t)(unsigned char)o->a_t << 24 | (uint64_t)(unsigned char)o->b_t << 32 |
                     (uint64_t)(uint32_t)o->kflag << 40;
    uint64_t h = hash_bytes(o->name, strlen(o->name));
    h = hash_u64(h ^ hash_bytes(sh, strlen(sh)));
    h = hash_u64(h ^ small);
    h = hash_u64(h ^ hash_bytes(cv, sizeof *cv));
    h = hash_u64(h ^ hash_bytes(sz->kdim, sizeof sz->kdim));
    h = hash_u64(h ^ hash_bytes(sz->kop, strlen(sz->kop)));
    return hash_u64(h ^ hash_bytes(sz->kmode, strlen(sz->kmode)));
}

/* ops_sort's order, ties by identity: the order the ops had when they
 * were sorted by identity, merged, and sorted (stably) by time. */
static int cmp_time_identity(const void *pa, const void *pb)
{
    int c = ops_cmp_time_desc(pa, pb);
    return c ? c : cmp_identity(pa, pb);
}

/* cmp_time_identity's order on a compact copy: the time and the first
 * eight bytes of name and shapes (compared as strcmp compares: unsigned
 * bytes, NUL first) decide most pairs in one cache line, where comparing
 * the ops themselves reads two ops and four strings scattered over the
 * heap.  A million distinct ops of one time (scale-bench) spent a fifth
 * of their ingest in that sort. */
struct time_key {
    double time_s;
    uint64_t name8, shapes8;
    const struct op *op;
};

static uint64_t prefix8(const char *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v <<= 8;
        if (*s)
            v |= (unsigned char)*s++;
    }
    return v;
}

static int cmp_time_key(const void *pa, const void *pb)
{
    const struct time_key *a = pa, *b = pb;
    if (a->time_s != b->time_s)
        return a->time_s < b->time_s ? 1 : -1;
    if (a->name8 != b->name8)
        return a->name8 < b->name8 ? -1 : 1;
    /* equal first bytes: the shapes' decide only between equal names */
    if (a->op->name == b->op->name || strcmp(a->op->name, b->op->name) == 0) {
        if (a->shapes8 != b->shapes8)
            return a->shapes8 < b->shapes8 ? -1 : 1;
    }
    return cmp_time_identity(a->op, b->op);
}

/* Sorts keys by cmp_time_key: runs of 16 by insertion, then merged
 * pairwise between key and a scratch array.  glibc's qsort moved these
 * 32-byte records by calls to memcpy, most of its time on a million keys
 * (perf); here a move is a struct copy. */
static void time_key_sort(struct time_key *key, size_t n)
{
    enum { RUN = 16 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            struct time_key x = key[i];
            size_t j = i;
            for (; j > lo && cmp_time_key(&key[j - 1], &x) > 0; j--)
                key[j] = key[j - 1];
            key[j] = x;
        }
    }
    if (n <= RUN)
        return;
    struct time_key *tmp = xmalloc(n * sizeof *tmp), *from = key, *to = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                to[o++] = cmp_time_key(&from[b], &from[a]) < 0 ? from[b++] : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
        }
        struct time_key *t = from;
        from = to;
        to = t;
    }
    if (from != key)
        memcpy(key, from, n * sizeof *key);
    free(tmp);
}

static void sort_time_identity(struct profile *p)
{
    struct time_key *key = xmalloc(p->n_ops * sizeof *key);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        key[i].time_s = o->time_s;
        key[i].name8 = prefix8(o->name);
        key[i].shapes8 = prefix8(o->shapes ? o->shapes : "");
        key[i].op = o;
    }
    time_key_sort(key, p->n_ops);
    /* the ops move in place, cycle by cycle (a second array of them would
     * be the largest allocation of a trace of distinct ops): position i
     * takes op key[i].op; a placed position's key is cleared */
    for (size_t i = 0; i < p->n_ops; i++) {
        if (!key[i].op || key[i].op == &p->ops[i])
            continue;
        struct op first = p->ops[i];
        size_t j = i;
        while (key[j].op != &p->ops[i]) {
            size_t from = (size_t)(key[j].op - p->ops);
            p->ops[j] = *key[j].op;
            key[j].op = NULL;
            j = from;
        }
        p->ops[j] = first;
        key[j].op = NULL;
    }
    free(key);
}

/* Index of the op of p's first i ops that has o's identity, or i.  The
 * slots hold op index + 1 (0 empty), h the ops' hashes. */
static size_t identity_find(const struct profile *p, const uint64_t *h, uint32_t *slot,
                            size_t nslot, size_t i)
{
    size_t j = (size_t)h[i] & (nslot - 1);
    for (; slot[j]; j = (j + 1) & (nslot - 1)) {
        size_t x = slot[j] - 1;
        if (h[x] == h[i] && cmp_identity(&p->ops[x], &p->ops[i]) == 0)
            return x;
    }
    slot[j] = (uint32_t)i + 1;
    return i;
}

/* Ops that differ only in what the table does not show (strides that give
 * the same orientation, scalar arguments) become one entry, the first in
 * the file's order taking the others' counts in that order.  Found by
 * hashing, and the ops left sorted for ops_sort in one pass: a million
 * distinct ops cost two sorts comparing their texts otherwise. */
static void merge_same(struct profile *p)
{
    if (p->n_ops < 2)
        return;
    /* calls name their op by id: merged ops pass theirs on */
    size_t *to = NULL, n_to = 0;
    if (p->n_calls) {
        for (size_t i = 0; i < p->n_ops; i++)
            if (p->ops[i].id >= n_to)
                n_to = p->ops[i].id + 1;
        to = xmalloc(n_to * sizeof *to);
        for (size_t i = 0; i < n_to; i++)
            to[i] = i;
    }
    size_t nslot = 16;
    while (nslot < 2 * p->n_ops)
        nslot *= 2;
    uint32_t *slot = xcalloc(nslot, sizeof *slot);
    uint64_t *h = xmalloc(p->n_ops * sizeof *h);
    for (size_t i = 0; i < p->n_ops; i++)
        h[i] = identity_hash(&p->ops[i]);
    size_t w = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        size_t x = identity_find(p, h, slot, nslot, i);
        if (x != i) {
            struct op *d = &p->ops[x], *s = &p->ops[i];
            if (to)
                to[s->id] = d->id;
            d->count += s->count;
            d->time_s += s->time_s;
            d->device_time_s += s->device_time_s;
            d->host_time_s += s->host_time_s;
            d->kernels += s->kernels;
            d->events += s->events;
            d->flops += s->flops;
            d->bytes += s->bytes;
            op_release(s);
            s->name = NULL;     /* merged: left out below */
            continue;
        }
        w++;
    }
    free(slot);
    free(h);
    if (w < p->n_ops) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_ops; i++)
            if (p->ops[i].name)
                p->ops[n++] = p->ops[i];
        p->n_ops = n;
    }
    sort_time_identity(p);
    for (size_t i = 0; to && i < p->n_calls; i++)
        if (p->calls[i].op_id < n_to)
            p->calls[i].op_id = to[p->calls[i].op_id];
    free(to);
}

static int cmp_call(const void *pa, const void *pb)
{
    const struct kt_call *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

/* Host busy time (union of top-level ops) from the start of v up to t. */
static int64_t busy_at(const struct ival *v, const int64_t *cum, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].ts <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    return cum[lo - 1] + (t < v[lo - 1].end ? t : v[lo - 1].end) - v[lo - 1].ts;
}

/* The calls of every step in issue order.  Host times leave out the
 * gaps between top-level ops: outside any op the host runs the profiler
 * and Python's loop, which a run without the profiler mostly does not
 * pay.  A call's device time is the union of its kernels' span and sum
 * (the smaller), so kernels on parallel streams count once. */
static void kt_calls(struct counter *c, struct profile *out)
{
    double removed = 0;
    int last_step = -1;
    if (!c->n_calls || !c->n_steps)
        return;
    qsort(c->busy, c->n_busy, sizeof *c->busy, cmp_ival);
    size_t nb = 0;
    for (size_t i = 0; i < c->n_busy; i++) {
        if (nb && c->busy[i].ts <= c->busy[nb - 1].end) {
            if (c->busy[i].end > c->busy[nb - 1].end)
                c->busy[nb - 1].end = c->busy[i].end;
        } else {
            c->busy[nb++] = c->busy[i];
        }
    }
    int64_t *cum = xmalloc((nb + 1) * sizeof *cum);
    cum[0] = 0;
    for (size_t i = 0; i < nb; i++)
        cum[i + 1] = cum[i] + c->busy[i].end - c->busy[i].ts;
    qsort(c->calls, c->n_calls, sizeof *c->calls, cmp_call);
    for (size_t i = 0; i < c->n_calls; i++) {
        const struct kt_call *x = &c->calls[i];
        size_t st = 0;
        while (st + 1 < c->n_steps && c->steps[st + 1].ts <= x->ts)
            st++;
        ALLOC_GROW(out->calls, out->n_calls + 1, out->alloc_calls);
        struct op_call *y = &out->calls[out->n_calls++];
        int64_t span = x->dev_end - x->dev_ts;
        y->op_id = (size_t)x->acc;
        y->step = (int)st;
        y->host_start_s = (double)(busy_at(c->busy, cum, nb, x->ts)
                                   - busy_at(c->busy, cum, nb, c->steps[st].ts)) * 1e-9;
        y->host_s = (double)(x->end - x->ts) * 1e-9;
        y->device_s = (double)(span < x->dev_ns ? span : x->dev_ns) * 1e-9;
        y->events = (double)x->events;
        /* the profiler's cost in this call and in the calls before it in
         * the step (struct profile: event_gap_s) */
        if ((int)st != last_step)
            removed = 0;
        last_step = (int)st;
        double own = y->host_s - y->events * out->event_gap_s;
        if (own < 0)
            own = 0;
        y->host_start_s = y->host_start_s > removed ? y->host_start_s - removed : 0;
        removed += y->host_s - own;
        y->host_s = own;
    }
    free(cum);
}

/* The steps (ProfilerStep# annotations) and optimizer spans, sorted.
 * Returns the steps' total time. */
static int64_t kt_steps(struct counter *c)
{
    struct kt *k = c->k;
    int64_t step_ns = 0;
    for (size_t i = 0; i < k->n_anns; i++) {
        const char *nm = intern_str(&k->strs, k->anns[i].name);
        struct ival v = { k->anns[i].ts, k->anns[i].end };
        if (starts_with(nm, "ProfilerStep#")) {
            c->steps = xrealloc(c->steps, (c->n_steps + 1) * sizeof *c->steps);
            c->steps[c->n_steps++] = v;
            step_ns += v.end - v.ts;
        } else if (starts_with(nm, "Optimizer.")) {
            c->optim = xrealloc(c->optim, (c->n_optim + 1) * sizeof *c->optim);
            c->optim[c->n_optim++] = v;
        }
    }
    if (c->n_steps)
        qsort(c->steps, c->n_steps, sizeof *c->steps, cmp_ival);
    if (c->n_optim)
        qsort(c->optim, c->n_optim, sizeof *c->optim, cmp_ival);
    return step_ns;
}

/* A trace that ends inside a step holds part of it: its ops would count
 * as fractions of a step (0.5 calls per pass of an op that runs once).  A
 * training loop's steps repeat the same calls, so a last step with fewer
 * op calls than the step before it was cut short: it is left out, its
 * time too, and the profile's counts are per complete step. */
static void kt_drop_partial_step(struct counter *c, int64_t *step_ns)
{
    struct kt *k = c->k;
    size_t n = c->n_steps;
    if (n < 2)
        return;
    const struct ival *last = &c->steps[n - 1], *prev = &c->steps[n - 2];
    size_t in_last = 0, in_prev = 0;
    for (size_t t = 0; t < k->alloc_th; t++) {
        for (size_t i = 0; i < k->th[t].n; i++) {
            int64_t ts = k->th[t].ops[i].ts;
            in_last += ts >= last->ts && ts < last->end;
            in_prev += ts >= prev->ts && ts < prev->end;
        }
    }
    if (in_last >= in_prev)
        return;
    diag_warn_at(k->d, k->path, 0, 0,
                 "the last profiled step holds %zu op calls against %zu in the step before: "
                 "the trace ends inside it, so it is left out and %zu complete step%s counted",
                 in_last, in_prev, n - 1, n - 1 == 1 ? " is" : "s are");
    *step_ns -= last->end - last->ts;
    c->n_steps--;
}

/* Device work no op claimed, within the steps (and one mean step of lag
 * after the last): a group per kernel name. */
static void kt_unclaimed(struct counter *c, int64_t step_ns)
{
    struct kt *k = c->k;
    int64_t lo = c->n_steps ? c->steps[0].ts : INT64_MIN;
    int64_t hi = INT64_MAX;
    if (c->n_steps) {
        int64_t last = c->steps[c->n_steps - 1].end;
        /* the device may still be busy with the last step's work after
         * the host left it: allow one mean step of lag */
        hi = last + step_ns / (int64_t)c->n_steps;
    }
    for (size_t i = 0; i < k->n_devs; i++) {
        struct kt_dev *e = &k->devs[i];
        if (e->n & DEV_USED)
            continue;
        if (e->ts < lo || e->ts > hi)
            continue;
        size_t g = acc_get(c, KEY_KERNEL | e->name, PHASE_UNKNOWN);
        c->acc[g].count += (e->n & DEV_KERNELS);
        c->acc[g].dev_ns += e->dev_ns;
        c->acc[g].kernels += (e->n & DEV_KERNELS);
    }
}

/* The profile's header: steps, device, framework, step and host time. */
static void kt_header(const struct kt *k, const struct counter *c, int64_t step_ns,
                      const struct ingest_opts *o, struct profile *out)
{
    double inv = 1.0 / out->steps;
    out->has_device = k->n_device > 0;
    out->format = xstrdup("kineto");
    out->source = xstrdup(k->path);
    /* CPU runs on a GPU host still list the GPU: name it only if used */
    if (out->has_device && k->device_name && *k->device_name)
        out->device_name = xstrdup(k->device_name);
    struct strbuf fw = STRBUF_INIT;
    strbuf_addstr(&fw, "PyTorch");
    if (k->version)
        strbuf_addf(&fw, " %s", k->version);
    out->framework = strbuf_detach(&fw);
    out->batch = o ? o->batch : 0;
    out->step_time_s = c->n_steps ? (double)step_ns * 1e-9 * inv : 0;
    out->host_time_s = (double)c->host_busy_ns * 1e-9 * inv;
    out->event_gap_s = (rec_hist_median_ns(c->lead_hist) + rec_hist_median_ns(c->trail_hist)) * 1e-9;
}

/* The profile's copy of string id, made once for all the ops that share
 * the name. */
static char *kt_op_name(struct kt *k, uint32_t id, struct profile *out)
{
    uint32_t i;
    if (!u64map_get(&k->op_name_of, id, &i)) {
        const char *s = intern_str(&k->strs, id);
        ALLOC_GROW(k->op_name, k->n_op_name + 1, k->alloc_op_name);
        k->op_name[k->n_op_name] = profile_strndup(out, s, strlen(s));
        i = (uint32_t)k->n_op_name++;
        u64map_put(&k->op_name_of, id, i);
    }
    return (char *)k->op_name[i];
}

/* One op of the profile from group a (index i), per step. */
static void kt_op_of(struct kt *k, const struct kt_acc *a, size_t i, struct profile *out)
{
    double inv = 1.0 / out->steps;
    struct op *op = profile_add_op(out);
    op->id = i;
    op->strs_borrowed = 1;
    struct op_args args = { NULL, NULL, NULL, NULL };
    if (a->key & KEY_KERNEL) {
        const char *kn = intern_str(&k->strs, a->key & ~KEY_KERNEL);
        op->name = kt_op_name(k, a->key & ~KEY_KERNEL, out);
        op->kind = ops_classify_kernel(kn);
        op->phase = PHASE_UNKNOWN;
        op->flags = xstrdup("no-framework-op");
    } else {
        const struct kt_key *key = &k->keys[a->key];
        op->name = kt_op_name(k, key->name, out);
        op->kind = (enum op_kind)key->kind;
        op->phase = (enum op_phase)a->phase;
        args.dims = key->dims ? intern_str(&k->strs, key->dims) : NULL;
        args.types = key->types ? intern_str(&k->strs, key->types) : NULL;
        args.strides = key->strides ? intern_str(&k->strs, key->strides) : NULL;
        args.concrete = key->conc ? intern_str(&k->strs, key->conc) : NULL;
    }
    double f1 = 0, b1 = 0;
    ops_fill(op, &args, &f1, &b1);
    if (op->shapes) {
        /* into the profile's strings: the malloc'd text is freed at once,
         * so the next op's reuses its memory */
        char *t = op->shapes;
        op->shapes = profile_strndup(out, t, strlen(t));
        free(t);
    }
    /* PyTorch runs fp32 convolutions and recurrent layers as TF32 by
     * default (cuDNN's fp32_precision "tf32"), matrix products as IEEE
     * fp32, and a script may set either: the kernels' names tell */
    if (op->dtype == PREC_FP32 && a->tf32)
        op->dtype = PREC_TF32;
    op->count = a->count * inv;
    op->host_time_s = (double)a->host_ns * 1e-9 * inv;
    op->device_time_s = (double)a->dev_ns * 1e-9 * inv;
    op->kernels = (double)a->kernels * inv;
    op->events = (double)(a->desc + a->kernels) * inv;
    /* the program's host time: the profiler's recording of the events
     * inside the op's calls taken out (struct profile: event_gap_s) */
    double rec = op->events * out->event_gap_s;
    rec = rec < op->host_time_s ? rec : op->host_time_s;
    op->host_time_s -= rec;
    out->profiler_host_s += rec;
    op->time_s = out->has_device ? op->device_time_s : op->host_time_s;
    op->flops = f1 * op->count;
    op->bytes = b1 * op->count;
}

/* What counting needed and building the ops does not: the group map, the
 * per-thread records and the device work.  Freed before the ops are
 * allocated, the largest array of the profile. */
static void kt_counted_release(struct kt *k, struct counter *c)
{
    u64map_release(&c->accmap);
    memset(&c->accmap, 0, sizeof c->accmap);
    free(c->acc_of);
    c->acc_of = NULL;
    c->n_acc_of = 0;
    for (size_t i = 0; i < k->alloc_th; i++)
        free(k->th[i].ops);
    free(k->th);
    k->th = NULL;
    k->alloc_th = 0;
    ALLOC_FREE(k->devs, k->n_devs, k->alloc_devs);
    ALLOC_FREE(k->anns, k->n_anns, k->alloc_anns);
    ALLOC_FREE(k->launches, k->n_launches, k->alloc_launches);
    ALLOC_FREE(k->seqs, k->n_seqs, k->alloc_seqs);
    u64map_release(&k->dev_by_ext);
    memset(&k->dev_by_ext, 0, sizeof k->dev_by_ext);
    u64map_release(&k->dev_by_corr);
    memset(&k->dev_by_corr, 0, sizeof k->dev_by_corr);
}

/* What building the ops needed and the calls do not: the groups, the op
 * identities and their strings (the ops hold copies).  Freed before the
 * calls are laid out so that they do not sit beside the profile. */
static void kt_groups_release(struct kt *k, struct counter *c)
{
    ALLOC_FREE(c->acc, c->n_acc, c->alloc_acc);
    ALLOC_FREE(k->keys, k->n_keys, k->alloc_keys);
    intern_release(&k->strs);
    memset(&k->strs, 0, sizeof k->strs);
}

static int kt_build(struct kt *k, const struct ingest_opts *o, struct profile *out)
{
    struct counter c;
    memset(&c, 0, sizeof c);
    c.k = k;
    c.lead_hist = xcalloc(REC_BINS, sizeof *c.lead_hist);
    c.trail_hist = xcalloc(REC_BINS, sizeof *c.trail_hist);
    /* the op keys' groups: sized once rather than grown a dozen times for
     * a million distinct ops */
    c.n_acc_of = (k->n_keys ? k->n_keys : 1) * N_PHASES;
    c.acc_of = xcalloc(c.n_acc_of, sizeof *c.acc_of);
    u64map_init(&c.accmap);
    u64map_init(&c.fold_seq);
    int64_t step_ns = kt_steps(&c);
    kt_drop_partial_step(&c, &step_ns);
    kt_rnn_folds(&c);
    kt_count(&c);
    kt_unclaimed(&c, step_ns);

    kt_counted_release(k, &c);
    out->steps = c.n_steps ? (int)c.n_steps : 1;
    kt_header(k, &c, step_ns, o, out);
    /* exactly as many ops as groups: doubling would leave up to half of
     * the largest array of the profile unused */
    size_t n_keep = 0;
    for (size_t i = 0; i < c.n_acc; i++)
        n_keep += !(c.acc[i].count <= 0 && c.acc[i].dev_ns <= 0);
    if (n_keep > out->alloc_ops) {
        out->ops = xrealloc(out->ops, n_keep * sizeof *out->ops);
        out->alloc_ops = n_keep;
    }
    u64map_init(&k->op_name_of);
    for (size_t i = 0; i < c.n_acc; i++)
        if (!(c.acc[i].count <= 0 && c.acc[i].dev_ns <= 0))
            kt_op_of(k, &c.acc[i], i, out);
    u64map_release(&k->op_name_of);
    memset(&k->op_name_of, 0, sizeof k->op_name_of);
    ALLOC_FREE(k->op_name, k->n_op_name, k->alloc_op_name);
    for (size_t i = 0; i < out->n_ops; i++) {
        struct op *op = &out->ops[i];
        if (op->dtype == PREC_UNKNOWN && op->kind == OP_OPTIMIZER) {
            /* tensor lists record no element type; optimizer state and
             * master weights are fp32 even under autocast */
            op->dtype = PREC_FP32;
            if (!op->flags)
                op->flags = xstrdup("dtype-assumed");
        }
    }
    out->host_time_s = out->host_time_s > out->profiler_host_s
                       ? out->host_time_s - out->profiler_host_s : 0;
    kt_groups_release(k, &c);
    kt_calls(&c, out);
    merge_same(out);
    free(c.acc);
    free(c.calls);
    free(c.busy);
    free(c.steps);
    free(c.optim);
    free(c.lead_hist);
    free(c.trail_hist);
    free(c.folds);
    u64map_release(&c.fold_seq);
    u64map_release(&c.accmap);
    free(c.acc_of);
    return FOM_OK;
}

/* The lookups that only reading needs: the key map and its chains, and
 * the strings' hash slots (kt_build reads strings by id).  Freed before
 * the profile is built, as a trace of a million distinct ops holds about
 * 200 bytes per op in them, which would otherwise sit beside the
 * profile's ops at the peak. */
static void kt_parse_tables_release(struct kt *k)
{
    free(k->key_next);
    k->key_next = NULL;
    k->alloc_key_next = 0;
    u64map_release(&k->keymap);
    memset(&k->keymap, 0, sizeof k->keymap);
    free(k->strs.slot);
    k->strs.slot = NULL;
    k->strs.nslot = 0;
    u64map_release(&k->threads);
    memset(&k->threads, 0, sizeof k->threads);
}

static void kt_release(struct kt *k)
{
    strbuf_release(&k->name);
    strbuf_release(&k->dims);
    strbuf_release(&k->types);
    strbuf_release(&k->strides);
    strbuf_release(&k->conc);
    intern_release(&k->strs);
    free(k->keys);
    free(k->key_next);
    u64map_release(&k->keymap);
    u64map_release(&k->threads);
    for (size_t i = 0; i < k->alloc_th; i++)
        free(k->th[i].ops);
    free(k->th);
    free(k->anns);
    free(k->launches);
    free(k->seqs);
    free(k->devs);
    u64map_release(&k->dev_by_ext);
    u64map_release(&k->dev_by_corr);
    free(k->device_name);
    free(k->version);
}

int kineto_read(const char *path, const struct ingest_opts *o, struct profile *out,
                struct diag *d)
{
    struct kt k;
    memset(&k, 0, sizeof k);
    k.path = path;
    k.d = d;
    k.progress = o ? o->progress : NULL;
    {
        struct stat sb;
        k.file_b = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    }
    strbuf_init(&k.name);
    strbuf_init(&k.dims);
    strbuf_init(&k.types);
    strbuf_init(&k.strides);
    strbuf_init(&k.conc);
    intern_init(&k.strs);
    u64map_init(&k.keymap);
    u64map_init(&k.threads);
    u64map_init(&k.dev_by_ext);
    u64map_init(&k.dev_by_corr);
    int rc = kt_parse(&k);
    progress_end(k.progress);
    if (rc)
        goto out;
    if (k.n_ops == 0 && k.n_device == 0) {
        rc = diag_error_at(d, path, 0, 0,
                           "found %lld events but no cpu_op or kernel events, "
                           "expected a PyTorch profiler trace",
                           (long long)k.n_events);
        goto out;
    }
    kt_parse_tables_release(&k);
    rc = kt_build(&k, o, out);
    if (rc)
        goto out;
    out->dtype = ops_dominant_dtype(out);
    ops_index_outputs(out);
    ops_sort(out);
    ops_select_top(out, o && o->top > 0 ? o->top : 1.0);
out:
    kt_release(&k);
    return rc;
}
