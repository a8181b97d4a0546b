/* Repair of unescaped quotes inside JSON strings: see jsonfix.h.
 *
 * Runs without '"' or '\' are copied with memchr + memcpy: on valid traces
 * the filter costs a few percent of the parse. */
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/xalloc.h"
#include "ingest/jsonfix.h"

enum { JF_OUT, JF_STR, JF_ESC, JF_QUOTE };

void jsonfix_init(struct jsonfix *f)
{
    memset(f, 0, sizeof *f);
    f->state = JF_OUT;
}

void jsonfix_release(struct jsonfix *f)
{
    free(f->ins_at);
    f->ins_at = NULL;
    f->n_ins = f->alloc_ins = 0;
}

size_t jsonfix_out_max(size_t n)
{
    /* a held quote and its blanks come out with at most one extra '\';
     * each input byte gives at most two ('"' -> '\"') */
    return 2 * n + 2 + JSONFIX_HOLD_MAX;
}

static int is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void note_insert(struct jsonfix *f, uint64_t out_off)
{
    ALLOC_GROW(f->ins_at, f->n_ins + 1, f->alloc_ins);
    f->ins_at[f->n_ins++] = out_off;
    f->n_repaired++;
}

static int is_closer(unsigned char c)
{
    return c == ':' || c == ',' || c == '}' || c == ']';
}

/* Writes the held quote (as \" unless closing) and its blanks. */
static unsigned char *put_held(struct jsonfix *f, unsigned char *o, const unsigned char *base,
                               int closing)
{
    if (!closing) {
        note_insert(f, f->out_b + (uint64_t)(o - base));
        *o++ = '\\';
    }
    *o++ = '"';
    memcpy(o, f->hold, f->n_hold);
    o += f->n_hold;
    f->n_hold = 0;
    f->state = closing ? JF_OUT : JF_STR;
    return o;
}

static void start_feed(struct jsonfix *f)
{
    f->ins_base = f->n_repaired;
    f->n_ins = 0;
}

/* Bit i of *quote / *back / *closer set when base[i] is '"' / '\\' / one
 * of : , } ] (i < len <= 64). */
static void block_masks(const unsigned char *base, size_t len, uint64_t *quote, uint64_t *back,
                        uint64_t *closer)
{
    uint64_t mq = 0, mb = 0, mc = 0;
#if defined(__SSE2__)
    if (len == 64) {
        const __m128i dq = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
        const __m128i c1 = _mm_set1_epi8(':'), c2 = _mm_set1_epi8(',');
        const __m128i c3 = _mm_set1_epi8('}'), c4 = _mm_set1_epi8(']');
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(base + 16 * k));
            __m128i c = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, c1), _mm_cmpeq_epi8(v, c2)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, c3), _mm_cmpeq_epi8(v, c4)));
            mq |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, dq)) << (16 * k);
            mb |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)) << (16 * k);
            mc |= (uint64_t)(uint16_t)_mm_movemask_epi8(c) << (16 * k);
        }
        *quote = mq;
        *back = mb;
        *closer = mc;
        return;
    }
#endif
    for (size_t i = 0; i < len; i++) {
        uint64_t bit = (uint64_t)1 << i;
        mq |= base[i] == '"' ? bit : 0;
        mb |= base[i] == '\\' ? bit : 0;
        mc |= is_closer(base[i]) ? bit : 0;
    }
    *quote = mq;
    *back = mb;
    *closer = mc;
}

/* Bit i = xor of bits 0..i: inside a string after byte i, when every
 * quote toggles. */
static uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The input is scanned 64 bytes at a time (a quote every ten bytes or so in
 * a trace), byte by byte only in blocks with an escape or a quote that is
 * not plainly closing, and copied lazily: [from, ...) goes out in
 * one memcpy when a backslash must be inserted or the feed ends. */
size_t jsonfix_feed(struct jsonfix *f, const unsigned char *in, size_t n, unsigned char *out)
{
    const unsigned char *p = in, *end = in + n, *from;
    unsigned char *o = out;
    int state;  /* f->state in a local: stores through o may alias it */

    start_feed(f);
    if (f->state == JF_QUOTE) {
        while (p < end && is_blank(*p) && f->n_hold < JSONFIX_HOLD_MAX)
            f->hold[f->n_hold++] = *p++;
        if (p == end)
            return 0;
        o = put_held(f, o, out, is_blank(*p) || is_closer(*p));
    } else if (f->state == JF_ESC && p < end) {
        *o++ = *p++;
        f->state = JF_STR;
    }
    from = p;
    state = f->state;
    /* p: first byte not yet looked at (bits below it are dropped) */
    for (const unsigned char *base = p; base < end; base += 64) {
        size_t len = (size_t)(end - base) < 64 ? (size_t)(end - base) : 64;
        uint64_t mq, mb, mc;
        block_masks(base, len, &mq, &mb, &mc);
        if (len == 64 && !mb && p <= base) {
            /* Fast path, taken by nearly every block of a valid trace: no
             * escapes, so each quote toggles, and every closing quote is
             * followed at once by a closer: nothing to repair. */
            uint64_t in_str = prefix_xor(mq) ^ (state == JF_STR ? ~(uint64_t)0 : 0);
            uint64_t closing = mq & ~in_str;
            if (!((closing << 1) & ~mc) &&
                (!(closing >> 63) || (base + 64 < end && is_closer(base[64])))) {
                state = in_str >> 63 ? JF_STR : JF_OUT;
                continue;
            }
        }
        uint64_t m = mq | mb;
        if (p > base)
            m = (size_t)(p - base) >= 64 ? 0 : m & (~(uint64_t)0 << (p - base));
        while (m) {
            const unsigned char *c = base + __builtin_ctzll(m);
            m &= m - 1;
            if (state == JF_OUT) {
                if (*c == '"')
                    state = JF_STR;
                continue;
            }
            if (*c == '\\') {
                if (c + 1 == end) {
                    state = JF_ESC;
                    goto done;
                }
                p = c + 2;
                /* the escaped byte may be the last of the block */
                m = p - base >= 64 ? 0 : m & (~(uint64_t)0 << (p - base));
                continue;
            }
            /* a quote in a string: closing if a closer (or the end) follows its blanks */
            const unsigned char *r = c + 1;
            while (r < end && is_blank(*r) && (size_t)(r - c) <= JSONFIX_HOLD_MAX)
                r++;
            if (r == end) {
                /* undecided: hold the quote and its blanks for the next feed */
                memcpy(o, from, (size_t)(c - from));
                o += c - from;
                f->n_hold = (size_t)(end - c - 1);
                memcpy(f->hold, c + 1, f->n_hold);
                state = JF_QUOTE;
                from = end;
                goto done;
            }
            if (is_blank(*r) || is_closer(*r)) {
                state = JF_OUT;
            } else {
                memcpy(o, from, (size_t)(c - from));
                o += c - from;
                note_insert(f, f->out_b + (uint64_t)(o - out));
                *o++ = '\\';
                from = c;
            }
        }
    }
done:
    f->state = state;
    memcpy(o, from, (size_t)(end - from));
    o += end - from;
    f->out_b += (uint64_t)(o - out);
    return (size_t)(o - out);
}

size_t jsonfix_finish(struct jsonfix *f, unsigned char *out)
{
    unsigned char *o = out;

    start_feed(f);
    if (f->state == JF_QUOTE)
        o = put_held(f, o, out, 1);
    f->out_b += (uint64_t)(o - out);
    return (size_t)(o - out);
}

uint64_t jsonfix_in_offset(const struct jsonfix *f, uint64_t out_off)
{
    uint64_t before = f->ins_base;
    for (size_t i = 0; i < f->n_ins && f->ins_at[i] < out_off; i++)
        before++;
    return out_off - before;
}
