/* Numbers for people: significant digits without an exponent for everyday
 * magnitudes, trailing zeros dropped, "n/a" for what is not available. */
#ifndef FOM_NUMFMT_H
#define FOM_NUMFMT_H
#include <stddef.h>

/* sig significant digits; an exponent only below exp_below or from 1e15
 * up (magnitudes where fixed notation would hide the digits). */
const char *fmt_sig(char *buf, size_t n, double v, int sig, double exp_below);
/* dec decimals, "n/a" for NaN or infinity; a nonzero value that dec
 * decimals would show as zero (a ratio of 2.8e-304 is not "0.00"), or
 * one from 1e15 up, in scientific notation with dec + 1 significant
 * digits. */
const char *fmt_fixed(char *buf, size_t n, double v, int dec);

#endif
