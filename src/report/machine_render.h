/* Text, JSON and CSV views of machine descriptions: `fom machine show`
 * (one machine, every field with its unit) and `fom machine compare`
 * (side by side, each ratio to the first machine next to the values). */
#ifndef FOM_MACHINE_RENDER_H
#define FOM_MACHINE_RENDER_H
#include <stddef.h>
#include <stdio.h>

#include "core/ctx.h"
#include "model/machine.h"

void machine_render_show(FILE *fp, const struct machine *m, enum out_format f);
/* ms[0] is the baseline; n >= 1. */
void machine_render_compare(FILE *fp, const struct machine *ms, size_t n, enum out_format f);

#endif
