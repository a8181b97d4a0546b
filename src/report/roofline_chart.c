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

void roofline_script(const struct machine *m, const char *title, const char *note,
                     const struct roof_series *series, size_t n_series,
                     struct strbuf *sb, size_t *skipped)
{
    struct ceiling roof[PREC_COUNT * EXEC_COUNT];
    size_t n_ceil = collect_ceilings(m, roof);
    size_t n_skipped = 0;
    char buf[64];

    double bw_max = 0, bw_min = 0, peak_max = 0;
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!(bw > 0) || !isfinite(bw))
            continue;
        if (bw > bw_max)
            bw_max = bw;
        if (bw_min == 0 || bw < bw_min)
            bw_min = bw;
    }
    for (size_t i = 0; i < n_ceil; i++)
        if (roof[i].rate > peak_max)
            peak_max = roof[i].rate;

    /* ranges: the classic 1/64 .. 4096 FLOP/byte window, widened to hold
     * every point and every ridge */
    double xmin = 1.0 / 64, xmax = 4096;
    double ymin = 0, ymax = peak_max > 0 ? peak_max * 3 : 0;
    for (size_t s = 0; s < n_series; s++) {
        for (size_t i = 0; i < series[s].n; i++) {
            const struct roof_point *p = &series[s].pts[i];
            if (!point_ok(p)) {
                n_skipped++;
                continue;
            }
            if (p->ai_fpb / 2 < xmin)
                xmin = p->ai_fpb / 2;
            if (p->ai_fpb * 2 > xmax)
                xmax = p->ai_fpb * 2;
            if (ymin == 0 || p->rate_flops / 3 < ymin)
                ymin = p->rate_flops / 3;
            if (p->rate_flops * 3 > ymax)
                ymax = p->rate_flops * 3;
        }
    }
    if (bw_max > 0 && peak_max / bw_max < xmin)
        xmin = peak_max / bw_max / 2;
    if (bw_min > 0 && (ymin == 0 || bw_min * xmin < ymin))
        ymin = bw_min * xmin;
    if (ymin == 0 || ymin >= ymax) {
        ymin = ymax > 0 ? ymax / 1e4 : 1e9;
        if (ymax <= ymin)
            ymax = ymin * 1e4;
    }
    /* decades keep the tick labels at round numbers */
    xmin = pow(10, floor(log10(xmin)));
    xmax = pow(10, ceil(log10(xmax)));
    ymin = pow(10, floor(log10(ymin)));
    ymax = pow(10, ceil(log10(ymax)));

    /* roofs as data: two points per line, one index block per line */
    strbuf_addstr(sb, "$ROOF << EOD\n");
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!(bw > 0) || !isfinite(bw))
            continue;
        double top = peak_max > 0 ? peak_max : ymax;
        gp_num(sb, xmin); strbuf_addch(sb, ' '); gp_num(sb, bw * xmin / 1e12);
        strbuf_addch(sb, '\n');
        gp_num(sb, top / bw); strbuf_addch(sb, ' '); gp_num(sb, top / 1e12);
        strbuf_addstr(sb, "\n\n\n");
    }
    for (size_t i = 0; i < n_ceil; i++) {
        double x0 = bw_max > 0 ? roof[i].rate / bw_max : xmin;
        gp_num(sb, x0); strbuf_addch(sb, ' '); gp_num(sb, roof[i].rate / 1e12);
        strbuf_addch(sb, '\n');
        gp_num(sb, xmax); strbuf_addch(sb, ' '); gp_num(sb, roof[i].rate / 1e12);
        strbuf_addstr(sb, "\n\n\n");
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

    strbuf_addstr(sb, "set title ");
    gp_quote(sb, title, 120);
    if (note && *note) {
        strbuf_addstr(sb, " . \"\\n\" . ");
        gp_quote(sb, note, 140);
    }
    strbuf_addstr(sb, "\nset logscale xy 10\n");
    strbuf_addf(sb, "set xrange [%g:%g]\nset yrange [%g:%g]\n", xmin, xmax, ymin / 1e12, ymax / 1e12);
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

    strbuf_addstr(sb, "plot ");
    int first = 1;
    size_t idx = 0;
    size_t last_bw = m->n_mem;
    for (size_t i = 0; i < m->n_mem; i++)
        if (m->mem[i].bw_bs > 0 && isfinite(m->mem[i].bw_bs))
            last_bw = i;
    for (size_t i = 0; i < m->n_mem; i++) {
        double bw = m->mem[i].bw_bs;
        if (!(bw > 0) || !isfinite(bw))
            continue;
        struct strbuf lab = STRBUF_INIT;
        strbuf_addf(&lab, "%s %s", m->mem[i].name ? m->mem[i].name : "memory",
                    unit_format(bw, QTY_BW, buf, sizeof buf));
        strbuf_addf(sb, "%s$ROOF index %zu with lines lw 2.5 dt %d lc rgb '#333333' title ",
                    first ? "" : ", \\\n     ", idx++, i == last_bw ? 1 : (int)(i % 3) + 2);
        gp_quote(sb, lab.buf, 60);
        strbuf_release(&lab);
        first = 0;
    }
    for (size_t i = 0; i < n_ceil; i++) {
        struct strbuf lab = STRBUF_INIT;
        ceiling_label(&roof[i], &lab);
        strbuf_addf(sb, "%s$ROOF index %zu with lines lw 2.5 lc rgb '%s' title ",
                    first ? "" : ", \\\n     ", idx++, roof_colors[i % N_ROOF_COLORS]);
        gp_quote(sb, lab.buf, 80);
        strbuf_release(&lab);
        first = 0;
    }
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

    if (skipped)
        *skipped = n_skipped;
}
