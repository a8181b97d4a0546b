#include "report/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *fmt_sig(char *buf, size_t n, double v, int sig, double exp_below)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return buf;
    }
    double a = fabs(v);
    if (a != 0 && (a < exp_below || a >= 1e15)) {
        snprintf(buf, n, "%.6g", v);
        return buf;
    }
    int dec = a == 0 ? 0 : sig - 1 - (int)floor(log10(a));
    if (dec < 0)
        dec = 0;
    snprintf(buf, n, "%.*f", dec, v);
    if (strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0')
            *e-- = '\0';
        if (*e == '.')
            *e = '\0';
    }
    return buf;
}

const char *fmt_fixed(char *buf, size_t n, double v, int dec)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (a != 0 && (a < 0.5 * pow(10, -dec) || a >= 1e15))
        snprintf(buf, n, "%.*e", dec, v);
    else
        snprintf(buf, n, "%.*f", dec, v);
    return buf;
}
