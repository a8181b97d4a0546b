#include "report/shapes_render.h"

#include <string.h>

#include "core/strbuf.h"
#include "report/csv.h"
#include "report/json.h"

/* The string columns of a row: name and value ("" when empty). */
enum { N_SCOL = 5 };
struct scol {
    const char *name;
    char buf[40];
};

static void str_cols(const struct kernel_shape *k, struct scol *sc)
{
    sc[0].name = "op";
    sc[1].name = "cell";
    sc[2].name = "mode";
    sc[3].name = "layout";
    sc[4].name = "precision";
    snprintf(sc[0].buf, sizeof sc[0].buf, "%s", k->op);
    snprintf(sc[1].buf, sizeof sc[1].buf, "%s", k->cell);
    snprintf(sc[2].buf, sizeof sc[2].buf, "%s", k->mode);
    snprintf(sc[3].buf, sizeof sc[3].buf, "%s", k->layout);
    snprintf(sc[4].buf, sizeof sc[4].buf, "%s", precision_name(k->prec));
}

/* Cell text of integer column c, with a_t/b_t written after k. */
static void int_cell(const struct kernel_shape *k, int c, char *buf, size_t cap)
{
    buf[0] = 0;
    if (k->col[c] != KS_EMPTY)
        snprintf(buf, cap, "%lld", (long long)k->col[c]);
}

static void render_csv(FILE *fp, const struct kernel_shapes *s)
{
    fputs("kind,op,cell,mode,layout,precision", fp);
    for (int c = 0; c < KS_COL_COUNT; c++) {
        fprintf(fp, ",%s", kernel_shape_col_name(c));
        if (c == KS_K)
            fputs(",a_t,b_t", fp);
    }
    fputs(",bytes,count,share\n", fp);
    for (size_t i = 0; i < s->n; i++) {
        const struct kernel_shape *k = &s->rows[i];
        struct scol sc[N_SCOL];
        char buf[32];
        str_cols(k, sc);
        fputs(op_kind_name(k->kind), fp);
        for (int j = 0; j < N_SCOL; j++) {
            fputc(',', fp);
            csv_field(fp, sc[j].buf);
        }
        for (int c = 0; c < KS_COL_COUNT; c++) {
            int_cell(k, c, buf, sizeof buf);
            fprintf(fp, ",%s", buf);
            if (c == KS_K)
                fprintf(fp, ",%s,%s", k->a_t ? (char[]){ k->a_t, 0 } : "",
                        k->b_t ? (char[]){ k->b_t, 0 } : "");
        }
        if (k->bytes > 0)
            fprintf(fp, ",%.17g", k->bytes);
        else
            fputc(',', fp);
        fprintf(fp, ",%.10g,%.6g\n", k->count, k->share);
    }
}

static void render_json(FILE *fp, const struct kernel_shapes *s)
{
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_key(&j, "shapes");
    json_arr_begin(&j);
    for (size_t i = 0; i < s->n; i++) {
        const struct kernel_shape *k = &s->rows[i];
        struct scol sc[N_SCOL];
        str_cols(k, sc);
        json_obj_begin(&j);
        json_kstr(&j, "kind", op_kind_name(k->kind));
        for (int c = 0; c < N_SCOL; c++)
            if (sc[c].buf[0])
                json_kstr(&j, sc[c].name, sc[c].buf);
        for (int c = 0; c < KS_COL_COUNT; c++) {
            if (k->col[c] != KS_EMPTY)
                json_kint(&j, kernel_shape_col_name(c), k->col[c]);
            if (c == KS_K && k->a_t) {
                json_kstr(&j, "a_t", (char[]){ k->a_t, 0 });
                json_kstr(&j, "b_t", (char[]){ k->b_t, 0 });
            }
        }
        if (k->bytes > 0)
            json_knum(&j, "bytes", k->bytes);
        json_knum(&j, "count", k->count);
        json_knum(&j, "share", k->share);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}

static void render_text(FILE *fp, const struct kernel_shapes *s)
{
    fprintf(fp, "%-11s  %-9s  %10s  %7s  %s\n", "kind", "precision", "calls/pass", "share", "shape");
    for (size_t i = 0; i < s->n; i++) {
        const struct kernel_shape *k = &s->rows[i];
        struct strbuf sb = STRBUF_INIT;
        struct scol sc[N_SCOL];
        str_cols(k, sc);
        for (int c = 0; c < N_SCOL - 1; c++)    /* precision has a column of its own */
            if (sc[c].buf[0])
                strbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", sc[c].name, sc[c].buf);
        for (int c = 0; c < KS_COL_COUNT; c++) {
            if (k->col[c] != KS_EMPTY)
                strbuf_addf(&sb, "%s%s=%lld", sb.len ? " " : "", kernel_shape_col_name(c),
                            (long long)k->col[c]);
            if (c == KS_K && k->a_t)
                strbuf_addf(&sb, " %c%c", k->a_t, k->b_t);
        }
        if (k->bytes > 0)
            strbuf_addf(&sb, " bytes=%.0f", k->bytes);
        fprintf(fp, "%-11s  %-9s  %10.4g  %6.2f%%  %s\n", op_kind_name(k->kind),
                precision_name(k->prec), k->count, 100 * k->share, sb.buf);
        strbuf_release(&sb);
    }
    fprintf(fp, "%zu shapes\n", s->n);
}

void shapes_render(FILE *fp, const struct kernel_shapes *s, enum out_format f)
{
    if (f == FMT_JSON)
        render_json(fp, s);
    else if (f == FMT_CSV)
        render_csv(fp, s);
    else
        render_text(fp, s);
}
