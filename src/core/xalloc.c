#include "core/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/tmpreg.h"

/* Blocks from this size on are backed by 2 MiB pages where the kernel
 * offers them (transparent huge pages on request, MADV_HUGEPAGE).  A
 * first touch of a 4 KiB page costs a fault (about 8 us in a virtual
 * machine, measured with perf in scale-bench, where the arrays of a
 * million distinct ops took 150k of them: a quarter of the run); a 2 MiB
 * page takes one fault for 512.  From 4 MiB on a block holds at least
 * one whole aligned 2 MiB page, and leaves at most 2 MiB untouched at its
 * end, small beside the block. */
#define HUGE_FROM_B ((size_t)4 << 20)

static void *huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n >= HUGE_FROM_B) {
        /* the block's whole pages and the rest of its last one: a block
         * malloc mapped on its own is then advised as one mapping, which
         * realloc can still move without copying (mremap takes one
         * mapping, not the pieces a part advised would leave) */
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = (uintptr_t)p & ~(page - 1);
        uintptr_t hi = ((uintptr_t)p + malloc_usable_size(p) + page - 1) & ~(page - 1);
        /* advice only: where it is refused the pages are 4 KiB ones */
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return p;
}

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
    return huge_pages(p, n);
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        oom(nmemb * size);
    return huge_pages(p, nmemb * size);
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return huge_pages(q, n);
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
