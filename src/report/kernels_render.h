/* Output of `fom kernels list`: rows per hardware, kind and precision, as
 * text (with a total), JSON or CSV. */
#ifndef FOM_KERNELS_RENDER_H
#define FOM_KERNELS_RENDER_H
#include <stddef.h>
#include <stdio.h>

#include "core/ctx.h"
#include "model/kernel_table.h"

/* One line of the list: the rows the database holds for a hardware, kernel
 * kind and precision. */
struct kernels_count {
    const char *hw;
    enum kernel_kind kind;
    enum precision prec;
    size_t rows;
};

void kernels_render_list(FILE *out, enum out_format fmt, const char *db,
                         const struct kernels_count *r, size_t n);

#endif
