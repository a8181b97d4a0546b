#include "ingest/kernel_csv.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

/* Longest line we accept: the widest real row is ~200 bytes, so anything
 * near this is a binary or corrupt file and is better reported. */
#define MAX_LINE (1 << 16)
#define MAX_FIELDS 64

enum role {
    R_NONE,
    R_HW, R_PREC, R_SOURCE,
    R_M, R_N, R_K, R_AT, R_BT, R_BATCH,
    R_TIME, R_TMIN, R_TMAX, R_P05, R_P95, R_LOOP, R_REPS,
    R_W, R_H, R_C, R_CN, R_KF, R_FW, R_FH, R_PADW, R_PADH, R_SW, R_SH,
    R_DIMS, R_D, R_FD, R_PADD, R_SD, R_DILD, R_DILH, R_DILW, R_GROUPS,
    R_FWD, R_BWDI, R_BWDP,
    R_OP, R_ELEM, R_BYTES,
    R_PASS, R_MODE, R_FLAG, R_LAYOUT,
    R_FLOATS, R_NODES,          /* DeepBench's all-reduce: num_floats, nodes */
    R_DIM0, R_DIM_END = R_DIM0 + KERNEL_DIMS_MAX - 1,
    R_COUNT,
};

struct col {
    enum role role;
    double scale;           /* seconds per unit of a time column; 0 = the main time's */
    const char *name;       /* as in the header (for messages) */
};

struct layout {
    enum kernel_kind kind;
    int n_cols;
    struct col cols[MAX_FIELDS];
    int has[R_COUNT];
    double time_scale;      /* unit of the main (fwd) time column */
};

struct field {
    const char *s;
    size_t n;
    long col;               /* 1-based byte column */
};

enum precision kernel_precision_parse(const char *s)
{
    static const struct { const char *name; enum precision p; } deepbench[] = {
        { "fp16_mixed", PREC_FP16 },        /* tensor cores, fp32 accumulate */
        { "fp16_io_fp32_math", PREC_FP16 }, /* P100: fp16 storage, fp32 math */
        { "int8_mixed", PREC_INT8 },
    };
    for (size_t i = 0; i < sizeof deepbench / sizeof deepbench[0]; i++)
        if (strcasecmp(s, deepbench[i].name) == 0)
            return deepbench[i].p;
    return precision_parse(s);
}

/* ------------------------------------------------------------------ */
/* Columns                                                             */

static const char *const units[] = { "us", "usec", "ms", "s" };
static const double unit_s[] = { 1e-6, 1e-6, 1e-3, 1.0 };

/* name == base UNIT tail for one of the time units?  Sets *scale. */
static int match_time(const char *name, const char *base, const char *tail, double *scale)
{
    size_t lb = strlen(base);
    if (strncmp(name, base, lb) != 0)
        return 0;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t lu = strlen(units[u]);
        if (strncmp(name + lb, units[u], lu) == 0 && strcmp(name + lb + lu, tail) == 0) {
            *scale = unit_s[u];
            return 1;
        }
    }
    return 0;
}

static enum role time_role(enum kernel_kind kind, const char *name, double *scale)
{
    static const struct { const char *base, *tail; enum role r; } gemm[] = {
        { "time_", "", R_TIME }, { "time_", "_min", R_TMIN }, { "time_", "_max", R_TMAX },
        { "time_", "_p05", R_P05 }, { "time_", "_p95", R_P95 }, { "time_", "_loop_mean", R_LOOP },
    };
    static const struct { const char *base, *tail; enum role r; } conv[] = {
        { "fwd_time_", "", R_FWD }, { "fwd_", "", R_FWD },
        { "bwd_inputs_time_", "", R_BWDI }, { "bwd_inputs_", "", R_BWDI },
        { "bwd_params_time_", "", R_BWDP }, { "bwd_params_", "", R_BWDP },
        { "fwd_", "_p05", R_P05 }, { "fwd_", "_p95", R_P95 },
        { "fwd_time_", "_p05", R_P05 }, { "fwd_time_", "_p95", R_P95 },
    };
    *scale = 0;
    if (kind == KERNEL_CONV) {
        if (strcmp(name, "fwd_p05") == 0)
            return R_P05;
        if (strcmp(name, "fwd_p95") == 0)
            return R_P95;
        for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++)
            if (match_time(name, conv[i].base, conv[i].tail, scale))
                return conv[i].r;
        /* the form with a pass column times one pass per row: time_us... */
    }
    for (size_t i = 0; i < sizeof gemm / sizeof gemm[0]; i++)
        if (match_time(name, gemm[i].base, gemm[i].tail, scale))
            return gemm[i].r;
    /* DeepBench's all-reduce sheet gives the mean time of its repeats */
    if (kind == KERNEL_COMM && match_time(name, "mean_", "", scale))
        return R_TIME;
    return R_NONE;
}

struct name_map {
    const char *name;
    enum role r;
};

static enum role map_find(const struct name_map *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, m[i].name) == 0)
            return m[i].r;
    return R_NONE;
}

#define MAP_FIND(m, name) map_find(m, sizeof m / sizeof m[0], name)

/* Columns of the kinds with size parameters in kernel_row.dim. */
static enum role dims_role(enum kernel_kind kind, const char *name)
{
    static const struct name_map cat[] = {
        { "op", R_OP }, { "cell", R_OP }, { "mode", R_MODE }, { "form", R_MODE },
        { "backend", R_MODE }, { "causal", R_FLAG }, { "bidirectional", R_FLAG },
        { "pass", R_PASS },
    };
    int n;
    const char *const *dims = kernel_kind_dims(kind, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(name, dims[i]) == 0)
            return (enum role)(R_DIM0 + i);
    if (kind == KERNEL_OPTIMIZER && strcmp(name, "bytes") == 0)
        return R_BYTES;
    /* DeepBench's published all-reduce results (train_results_allreduce):
     * the message in floats, the nodes the ranks span (empty: one host)
     * and the library that ran it */
    static const struct name_map deepbench_comm[] = {
        { "num_floats", R_FLOATS }, { "nodes", R_NODES }, { "algorithm", R_MODE },
    };
    if (kind == KERNEL_COMM && MAP_FIND(deepbench_comm, name) != R_NONE)
        return MAP_FIND(deepbench_comm, name);
    return MAP_FIND(cat, name);
}

static enum role name_role(enum kernel_kind kind, const char *name)
{
    static const struct name_map common[] = {
        { "hw", R_HW }, { "precision", R_PREC }, { "source", R_SOURCE }, { "reps", R_REPS },
    };
    static const struct name_map gemm[] = {
        { "m", R_M }, { "n", R_N }, { "k", R_K }, { "a_t", R_AT }, { "b_t", R_BT }, { "batch", R_BATCH },
    };
    static const struct name_map conv[] = {
        { "w", R_W }, { "h", R_H }, { "c", R_C }, { "n", R_CN }, { "k", R_KF },
        { "f_w", R_FW }, { "filter_w", R_FW }, { "f_h", R_FH }, { "filter_h", R_FH },
        { "pad_w", R_PADW }, { "pad_h", R_PADH }, { "stride_w", R_SW }, { "stride_h", R_SH },
        { "dims", R_DIMS }, { "d", R_D }, { "f_d", R_FD }, { "pad_d", R_PADD }, { "stride_d", R_SD },
        { "dil_d", R_DILD }, { "dil_h", R_DILH }, { "dil_w", R_DILW }, { "groups", R_GROUPS },
        { "pass", R_PASS }, { "layout", R_LAYOUT },
    };
    static const struct name_map elt[] = {
        { "op", R_OP }, { "elements", R_ELEM }, { "bytes", R_BYTES },
    };
    enum role r = MAP_FIND(common, name);
    if (r != R_NONE)
        return r;
    switch (kind) {
    case KERNEL_GEMM: return MAP_FIND(gemm, name);
    case KERNEL_CONV: return MAP_FIND(conv, name);
    case KERNEL_ELTWISE: return MAP_FIND(elt, name);
    default: return dims_role(kind, name);
    }
}

/* ------------------------------------------------------------------ */
/* Splitting                                                           */

/* Split a CSV line in place (quotes "..." with "" inside are undone).
 * Returns the field count, or -1 for an unterminated quote. */
static int split_csv(char *line, struct field *f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return max + 1;
        char *start = p;
        f[n].col = (long)(p - line) + 1;
        if (*p == '"') {
            char *o = p;
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *o++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *o++ = *p++;
                }
            }
            f[n].s = start;
            f[n].n = (size_t)(o - start);
            while (*p && *p != ',')
                p++; /* junk after a closing quote is kept out of the value */
        } else {
            while (*p && *p != ',')
                p++;
            f[n].s = start;
            f[n].n = (size_t)(p - start);
        }
        /* Trim spaces around unquoted values: "1760, 16" is still data. */
        while (f[n].n && (f[n].s[0] == ' ' || f[n].s[0] == '\t')) {
            f[n].s++;
            f[n].n--;
            f[n].col++;
        }
        while (f[n].n && (f[n].s[f[n].n - 1] == ' ' || f[n].s[f[n].n - 1] == '\t'))
            f[n].n--;
        n++;
        if (!*p)
            return n;
        p++;
    }
}

static int split_ws(const char *line, struct field *f, int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return n;
        if (n == max)
            return max + 1;
        f[n].s = p;
        f[n].col = (long)(p - line) + 1;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        f[n].n = (size_t)(p - f[n].s);
        n++;
    }
}

static char *field_dup(const struct field *f)
{
    return xstrndup(f->s, f->n);
}

static int field_is(const struct field *f, const char *s)
{
    return f->n == strlen(s) && strncasecmp(f->s, s, f->n) == 0;
}

static int field_numeric(const struct field *f)
{
    if (!f->n)
        return 0;
    char buf[64];
    if (f->n >= sizeof buf)
        return 0;
    memcpy(buf, f->s, f->n);
    buf[f->n] = 0;
    char *end;
    errno = 0;
    strtod(buf, &end);
    return end != buf && *end == 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */

struct reader {
    const char *path;
    long line;
    struct diag *d;
    const struct kernel_read_opts *o;
    struct kernel_set *set;     /* staging set: merged into the caller's on success */
    char *base;                 /* file name without directories: default row source */
    long skipped_nodes;         /* all-reduce rows across nodes left out */
    struct strbuf raw;          /* the line as read, before splitting cuts it */
    struct diag_source src;     /* raw, quoted under errors (core/diag.h) */
};

/* "FILE:LINE:COL: error: WHAT: found 'CELL', expected EXPECTED" */
static int bad(struct reader *rd, const struct field *f, const char *what, const char *expected)
{
    char shown[48];
    size_t n = f->n < sizeof shown - 4 ? f->n : sizeof shown - 4;
    memcpy(shown, f->s, n);
    strcpy(shown + n, f->n > n ? "..." : "");
    return diag_error_at(rd->d, rd->path, rd->line, f->col, "%s: found '%s', expected %s", what,
                         shown, expected);
}

static int get_i64(struct reader *rd, const struct field *f, const char *name, int64_t min,
                   int64_t *out)
{
    char buf[32];
    if (!f->n || f->n >= sizeof buf)
        goto fail;
    memcpy(buf, f->s, f->n);
    buf[f->n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end || end == buf || v < min)
        goto fail;
    *out = v;
    return 0;
fail:
    return bad(rd, f, name,
               min > 0 ? "a positive integer" : "an integer >= 0");
}

/* A time or size: finite and > 0.  Empty (and "N/A*") cells are allowed
 * only when optional, and give 0. */
static int get_pos(struct reader *rd, const struct field *f, const char *name, int optional,
                   double scale, double *out)
{
    char buf[64];
    *out = 0;
    if (optional && (f->n == 0 || (f->n >= 3 && strncasecmp(f->s, "N/A", 3) == 0)))
        return 0;
    if (!f->n || f->n >= sizeof buf)
        goto fail;
    memcpy(buf, f->s, f->n);
    buf[f->n] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || end == buf || !isfinite(v) || !(v > 0))
        goto fail;
    *out = v * scale;
    if (!isfinite(*out) || !(*out > 0))
        goto fail;
    return 0;
fail:
    return bad(rd, f, name, "a positive finite number");
}

static int get_trans(struct reader *rd, const struct field *f, const char *name, char *out)
{
    if (field_is(f, "N") || field_is(f, "0")) {
        *out = 'N';
        return 0;
    }
    if (field_is(f, "T") || field_is(f, "1")) {
        *out = 'T';
        return 0;
    }
    return bad(rd, f, name, "N, T, 0 or 1");
}

static int get_prec(struct reader *rd, const struct field *f, enum precision *out)
{
    char buf[64];
    size_t n = f->n < sizeof buf - 1 ? f->n : sizeof buf - 1;
    memcpy(buf, f->s, n);
    buf[n] = 0;
    *out = kernel_precision_parse(buf);
    if (*out != PREC_UNKNOWN)
        return 0;
    return bad(rd, f, "precision",
               "fp64, fp32, tf32, bf16, fp16, fp8, int8 or a DeepBench precision");
}

static struct kernel_table *table_for(struct reader *rd, const struct field *hwf)
{
    if (hwf && !rd->o->force_hw && hwf->n) {
        char *hw = field_dup(hwf);
        struct kernel_table *t = kernel_set_get(rd->set, hw);
        free(hw);
        return t;
    }
    return kernel_set_get(rd->set, rd->o->hw);
}

/* The kind a header's columns name (FORMATS.md), or KERNEL_KIND_COUNT. */
static enum kernel_kind header_kind(const struct field *f, int nf)
{
    /* A column only one kind has, tried in this order: conv's w before
     * norm's (n, c, s), and elementwise (op or bytes) last. */
    static const struct { const char *col; enum kernel_kind kind; } marks[] = {
        { "m", KERNEL_GEMM }, { "cell", KERNEL_RNN }, { "q_len", KERNEL_ATTENTION },
        { "head_dim", KERNEL_ATTENTION }, { "lookups", KERNEL_EMBEDDING },
        { "ranks", KERNEL_COMM }, { "params", KERNEL_OPTIMIZER }, { "form", KERNEL_OPTIMIZER },
        { "out", KERNEL_RESAMPLE },
        { "w", KERNEL_CONV }, { "f_w", KERNEL_CONV }, { "s", KERNEL_NORM },
        { "op", KERNEL_ELTWISE }, { "bytes", KERNEL_ELTWISE },
    };
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        for (int i = 0; i < nf; i++)
            if (field_is(&f[i], marks[k].col))
                return marks[k].kind;
    return KERNEL_KIND_COUNT;
}

/* Columns every row of a kind needs (FORMATS.md); conv_pass: the conv
 * form with a pass column. */
static const char *need_columns(enum kernel_kind kind, int conv_pass)
{
    static const char *const need[KERNEL_KIND_COUNT] = {
        [KERNEL_GEMM] = "m,n,k,precision,time_us",
        [KERNEL_CONV] = "w,h,c,n,k,f_w,f_h,precision,fwd_time_us",
        [KERNEL_ELTWISE] = "precision,bytes,time_us",
        [KERNEL_RNN] = "cell,input,hidden,layers,seq,batch,bidirectional,precision,pass,time_us",
        [KERNEL_ATTENTION] = "batch,heads,q_len,kv_len,head_dim,causal,precision,pass,time_us",
        [KERNEL_NORM] = "op,n,c,s,groups,precision,pass,time_us",
        [KERNEL_EMBEDDING] = "op,rows,dim,lookups,batch,mode,precision,pass,time_us",
        [KERNEL_OPTIMIZER] = "op,form,params,tensors,precision,time_us",
        [KERNEL_COMM] = "op,ranks,bytes,precision,time_us",
        [KERNEL_RESAMPLE] = "op,n,c,out,in,precision,pass,time_us",
    };
    if (kind == KERNEL_CONV && conv_pass)
        return "w,h,c,n,k,f_w,f_h,precision,pass,time_us";
    return need[kind];
}

/* DeepBench's all-reduce form names its columns differently and has no
 * op or precision: every row is an fp32 all-reduce. */
static const char *need_columns_of(const struct layout *ly)
{
    if (ly->kind == KERNEL_COMM && ly->has[R_FLOATS])
        return "ranks,num_floats,mean_ms";
    return need_columns(ly->kind, ly->has[R_PASS] != 0);
}

static enum role column_role(enum kernel_kind kind, const char *name, double *scale)
{
    *scale = 0;
    enum role r = name_role(kind, name);
    return r != R_NONE ? r : time_role(kind, name, scale);
}

static int check_columns(struct reader *rd, const struct field *f, const struct layout *ly)
{
    const char *need = need_columns_of(ly);
    while (*need) {
        size_t n = strcspn(need, ",");
        char name[32];
        double scale;
        snprintf(name, sizeof name, "%.*s", (int)n, need);
        if (!ly->has[column_role(ly->kind, name, &scale)]) {
            char expected[96];
            snprintf(expected, sizeof expected, "a '%s' column (%s table)", name,
                     kernel_kind_name(ly->kind));
            return bad(rd, &f[0], "header", expected);
        }
        need += n + (need[n] == ',');
    }
    if (ly->kind == KERNEL_CONV && ly->has[R_PASS] && ly->has[R_FWD])
        return bad(rd, &f[ly->has[R_FWD] - 1], "header",
                   "either a pass column with time_us or fwd_time_us without one");
    return 0;
}

/* Header line: recognise the kind from its columns and map each one. */
static int read_header(struct reader *rd, const struct field *f, int nf, struct layout *ly)
{
    ly->kind = header_kind(f, nf);
    if (ly->kind == KERNEL_KIND_COUNT)
        return bad(rd, &f[0], "header",
                   "a header naming the columns of a kernel table (estimators/measure/FORMATS.md: "
                   "gemm m,n,k; conv w,h,c,n,k; rnn cell; attention q_len; norm op,n,c,s; "
                   "embedding lookups; optimizer params; comm ranks; eltwise op,bytes)");
    ly->n_cols = nf;
    for (int i = 0; i < nf; i++) {
        char name[64];
        size_t n = f[i].n < sizeof name - 1 ? f[i].n : sizeof name - 1;
        for (size_t j = 0; j < n; j++)
            name[j] = (char)(f[i].s[j] >= 'A' && f[i].s[j] <= 'Z' ? f[i].s[j] + 32 : f[i].s[j]);
        name[n] = 0;
        double scale = 0;
        enum role r = column_role(ly->kind, name, &scale);
        if (r != R_NONE && ly->has[r])
            return bad(rd, &f[i], "header", "each column once");
        ly->cols[i].role = r;
        ly->cols[i].scale = scale;
        ly->cols[i].name = NULL;
        if (r != R_NONE)
            ly->has[r] = i + 1;
        if (r == R_TIME || r == R_FWD)
            ly->time_scale = scale;
    }
    return check_columns(rd, f, ly);
}

/* Our own column orders, for files without a header line. */
static int default_layout(struct reader *rd, const struct field *f, int nf, struct layout *ly)
{
    static const char gemm[] = "m,n,k,a_t,b_t,precision,time_us,time_us_min,time_us_max,"
                               "time_us_p05,time_us_p95,reps,time_us_loop_mean,tflops,source";
    static const char conv[] = "w,h,c,n,k,f_w,f_h,pad_w,pad_h,stride_w,stride_h,precision,"
                               "fwd_time_us,bwd_inputs_time_us,bwd_params_time_us,fwd_p05,fwd_p95,reps";
    static const char elt[] = "op,precision,elements,bytes,time_us,time_us_loop_mean,gbps";
    const char *hdr = NULL;
    if (nf == 15 && field_numeric(&f[0]))
        hdr = gemm;
    else if (nf == 18 && field_numeric(&f[0]))
        hdr = conv;
    else if (nf == 7 && !field_numeric(&f[0]))
        hdr = elt;
    if (!hdr) {
        char found[48];
        snprintf(found, sizeof found, "%d fields", nf);
        return diag_error_at(rd->d, rd->path, rd->line, 1,
                             "found a data line with %s and no header, expected a header "
                             "line naming the columns", found);
    }
    char *copy = xstrdup(hdr);
    struct field hf[MAX_FIELDS];
    int n = split_csv(copy, hf, MAX_FIELDS);
    int rc = read_header(rd, hf, n, ly);
    free(copy);
    return rc;
}

/* Values of one row that need the whole row before they land. */
struct row_extra {
    double time_s, tmin, tmax, p05, p95;
    int64_t nodes;              /* DeepBench all-reduce: nodes spanned, 0 one host */
};

static int get_flag(struct reader *rd, const struct field *f, const char *name, int *out)
{
    if (field_is(f, "0") || field_is(f, "false")) {
        *out = 0;
        return 0;
    }
    if (field_is(f, "1") || field_is(f, "true")) {
        *out = 1;
        return 0;
    }
    return bad(rd, f, name, "0, 1, true or false");
}

/* A convolution's memory layout: kernel_row.flag 0 for contiguous
 * tensors (NCHW), 1 for channels-last ones (NHWC, NDHWC). */
static int get_layout(struct reader *rd, const struct field *f, int *out)
{
    if (field_is(f, "contiguous") || f->n == 0) {
        *out = 0;
        return 0;
    }
    if (field_is(f, "channels-last")) {
        *out = 1;
        return 0;
    }
    return bad(rd, f, "layout", "contiguous or channels-last");
}

static int get_pass(struct reader *rd, const struct field *f, enum kernel_pass *out)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%.*s", (int)(f->n < 15 ? f->n : 15), f->s);
    *out = kernel_pass_parse(buf);
    if (*out != KPASS_COUNT && f->n < 15)
        return 0;
    return bad(rd, f, "pass", "fwd, bwd, bwd_data, bwd_weight or step");
}

/* Shape cells of the gemm and conv columns; *matched = 0 when the role
 * is not one of them. */
static int shape_cell(struct reader *rd, enum role role, const struct field *v, struct kernel_row *row,
                      int *matched)
{
    *matched = 1;
    static const struct { enum role r; const char *name; int64_t min; size_t off; } cells[] = {
        { R_M, "m", 1, offsetof(struct kernel_row, m) },
        { R_N, "n", 1, offsetof(struct kernel_row, n) },
        { R_K, "k", 1, offsetof(struct kernel_row, k) },
        { R_BATCH, "batch", 1, offsetof(struct kernel_row, batch) },
        { R_W, "w", 1, offsetof(struct kernel_row, w) },
        { R_H, "h", 1, offsetof(struct kernel_row, h) },
        { R_D, "d", 1, offsetof(struct kernel_row, d) },
        { R_C, "c", 1, offsetof(struct kernel_row, c) },
        { R_CN, "n", 1, offsetof(struct kernel_row, n_) },
        { R_KF, "k", 1, offsetof(struct kernel_row, kf) },
        { R_FW, "f_w", 1, offsetof(struct kernel_row, s) },
        { R_FH, "f_h", 1, offsetof(struct kernel_row, r) },
        { R_FD, "f_d", 1, offsetof(struct kernel_row, t) },
        { R_PADW, "pad_w", 0, offsetof(struct kernel_row, pad_w) },
        { R_PADH, "pad_h", 0, offsetof(struct kernel_row, pad_h) },
        { R_PADD, "pad_d", 0, offsetof(struct kernel_row, pad_d) },
        { R_SW, "stride_w", 1, offsetof(struct kernel_row, stride_w) },
        { R_SH, "stride_h", 1, offsetof(struct kernel_row, stride_h) },
        { R_SD, "stride_d", 1, offsetof(struct kernel_row, stride_d) },
        { R_DILW, "dil_w", 1, offsetof(struct kernel_row, dil_w) },
        { R_DILH, "dil_h", 1, offsetof(struct kernel_row, dil_h) },
        { R_DILD, "dil_d", 1, offsetof(struct kernel_row, dil_d) },
        { R_GROUPS, "groups", 1, offsetof(struct kernel_row, groups) },
    };
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
        if (cells[i].r == role)
            return get_i64(rd, v, cells[i].name, cells[i].min,
                           (int64_t *)(void *)((char *)row + cells[i].off));
    *matched = 0;
    return 0;
}

/* One cell of a CSV row into row / x. */
static int csv_cell(struct reader *rd, const struct layout *ly, const struct col *c,
                    const struct field *v, struct kernel_row *row, struct row_extra *x)
{
    double scale = c->scale > 0 ? c->scale : ly->time_scale;
    int64_t iv;
    int matched, rc = shape_cell(rd, c->role, v, row, &matched);
    if (matched)
        return rc;
    /* A norm's groups is 0 (or 1) for the norms other than group norm
     * (FORMATS.md); every other size is >= 1. */
    int zero_ok = ly->kind == KERNEL_NORM && c->role == R_DIM0 + NORM_GROUPS;
    if (c->role >= R_DIM0 && c->role <= R_DIM_END)
        return get_i64(rd, v, kernel_kind_dims(ly->kind, NULL)[c->role - R_DIM0], !zero_ok,
                       &row->dim[c->role - R_DIM0]);
    switch (c->role) {
    case R_PREC: return get_prec(rd, v, &row->prec);
    case R_AT: return get_trans(rd, v, "a_t", &row->a_t);
    case R_BT: return get_trans(rd, v, "b_t", &row->b_t);
    case R_DIMS:
        if ((rc = get_i64(rd, v, "dims", 1, &iv)) || iv <= 3) {
            row->dims = (int)iv;
            return rc;
        }
        return bad(rd, v, "dims", "1, 2 or 3");
    case R_PASS: return get_pass(rd, v, &row->pass);
    case R_FLAG: return get_flag(rd, v, ly->kind == KERNEL_RNN ? "bidirectional" : "causal", &row->flag);
    case R_LAYOUT: return get_layout(rd, v, &row->flag);
    case R_REPS:
        if (v->n && !(rc = get_i64(rd, v, "reps", 0, &iv)))
            row->reps = iv > 1000000000 ? 1000000000 : (int)iv;
        return rc;
    case R_TIME: return get_pos(rd, v, "time", 0, scale, &x->time_s);
    case R_FWD: return get_pos(rd, v, "fwd time", 1, scale, &row->time_s[CONV_FWD]);
    case R_BWDI: return get_pos(rd, v, "bwd inputs time", 1, scale, &row->time_s[CONV_BWD_DATA]);
    case R_BWDP: return get_pos(rd, v, "bwd params time", 1, scale, &row->time_s[CONV_BWD_FILTER]);
    case R_TMIN: return get_pos(rd, v, "min time", 1, scale, &x->tmin);
    case R_TMAX: return get_pos(rd, v, "max time", 1, scale, &x->tmax);
    case R_P05: return get_pos(rd, v, "p05 time", 1, scale, &x->p05);
    case R_P95: return get_pos(rd, v, "p95 time", 1, scale, &x->p95);
    case R_LOOP: return get_pos(rd, v, "loop mean time", 1, scale, &row->time_loop_s);
    case R_FLOATS:
        /* fp32 floats: 4 bytes each (DeepBench's all_reduce sends floats) */
        if ((rc = get_i64(rd, v, "num_floats", 1, &iv)))
            return rc;
        if (iv > INT64_MAX / 4)
            return bad(rd, v, "num_floats", "at most 2^61 floats");
        row->dim[COMM_BYTES] = 4 * iv;
        return 0;
    case R_NODES: return v->n ? get_i64(rd, v, "nodes", 1, &x->nodes) : 0;
    case R_ELEM: return get_pos(rd, v, "elements", 1, 1.0, &row->elements);
    case R_BYTES: return get_pos(rd, v, "bytes", 0, 1.0, &row->bytes);
    default: return 0;
    }
}

/* Is the text of f one of the comma-separated words of list? */
static int field_in(const struct field *f, const char *list)
{
    while (*list) {
        size_t n = strcspn(list, ",");
        if (f->n == n && strncmp(f->s, list, n) == 0)
            return 1;
        list += n + (list[n] == ',');
    }
    return 0;
}

/* The op/cell and mode/form words each kind allows (FORMATS.md), and
 * the passes it has. */
static int check_words(struct reader *rd, const struct layout *ly, const struct field *f,
                       struct kernel_row *row)
{
    static const struct { const char *op, *mode, *pass; } k[KERNEL_KIND_COUNT] = {
        [KERNEL_CONV] = { NULL, NULL, "fwd,bwd_data,bwd_weight" },
        [KERNEL_RNN] = { "lstm,gru,rnn_tanh,rnn_relu", NULL, "fwd,bwd" },
        [KERNEL_ATTENTION] = { NULL, NULL, "fwd,bwd" },
        [KERNEL_NORM] = { "batch_norm,layer_norm,rms_norm,group_norm", NULL, "fwd,bwd" },
        [KERNEL_EMBEDDING] = { "embedding,embedding_bag", "sum,mean,max,none", "fwd,bwd" },
        [KERNEL_OPTIMIZER] = { "sgd,sgd_momentum,adam,adamw", "single,foreach,fused", "step" },
        [KERNEL_COMM] = { "all_reduce,all_gather,reduce_scatter,broadcast", NULL, "fwd" },
        [KERNEL_RESAMPLE] = { KERNEL_RESAMPLE_OPS, NULL, "fwd,bwd" },
    };
    const struct field *op = ly->has[R_OP] ? &f[ly->has[R_OP] - 1] : NULL;
    const struct field *mode = ly->has[R_MODE] ? &f[ly->has[R_MODE] - 1] : NULL;
    const struct field *pass = ly->has[R_PASS] ? &f[ly->has[R_PASS] - 1] : NULL;
    if (k[ly->kind].op && op && !field_in(op, k[ly->kind].op))
        return bad(rd, op, ly->kind == KERNEL_RNN ? "cell" : "op", k[ly->kind].op);
    if (k[ly->kind].mode && mode && !field_in(mode, k[ly->kind].mode))
        return bad(rd, mode, ly->kind == KERNEL_OPTIMIZER ? "form" : "mode", k[ly->kind].mode);
    if (!pass && ly->kind == KERNEL_OPTIMIZER)
        row->pass = KPASS_STEP;
    if (k[ly->kind].pass && pass && !field_in(pass, k[ly->kind].pass))
        return bad(rd, pass, "pass", k[ly->kind].pass);
    return 0;
}

/* Conv rows: the pass's time slot, and sizes that fit together. */
static int conv_finish(struct reader *rd, const struct layout *ly, const struct field *f,
                       struct kernel_row *row, double time_s)
{
    if (ly->has[R_PASS])
        row->time_s[row->pass == KPASS_BWD_DATA ? CONV_BWD_DATA
                    : row->pass == KPASS_BWD_WEIGHT ? CONV_BWD_FILTER : CONV_FWD] = time_s;
    row->pass = KPASS_FWD;
    if (!(row->time_s[0] > 0 || row->time_s[1] > 0 || row->time_s[2] > 0))
        return diag_error_at(rd->d, rd->path, rd->line,
                             f[(ly->has[R_FWD] ? ly->has[R_FWD] : ly->has[R_TIME]) - 1].col,
                             "found no time for any pass, expected a positive fwd, "
                             "bwd inputs or bwd params time");
    int64_t g = row->groups > 0 ? row->groups : 1;
    if (row->c % g || row->kf % g)
        return bad(rd, &f[ly->has[R_GROUPS] - 1], "groups", "a divisor of both c and k");
    if ((row->dims == 1 && (row->h > 1 || row->d > 1 || row->r > 1 || row->t > 1)) ||
        (row->dims == 2 && (row->d > 1 || row->t > 1)))
        return bad(rd, &f[ly->has[R_DIMS] - 1], "dims",
                   "3 for a shape with depth, 2 or 3 for one with height");
    int64_t *ones[] = { &row->stride_h, &row->stride_w, &row->d, &row->t, &row->stride_d,
                        &row->dil_d, &row->dil_h, &row->dil_w, &row->groups };
    for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++)
        if (!*ones[i])
            *ones[i] = 1;
    return 0;
}

/* A row of DeepBench's all-reduce sheet: an fp32 all_reduce unless the
 * file says otherwise.  Rows over several nodes are left out (returns 0):
 * a comm table holds the collectives of one host (model/comm.h), and the
 * machine file's network covers the rest; the first is warned of. */
static int deepbench_comm_row(struct reader *rd, const struct layout *ly, const struct field *f,
                              struct kernel_row *row, int64_t nodes)
{
    if (!ly->has[R_PREC])
        row->prec = PREC_FP32;
    if (nodes > 1) {
        if (!rd->skipped_nodes++)
            diag_warn_at(rd->d, rd->path, rd->line, f[ly->has[R_NODES] - 1].col,
                         "found an all-reduce over %lld nodes, expected one host: this row "
                         "and any later one across nodes are left out (a comm table holds "
                         "the collectives of one host)", (long long)nodes);
        return 0;
    }
    return 1;
}

static int csv_row(struct reader *rd, const struct layout *ly, const struct field *f, int nf)
{
    if (nf != ly->n_cols) {
        char found[32], expected[48];
        snprintf(found, sizeof found, "%d fields", nf);
        snprintf(expected, sizeof expected, "%d as in the header", ly->n_cols);
        return diag_error_at(rd->d, rd->path, rd->line, 1, "found %s, expected %s", found, expected);
    }
    const struct field *hw = ly->has[R_HW] ? &f[ly->has[R_HW] - 1] : NULL;
    struct kernel_row row;
    struct row_extra x = { 0 };
    memset(&row, 0, sizeof row);
    row.kind = ly->kind;
    int rc = 0;
    for (int i = 0; i < nf && !rc; i++)
        rc = csv_cell(rd, ly, &ly->cols[i], &f[i], &row, &x);
    if (rc || (rc = check_words(rd, ly, f, &row)))
        return rc;
    if (ly->has[R_FLOATS] && !deepbench_comm_row(rd, ly, f, &row, x.nodes))
        return 0;
    if (ly->kind == KERNEL_CONV) {
        if ((rc = conv_finish(rd, ly, f, &row, x.time_s)))
            return rc;
    } else {
        row.time_s[0] = x.time_s;
    }
    if (ly->kind == KERNEL_GEMM) {
        if (!row.a_t)
            row.a_t = 'N';
        if (!row.b_t)
            row.b_t = 'N';
        if (!row.batch)
            row.batch = 1;
    }
    if (ly->kind == KERNEL_NORM && !row.dim[NORM_GROUPS])
        row.dim[NORM_GROUPS] = 1;
    row.time_lo_s = x.p05 > 0 ? x.p05 : x.tmin;
    row.time_hi_s = x.p95 > 0 ? x.p95 : x.tmax;
    struct kernel_row *r = kernel_table_add(table_for(rd, hw));
    *r = row;
    if (ly->has[R_OP] && f[ly->has[R_OP] - 1].n)
        r->op = field_dup(&f[ly->has[R_OP] - 1]);
    else if (ly->has[R_FLOATS])
        r->op = xstrdup("all_reduce");
    if (ly->has[R_MODE] && f[ly->has[R_MODE] - 1].n)
        r->mode = field_dup(&f[ly->has[R_MODE] - 1]);
    if (ly->has[R_SOURCE] && f[ly->has[R_SOURCE] - 1].n)
        r->source = field_dup(&f[ly->has[R_SOURCE] - 1]);
    else
        r->source = xstrdup(rd->base);
    return 0;
}

/* One line of DeepBench's printed output. */
static int stdout_row(struct reader *rd, const struct field *f, int nf)
{
    struct kernel_row row;
    memset(&row, 0, sizeof row);
    int rc = 0;
    if (nf == 7) {
        row.kind = KERNEL_GEMM;
        if ((rc = get_i64(rd, &f[0], "m", 1, &row.m)) || (rc = get_i64(rd, &f[1], "n", 1, &row.n)) ||
            (rc = get_i64(rd, &f[2], "k", 1, &row.k)) || (rc = get_trans(rd, &f[3], "a_t", &row.a_t)) ||
            (rc = get_trans(rd, &f[4], "b_t", &row.b_t)) || (rc = get_prec(rd, &f[5], &row.prec)) ||
            (rc = get_pos(rd, &f[6], "time", 0, 1e-6, &row.time_s[0])))
            return rc;
    } else if (nf >= 13 && nf <= 17) {
        row.kind = KERNEL_CONV;
        if ((rc = get_i64(rd, &f[0], "w", 1, &row.w)) || (rc = get_i64(rd, &f[1], "h", 1, &row.h)) ||
            (rc = get_i64(rd, &f[2], "c", 1, &row.c)) || (rc = get_i64(rd, &f[3], "n", 1, &row.n_)) ||
            (rc = get_i64(rd, &f[4], "k", 1, &row.kf)) || (rc = get_i64(rd, &f[5], "f_w", 1, &row.s)) ||
            (rc = get_i64(rd, &f[6], "f_h", 1, &row.r)) ||
            (rc = get_i64(rd, &f[7], "pad_w", 0, &row.pad_w)) ||
            (rc = get_i64(rd, &f[8], "pad_h", 0, &row.pad_h)) ||
            (rc = get_i64(rd, &f[9], "stride_w", 1, &row.stride_w)) ||
            (rc = get_i64(rd, &f[10], "stride_h", 1, &row.stride_h)) ||
            (rc = get_prec(rd, &f[11], &row.prec)) ||
            (rc = get_pos(rd, &f[12], "fwd time", 0, 1e-6, &row.time_s[CONV_FWD])))
            return rc;
        /* Training output adds bwd inputs, bwd params and total; an
         * algorithm name may follow the times. */
        int n_times = nf - 12;
        if (n_times >= 2 && !field_numeric(&f[nf - 1]) && !(f[nf - 1].n >= 3 && strncasecmp(f[nf - 1].s, "N/A", 3) == 0))
            n_times--;
        if (n_times != 1 && n_times != 4) {
            char found[32];
            snprintf(found, sizeof found, "%d times", n_times);
            return diag_error_at(rd->d, rd->path, rd->line, f[12].col,
                                 "found %s, expected 1 (fwd) or 4 (fwd bwd_inputs bwd_params total)", found);
        }
        if (n_times == 4) {
            double total;
            if ((rc = get_pos(rd, &f[13], "bwd inputs time", 1, 1e-6, &row.time_s[CONV_BWD_DATA])) ||
                (rc = get_pos(rd, &f[14], "bwd params time", 1, 1e-6, &row.time_s[CONV_BWD_FILTER])) ||
                (rc = get_pos(rd, &f[15], "total time", 1, 1e-6, &total)))
                return rc;
        }
    } else {
        char found[32];
        snprintf(found, sizeof found, "%d fields", nf);
        return diag_error_at(rd->d, rd->path, rd->line, 1,
                             "found %s, expected 7 (gemm: m n k a_t b_t precision time) or 13-17 "
                             "(conv: w h c n k f_w f_h pad_w pad_h stride_w stride_h precision times...)",
                             found);
    }
    struct kernel_row *r = kernel_table_add(kernel_set_get(rd->set, rd->o->hw));
    *r = row;
    r->source = xstrdup(rd->base);
    return 0;
}

static int is_separator(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '-' && *s != '=')
        return 0;
    while (*s == '-' || *s == '=' || *s == ' ' || *s == '\t')
        s++;
    return *s == 0;
}

/* One line of a kernel table: skipped (blank, comment, separator, a
 * DeepBench header), the header, or a row into rd->set.  *csv is -1 until
 * the first line says whether the table is CSV or whitespace-separated;
 * *have_layout is set once the header (or the default layout) is known. */
static int table_line(struct reader *rd, struct layout *ly, char *line, ssize_t len,
                      int *csv, int *have_layout)
{
    struct field f[MAX_FIELDS];
    if ((size_t)len != strlen(line))
        return diag_error_at(rd->d, rd->path, rd->line, 0, "found a NUL byte, expected text");
    if (len > MAX_LINE)
        return diag_error_at(rd->d, rd->path, rd->line, 0,
                             "found a line of %ld bytes, expected at most %d",
                             (long)len, MAX_LINE);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = 0;
    if (rd->line == 1 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
        (unsigned char)line[2] == 0xBF)
        memmove(line, line + 3, (size_t)len - 2);
    strbuf_reset(&rd->raw);
    strbuf_addstr(&rd->raw, line);
    rd->src = (struct diag_source){ rd->path, rd->line, strbuf_str(&rd->raw), rd->raw.len, 0 };
    rd->d->src = &rd->src;
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '#' || is_separator(p))
        return 0;
    if (*csv < 0)
        *csv = strchr(p, ',') != NULL;
    int nf;
    if (*csv) {
        nf = split_csv(line, f, MAX_FIELDS);
        if (nf < 0) {
            /* the caret under the quote left open: the last one */
            const char *q = strrchr(strbuf_str(&rd->raw), '"');
            rd->src.col = q ? (long)(q - rd->raw.buf) + 1 : 0;
            return diag_error_at(rd->d, rd->path, rd->line, 0,
                                 "found an unterminated quote, expected a closing '\"'");
        }
    } else {
        nf = split_ws(line, f, MAX_FIELDS);
    }
    if (nf > MAX_FIELDS)
        return diag_error_at(rd->d, rd->path, rd->line, 0,
                             "found more than %d fields, expected fewer", MAX_FIELDS);
    if (!*csv) {
        /* DeepBench prints its header (with "time (usec)") between
         * separators; any line starting with a letter is one. */
        if ((f[0].s[0] >= 'a' && f[0].s[0] <= 'z') || (f[0].s[0] >= 'A' && f[0].s[0] <= 'Z'))
            return 0;
        return stdout_row(rd, f, nf);
    }
    if (!*have_layout) {
        *have_layout = 1;
        int data = field_numeric(&f[0]) || (nf > 1 && field_numeric(&f[nf > 2 ? 2 : 1]));
        int rc = data ? default_layout(rd, f, nf, ly) : read_header(rd, f, nf, ly);
        if (rc)
            return rc;
        if (!data)
            return 0;
    }
    return csv_row(rd, ly, f, nf);
}

int kernel_file_read(const char *path, const struct kernel_read_opts *o,
                     struct kernel_set *set, struct diag *d)
{
    struct reader rd = { .path = path, .d = d, .o = o, .raw = STRBUF_INIT };
    struct kernel_set staging;
    struct layout ly;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, csv = -1, have_layout = 0;
    FILE *fp = NULL;

    kernel_set_init(&staging);
    memset(&ly, 0, sizeof ly);
    rd.set = &staging;
    const char *slash = strrchr(path, '/');
    rd.base = xstrdup(slash ? slash + 1 : path);
    fp = fopen(path, "r");
    if (!fp) {
        rc = diag_syserr(d, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    ssize_t len;
    errno = 0;
    while ((errno = 0, len = getline(&line, &cap, fp)) >= 0) {
        rd.line++;
        if ((rc = table_line(&rd, &ly, line, len, &csv, &have_layout)))
            goto out;
    }
    d->src = NULL;  /* what follows is about the whole file */
    /* getline fails without ferror when a line does not fit in memory
     * (ENOMEM): only the end of the file ends the table. */
    if (ferror(fp) || !feof(fp)) {
        rc = diag_syserr(d, "cannot read '%s' after line %ld: %s", path, rd.line,
                         strerror(errno ? errno : EIO));
        goto out;
    }
    if (staging.n == 0) {
        rc = diag_error_at(d, path, rd.line ? rd.line : 1, 0,
                           "found no kernel rows, expected at least one measured kernel");
        goto out;
    }
    kernel_set_take(set, &staging);
out:
    if (d->src == &rd.src)
        d->src = NULL;
    strbuf_release(&rd.raw);
    if (fp)
        fclose(fp);
    free(line);
    free(rd.base);
    kernel_set_release(&staging);
    return rc;
}
