/* Charts through gnuplot, run as a subprocess with a fixed argv and its
 * script on stdin; the image comes back on its stdout so that we, not
 * gnuplot, write the output file (atomically, like every other output).
 *
 * Chart builders write a script body (everything after "set terminal")
 * into a strbuf: numbers go inline as data blocks, and every string that
 * came from a user file goes through gp_quote(), which makes it a
 * single-quoted gnuplot string (no escape, macro or backtick processing
 * inside; a leading quote makes it the expression "'" . '...')
 * with newlines and control characters replaced.  Terminals are set
 * "noenhanced" so that ^ _ @ { } in names are shown, not interpreted. */
#ifndef FOM_GNUPLOT_H
#define FOM_GNUPLOT_H
#include <stddef.h>

struct diag;
struct strbuf;

enum gp_term { GP_SVG, GP_PNG };

/* Returned by the render functions when no gnuplot executable is on PATH;
 * distinct from every enum fom_status so callers can say "charts skipped:
 * gnuplot not found" and carry on with text and JSON. */
#define GP_NOT_FOUND (-1)

/* "x.svg" -> GP_SVG, "x.png" -> GP_PNG; -1 for any other extension. */
int gp_term_from_path(const char *path);
const char *gp_term_ext(enum gp_term t);   /* "svg", "png" */

/* Append s as a gnuplot single-quoted string literal (with the quotes):
 * ' doubles (a leading ' becomes "'" . '...', an expression gnuplot
 * accepts wherever a label goes), newlines/tabs/control bytes become spaces, and overly long
 * labels are cut at max_chars bytes (0 = no limit) on a UTF-8 boundary
 * with "..." appended. */
void gp_quote(struct strbuf *sb, const char *s, size_t max_chars);

/* Append a number the way gnuplot reads it back exactly ("%.9g"); NaN and
 * infinities become "NaN", which gnuplot skips as missing. */
void gp_num(struct strbuf *sb, double v);

/* Full path of the gnuplot executable found on PATH, or NULL.  The caller
 * frees it. */
char *gnuplot_find(void);

/* Run gnuplot on body with terminal t at width x height pixels; the image
 * bytes are appended to *image.  Returns 0, GP_NOT_FOUND, or FOM_ESYS
 * (gnuplot failed: its first error line is reported through d). */
int gnuplot_render(const char *body, enum gp_term t, int width, int height,
                   struct strbuf *image, struct diag *d);

/* Render and write path atomically; the terminal follows the extension. */
int gnuplot_write(const char *path, const char *body, int width, int height,
                  struct diag *d);

#endif
