/* torch.profiler key_averages(...).table() text (torch/autograd/profiler_util.py
 * _build_table):
 *
 *   -----------  ------------  ...   <- one run of dashes per column
 *          Name    Self CPU %  ...   Self CUDA ...  # of Calls   Input Shapes  Total KFLOPs
 *   -----------  ------------  ...
 *   aten::addmm         1.61%  ...                           2   [[1000], [100, 29532], ...]  11812800.000
 *   -----------  ------------  ...
 *   Self CPU time total: 6.712ms
 *
 * Column extents come from the dashed separator (each value is printed
 * right-aligned within its column), names from the header.  The table is
 * lossy: names longer than the column end in "...", Input Shapes is cut at
 * the column width, times have 3 decimals.  Both cuts are reported.
 *
 * Rows kept: framework ops that ran on the host (Self CPU or CPU total
 * > 0).  Skipped: device-only rows (kernels, GPU-side annotations: their
 * time is already the Self CUDA of the op that launched them), composite
 * wrappers (aten::linear, ...; their work is in the ops they call) and
 * ProfilerStep*, whose "# of Calls" gives the number of steps the table
 * sums over (the host-side row when there are two). */
#include "ingest/ingest.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "ingest/textio.h"
#include "model/ops.h"

#define MAX_COLS 64

enum tcol {
    TC_OTHER, TC_NAME, TC_SELF_CPU, TC_CPU_TOTAL, TC_SELF_DEV, TC_DEV_TOTAL, TC_CALLS,
    TC_SHAPES, TC_FLOPS,
};

struct table {
    size_t start[MAX_COLS], end[MAX_COLS];
    enum tcol kind[MAX_COLS];
    int n;
    int col[TC_FLOPS + 1];      /* column index of each kind, -1 if absent */
    double flops_scale;         /* "Total KFLOPs" -> 1e3 */
};

struct row {
    char *name, *shapes;
    double self_cpu, cpu_total, self_dev, dev_total, calls, flops;
    int have_flops;
    const char *bad_v;      /* the cell that did not parse */
    size_t bad_len;
};

static int is_separator(const char *s, size_t n)
{
    size_t dashes = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-')
            dashes++;
        else if (s[i] != ' ')
            return 0;
    }
    return dashes >= 5;
}

static void split_separator(struct table *t, const char *s, size_t n)
{
    t->n = 0;
    size_t i = 0;
    while (i < n && t->n < MAX_COLS) {
        while (i < n && s[i] != '-')
            i++;
        if (i == n)
            break;
        size_t j = i;
        while (j < n && s[j] == '-')
            j++;
        t->start[t->n] = i;
        t->end[t->n] = j;
        t->n++;
        i = j;
    }
}

/* Cell text of column c in line s (trimmed, may be empty), into sb. */
static const char *cell(const struct table *t, int c, const char *s, size_t n, size_t *len)
{
    size_t a = t->start[c], b = t->end[c];
    /* Input Shapes and Source Location may run past the dashes when the
     * last column is wider than its header; take the rest of the line */
    if (c == t->n - 1)
        b = n;
    if (a >= n) {
        *len = 0;
        return s + n;
    }
    if (b > n)
        b = n;
    *len = b - a;
    return textio_trim(s + a, len);
}

static int match(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Header names are matched to columns by order, not position: a name
 * wider than its column ("CUDA time avg" in a 12-wide column) pushes the
 * rest of the header line to the right, while the values stay aligned
 * with the dashes.  Names are separated by two or more spaces. */
static int parse_header(struct table *t, const char *s, size_t n)
{
    for (int k = 0; k <= TC_FLOPS; k++)
        t->col[k] = -1;
    t->flops_scale = 1;
    size_t i = 0;
    int c = 0;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        if (i == n)
            break;
        size_t j = i;
        while (j < n && !(s[j] == ' ' && (j + 1 == n || s[j + 1] == ' ')))
            j++;
        if (c >= t->n)
            return -1;
        const char *h = s + i;
        size_t len = j - i;
        i = j;
        enum tcol k = TC_OTHER;
        if (match(h, len, "Name"))
            k = TC_NAME;
        else if (match(h, len, "Self CPU"))
            k = TC_SELF_CPU;
        else if (match(h, len, "CPU total"))
            k = TC_CPU_TOTAL;
        else if (match(h, len, "# of Calls"))
            k = TC_CALLS;
        else if (match(h, len, "Input Shapes"))
            k = TC_SHAPES;
        else if (len > 5 && memcmp(h, "Self ", 5) == 0 && h[len - 1] != '%' &&
                 !memchr(h + 5, ' ', len - 5))
            k = TC_SELF_DEV;     /* "Self CUDA", "Self XPU", ... */
        else if (len > 6 && memcmp(h + len - 6, " total", 6) == 0 && !memchr(h, ' ', len - 6))
            k = TC_DEV_TOTAL;
        else if (len > 11 && memcmp(h, "Total ", 6) == 0 && memcmp(h + len - 5, "FLOPs", 5) == 0) {
            static const struct { char p; double s; } pre[] = {
                { 'K', 1e3 }, { 'M', 1e6 }, { 'G', 1e9 }, { 'T', 1e12 }, { 'P', 1e15 },
            };
            k = TC_FLOPS;
            for (size_t q = 0; q < sizeof pre / sizeof pre[0]; q++)
                if (h[6] == pre[q].p)
                    t->flops_scale = pre[q].s;
        }
        t->kind[c] = k;
        if (k != TC_OTHER && t->col[k] < 0)
            t->col[k] = c;
        c++;
    }
    if (c != t->n)
        return -1;
    return t->col[TC_NAME] >= 0 && t->col[TC_CALLS] >= 0 &&
           (t->col[TC_SELF_CPU] >= 0 || t->col[TC_SELF_DEV] >= 0) ? 0 : -1;
}

static int parse_time(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *exp;
    return unit_parse(buf, QTY_TIME, out, &exp) == 0 && *out >= 0 ? 0 : -1;
}

static int parse_num(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0' && isfinite(*out) && *out >= 0 ? 0 : -1;
}

/* Returns 0, or -1 with *bad naming the column that did not parse. */
static int parse_row(const struct table *t, const char *s, size_t n, struct row *r,
                     const char **bad, const char **expected)
{
    memset(r, 0, sizeof *r);
    size_t len;
    const char *v;
    v = cell(t, t->col[TC_NAME], s, n, &len);
    if (len == 0) {
        r->bad_v = v;
        r->bad_len = len;
        *bad = "Name";
        *expected = "an op name";
        return -1;
    }
    r->name = xstrndup(v, op_name_len(v, len));
    static const struct { enum tcol k; const char *name; } times[] = {
        { TC_SELF_CPU, "Self CPU" }, { TC_CPU_TOTAL, "CPU total" },
        { TC_SELF_DEV, "Self CUDA" }, { TC_DEV_TOTAL, "CUDA total" },
    };
    double *dst[] = { &r->self_cpu, &r->cpu_total, &r->self_dev, &r->dev_total };
    for (size_t i = 0; i < 4; i++) {
        if (t->col[times[i].k] < 0)
            continue;
        v = cell(t, t->col[times[i].k], s, n, &len);
        if (parse_time(v, len, dst[i]) < 0) {
            r->bad_v = v;
            r->bad_len = len;
            *bad = times[i].name;
            *expected = "a time like '9.510ms'";
            return -1;
        }
    }
    v = cell(t, t->col[TC_CALLS], s, n, &len);
    if (parse_num(v, len, &r->calls) < 0 || r->calls != floor(r->calls)) {
        r->bad_v = v;
        r->bad_len = len;
        *bad = "# of Calls";
        *expected = "a whole number";
        return -1;
    }
    if (t->col[TC_SHAPES] >= 0) {
        v = cell(t, t->col[TC_SHAPES], s, n, &len);
        r->shapes = xstrndup(v, len);
    }
    if (t->col[TC_FLOPS] >= 0) {
        v = cell(t, t->col[TC_FLOPS], s, n, &len);
        if (!match(v, len, "--") && len) {
            if (parse_num(v, len, &r->flops) < 0) {
                r->bad_v = v;
                r->bad_len = len;
                *bad = "Total FLOPs";
                *expected = "a number or '--'";
                return -1;
            }
            r->flops *= t->flops_scale;
            r->have_flops = 1;
        }
    }
    return 0;
}

static void row_release(struct row *r)
{
    free(r->name);
    free(r->shapes);
    r->name = r->shapes = NULL;
}

/* A complete Python repr of a list of shapes: balanced and closed. */
static int shapes_complete(const char *s)
{
    int depth = 0;
    size_t n = strlen(s);
    if (n == 0 || s[0] != '[' || s[n - 1] != ']')
        return 0;
    for (; *s; s++) {
        if (*s == '[')
            depth++;
        else if (*s == ']' && --depth < 0)
            return 0;
    }
    return depth == 0;
}

/* Rows are kept per step-sum; the division by steps happens at the end,
 * when the step count is known (ProfilerStep* may come anywhere). */
static void keep_row(const char *path, long line, struct row *r, int has_dev, struct profile *p,
                     struct diag *d)
{
    struct op_class c;
    size_t nlen = strlen(r->name);
    int cut = nlen > 3 && strcmp(r->name + nlen - 3, "...") == 0;
    ops_classify(r->name, &c);
    if (c.transparent)
        return;
    struct op *op = profile_add_op(p);
    op->name = r->name;
    r->name = NULL;
    op->kind = c.kind;
    op->phase = c.backward ? PHASE_BACKWARD : c.kind == OP_OPTIMIZER ? PHASE_OPTIMIZER
                                                                     : PHASE_UNKNOWN;
    op->count = r->calls;
    op->host_time_s = r->self_cpu;
    op->device_time_s = has_dev ? r->self_dev : 0;
    op->time_s = has_dev ? op->device_time_s : op->host_time_s;
    if (cut) {
        op_add_flag(op, "name-cut");
        diag_warn_at(d, path, line, 0,
                     "op name '%s' was cut by the profiler; its kind is a guess (the JSON trace has the full name)",
                     op->name);
    }
    int complete = r->shapes && shapes_complete(r->shapes);
    double f1 = 0, b1 = 0;
    if (complete) {
        struct op_args a = { r->shapes, NULL, NULL, NULL };
        ops_fill(op, &a, &f1, &b1);
    } else if (r->shapes && r->shapes[0]) {
        op->shapes = xstrdup(r->shapes);
        op_add_flag(op, "shapes-cut");
        diag_warn_at(d, path, line, 0,
                     "input shapes of '%s' were cut by the profiler; %s", op->name,
                     r->have_flops ? "flops taken from the table's FLOPs column"
                                   : "flops left at 0");
    }
    op->flops = f1 * op->count;
    op->bytes = b1 * op->count;
    if (op->flops == 0 && r->have_flops && r->flops > 0) {
        op->flops = r->flops;
        op_add_flag(op, "flops-from-table");
    }
}

/* Where the reader stands in the file. */
enum pt_state {
    PT_BEFORE,      /* before the table */
    PT_SEPARATOR,   /* saw a separator */
    PT_HEADER,      /* saw the header */
    PT_ROWS,        /* in the rows */
    PT_AFTER,       /* after the closing separator */
};

struct pt_read {
    const char *path;
    struct table tb;
    struct row r;
    enum pt_state state;
    int has_dev;
    long header_line;
    double steps_host, steps_any;   /* ProfilerStep calls: host row, any row */
    double step_cpu_total;          /* CPU total of the host ProfilerStep row */
    double self_cpu_total;          /* the footer's, -1 when absent */
};

/* Before the table: look for a separator followed by a header. */
static void pt_find_table(struct pt_read *st, const struct textio *t)
{
    const char *s = t->cur.buf;
    size_t n = t->cur.len;
    if (is_separator(s, n)) {
        split_separator(&st->tb, s, n);
        st->state = PT_SEPARATOR;
    } else if (st->state == PT_SEPARATOR) {
        if (parse_header(&st->tb, s, n) < 0) {
            st->state = PT_BEFORE;  /* some other dashed block: keep looking */
            return;
        }
        st->header_line = t->line;
        st->has_dev = st->tb.col[TC_SELF_DEV] >= 0;
        st->state = PT_HEADER;
    }
}

/* The column of p in the line t holds, for the caret under an error
 * (core/diag.h); 0 when p is not in it. */
static long caret_at(const struct textio *t, const char *p)
{
    uintptr_t a = (uintptr_t)t->cur.buf, b = (uintptr_t)p;
    return p && b >= a && b <= a + t->cur.len ? (long)(b - a) + 1 : 0;
}

/* One row of the table: a step row counts the steps, others become ops. */
static int pt_row(struct pt_read *st, struct textio *t, struct profile *out,
                  struct diag *d)
{
    struct row *r = &st->r;
    const char *bad = "", *expected = "";
    if (parse_row(&st->tb, t->cur.buf, t->cur.len, r, &bad, &expected) < 0) {
        char show[48];
        t->src.col = caret_at(t, r->bad_v);
        return diag_error_at(d, st->path, t->line, 0, "found '%s' in column '%s', expected %s",
                             textio_show(r->bad_v, r->bad_len, show, sizeof show), bad,
                             expected);
    }
    if (strcmp(r->name, "ProfilerStep*") == 0 || strncmp(r->name, "ProfilerStep#", 13) == 0) {
        /* the GPU-side row may be split into more ranges than
         * there were steps: the host row counts the steps */
        if (r->cpu_total > 0 && st->steps_host == 0) {
            st->steps_host = r->calls;
            st->step_cpu_total = r->cpu_total;
        } else if (st->steps_any == 0) {
            st->steps_any = r->calls;
        }
    } else if (r->self_cpu > 0 || r->cpu_total > 0 || !st->has_dev) {
        keep_row(st->path, t->line, r, st->has_dev, out, d);
    }
    row_release(r);
    return 0;
}

static int pt_line(struct pt_read *st, struct textio *t, struct profile *out,
                   struct diag *d)
{
    const char *s = t->cur.buf;
    size_t n = t->cur.len;
    char show[48];
    switch (st->state) {
    case PT_BEFORE:
    case PT_SEPARATOR:
        pt_find_table(st, t);
        return 0;
    case PT_HEADER:
        if (!is_separator(s, n))
            return diag_error_at(d, st->path, t->line, 0,
                                 "found '%s', expected a '----' line under the table header",
                                 textio_show(s, n, show, sizeof show));
        st->state = PT_ROWS;
        return 0;
    case PT_ROWS:
        if (is_separator(s, n)) {
            st->state = PT_AFTER;
            return 0;
        }
        return pt_row(st, t, out, d);
    case PT_AFTER:
        break;
    }
    /* footer */
    if (strncmp(s, "Self CPU time total:", 20) == 0) {
        size_t len = n - 20;
        const char *v = textio_trim(s + 20, &len);
        if (parse_time(v, len, &st->self_cpu_total) < 0) {
            t->src.col = caret_at(t, v);
            return diag_error_at(d, st->path, t->line, 0, "found '%.40s', expected a time", v);
        }
    }
    return 0;
}

/* The table was read to its end: divide the step sums by the steps and
 * fill the profile's header. */
static int pt_finish(struct pt_read *st, const struct textio *t, const struct ingest_opts *o,
                     struct profile *out, struct diag *d)
{
    const char *path = st->path;
    if (st->state < PT_HEADER)
        return diag_error_at(d, path, t->line, 0,
                             t->line ? "found no table header (Name ... # of Calls), expected a "
                                       "torch.profiler key_averages table"
                                     : "found an empty file, expected a torch.profiler "
                                       "key_averages table");
    if (st->state < PT_AFTER)
        return diag_error_at(d, path, t->line, 0,
                             "found the end of the file inside the table, expected a closing "
                             "'----' line (truncated file?)");
    if (out->n_ops == 0)
        return diag_error_at(d, path, st->header_line, 0,
                             "found no op rows, expected at least one");
    double steps = st->steps_host > 0 ? st->steps_host : st->steps_any;
    if (steps <= 0) {
        diag_warn_at(d, path, st->header_line, 0,
                     "no ProfilerStep* row: the table is taken as one step");
        steps = 1;
    }
    out->total_time_s = 0;
    for (size_t i = 0; i < out->n_ops; i++) {
        struct op *op = &out->ops[i];
        op->count /= steps;
        op->time_s /= steps;
        op->device_time_s /= steps;
        op->host_time_s /= steps;
        op->flops /= steps;
        op->bytes /= steps;
        out->total_time_s += op->time_s;
    }
    free(out->format);
    out->format = xstrdup("pt-table");
    free(out->source);
    out->source = xstrdup(path);
    out->steps = (int)steps;
    out->has_device = st->has_dev;
    out->batch = o ? o->batch : 0;
    out->step_time_s = st->step_cpu_total > 0 ? st->step_cpu_total / steps : 0;
    out->host_time_s = st->self_cpu_total > 0 ? st->self_cpu_total / steps : 0;
    out->dtype = ops_dominant_dtype(out);
    return 0;
}

int pt_table_read(const char *path, const struct ingest_opts *o, struct profile *out,
                  struct diag *d)
{
    struct textio t;
    struct pt_read st;
    memset(&st, 0, sizeof st);
    st.path = path;
    st.self_cpu_total = -1;
    int rc = textio_open(&t, path, d);
    if (rc)
        return rc;
    int got;
    while ((got = textio_next(&t, d)) > 0)
        if ((rc = pt_line(&st, &t, out, d)))
            goto out;
    if (got < 0)
        rc = t.status;
    else
        rc = pt_finish(&st, &t, o, out, d);
out:
    row_release(&st.r);
    textio_close(&t);
    return rc;
}
