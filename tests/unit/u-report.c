#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "model/machine.h"
#include "report/gnuplot.h"
#include "report/report.h"
#include "report/report_charts.h"
#include "report/roofline_chart.h"

static void test_gp_quote(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    gp_quote(&sb, "a'b\nc\"d", 0);
    assert_string_equal(sb.buf, "'a''b c\"d'");
    strbuf_reset(&sb);
    /* \xc3\xa9 is one character: a cut at 3 bytes keeps only the first */
    gp_quote(&sb, "\xc3\xa9\xc3\xa9\xc3\xa9", 3);
    assert_string_equal(sb.buf, "'\xc3\xa9...'");
    strbuf_reset(&sb);
    gp_quote(&sb, NULL, 0);
    assert_string_equal(sb.buf, "''");
    strbuf_reset(&sb);
    gp_quote(&sb, "'a'", 0);
    assert_string_equal(sb.buf, "\"'\" . 'a'''");
    strbuf_reset(&sb);
    gp_num(&sb, NAN);
    strbuf_addch(&sb, ' ');
    gp_num(&sb, 0.1);
    assert_string_equal(sb.buf, "NaN 0.1");
    strbuf_release(&sb);
    assert_int_equal(gp_term_from_path("a/b.SVG"), GP_SVG);
    assert_int_equal(gp_term_from_path("x.png"), GP_PNG);
    assert_int_equal(gp_term_from_path("x.pdf"), -1);
    assert_int_equal(gp_term_from_path("png"), -1);
}

static void test_escapes(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    html_escape(&sb, "<script>\"a\" & 'b'\x01");
    assert_string_equal(sb.buf, "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39; ");
    strbuf_reset(&sb);
    md_escape(&sb, "`x` *y* | _z_ <b> [l](u)");
    assert_string_equal(sb.buf, "\\`x\\` \\*y\\* \\| \\_z\\_ &lt;b&gt; \\[l\\]\\(u\\)");
    strbuf_release(&sb);
}

static void h100ish(struct machine *m, struct mem_level *mem)
{
    memset(m, 0, sizeof *m);
    m->name = "M";
    m->peak_flops[PREC_FP32][EXEC_VECTOR] = 50e12;
    m->peak_flops[PREC_BF16][EXEC_MATRIX] = 800e12;
    m->peak_flops[PREC_FP16][EXEC_MATRIX] = 800e12;
    m->peak_flops[PREC_INT8][EXEC_MATRIX] = 1600e12;
    mem[0].name = "L2";
    mem[0].bw_bs = 0;       /* unknown: no line */
    mem[1].name = "HBM";
    mem[1].bw_bs = 2e12;
    m->mem = mem;
    m->n_mem = 2;
}

static void test_roofline_script(void **state)
{
    (void)state;
    struct machine m;
    struct mem_level mem[2];
    h100ish(&m, mem);
    struct roof_point pts[] = { { 10, 5e12, 0.5 }, { 0, 1e12, 0.1 }, { 1, NAN, 0 } };
    struct roof_series ser = { "it's", pts, 3 };
    struct strbuf sb = STRBUF_INIT;
    size_t skipped = 99;
    roofline_script(&m, "T", NULL, &ser, 1, &sb, &skipped);
    assert_int_equal(skipped, 2);
    /* equal peaks share one ceiling; int8 counts operations */
    assert_non_null(strstr(sb.buf, "title 'bf16, fp16 matrix 800 TFLOP/s'"));
    assert_null(strstr(sb.buf, "'fp16 matrix 800"));
    assert_non_null(strstr(sb.buf, "title 'int8 matrix 1.6 POP/s'"));
    assert_non_null(strstr(sb.buf, "title 'HBM 2 TB/s'"));
    assert_null(strstr(sb.buf, "'L2"));
    /* the bf16 ceiling starts at its ridge point 800e12 / 2e12 = 400 FLOP/byte */
    assert_non_null(strstr(sb.buf, "\n400 800\n"));
    /* the memory line ends at the highest peak: 1600e12 / 2e12 = 800 */
    assert_non_null(strstr(sb.buf, "\n800 1600\n"));
    /* the point: x 10, 5 TFLOP/s, marker 0.8 + 2.2 sqrt(0.5) */
    char want[64];
    snprintf(want, sizeof want, "\n10 5 %.9g\n", 0.8 + 2.2 * sqrt(0.5));
    assert_non_null(strstr(sb.buf, want));
    assert_non_null(strstr(sb.buf, "title 'it''s'"));
    assert_non_null(strstr(sb.buf, "set xlabel 'arithmetic intensity [FLOP/byte]'"));
    assert_non_null(strstr(sb.buf, "set ylabel 'attainable rate [TFLOP/s]'"));
    strbuf_release(&sb);
}

/* Two systems, one problem: base 10 h on 100 nodes, other 2 h on 50. */
struct fixture {
    struct study st;
    struct study_system sys[2];
    struct study_problem prob[1];
    struct study_eval ev;
    double nodes[2], weights[1], hours[2], upd[2], ratio[2], hr[2], fom[2], ma[2], mh[2];
    size_t repeats[2];
    struct median_ci ci[2];
    double lo[2], hi[2];
    struct report r;
};

static void fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    f->sys[0].id = "base";
    f->sys[0].nodes = 100;
    f->sys[1].id = "<b>new</b>";
    f->sys[1].nodes = 50;
    f->prob[0].id = "P";
    f->st.path = "s.xml";
    f->st.name = "S";
    f->st.systems = f->sys;
    f->st.n_systems = 2;
    f->st.problems = f->prob;
    f->st.n_problems = 1;
    f->nodes[0] = 100; f->nodes[1] = 50;
    f->weights[0] = 1;
    f->hours[0] = 10; f->hours[1] = 2;
    f->upd[0] = 240; f->upd[1] = 600;
    f->ratio[0] = 1; f->ratio[1] = 2.5;
    f->hr[0] = 240; f->hr[1] = 600;
    f->fom[0] = 1; f->fom[1] = 2.5;
    f->ma[0] = 1; f->ma[1] = 2.5;
    f->mh[0] = 1; f->mh[1] = 2.5;
    f->repeats[0] = 6; f->repeats[1] = 1;
    f->ci[0].available = 1; f->ci[0].lo = 8; f->ci[0].hi = 12;
    f->lo[0] = f->hi[0] = f->lo[1] = f->hi[1] = NAN;
    struct study_eval *ev = &f->ev;
    ev->n_systems = 2;
    ev->n_problems = 1;
    ev->nodes = f->nodes;
    ev->weights = f->weights;
    ev->hours = f->hours;
    ev->repeats = f->repeats;
    ev->hours_ci = f->ci;
    ev->fom.n_systems = 2;
    ev->fom.n_problems = 1;
    ev->fom.units_per_day = f->upd;
    ev->fom.ratio = f->ratio;
    ev->fom.harmonic_rate = f->hr;
    ev->fom.fom = f->fom;
    ev->fom.mean_ratio_arith = f->ma;
    ev->fom.mean_ratio_harm = f->mh;
    ev->fom_lo = f->lo;
    ev->fom_hi = f->hi;
    ev->ci_level = 0.95;
    f->r.st = &f->st;
    f->r.ev = &f->ev;
    f->r.fom_version = "test";
}

static void test_ratio_interval(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    double lo, hi;
    /* base hours 8..12, other fixed at 2 h; nodes 50/100:
     * 8/2 x 0.5 = 2 .. 12/2 x 0.5 = 3 */
    assert_int_equal(report_ratio_interval(&f.r, 0, 1, &lo, &hi), 0);
    assert_close(lo, 2.0, 1e-15);
    assert_close(hi, 3.0, 1e-15);
    assert_int_equal(report_ratio_interval(&f.r, 0, 0, &lo, &hi), -1);
    f.ci[0].available = 0;
    assert_int_equal(report_ratio_interval(&f.r, 0, 1, &lo, &hi), -1);

    /* an estimated cell with Monte Carlo draws of its hours 1, 2, .., 41:
     * percentile (type 7) at 2.5% = x[40 x 0.025 = 1] = 2, at 97.5% =
     * x[39] = 40 */
    struct report_cell cells[2];
    memset(cells, 0, sizeof cells);
    cells[0].pass_s = cells[0].pass_lo_s = cells[0].pass_hi_s = NAN;
    cells[1].estimated = 1;
    cells[1].pass_s = 0.010;
    cells[1].pass_lo_s = 0.008;
    cells[1].pass_hi_s = 0.016;
    f.r.cells = cells;
    f.ci[0].available = 1;
    double d41[41], *dr[2] = { NULL, d41 };
    size_t nd[2] = { 0, 41 };
    for (int k = 0; k < 41; k++)
        d41[40 - k] = k + 1;    /* unsorted on purpose */
    double rlo[2] = { NAN, 2.25 }, rhi[2] = { NAN, 2.75 };
    f.ev.hours_draws = dr;
    f.ev.n_hours_draws = nd;
    f.ev.ratio_lo = rlo;
    f.ev.ratio_hi = rhi;
    assert_int_equal(report_hours_interval(&f.r, 0, 1, &lo, &hi), 0);
    assert_close(lo, 2, 1e-15);
    assert_close(hi, 40, 1e-15);
    assert_close(d41[0], 41, 0);    /* the draws are left as they were */
    /* the ratio: the study's percentile CI, not a range of the cells */
    assert_int_equal(report_ratio_interval(&f.r, 0, 1, &lo, &hi), 0);
    assert_close(lo, 2.25, 0);
    assert_close(hi, 2.75, 0);
    rlo[1] = rhi[1] = NAN;
    assert_int_equal(report_ratio_interval(&f.r, 0, 1, &lo, &hi), -1);
    /* an estimated cell without draws has no interval: the ratio falls
     * back to the base's median CI, 8/2 x 0.5 .. 12/2 x 0.5 */
    nd[1] = 0;
    assert_int_equal(report_hours_interval(&f.r, 0, 1, &lo, &hi), -1);
    assert_int_equal(report_ratio_interval(&f.r, 0, 1, &lo, &hi), 0);
    assert_close(lo, 2.0, 1e-15);
    assert_close(hi, 3.0, 1e-15);
}

static char *render(void (*fn)(FILE *, const struct report *), const struct report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    fn(fp, r);
    fclose(fp);
    return buf;
}

static void test_writers(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    char *md = render(report_write_md, &f.r);
    assert_non_null(strstr(md, "Base case: **base** (100 nodes)"));
    assert_non_null(strstr(md, "| P | &lt;b&gt;new&lt;/b&gt; | 50 | 2 | 600 | 2.50 = 600 / 240 | 2.00 .. 3.00 | measured (n=1) |  |"));
    assert_non_null(strstr(md, "FOM confidence interval: CI unavailable"));
    free(md);
    char *html = render(report_write_html, &f.r);
    assert_null(strstr(html, "<b>new"));
    assert_non_null(strstr(html, "&lt;b&gt;new&lt;/b&gt;"));
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_null(strstr(html, "<script"));
    free(html);

    /* JSON: the fom document with keys added inside the same object */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    report_write_json(fp, &f.r, "{\n  \"fom\": 2.5\n}\n");
    fclose(fp);
    assert_true(strncmp(buf, "{\n  \"fom\": 2.5,\n  \"fom_version\": \"test\"", 38) == 0);
    assert_non_null(strstr(buf, "\"breakdowns\""));
    int depth = 0, min_depth = 0;
    for (char *p = buf; *p; p++) {
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        if (p[1] && depth < min_depth + 1 && p != buf)
            min_depth = depth < min_depth ? depth : min_depth;
    }
    assert_int_equal(depth, 0);
    assert_int_equal(buf[len - 1], '\n');
    assert_int_equal(buf[len - 2], '}');
    free(buf);
}

/* The colour of system id in a chart script: the "lc rgb 'C' title 'id'"
 * of its bars.  Returns 0 and C in out (8 bytes) when the system has one. */
static int color_of(const char *script, const char *id, char out[8])
{
    char want[64];
    snprintf(want, sizeof want, "' title '%s'", id);
    const char *t = strstr(script, want);
    if (!t || t - script < 7)
        return -1;
    memcpy(out, t - 7, 7);
    out[7] = '\0';
    return out[0] == '#' ? 0 : -1;
}

/* Twelve systems, more than the palette's eight: each keeps one colour in
 * every chart of the report, and no two share one. */
static void test_system_colors(void **state)
{
    (void)state;
    enum { NS = 12 };
    struct study_system sys[NS];
    struct study_problem prob = { 0 };
    struct study st = { 0 };
    struct study_eval ev = { 0 };
    struct report r = { 0 };
    struct median_ci ci[NS];
    char ids[NS][8];
    double nodes[NS], hours[NS], upd[NS], ratio[NS], hr[NS], fom[NS], ma[NS], mh[NS];
    double lo[NS], hi[NS], weight = 1;
    size_t repeats[NS];
    memset(sys, 0, sizeof sys);
    memset(ci, 0, sizeof ci);
    for (int s = 0; s < NS; s++) {
        snprintf(ids[s], sizeof ids[s], "sys%d", s);
        sys[s].id = ids[s];
        sys[s].nodes = 1;
        nodes[s] = 1;
        hours[s] = 10.0 / (s + 1);
        upd[s] = hr[s] = 24.0 / hours[s];
        ratio[s] = fom[s] = ma[s] = mh[s] = upd[s] / upd[0];
        lo[s] = hi[s] = NAN;
        repeats[s] = 1;
    }
    prob.id = "P";
    st.systems = sys;
    st.n_systems = NS;
    st.problems = &prob;
    st.n_problems = 1;
    ev.n_systems = NS;
    ev.n_problems = 1;
    ev.nodes = nodes;
    ev.weights = &weight;
    ev.hours = hours;
    ev.repeats = repeats;
    ev.hours_ci = ci;
    ev.fom.n_systems = NS;
    ev.fom.n_problems = 1;
    ev.fom.units_per_day = upd;
    ev.fom.ratio = ratio;
    ev.fom.harmonic_rate = hr;
    ev.fom.fom = fom;
    ev.fom.mean_ratio_arith = ma;
    ev.fom.mean_ratio_harm = mh;
    ev.fom_lo = lo;
    ev.fom_hi = hi;
    r.st = &st;
    r.ev = &ev;
    struct strbuf ratios = STRBUF_INIT, units = STRBUF_INIT;
    assert_int_equal(chart_ratios(&r, &ratios), 0);
    assert_int_equal(chart_units_per_day(&r, &units), 0);
    char seen[NS][8];
    for (int s = 0; s < NS; s++) {
        char a[8], b[8];
        assert_int_equal(color_of(units.buf, ids[s], a), 0);
        if (s > 0) {    /* the baseline has no ratio bar */
            assert_int_equal(color_of(ratios.buf, ids[s], b), 0);
            if (strcmp(a, b) != 0)
                fail_msg("%s: %s in units per day, %s in ratios", ids[s], a, b);
        }
        for (int k = 0; k < s; k++)
            if (strcmp(seen[k], a) == 0)
                fail_msg("%s and %s share colour %s", ids[k], ids[s], a);
        memcpy(seen[s], a, 8);
    }
    strbuf_release(&ratios);
    strbuf_release(&units);
}

static void test_gnuplot_render(void **state)
{
    (void)state;
    char *gp = gnuplot_find();
    if (!gp) {
        skip();
        return;
    }
    free(gp);
    const char *flag = "/tmp/fom-u-report-pwned";
    unlink(flag);
    struct strbuf body = STRBUF_INIT, img = STRBUF_INIT;
    struct diag d;
    diag_init(&d, NULL);
    strbuf_addstr(&body, "set title ");
    gp_quote(&body, "'; system(\"touch /tmp/fom-u-report-pwned\"); print '", 0);
    strbuf_addstr(&body, "\nplot x title ");
    gp_quote(&body, "\"; system('touch /tmp/fom-u-report-pwned'); \"\n! touch /tmp/fom-u-report-pwned", 0);
    strbuf_addch(&body, '\n');
    assert_int_equal(gnuplot_render(body.buf, GP_SVG, 400, 300, &img, &d), 0);
    assert_non_null(strstr(img.buf, "<svg"));
    /* the labels are shown as text, leading quote included */
    assert_non_null(strstr(img.buf, "'; system(\"touch /tmp/fom-u-report-pwned\"); print '"));
    assert_non_null(strstr(img.buf, "\"; system('touch /tmp/fom-u-report-pwned'); \" ! touch"));
    assert_int_not_equal(access(flag, F_OK), 0);
    strbuf_reset(&img);
    assert_int_equal(gnuplot_render(body.buf, GP_PNG, 400, 300, &img, &d), 0);
    assert_true(img.len > 8 && memcmp(img.buf, "\x89PNG", 4) == 0);
    /* a script error is a system error with gnuplot's message */
    char *msg = NULL;
    size_t mlen = 0;
    FILE *fp = open_memstream(&msg, &mlen);
    diag_init(&d, fp);
    strbuf_reset(&img);
    assert_int_equal(gnuplot_render("plot no_such_function(x)\n", GP_SVG, 400, 300, &img, &d),
                     FOM_ESYS);
    fclose(fp);
    assert_non_null(strstr(msg, "error: gnuplot failed: "));
    assert_int_equal(img.len, 0);
    free(msg);
    strbuf_release(&body);
    strbuf_release(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gp_quote),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_roofline_script),
        cmocka_unit_test(test_ratio_interval),
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_gnuplot_render),
        cmocka_unit_test(test_system_colors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
