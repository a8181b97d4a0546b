/* TensorFlow 1 tfprof "op view" text (tfprof_op.cc, tfprof_show_multi.cc):
 *
 *   node name | requested bytes | total execution time | ... | op occurrence (run|defined)
 *   MatMul     2720.57MB (99.95%, 3.66%),   708.14ms (73.32%, 13.83%), ...,  2694|3450
 *   input_type: 0:2x3x3x6,	1:2x2x6x12	(run*1|defined*1)	exec_time: 597us
 *
 * and the older spelling of the input-shape lines quoted in the seed
 * lecture, without "input_type:" and with "(run*2 defined*2)".
 *
 * Per-pass assumption: tfprof's default view (-step -1) shows the average
 * of the profiled steps, and the seed dump is "for one pass"; so the file is
 * taken as ONE step (steps = 1) and run counts are counts per pass.
 *
 * An op row followed by input-shape lines becomes one op per shape
 * signature (its run count and exec_time); an op row alone becomes one op.
 * Shape lines with no op row before them (the seed's bare MatMul dump) are
 * taken as MatMul, with a warning. */
#include "ingest/ingest.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "ingest/textio.h"

#define MAX_INPUTS 16
#define MAX_RANK 8

struct tshape {
    int rank;               /* -1: "unknown" */
    long long dim[MAX_RANK];
};

struct shape_line {
    int n;
    struct tshape in[MAX_INPUTS];
    long long runs, defined;
    double exec_s;
};

enum col {
    COL_IGNORE, COL_BYTES, COL_TOTAL, COL_ACCEL, COL_CPU, COL_FLOPS, COL_OCC,
};

#define MAX_COLS 32

struct reader {
    const char *path;
    const struct ingest_opts *o;
    struct profile *p;
    struct diag *d;
    enum col cols[MAX_COLS];
    int n_cols;             /* -1 until a header was seen */
    char *row_type;         /* op type of the last op row */
    long row_op;            /* index of that row's op, -1 if none */
    int row_shapes;         /* shape lines seen for that row */
    double row_flops;       /* that row's '# float_ops', -1 if not given */
    int warned_orphan;
};

/* ------------------------------------------------------------------ */
/* input-shape lines */

static int starts_with(const char *s, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && memcmp(s, pre, k) == 0;
}

static int is_shape_line(const char *s, size_t n)
{
    if (starts_with(s, n, "input_type:"))
        return 1;
    size_t i = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    return i > 0 && i < n && s[i] == ':';
}

/* "100x29532", "-1x29532", "unknown", "" (scalar) */
static int parse_dims(const char *s, size_t n, struct tshape *sh)
{
    sh->rank = 0;
    if (n == 7 && memcmp(s, "unknown", 7) == 0) {
        sh->rank = -1;
        return 0;
    }
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != 'x')
            j++;
        long long v;
        if (sh->rank >= MAX_RANK || textio_parse_i64(s + i, j - i, &v) < 0 || v < -1)
            return -1;
        sh->dim[sh->rank++] = v;
        if (j == n)
            break;
        i = j + 1;
        if (i == n)
            return -1;      /* trailing 'x': a cut line */
    }
    return 0;
}

static int parse_shape_line(const char *s, size_t n, struct shape_line *sl, const char **expected)
{
    memset(sl, 0, sizeof *sl);
    if (starts_with(s, n, "input_type:")) {
        s += 11;
        n -= 11;
    }
    const char *paren = memchr(s, '(', n);
    if (!paren) {
        *expected = "'(run*N|defined*M)' after the input shapes";
        return -1;
    }
    /* shapes: idx:dims separated by commas */
    size_t i = 0, end = (size_t)(paren - s);
    while (i < end) {
        size_t j = i;
        while (j < end && s[j] != ',')
            j++;
        size_t len = j - i;
        const char *item = textio_trim(s + i, &len);
        if (len) {
            const char *colon = memchr(item, ':', len);
            long long idx;
            if (!colon || textio_parse_i64(item, (size_t)(colon - item), &idx) < 0 ||
                sl->n >= MAX_INPUTS ||
                parse_dims(colon + 1, len - (size_t)(colon + 1 - item), &sl->in[sl->n]) < 0) {
                *expected = "input shapes like '0:100x50'";
                return -1;
            }
            sl->n++;
        }
        i = j + 1;
    }
    if (sl->n == 0) {
        *expected = "input shapes like '0:100x50'";
        return -1;
    }
    const char *p = paren + 1, *e = s + n;
    const char *close = memchr(p, ')', (size_t)(e - p));
    if (!close || !starts_with(p, (size_t)(close - p), "run*")) {
        *expected = "'(run*N|defined*M)'";
        return -1;
    }
    p += 4;
    const char *q = p;
    while (q < close && isdigit((unsigned char)*q))
        q++;
    if (textio_parse_i64(p, (size_t)(q - p), &sl->runs) < 0 || q == close ||
        (*q != '|' && *q != ' ') || !starts_with(q + 1, (size_t)(close - q - 1), "defined*") ||
        textio_parse_i64(q + 9, (size_t)(close - q - 9), &sl->defined) < 0) {
        *expected = "'(run*N|defined*M)'";
        return -1;
    }
    size_t rest = (size_t)(e - close - 1);
    const char *r = textio_trim(close + 1, &rest);
    if (!starts_with(r, rest, "exec_time:")) {
        *expected = "'exec_time: TIME' after the run counts";
        return -1;
    }
    r += 10;
    rest -= 10;
    r = textio_trim(r, &rest);
    char *t = xstrndup(r, rest);
    const char *uexp;
    int rc = unit_parse(t, QTY_TIME, &sl->exec_s, &uexp);
    free(t);
    if (rc < 0 || sl->exec_s < 0) {
        *expected = "an exec_time like '549us', '42.27ms' or '1.37sec'";
        return -1;
    }
    return 0;
}

static void shapes_text(const struct shape_line *sl, struct strbuf *sb)
{
    for (int i = 0; i < sl->n; i++) {
        if (i)
            strbuf_addstr(sb, ", ");
        if (sl->in[i].rank < 0) {
            strbuf_addstr(sb, "unknown");
            continue;
        }
        strbuf_addch(sb, '[');
        for (int j = 0; j < sl->in[i].rank; j++)
            strbuf_addf(sb, "%s%lld", j ? ", " : "", sl->in[i].dim[j]);
        strbuf_addch(sb, ']');
    }
}

/* ------------------------------------------------------------------ */
/* GEMM sizes from the stored input shapes.  TF's MatMul has transpose
 * attributes the profile does not show, so the orientation is inferred:
 * NN, NT, TN, TT in that order, the first whose inner dims agree wins. */

static int dim_eq(long long a, long long b)
{
    return a == b || a < 0 || b < 0;   /* -1 unresolved: matches anything */
}

static void gemm_from_shapes(struct reader *r, long line, struct op *op,
                             const struct shape_line *sl)
{
    if (sl->n < 2 || sl->in[0].rank < 2 || sl->in[1].rank < 2) {
        op_add_flag(op, "no-shapes");
        return;
    }
    struct tshape a = sl->in[0], b = sl->in[1];
    int unresolved = 0;
    struct tshape *both[2] = { &a, &b };
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < both[t]->rank; i++)
            if (both[t]->dim[i] < 0) {
                if (r->o && r->o->batch > 0)
                    both[t]->dim[i] = r->o->batch;
                else
                    unresolved = 1;
            }
    long long ra = a.dim[a.rank - 2], ca = a.dim[a.rank - 1];
    long long rb = b.dim[b.rank - 2], cb = b.dim[b.rank - 1];
    /* broadcast batch dims (BatchMatMulV2): the larger of each pair */
    long long batch = 1;
    int lead = (a.rank > b.rank ? a.rank : b.rank) - 2;
    for (int i = 0; i < lead; i++) {
        int ia = a.rank - 3 - i, ib = b.rank - 3 - i;
        long long da = ia >= 0 ? a.dim[ia] : 1, db = ib >= 0 ? b.dim[ib] : 1;
        long long dm = da > db ? da : db;
        if (dm < 0)
            unresolved = 1;
        else
            batch *= dm;
    }
    static const char orient[4][2] = { { 'N', 'N' }, { 'N', 'T' }, { 'T', 'N' }, { 'T', 'T' } };
    int first = -1, matches = 0;
    long long mm = 0, nn = 0, kk = 0;
    for (int o = 0; o < 4; o++) {
        long long m = orient[o][0] == 'N' ? ra : ca, ka = orient[o][0] == 'N' ? ca : ra;
        long long kb = orient[o][1] == 'N' ? rb : cb, n = orient[o][1] == 'N' ? cb : rb;
        if (!dim_eq(ka, kb))
            continue;
        matches++;
        if (first < 0) {
            first = o;
            mm = m;
            nn = n;
            kk = ka >= 0 ? ka : kb;
        }
    }
    if (first < 0) {
        op_add_flag(op, "shape-mismatch");
        diag_warn_at(r->d, r->path, line, 0,
                     "%s inputs %lldx%lld and %lldx%lld agree in no orientation; flops left at 0",
                     op->name, ra, ca, rb, cb);
        return;
    }
    if (matches > 1)
        op_add_flag(op, "ambiguous-orientation");
    op->a_t = orient[first][0];
    op->b_t = orient[first][1];
    op->m = mm > 0 ? mm : 0;
    op->n = nn > 0 ? nn : 0;
    op->k = kk > 0 ? kk : 0;
    op->batch = batch;
    if (unresolved) {
        op_add_flag(op, "unresolved-batch");
        diag_warn_at(r->d, r->path, line, 0,
                     "input shape has a -1 (batch) dimension; give --batch N to resolve it, flops left at 0");
        return;
    }
    double per = 2.0 * (double)mm * (double)nn * (double)kk * (double)batch;
    op->flops = per * op->count;
    op->bytes = ((double)mm * kk + (double)kk * nn + (double)mm * nn) * (double)batch *
                precision_bytes(op->dtype) * op->count;
}

/* Conv2D inputs are NHWC input and RSCK filter.  Strides and padding are
 * not in the profile: conv_fit_row finds them from the row's float_ops. */
static void conv_from_shapes(struct op *op, const struct shape_line *sl)
{
    if (strcmp(op->name, "Conv2D") != 0 || sl->n < 2 || sl->in[0].rank != 4 ||
        sl->in[1].rank != 4) {
        op_add_flag(op, "conv-params-unknown");
        return;
    }
    const long long *x = sl->in[0].dim, *f = sl->in[1].dim;
    struct conv_shape *c = op_conv_mut(op);
    c->n = x[0];
    c->h = x[1];
    c->w = x[2];
    c->c = x[3];
    c->r = f[0];
    c->s = f[1];
    c->k = f[3];
    c->groups = 1;
    c->dims = 2;
}

/* Output size along one axis: TF's "SAME" pads to ceil(in / stride),
 * "VALID" keeps the windows inside, ceil((in - filter + 1) / stride). */
static int64_t conv_out(int64_t in, int64_t filter, int64_t stride, int same)
{
    int64_t span = same ? in : in - filter + 1;
    return span > 0 ? (span + stride - 1) / stride : 0;
}

/* Set op's output, stride and padding for (stride, same) and return its
 * flops, 2·N·K·C·R·S·P·Q per run (TF's Conv2D float_ops count). */
static double conv_set(struct op *op, int64_t stride, int same)
{
    struct conv_shape *c = op_conv_mut(op);
    c->stride_h = c->stride_w = stride;
    c->p = conv_out(c->h, c->r, stride, same);
    c->q = conv_out(c->w, c->s, stride, same);
    /* SAME splits the padding over both sides; the smaller half is kept */
    c->pad_h = same ? ((c->p - 1) * stride + c->r - c->h) / 2 : 0;
    c->pad_w = same ? ((c->q - 1) * stride + c->s - c->w) / 2 : 0;
    if (c->pad_h < 0)
        c->pad_h = 0;
    if (c->pad_w < 0)
        c->pad_w = 0;
    c->dil_h = c->dil_w = 1;
    return 2.0 * (double)c->n * (double)c->k * (double)c->c * (double)c->r * (double)c->s *
           (double)c->p * (double)c->q;
}

/* The strides and padding of a Conv2D row's shape lines: the one common
 * choice (stride 1 to 4, SAME or VALID) whose flops add up to the row's
 * float_ops within its printed precision (4 significant digits, so 1%
 * leaves room).  Without float_ops, or when none fits, Keras's defaults
 * (stride 1, VALID) are taken and the ops say so in their flags.  Called
 * after each shape line: the last call, with all the row's lines, wins. */
static void conv_fit_row(struct reader *r)
{
    struct op *ops = &r->p->ops[r->row_op];
    int n = r->row_shapes, best_s = 1, best_same = 0;
    if ((size_t)r->row_op + (size_t)n > r->p->n_ops)
        return;
    double best_err = -1;
    for (int i = 0; i < n; i++)
        if (op_conv(&ops[i])->dims != 2)
            return;
    for (int stride = 1; r->row_flops > 0 && stride <= 4; stride++) {
        for (int same = 0; same <= 1; same++) {
            double sum = 0;
            for (int i = 0; i < n; i++)
                sum += conv_set(&ops[i], stride, same) * ops[i].count;
            double err = fabs(sum - r->row_flops) / r->row_flops;
            if (best_err < 0 || err < best_err) {
                best_err = err;
                best_s = stride;
                best_same = same;
            }
        }
    }
    int fitted = best_err >= 0 && best_err < 0.01;
    if (!fitted) {
        best_s = 1;
        best_same = 0;
    }
    for (int i = 0; i < n; i++) {
        struct op *op = &ops[i];
        op->flops = conv_set(op, best_s, best_same) * op->count;
        const struct conv_shape *c = op_conv(op);
        op->bytes = ((double)c->n * c->h * c->w * c->c +
                     (double)c->r * c->s * c->c * c->k +
                     (double)c->n * c->p * c->q * c->k) *
                    precision_bytes(op->dtype) * op->count;
        if (!fitted && !(op->flags && strstr(op->flags, "conv-stride-assumed")))
            op_add_flag(op, "conv-stride-assumed");
    }
}

/* ------------------------------------------------------------------ */
/* op rows */

static enum col legend_col(const char *s, size_t n)
{
    static const struct { const char *name; enum col c; } map[] = {
        { "requested bytes", COL_BYTES },
        { "total execution time", COL_TOTAL },
        { "accelerator execution time", COL_ACCEL },
        { "cpu execution time", COL_CPU },
        { "# float_ops", COL_FLOPS },
        { "op occurrence (run|defined)", COL_OCC },
        { "op count (run|defined)", COL_OCC },
        { "occurrence", COL_OCC },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].name) == n && memcmp(map[i].name, s, n) == 0)
            return map[i].c;
    return COL_IGNORE;
}

static void parse_header(struct reader *r, const char *s, size_t n)
{
    /* "node name | a | b | ..." ; the first legend names the op column */
    r->n_cols = 0;
    int first = 1;
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != '|')
            j++;
        /* "(run|defined)" contains a '|' inside parentheses */
        const char *open = memchr(s + i, '(', j - i);
        if (open && !memchr(open, ')', j - (size_t)(open - s))) {
            const char *close = memchr(s + j, ')', n - j);
            if (close) {
                j = (size_t)(close - s) + 1;
                while (j < n && s[j] != '|')
                    j++;
            }
        }
        size_t len = j - i;
        const char *leg = textio_trim(s + i, &len);
        if (!first && r->n_cols < MAX_COLS)
            r->cols[r->n_cols++] = legend_col(leg, len);
        first = 0;
        i = j + 1;
    }
}

/* 10.44k -> 10440 (tfprof FormatNumber: k, m, b) */
static int parse_count(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v))
        return -1;
    if (*end == 'k')
        v *= 1e3, end++;
    else if (*end == 'm')
        v *= 1e6, end++;
    else if (*end == 'b')
        v *= 1e9, end++;
    while (*end == ' ')
        end++;
    if (*end && strncmp(end, "float_ops", 9) != 0 && strncmp(end, "params", 6) != 0)
        return -1;
    *out = v;
    return 0;
}

struct row_vals {
    int have_bytes, have_total, have_accel, have_cpu, have_flops, have_occ;
    double bytes, total, accel, cpu, flops;
    long long runs;
    int n_times;
};

static int set_value(struct row_vals *v, enum col c, const char *val, int known)
{
    double x;
    const char *uexp;
    if (!known) {
        /* no header: recognise the value by its shape */
        if (unit_parse(val, QTY_TIME, &x, &uexp) == 0)
            c = v->n_times == 0 ? COL_TOTAL : v->n_times == 1 ? COL_ACCEL : COL_CPU;
        else if (unit_parse(val, QTY_BYTES, &x, &uexp) == 0)
            c = COL_BYTES;
        else if (strstr(val, "float_ops"))
            c = COL_FLOPS;
        else
            c = COL_OCC;
    }
    switch (c) {
    case COL_IGNORE:
        return 0;
    case COL_BYTES:
        if (unit_parse(val, QTY_BYTES, &v->bytes, &uexp) < 0 || v->bytes < 0)
            return -1;
        v->have_bytes = 1;
        return 0;
    case COL_TOTAL: case COL_ACCEL: case COL_CPU: {
        if (unit_parse(val, QTY_TIME, &x, &uexp) < 0 || x < 0)
            return -1;
        v->n_times++;
        if (c == COL_TOTAL)
            v->total = x, v->have_total = 1;
        else if (c == COL_ACCEL)
            v->accel = x, v->have_accel = 1;
        else
            v->cpu = x, v->have_cpu = 1;
        return 0;
    }
    case COL_FLOPS:
        if (parse_count(val, &v->flops) < 0 || v->flops < 0)
            return -1;
        v->have_flops = 1;
        return 0;
    case COL_OCC: {
        const char *bar = strchr(val, '|');
        size_t len = bar ? (size_t)(bar - val) : strlen(val);
        long long def;
        if (textio_parse_i64(val, len, &v->runs) < 0 || v->runs < 0)
            return -1;
        if (bar && (textio_parse_i64(bar + 1, strlen(bar + 1), &def) < 0 || def < 0))
            return -1;
        v->have_occ = 1;
        return 0;
    }
    }
    return 0;
}

static int parse_row(struct reader *r, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != ' ' && s[i] != '\t')
        i++;
    char *type = xstrndup(s, op_name_len(s, i));
    struct row_vals v;
    memset(&v, 0, sizeof v);
    int col = 0, rc = FOM_OK;
    char *item = NULL;
    while (i < n) {
        /* one item: text up to a comma outside parentheses */
        size_t j = i;
        int depth = 0;
        while (j < n && (depth > 0 || s[j] != ',')) {
            if (s[j] == '(')
                depth++;
            else if (s[j] == ')' && --depth < 0)
                break;
            j++;
        }
        if (depth != 0) {
            rc = FOM_EDATA;     /* the caller names the line */
            goto out;
        }
        /* strip the "(accum%, self%)" group */
        size_t len = j - i;
        const char *it = s + i;
        const char *par = memchr(it, '(', len);
        size_t vlen = par ? (size_t)(par - it) : len;
        const char *val = textio_trim(it, &vlen);
        if (vlen) {
            free(item);
            item = xstrndup(val, vlen);
            int known = r->n_cols > 0 && col < r->n_cols;
            if (set_value(&v, known ? r->cols[col] : COL_IGNORE, item, known) < 0) {
                rc = FOM_EDATA;
                goto out;
            }
            col++;
        }
        i = j + 1;
    }
    if (col == 0) {
        rc = FOM_EDATA;
        goto out;
    }

    struct op *op = profile_add_op(r->p);
    op->name = type;
    type = NULL;
    op->kind = tf_op_kind(op->name);
    op->phase = tf_op_phase(op->name);
    if (v.have_occ) {
        op->count = (double)v.runs;
    } else {
        op->count = 1;
        op_add_flag(op, "count-unknown");
    }
    op->device_time_s = v.have_accel ? v.accel : 0;
    op->host_time_s = v.have_cpu ? v.cpu : 0;
    op->time_s = v.have_total ? v.total : op->device_time_s + op->host_time_s;
    if (v.have_accel && v.accel > 0)
        r->p->has_device = 1;
    if (v.have_bytes)
        op->bytes = v.bytes;
    if (v.have_flops)
        op->flops = v.flops;
    r->row_flops = v.have_flops ? v.flops : -1;
    if (op->kind == OP_GEMM || op->kind == OP_CONV)
        op_add_flag(op, "no-shapes");
    free(r->row_type);
    r->row_type = xstrdup(op->name);
    r->row_op = (long)(r->p->n_ops - 1);
    r->row_shapes = 0;
out:
    free(type);
    free(item);
    return rc;
}

static int is_row_start(const char *s, size_t n)
{
    return n > 0 && (isalpha((unsigned char)s[0]) || s[0] == '_');
}

static void add_shape_op(struct reader *r, long line, const struct shape_line *sl)
{
    struct op *op;
    if (r->row_op >= 0 && r->row_shapes == 0) {
        /* the op row's totals are replaced by its per-shape lines */
        op = &r->p->ops[r->row_op];
        free(op->flags);
        op->flags = NULL;
        op->device_time_s = op->host_time_s = op->bytes = op->flops = 0;
    } else {
        op = profile_add_op(r->p);
        op->name = xstrdup(r->row_type ? r->row_type : "MatMul");
        op->kind = tf_op_kind(op->name);
        op->phase = tf_op_phase(op->name);
    }
    r->row_shapes++;
    if (!r->row_type) {
        op_add_flag(op, "assumed-matmul");
        if (!r->warned_orphan) {
            diag_warn_at(r->d, r->path, line, 0,
                         "input-shape lines without an op row before them; taken as MatMul");
            r->warned_orphan = 1;
        }
    }
    op->count = (double)sl->runs;
    op->time_s = sl->exec_s;
    struct strbuf sb = STRBUF_INIT;
    shapes_text(sl, &sb);
    free(op->shapes);
    op->shapes = strbuf_detach(&sb);
    if (sl->runs == 0)
        op_add_flag(op, "not-run");
    if (op->kind == OP_GEMM)
        gemm_from_shapes(r, line, op, sl);
    else if (op->kind == OP_CONV)
        conv_from_shapes(op, sl);
    if (op->kind == OP_CONV && r->row_op >= 0 && r->row_type)
        conv_fit_row(r);
}

static int is_banner(const char *s, size_t n)
{
    return starts_with(s, n, "tfprof>") || starts_with(s, n, "===") ||
           starts_with(s, n, "Profile:") || starts_with(s, n, "Reading ") ||
           starts_with(s, n, "Parsing ") || starts_with(s, n, "...");
}

int tfprof_read(const char *path, const struct ingest_opts *o, struct profile *out,
                struct diag *d)
{
    struct textio t;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.o = o;
    r.p = out;
    r.d = d;
    r.n_cols = -1;
    r.row_op = -1;
    int rc = textio_open(&t, path, d);
    if (rc)
        return rc;
    int in_doc = 0, got;
    while ((got = textio_next(&t, d)) > 0) {
        size_t n = t.cur.len;
        const char *s = textio_trim(t.cur.buf, &n);
        if (n == 0 || is_banner(s, n))
            continue;
        if (starts_with(s, n, "Doc:")) {
            in_doc = 1;
            continue;
        }
        if (starts_with(s, n, "node name |") || starts_with(s, n, "node name|")) {
            in_doc = 0;
            parse_header(&r, s, n);
            continue;
        }
        if (in_doc)
            continue;
        if (is_shape_line(s, n)) {
            struct shape_line sl;
            const char *expected = "";
            if (parse_shape_line(s, n, &sl, &expected) < 0) {
                char show[48];
                rc = diag_error_at(d, path, t.line, 0, "found '%s', expected %s",
                                   textio_show(s, n, show, sizeof show), expected);
                goto out;
            }
            add_shape_op(&r, t.line, &sl);
            continue;
        }
        if (is_row_start(s, n) && parse_row(&r, s, n) == FOM_OK)
            continue;
        char show[48];
        rc = diag_error_at(d, path, t.line, 0,
                           "found '%s', expected a tfprof op row, an input-shape line "
                           "or a 'node name |' header", textio_show(s, n, show, sizeof show));
        goto out;
    }
    if (got < 0) {
        rc = t.status;
        goto out;
    }
    if (out->n_ops == 0) {
        rc = diag_error_at(d, path, t.line, 0,
                           t.line ? "found no op rows, expected a tfprof op view"
                                  : "found an empty file, expected a tfprof op view");
        goto out;
    }
    free(out->format);
    out->format = xstrdup("tfprof");
    free(out->source);
    out->source = xstrdup(path);
    out->steps = 1;
    out->batch = o ? o->batch : 0;
    out->total_time_s = 0;
    for (size_t i = 0; i < out->n_ops; i++)
        out->total_time_s += out->ops[i].time_s;
out:
    free(r.row_type);
    textio_close(&t);
    return rc;
}
