#include "report/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "report/gnuplot.h"
#include "report/report.h"

static const char *const sys_colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F7F7F", "#000000",
};
#define N_SYS_COLORS (sizeof sys_colors / sizeof sys_colors[0])

/* System s's colour in every chart of a report: the Okabe-Ito set (readable
 * by most colour-blind readers) for the first eight, then hues a golden
 * angle (137.5 degrees) apart at fixed saturation and value, so no two
 * systems share a colour however many a study compares. */
static const char *sys_color(size_t s, char buf[8])
{
    if (s < N_SYS_COLORS)
        return sys_colors[s];
    double h = fmod((double)(s - N_SYS_COLORS) * 137.50776405, 360.0) / 60.0;
    double v = 0.75, c = v * 0.65, x = c * (1 - fabs(fmod(h, 2.0) - 1)), m = v - c;
    double rgb[6][3] = { { c, x, 0 }, { x, c, 0 }, { 0, c, x }, { 0, x, c }, { x, 0, c }, { c, 0, x } };
    int k = (int)h % 6;
    snprintf(buf, 8, "#%02X%02X%02X", (unsigned)lround((rgb[k][0] + m) * 255),
             (unsigned)lround((rgb[k][1] + m) * 255), (unsigned)lround((rgb[k][2] + m) * 255));
    return buf;
}
static const char *const kind_colors[OP_KIND_COUNT] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
    "#8C564B", "#BCBD22", "#7F7F7F", "#17BECF", "#9467BD", "#C7C7C7",
};

/* xtics from user names: quoted, with the labels turned when crowded */
static void xtics(struct strbuf *sb, const char *const *names, size_t n)
{
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) > longest)
            longest = strlen(names[i]);
    /* about 7 px per character in a ~900 px plot area */
    if (n && longest * 7 * n > 820)
        strbuf_addstr(sb, "set xtics rotate by -35 left\n");
    strbuf_addstr(sb, "set xtics (");
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_addstr(sb, ", ");
        gp_quote(sb, names[i], 32);
        strbuf_addf(sb, " %zu", i);
    }
    strbuf_addstr(sb, ") nomirror scale 0\n");
}

/* Interval whiskers of data block index idx (columns x y lo hi has):
 * drawn as line segments, since gnuplot's error-bar styles put a marker
 * on the bar top that reads as a data point. */
static void whiskers(struct strbuf *sb, size_t idx, double cap)
{
    strbuf_addf(sb, ", \\\n  $D index %zu using 1:($5 > 0 ? $3 : NaN):(0):($4 - $3) with vectors "
                    "nohead lw 1.5 lc rgb '#222222' notitle", idx);
    for (int col = 3; col <= 4; col++)
        strbuf_addf(sb, ", \\\n  $D index %zu using ($1 - %g):($5 > 0 ? $%d : NaN):(%g):(0) "
                        "with vectors nohead lw 1.5 lc rgb '#222222' notitle",
                    idx, cap, col, 2 * cap);
}

static void common(struct strbuf *sb)
{
    strbuf_addstr(sb, "set border 3 lw 1.2\nset tics nomirror\n"
                      "set grid ytics lc rgb '#dddddd'\n"
                      "set key outside bottom center horizontal noautotitle samplen 1.5 "
                      "box lc rgb '#bbbbbb' opaque\n");
}

static void title(struct strbuf *sb, const char *literal, const char *user)
{
    strbuf_addstr(sb, "set title ");
    if (user) {
        strbuf_addf(sb, "'%s' . ", literal);
        gp_quote(sb, user, 60);
    } else {
        gp_quote(sb, literal, 0);
    }
    strbuf_addch(sb, '\n');
}

int chart_ratios(const struct report *r, struct strbuf *sb)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, np = ev->n_problems, base = st->baseline;
    if (ns < 2)
        return -1;
    size_t ng = np + 3, nbars = ns - 1;
    double w = 0.8 / (double)nbars;
    double ymax = 0, ymin = INFINITY;

    strbuf_addstr(sb, "$D << EOD\n");
    size_t k = 0;
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        for (size_t g = 0; g < ng; g++) {
            double x = (double)g - 0.4 + w * ((double)k + 0.5);
            double y, lo = NAN, hi = NAN;
            if (g < np) {
                y = ev->fom.ratio[g * ns + s];
                report_ratio_interval(r, g, s, &lo, &hi);
            } else if (g == np) {
                y = ev->fom.fom[s];
                if (ev->fom_lo && isfinite(ev->fom_lo[s])) {
                    lo = ev->fom_lo[s];
                    hi = ev->fom_hi[s];
                }
            } else if (g == np + 1) {
                y = ev->fom.mean_ratio_arith[s];
            } else {
                y = ev->fom.mean_ratio_harm[s];
            }
            gp_num(sb, x); strbuf_addch(sb, ' ');
            gp_num(sb, y); strbuf_addch(sb, ' ');
            gp_num(sb, isfinite(lo) ? lo : y); strbuf_addch(sb, ' ');
            gp_num(sb, isfinite(hi) ? hi : y); strbuf_addch(sb, ' ');
            strbuf_addf(sb, "%d\n", isfinite(lo) ? 1 : 0);
            double top = isfinite(hi) && hi > y ? hi : y;
            if (isfinite(top) && top > ymax)
                ymax = top;
            double bot = isfinite(lo) && lo < y ? lo : y;
            if (isfinite(bot) && bot > 0 && bot < ymin)
                ymin = bot;
        }
        strbuf_addstr(sb, "\n\n");
        k++;
    }
    strbuf_addstr(sb, "EOD\n");

    title(sb, "Ratio to the base case ", st->systems[base].id);
    common(sb);
    /* a log axis for a wide spread, and for ratios far from 1 either way:
     * on a linear axis from 0 a ratio of 1e-300 leaves nothing to draw */
    int logy = ymin > 0 && isfinite(ymin) && (ymax / ymin > 30 || ymin < 1e-3 || ymax > 1e3);
    if (logy)
        strbuf_addf(sb, "set logscale y\nset yrange [%g:%g]\n",
                    pow(10, floor(log10(ymin / 1.5))), pow(10, ceil(log10(ymax * 3))));
    else
        strbuf_addf(sb, "set yrange [0:%g]\n", ymax > 0 ? ymax * 1.3 : 1);
    strbuf_addf(sb, "set ylabel 'ratio to base case [x] (rate / base rate%s)'\n",
                logy ? ", log scale" : "");
    strbuf_addf(sb, "set xrange [-0.6:%g]\n", (double)ng - 0.4);
    const char *names[ng];
    for (size_t p = 0; p < np; p++)
        names[p] = st->problems[p].id;
    names[np] = "FOM";
    names[np + 1] = "mean (arith.)";
    names[np + 2] = "mean (harm.)";
    xtics(sb, names, ng);
    /* a rule between problems and summaries */
    strbuf_addf(sb, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#888888'\n",
                (double)np - 0.5, (double)np - 0.5);
    strbuf_addf(sb, "set boxwidth %g absolute\n", w * 0.92);
    strbuf_addstr(sb, "plot ");
    k = 0;
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        char cb[8];
        const char *c = sys_color(s, cb);    /* one colour per system everywhere */
        strbuf_addf(sb, "%s$D index %zu using 1:2 with boxes fs solid 0.8 noborder lc rgb '%s' title ",
                    k ? ", \\\n  " : "", k, c);
        gp_quote(sb, st->systems[s].id, 40);
        whiskers(sb, k, w * 0.2);
        /* on a log axis the labels keep three digits of any magnitude */
        strbuf_addf(sb, ", \\\n  $D index %zu using 1:4:(sprintf('%s', $2)) with labels "
                        "offset 0,0.7 font ',9' notitle", k, logy ? "%.3g" : "%.2f");
        k++;
    }
    strbuf_addch(sb, '\n');
    return 0;
}

int chart_units_per_day(const struct report *r, struct strbuf *sb)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, np = ev->n_problems;
    double w = 0.8 / (double)ns;
    double ymax = 0, ymin = INFINITY;

    strbuf_addstr(sb, "$D << EOD\n");
    for (size_t s = 0; s < ns; s++) {
        for (size_t p = 0; p < np; p++) {
            double x = (double)p - 0.4 + w * ((double)s + 0.5);
            double y = ev->fom.units_per_day[p * ns + s];
            double hlo, hhi, lo = NAN, hi = NAN;
            if (report_hours_interval(r, p, s, &hlo, &hhi) == 0 && hlo > 0 && hhi > 0) {
                lo = 24.0 / hhi * ev->nodes[s];
                hi = 24.0 / hlo * ev->nodes[s];
            }
            gp_num(sb, x); strbuf_addch(sb, ' ');
            gp_num(sb, y); strbuf_addch(sb, ' ');
            gp_num(sb, isfinite(lo) ? lo : y); strbuf_addch(sb, ' ');
            gp_num(sb, isfinite(hi) ? hi : y);
            strbuf_addf(sb, " %d\n", isfinite(lo) ? 1 : 0);
            if (isfinite(y) && y > 0) {
                double top = isfinite(hi) ? hi : y, bot = isfinite(lo) ? lo : y;
                if (top > ymax)
                    ymax = top;
                if (bot < ymin)
                    ymin = bot;
            }
        }
        strbuf_addstr(sb, "\n\n");
    }
    strbuf_addstr(sb, "EOD\n");
    title(sb, "Units of work per day, whole system", NULL);
    common(sb);
    if (!(ymax > 0)) {
        ymax = 10;
        ymin = 1;
    }
    /* bars on a log axis need a floor below the smallest bar */
    double floor_y = pow(10, floor(log10(ymin / 3)));
    strbuf_addf(sb, "set logscale y\nset yrange [%g:%g]\n", floor_y, pow(10, ceil(log10(ymax * 8))));
    /* every decade labelled as itself, the floor too: '%.0f' printed a
     * floor of 0.1 as "0" */
    strbuf_addstr(sb, ymax < 1e10 ? "set format y '%.10g'\n" : "set format y '%.0e'\n");
    strbuf_addstr(sb, "set ylabel 'units of work per day [1/day]  (log scale)'\n");
    strbuf_addf(sb, "set xrange [-0.6:%g]\n", (double)np - 0.4);
    const char *names[np ? np : 1];
    for (size_t p = 0; p < np; p++)
        names[p] = st->problems[p].id;
    xtics(sb, names, np);
    strbuf_addf(sb, "set boxwidth %g absolute\n", w * 0.92);
    strbuf_addstr(sb, "plot ");
    for (size_t s = 0; s < ns; s++) {
        char cb[8];
        strbuf_addf(sb, "%s$D index %zu using 1:($2 > 0 ? $2 : NaN):(%g) with boxes fs solid 0.8 "
                        "noborder lc rgb '%s' title ",
                    s ? ", \\\n  " : "", s, w * 0.92, sys_color(s, cb));
        gp_quote(sb, st->systems[s].id, 40);
        whiskers(sb, s, w * 0.2);
    }
    strbuf_addch(sb, '\n');
    /* boxes on a log axis start at the bottom of the range */
    return 0;
}

int chart_breakdown(const struct report *r, size_t p, struct strbuf *sb)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems;
    size_t cols[ns ? ns : 1];
    size_t nc = 0;
    for (size_t s = 0; s < ns; s++)
        if (r->cells && r->cells[p * ns + s].estimated && r->cells[p * ns + s].n_kinds)
            cols[nc++] = s;
    if (!nc)
        return -1;

    /* kinds present anywhere, in a fixed order so colours agree across charts */
    int present[OP_KIND_COUNT] = { 0 };
    for (size_t c = 0; c < nc; c++) {
        const struct report_cell *cell = &r->cells[p * ns + cols[c]];
        for (size_t k = 0; k < cell->n_kinds; k++) {
            enum op_kind kk = op_kind_parse(cell->kinds[k].name);
            if (kk < OP_KIND_COUNT && cell->kinds[k].time_s > 0)
                present[kk] = 1;
        }
    }
    double ymax = 0;
    strbuf_addstr(sb, "$D << EOD\n");
    double cum[ns ? ns : 1];
    for (size_t c = 0; c < nc; c++)
        cum[c] = 0;
    for (int kk = 0; kk < OP_KIND_COUNT; kk++) {
        if (!present[kk])
            continue;
        for (size_t c = 0; c < nc; c++) {
            const struct report_cell *cell = &r->cells[p * ns + cols[c]];
            double t = 0;
            for (size_t k = 0; k < cell->n_kinds; k++)
                if (op_kind_parse(cell->kinds[k].name) == (enum op_kind)kk)
                    t += cell->kinds[k].time_s;
            double lo = cum[c], hi = cum[c] + t * 1e3;
            cum[c] = hi;
            strbuf_addf(sb, "%zu ", c);
            gp_num(sb, (lo + hi) / 2); strbuf_addch(sb, ' ');
            gp_num(sb, lo); strbuf_addch(sb, ' ');
            gp_num(sb, hi); strbuf_addch(sb, '\n');
        }
        strbuf_addstr(sb, "\n\n");
    }
    strbuf_addstr(sb, "EOD\n$T << EOD\n");
    for (size_t c = 0; c < nc; c++) {
        const struct report_cell *cell = &r->cells[p * ns + cols[c]];
        strbuf_addf(sb, "%zu ", c);
        gp_num(sb, cum[c]); strbuf_addch(sb, ' ');
        gp_num(sb, cell->pass_s * 1e3); strbuf_addch(sb, '\n');
        if (cum[c] > ymax)
            ymax = cum[c];
        if (cell->pass_s * 1e3 > ymax)
            ymax = cell->pass_s * 1e3;
    }
    strbuf_addstr(sb, "EOD\n");

    title(sb, "Estimated time of one training pass by op kind: ", st->problems[p].id);
    common(sb);
    strbuf_addstr(sb, "set key outside right top vertical\n");
    strbuf_addf(sb, "set yrange [0:%g]\n", ymax > 0 ? ymax * 1.15 : 1);
    strbuf_addstr(sb, "set ylabel 'time per pass [ms]'\nset bmargin 4.5\n");
    strbuf_addf(sb, "set xrange [-0.6:%g]\n", (double)nc - 0.1);
    const char *names[nc];
    for (size_t c = 0; c < nc; c++)
        names[c] = st->systems[cols[c]].id;
    xtics(sb, names, nc);
    strbuf_addstr(sb, "plot ");
    size_t idx = 0;
    for (int kk = 0; kk < OP_KIND_COUNT; kk++) {
        if (!present[kk])
            continue;
        strbuf_addf(sb, "%s$D index %zu using 1:2:($1-0.3):($1+0.3):3:4 with boxxyerror "
                        "fs solid 0.85 noborder lc rgb '%s' title '%s'",
                    idx ? ", \\\n  " : "", idx, kind_colors[kk], op_kind_name((enum op_kind)kk));
        idx++;
    }
    /* the sum of the ops goes under the bar, where no line can cross it */
    strbuf_addstr(sb, ", \\\n  $T using 1:(0):(sprintf('ops %.3g ms', $2)) with labels offset 0,-2.1 "
                      "font ',9' notitle");
    strbuf_addstr(sb, ", \\\n  $T using ($1-0.36):3:(0.72):(0) with vectors nohead dt 2 lw 1.5 "
                      "lc rgb '#000000' title 'pass time'");
    strbuf_addstr(sb, ", \\\n  $T using ($1+0.36):3:(sprintf('pass %.3g ms', $3)) with labels left "
                      "offset 0.5,0 font ',9' notitle\n");
    return 0;
}

/* FOM, FOM per watt and FOM per dollar side by side, each as a ratio to
 * the base case; a figure whose inputs are missing has no bar. */
int chart_economics(const struct report *r, struct strbuf *sb)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, base = st->baseline;
    if (ns < 2 || !(ev->has_power || ev->has_price))
        return -1;
    size_t nbars = ns - 1, k = 0;
    double w = 0.8 / (double)nbars, ymax = 0;
    strbuf_addstr(sb, "$D << EOD\n");
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        const double v[3] = { ev->fom.fom[s], ev->econ.fom_per_watt[s], ev->econ.fom_per_dollar[s] };
        for (size_t g = 0; g < 3; g++) {
            gp_num(sb, (double)g - 0.4 + w * ((double)k + 0.5));
            strbuf_addch(sb, ' ');
            gp_num(sb, isfinite(v[g]) ? v[g] : NAN);
            strbuf_addch(sb, '\n');
            if (isfinite(v[g]) && v[g] > ymax)
                ymax = v[g];
        }
        strbuf_addstr(sb, "\n\n");
        k++;
    }
    strbuf_addstr(sb, "EOD\n");
    title(sb, "FOM, FOM per watt and FOM per dollar against ", st->systems[base].id);
    common(sb);
    strbuf_addf(sb, "set yrange [0:%g]\n", ymax > 0 ? ymax * 1.3 : 1);
    strbuf_addstr(sb, "set ylabel 'ratio to base case [x]'\n");
    strbuf_addstr(sb, "set xrange [-0.6:2.6]\n");
    const char *names[3] = { "FOM", "FOM per MW", "FOM per $" };
    xtics(sb, names, 3);
    strbuf_addf(sb, "set boxwidth %g absolute\n", w * 0.92);
    strbuf_addstr(sb, "plot ");
    k = 0;
    for (size_t s = 0; s < ns; s++) {
        if (s == base)
            continue;
        char cb[8];
        strbuf_addf(sb, "%s$D index %zu using 1:2 with boxes fs solid 0.8 noborder lc rgb '%s' "
                        "title ", k ? ", \\\n  " : "", k, sys_color(s, cb));
        gp_quote(sb, st->systems[s].id, 40);
        strbuf_addf(sb, ", \\\n  $D index %zu using 1:2:(sprintf('%%.3f', $2)) with labels "
                        "offset 0,0.7 font ',9' notitle", k);
        k++;
    }
    strbuf_addch(sb, '\n');
    return 0;
}

/* Strong scaling of problem p: one run's units of work per day against
 * its devices (log-log), a solid line per system with a curve and a
 * dashed line of the same colour for its ideal (the narrowest width's
 * rate times the width ratio); weak scaling on the right axis: the whole
 * system's units per day with as many runs of each width side by side as
 * it holds (dotted).  1 when no system has a curve. */
int chart_scaling(const struct report *r, size_t p, struct strbuf *sb)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, shown = 0;
    if (!ev->scaling)
        return 1;
    strbuf_addstr(sb, "$D << EOD\n");
    for (size_t s = 0; s < ns; s++) {
        const struct scaling_point *pt = ev->scaling[p * ns + s];
        for (size_t k = 0; pt && k < ev->n_scaling[p * ns + s]; k++) {
            gp_num(sb, (double)pt[k].devices_per_run); strbuf_addch(sb, ' ');
            gp_num(sb, pt[k].run_units_per_day); strbuf_addch(sb, ' ');
            gp_num(sb, pt[k].ideal_units_per_day); strbuf_addch(sb, ' ');
            gp_num(sb, pt[k].units_per_day); strbuf_addch(sb, '\n');
        }
        if (pt)
            shown++;
        strbuf_addstr(sb, pt ? "\n\n" : "0 NaN NaN NaN\n\n\n");
    }
    strbuf_addstr(sb, "EOD\n");
    if (!shown)
        return 1;
    title(sb, "Strong and weak scaling of ", st->problems[p].id);
    common(sb);
    strbuf_addstr(sb, "set key outside bottom center horizontal maxrows 3\nset bmargin 8\n");
    strbuf_addstr(sb, "set logscale xy 2\nset format y '%.3g'\n"
                      "set xlabel 'devices per run (log scale)'\n"
                      "set ylabel 'units of work per day, one run (log scale)'\n"
                      "set logscale y2 2\nset format y2 '%.3g'\nset y2tics\n"
                      "set y2label 'units of work per day, whole system (log scale)'\n"
                      "set grid xtics ytics lc rgb '#dddddd'\n");
    strbuf_addstr(sb, "plot ");
    for (size_t s = 0, first = 1; s < ns; s++) {
        if (!ev->scaling[p * ns + s])
            continue;
        char cb[8];
        const char *c = sys_color(s, cb);
        strbuf_addf(sb, "%s$D index %zu using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title ",
                    first ? "" : ", \\\n  ", s, c);
        gp_quote(sb, st->systems[s].id, 40);
        strbuf_addf(sb, ", \\\n  $D index %zu using 1:3 with lines lw 1.5 dt 2 lc rgb '%s' title ",
                    s, c);
        struct strbuf t = STRBUF_INIT;
        strbuf_addf(&t, "%s ideal", st->systems[s].id);
        gp_quote(sb, t.buf, 48);
        /* weak scaling: the runs of that width the system holds side by side */
        strbuf_addf(sb, ", \\\n  $D index %zu using 1:4 axes x1y2 with linespoints lw 1 dt 3 pt 6 "
                        "lc rgb '%s' title ", s, c);
        strbuf_reset(&t);
        strbuf_addf(&t, "%s system, runs side by side (right axis)", st->systems[s].id);
        gp_quote(sb, t.buf, 80);
        strbuf_release(&t);
        first = 0;
    }
    strbuf_addch(sb, '\n');
    return 0;
}
