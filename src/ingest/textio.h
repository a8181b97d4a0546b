/* Helpers shared by the text trace readers (tfprof, the key_averages table,
 * saved profiles) and the TF readers: a line reader that looks through gzip
 * and counts lines, and the TF op-type classifier.
 *
 * The line reader reads in blocks and splits lines itself (rather than
 * gzgets) so that a NUL byte or an absurdly long line in a corrupt file is
 * reported instead of silently cutting the line. */
#ifndef FOM_TEXTIO_H
#define FOM_TEXTIO_H
#include <stddef.h>
#include <zlib.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "model/profile.h"

/* Longest line accepted; the longest real line (a key_averages table with
 * long Input Shapes) is a few hundred bytes. */
#define TEXTIO_MAX_LINE (1u << 20)

struct textio {
    const char *path;
    gzFile gz;
    long line;              /* number of the line last returned (1-based) */
    struct strbuf cur;      /* the line last returned, without "\r\n" */
    char *blk;              /* read buffer */
    size_t blk_len, blk_pos;
    int eof;
    int status;             /* set when textio_next() returned -1 */
    struct diag *d;         /* its src points at src while the file is open */
    struct diag_source src; /* the line last returned, quoted under errors */
};

/* Open path (plain or gzip).  Returns 0 or FOM_ESYS with a message. */
int textio_open(struct textio *t, const char *path, struct diag *d);
/* Next line into t->cur.  Returns 1 for a line, 0 at end of file, -1 on a
 * read error or a corrupt line (message given, status in t->status). */
int textio_next(struct textio *t, struct diag *d);
void textio_close(struct textio *t);

/* Read up to n bytes of a (possibly gzip) stream opened with gzopen, for
 * the JSON readers.  Returns bytes read, 0 at end, -1 after an error
 * message (*status set). */
long textio_gzread(gzFile gz, const char *path, void *buf, unsigned n,
                   struct diag *d, int *status);

/* Gzip bombs: real traces compress 5 to 30 times, the deflate format at
 * most about 1032 times.  Once more than TEXTIO_GZ_BOMB_MIN bytes came out
 * of a gzip stream, data expanding over TEXTIO_GZ_BOMB_RATIO times its
 * compressed size is refused, so a small .gz cannot keep a reader busy
 * for minutes on gigabytes of padding. */
#define TEXTIO_GZ_BOMB_RATIO 200
#define TEXTIO_GZ_BOMB_MIN (64ull << 20)

/* Returns 0, or FOM_EDATA with a message when gz (read so far) looks like
 * a gzip bomb by the rule above.  textio_gzread and textio_next check it
 * themselves. */
int textio_gz_check_ratio(gzFile gz, const char *path, struct diag *d);

/* "path: byte N" for messages about JSON input, where a line number means
 * little.  Caller frees. */
char *textio_byte_where(const char *path, unsigned long long byte);

/* Classify a TensorFlow op type (MatMul, Conv2DBackpropFilter, ApplyAdam,
 * ...) and guess its phase from the name (gradient ops are backward,
 * Apply* optimizer, the rest unknown). */
enum op_kind tf_op_kind(const char *type);
enum op_phase tf_op_phase(const char *type);

/* Parse a decimal int64 from s[0..n); returns 0 or -1 (junk, overflow). */
int textio_parse_i64(const char *s, size_t n, long long *out);

/* Up to 40 bytes of s for an error message, non-printable bytes shown as
 * '?', so a binary file does not spray the terminal.  Returns buf. */
char *textio_show(const char *s, size_t n, char *buf, size_t bufn);

/* Trim ASCII spaces and tabs; returns the start and sets *n. */
const char *textio_trim(const char *s, size_t *n);

#endif
