#include "ingest/kernel_csv.h"

#include <errno.h>
#include <math.h>
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
    R_M, R_N, R_K, R_AT, R_BT,
    R_TIME, R_TMIN, R_TMAX, R_P05, R_P95, R_LOOP, R_REPS,
    R_W, R_H, R_C, R_CN, R_KF, R_FW, R_FH, R_PADW, R_PADH, R_SW, R_SH,
    R_FWD, R_BWDI, R_BWDP,
    R_OP, R_ELEM, R_BYTES,
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
        return R_NONE;
    }
    for (size_t i = 0; i < sizeof gemm / sizeof gemm[0]; i++)
        if (match_time(name, gemm[i].base, gemm[i].tail, scale))
            return gemm[i].r;
    return R_NONE;
}

static enum role name_role(enum kernel_kind kind, const char *name)
{
    static const struct { const char *name; enum role r; } common[] = {
        { "hw", R_HW }, { "precision", R_PREC }, { "source", R_SOURCE }, { "reps", R_REPS },
    };
    static const struct { const char *name; enum role r; } gemm[] = {
        { "m", R_M }, { "n", R_N }, { "k", R_K }, { "a_t", R_AT }, { "b_t", R_BT },
    };
    static const struct { const char *name; enum role r; } conv[] = {
        { "w", R_W }, { "h", R_H }, { "c", R_C }, { "n", R_CN }, { "k", R_KF },
        { "f_w", R_FW }, { "filter_w", R_FW }, { "f_h", R_FH }, { "filter_h", R_FH },
        { "pad_w", R_PADW }, { "pad_h", R_PADH }, { "stride_w", R_SW }, { "stride_h", R_SH },
    };
    static const struct { const char *name; enum role r; } elt[] = {
        { "op", R_OP }, { "elements", R_ELEM }, { "bytes", R_BYTES },
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (strcmp(name, common[i].name) == 0)
            return common[i].r;
    if (kind == KERNEL_GEMM) {
        for (size_t i = 0; i < sizeof gemm / sizeof gemm[0]; i++)
            if (strcmp(name, gemm[i].name) == 0)
                return gemm[i].r;
    } else if (kind == KERNEL_CONV) {
        for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++)
            if (strcmp(name, conv[i].name) == 0)
                return conv[i].r;
    } else {
        for (size_t i = 0; i < sizeof elt / sizeof elt[0]; i++)
            if (strcmp(name, elt[i].name) == 0)
                return elt[i].r;
    }
    return R_NONE;
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

/* Header line: recognise the kind from its columns and map each one. */
static int read_header(struct reader *rd, const struct field *f, int nf, struct layout *ly)
{
    int has_m = 0, has_w = 0, has_op = 0;
    for (int i = 0; i < nf; i++) {
        has_m |= field_is(&f[i], "m");
        has_w |= field_is(&f[i], "w");
        has_op |= field_is(&f[i], "op") || field_is(&f[i], "bytes");
    }
    if (has_m)
        ly->kind = KERNEL_GEMM;
    else if (has_w)
        ly->kind = KERNEL_CONV;
    else if (has_op)
        ly->kind = KERNEL_ELTWISE;
    else
        return bad(rd, &f[0], "header",
                   "a header naming gemm (m,n,k,...), conv (w,h,c,n,k,...) or eltwise (op,bytes,...) columns");
    ly->n_cols = nf;
    for (int i = 0; i < nf; i++) {
        char name[64];
        size_t n = f[i].n < sizeof name - 1 ? f[i].n : sizeof name - 1;
        for (size_t j = 0; j < n; j++)
            name[j] = (char)(f[i].s[j] >= 'A' && f[i].s[j] <= 'Z' ? f[i].s[j] + 32 : f[i].s[j]);
        name[n] = 0;
        double scale = 0;
        enum role r = name_role(ly->kind, name);
        if (r == R_NONE)
            r = time_role(ly->kind, name, &scale);
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
    static const enum role need_gemm[] = { R_M, R_N, R_K, R_PREC, R_TIME };
    static const enum role need_conv[] = { R_W, R_H, R_C, R_CN, R_KF, R_FW, R_FH, R_PREC, R_FWD };
    static const enum role need_elt[] = { R_PREC, R_BYTES, R_TIME };
    static const char *const gemm_names[] = { "m", "n", "k", "precision", "time_us" };
    static const char *const conv_names[] = { "w", "h", "c", "n", "k", "f_w", "f_h", "precision", "fwd_time_us" };
    static const char *const elt_names[] = { "precision", "bytes", "time_us" };
    const enum role *need = ly->kind == KERNEL_GEMM ? need_gemm : ly->kind == KERNEL_CONV ? need_conv : need_elt;
    const char *const *names = ly->kind == KERNEL_GEMM ? gemm_names : ly->kind == KERNEL_CONV ? conv_names : elt_names;
    size_t n_need = ly->kind == KERNEL_GEMM ? 5 : ly->kind == KERNEL_CONV ? 9 : 3;
    for (size_t i = 0; i < n_need; i++)
        if (!ly->has[need[i]]) {
            char expected[96];
            snprintf(expected, sizeof expected, "a '%s' column", names[i]);
            return bad(rd, &f[0], "header", expected);
        }
    return 0;
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
    memset(&row, 0, sizeof row);
    row.kind = ly->kind;
    int rc = 0;
    double tmin = 0, tmax = 0, p05 = 0, p95 = 0;
    for (int i = 0; i < nf && !rc; i++) {
        const struct col *c = &ly->cols[i];
        const struct field *v = &f[i];
        double scale = c->scale > 0 ? c->scale : ly->time_scale;
        int64_t iv;
        switch (c->role) {
        case R_PREC: rc = get_prec(rd, v, &row.prec); break;
        case R_M: rc = get_i64(rd, v, "m", 1, &row.m); break;
        case R_N: rc = get_i64(rd, v, "n", 1, &row.n); break;
        case R_K: rc = get_i64(rd, v, "k", 1, &row.k); break;
        case R_AT: rc = get_trans(rd, v, "a_t", &row.a_t); break;
        case R_BT: rc = get_trans(rd, v, "b_t", &row.b_t); break;
        case R_W: rc = get_i64(rd, v, "w", 1, &row.w); break;
        case R_H: rc = get_i64(rd, v, "h", 1, &row.h); break;
        case R_C: rc = get_i64(rd, v, "c", 1, &row.c); break;
        case R_CN: rc = get_i64(rd, v, "n", 1, &row.n_); break;
        case R_KF: rc = get_i64(rd, v, "k", 1, &row.kf); break;
        case R_FW: rc = get_i64(rd, v, "f_w", 1, &row.s); break;
        case R_FH: rc = get_i64(rd, v, "f_h", 1, &row.r); break;
        case R_PADW: rc = get_i64(rd, v, "pad_w", 0, &row.pad_w); break;
        case R_PADH: rc = get_i64(rd, v, "pad_h", 0, &row.pad_h); break;
        case R_SW: rc = get_i64(rd, v, "stride_w", 1, &row.stride_w); break;
        case R_SH: rc = get_i64(rd, v, "stride_h", 1, &row.stride_h); break;
        case R_REPS:
            if (v->n) {
                rc = get_i64(rd, v, "reps", 0, &iv);
                row.reps = iv > 1000000000 ? 1000000000 : (int)iv;
            }
            break;
        case R_TIME: rc = get_pos(rd, v, "time", 0, scale, &row.time_s[0]); break;
        case R_FWD: rc = get_pos(rd, v, "fwd time", 1, scale, &row.time_s[CONV_FWD]); break;
        case R_BWDI: rc = get_pos(rd, v, "bwd inputs time", 1, scale, &row.time_s[CONV_BWD_DATA]); break;
        case R_BWDP: rc = get_pos(rd, v, "bwd params time", 1, scale, &row.time_s[CONV_BWD_FILTER]); break;
        case R_TMIN: rc = get_pos(rd, v, "min time", 1, scale, &tmin); break;
        case R_TMAX: rc = get_pos(rd, v, "max time", 1, scale, &tmax); break;
        case R_P05: rc = get_pos(rd, v, "p05 time", 1, scale, &p05); break;
        case R_P95: rc = get_pos(rd, v, "p95 time", 1, scale, &p95); break;
        case R_LOOP: rc = get_pos(rd, v, "loop mean time", 1, scale, &row.time_loop_s); break;
        case R_ELEM: rc = get_pos(rd, v, "elements", 1, 1.0, &row.elements); break;
        case R_BYTES: rc = get_pos(rd, v, "bytes", 0, 1.0, &row.bytes); break;
        default: break;
        }
    }
    if (rc)
        return rc;
    if (ly->kind == KERNEL_CONV) {
        if (!(row.time_s[0] > 0 || row.time_s[1] > 0 || row.time_s[2] > 0))
            return diag_error_at(rd->d, rd->path, rd->line, f[ly->has[R_FWD] - 1].col,
                                 "found no time for any pass, expected a positive fwd, "
                                 "bwd inputs or bwd params time");
        if (!row.stride_h)
            row.stride_h = 1;
        if (!row.stride_w)
            row.stride_w = 1;
    }
    if (ly->kind == KERNEL_GEMM) {
        if (!row.a_t)
            row.a_t = 'N';
        if (!row.b_t)
            row.b_t = 'N';
    }
    row.time_lo_s = p05 > 0 ? p05 : tmin;
    row.time_hi_s = p95 > 0 ? p95 : tmax;
    struct kernel_table *t = table_for(rd, hw);
    struct kernel_row *r = kernel_table_add(t);
    *r = row;
    if (ly->has[R_OP] && f[ly->has[R_OP] - 1].n)
        r->op = field_dup(&f[ly->has[R_OP] - 1]);
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

int kernel_file_read(const char *path, const struct kernel_read_opts *o,
                     struct kernel_set *set, struct diag *d)
{
    struct reader rd = { .path = path, .d = d, .o = o };
    struct kernel_set staging;
    struct layout ly;
    struct field f[MAX_FIELDS];
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
    while ((len = getline(&line, &cap, fp)) >= 0) {
        rd.line++;
        if ((size_t)len != strlen(line)) {
            rc = diag_error_at(d, path, rd.line, 0, "found a NUL byte, expected text");
            goto out;
        }
        if (len > MAX_LINE) {
            rc = diag_error_at(d, path, rd.line, 0, "found a line of %ld bytes, expected at most %d",
                               (long)len, MAX_LINE);
            goto out;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (rd.line == 1 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
            (unsigned char)line[2] == 0xBF)
            memmove(line, line + 3, (size_t)len - 2);
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#' || is_separator(p))
            continue;
        if (csv < 0)
            csv = strchr(p, ',') != NULL;
        int nf;
        if (csv) {
            nf = split_csv(line, f, MAX_FIELDS);
            if (nf < 0) {
                rc = diag_error_at(d, path, rd.line, 0, "found an unterminated quote, expected a closing '\"'");
                goto out;
            }
        } else {
            nf = split_ws(line, f, MAX_FIELDS);
        }
        if (nf > MAX_FIELDS) {
            rc = diag_error_at(d, path, rd.line, 0, "found more than %d fields, expected fewer", MAX_FIELDS);
            goto out;
        }
        if (!csv) {
            /* DeepBench prints its header (with "time (usec)") between
             * separators; any line starting with a letter is one. */
            if ((f[0].s[0] >= 'a' && f[0].s[0] <= 'z') || (f[0].s[0] >= 'A' && f[0].s[0] <= 'Z'))
                continue;
            if ((rc = stdout_row(&rd, f, nf)))
                goto out;
            continue;
        }
        if (!have_layout) {
            have_layout = 1;
            int data = field_numeric(&f[0]) || (nf > 1 && field_numeric(&f[nf > 2 ? 2 : 1]));
            rc = data ? default_layout(&rd, f, nf, &ly) : read_header(&rd, f, nf, &ly);
            if (rc)
                goto out;
            if (!data)
                continue;
        }
        if ((rc = csv_row(&rd, &ly, f, nf)))
            goto out;
    }
    if (ferror(fp)) {
        rc = diag_syserr(d, "cannot read '%s': %s", path, strerror(errno));
        goto out;
    }
    if (staging.n == 0) {
        rc = diag_error_at(d, path, rd.line ? rd.line : 1, 0,
                           "found no kernel rows, expected at least one measured kernel");
        goto out;
    }
    kernel_set_take(set, &staging);
out:
    if (fp)
        fclose(fp);
    free(line);
    free(rd.base);
    kernel_set_release(&staging);
    return rc;
}
