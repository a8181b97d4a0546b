#include "core/units.h"

#include <ctype.h>
#include <errno.h>
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

int unit_parse(const char *text, enum qty q, double *out, const char **expected)
{
    const char *exp = (unsigned)q < QTY_COUNT_ ? expected_text[q] : "a quantity";
    if (expected)
        *expected = exp;
    if (!text)
        return -1;
    while (isspace((unsigned char)*text))
        text++;
    /* strtod accepts "nan", "inf" and hex floats; none belong in a datasheet. */
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return -1;
    for (const char *s = p; *s && !isspace((unsigned char)*s); s++)
        if (*s == 'x' || *s == 'X')
            return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    char unit[32];
    size_t ulen = strcspn(end, " \t\r\n");
    if (ulen == 0 || ulen >= sizeof unit)
        return -1;
    memcpy(unit, end, ulen);
    unit[ulen] = '\0';
    const char *rest = end + ulen;
    while (isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (units[i].q == q && unit_name_eq(unit, units[i].name)) {
            double r = v * units[i].scale;
            if (!isfinite(r))
                return -1;
            *out = r;
            return 0;
        }
    }
    return -1;
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
