#include "report/machine_render.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "report/csv.h"
#include "report/json.h"

/* ---- a small aligned table ------------------------------------------- */

struct table {
    size_t ncol;
    size_t nleft;       /* leading columns aligned left (labels) */
    char **cell;        /* row-major, ncol per row */
    size_t n;           /* cells used */
    size_t alloc;
};

static void table_init(struct table *t, size_t ncol, size_t nleft)
{
    memset(t, 0, sizeof *t);
    t->ncol = ncol;
    t->nleft = nleft;
}

static void table_add(struct table *t, const char *s)
{
    ALLOC_GROW(t->cell, t->n + 1, t->alloc);
    t->cell[t->n++] = xstrdup(s ? s : "-");
}

static void table_print(FILE *fp, struct table *t)
{
    size_t *w = xcalloc(t->ncol, sizeof *w);
    for (size_t i = 0; i < t->n; i++) {
        size_t l = strlen(t->cell[i]);
        if (l > w[i % t->ncol])
            w[i % t->ncol] = l;
    }
    for (size_t i = 0; i < t->n; i++) {
        size_t c = i % t->ncol;
        int last = c + 1 == t->ncol;
        if (c > 0)
            fputs("  ", fp);
        if (c < t->nleft)
            fprintf(fp, "%-*s", last ? 0 : (int)w[c], t->cell[i]);
        else
            fprintf(fp, "%*s", (int)w[c], t->cell[i]);
        if (last)
            fputc('\n', fp);
    }
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
    free(w);
    memset(t, 0, sizeof *t);
}

/* ---- values ---------------------------------------------------------- */

/* Display value: SI value v shown in a unit of size scale; "-" if absent. */
static const char *fmt_val(char *buf, size_t n, double v, double scale)
{
    if (!(v > 0) || !isfinite(v))
        return "-";
    snprintf(buf, n, "%.6g", v / scale);
    return buf;
}

static const char *fmt_ratio(char *buf, size_t n, double v, double base)
{
    if (!(v > 0) || !(base > 0))
        return "-";
    snprintf(buf, n, "%.3fx", v / base);
    return buf;
}

static const char *kind_name(enum machine_kind k)
{
    switch (k) {
    case MACHINE_CPU: return "cpu";
    case MACHINE_ACCEL: return "accel";
    default: return "gpu";
    }
}

/* int8 rates are integer operations, everything else floating point. */
static const char *rate_unit(enum precision p) { return p == PREC_INT8 ? "TOP/s" : "TFLOP/s"; }
static const char *rate_si(enum precision p) { return p == PREC_INT8 ? "OP/s" : "FLOP/s"; }
static const char *ridge_unit(enum precision p) { return p == PREC_INT8 ? "OP/B" : "FLOP/B"; }

static const char *main_mem_name(const struct machine *m)
{
    return m->n_mem ? m->mem[m->n_mem - 1].name : "memory";
}

static double opt(double v)
{
    return v > 0 ? v : NAN;
}

/* ---- rows shared by show (scalars) and compare ------------------------ */

struct row {
    char key[64];       /* machine-readable name, e.g. peak.fp64.vector.device */
    char label[96];     /* text label with the display unit */
    char unit[16];      /* display unit for CSV */
    char si[16];        /* SI unit for JSON */
    double scale;       /* SI per display unit */
    double *v;          /* one SI value per machine, 0 = absent */
};

struct rows {
    struct row *r;
    size_t n, alloc;
    size_t nm;
};

static struct row *row_add(struct rows *rs, const char *key, const char *label,
                           const char *unit, const char *si, double scale)
{
    ALLOC_GROW(rs->r, rs->n + 1, rs->alloc);
    struct row *r = &rs->r[rs->n++];
    snprintf(r->key, sizeof r->key, "%s", key);
    if (*unit)
        snprintf(r->label, sizeof r->label, "%s [%s]", label, unit);
    else
        snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    snprintf(r->si, sizeof r->si, "%s", si);
    r->scale = scale;
    r->v = xcalloc(rs->nm, sizeof *r->v);
    return r;
}

/* A row of a time every machine holds in one field (offset into struct
 * machine), shown in microseconds. */
static void row_us(struct rows *rs, const struct machine *ms, const char *key, const char *label,
                   size_t field)
{
    struct row *r = row_add(rs, key, label, "us", "s", 1e-6);
    for (size_t i = 0; i < rs->nm; i++)
        r->v[i] = *(const double *)((const char *)&ms[i] + field);
}

static void rows_release(struct rows *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        free(rs->r[i].v);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static void build_rows(struct rows *rs, const struct machine *ms, size_t nm)
{
    memset(rs, 0, sizeof *rs);
    rs->nm = nm;
    char key[64], label[96];
    struct row *r = row_add(rs, "devices_per_node", "devices per node", "count", "count", 1);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].devices_per_node;
    r = row_add(rs, "compute_units", "multiprocessors per device", "count", "count", 1);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = opt(ms[i].compute_units);
    /* per device, then per node, then ridge: one block each so that the
     * eye can run down a column of like quantities */
    for (int block = 0; block < 3; block++) {
        for (int p = 0; p < PREC_COUNT; p++) {
            for (int u = 0; u < EXEC_COUNT; u++) {
                int any = 0;
                for (size_t i = 0; i < nm; i++)
                    any |= ms[i].peak_flops[p][u] > 0;
                if (!any)
                    continue;
                const char *pn = precision_name(p), *un = exec_unit_name(u);
                if (block == 0) {
                    snprintf(key, sizeof key, "peak.%s.%s.device", pn, un);
                    snprintf(label, sizeof label, "peak %s %s per device", pn, un);
                    r = row_add(rs, key, label, rate_unit(p), rate_si(p), 1e12);
                } else if (block == 1) {
                    snprintf(key, sizeof key, "peak.%s.%s.node", pn, un);
                    snprintf(label, sizeof label, "peak %s %s per node", pn, un);
                    r = row_add(rs, key, label, rate_unit(p), rate_si(p), 1e12);
                } else {
                    snprintf(key, sizeof key, "ridge.%s.%s", pn, un);
                    snprintf(label, sizeof label, "ridge %s %s vs main memory", pn, un);
                    r = row_add(rs, key, label, ridge_unit(p), ridge_unit(p), 1);
                }
                for (size_t i = 0; i < nm; i++) {
                    const struct machine *m = &ms[i];
                    r->v[i] = block == 0 ? m->peak_flops[p][u]
                            : block == 1 ? m->peak_flops[p][u] * m->devices_per_node
                            : machine_ridge(m, p, u);
                }
            }
        }
    }
    r = row_add(rs, "main_memory.capacity.device", "main memory capacity per device", "GB", "B", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].n_mem ? ms[i].mem[ms[i].n_mem - 1].capacity_b : 0;
    r = row_add(rs, "main_memory.bw.device", "main memory bandwidth per device", "GB/s", "B/s", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = machine_mem_bw(&ms[i]);
    r = row_add(rs, "main_memory.bw.node", "main memory bandwidth per node", "GB/s", "B/s", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = machine_mem_bw(&ms[i]) * ms[i].devices_per_node;
    row_us(rs, ms, "launch_latency", "kernel launch latency", offsetof(struct machine, launch_latency_s));
    row_us(rs, ms, "kernel_gap", "gap between queued kernels", offsetof(struct machine, kernel_gap_s));
    row_us(rs, ms, "dispatch", "host dispatch per op", offsetof(struct machine, dispatch_s));
    static const struct { const char *key, *label; size_t off; } rnn_rows[] = {
        { "rnn_forward_step", "recurrent layer host time per step, forward",
          offsetof(struct machine, rnn_fwd_step_s) },
        { "rnn_backward_step", "recurrent layer host time per step, backward",
          offsetof(struct machine, rnn_bwd_step_s) },
        { "rnn_persistent_forward", "persistent recurrent call host time, forward, fp32",
          offsetof(struct machine, rnn_persist_fwd_s) },
        { "rnn_persistent_backward", "persistent recurrent call host time, backward, fp32",
          offsetof(struct machine, rnn_persist_bwd_s) },
        { "rnn_persistent_forward_half", "persistent recurrent call host time, forward, bf16/fp16",
          offsetof(struct machine, rnn_persist_fwd_half_s) },
        { "rnn_persistent_backward_half", "persistent recurrent call host time, backward, bf16/fp16",
          offsetof(struct machine, rnn_persist_bwd_half_s) },
    };
    for (size_t i = 0; i < sizeof rnn_rows / sizeof rnn_rows[0]; i++)
        row_us(rs, ms, rnn_rows[i].key, rnn_rows[i].label, rnn_rows[i].off);
    r = row_add(rs, "intra_node.bw", "intra-node link per device per direction", "GB/s", "B/s", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].intra.bw_bs;
    r = row_add(rs, "intra_node.latency", "intra-node link latency", "us", "s", 1e-6);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].intra.latency_s;
    r = row_add(rs, "inter_node.bw", "inter-node injection per node per direction", "GB/s", "B/s", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].inter.bw_bs;
    r = row_add(rs, "inter_node.latency", "inter-node link latency", "us", "s", 1e-6);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].inter.latency_s;
    r = row_add(rs, "inter_node.nics", "inter-node NICs per node", "", "", 1);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].inter.nics;
    r = row_add(rs, "inter_node.nic_bw", "inter-node bandwidth per NIC per direction", "GB/s",
                "B/s", 1e9);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].inter.nic_bw_bs;
    r = row_add(rs, "power", "power per node", "W", "W", 1);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].power_w;
    r = row_add(rs, "price", "price per node", "USD", "USD", 1);
    for (size_t i = 0; i < nm; i++)
        r->v[i] = ms[i].price_usd;
}

/* ---- show ------------------------------------------------------------ */

/* "NVLink 4, switch", "4 NICs, HPE Slingshot-11, dragonfly" or "-". */
static const char *link_desc(char *buf, size_t n, const struct net_link *k)
{
    size_t used = 0;
    buf[0] = 0;
    if (k->nics)
        used += (size_t)snprintf(buf + used, n - used, "%d NIC%s", k->nics, k->nics > 1 ? "s" : "");
    if (k->fabric && used < n)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", k->fabric);
    if (k->topology != TOPO_UNKNOWN && used < n)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                                 link_topology_name(k->topology));
    return used ? buf : "-";
}

static void json_link(struct json *j, const char *key, const struct net_link *k)
{
    json_key(j, key);
    json_obj_begin(j);
    json_knum(j, "bw_bs", opt(k->bw_bs));
    json_knum(j, "latency_s", opt(k->latency_s));
    json_kstr(j, "fabric", k->fabric);
    json_kstr(j, "topology", k->topology != TOPO_UNKNOWN ? link_topology_name(k->topology) : NULL);
    json_obj_end(j);
}

static void show_text(FILE *fp, const struct machine *m)
{
    char b1[64], b2[128], b3[128], hdr[96];
    struct table t;
    table_init(&t, 2, 2);
    table_add(&t, "machine"); table_add(&t, m->id);
    table_add(&t, "file"); table_add(&t, m->path);
    table_add(&t, "name"); table_add(&t, m->name);
    table_add(&t, "vendor"); table_add(&t, m->vendor);
    table_add(&t, "kind"); table_add(&t, kind_name(m->kind));
    table_add(&t, "device name"); table_add(&t, m->device_name);
    snprintf(b1, sizeof b1, "%d", m->devices_per_node);
    table_add(&t, "devices per node"); table_add(&t, b1);
    snprintf(b1, sizeof b1, "%d", m->compute_units);
    table_add(&t, "multiprocessors"); table_add(&t, m->compute_units > 0 ? b1 : "not given");
    table_add(&t, "intra-node link"); table_add(&t, link_desc(b2, sizeof b2, &m->intra));
    table_add(&t, "inter-node network"); table_add(&t, link_desc(b3, sizeof b3, &m->inter));
    table_add(&t, "source"); table_add(&t, m->source);
    table_print(fp, &t);

    fprintf(fp, "\npeak rates (dense; int8 in TOP/s and OP/B)\n");
    table_init(&t, 5, 2);
    table_add(&t, "precision"); table_add(&t, "unit");
    table_add(&t, "per device [TFLOP/s]"); table_add(&t, "per node [TFLOP/s]");
    snprintf(hdr, sizeof hdr, "ridge vs %s [FLOP/B]", main_mem_name(m));
    table_add(&t, hdr);
    for (int p = 0; p < PREC_COUNT; p++) {
        for (int u = 0; u < EXEC_COUNT; u++) {
            double f = m->peak_flops[p][u];
            if (!(f > 0))
                continue;
            table_add(&t, precision_name(p));
            table_add(&t, exec_unit_name(u));
            table_add(&t, fmt_val(b1, sizeof b1, f, 1e12));
            table_add(&t, fmt_val(b2, sizeof b2, f * m->devices_per_node, 1e12));
            table_add(&t, fmt_val(b3, sizeof b3, machine_ridge(m, p, u), 1));
        }
    }
    table_print(fp, &t);

    fprintf(fp, "\nmemory per device (closest to the cores first)\n");
    table_init(&t, 3, 1);
    table_add(&t, "level"); table_add(&t, "capacity [GB]"); table_add(&t, "bandwidth [GB/s]");
    for (size_t i = 0; i < m->n_mem; i++) {
        table_add(&t, m->mem[i].name);
        table_add(&t, fmt_val(b1, sizeof b1, m->mem[i].capacity_b, 1e9));
        table_add(&t, fmt_val(b2, sizeof b2, m->mem[i].bw_bs, 1e9));
    }
    table_print(fp, &t);

    fprintf(fp, "\noverheads, links, power\n");
    struct rows rs;
    build_rows(&rs, m, 1);
    table_init(&t, 2, 1);
    for (size_t i = 0; i < rs.n; i++) {
        const struct row *r = &rs.r[i];
        if (strncmp(r->key, "peak.", 5) == 0 || strncmp(r->key, "ridge.", 6) == 0 ||
            strncmp(r->key, "main_memory.", 12) == 0 || strcmp(r->key, "devices_per_node") == 0 ||
            strcmp(r->key, "compute_units") == 0)
            continue;
        table_add(&t, r->label);
        table_add(&t, fmt_val(b1, sizeof b1, r->v[0], r->scale));
    }
    table_print(fp, &t);
    rows_release(&rs);
}

static void show_json(FILE *fp, const struct machine *m)
{
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "id", m->id);
    json_kstr(&j, "path", m->path);
    json_kstr(&j, "name", m->name);
    json_kstr(&j, "vendor", m->vendor);
    json_kstr(&j, "kind", kind_name(m->kind));
    json_kstr(&j, "device_name", m->device_name);
    json_kint(&j, "devices_per_node", m->devices_per_node);
    json_knum(&j, "compute_units", opt(m->compute_units));
    json_key(&j, "peaks");
    json_arr_begin(&j);
    for (int p = 0; p < PREC_COUNT; p++) {
        for (int u = 0; u < EXEC_COUNT; u++) {
            double f = m->peak_flops[p][u];
            if (!(f > 0))
                continue;
            json_obj_begin(&j);
            json_kstr(&j, "precision", precision_name(p));
            json_kstr(&j, "unit", exec_unit_name(u));
            json_knum(&j, "flops", f);
            json_knum(&j, "node_flops", f * m->devices_per_node);
            json_knum(&j, "ridge_flop_per_byte", opt(machine_ridge(m, p, u)));
            json_obj_end(&j);
        }
    }
    json_arr_end(&j);
    json_key(&j, "memory");
    json_arr_begin(&j);
    for (size_t i = 0; i < m->n_mem; i++) {
        json_obj_begin(&j);
        json_kstr(&j, "level", m->mem[i].name);
        json_knum(&j, "capacity_b", opt(m->mem[i].capacity_b));
        json_knum(&j, "bw_bs", opt(m->mem[i].bw_bs));
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_knum(&j, "main_memory_bw_bs", opt(machine_mem_bw(m)));
    json_knum(&j, "launch_latency_s", opt(m->launch_latency_s));
    json_knum(&j, "kernel_gap_s", opt(m->kernel_gap_s));
    json_knum(&j, "dispatch_s", opt(m->dispatch_s));
    json_knum(&j, "rnn_forward_step_s", opt(m->rnn_fwd_step_s));
    json_knum(&j, "rnn_backward_step_s", opt(m->rnn_bwd_step_s));
    json_knum(&j, "rnn_persistent_forward_s", opt(m->rnn_persist_fwd_s));
    json_knum(&j, "rnn_persistent_backward_s", opt(m->rnn_persist_bwd_s));
    json_knum(&j, "rnn_persistent_forward_half_s", opt(m->rnn_persist_fwd_half_s));
    json_knum(&j, "rnn_persistent_backward_half_s", opt(m->rnn_persist_bwd_half_s));
    json_link(&j, "intra_node", &m->intra);
    json_link(&j, "inter_node", &m->inter);
    json_kint(&j, "inter_node_nics", m->inter.nics);
    json_knum(&j, "inter_node_nic_bw_bs", opt(m->inter.nic_bw_bs));
    json_knum(&j, "power_w", opt(m->power_w));
    json_knum(&j, "price_usd", opt(m->price_usd));
    json_kstr(&j, "source", m->source);
    json_obj_end(&j);
    json_finish(&j);
}

/* Long format, SI values: one line per field, so a spreadsheet or awk can
 * pick any field without knowing the layout. */
static void show_csv(FILE *fp, const struct machine *m)
{
    char b[64];
    fputs("field,value,unit\n", fp);
    const char *strs[][2] = {
        { "id", m->id }, { "path", m->path }, { "name", m->name }, { "vendor", m->vendor },
        { "kind", kind_name(m->kind) }, { "device_name", m->device_name }, { "source", m->source },
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        fprintf(fp, "%s,", strs[i][0]);
        csv_field(fp, strs[i][1]);
        fputs(",\n", fp);
    }
    for (size_t i = 0; i < m->n_mem; i++) {
        fputs("memory.", fp);
        csv_field(fp, m->mem[i].name);
        fprintf(fp, ".capacity,%s,B\n", m->mem[i].capacity_b > 0 ? (snprintf(b, sizeof b, "%.17g", m->mem[i].capacity_b), b) : "");
        fputs("memory.", fp);
        csv_field(fp, m->mem[i].name);
        fprintf(fp, ".bw,%s,B/s\n", m->mem[i].bw_bs > 0 ? (snprintf(b, sizeof b, "%.17g", m->mem[i].bw_bs), b) : "");
    }
    struct rows rs;
    build_rows(&rs, m, 1);
    for (size_t i = 0; i < rs.n; i++) {
        const struct row *r = &rs.r[i];
        if (r->v[0] > 0)
            fprintf(fp, "%s,%.17g,%s\n", r->key, r->v[0], r->si);
        else
            fprintf(fp, "%s,,%s\n", r->key, r->si);
    }
    rows_release(&rs);
}

void machine_render_show(FILE *fp, const struct machine *m, enum out_format f)
{
    if (f == FMT_JSON)
        show_json(fp, m);
    else if (f == FMT_CSV)
        show_csv(fp, m);
    else
        show_text(fp, m);
}

/* ---- compare --------------------------------------------------------- */

static void compare_text(FILE *fp, const struct machine *ms, size_t nm, const struct rows *rs)
{
    char b[64];
    fprintf(fp, "baseline: %s (%s)\n", ms[0].id, ms[0].path);
    for (size_t i = 1; i < nm; i++)
        fprintf(fp, "compared: %s (%s)\n", ms[i].id, ms[i].path);
    fprintf(fp, "ratio = machine / baseline %s; per device unless the row says per node\n\n",
            ms[0].id);
    struct table t;
    size_t ncol = 1 + 1 + 2 * (nm - 1);
    table_init(&t, ncol, 1);
    table_add(&t, "quantity");
    table_add(&t, ms[0].id);
    for (size_t i = 1; i < nm; i++) {
        table_add(&t, ms[i].id);
        table_add(&t, "ratio");
    }
    for (size_t k = 0; k < rs->n; k++) {
        const struct row *r = &rs->r[k];
        table_add(&t, r->label);
        table_add(&t, fmt_val(b, sizeof b, r->v[0], r->scale));
        for (size_t i = 1; i < nm; i++) {
            table_add(&t, fmt_val(b, sizeof b, r->v[i], r->scale));
            table_add(&t, fmt_ratio(b, sizeof b, r->v[i], r->v[0]));
        }
    }
    table_print(fp, &t);
}

static void compare_json(FILE *fp, const struct machine *ms, size_t nm, const struct rows *rs)
{
    struct json j;
    json_init(&j, fp, 1);
    json_obj_begin(&j);
    json_kstr(&j, "baseline", ms[0].id);
    json_key(&j, "machines");
    json_arr_begin(&j);
    for (size_t i = 0; i < nm; i++) {
        json_obj_begin(&j);
        json_kstr(&j, "id", ms[i].id);
        json_kstr(&j, "path", ms[i].path);
        json_kstr(&j, "name", ms[i].name);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_key(&j, "rows");
    json_arr_begin(&j);
    for (size_t k = 0; k < rs->n; k++) {
        const struct row *r = &rs->r[k];
        json_obj_begin(&j);
        json_kstr(&j, "quantity", r->key);
        json_kstr(&j, "unit", r->si);
        json_key(&j, "values");
        json_arr_begin(&j);
        for (size_t i = 0; i < nm; i++)
            json_num(&j, opt(r->v[i]));
        json_arr_end(&j);
        json_key(&j, "ratios");
        json_arr_begin(&j);
        for (size_t i = 0; i < nm; i++)
            json_num(&j, r->v[i] > 0 && r->v[0] > 0 ? r->v[i] / r->v[0] : NAN);
        json_arr_end(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}

static void compare_csv(FILE *fp, const struct machine *ms, size_t nm, const struct rows *rs)
{
    fputs("quantity,unit", fp);
    for (size_t i = 0; i < nm; i++) {
        fputc(',', fp);
        csv_field(fp, ms[i].id);
        if (i > 0) {
            struct strbuf sb = STRBUF_INIT;
            strbuf_addf(&sb, "%s/%s ratio", ms[i].id, ms[0].id);
            fputc(',', fp);
            csv_field(fp, sb.buf);
            strbuf_release(&sb);
        }
    }
    fputc('\n', fp);
    for (size_t k = 0; k < rs->n; k++) {
        const struct row *r = &rs->r[k];
        fprintf(fp, "%s,%s", r->key, r->unit);
        for (size_t i = 0; i < nm; i++) {
            if (r->v[i] > 0)
                fprintf(fp, ",%.10g", r->v[i] / r->scale);
            else
                fputc(',', fp);
            if (i > 0) {
                if (r->v[i] > 0 && r->v[0] > 0)
                    fprintf(fp, ",%.10g", r->v[i] / r->v[0]);
                else
                    fputc(',', fp);
            }
        }
        fputc('\n', fp);
    }
}

void machine_render_compare(FILE *fp, const struct machine *ms, size_t n, enum out_format f)
{
    struct rows rs;
    build_rows(&rs, ms, n);
    if (f == FMT_JSON)
        compare_json(fp, ms, n, &rs);
    else if (f == FMT_CSV)
        compare_csv(fp, ms, n, &rs);
    else
        compare_text(fp, ms, n, &rs);
    rows_release(&rs);
}
