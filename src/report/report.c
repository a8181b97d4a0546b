#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/comm.h"
#include "model/fom.h"
#include "model/rollup.h"
#include "model/stats.h"
#include "report/json.h"
#include "report/numfmt.h"

/* ---- escaping ----------------------------------------------------------- */

void html_escape(struct strbuf *sb, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': strbuf_addstr(sb, "&amp;"); break;
        case '<': strbuf_addstr(sb, "&lt;"); break;
        case '>': strbuf_addstr(sb, "&gt;"); break;
        case '"': strbuf_addstr(sb, "&quot;"); break;
        case '\'': strbuf_addstr(sb, "&#39;"); break;
        default:
            /* control bytes have no business in a name; show a space */
            strbuf_addch(sb, *p < 0x20 || *p == 0x7f ? ' ' : (char)*p);
        }
    }
}

void md_escape(struct strbuf *sb, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        /* Markdown passes raw HTML through: entities keep <script> text */
        case '&': strbuf_addstr(sb, "&amp;"); break;
        case '<': strbuf_addstr(sb, "&lt;"); break;
        case '>': strbuf_addstr(sb, "&gt;"); break;
        case '\\': case '`': case '*': case '_': case '[': case ']': case '|':
        case '#': case '!': case '{': case '}': case '(': case ')': case '~':
            strbuf_addch(sb, '\\');
            strbuf_addch(sb, (char)*p);
            break;
        default:
            strbuf_addch(sb, *p < 0x20 || *p == 0x7f ? ' ' : (char)*p);
        }
    }
}

/* ---- numbers ------------------------------------------------------------ */

/* Up to 6 significant digits, no exponent for everyday magnitudes, trailing
 * zeros dropped; "n/a" for NaN. */
static const char *num(char *buf, size_t n, double v)
{
    return fmt_sig(buf, n, v, 6, 1e-4);
}

static const char *fixed(char *buf, size_t n, double v, int dec)
{
    return fmt_fixed(buf, n, v, dec);
}

static const char *ms(char *buf, size_t n, double s)
{
    return num(buf, n, s * 1e3);
}

/* ---- intervals ------------------------------------------------------------ */

/* Whether an estimated cell carries Monte Carlo draws. */
static int has_draws(const struct study_eval *ev, size_t i)
{
    return ev->n_hours_draws && ev->n_hours_draws[i] > 0 && ev->hours_draws[i];
}

int report_hours_interval(const struct report *r, size_t p, size_t s, double *lo, double *hi)
{
    const struct study_eval *ev = r->ev;
    size_t i = p * ev->n_systems + s;
    const struct report_cell *c = r->cells ? &r->cells[i] : NULL;
    if ((c && c->estimated) || has_draws(ev, i)) {
        if (!has_draws(ev, i))
            return -1;
        size_t n = ev->n_hours_draws[i];
        double *x = xmalloc(n * sizeof *x);
        memcpy(x, ev->hours_draws[i], n * sizeof *x);
        bootstrap_percentile_ci(x, n, ev->ci_level, lo, hi);
        free(x);
        return isfinite(*lo) && isfinite(*hi) ? 0 : -1;
    }
    if (ev->hours_ci && ev->hours_ci[i].available) {
        *lo = ev->hours_ci[i].lo;
        *hi = ev->hours_ci[i].hi;
        return 0;
    }
    return -1;
}

int report_ratio_interval(const struct report *r, size_t p, size_t s, double *lo, double *hi)
{
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, b = r->st->baseline;
    double s_lo, s_hi, b_lo, b_hi;
    if (s == b)
        return -1;
    if (has_draws(ev, p * ns + s) || has_draws(ev, p * ns + b)) {
        if (!ev->ratio_lo || !isfinite(ev->ratio_lo[p * ns + s]))
            return -1;
        *lo = ev->ratio_lo[p * ns + s];
        *hi = ev->ratio_hi[p * ns + s];
        return 0;
    }
    int hs = report_hours_interval(r, p, s, &s_lo, &s_hi);
    int hb = report_hours_interval(r, p, b, &b_lo, &b_hi);
    if (hs && hb)
        return -1;
    /* a cell without an interval contributes its point value */
    if (hs)
        s_lo = s_hi = ev->hours[p * ns + s];
    if (hb)
        b_lo = b_hi = ev->hours[p * ns + b];
    double nodes = ev->nodes[s] / ev->nodes[b];
    *lo = b_lo / s_hi * nodes;
    *hi = b_hi / s_lo * nodes;
    return isfinite(*lo) && isfinite(*hi) ? 0 : -1;
}


/* ---- a tiny document model: one walk, two syntaxes ---------------------- */

struct doc {
    FILE *fp;
    int html;
    struct strbuf sb;       /* scratch for one block */
};

/* user text */
static void d_text(struct doc *d, struct strbuf *sb, const char *s)
{
    if (d->html)
        html_escape(sb, s);
    else
        md_escape(sb, s);
}

/* user text as code (ids, paths) */
static void d_code(struct doc *d, struct strbuf *sb, const char *s)
{
    if (d->html) {
        strbuf_addstr(sb, "<code>");
        html_escape(sb, s);
        strbuf_addstr(sb, "</code>");
    } else {
        /* escaped text rather than a code span: a backtick in a name
         * cannot close a span that is not there */
        md_escape(sb, s);
    }
}

static void d_strong_text(struct doc *d, struct strbuf *sb, const char *s)
{
    strbuf_addstr(sb, d->html ? "<strong>" : "**");
    d_text(d, sb, s);
    strbuf_addstr(sb, d->html ? "</strong>" : "**");
}

static void d_heading(struct doc *d, int level, const char *literal, const char *user)
{
    struct strbuf sb = STRBUF_INIT;
    if (d->html) {
        strbuf_addf(&sb, "<h%d>", level);
    } else {
        for (int i = 0; i < level; i++)
            strbuf_addch(&sb, '#');
        strbuf_addch(&sb, ' ');
    }
    strbuf_addstr(&sb, literal);
    if (user)
        d_text(d, &sb, user);
    if (d->html)
        strbuf_addf(&sb, "</h%d>\n", level);
    else
        strbuf_addstr(&sb, "\n\n");
    fputs(sb.buf, d->fp);
    strbuf_release(&sb);
}

/* A heading whose content the caller built (already escaped). */
static void d_heading_raw(struct doc *d, int level, const char *content)
{
    if (d->html) {
        fprintf(d->fp, "<h%d>%s</h%d>\n", level, content, level);
    } else {
        for (int i = 0; i < level; i++)
            fputc('#', d->fp);
        fprintf(d->fp, " %s\n\n", content);
    }
}

/* A paragraph whose content the caller built (already escaped). */
static void d_para(struct doc *d, const char *content)
{
    if (d->html)
        fprintf(d->fp, "<p>%s</p>\n", content);
    else
        fprintf(d->fp, "%s\n\n", content);
}

static void d_table_begin(struct doc *d, const char *const *head, size_t n)
{
    if (d->html) {
        fputs("<table>\n<thead><tr>", d->fp);
        for (size_t i = 0; i < n; i++)
            fprintf(d->fp, "<th>%s</th>", head[i]);
        fputs("</tr></thead>\n<tbody>\n", d->fp);
    } else {
        fputc('|', d->fp);
        for (size_t i = 0; i < n; i++)
            fprintf(d->fp, " %s |", head[i]);
        fputs("\n|", d->fp);
        for (size_t i = 0; i < n; i++)
            fputs(i == 0 ? " --- |" : " ---: |", d->fp);
        fputc('\n', d->fp);
    }
}

static void d_row(struct doc *d, char **cells, size_t n)
{
    if (d->html) {
        fputs("<tr>", d->fp);
        for (size_t i = 0; i < n; i++)
            fprintf(d->fp, "<td%s>%s</td>", i ? " class=\"n\"" : "", cells[i]);
        fputs("</tr>\n", d->fp);
    } else {
        fputc('|', d->fp);
        for (size_t i = 0; i < n; i++)
            fprintf(d->fp, " %s |", cells[i]);
        fputc('\n', d->fp);
    }
}

static void d_table_end(struct doc *d)
{
    fputs(d->html ? "</tbody></table>\n" : "\n", d->fp);
}

static void d_list_begin(struct doc *d)
{
    if (d->html)
        fputs("<ul>\n", d->fp);
}

static void d_item(struct doc *d, const char *content)
{
    if (d->html)
        fprintf(d->fp, "<li>%s</li>\n", content);
    else
        fprintf(d->fp, "- %s\n", content);
}

static void d_list_end(struct doc *d)
{
    fputs(d->html ? "</ul>\n" : "\n", d->fp);
}

/* Row cells live in a fixed array of strbufs reused across rows. */
#define MAX_COLS 12
struct row {
    struct strbuf c[MAX_COLS];
    char *p[MAX_COLS];
    size_t n;
};

static void row_init(struct row *rw)
{
    for (size_t i = 0; i < MAX_COLS; i++)
        strbuf_init(&rw->c[i]);
    rw->n = 0;
}

static struct strbuf *row_next(struct row *rw)
{
    struct strbuf *sb = &rw->c[rw->n++];
    strbuf_reset(sb);
    return sb;
}

static void row_emit(struct doc *d, struct row *rw)
{
    for (size_t i = 0; i < rw->n; i++)
        rw->p[i] = (char *)strbuf_str(&rw->c[i]);
    d_row(d, rw->p, rw->n);
    rw->n = 0;
}

static void row_release(struct row *rw)
{
    for (size_t i = 0; i < MAX_COLS; i++)
        strbuf_release(&rw->c[i]);
}

/* ---- sections ------------------------------------------------------------ */

static size_t first_other(const struct study *st)
{
    for (size_t s = 0; s < st->n_systems; s++)
        if (s != st->baseline)
            return s;
    return st->n_systems;
}

static int any_estimated(const struct report *r)
{
    size_t n = r->ev->n_systems * r->ev->n_problems;
    for (size_t i = 0; r->cells && i < n; i++)
        if (r->cells[i].estimated)
            return 1;
    return 0;
}

/* Cells of system s estimated mostly from the roofline or peak scaling. */
static size_t weak_cells(const struct study_eval *ev, size_t s)
{
    size_t n = 0;
    for (size_t p = 0; p < ev->n_problems; p++)
        n += study_cell_weak(ev, p * ev->n_systems + s) ? 1 : 0;
    return n;
}

/* The summary table: one row per system. */
/* "8 nodes of 4 x NVIDIA A100-SXM4-40GB", "1 node of 1 device": what a
 * node is, from the system's machine file (just the count without one). */
static void nodes_text(struct doc *d, struct strbuf *sb, const struct report *r, size_t s)
{
    long long n = (long long)r->st->systems[s].nodes;
    const struct report_system *sy = r->systems ? &r->systems[s] : NULL;
    strbuf_addf(sb, "%lld node%s", n, n == 1 ? "" : "s");
    if (!sy || sy->devices_per_node <= 0)
        return;
    if (sy->device_name) {
        strbuf_addf(sb, " of %d x ", sy->devices_per_node);
        d_text(d, sb, sy->device_name);
    } else {
        strbuf_addf(sb, " of %d device%s", sy->devices_per_node,
                    sy->devices_per_node == 1 ? "" : "s");
    }
}

static void header_table(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    char a[64], b[64];
    size_t base = st->baseline;
    struct strbuf *sb = &d->sb;
    static const char *const head[] = {
        "system", "nodes", "harmonic rate [units/day]", "FOM [x]", "FOM CI [x]",
        "arithmetic mean of ratios [x]", "harmonic mean of ratios [x]",
    };
    d_table_begin(d, head, 7);
    struct row rw;
    row_init(&rw);
    for (size_t s = 0; s < ev->n_systems; s++) {
        d_text(d, row_next(&rw), st->systems[s].id);
        if (s == base)
            strbuf_addstr(&rw.c[rw.n - 1], " (base)");
        nodes_text(d, row_next(&rw), r, s);
        strbuf_addstr(row_next(&rw), num(a, sizeof a, ev->fom.harmonic_rate[s]));
        strbuf_addstr(row_next(&rw), fixed(a, sizeof a, ev->fom.fom[s], 3));
        size_t nweak = weak_cells(ev, s);
        if (nweak)
            strbuf_addstr(&rw.c[rw.n - 1], " !");
        if (s == base)
            strbuf_addstr(row_next(&rw), "(base)");
        else if (ev->fom_lo && isfinite(ev->fom_lo[s]))
            strbuf_addf(row_next(&rw), "%s .. %s", fixed(a, sizeof a, ev->fom_lo[s], 3),
                        fixed(b, sizeof b, ev->fom_hi[s], 3));
        else
            strbuf_addstr(row_next(&rw), "CI unavailable");
        strbuf_addstr(row_next(&rw), fixed(a, sizeof a, ev->fom.mean_ratio_arith[s], 3));
        strbuf_addstr(row_next(&rw), fixed(a, sizeof a, ev->fom.mean_ratio_harm[s], 3));
        row_emit(d, &rw);
    }
    d_table_end(d);
    size_t nweak = 0;
    for (size_t s = 0; s < ev->n_systems; s++)
        nweak += weak_cells(ev, s);
    if (nweak) {
        strbuf_reset(sb);
        strbuf_addf(sb, "! = the system has problems estimated mostly (at least %.0f%% of the "
                        "op time) from its machine file's roofline, efficiency model or peak scaling instead of "
                        "measured kernel tables (%zu cells, marked in Problems): peak rates no "
                        "kernel reaches, optimistic by 2-3.6x on GPUs.", 100 * STUDY_WEAK_SHARE,
                    nweak);
        d_para(d, sb->buf);
    }
    row_release(&rw);
}

/* "FOM of X = H(X) / H(base) = ..." for every system but the base. */
static void header_fom_lines(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    struct strbuf *sb = &d->sb;
    char a[64], b[64];
    size_t base = st->baseline;
    for (size_t s = 0; s < ev->n_systems; s++) {
        if (s == base)
            continue;
        strbuf_reset(sb);
        strbuf_addstr(sb, "FOM of ");
        d_text(d, sb, st->systems[s].id);
        strbuf_addstr(sb, " = H(");
        d_text(d, sb, st->systems[s].id);
        strbuf_addstr(sb, ") / H(");
        d_text(d, sb, st->systems[base].id);
        strbuf_addf(sb, ") = %s / ", num(a, sizeof a, ev->fom.harmonic_rate[s]));
        strbuf_addf(sb, "%s units/day = ", num(b, sizeof b, ev->fom.harmonic_rate[base]));
        strbuf_addstr(sb, d->html ? "<strong>" : "**");
        strbuf_addf(sb, "%s", fixed(a, sizeof a, ev->fom.fom[s], 3));
        strbuf_addstr(sb, d->html ? "</strong>" : "**");
        strbuf_addf(sb, ", against an arithmetic mean of the per-problem ratios of %s and a "
                        "harmonic mean of %s.",
                    fixed(a, sizeof a, ev->fom.mean_ratio_arith[s], 3),
                    fixed(b, sizeof b, ev->fom.mean_ratio_harm[s], 3));
        d_para(d, sb->buf);
    }
}

/* Problem p's share of the base case's time per unit of work (tot: the sum
 * of weight / units per day over the problems). */
static double base_share(const struct study_eval *ev, size_t base, size_t p, double tot)
{
    return ev->weights[p] / ev->fom.units_per_day[p * ev->n_systems + base] / tot;
}

/* Why the FOM and the means of ratios differ, with the weights that make
 * the FOM what it is: H_s / H_b = sum(w/U_b) / sum(w/U_s), a harmonic mean
 * of the ratios weighted by each problem's share of the baseline's time. */
static void header_why_differ(struct doc *d, const struct report *r, size_t o)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    struct strbuf *sb = &d->sb;
    char a[64], b[64];
    size_t base = st->baseline;
    strbuf_reset(sb);
    strbuf_addstr(sb, "Why they differ: the FOM is the ratio of the harmonic means of the "
                      "rates, which is the same as a harmonic mean of the per-problem ratios "
                      "in which each problem counts by its share of the base case's time per "
                      "unit of work (");
    double tot = 0;
    for (size_t p = 0; p < ev->n_problems; p++)
        tot += ev->weights[p] / ev->fom.units_per_day[p * ev->n_systems + base];
    for (size_t p = 0; p < ev->n_problems; p++) {
        double share = base_share(ev, base, p, tot);
        if (p)
            strbuf_addstr(sb, ", ");
        if (p == 6 && ev->n_problems > 7) {
            strbuf_addf(sb, "%zu more", ev->n_problems - 6);
            break;
        }
        d_text(d, sb, st->problems[p].id);
        if (share >= 0.01 || share == 0)
            strbuf_addf(sb, " %s%%", fixed(a, sizeof a, share * 100, 1));
        else
            strbuf_addf(sb, " %.2g%%", share * 100);
    }
    strbuf_addstr(sb, "). The means of ratios count every problem equally: the arithmetic "
                      "mean is pulled up by the largest ratio, the harmonic mean down by the "
                      "smallest. Only the FOM answers how much more work of this mix the "
                      "system completes per day.");
    /* a problem that owns most of the base case's time drives the FOM */
    size_t top = 0;
    double top_share = 0;
    for (size_t p = 0; p < ev->n_problems; p++) {
        double share = base_share(ev, base, p, tot);
        if (share > top_share) {
            top_share = share;
            top = p;
        }
    }
    if (top_share > 0.5 && ev->n_problems > 1) {
        strbuf_addstr(sb, " Here ");
        d_text(d, sb, st->problems[top].id);
        strbuf_addf(sb, " takes %s%% of the base case's time, so the FOM of ",
                    fixed(a, sizeof a, top_share * 100, 1));
        d_text(d, sb, st->systems[o].id);
        strbuf_addf(sb, " (%s) stays close to its ratio on that problem (%s).",
                    fixed(a, sizeof a, ev->fom.fom[o], 3),
                    fixed(b, sizeof b, ev->fom.ratio[top * ev->n_systems + o], 3));
    }
    d_para(d, sb->buf);
}

static void sec_header(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    struct strbuf *sb = &d->sb;
    size_t base = st->baseline, o = first_other(st);

    d_heading(d, 1, "Procurement report: ", st->name);
    strbuf_reset(sb);
    strbuf_addstr(sb, "Study file ");
    d_code(d, sb, st->path);
    strbuf_addf(sb, ", %zu problems on %zu systems, written by fom %s.", ev->n_problems,
                ev->n_systems, r->fom_version ? r->fom_version : "");
    d_para(d, sb->buf);

    d_heading(d, 2, "Summary", NULL);
    strbuf_reset(sb);
    strbuf_addstr(sb, "Base case: ");
    d_strong_text(d, sb, st->systems[base].id);
    strbuf_addstr(sb, " (");
    nodes_text(d, sb, r, base);
    strbuf_addstr(sb, "). Every ratio below is the rate of a system divided by the rate of ");
    d_text(d, sb, st->systems[base].id);
    strbuf_addstr(sb, " on the same problem, and is printed beside both rates.");
    d_para(d, sb->buf);

    header_table(d, r);
    header_fom_lines(d, r);
    if (o < ev->n_systems)
        header_why_differ(d, r, o);
}

static void sec_problems(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems, base = st->baseline;
    char a[64], b[64], c[64];

    d_heading(d, 2, "Problems", NULL);
    struct strbuf *sb = &d->sb;
    strbuf_reset(sb);
    strbuf_addstr(sb, "units/day = 24 / hours per unit x nodes; ratio = units/day of the "
                      "system / units/day of ");
    d_text(d, sb, st->systems[base].id);
    strbuf_addstr(sb, " (both shown). Measured times with repeats use their median. The "
                      "interval is the ratio's percentile CI when a cell is estimated from "
                      "kernel tables with a timing spread (see Uncertainty), otherwise the "
                      "ratio range the intervals of the medians allow.");
    d_para(d, sb->buf);

    static const char *const head[] = {
        "problem", "system", "nodes", "hours/unit [h]", "units/day [1/day]",
        "ratio [x] = units/day / base units/day", "ratio interval [x]", "source", "bound",
    };
    d_table_begin(d, head, 9);
    struct row rw;
    row_init(&rw);
    for (size_t p = 0; p < ev->n_problems; p++) {
        for (size_t s = 0; s < ns; s++) {
            size_t i = p * ns + s;
            const struct report_cell *cell = r->cells ? &r->cells[i] : NULL;
            d_text(d, row_next(&rw), st->problems[p].id);
            d_text(d, row_next(&rw), st->systems[s].id);
            strbuf_addf(row_next(&rw), "%lld", (long long)st->systems[s].nodes);
            strbuf_addstr(row_next(&rw), num(a, sizeof a, ev->hours[i]));
            strbuf_addstr(row_next(&rw), num(a, sizeof a, ev->fom.units_per_day[i]));
            if (s == base)
                strbuf_addstr(row_next(&rw), "1 (base)");
            else
                strbuf_addf(row_next(&rw), "%s = %s / %s", fixed(a, sizeof a, ev->fom.ratio[i], 2),
                            num(b, sizeof b, ev->fom.units_per_day[i]),
                            num(c, sizeof c, ev->fom.units_per_day[p * ns + base]));
            double lo, hi;
            if (s == base)
                strbuf_addstr(row_next(&rw), "");
            else if (report_ratio_interval(r, p, s, &lo, &hi) == 0)
                strbuf_addf(row_next(&rw), "%s .. %s", fixed(a, sizeof a, lo, 2),
                            fixed(b, sizeof b, hi, 2));
            else
                strbuf_addstr(row_next(&rw), "CI unavailable");
            if (cell && cell->estimated)
                strbuf_addf(row_next(&rw), "estimated (pass %s ms)%s%s", ms(a, sizeof a, cell->pass_s),
                            study_cell_weak(ev, i) ? " ! roofline/scaled" : "",
                            ev->estimated[i] && ev->basis[i].fits == 0 ? " DOES NOT FIT" : "");
            else
                strbuf_addf(row_next(&rw), "measured (n=%zu)", ev->repeats[i]);
            strbuf_addstr(row_next(&rw), cell && cell->bound ? cell->bound : "");
            row_emit(d, &rw);
        }
    }
    d_table_end(d);
    row_release(&rw);
}

static void sec_assumptions(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    struct strbuf *sb = &d->sb;
    char a[64];

    d_heading(d, 2, "Assumptions", NULL);
    d_list_begin(d);
    for (size_t s = 0; s < st->n_systems; s++) {
        strbuf_reset(sb);
        strbuf_addstr(sb, "System ");
        d_strong_text(d, sb, st->systems[s].id);
        strbuf_addstr(sb, ": ");
        nodes_text(d, sb, r, s);
        strbuf_addstr(sb, "; a measured time is one node's time per unit of work, an "
                          "estimated run occupies devices-per-run devices of a node and a "
                          "node trains as many such runs side by side as it has room for; "
                          "rates scale linearly with the node count.");
        d_item(d, sb->buf);
    }
    for (size_t p = 0; p < st->n_problems; p++) {
        const struct study_problem *pr = &st->problems[p];
        strbuf_reset(sb);
        strbuf_addstr(sb, "Problem ");
        d_strong_text(d, sb, pr->id);
        strbuf_addf(sb, ": weight %s", num(a, sizeof a, r->ev->weights[p]));
        if (pr->workload.present) {
            const struct study_workload *w = &pr->workload;
            int64_t mb = rollup_minibatches(w->samples_per_epoch, w->batch);
            strbuf_addf(sb, "; batch %lld, %lld samples per epoch (%lld minibatches), "
                            "%s epochs per unit, precision %s",
                        (long long)w->batch, (long long)w->samples_per_epoch, (long long)mb,
                        num(a, sizeof a, w->epochs),
                        w->precision == PREC_UNKNOWN ? "as profiled"
                                                     : precision_name(w->precision));
            strbuf_addf(sb, "; %lld device%s per run", (long long)w->devices_per_run,
                        w->devices_per_run == 1 ? "" : "s");
            if (w->devices_per_run > 1)
                strbuf_addf(sb, " (data parallel: the batch split evenly; the fp32 gradients "
                                "of %s parameters are all-reduced in DDP buckets of 25 MiB "
                                "as the backward pass produces them, and only the exchange "
                                "it does not hide adds to the pass: see Communication)",
                            w->parameters > 0 ? num(a, sizeof a, (double)w->parameters)
                                              : "the profile's");
            for (size_t s = 0; s < st->n_systems; s++) {
                double runs = r->ev->runs_per_node[p * st->n_systems + s];
                if (runs != 1)
                    strbuf_addf(sb, "; %s runs per node on %s", num(a, sizeof a, runs),
                                st->systems[s].id);
            }
        } else if (pr->epochs > 0) {
            strbuf_addf(sb, "; %s epochs per unit of work", num(a, sizeof a, pr->epochs));
        }
        int per_epoch = 0, per_unit = 0;
        for (size_t t = 0; t < pr->n_times; t++) {
            if (pr->times[t].basis == TIME_PER_EPOCH)
                per_epoch++;
            else
                per_unit++;
        }
        if (per_unit || per_epoch)
            strbuf_addf(sb, "; measured times (all systems): %d per unit of work, %d per epoch",
                        per_unit, per_epoch);
        strbuf_addch(sb, '.');
        d_item(d, sb->buf);
    }
    if (any_estimated(r))
        d_item(d, "Estimated problems: one training pass is estimated op by op on each "
                  "machine, then rolled up as pass x minibatches per epoch x epochs; a last "
                  "partial minibatch counts as a whole pass.");
    d_list_end(d);
}

static void sec_uncertainty(struct doc *d, const struct report *r)
{
    const struct study_eval *ev = r->ev;
    struct strbuf *sb = &d->sb;
    int pct = (int)lround(ev->ci_level * 100);
    d_heading(d, 2, "Uncertainty", NULL);
    size_t n = ev->n_systems * ev->n_problems, drawn = 0;
    for (size_t i = 0; i < n; i++)
        if (has_draws(ev, i))
            drawn++;
    strbuf_reset(sb);
    if (ev->has_repeats && !ev->has_spread) {
        strbuf_addf(sb, "FOM confidence intervals: %d%% percentile bootstrap over the repeated "
                        "measurements (%d resamples, fixed seed %lu, reproducible). Medians of "
                        "repeats carry distribution-free intervals from order statistics "
                        "(at least 6 repeats are needed for 95%%).",
                    pct, ev->resamples, ev->seed);
    } else if (ev->has_spread) {
        strbuf_addf(sb, "Confidence intervals of the ratios and the FOM: %d%% percentile "
                        "intervals over %d resamples (fixed seed %lu, reproducible). Each "
                        "resample takes", pct, ev->resamples, ev->seed);
        if (ev->has_repeats)
            strbuf_addstr(sb, " a bootstrap resample of every problem measured more than once "
                              "(its median recomputed)");
        if (ev->has_repeats && ev->has_spread)
            strbuf_addstr(sb, " and");
        if (ev->has_spread)
            strbuf_addf(sb, " one of the %zu Monte Carlo draws (seed %lu) of each of the %zu "
                            "estimated cells whose kernel tables give p05/p95 timings",
                        ev->estimate_draws, ev->estimate_seed, drawn);
        strbuf_addstr(sb, "; every other cell stays at its value.");
        if (ev->has_repeats)
            strbuf_addstr(sb, " Medians of repeats carry distribution-free intervals from order "
                              "statistics (at least 6 repeats are needed for 95%).");
    } else {
        strbuf_addstr(sb, "FOM confidence interval: CI unavailable. No problem has repeated "
                          "measured times on a system and no estimated cell has kernel timings "
                          "with a spread, so there is no sample to build an interval from, and "
                          "none is invented.");
    }
    d_para(d, sb->buf);
    if (ev->has_spread) {
        strbuf_reset(sb);
        strbuf_addstr(sb, "The Monte Carlo of an estimated pass draws one quantile per draw and "
                          "puts every op's device time at that quantile of a log-normal whose "
                          "median is the op's estimate and whose 5% and 95% quantiles are the "
                          "kernel table's p05 and p95 (the causes of a table's spread, its "
                          "host's clocks and dispatch, move all its rows together), keeps host "
                          "times and ops without a spread (roofline, scaled, measured once) "
                          "fixed, and replays the pass as the estimate does: the estimate is the "
                          "median of the draws. These intervals reflect the kernels' timing "
                          "spread only, not the error of the model: the estimator's error "
                          "against measured step times, per kind of estimate, is the dominant "
                          "uncertainty (README, \"How accurate it is\", made by `make validate`).");
        d_para(d, sb->buf);
    }
    if (any_estimated(r) && drawn < n) {
        size_t none = 0;
        for (size_t i = 0; r->cells && i < n; i++)
            if (r->cells[i].estimated && !has_draws(ev, i))
                none++;
        if (none) {
            strbuf_reset(sb);
            strbuf_addf(sb, "%zu estimated cell%s: CI unavailable (no op of %s has a "
                            "kernel-table spread: each is measured once in the profile, or "
                            "estimated by the roofline or by scaling).", none,
                        none == 1 ? "" : "s", none == 1 ? "it" : "them");
            d_para(d, sb->buf);
        }
    }
}

static void sec_estimates(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems;
    struct strbuf *sb = &d->sb;
    char a[64], b[64];

    if (!any_estimated(r))
        return;
    d_heading(d, 2, "Estimated problems: where the pass time goes", NULL);
    for (size_t p = 0; p < ev->n_problems; p++) {
        for (size_t s = 0; s < ns; s++) {
            const struct report_cell *c = &r->cells[p * ns + s];
            if (!c->estimated)
                continue;
            strbuf_reset(sb);
            d_text(d, sb, st->problems[p].id);
            strbuf_addstr(sb, " on ");
            d_text(d, sb, st->systems[s].id);
            d_heading_raw(d, 3, sb->buf);
            strbuf_reset(sb);
            strbuf_addf(sb, "Pass time %s ms", ms(a, sizeof a, c->pass_s));
            if (isfinite(c->pass_ci_lo_s) && isfinite(c->pass_ci_hi_s))
                strbuf_addf(sb, " (%d%% CI %s .. %s ms over the timing spread of %zu op%s)",
                            (int)lround(ev->ci_level * 100), ms(a, sizeof a, c->pass_ci_lo_s),
                            ms(b, sizeof b, c->pass_ci_hi_s), c->n_spread_ops,
                            c->n_spread_ops == 1 ? "" : "s");
            else
                strbuf_addstr(sb, " (CI unavailable: no op has a table spread)");
            if (c->bound)
                strbuf_addf(sb, ", %s-bound", c->bound);
            if (c->machine_hw) {
                strbuf_addstr(sb, "; kernel table: ");
                d_text(d, sb, c->machine_hw);
            }
            strbuf_addch(sb, '.');
            if (c->n_methods) {
                double tot = 0;
                for (size_t m = 0; m < c->n_methods; m++)
                    tot += c->methods[m].time_s;
                strbuf_addstr(sb, " Share of the op time by method: ");
                for (size_t m = 0; m < c->n_methods; m++)
                    strbuf_addf(sb, "%s%s %s%%", m ? ", " : "", c->methods[m].name,
                                fixed(a, sizeof a, tot > 0 ? 100 * c->methods[m].time_s / tot : NAN, 1));
                strbuf_addch(sb, '.');
            }
            d_para(d, sb->buf);
            if (c->n_ops) {
                static const char *const head[] = {
                    "op", "kind", "time/pass [ms]", "share [%]", "rate [TFLOP/s]", "method", "bound",
                };
                d_table_begin(d, head, 7);
                struct row rw;
                row_init(&rw);
                double tot = 0;
                for (size_t k = 0; k < c->n_ops; k++)
                    tot += c->ops[k].time_s;
                size_t lim = c->n_ops < 10 ? c->n_ops : 10;
                for (size_t k = 0; k < lim; k++) {
                    const struct report_op *op = &c->ops[k];
                    d_code(d, row_next(&rw), op->name);
                    strbuf_addstr(row_next(&rw), op->kind ? op->kind : "");
                    strbuf_addstr(row_next(&rw), ms(a, sizeof a, op->time_s));
                    strbuf_addstr(row_next(&rw), fixed(a, sizeof a, tot > 0 ? 100 * op->time_s / tot : NAN, 1));
                    strbuf_addstr(row_next(&rw), op->flops > 0 && op->time_s > 0
                                  ? num(a, sizeof a, op->flops / op->time_s / 1e12) : "");
                    strbuf_addstr(row_next(&rw), op->method ? op->method : "");
                    strbuf_addstr(row_next(&rw), op->bound ? op->bound : "");
                    row_emit(d, &rw);
                }
                d_table_end(d);
                row_release(&rw);
                if (c->n_ops > lim) {
                    double rest = 0;
                    for (size_t k = lim; k < c->n_ops; k++)
                        rest += c->ops[k].time_s;
                    strbuf_reset(sb);
                    strbuf_addf(sb, "The other %zu ops take %s ms per pass.", c->n_ops - lim,
                                ms(a, sizeof a, rest));
                    d_para(d, sb->buf);
                }
            }
            for (size_t w = 0; w < c->n_warnings; w++) {
                strbuf_reset(sb);
                strbuf_addstr(sb, "Warning: ");
                d_text(d, sb, c->warnings[w]);
                d_para(d, sb->buf);
            }
        }
    }
}

static void sec_charts(struct doc *d, const struct report *r);

static void sec_sources(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    size_t ns = ev->n_systems;
    struct strbuf *sb = &d->sb;
    char a[64];

    d_heading(d, 2, "Sources", NULL);
    d_list_begin(d);
    strbuf_reset(sb);
    strbuf_addstr(sb, "Study: ");
    d_code(d, sb, st->path);
    strbuf_addf(sb, "; computed by fom %s.", r->fom_version ? r->fom_version : "");
    d_item(d, sb->buf);
    for (size_t s = 0; s < ns; s++) {
        const struct report_system *sy = r->systems ? &r->systems[s] : NULL;
        strbuf_reset(sb);
        strbuf_addstr(sb, "System ");
        d_strong_text(d, sb, st->systems[s].id);
        strbuf_addstr(sb, ": ");
        if (sy && sy->machine_name) {
            strbuf_addstr(sb, "machine ");
            d_text(d, sb, sy->machine_name);
            strbuf_addstr(sb, " from ");
            d_code(d, sb, sy->machine_path);
            if (sy->machine_source) {
                strbuf_addstr(sb, " (datasheet: ");
                d_text(d, sb, sy->machine_source);
                strbuf_addch(sb, ')');
            }
        } else if (st->systems[s].machine) {
            strbuf_addstr(sb, "machine file ");
            d_code(d, sb, st->systems[s].machine);
        } else {
            strbuf_addstr(sb, "no machine file (measured times only)");
        }
        if (st->systems[s].kernels) {
            strbuf_addstr(sb, "; kernel tables ");
            d_code(d, sb, st->systems[s].kernels);
        }
        strbuf_addch(sb, '.');
        d_item(d, sb->buf);
    }
    /* each distinct kernel table once */
    for (size_t i = 0; r->cells && i < ns * ev->n_problems; i++) {
        const struct report_cell *c = &r->cells[i];
        if (!c->estimated || !c->machine_hw)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->cells[j].estimated && r->cells[j].machine_hw &&
                   strcmp(r->cells[j].machine_hw, c->machine_hw) == 0;
        if (seen)
            continue;
        strbuf_reset(sb);
        strbuf_addstr(sb, "Kernel table measured on ");
        d_text(d, sb, c->machine_hw);
        if (c->kernels_software) {
            strbuf_addstr(sb, " with ");
            d_text(d, sb, c->kernels_software);
        }
        if (c->kernels_origin) {
            strbuf_addstr(sb, ", from ");
            d_code(d, sb, c->kernels_origin);
        }
        strbuf_addch(sb, '.');
        d_item(d, sb->buf);
    }
    for (size_t p = 0; r->problems && p < ev->n_problems; p++) {
        const struct report_problem *pr = &r->problems[p];
        if (!pr->profile_path)
            continue;
        strbuf_reset(sb);
        strbuf_addstr(sb, "Trace of ");
        d_strong_text(d, sb, st->problems[p].id);
        strbuf_addstr(sb, ": ");
        d_code(d, sb, pr->profile_path);
        if (pr->profile_format)
            strbuf_addf(sb, " (%s", pr->profile_format);
        else
            strbuf_addstr(sb, " (");
        if (pr->profile_framework) {
            strbuf_addstr(sb, ", ");
            d_text(d, sb, pr->profile_framework);
        }
        strbuf_addstr(sb, ", device ");
        d_text(d, sb, pr->profile_device ? pr->profile_device : "host only");
        strbuf_addf(sb, ", %d profiled step%s", pr->profile_steps, pr->profile_steps == 1 ? "" : "s");
        if (pr->profile_batch)
            strbuf_addf(sb, ", batch %lld", (long long)pr->profile_batch);
        if (pr->profile_step_s > 0)
            strbuf_addf(sb, ", step %s ms in the trace", ms(a, sizeof a, pr->profile_step_s));
        strbuf_addstr(sb, ").");
        d_item(d, sb->buf);
    }
    d_list_end(d);
}

/* Power, price and whether each run fits: beside the FOM, never in its
 * place; unavailable figures say so. */
static void sec_economics(struct doc *d, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    const struct econ_result *e = &ev->econ;
    size_t ns = ev->n_systems, np = ev->n_problems;
    char a[64];
    struct strbuf *sb = &d->sb;
    if (!(ev->has_power || ev->has_price) && !ev->unfit)
        return;
    d_heading(d, 2, "Power, price and fit", NULL);
    if (ev->has_power || ev->has_price) {
        strbuf_reset(sb);
        strbuf_addstr(sb, "Figures beside the FOM, not in its place: the harmonic rate per "
                          "megawatt of system power and per million dollars of system price, and "
                          "their ratios to the base case. Power is at the stated node power: "
                          "datasheet TDPs are maxima, so these are lower bounds on work per MW.");
        d_para(d, sb->buf);
        static const char *const head[] = {
            "system", "power [kW]", "units/day per MW", "FOM per W [x]", "price [M$]",
            "units/day per M$", "FOM per $ [x]", "power from", "price from",
        };
        d_table_begin(d, head, 9);
        struct row rw;
        row_init(&rw);
        for (size_t s = 0; s < ns; s++) {
            d_text(d, row_next(&rw), st->systems[s].id);
            strbuf_addstr(row_next(&rw), num(a, sizeof a, e->power_w[s] / 1e3));
            strbuf_addstr(row_next(&rw), num(a, sizeof a, e->rate_per_mw[s]));
            strbuf_addstr(row_next(&rw), fixed(a, sizeof a, e->fom_per_watt[s], 3));
            strbuf_addstr(row_next(&rw), num(a, sizeof a, e->cost_usd[s] / 1e6));
            strbuf_addstr(row_next(&rw), num(a, sizeof a, e->rate_per_musd[s]));
            strbuf_addstr(row_next(&rw), fixed(a, sizeof a, e->fom_per_dollar[s], 3));
            d_text(d, row_next(&rw), ev->power_from[s] ? ev->power_from[s] : "not given");
            d_text(d, row_next(&rw), ev->price_from[s] ? ev->price_from[s] : "not given");
            row_emit(d, &rw);
        }
        d_table_end(d);
        row_release(&rw);
    }
    for (size_t i = 0; i < np * ns; i++) {
        const struct estimate_basis *b = &ev->basis[i];
        if (!ev->estimated[i] || b->fits != 0)
            continue;
        strbuf_reset(sb);
        strbuf_addstr(sb, "Does not fit: ");
        d_text(d, sb, st->problems[i / ns].id);
        strbuf_addstr(sb, " on ");
        d_text(d, sb, st->systems[i % ns].id);
        strbuf_addf(sb, " needs %.1f GB per device (weights %.2f, gradients %.2f, optimizer "
                        "state %.2f, autocast copies %.2f, activations %.2f, gradients in flight "
                        "%.2f, workspaces %.2f GB; peak at the %s) and a device has "
                        "%.1f GB. Give it more devices per run (devices-per-run) or a smaller "
                        "batch. The FOM of ", b->mem.total_b / 1e9, b->mem.weights_b / 1e9,
                    b->mem.grads_b / 1e9, b->mem.optimizer_b / 1e9, b->mem.casts_b / 1e9,
                    b->mem.activations_b / 1e9, b->mem.transient_b / 1e9,
                    b->mem.workspace_b / 1e9, b->mem.peak_at_step ? "optimizer step" : "backward",
                    b->capacity_b / 1e9);
        d_text(d, sb, i % ns == st->baseline ? "every system" : st->systems[i % ns].id);
        strbuf_addstr(sb, " cannot be formed without it.");
        d_para(d, sb->buf);
    }
}

/* ---- communication ------------------------------------------------------ */

/* One data-parallel cell: the all-reduce of a full bucket term by term
 * from the machine file, the overlap with the backward pass, and the
 * scaling curve, so that a reader can redo every number by hand. */
/* Where the all-reduce times of a cell came from: the measured table of
 * the target where it covers the bucket size and the rank count (one
 * host), the machine file's links otherwise. */
static void comm_source(struct doc *d, const struct report_cell *c, struct strbuf *sb)
{
    const struct comm_step *cs = &c->layout.comm;
    const struct comm_allreduce *a = &cs->full;
    char b1[48], b2[48];
    strbuf_reset(sb);
    if (!cs->n_from_table || !c->comm_table_hw) {
        strbuf_addf(sb, "Source of every all-reduce term: the machine file (no measured "
                        "all-reduce table of the target covers %lld ranks%s).",
                    (long long)a->ranks, a->nodes > 1 ? " across nodes: a table is measured "
                                                        "on one host" : " at these sizes");
        d_para(d, sb->buf);
        return;
    }
    strbuf_addstr(sb, "Source: the measured all-reduce table of ");
    d_text(d, sb, c->comm_table_hw);
    strbuf_addf(sb, " (kind comm, fp32, %lld ranks on one host; log-log between the two "
                    "nearest measured sizes) for %zu of the %zu buckets, the machine file for "
                    "the rest.", (long long)a->ranks, cs->n_from_table, cs->n_buckets);
    if (a->source == COMM_FROM_TABLE)
        strbuf_addf(sb, "  One 25 MiB all-reduce from the table: %s us (the machine file's "
                        "sum above: %s us).", num(b1, sizeof b1, a->time_s * 1e6),
                    num(b2, sizeof b2, a->machine_s * 1e6));
    d_para(d, sb->buf);
}

static void comm_cell(struct doc *d, const struct report *r, size_t p, size_t s,
                      struct strbuf *sb)
{
    const struct report_cell *c = &r->cells[p * r->st->n_systems + s];
    const struct run_layout *l = &c->layout;
    const struct comm_step *cs = &l->comm;
    const struct comm_allreduce *a = &cs->full;
    const struct machine *m = c->machine;
    char b1[48], b2[48], b3[48], b4[48], b5[48], b6[48], b7[48];
    strbuf_reset(sb);
    d_text(d, sb, r->st->problems[p].id);
    strbuf_addstr(sb, " on ");
    d_text(d, sb, r->st->systems[s].id);
    d_heading_raw(d, 3, sb->buf);
    strbuf_reset(sb);
    strbuf_addf(sb, "Inputs from ");
    d_code(d, sb, m->path ? m->path : m->id);
    strbuf_addf(sb, ": g = %lld devices of the run per node", (long long)a->per_node);
    if (a->per_node > 1)
        strbuf_addf(sb, ", b_intra = %s GB/s, a_intra = %s us",
                    num(b1, sizeof b1, m->intra.bw_bs / 1e9), num(b2, sizeof b2, m->intra.latency_s * 1e6));
    strbuf_addf(sb, "; N = %lld node%s", (long long)a->nodes, a->nodes > 1 ? "s" : "");
    if (a->nodes > 1 && m->inter.nics)
        strbuf_addf(sb, ", B_node = %d NICs x %s GB/s = %s GB/s, a_inter = %s us", m->inter.nics,
                    num(b1, sizeof b1, m->inter.nic_bw_bs / 1e9), num(b2, sizeof b2, m->inter.bw_bs / 1e9),
                    num(b3, sizeof b3, m->inter.latency_s * 1e6));
    else if (a->nodes > 1)
        strbuf_addf(sb, ", B_node = %s GB/s, a_inter = %s us", num(b2, sizeof b2, m->inter.bw_bs / 1e9),
                    num(b3, sizeof b3, m->inter.latency_s * 1e6));
    strbuf_addf(sb, "; a_0 = %s us per call (NCCL's cost model).",
                num(b1, sizeof b1, COMM_CALL_LATENCY_S * 1e6));
    d_para(d, sb->buf);
    strbuf_reset(sb);
    strbuf_addf(sb, "Gradients: %s parameters (%s) x 4 B = %s MB, in %zu DDP buckets (1 MiB first, "
                    "then 25 MiB = 26214400 B, the rest last).  One 25 MiB all-reduce: "
                    "2 (g-1)/g x n / b_intra = %s us, 2 (g-1) x a_intra = %s us",
                num(b1, sizeof b1, l->parameters), l->parameters_from ? l->parameters_from : "from the study",
                num(b2, sizeof b2, cs->grad_bytes / 1e6), cs->n_buckets,
                num(b3, sizeof b3, a->intra_bw_s * 1e6), num(b4, sizeof b4, a->intra_lat_s * 1e6));
    /* (each number of one call in its own buffer: arguments are all
     * evaluated before the call) */
    if (a->nodes > 1)
        strbuf_addf(sb, a->inter_algo == COMM_TREE
                        ? "; across nodes a tree (cheaper than a ring here): 2 n / B_node = %s us, "
                          "2 ceil(log2 N) x a_inter = %s us"
                        : "; across nodes a ring (cheaper than a tree here): 2 (N-1)/N x n / B_node "
                          "= %s us, 2 (N-1) x a_inter = %s us",
                    num(b1, sizeof b1, a->inter_bw_s * 1e6), num(b2, sizeof b2, a->inter_lat_s * 1e6));
    strbuf_addf(sb, "; + a_0: %s us in all.", num(b1, sizeof b1, a->machine_s * 1e6));
    d_para(d, sb->buf);
    comm_source(d, c, sb);
    double pass = c->pass_s, share = l->exposed_comm_s / (pass + l->exposed_comm_s);
    strbuf_reset(sb);
    strbuf_addf(sb, "Overlap: the buckets' exchanges take %s ms per pass; the backward pass "
                    "(%s ms: the larger of its ops' device time and host dispatch time; gradients "
                    "taken to come at an even rate) hides all "
                    "but %s ms, which the pass waits for (the last bucket alone takes %s ms). "
                    "Exposed share of the step: %s / (%s + %s) = %.1f%%.",
                num(b1, sizeof b1, cs->total_s * 1e3), num(b2, sizeof b2, cs->backward_s * 1e3),
                num(b3, sizeof b3, l->exposed_comm_s * 1e3), num(b4, sizeof b4, cs->last_bucket_s * 1e3),
                num(b5, sizeof b5, l->exposed_comm_s * 1e3), num(b6, sizeof b6, pass * 1e3),
                num(b7, sizeof b7, l->exposed_comm_s * 1e3), 100 * share);
    d_para(d, sb->buf);
    size_t i = p * r->st->n_systems + s;
    if (!r->ev->scaling || !r->ev->scaling[i])
        return;
    size_t n = r->ev->n_scaling[i];
    const struct scaling_point *pt = r->ev->scaling[i];
    static const char *const head[] = {
        "devices per run", "nodes per run", "batch per device", "pass [ms]",
        "exposed exchange [ms]", "units/day, one run", "ideal [units/day]", "efficiency",
        "runs side by side", "units/day, system",
    };
    d_para(d, "Scaling (strong: one run on more devices, the batch split further; weak: as many "
              "runs side by side as the system holds).  Units/day of one run = 86400 s / (epochs "
              "x minibatches x (pass + exposed exchange)); ideal = the narrowest width's rate "
              "x the width ratio.");
    d_table_begin(d, head, sizeof head / sizeof head[0]);
    for (size_t k = 0; k < n; k++) {
        char v[10][48];
        char *cells[10];
        snprintf(v[0], 48, "%lld", (long long)pt[k].devices_per_run);
        snprintf(v[1], 48, "%lld", (long long)pt[k].nodes_per_run);
        num(v[2], 48, pt[k].per_device_batch);
        num(v[3], 48, pt[k].pass_s * 1e3);
        num(v[4], 48, pt[k].exposed_comm_s * 1e3);
        num(v[5], 48, pt[k].run_units_per_day);
        num(v[6], 48, pt[k].ideal_units_per_day);
        snprintf(v[7], 48, "%.1f%%", 100 * pt[k].run_units_per_day / pt[k].ideal_units_per_day);
        num(v[8], 48, pt[k].concurrent_runs);
        num(v[9], 48, pt[k].units_per_day);
        for (int q = 0; q < 10; q++)
            cells[q] = v[q];
        d_row(d, cells, 10);
    }
    d_table_end(d);
}

static void sec_comm(struct doc *d, const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    int any = 0;
    for (size_t p = 0; r->cells && p < r->st->n_problems; p++) {
        for (size_t s = 0; s < r->st->n_systems; s++) {
            const struct report_cell *c = &r->cells[p * r->st->n_systems + s];
            if (!c->estimated || !c->machine || c->layout.devices_per_run <= 1)
                continue;
            if (!any)
                d_heading(d, 2, "Communication", NULL);
            if (!any)
                d_para(d, "All-reduce of n bytes over g devices per node and N nodes (alpha-beta "
                          "model, src/model/comm.h): inside the node a ring reduce-scatter and "
                          "all-gather, 2 (g-1)/g x n / b_intra + 2 (g-1) x a_intra; across nodes "
                          "the g shards at once over the node's injection bandwidth, the cheaper "
                          "of a ring, 2 (N-1)/N x n / B_node + 2 (N-1) x a_inter, and a double "
                          "binary tree, 2 n / B_node + 2 ceil(log2 N) x a_inter; plus a_0 per "
                          "call.  Buckets are exchanged one at a time as the backward pass "
                          "fills them; only what runs past its end adds to the pass.");
            any = 1;
            comm_cell(d, r, p, s, &sb);
        }
    }
    strbuf_release(&sb);
}

static void sec_body(struct doc *d, const struct report *r)
{
    sec_header(d, r);
    sec_economics(d, r);
    sec_problems(d, r);
    sec_charts(d, r);
    sec_estimates(d, r);
    sec_comm(d, r);
    sec_assumptions(d, r);
    sec_uncertainty(d, r);
    sec_sources(d, r);
}

/* ---- charts ------------------------------------------------------------- */

/* gnuplot escapes < and & in the text of its SVG; refuse to inline a
 * document whose tags hold anything active all the same, so a surprise in
 * some gnuplot version cannot run in a reader's browser.  Only tags are
 * examined: text between them is inert once < is escaped. */
static int svg_inline_ok(const char *svg)
{
    const char *p = svg;
    while ((p = strchr(p, '<')) != NULL) {
        const char *end = strchr(p, '>');
        if (!end)
            return 0;
        if (strncasecmp(p, "<script", 7) == 0 || strncasecmp(p, "<foreignobject", 14) == 0 ||
            strncasecmp(p, "<iframe", 7) == 0)
            return 0;
        for (const char *q = p + 1; q < end; q++) {
            if (strncasecmp(q, "javascript:", 11) == 0)
                return 0;
            /* an event handler attribute: blank, "on", letters, "=" */
            if ((*q == ' ' || *q == '\t' || *q == '\n') && strncasecmp(q + 1, "on", 2) == 0) {
                const char *r = q + 3;
                while (r < end && ((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z')))
                    r++;
                if (r > q + 3 && r < end && *r == '=')
                    return 0;
            }
        }
        p = end + 1;
    }
    return 1;
}

static void sec_charts(struct doc *d, const struct report *r)
{
    struct strbuf *sb = &d->sb;
    if (!r->n_charts && !r->charts_note)
        return;
    d_heading(d, 2, "Charts", NULL);
    if (r->charts_note) {
        strbuf_reset(sb);
        d_text(d, sb, r->charts_note);
        d_para(d, sb->buf);
    }
    for (size_t i = 0; i < r->n_charts; i++) {
        const struct report_chart *c = &r->charts[i];
        if (!c->svg)
            continue;
        strbuf_reset(sb);
        if (d->html) {
            const char *start = strstr(c->svg, "<svg");
            fputs("<figure>\n", d->fp);
            if (start && svg_inline_ok(start))
                fprintf(d->fp, "<div class=\"chart\">%s</div>\n", start);
            else
                fputs("<p>(chart not inlined: unexpected content)</p>\n", d->fp);
            html_escape(sb, c->title);
            fprintf(d->fp, "<figcaption>%s", sb->buf);
            strbuf_reset(sb);
            html_escape(sb, c->id);
            fprintf(d->fp, " (<a href=\"%s.svg\">svg</a>", sb->buf);
            if (c->has_png)
                fprintf(d->fp, ", <a href=\"%s.png\">png</a>", sb->buf);
            fputs(")</figcaption>\n</figure>\n", d->fp);
        } else {
            strbuf_addstr(sb, "![");
            md_escape(sb, c->title);
            strbuf_addstr(sb, "](");
            strbuf_addstr(sb, c->id);   /* ids are ours: [a-z0-9-] */
            strbuf_addstr(sb, ".svg)");
            d_para(d, sb->buf);
        }
    }
}

/* ---- writers ------------------------------------------------------------ */

void report_write_md(FILE *fp, const struct report *r)
{
    struct doc d = { fp, 0, STRBUF_INIT };
    sec_body(&d, r);
    strbuf_release(&d.sb);
}

static const char html_css[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1180px;margin:2em auto;"
    "padding:0 1em;color:#222;background:#fff;line-height:1.45}"
    "h1{font-size:1.6em;border-bottom:2px solid #0072B2;padding-bottom:.2em}"
    "h2{font-size:1.3em;margin-top:1.6em;color:#0b3d66}h3{font-size:1.05em}"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}"
    "th{background:#eef3f8;text-align:left}td.n{text-align:right}"
    "tbody tr:nth-child(even){background:#f8f8f8}"
    "code{font-size:.9em;background:#f2f2f2;padding:0 .2em;word-break:break-all}"
    "figure{margin:1.2em 0}figcaption{font-size:.9em;color:#444}"
    ".chart svg{max-width:100%;height:auto;border:1px solid #e4e4e4}";

void report_write_html(FILE *fp, const struct report *r)
{
    struct doc d = { fp, 1, STRBUF_INIT };
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>", fp);
    html_escape(&d.sb, r->st->name);
    fputs(d.sb.buf, fp);
    fprintf(fp, "</title>\n<style>%s</style>\n</head>\n<body>\n", html_css);
    sec_body(&d, r);
    fputs("</body>\n</html>\n", fp);
    strbuf_release(&d.sb);
}

static void json_cell(struct json *j, const struct report *r, size_t p, size_t s)
{
    const struct report_cell *c = r->cells ? &r->cells[p * r->ev->n_systems + s] : NULL;
    double lo, hi;
    json_obj_begin(j);
    json_key(j, "estimated");
    json_bool(j, c && c->estimated);
    json_key(j, "ratio_interval");
    if (report_ratio_interval(r, p, s, &lo, &hi) != 0)
        lo = hi = NAN;
    json_interval(j, lo, hi);
    if (c && c->estimated) {
        json_knum(j, "pass_time_s", c->pass_s);
        json_knum(j, "pass_lo_s", c->pass_lo_s);
        json_knum(j, "pass_hi_s", c->pass_hi_s);
        json_key(j, "pass_time_ci");
        if (isfinite(c->pass_ci_lo_s) && isfinite(c->pass_ci_hi_s)) {
            json_obj_begin(j);
            json_knum(j, "lo_s", c->pass_ci_lo_s);
            json_knum(j, "hi_s", c->pass_ci_hi_s);
            json_obj_end(j);
        } else {
            json_null(j);
        }
        json_kstr(j, "bound", c->bound);
        json_kstr(j, "kernel_table_hw", c->machine_hw);
        json_kstr(j, "kernel_table_software", c->kernels_software);
        json_key(j, "time_by_method_s");
        json_obj_begin(j);
        for (size_t m = 0; m < c->n_methods; m++)
            json_knum(j, c->methods[m].name, c->methods[m].time_s);
        json_obj_end(j);
        json_key(j, "time_by_kind_s");
        json_obj_begin(j);
        for (size_t k = 0; k < c->n_kinds; k++)
            json_knum(j, c->kinds[k].name, c->kinds[k].time_s);
        json_obj_end(j);
        json_key(j, "ops");
        json_arr_begin(j);
        for (size_t k = 0; k < c->n_ops; k++) {
            const struct report_op *op = &c->ops[k];
            json_obj_begin(j);
            json_kstr(j, "name", op->name);
            json_kstr(j, "kind", op->kind);
            json_knum(j, "time_s", op->time_s);
            json_knum(j, "flops", op->flops);
            json_knum(j, "bytes", op->bytes);
            json_kstr(j, "method", op->method);
            json_kstr(j, "bound", op->bound);
            json_obj_end(j);
        }
        json_arr_end(j);
        json_key(j, "warnings");
        json_arr_begin(j);
        for (size_t w = 0; w < c->n_warnings; w++)
            json_str(j, c->warnings[w]);
        json_arr_end(j);
    }
    json_obj_end(j);
}

/* The "charts" key: every chart drawn, with its files. */
static void json_charts(struct json *j, const struct report *r)
{
    json_key(j, "charts");
    json_arr_begin(j);
    for (size_t i = 0; i < r->n_charts; i++) {
        json_obj_begin(j);
        json_kstr(j, "id", r->charts[i].id);
        json_kstr(j, "title", r->charts[i].title);
        json_key(j, "files");
        json_arr_begin(j);
        struct strbuf f = STRBUF_INIT;
        strbuf_addf(&f, "%s.svg", r->charts[i].id);
        json_str(j, f.buf);
        if (r->charts[i].has_png) {
            strbuf_reset(&f);
            strbuf_addf(&f, "%s.png", r->charts[i].id);
            json_str(j, f.buf);
        }
        strbuf_release(&f);
        json_arr_end(j);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* The "sources" key: the machine file of every system and the trace of
 * every estimated problem. */
static void json_sources(struct json *j, const struct report *r)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    json_key(j, "sources");
    json_obj_begin(j);
    json_key(j, "machines");
    json_obj_begin(j);
    for (size_t s = 0; s < ev->n_systems; s++) {
        const struct report_system *sy = r->systems ? &r->systems[s] : NULL;
        json_key(j, st->systems[s].id);
        if (!sy || !sy->machine_name) {
            json_null(j);
            continue;
        }
        json_obj_begin(j);
        json_kstr(j, "name", sy->machine_name);
        json_kstr(j, "file", sy->machine_path);
        json_kstr(j, "source", sy->machine_source);
        json_obj_end(j);
    }
    json_obj_end(j);
    json_key(j, "traces");
    json_obj_begin(j);
    for (size_t p = 0; r->problems && p < ev->n_problems; p++) {
        const struct report_problem *pr = &r->problems[p];
        if (!pr->profile_path)
            continue;
        json_key(j, st->problems[p].id);
        json_obj_begin(j);
        json_kstr(j, "file", pr->profile_path);
        json_kstr(j, "format", pr->profile_format);
        json_kstr(j, "device", pr->profile_device);
        json_kstr(j, "framework", pr->profile_framework);
        json_kint(j, "steps", pr->profile_steps);
        json_kint(j, "batch", pr->profile_batch);
        json_knum(j, "step_time_s", pr->profile_step_s > 0 ? pr->profile_step_s : NAN);
        json_obj_end(j);
    }
    json_obj_end(j);
    json_obj_end(j);
}

void report_write_json(FILE *fp, const struct report *r, const char *fom_json)
{
    const struct study *st = r->st;
    const struct study_eval *ev = r->ev;
    struct json j;
    json_init(&j, fp, 1);

    /* report.json is the fom document with more keys: copy it up to its
     * closing brace and carry on inside the same object */
    const char *end = fom_json ? strrchr(fom_json, '}') : NULL;
    const char *open = fom_json ? strchr(fom_json, '{') : NULL;
    if (open && end && end > open) {
        const char *last = end;
        while (last > open && (last[-1] == ' ' || last[-1] == '\n' || last[-1] == '\t'))
            last--;
        fwrite(fom_json, 1, (size_t)(last - fom_json), fp);
        j.depth = 1;
        j.count[1] = last - 1 > open ? 1 : 0;
    } else {
        json_obj_begin(&j);
        json_kstr(&j, "study", st->name);
    }

    json_kstr(&j, "fom_version", r->fom_version);
    json_kstr(&j, "charts_note", r->charts_note);
    json_charts(&j, r);
    json_sources(&j, r);

    json_key(&j, "breakdowns");
    json_arr_begin(&j);
    for (size_t p = 0; p < ev->n_problems; p++) {
        json_obj_begin(&j);
        json_kstr(&j, "id", st->problems[p].id);
        json_key(&j, "systems");
        json_obj_begin(&j);
        for (size_t s = 0; s < ev->n_systems; s++) {
            json_key(&j, st->systems[s].id);
            json_cell(&j, r, p, s);
        }
        json_obj_end(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    json_finish(&j);
}
