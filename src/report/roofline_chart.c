#include "report/roofline_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/units.h"
#include "model/machine.h"
#include "report/gnuplot.h"

/* Ceilings and points use separate palettes so an op series never looks
 * like a roof.  Colours are the Okabe-Ito set, readable by most colour
 * blind readers, then a few darker extras. */
static const char *const roof_colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
    "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF",
};
static const char *const point_colors[] = {
    "#D62728", "#1F77B4", "#2CA02C", "#9467BD", "#FF7F0E", "#8C564B",
    "#E377C2", "#17BECF", "#7F7F7F", "#BCBD22", "#000000", "#AEC7E8",
};
static const int point_types[] = { 7, 5, 9, 13, 11, 15 };
#define N_ROOF_COLORS (sizeof roof_colors / sizeof roof_colors[0])
#define N_POINT_COLORS (sizeof point_colors / sizeof point_colors[0])
#define N_POINT_TYPES (sizeof point_types / sizeof point_types[0])

struct ceiling {
    double rate;
    unsigned prec_mask[EXEC_COUNT];     /* precisions at this rate, per unit */
};

static int point_ok(const struct roof_point *p)
{
    return isfinite(p->ai_fpb) && isfinite(p->rate_flops) && p->ai_fpb > 0 &&
           p->rate_flops > 0;
}

static int cmp_ceiling(const void *a, const void *b)
{
    double x = ((const struct ceiling *)a)->rate, y = ((const struct ceiling *)b)->rate;
    return (x < y) - (x > y);
}

/* One ceiling per distinct rate (within 0.1%), highest first: equal peaks
 * drawn separately would hide each other. */
static size_t collect_ceilings(const struct machine *m, struct ceiling *c)
{
    size_t n = 0;
    for (int u = 0; u < EXEC_COUNT; u++) {
        for (int p = 0; p < PREC_COUNT; p++) {
            double r = m->peak_flops[p][u];
            if (!(r > 0) || !isfinite(r))
                continue;
            size_t i;
            for (i = 0; i < n; i++)
                if (fabs(c[i].rate - r) <= 1e-3 * r)
                    break;
            if (i == n) {
                memset(&c[n], 0, sizeof c[n]);
                c[n].rate = r;
                n++;
            }
            c[i].prec_mask[u] |= 1u << p;
        }
    }
    qsort(c, n, sizeof *c, cmp_ceiling);
    return n;
}

/* "bf16, fp16 matrix 989.4 TFLOP/s"; int8 peaks count operations, not
 * floating-point ones, hence OP/s (or (FL)OP/s when shared with a float) */
static void ceiling_label(const struct ceiling *c, struct strbuf *out)
{
    int has_float = 0, has_int = 0;
    for (int u = EXEC_COUNT - 1; u >= 0; u--) {
        if (!c->prec_mask[u])
            continue;
        if (out->len)
            strbuf_addstr(out, "; ");
        int k = 0;
        for (int p = 0; p < PREC_COUNT; p++) {
            if (!(c->prec_mask[u] & (1u << p)))
                continue;
            strbuf_addf(out, "%s%s", k++ ? ", " : "", precision_name((enum precision)p));
            if (p == PREC_INT8)
                has_int = 1;
            else
                has_float = 1;
        }
        strbuf_addf(out, " %s", exec_unit_name((enum exec_unit)u));
    }
    char buf[64];
    unit_format(c->rate, QTY_RATE, buf, sizeof buf);
    char *f = strstr(buf, "FLOP/s");
    if (f && has_int) {
        *f = '\0';
        strbuf_addf(out, " %s%s", buf, has_float ? "(FL)OP/s" : "OP/s");
    } else {
        strbuf_addf(out, " %s", buf);
    }
}

/* What the chart is drawn in: the machine's ceilings and bandwidths and the
 * axis ranges that hold them and every point. */
struct roof_frame {
    struct ceiling roof[PREC_COUNT * EXEC_COUNT];
    size_t n_ceil;
    double bw_max, bw_min, peak_max;    /* bytes/s, FLOP/s; 0 when none */
    double xmin, xmax, ymin, ymax;      /* FLOP/byte, FLOP/s */
    size_t n_skipped;                   /* points that cannot be drawn */
};

static int bw_ok(double bw)
{
    return bw > 0 && isfinite(bw);
}

/* The classic 1/64 .. 4096 FLOP/byte window, widened to hold every point
 * and every ridge, then rounded out to decades so that the tick labels
 * stay at round numbers. */
static void roof_ranges(struct roof_frame *f, const struct roof_series *series, size_t n_series)
{
    f->xmin = 1.0 / 64;
    f->xmax = 4096;
    f->ymin = 0;
    f->ymax = f->peak_max > 0 ? f->peak_max * 3 : 0;
    for (size_t s = 0; s < n_series; s++) {
        for (size_t i = 0; i < series[s].n; i++) {
            const struct roof_point *p = &series[s].pts[i];
            if (!point_ok(p)) {
                f->n_skipped++;
                continue;
            }
            if (p->ai_fpb / 2 < f->xmin)
                f->xmin = p->ai_fpb / 2;
            if (p->ai_fpb * 2 > f->xmax)
                f->xmax = p->ai_fpb * 2;
            if (f->ymin == 0 || p->rate_flops / 3 < f->ymin)
                f->ymin = p->rate_flops / 3;
            if (p->rate_flops * 3 > f->ymax)
                f->ymax = p->rate_flops * 3;
        }
    }
    if (f->bw_max > 0 && f->peak_max / f->bw_max < f->xmin)
        f->xmin = f->peak_max / f->bw_max / 2;
    if (f->bw_min > 0 && (f->ymin == 0 || f->bw_min * f->xmin < f->ymin))
        f->ymin = f->bw_min * f->xmin;
    if (f->ymin == 0 || f->ymin >= f->ymax) {
        f->ymin = f->ymax > 0 ? f->ymax / 1e4 : 1e9;
        if (f->ymax <= f->ymin)
            f->ymax = f->ymin * 1e4;
    }
    f->xmin = pow(10, floor(log10(f->xmin)));
    f->xmax = pow(10, ceil(log10(f->xmax)));
    f->ymin = pow(10, floor(log10(f->ymin)));
    f->ymax = pow(10, ceil(log10(f->ymax)));
}

static void roof_frame_init(struct roof_frame *f, const struct machine *m,
                            const struct roof_series *series, size_t n_series)
{
    memset(f, 0, sizeof *f);
    f->n_ceil = collect_ceilings(m, f->roof);
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!bw_ok(bw))
            continue;
        if (bw > f->bw_max)
            f->bw_max = bw;
        if (f->bw_min == 0 || bw < f->bw_min)
            f->bw_min = bw;
    }
    for (size_t i = 0; i < f->n_ceil; i++)
        if (f->roof[i].rate > f->peak_max)
            f->peak_max = f->roof[i].rate;
    roof_ranges(f, series, n_series);
}

/* One line of data: two points and the blank lines that end its index
 * block. */
static void gp_segment(struct strbuf *sb, double x0, double y0, double x1, double y1)
{
    gp_num(sb, x0); strbuf_addch(sb, ' '); gp_num(sb, y0);
    strbuf_addch(sb, '\n');
    gp_num(sb, x1); strbuf_addch(sb, ' '); gp_num(sb, y1);
    strbuf_addstr(sb, "\n\n\n");
}

/* The roofs and the points as inline data blocks $ROOF and $PTS, one index
 * block per line and per series; rates in TFLOP/s. */
static void roof_data(struct strbuf *sb, const struct machine *m, const struct roof_frame *f,
                      const struct roof_series *series, size_t n_series)
{
    strbuf_addstr(sb, "$ROOF << EOD\n");
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!bw_ok(bw))
            continue;
        double top = f->peak_max > 0 ? f->peak_max : f->ymax;
        gp_segment(sb, f->xmin, bw * f->xmin / 1e12, top / bw, top / 1e12);
    }
    for (size_t i = 0; i < f->n_ceil; i++) {
        double x0 = f->bw_max > 0 ? f->roof[i].rate / f->bw_max : f->xmin;
        gp_segment(sb, x0, f->roof[i].rate / 1e12, f->xmax, f->roof[i].rate / 1e12);
    }
    strbuf_addstr(sb, "EOD\n");

    strbuf_addstr(sb, "$PTS << EOD\n");
    for (size_t s = 0; s < n_series; s++) {
        for (size_t i = 0; i < series[s].n; i++) {
            const struct roof_point *p = &series[s].pts[i];
            if (!point_ok(p))
                continue;
            double w = p->weight > 0 && p->weight <= 1 ? p->weight : 0;
            gp_num(sb, p->ai_fpb); strbuf_addch(sb, ' ');
            gp_num(sb, p->rate_flops / 1e12); strbuf_addch(sb, ' ');
            gp_num(sb, 0.8 + 2.2 * sqrt(w));
            strbuf_addch(sb, '\n');
        }
        /* an empty series still needs its index block */
        strbuf_addstr(sb, "NaN NaN NaN\n\n\n");
    }
    strbuf_addstr(sb, "EOD\n");
}

static void roof_settings(struct strbuf *sb, const struct roof_frame *f, const char *title,
                          const char *note)
{
    strbuf_addstr(sb, "set title ");
    gp_quote(sb, title, 120);
    if (note && *note) {
        strbuf_addstr(sb, " . \"\\n\" . ");
        gp_quote(sb, note, 140);
    }
    strbuf_addstr(sb, "\nset logscale xy 10\n");
    strbuf_addf(sb, "set xrange [%g:%g]\nset yrange [%g:%g]\n", f->xmin, f->xmax,
                f->ymin / 1e12, f->ymax / 1e12);
    strbuf_addstr(sb,
        "set xlabel 'arithmetic intensity [FLOP/byte]'\n"
        "set ylabel 'attainable rate [TFLOP/s]'\n"
        "set format x '%g'\nset format y '%g'\n"
        "set mxtics 10\nset mytics 10\n"
        "set grid xtics ytics lc rgb '#d0d0d0' lw 1, lc rgb '#d0d0d0' lw 1\n"
        "set key outside right top vertical Left reverse noautotitle spacing 1.2 "
        "samplen 2.5 box lc rgb '#bbbbbb'\n"
        "set border lw 1.2\n"
        "set tics nomirror\n");
}

/* The plot items of the roofs: one per memory bandwidth (the last one
 * solid, the others dashed), one per compute ceiling, in the order of the
 * $ROOF blocks. */
static void plot_roofs(struct strbuf *sb, const struct machine *m, const struct roof_frame *f,
                         int *first)
{
    char buf[64];
    size_t idx = 0;
    size_t last_bw = m->n_mem;
    for (size_t i = 0; i < m->n_mem; i++)
        if (bw_ok(m->mem[i].bw_bs))
            last_bw = i;
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!bw_ok(bw))
            continue;
        struct strbuf lab = STRBUF_INIT;
        strbuf_addf(&lab, "%s %s", m->mem[i].name ? m->mem[i].name : "memory",
                    unit_format(bw, QTY_BW, buf, sizeof buf));
        strbuf_addf(sb, "%s$ROOF index %zu with lines lw 2.5 dt %d lc rgb '#333333' title ",
                    *first ? "" : ", \\\n     ", idx++, i == last_bw ? 1 : (int)(i % 3) + 2);
        gp_quote(sb, lab.buf, 60);
        strbuf_release(&lab);
        *first = 0;
    }
    for (size_t i = 0; i < f->n_ceil; i++) {
        struct strbuf lab = STRBUF_INIT;
        ceiling_label(&f->roof[i], &lab);
        strbuf_addf(sb, "%s$ROOF index %zu with lines lw 2.5 lc rgb '%s' title ",
                    *first ? "" : ", \\\n     ", idx++, roof_colors[i % N_ROOF_COLORS]);
        gp_quote(sb, lab.buf, 80);
        strbuf_release(&lab);
        *first = 0;
    }
}

static void roof_plot(struct strbuf *sb, const struct machine *m, const struct roof_frame *f,
                      const struct roof_series *series, size_t n_series)
{
    int first = 1;
    strbuf_addstr(sb, "plot ");
    plot_roofs(sb, m, f, &first);
    for (size_t s = 0; s < n_series; s++) {
        size_t good = 0;
        for (size_t i = 0; i < series[s].n; i++)
            good += point_ok(&series[s].pts[i]);
        if (!good)
            continue;
        strbuf_addf(sb, "%s$PTS index %zu using 1:2:3 with points pt %d ps variable "
                        "lc rgb '%s' title ",
                    first ? "" : ", \\\n     ", s, point_types[s % N_POINT_TYPES],
                    point_colors[s % N_POINT_COLORS]);
        gp_quote(sb, series[s].title, 48);
        first = 0;
    }
    if (first) {
        /* a machine file without peaks or bandwidths: still draw axes */
        strbuf_addstr(sb, "1/0 notitle");
    }
    strbuf_addch(sb, '\n');
}

void roofline_script(const struct machine *m, const char *title, const char *note,
                     const struct roof_series *series, size_t n_series,
                     struct strbuf *sb, size_t *skipped)
{
    struct roof_frame f;
    roof_frame_init(&f, m, series, n_series);
    roof_data(sb, m, &f, series, n_series);
    roof_settings(sb, &f, title, note);
    roof_plot(sb, m, &f, series, n_series);
    if (skipped)
        *skipped = f.n_skipped;
}
