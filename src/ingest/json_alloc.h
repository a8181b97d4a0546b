/* The allocator every yajl handle of fom uses.  yajl's default one does
 * not check malloc: under an address-space limit a long string made it
 * copy into NULL.  These functions are core/xalloc's: an allocation that
 * fails removes the temporaries of outputs being written and exits with
 * status 3 and a message, so nothing partial is kept. */
#ifndef FOM_JSON_ALLOC_H
#define FOM_JSON_ALLOC_H
#include <yajl/yajl_parse.h>

/* yajl_alloc(callbacks, json_alloc_funcs(), ctx) */
yajl_alloc_funcs *json_alloc_funcs(void);

#endif
