#include "report/machine_chart.h"

#include <math.h>
#include <string.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "model/machine.h"
#include "report/gnuplot.h"

static const char *const colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F7F7F", "#000000",
};
#define N_COLORS (sizeof colors / sizeof colors[0])

static double best_peak(const struct machine *m, int p)
{
    double a = m->peak_flops[p][EXEC_MATRIX], b = m->peak_flops[p][EXEC_VECTOR];
    return a > b ? a : b;
}

void machine_compare_script(const struct machine *m, size_t n, struct strbuf *sb)
{
    int used[PREC_COUNT] = { 0 };
    int n_used = 0;
    double pmin = INFINITY, pmax = 0, bwmax = 0;
    for (int p = 0; p < PREC_COUNT; p++) {
        for (size_t i = 0; i < n; i++) {
            double v = best_peak(&m[i], p);
            if (v > 0 && isfinite(v)) {
                used[p] = 1;
                if (v < pmin)
                    pmin = v;
                if (v > pmax)
                    pmax = v;
            }
        }
        n_used += used[p];
    }
    for (size_t i = 0; i < n; i++)
        if (machine_mem_bw(&m[i]) > bwmax)
            bwmax = machine_mem_bw(&m[i]);
    double w = 0.8 / (double)(n ? n : 1);

    strbuf_addstr(sb, "$P << EOD\n");
    for (size_t i = 0; i < n; i++) {
        int g = 0;
        for (int p = 0; p < PREC_COUNT; p++) {
            if (!used[p])
                continue;
            double v = best_peak(&m[i], p);
            gp_num(sb, g - 0.4 + w * ((double)i + 0.5));
            strbuf_addch(sb, ' ');
            gp_num(sb, v > 0 ? v / 1e12 : NAN);
            strbuf_addch(sb, '\n');
            g++;
        }
        strbuf_addstr(sb, "\n\n");
    }
    strbuf_addstr(sb, "EOD\n$B << EOD\n");
    for (size_t i = 0; i < n; i++) {
        double bw = machine_mem_bw(&m[i]);
        gp_num(sb, (double)i);
        strbuf_addch(sb, ' ');
        gp_num(sb, bw > 0 ? bw / 1e12 : NAN);
        strbuf_addstr(sb, "\n\n\n");
    }
    strbuf_addstr(sb, "EOD\n");

    strbuf_addstr(sb, "set multiplot layout 1,2 columns\n"
                      "set border 3 lw 1.2\nset tics nomirror\n"
                      "set grid ytics lc rgb '#dddddd'\n"
                      "set key outside bottom center horizontal noautotitle samplen 1.5 "
                      "box lc rgb '#bbbbbb'\n");
    /* left panel: peaks */
    strbuf_addstr(sb, "set size 0.68,1\nset origin 0,0\n"
                      "set title 'Peak rate per device (best of matrix and vector units)'\n"
                      "set ylabel 'peak [TFLOP/s] (int8: TOP/s), log scale'\n"
                      "set logscale y\nset format y '%g'\n");
    if (pmax > 0)
        strbuf_addf(sb, "set yrange [%g:%g]\n", pow(10, floor(log10(pmin / 1e12 / 2))),
                    pow(10, ceil(log10(pmax / 1e12 * 2))));
    strbuf_addf(sb, "set xrange [-0.6:%g]\n", n_used - 0.4);
    strbuf_addstr(sb, "set xtics (");
    int g = 0;
    for (int p = 0; p < PREC_COUNT; p++) {
        if (!used[p])
            continue;
        strbuf_addf(sb, "%s'%s' %d", g ? ", " : "", precision_name((enum precision)p), g);
        g++;
    }
    strbuf_addstr(sb, ") scale 0\n");
    strbuf_addf(sb, "set boxwidth %g absolute\n", w * 0.92);
    strbuf_addstr(sb, "plot ");
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(sb, "%s$P index %zu using 1:2 with boxes fs solid 0.8 noborder lc rgb '%s' "
                        "title ", i ? ", \\\n  " : "", i, colors[i % N_COLORS]);
        gp_quote(sb, m[i].name ? m[i].name : m[i].id, 36);
    }
    if (!n)
        strbuf_addstr(sb, "1/0 notitle");
    strbuf_addch(sb, '\n');
    /* right panel: bandwidth */
    strbuf_addstr(sb, "set size 0.32,1\nset origin 0.68,0\n"
                      "set title 'Main-memory bandwidth per device'\n"
                      "set ylabel 'bandwidth [TB/s]'\nunset logscale y\n"
                      "set format y '%g'\nunset key\n");
    strbuf_addf(sb, "set yrange [0:%g]\n", bwmax > 0 ? bwmax / 1e12 * 1.25 : 1);
    strbuf_addf(sb, "set xrange [-0.6:%g]\nset xtics () scale 0\nunset xtics\n", (double)n - 0.4);
    strbuf_addstr(sb, "set boxwidth 0.7 absolute\nplot ");
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(sb, "%s$B index %zu using 1:2 with boxes fs solid 0.8 noborder lc rgb '%s' "
                        "notitle, $B index %zu using 1:2:(sprintf('%%.3g', $2)) with labels "
                        "offset 0,0.8 font ',9' notitle",
                    i ? ", \\\n  " : "", i, colors[i % N_COLORS], i);
    }
    if (!n)
        strbuf_addstr(sb, "1/0 notitle");
    strbuf_addstr(sb, "\nunset multiplot\n");
}

int machine_compare_chart(const struct machine *m, size_t n, const char *out_path,
                          struct diag *d)
{
    int rc = 0;
    struct strbuf sb = STRBUF_INIT;
    if (gp_term_from_path(out_path) < 0) {
        rc = diag_usage(d, "found chart '%s', expected a file name ending in .svg or .png",
                        out_path);
        goto out;
    }
    machine_compare_script(m, n, &sb);
    rc = gnuplot_write(out_path, sb.buf, 1100, 560, d);
    if (rc == GP_NOT_FOUND)
        rc = diag_syserr(d, "gnuplot not found: install the Debian package gnuplot-nox to "
                            "draw charts");
out:
    strbuf_release(&sb);
    return rc;
}
