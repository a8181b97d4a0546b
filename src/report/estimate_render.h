/* Rendering of an estimate (model/estimate.h) as text, JSON or CSV. */
#ifndef FOM_ESTIMATE_RENDER_H
#define FOM_ESTIMATE_RENDER_H
#include <stdio.h>

#include "core/ctx.h"
#include "model/estimate.h"

struct estimate_render_info {
    const char *profile;        /* path of the profile, for the header */
    const char *machine_path;   /* path of the machine file */
    const char *source_device;  /* device the profile was measured on, or NULL */
    const char *const *kernels; /* --kernels paths */
    size_t n_kernels;
    const char *batch_from;     /* where the profiled batch came from, or NULL */
};

void estimate_render(FILE *fp, enum out_format f, const struct estimate *e,
                     const struct estimate_render_info *info);

#endif
