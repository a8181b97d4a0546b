/* Output of `fom fom`: the per-problem table (hours per unit, units per
 * day, ratio to the baseline) and the per-system summary (harmonic rate,
 * FOM, means of ratios), as text, JSON (the contract in PRODUCT.md plus
 * extra keys) or CSV. */
#ifndef FOM_FOM_RENDER_H
#define FOM_FOM_RENDER_H
#include <stdio.h>

#include "core/ctx.h"
#include "model/study.h"
#include "model/study_result.h"

void fom_render(FILE *fp, enum out_format f, const struct study *st,
                const struct study_eval *ev);

#endif
