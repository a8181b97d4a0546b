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
    j->last_num = 0;    /* 0 is never remembered: json_num prints it apart */
    j->last_text[0] = '\0';
}

/* A newline and two spaces per level, JSON_MAX_DEPTH levels at most: one
 * fwrite per line instead of one call per level (profiles of a million
 * ops write tens of millions of lines). */
static const char indent_text[1 + 2 * JSON_MAX_DEPTH + 1] =
    "\n                                                                ";

static void indent(struct json *j)
{
    if (!j->pretty)
        return;
    fwrite(indent_text, 1, 1 + 2 * (size_t)j->depth, j->fp);
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
        if (j->pretty) {
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
        fwrite(buf, 1, n, j->fp);
}

static void open(struct json *j, int c)
{
    sep(j);
    fputc(c, j->fp);
    if (j->depth < JSON_MAX_DEPTH - 1)
        j->depth++;
    j->count[j->depth] = 0;
}

static void close_(struct json *j, int c)
{
    int had = j->count[j->depth] > 0;
    if (j->depth > 0)
        j->depth--;
    if (had)
        indent(j);
    fputc(c, j->fp);
}

void json_obj_begin(struct json *j) { open(j, '{'); }
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

void json_write_string(FILE *fp, const char *s)
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
        fwrite(buf, 1, n + 2, fp);
        return;
    }
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (plain_byte(*p)) {
            /* runs of plain bytes in one call: names are mostly plain */
            const unsigned char *q = p + 1;
            while (plain_byte(*q))
                q++;
            fwrite(p, 1, (size_t)(q - p), fp);
            p = q - 1;
            continue;
        }
        if (*p >= 0x80) {
            /* Names come from traces that may hold any bytes; JSON must be
             * UTF-8, so a byte that starts no valid sequence becomes U+FFFD. */
            int sl = utf8_seq_len(p);
            if (sl) {
                fwrite(p, 1, (size_t)sl, fp);
                p += sl - 1;
            } else {
                fputs("\ufffd", fp);
            }
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        case '\b': fputs("\\b", fp); break;
        case '\f': fputs("\\f", fp); break;
        default:
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp);
        }
    }
    fputc('"', fp);
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
        fwrite(buf, 1, n, j->fp);
        j->after_key = 1;
        return;
    }
    sep(j);
    json_write_string(j->fp, key);
    fputs(j->pretty ? ": " : ":", j->fp);
    j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
    sep(j);
    if (s)
        json_write_string(j->fp, s);
    else
        fputs("null", j->fp);
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

void json_num(struct json *j, double v)
{
    char buf[24];
    const char *w;
    sep(j);
    if (!isfinite(v))
        fputs("null", j->fp);
    else if (v == 0)
        fputs("0", j->fp);
    else if ((w = fmt_whole(buf, v)))
        fputs(w, j->fp);
    else {
        if (v != j->last_num) {
            snprintf(j->last_text, sizeof j->last_text, "%.15g", v);
            j->last_num = v;
        }
        fputs(j->last_text, j->fp);
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
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void json_num_exact(struct json *j, double v)
{
    char buf[32];
    sep(j);
    fputs(num_fmt_exact(buf, sizeof buf, v), j->fp);
}

void json_num_row(struct json *j, const double *v, size_t n)
{
    char buf[32];
    sep(j);
    fputc('[', j->fp);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', j->fp);
        fputs(num_fmt_exact(buf, sizeof buf, v[i]), j->fp);
    }
    fputc(']', j->fp);
}

void json_int(struct json *j, int64_t v)
{
    char buf[24];
    sep(j);
    fputs(fmt_i64(buf, v), j->fp);
}

void json_bool(struct json *j, int v)
{
    sep(j);
    fputs(v ? "true" : "false", j->fp);
}

void json_null(struct json *j)
{
    sep(j);
    fputs("null", j->fp);
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
    fputc('\n', j->fp);
}
