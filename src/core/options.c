#include "core/options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "core/diag.h"
#include "core/xalloc.h"

void opt_list_release(struct opt_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Whether the subcommand sub takes o (its "only" list names sub). */
static int taken_by(const struct option *o, const char *sub)
{
    if (!o->only || !sub)
        return 1;
    size_t n = strlen(sub);
    for (const char *p = o->only; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, sub, n) == 0)
            return 1;
        p += len;
        while (*p == ' ')
            p++;
    }
    return 0;
}

/* "--format F" as the help and the messages show it. */
static size_t spelling(const struct option *o, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return len < 0 ? 0 : (size_t)len;
}

/* "  LEFT  help", the help's further lines under its first. */
static void print_option(FILE *fp, const char *left, const char *help, int width)
{
    const char *p = help ? help : "";
    int first = 1;
    do {
        size_t len = strcspn(p, "\n");
        fprintf(fp, "  %-*s  %.*s\n", width, first ? left : "", (int)len, p);
        p += len;
        if (*p == '\n')
            p++;
        first = 0;
    } while (*p);
}

void options_help(FILE *fp, const struct command_line *cl)
{
    static const char help_left[] = "-h, --help";
    char buf[128];
    int width = (int)strlen(help_left);
    for (const struct option *o = cl->opts; o && o->name; o++) {
        size_t len = spelling(o, buf, sizeof buf);
        if (taken_by(o, cl->sub) && (int)len > width)
            width = (int)len;
    }
    fputs(cl->usage, fp);
    for (const struct option *o = cl->opts; o && o->name; o++) {
        if (!taken_by(o, cl->sub))
            continue;
        spelling(o, buf, sizeof buf);
        print_option(fp, buf, o->help, width);
    }
    print_option(fp, help_left, "show this help", width);
}

static int vusage_error(const struct command_line *cl, struct diag *d, const char *fmt,
                        va_list ap)
{
    if (d->out)
        options_help(d->out, cl);
    return diag_vmsg(d, FOM_EUSAGE, "error", NULL, 0, 0, fmt, ap);
}

int options_usage_error(const struct command_line *cl, struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vusage_error(cl, d, fmt, ap);
    va_end(ap);
    return rc;
}

static int parse_pos_int(const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x <= 0)
        return -1;
    *out = x;
    return 0;
}

static const char *expected_of(const struct option *o)
{
    switch (o->kind) {
    case OPT_FORMAT:
        return "text, json or csv";
    case OPT_POS_INT:
        return "a positive integer";
    default:
        return o->expected ? o->expected : "a value";
    }
}

static void list_add(struct opt_list *l, const char *v)
{
    ALLOC_GROW(l->v, l->n + 1, l->alloc);
    l->v[l->n++] = v;
}

/* Store value v of option o. */
static int set_value(const struct command_line *cl, const struct option *o, const char *v,
                     struct diag *d)
{
    int bad = 0;
    if (!*v)
        return options_usage_error(cl, d, "%s: found an empty value, expected %s", o->name,
                                   expected_of(o));
    switch (o->kind) {
    case OPT_STRING:
        *(const char **)o->dst = v;
        break;
    case OPT_LIST:
        list_add(o->dst, v);
        break;
    case OPT_FORMAT:
        bad = out_format_parse(v, o->dst) != 0;
        break;
    case OPT_POS_INT:
        bad = parse_pos_int(v, o->dst) != 0;
        break;
    case OPT_CALLBACK:
        bad = o->parse(v, o->dst) != 0;
        break;
    case OPT_FLAG:
        break;
    }
    if (bad)
        return options_usage_error(cl, d, "%s: found '%s', expected %s", o->name, v,
                                   expected_of(o));
    return 0;
}

static const struct option *find_option(const struct option *opts, const char *a, size_t len)
{
    for (const struct option *o = opts; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, a, len) == 0)
            return o;
    return NULL;
}

/* One option argument argv[*i]; *seen counts the options given. */
static int parse_one(const struct command_line *cl, int argc, char **argv, int *i,
                     unsigned char *seen, struct diag *d)
{
    const char *a = argv[*i];
    const char *eq = a[1] == '-' || a[2] == '=' ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const struct option *o = find_option(cl->opts, a, len);
    /* -h and --help are in no table; only "--help=..." reaches here */
    if (!o && ((len == 2 && strncmp(a, "-h", 2) == 0) || (len == 6 && strncmp(a, "--help", 6) == 0)))
        return options_usage_error(cl, d, "option '%.*s' takes no value", (int)len, a);
    if (!o)
        return options_usage_error(cl, d, "unknown option '%.*s'", (int)len, a);
    if (!taken_by(o, cl->sub))
        return options_usage_error(cl, d, "%s is not an option of '%s %s'", o->name, cl->cmd,
                                   cl->sub);
    seen[o - cl->opts] = 1;
    if (o->kind == OPT_FLAG) {
        if (eq)
            return options_usage_error(cl, d, "option '%s' takes no value", o->name);
        *(int *)o->dst = 1;
        return 0;
    }
    if (!eq && *i + 1 >= argc)
        return options_usage_error(cl, d, "option '%s' needs a value", o->name);
    return set_value(cl, o, eq ? eq + 1 : argv[++*i], d);
}

static int wants_help(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int options_parse(const struct command_line *cl, int argc, char **argv, int first,
                  struct opt_list *args, FILE *help_out, struct diag *d)
{
    size_t n_opts = 0;
    while (cl->opts && cl->opts[n_opts].name)
        n_opts++;
    unsigned char *seen = xcalloc(n_opts + 1, 1);
    int rc = 0, only_args = 0;
    if (wants_help(argc, argv, first)) {
        options_help(help_out, cl);
        rc = OPT_HELP;
        goto out;
    }
    for (int i = first; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || !a[1])
            list_add(args, a);
        else if (strcmp(a, "--") == 0)
            only_args = 1;
        else
            rc = parse_one(cl, argc, argv, &i, seen, d);
    }
    for (size_t k = 0; k < n_opts && !rc; k++) {
        const struct option *o = &cl->opts[k];
        if (o->required && !seen[k] && taken_by(o, cl->sub)) {
            char buf[128];
            spelling(o, buf, sizeof buf);
            rc = options_usage_error(cl, d, "missing %s", buf);
        }
    }
out:
    free(seen);
    return rc;
}
