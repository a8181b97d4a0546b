#include "report/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j, FILE *fp, int pretty)
{
    j->fp = fp;
    j->depth = 0;
    j->pretty = pretty;
    j->count[0] = 0;
    j->after_key = 0;
    j->line_from = 0;
    j->last_num = 0;    /* 0 is never remembered: json_num prints it apart */
    j->last_text[0] = '\0';
    j->out_n = 0;
}

void json_flush(struct json *j)
{
    if (j->out_n)
        fwrite(j->out, 1, j->out_n, j->fp);
    j->out_n = 0;
}

static void put(struct json *j, const void *s, size_t n)
{
    if (n > sizeof j->out - j->out_n) {
        json_flush(j);
        if (n >= sizeof j->out) {
            fwrite(s, 1, n, j->fp);
            return;
        }
    }
    memcpy(j->out + j->out_n, s, n);
    j->out_n += n;
}

static void put_str(struct json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void put_ch(struct json *j, char c)
{
    if (j->out_n == sizeof j->out)
        json_flush(j);
    j->out[j->out_n++] = c;
}

/* A newline and two spaces per level, JSON_MAX_DEPTH levels at most: one
 * copy per line instead of one per level (profiles of a million
 * ops write tens of millions of lines). */
static const char indent_text[1 + 2 * JSON_MAX_DEPTH + 1] =
    "\n                                                                ";

static void indent(struct json *j)
{
    if (!j->pretty)
        return;
    put(j, indent_text, 1 + 2 * (size_t)j->depth);
}

/* What goes before any value or key, into buf (at least SEP_MAX bytes);
 * returns its length. */
#define SEP_MAX (2 + 2 * JSON_MAX_DEPTH)
static size_t sep_text(struct json *j, char *buf)
{
    size_t n = 0;
    if (j->after_key) {
        j->after_key = 0;
        return 0;
    }
    if (j->depth > 0) {
        if (j->count[j->depth] > 0)
            buf[n++] = ',';
        if (j->pretty && j->line_from) {
            if (j->count[j->depth] > 0)
                buf[n++] = ' ';
        } else if (j->pretty) {
            memcpy(buf + n, indent_text, 1 + 2 * (size_t)j->depth);
            n += 1 + 2 * (size_t)j->depth;
        }
    }
    j->count[j->depth]++;
    return n;
}

/* Called before any value or key. */
static void sep(struct json *j)
{
    char buf[SEP_MAX];
    size_t n = sep_text(j, buf);
    if (n)
        put(j, buf, n);
}

static void open(struct json *j, int c)
{
    sep(j);
    put_ch(j, (char)c);
    if (j->depth < JSON_MAX_DEPTH - 1)
        j->depth++;
    j->count[j->depth] = 0;
}

static void close_(struct json *j, int c)
{
    int had = j->count[j->depth] > 0;
    int on_line = j->line_from != 0;
    if (j->depth == j->line_from)
        j->line_from = 0;
    if (j->depth > 0)
        j->depth--;
    if (had && !on_line)
        indent(j);
    put_ch(j, (char)c);
}

void json_obj_begin(struct json *j) { open(j, '{'); }

void json_obj_begin_line(struct json *j)
{
    open(j, '{');
    if (!j->line_from)
        j->line_from = j->depth;
}

void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

/* Length of the well-formed UTF-8 sequence starting at p (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF), or 0. */
static int utf8_seq_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c < 0xc2 || c > 0xf4)
        return 0;
    n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* Bytes that json_write_string copies as they are. */
static int plain_byte(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void write_string(struct json *j, const char *s)
{
    /* short plain strings (kinds, methods, most names) in one write */
    char buf[130];
    size_t n = 0;
    while (n < sizeof buf - 2 && s[n] && plain_byte((unsigned char)s[n]))
        n++;
    if (!s[n]) {
        buf[0] = '"';
        memcpy(buf + 1, s, n);
        buf[n + 1] = '"';
        put(j, buf, n + 2);
        return;
    }
    put_ch(j, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (plain_byte(*p)) {
            /* runs of plain bytes in one call: names are mostly plain */
            const unsigned char *q = p + 1;
            while (plain_byte(*q))
                q++;
            put(j, p, (size_t)(q - p));
            p = q - 1;
            continue;
        }
        if (*p >= 0x80) {
            /* Names come from traces that may hold any bytes; JSON must be
             * UTF-8, so a byte that starts no valid sequence becomes U+FFFD. */
            int sl = utf8_seq_len(p);
            if (sl) {
                put(j, p, (size_t)sl);
                p += sl - 1;
            } else {
                put_str(j, "\ufffd");
            }
            continue;
        }
        switch (*p) {
        case '"': put_str(j, "\\\""); break;
        case '\\': put_str(j, "\\\\"); break;
        case '\n': put_str(j, "\\n"); break;
        case '\r': put_str(j, "\\r"); break;
        case '\t': put_str(j, "\\t"); break;
        case '\b': put_str(j, "\\b"); break;
        case '\f': put_str(j, "\\f"); break;
        default:
            if (*p < 0x20) {
                char u[8];
                snprintf(u, sizeof u, "\\u%04x", *p);
                put_str(j, u);
            } else {
                put_ch(j, (char)*p);
            }
        }
    }
    put_ch(j, '"');
}

/* The longest key json_key writes in one call with what comes before it;
 * the keys of the renderers are a few words. */
#define KEY_FAST_MAX 64

void json_key(struct json *j, const char *key)
{
    size_t kl = 0;
    while (kl <= KEY_FAST_MAX && key[kl] && plain_byte((unsigned char)key[kl]))
        kl++;
    if (!key[kl]) {
        /* separator, indentation, the key and the colon in one write: a
         * saved profile or estimate of a million ops has tens of millions
         * of keys */
        char buf[SEP_MAX + KEY_FAST_MAX + 8];
        size_t n = sep_text(j, buf);
        buf[n++] = '"';
        memcpy(buf + n, key, kl);
        n += kl;
        buf[n++] = '"';
        buf[n++] = ':';
        if (j->pretty)
            buf[n++] = ' ';
        put(j, buf, n);
        j->after_key = 1;
        return;
    }
    sep(j);
    write_string(j, key);
    put_str(j, j->pretty ? ": " : ":");
    j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
    sep(j);
    if (s)
        write_string(j, s);
    else
        put_str(j, "null");
}

/* x in decimal, written into the end of buf (of at least 24 bytes);
 * returns where the text starts.  What "%" PRId64 prints, without the
 * format parsing. */
static const char *fmt_i64(char *buf, int64_t x)
{
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    char *b = buf + 23;
    *b = '\0';
    do {
        *--b = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0)
        *--b = '-';
    return b;
}

/* Whole numbers below 1e15 in magnitude as fmt_i64 writes them, or NULL
 * for any other v.  For these "%.15g" and "%.17g" print the same digits
 * (at most 15, no exponent, no fraction), and they read back exactly;
 * counts, sizes, flops and bytes are mostly such numbers, and printf's
 * floating-point path costs several times more. */
static const char *fmt_whole(char *buf, double v)
{
    if (!(v > -1e15 && v < 1e15) || v != (double)(int64_t)v)
        return NULL;
    return fmt_i64(buf, (int64_t)v);
}

/* Powers of ten that a double holds exactly (5^22 < 2^53). */
static const double pow10_exact[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* "%.15g"'s text of (neg ? -1 : 1) * n / 10^k for a whole n of at most
 * 15 digits (its trailing zeros dropped): the fixed form, or the exponent
 * form below 1e-4, into buf (32 bytes).  NULL at 1e15 and above, where
 * printf writes an exponent this does not. */
static const char *g15_text(char *buf, int neg, uint64_t n, int k)
{
    while (n % 10 == 0 && k > 0) {
        n /= 10;
        k--;
    }
    char digits[24];
    int len = 0;
    for (uint64_t u = n; u; u /= 10)
        digits[len++] = (char)('0' + u % 10);
    /* digits holds n backwards; x10 the exponent of its leading digit */
    int x10 = len - 1 - k;
    if (x10 >= 15)
        return NULL;
    char *b = buf;
    if (neg)
        *b++ = '-';
    if (x10 < -4) {
        *b++ = digits[len - 1];
        if (len > 1) {
            *b++ = '.';
            for (int i = len - 2; i >= 0; i--)
                *b++ = digits[i];
        }
        b += sprintf(b, "e-%02d", -x10);
    } else if (x10 >= 0) {
        for (int i = len - 1; i >= 0; i--) {
            *b++ = digits[i];
            if (i == k && i > 0)
                *b++ = '.';
        }
    } else {
        *b++ = '0';
        *b++ = '.';
        for (int i = -1; i > x10; i--)
            *b++ = '0';
        for (int i = len - 1; i >= 0; i--)
            *b++ = digits[i];
    }
    *b = '\0';
    return buf;
}

/* What "%.15g" prints for v, written into buf (32 bytes), when v is the
 * double nearest to N / 10^k for a whole N below 1e15 and k <= 22; NULL
 * otherwise (the caller asks printf).  Times such as 5e-06 or 4.99992 are
 * mostly such numbers, and printf's exact binary-to-decimal path (with
 * strtod's check) was two fifths of writing a million-op profile.
 *
 * Why the text is printf's: N and 10^k are exact doubles, so N / 10^k
 * is the correctly rounded quotient, the same double strtod gives for
 * the decimal N * 10^-k; the check below makes v that double, so the
 * text reads back as v.  v lies within half an ulp (2^-53 relative) of
 * N * 10^-k, and N has at most 15 significant digits, so rounding v to
 * 15 digits (half a unit of the 15th digit is at least 5e-16 relative)
 * gives back N's digits: "%.15g" prints them, trailing zeros dropped,
 * in its fixed or exponent form by the decimal exponent. */
static const char *fmt_decimal(char *buf, double v)
{
    double a = fabs(v);
    if (!(a > 0 && a < 1e15))
        return NULL;
    /* One k is tried, the largest (up to 22) with a * 10^k below 1e15: if
     * some N' / 10^k' reads back as v, so does N' * 10^(k - k') / 10^k (a
     * whole number below 1e15, an exact double, within a quarter of
     * a * 10^k, so nearbyint finds it); trailing zeros go below. */
    int k = 14 - (int)floor(log10(a));
    k = k < 0 ? 0 : k > 22 ? 22 : k;
    while (k > 0 && !(a * pow10_exact[k] < 1e15))
        k--;
    while (k < 22 && a * pow10_exact[k + 1] < 1e15)
        k++;
    double x = a * pow10_exact[k];
    if (!(x < 1e15))
        return NULL;
    double r = nearbyint(x);
    if (!(r > 0 && r / pow10_exact[k] == a))
        return NULL;
    return g15_text(buf, v < 0, (uint64_t)r, k);
}

/* The rounding error of the product hi = a * b: a * b == hi + the
 * result exactly (Dekker's product, splitting each factor into halves of
 * 26 bits; IEEE doubles with rounding to nearest, no overflow). */
static double product_error(double a, double b, double hi)
{
    const double split = 134217729.0;   /* 2^27 + 1 */
    double t = split * a, ah = t - (t - a), al = a - ah;
    t = split * b;
    double bh = t - (t - b), bl = b - bh;
    return ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
}

/* What "%.15g" prints for any v with 1e-7 <= |v| < 1e15, or NULL where
 * this cannot say it cheaply (the caller asks printf).  Estimates and
 * other computed times are not short decimals, and printf's exact
 * binary-to-decimal path was the largest part of writing them.
 *
 * Why the text is printf's: "%.15g" prints v's exact binary value rounded
 * to 15 significant digits.  With k such that 10^14 <= |v| * 10^k < 10^15
 * (k <= 21 here, so 10^k is an exact double), the product is hi + lo
 * exactly (product_error), so its fraction above floor(hi) is known to
 * within 2^-53: rounding to the nearest whole number gives printf's 15
 * digits, unless the fraction is within 2^-30 of one half, which is left
 * to printf. */
static const char *fmt_g15(char *buf, double v)
{
    double a = fabs(v);
    if (!(a >= 1e-7 && a < 1e15))
        return NULL;
    int k = 14 - (int)floor(log10(a));
    if (k < 0)
        k = 0;
    double hi = a * pow10_exact[k];
    if (hi >= 1e15 && k > 0)
        hi = a * pow10_exact[--k];
    else if (hi < 1e14 && k < 22)
        hi = a * pow10_exact[++k];
    if (!(hi >= 1e14 && hi < 1e15))
        return NULL;
    double lo = product_error(a, pow10_exact[k], hi);
    double r = floor(hi), f = (hi - r) + lo;
    if (fabs(f - 0.5) < 0x1p-30)
        return NULL;
    uint64_t n = (uint64_t)r + (f > 0.5) - (f < -0.5);
    if (n < 100000000000000ULL)
        return NULL;
    if (n >= 1000000000000000ULL) {
        /* rounded up to 10^15: 15 digits are 10^14 at one digit less */
        if (k == 0)
            return NULL;
        n /= 10;
        k--;
    }
    return g15_text(buf, v < 0, n, k);
}

void json_num(struct json *j, double v)
{
    char buf[24];
    const char *w;
    sep(j);
    if (!isfinite(v))
        put_str(j, "null");
    else if (v == 0)
        put_ch(j, '0');
    else if ((w = fmt_whole(buf, v)))
        put(j, w, (size_t)(buf + 23 - w));
    else {
        if (v != j->last_num) {
            if (!fmt_decimal(j->last_text, v) && !fmt_g15(j->last_text, v))
                snprintf(j->last_text, sizeof j->last_text, "%.15g", v);
            j->last_num = v;
        }
        put_str(j, j->last_text);
    }
}

const char *num_fmt_exact(char *buf, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "null");
        return buf;
    }
    if (v == 0) {
        snprintf(buf, n, "0");
        return buf;
    }
    char whole[24];
    const char *w = fmt_whole(whole, v);
    if (w) {
        snprintf(buf, n, "%s", w);
        return buf;
    }
    if (n >= 32 && fmt_decimal(buf, v))
        return buf;
    /* no 15-digit decimal N * 10^-k with k <= 22 reads back as v: "%.15g"
     * cannot either when 1e-7 <= |v| < 1e15 (its 15 digits end between
     * 10^-21 and 10^0), so the search starts at 16 digits there */
    int first = fabs(v) >= 1e-7 && fabs(v) < 1e15 ? 16 : 15;
    for (int digits = first; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (digits == 17 || strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void json_num_exact(struct json *j, double v)
{
    char buf[32];
    sep(j);
    put_str(j, num_fmt_exact(buf, sizeof buf, v));
}

void json_num_row(struct json *j, const double *v, size_t n)
{
    char buf[32];
    sep(j);
    put_ch(j, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            put_ch(j, ',');
        put_str(j, num_fmt_exact(buf, sizeof buf, v[i]));
    }
    put_ch(j, ']');
}

void json_int(struct json *j, int64_t v)
{
    char buf[24];
    const char *t = fmt_i64(buf, v);
    sep(j);
    put(j, t, (size_t)(buf + 23 - t));
}

void json_bool(struct json *j, int v)
{
    sep(j);
    put_str(j, v ? "true" : "false");
}

void json_null(struct json *j)
{
    sep(j);
    put_str(j, "null");
}

void json_kstr(struct json *j, const char *key, const char *s) { json_key(j, key); json_str(j, s); }
void json_knum(struct json *j, const char *key, double v) { json_key(j, key); json_num(j, v); }
void json_kint(struct json *j, const char *key, int64_t v) { json_key(j, key); json_int(j, v); }

void json_interval(struct json *j, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        json_null(j);
        return;
    }
    json_obj_begin(j);
    json_knum(j, "lo", lo);
    json_knum(j, "hi", hi);
    json_obj_end(j);
}

void json_finish(struct json *j)
{
    put_ch(j, '\n');
    json_flush(j);
}
