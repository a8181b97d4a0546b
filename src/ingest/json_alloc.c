#include "ingest/json_alloc.h"

#include <stdlib.h>

#include "core/xalloc.h"

static void *ja_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return xmalloc(n);
}

static void *ja_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return xrealloc(p, n);
}

static void ja_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

yajl_alloc_funcs *json_alloc_funcs(void)
{
    /* yajl copies the struct into the handle; one static copy serves all */
    static yajl_alloc_funcs funcs = { ja_malloc, ja_realloc, ja_free, NULL };
    return &funcs;
}
