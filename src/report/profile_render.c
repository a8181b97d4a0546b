#include "report/profile_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "report/csv.h"
#include "report/json.h"

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static void tchar(char *buf, char c)
{
    buf[0] = c ? c : '\0';
    buf[1] = '\0';
}

/* Shapes can be long (tensor lists of optimizers): cut for the table. */
static void cut(const char *s, char *buf, size_t n)
{
    if (!s || !*s) {
        snprintf(buf, n, "-");
        return;
    }
    size_t len = strlen(s);
    if (len < n) {
        memcpy(buf, s, len + 1);
        return;
    }
    memcpy(buf, s, n - 4);
    memcpy(buf + n - 4, "...", 4);
}

static int cmp_size(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return a < b ? -1 : a > b;
}

/* The kept ops' ids, sorted, so that calls of ops --top dropped can be
 * told apart: those are written with no op id (null, empty), since the
 * file holds no op their id could name. */
static size_t *kept_ids(const struct profile *p)
{
    size_t *ids = xmalloc((p->n_ops + 1) * sizeof *ids);
    for (size_t i = 0; i < p->n_ops; i++)
        ids[i] = p->ops[i].id;
    qsort(ids, p->n_ops, sizeof *ids, cmp_size);
    return ids;
}

/* A call as the five numbers the file holds; op id NAN when dropped. */
static void call_row(const struct profile *p, const size_t *ids, const struct op_call *c,
                     double row[5])
{
    row[0] = bsearch(&c->op_id, ids, p->n_ops, sizeof *ids, cmp_size) ? (double)c->op_id : NAN;
    row[1] = c->step;
    row[2] = c->host_start_s;
    row[3] = c->host_s;
    row[4] = c->device_s;
}

void profile_render_text(FILE *fp, const struct profile *p)
{
    double full = p->total_time_s + p->dropped_time_s;
    fprintf(fp, "source:      %s\n", or_dash(p->source));
    fprintf(fp, "format:      %s\n", or_dash(p->format));
    fprintf(fp, "device:      %s\n", p->device_name ? p->device_name : "none (host only)");
    fprintf(fp, "framework:   %s\n", or_dash(p->framework));
    fprintf(fp, "steps:       %d profiled; figures below are per pass (one step)\n", p->steps);
    if (p->batch > 0)
        fprintf(fp, "batch:       %lld\n", (long long)p->batch);
    fprintf(fp, "dtype:       %s (dominant in gemm/conv time)\n", precision_name(p->dtype));
    fprintf(fp, "times:       %s\n", p->has_device ? "device (sum of each op's kernels)"
                                                    : "host (wall time of each op)");
    fprintf(fp, "pass time [ms]:       %.3f (sum of op times, all ops)\n", full * 1e3);
    if (p->step_time_s > 0)
        fprintf(fp, "step wall time [ms]:  %.3f (ProfilerStep span)\n", p->step_time_s * 1e3);
    if (p->host_time_s > 0)
        fprintf(fp, "host busy time [ms]:  %.3f (top-level ops on all threads)\n",
                p->host_time_s * 1e3);
    if (p->measured_step_s > 0)
        fprintf(fp, "measured step [ms]:   %.3f (without the profiler: %s)\n",
                p->measured_step_s * 1e3, or_dash(p->measured_step_from));
    if (p->dropped_ops > 0)
        fprintf(fp, "kept:        %zu ops, %.3f ms of %.3f ms = %.1f%%; dropped %zu ops, %.3f ms\n",
                p->n_ops, p->total_time_s * 1e3, full * 1e3, p->coverage * 100.0,
                p->dropped_ops, p->dropped_time_s * 1e3);
    else
        fprintf(fp, "kept:        all %zu ops\n", p->n_ops);
    fputc('\n', fp);
    fprintf(fp, "%-40s %-11s %-9s %-5s %9s %12s %10s %7s %7s  %s\n", "op", "kind", "phase",
            "dtype", "count", "time [ms]", "GFLOP", "% pass", "cum %", "shapes");
    double cum = 0;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        char name[41], shapes[64];
        cut(o->name, name, sizeof name);
        cut(o->shapes, shapes, sizeof shapes);
        cum += o->time_s;
        double pct = full > 0 ? 100.0 * o->time_s / full : 0;
        double cpct = full > 0 ? 100.0 * cum / full : 0;
        fprintf(fp, "%-40s %-11s %-9s %-5s %9.6g %12.4f %10.4g %7.2f %7.2f  %s\n", name,
                op_kind_name(o->kind), op_phase_name(o->phase), precision_name(o->dtype),
                o->count, o->time_s * 1e3, o->flops * 1e-9, pct, cpct, shapes);
    }
    if (p->dropped_ops > 0)
        fprintf(fp, "%-40s %-11s %-9s %-5s %9s %12.4f %10s %7.2f %7.2f\n", "(dropped by --top)",
                "-", "-", "-", "-", p->dropped_time_s * 1e3, "-",
                full > 0 ? 100.0 * p->dropped_time_s / full : 0, full > 0 ? 100.0 : 0);
}

/* The sizes a kernel table keys on (struct op kdim .. kflag), for the
 * kinds that have them: saved so that an estimate from the saved profile
 * looks up the same rows as one from the trace. */
static int has_table_sizes(const struct op *o)
{
    return op_sizes(o)->kdim[0] > 0 || op_sizes(o)->kop[0] || op_sizes(o)->kmode[0];
}

static void csv_table_sizes(FILE *fp, const struct op *o)
{
    if (has_table_sizes(o)) {
        for (int i = 0; i < 6; i++)
            fprintf(fp, ",%lld", (long long)op_sizes(o)->kdim[i]);
        fputc(',', fp);
        csv_field(fp, op_sizes(o)->kop);
        fputc(',', fp);
        csv_field(fp, op_sizes(o)->kmode);
        fprintf(fp, ",%d", o->kflag);
    } else {
        fputs(",,,,,,,,,", fp);
    }
    const struct conv_shape *c = op_conv(o);
    if (o->kind == OP_CONV && c->dims == 3)
        fprintf(fp, ",%lld,%lld,%lld,%lld,%lld,%lld,%d", (long long)c->d, (long long)c->t,
                (long long)c->stride_d, (long long)c->pad_d, (long long)c->dil_d, (long long)c->o,
                c->dims);
    else if (o->kind == OP_CONV && c->dims)
        fprintf(fp, ",,,,,,,%d", c->dims);
    else
        fputs(",,,,,,,", fp);
}

/* "conv": a convolution's sizes, the 3-D ones only for a 3-D one. */
static void write_conv(struct json *j, const struct conv_shape *c)
{
    json_key(j, "conv");
    json_obj_begin(j);
    json_kint(j, "n", c->n);
    json_kint(j, "c", c->c);
    json_kint(j, "h", c->h);
    json_kint(j, "w", c->w);
    json_kint(j, "k", c->k);
    json_kint(j, "r", c->r);
    json_kint(j, "s", c->s);
    json_kint(j, "stride_h", c->stride_h);
    json_kint(j, "stride_w", c->stride_w);
    json_kint(j, "pad_h", c->pad_h);
    json_kint(j, "pad_w", c->pad_w);
    json_kint(j, "dil_h", c->dil_h);
    json_kint(j, "dil_w", c->dil_w);
    json_kint(j, "groups", c->groups);
    json_kint(j, "p", c->p);
    json_kint(j, "q", c->q);
    if (c->dims == 3) {
        json_kint(j, "d", c->d);
        json_kint(j, "t", c->t);
        json_kint(j, "stride_d", c->stride_d);
        json_kint(j, "pad_d", c->pad_d);
        json_kint(j, "dil_d", c->dil_d);
        json_kint(j, "o", c->o);
    }
    if (c->dims)
        json_kint(j, "dims", c->dims);
    json_obj_end(j);
}

void profile_render_json(FILE *fp, const struct profile *p)
{
    struct json j;
    char t[2];
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "format", p->format);
    json_kstr(&j, "source", p->source);
    json_kstr(&j, "device", p->device_name);
    json_kstr(&j, "framework", p->framework);
    json_kint(&j, "steps", p->steps);
    json_kint(&j, "batch", p->batch);
    json_kstr(&j, "dtype", precision_name(p->dtype));
    json_key(&j, "has_device");
    json_bool(&j, p->has_device);
    json_knum(&j, "total_time_s", p->total_time_s);
    json_knum(&j, "step_time_s", p->step_time_s);
    json_knum(&j, "host_time_s", p->host_time_s);
    json_knum(&j, "coverage", p->coverage);
    json_knum(&j, "dropped_time_s", p->dropped_time_s);
    json_kint(&j, "dropped_ops", (int64_t)p->dropped_ops);
    json_knum(&j, "profiler_host_s", p->profiler_host_s);
    json_knum(&j, "measured_step_s", p->measured_step_s > 0 ? p->measured_step_s : NAN);
    json_knum(&j, "measured_step_lo_s", p->measured_step_lo_s > 0 ? p->measured_step_lo_s : NAN);
    json_knum(&j, "measured_step_hi_s", p->measured_step_hi_s > 0 ? p->measured_step_hi_s : NAN);
    json_kstr(&j, "measured_step_from", p->measured_step_from);
    json_key(&j, "ops");
    json_arr_begin(&j);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        json_obj_begin_line(&j);
        json_kstr(&j, "name", o->name);
        json_kstr(&j, "kind", op_kind_name(o->kind));
        json_kstr(&j, "phase", op_phase_name(o->phase));
        json_kstr(&j, "dtype", precision_name(o->dtype));
        json_knum(&j, "count", o->count);
        json_knum(&j, "time_s", o->time_s);
        json_knum(&j, "device_time_s", o->device_time_s);
        json_knum(&j, "host_time_s", o->host_time_s);
        json_knum(&j, "kernels", o->kernels);
        json_knum(&j, "flops", o->flops);
        json_knum(&j, "bytes", o->bytes);
        json_kint(&j, "m", o->m);
        json_kint(&j, "n", o->n);
        json_kint(&j, "k", o->k);
        json_kint(&j, "batch", o->batch);
        tchar(t, o->a_t);
        json_kstr(&j, "a_t", t);
        tchar(t, o->b_t);
        json_kstr(&j, "b_t", t);
        json_kstr(&j, "shapes", o->shapes ? o->shapes : "");
        json_kstr(&j, "flags", o->flags);
        if (o->kind == OP_CONV)
            write_conv(&j, op_conv(o));
        if (has_table_sizes(o)) {
            char key[8];
            for (int a = 0; a < 6; a++) {
                snprintf(key, sizeof key, "kdim_%d", a);
                json_kint(&j, key, op_sizes(o)->kdim[a]);
            }
            json_kstr(&j, "kop", op_sizes(o)->kop);
            json_kstr(&j, "kmode", op_sizes(o)->kmode);
            json_kint(&j, "kflag", o->kflag);
        }
        json_kint(&j, "id", (int64_t)o->id);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    if (p->n_calls) {
        /* [op_id, step, host_start_s, host_s, device_s], one per line */
        size_t *ids = kept_ids(p);
        json_key(&j, "calls");
        json_arr_begin(&j);
        for (size_t i = 0; i < p->n_calls; i++) {
            double row[5];
            call_row(p, ids, &p->calls[i], row);
            json_num_row(&j, row, 5);
        }
        json_arr_end(&j);
        free(ids);
    }
    json_obj_end(&j);
    json_finish(&j);
}

void profile_render_csv(FILE *fp, const struct profile *p)
{
    fprintf(fp, "# format: %s\n", or_dash(p->format));
    fputs("# source: ", fp);
    csv_field(fp, p->source);
    fputc('\n', fp);
    fprintf(fp, "# device: %s\n", or_dash(p->device_name));
    fprintf(fp, "# framework: %s\n", or_dash(p->framework));
    fprintf(fp, "# steps: %d\n", p->steps);
    fprintf(fp, "# batch: %lld\n", (long long)p->batch);
    fprintf(fp, "# dtype: %s\n", precision_name(p->dtype));
    fprintf(fp, "# total_time_s: %.9g\n", p->total_time_s);
    fprintf(fp, "# step_time_s: %.9g\n", p->step_time_s);
    fprintf(fp, "# host_time_s: %.9g\n", p->host_time_s);
    fprintf(fp, "# coverage: %.9g\n", p->coverage);
    fprintf(fp, "# dropped_time_s: %.9g\n", p->dropped_time_s);
    fprintf(fp, "# dropped_ops: %zu\n", p->dropped_ops);
    fprintf(fp, "# profiler_host_s: %.17g\n", p->profiler_host_s);
    if (p->measured_step_s > 0) {
        fprintf(fp, "# measured_step_s: %.17g\n", p->measured_step_s);
        fprintf(fp, "# measured_step_lo_s: %.17g\n", p->measured_step_lo_s);
        fprintf(fp, "# measured_step_hi_s: %.17g\n", p->measured_step_hi_s);
        fputs("# measured_step_from: ", fp);
        csv_field(fp, p->measured_step_from);
        fputc('\n', fp);
    }
    fputs("name,kind,phase,dtype,count,time_s [s],device_time_s [s],host_time_s [s],kernels,"
          "flops [FLOP],bytes [B],m,n,k,batch,a_t,b_t,shapes,flags,"
          "conv_n,conv_c,conv_h,conv_w,conv_k,conv_r,conv_s,stride_h,stride_w,pad_h,pad_w,"
          "dil_h,dil_w,groups,id,kdim_0,kdim_1,kdim_2,kdim_3,kdim_4,kdim_5,kop,kmode,kflag,"
          "conv_d,conv_t,stride_d,pad_d,dil_d,conv_o,conv_dims\n", fp);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        char at[2], bt[2];
        tchar(at, o->a_t);
        tchar(bt, o->b_t);
        csv_field(fp, o->name);
        fprintf(fp, ",%s,%s,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%lld,%lld,%lld,%lld,%s,%s,",
                op_kind_name(o->kind), op_phase_name(o->phase), precision_name(o->dtype),
                o->count, o->time_s, o->device_time_s, o->host_time_s, o->kernels, o->flops,
                o->bytes, (long long)o->m, (long long)o->n, (long long)o->k,
                (long long)o->batch, at, bt);
        csv_field(fp, o->shapes);
        fputc(',', fp);
        csv_field(fp, o->flags);
        if (o->kind == OP_CONV) {
            const struct conv_shape *c = op_conv(o);
            fprintf(fp, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld",
                    (long long)c->n, (long long)c->c, (long long)c->h, (long long)c->w,
                    (long long)c->k, (long long)c->r, (long long)c->s, (long long)c->stride_h,
                    (long long)c->stride_w, (long long)c->pad_h, (long long)c->pad_w,
                    (long long)c->dil_h, (long long)c->dil_w, (long long)c->groups);
        } else {
            fputs(",,,,,,,,,,,,,,", fp);
        }
        fprintf(fp, ",%zu", o->id);
        csv_table_sizes(fp, o);
        fputc('\n', fp);
    }
    /* the calls after the table: "# call: op_id,step,host_start_s,host_s,device_s" */
    size_t *ids = p->n_calls ? kept_ids(p) : NULL;
    for (size_t i = 0; i < p->n_calls; i++) {
        double row[5];
        char buf[32];
        call_row(p, ids, &p->calls[i], row);
        fputs("# call: ", fp);
        if (!isnan(row[0]))
            fputs(num_fmt_exact(buf, sizeof buf, row[0]), fp);
        for (int k = 1; k < 5; k++) {
            fputc(',', fp);
            fputs(num_fmt_exact(buf, sizeof buf, row[k]), fp);
        }
        fputc('\n', fp);
    }
    free(ids);
}

void profile_render(FILE *fp, const struct profile *p, enum out_format f)
{
    switch (f) {
    case FMT_JSON: profile_render_json(fp, p); break;
    case FMT_CSV: profile_render_csv(fp, p); break;
    default: profile_render_text(fp, p); break;
    }
}
