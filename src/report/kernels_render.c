#include "report/kernels_render.h"

#include <stdint.h>
#include <string.h>

#include "report/csv.h"
#include "report/json.h"

static void render_json(FILE *out, const char *db, const struct kernels_count *r, size_t n)
{
    struct json j;
    json_init(&j, out, 1);
    json_obj_begin(&j);
    json_kstr(&j, "db", db);
    json_key(&j, "counts");
    json_arr_begin(&j);
    for (size_t i = 0; i < n; i++) {
        json_obj_begin(&j);
        json_kstr(&j, "hw", r[i].hw);
        json_kstr(&j, "kind", kernel_kind_name(r[i].kind));
        json_kstr(&j, "precision", precision_name(r[i].prec));
        json_kint(&j, "rows", (int64_t)r[i].rows);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}

static void render_csv(FILE *out, const struct kernels_count *r, size_t n)
{
    fprintf(out, "hw,kind,precision,rows\n");
    for (size_t i = 0; i < n; i++) {
        csv_field(out, r[i].hw);
        fprintf(out, ",%s,%s,%zu\n", kernel_kind_name(r[i].kind), precision_name(r[i].prec),
                r[i].rows);
    }
}

static void render_text(FILE *out, const struct kernels_count *r, size_t n)
{
    int w = 8;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(r[i].hw) > w)
            w = (int)strlen(r[i].hw);
    fprintf(out, "%-*s  %-9s  %-9s  %8s\n", w, "hardware", "kind", "precision", "rows");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%-*s  %-9s  %-9s  %8zu\n", w, r[i].hw, kernel_kind_name(r[i].kind),
                precision_name(r[i].prec), r[i].rows);
        total += r[i].rows;
    }
    fprintf(out, "%-*s  %-9s  %-9s  %8zu\n", w, "total", "", "", total);
}

void kernels_render_list(FILE *out, enum out_format fmt, const char *db,
                         const struct kernels_count *r, size_t n)
{
    if (fmt == FMT_JSON)
        render_json(out, db, r, n);
    else if (fmt == FMT_CSV)
        render_csv(out, r, n);
    else
        render_text(out, r, n);
}
