/* Writers of `fom kernels shapes`: the shapes file of
 * estimators/measure/FORMATS.md (CSV and JSON, what measure.py --shapes
 * reads) and a text table. */
#ifndef FOM_SHAPES_RENDER_H
#define FOM_SHAPES_RENDER_H
#include <stdio.h>

#include "core/ctx.h"
#include "model/kernel_shapes.h"

void shapes_render(FILE *fp, const struct kernel_shapes *s, enum out_format f);

#endif
