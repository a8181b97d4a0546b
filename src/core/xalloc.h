/* Allocation that never returns NULL: running out of memory is a system
 * error we cannot recover from in a command-line tool, so we report it and
 * exit with the documented code 3 instead of threading NULL checks everywhere. */
#ifndef FOM_XALLOC_H
#define FOM_XALLOC_H
#include <stddef.h>
#include <stdlib.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grow *arr (element size elsz) so that it holds at least need elements. */
void *xgrow(void *arr, size_t need, size_t *alloc, size_t elsz);

#define ALLOC_GROW(arr, need, alloc) \
    ((arr) = xgrow((arr), (need), &(alloc), sizeof(*(arr))))

/* Frees an ALLOC_GROW array and leaves it empty, ready to grow again. */
#define ALLOC_FREE(arr, n, alloc) \
    do { free(arr); (arr) = NULL; (n) = (alloc) = 0; } while (0)

#endif
