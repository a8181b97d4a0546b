/* A growable NUL-terminated byte buffer (git's strbuf invariants: buf is
 * never NULL after strbuf_init and buf[len] is always '\0'). */
#ifndef FOM_STRBUF_H
#define FOM_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
};

#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hand the buffer to the caller, who frees it; sb is left empty. */
char *strbuf_detach(struct strbuf *sb);
/* Cstr view: always valid, even for a buffer that never grew. */
const char *strbuf_str(const struct strbuf *sb);

#endif
