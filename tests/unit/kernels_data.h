/* Reading the kernel-table fixtures in tests/data/kernels/ for the unit
 * tests of the tables and the store. */
#ifndef FOM_KERNELS_DATA_H
#define FOM_KERNELS_DATA_H
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "ingest/kernel_csv.h"
#include "model/kernel_table.h"

/* tests/data/kernels/NAME, wherever the tests run from (caller frees). */
static inline char *data_path(const char *name)
{
    const char *dir = getenv("TESTS_DIR");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/data/kernels/%s", dir ? dir : "tests", name);
    return strbuf_detach(&sb);
}

/* Read fixture NAME into set as hardware hw; the test fails if it cannot. */
static inline void read_into(struct kernel_set *set, const char *name, const char *hw)
{
    char *p = data_path(name);
    struct diag d;
    diag_init(&d, stderr);
    struct kernel_read_opts o = { .hw = hw };
    int rc = kernel_file_read(p, &o, set, &d);
    if (rc)
        fail_msg("reading %s: status %d", p, rc);
    free(p);
}

#endif
