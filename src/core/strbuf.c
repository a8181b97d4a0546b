#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

void strbuf_init(struct strbuf *sb)
{
    sb->buf = NULL;
    sb->len = 0;
    sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
    free(sb->buf);
    strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

static void grow(struct strbuf *sb, size_t extra)
{
    ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    grow(sb, len);
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
    char ch = (char)c;
    strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

char *strbuf_detach(struct strbuf *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    strbuf_init(sb);
    return p;
}

const char *strbuf_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}
