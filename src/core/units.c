#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit_def {
    const char *name;
    enum qty q;
    double scale;
};

/* Case matters for the prefix (m vs M) but not for the word (FLOP, flop). */
static const struct unit_def units[] = {
    { "ns", QTY_TIME, 1e-9 }, { "us", QTY_TIME, 1e-6 }, { "\xc2\xb5s", QTY_TIME, 1e-6 },
    { "ms", QTY_TIME, 1e-3 }, { "s", QTY_TIME, 1.0 }, { "sec", QTY_TIME, 1.0 },
    { "min", QTY_TIME, 60.0 }, { "h", QTY_TIME, 3600.0 }, { "hr", QTY_TIME, 3600.0 },
    { "d", QTY_TIME, 86400.0 }, { "day", QTY_TIME, 86400.0 },

    { "FLOP/s", QTY_RATE, 1.0 }, { "KFLOP/s", QTY_RATE, 1e3 }, { "MFLOP/s", QTY_RATE, 1e6 },
    { "GFLOP/s", QTY_RATE, 1e9 }, { "TFLOP/s", QTY_RATE, 1e12 }, { "PFLOP/s", QTY_RATE, 1e15 },
    { "EFLOP/s", QTY_RATE, 1e18 },
    { "FLOPS", QTY_RATE, 1.0 }, { "GFLOPS", QTY_RATE, 1e9 }, { "TFLOPS", QTY_RATE, 1e12 },
    { "PFLOPS", QTY_RATE, 1e15 },
    { "OP/s", QTY_RATE, 1.0 }, { "GOP/s", QTY_RATE, 1e9 }, { "TOP/s", QTY_RATE, 1e12 },
    { "TOPS", QTY_RATE, 1e12 }, { "POP/s", QTY_RATE, 1e15 },

    { "B/s", QTY_BW, 1.0 }, { "KB/s", QTY_BW, 1e3 }, { "MB/s", QTY_BW, 1e6 },
    { "GB/s", QTY_BW, 1e9 }, { "TB/s", QTY_BW, 1e12 },
    { "KiB/s", QTY_BW, 1024.0 }, { "MiB/s", QTY_BW, 1048576.0 },
    { "GiB/s", QTY_BW, 1073741824.0 }, { "TiB/s", QTY_BW, 1099511627776.0 },
    { "Gbit/s", QTY_BW, 1e9 / 8 }, { "Gb/s", QTY_BW, 1e9 / 8 },

    { "B", QTY_BYTES, 1.0 }, { "KB", QTY_BYTES, 1e3 }, { "MB", QTY_BYTES, 1e6 },
    { "GB", QTY_BYTES, 1e9 }, { "TB", QTY_BYTES, 1e12 },
    { "KiB", QTY_BYTES, 1024.0 }, { "MiB", QTY_BYTES, 1048576.0 },
    { "GiB", QTY_BYTES, 1073741824.0 }, { "TiB", QTY_BYTES, 1099511627776.0 },

    { "W", QTY_POWER, 1.0 }, { "kW", QTY_POWER, 1e3 }, { "MW", QTY_POWER, 1e6 },
};

static const char *const expected_text[QTY_COUNT_] = {
    [QTY_TIME] = "a number with a time unit (ns, us, ms, s, min, h, d)",
    [QTY_RATE] = "a number with a rate unit (GFLOP/s, TFLOP/s, PFLOP/s, TOP/s)",
    [QTY_BW] = "a number with a bandwidth unit (MB/s, GB/s, TB/s, GiB/s, Gbit/s)",
    [QTY_BYTES] = "a number with a size unit (B, KB, MB, GB, KiB, MiB, GiB, TiB)",
    [QTY_POWER] = "a number with a power unit (W, kW, MW)",
};

/* DBL_MIN and DBL_MAX, rounded outwards to two digits. */
static const char *const too_small_text[QTY_COUNT_] = {
    [QTY_TIME] = "a time of at least 2.2e-308 s (the value is below the smallest positive time)",
    [QTY_RATE] = "a rate of at least 2.2e-308 FLOP/s (the value is below the smallest positive rate)",
    [QTY_BW] = "a bandwidth of at least 2.2e-308 B/s (the value is below the smallest positive "
               "bandwidth)",
    [QTY_BYTES] = "a size of at least 2.2e-308 B (the value is below the smallest positive size)",
    [QTY_POWER] = "a power of at least 2.2e-308 W (the value is below the smallest positive power)",
};
static const char *const too_large_text[QTY_COUNT_] = {
    [QTY_TIME] = "a time below 1.8e308 s (the value is out of range, not the unit)",
    [QTY_RATE] = "a rate below 1.8e308 FLOP/s (the value is out of range, not the unit)",
    [QTY_BW] = "a bandwidth below 1.8e308 B/s (the value is out of range, not the unit)",
    [QTY_BYTES] = "a size below 1.8e308 B (the value is out of range, not the unit)",
    [QTY_POWER] = "a power below 1.8e308 W (the value is out of range, not the unit)",
};

static const char *const base_names[QTY_COUNT_] = {
    [QTY_TIME] = "s", [QTY_RATE] = "FLOP/s", [QTY_BW] = "B/s",
    [QTY_BYTES] = "B", [QTY_POWER] = "W",
};

const char *unit_base_name(enum qty q)
{
    return (unsigned)q < QTY_COUNT_ ? base_names[q] : "?";
}

static int unit_name_eq(const char *a, const char *b)
{
    /* Exact match first; then tolerate "flop/s" vs "FLOP/s" in the word part
     * only, keeping the prefix letter (m/M) case-sensitive. */
    if (strcmp(a, b) == 0)
        return 1;
    if (!*a || !*b || a[0] != b[0])
        return 0;
    if (strlen(a) < 4)
        return 0;
    return strcasecmp(a + 1, b + 1) == 0 && strchr("KMGTPE", a[0]) != NULL;
}

/* The unit of text (after the number at end) among those of q, or NULL;
 * NULL too when anything follows it. */
static const struct unit_def *unit_of(const char *end, enum qty q)
{
    while (isspace((unsigned char)*end))
        end++;
    char unit[32];
    size_t ulen = strcspn(end, " \t\r\n");
    if (ulen == 0 || ulen >= sizeof unit)
        return NULL;
    memcpy(unit, end, ulen);
    unit[ulen] = '\0';
    const char *rest = end + ulen;
    while (isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        return NULL;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (units[i].q == q && unit_name_eq(unit, units[i].name))
            return &units[i];
    return NULL;
}

int unit_parse(const char *text, enum qty q, double *out, const char **expected)
{
    int ok_q = (unsigned)q < QTY_COUNT_;
    if (expected)
        *expected = ok_q ? expected_text[q] : "a quantity";
    if (!text || !ok_q)
        return UNIT_EFORM;
    while (isspace((unsigned char)*text))
        text++;
    /* strtod accepts "nan", "inf" and hex floats; none belong in a datasheet. */
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return UNIT_EFORM;
    for (const char *s = p; *s && !isspace((unsigned char)*s); s++)
        if (*s == 'x' || *s == 'X')
            return UNIT_EFORM;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || isnan(v))
        return UNIT_EFORM;
    const struct unit_def *u = unit_of(end, q);
    if (!u)
        return UNIT_EFORM;
    /* well formed: what is left to go wrong is the size of the value */
    double r = v * u->scale;
    int too_large = !isfinite(r);
    /* strtod gives 0 with ERANGE for "1e-400": below range, not zero */
    int too_small = (r != 0 && fabs(r) < DBL_MIN) || (r == 0 && errno == ERANGE);
    if (too_large || too_small) {
        if (expected)
            *expected = too_large ? too_large_text[q] : too_small_text[q];
        return UNIT_ERANGE;
    }
    *out = r;
    return 0;
}

char *unit_format(double v, enum qty q, char *buf, size_t n)
{
    static const char *const pre[] = { "", "K", "M", "G", "T", "P", "E" };
    if (!isfinite(v)) {
        snprintf(buf, n, "%g %s", v, unit_base_name(q));
        return buf;
    }
    if (q == QTY_TIME) {
        double a = fabs(v);
        if (a == 0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-6)
            snprintf(buf, n, "%.4g ns", v * 1e9);
        else if (a < 1e-3)
            snprintf(buf, n, "%.4g us", v * 1e6);
        else if (a < 1.0)
            snprintf(buf, n, "%.4g ms", v * 1e3);
        else if (a < 120.0)
            snprintf(buf, n, "%.4g s", v);
        else if (a < 7200.0)
            snprintf(buf, n, "%.4g min", v / 60);
        else if (a < 172800.0)
            snprintf(buf, n, "%.4g h", v / 3600);
        else
            snprintf(buf, n, "%.4g d", v / 86400);
        return buf;
    }
    int i = 0;
    double a = fabs(v);
    while (a >= 1000.0 && i < 6) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    const char *base = unit_base_name(q);
    snprintf(buf, n, "%.4g %s%s", v, pre[i], base);
    return buf;
}
