/* Streaming repair of unescaped '"' inside JSON strings.
 *
 * PyTorch profiler traces written before kineto#1459 (2026) put Python
 * frame names in event names without escaping their quotes (pytorch
 * #146900), so the file is not JSON.  This filter sits between the reader
 * and the JSON parser: inside a string, a '"' closes the string only when
 * the next byte that is not JSON whitespace is one of : , } ] (or the input
 * ends), which is what must follow a string in valid JSON; any other '"'
 * is written as \" and counted.  Valid JSON passes through unchanged, byte
 * for byte.  Escapes (\x) are copied untouched.  A quote followed by ','
 * inside a name cannot be told from a closing quote and stays broken: the
 * parser then reports it.
 *
 * The filter is pure (no I/O) and keeps its state across feeds, so input
 * may be cut anywhere.  A quote and the whitespace after it are held back
 * until the deciding byte arrives, so output lags input by at most
 * JSONFIX_HOLD_MAX + 1 bytes. */
#ifndef FOM_JSONFIX_H
#define FOM_JSONFIX_H
#include <stddef.h>
#include <stdint.h>

/* Whitespace held after a candidate closing quote; past this much the
 * quote is taken as closing (no name holds kilobytes of blanks). */
#define JSONFIX_HOLD_MAX 4096

struct jsonfix {
    int state;
    size_t n_hold;
    unsigned char hold[JSONFIX_HOLD_MAX];
    uint64_t n_repaired;    /* quotes written as \" so far */
    uint64_t out_b;         /* bytes written so far */
    /* output offsets of the backslashes inserted by the last feed, and
     * the number inserted before it: maps parser positions to the input */
    uint64_t *ins_at;
    size_t n_ins, alloc_ins;
    uint64_t ins_base;
};

void jsonfix_init(struct jsonfix *f);
void jsonfix_release(struct jsonfix *f);

/* Size the out buffer of a feed of n bytes (or of jsonfix_finish, n = 0)
 * must have. */
size_t jsonfix_out_max(size_t n);

/* Filters n bytes of in into out (jsonfix_out_max(n) bytes); returns the
 * number of bytes written. */
size_t jsonfix_feed(struct jsonfix *f, const unsigned char *in, size_t n, unsigned char *out);

/* End of input: writes the held bytes (a held quote closes its string). */
size_t jsonfix_finish(struct jsonfix *f, unsigned char *out);

/* Offset in the input of the byte at output offset out_off, exact for any
 * offset within or after the output of the last feed (or finish). */
uint64_t jsonfix_in_offset(const struct jsonfix *f, uint64_t out_off);

#endif
