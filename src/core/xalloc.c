#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tmpreg.h"

/* Out of memory is a system error (exit 3): the temporaries of outputs
 * being written go first, so that nothing partial is kept. */
static void oom(size_t n)
{
    tmpreg_remove_all();
    fprintf(stderr, "fom: fatal: out of memory allocating %zu bytes\n", n);
    exit(3);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        oom(nmemb * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void *xgrow(void *arr, size_t need, size_t *alloc, size_t elsz)
{
    if (need <= *alloc)
        return arr;
    size_t n = *alloc ? *alloc : 8;
    while (n < need) {
        if (n > ((size_t)-1) / 2 / elsz)
            oom(need * elsz);
        n *= 2;
    }
    *alloc = n;
    return xrealloc(arr, n * elsz);
}
