/* Quantities with units, as written in machine and study files:
 * "60h", "3612 s", "989.4 TFLOP/s", "3.35 TB/s", "80 GiB", "2.5us", "700 W".
 * Values are returned in base SI units (s, FLOP/s, B/s, B, W).  Decimal
 * prefixes are powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers of
 * 1024: vendors mix them and a 7% error in capacity is not a rounding
 * detail. */
#ifndef FOM_UNITS_H
#define FOM_UNITS_H
#include <stddef.h>

enum qty {
    QTY_TIME,     /* s */
    QTY_RATE,     /* FLOP/s (also OP/s, for int8) */
    QTY_BW,       /* B/s */
    QTY_BYTES,    /* B */
    QTY_POWER,    /* W */
    QTY_COUNT_,
};

/* Parse text as a quantity of kind q.  On success stores the SI value in
 * *out and returns 0.  On failure returns UNIT_EFORM (no number, no or
 * a wrong unit, junk) or UNIT_ERANGE (a well-formed quantity whose value
 * in SI units is not a normal double: beyond 1.8e308, or nonzero and
 * below 2.2e-308, DBL_MAX and DBL_MIN) and points *expected at a static
 * description of what would have been accepted (for the error message);
 * for UNIT_ERANGE it says that the value, not the unit, is the problem.
 * NaN, infinities and trailing junk are rejected; the sign is accepted
 * here and judged by the caller, which knows whether zero or negative
 * makes sense. */
#define UNIT_EFORM (-1)
#define UNIT_ERANGE (-2)
int unit_parse(const char *text, enum qty q, double *out, const char **expected);

/* The canonical unit name of a kind: "s", "FLOP/s", "B/s", "B", "W". */
const char *unit_base_name(enum qty q);

/* Human formatting with a fitting prefix, e.g. 1.5e12 FLOP/s -> "1.5 TFLOP/s",
 * 0.0021 s -> "2.1 ms".  Writes at most n bytes into buf and returns buf. */
char *unit_format(double v, enum qty q, char *buf, size_t n);

#endif
