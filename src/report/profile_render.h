/* Writers of a workload profile: the text table, and the JSON and CSV
 * files that "fom estimate --profile" reads back (format in
 * profile_file.c's reader and the saved-profile notes). */
#ifndef FOM_PROFILE_RENDER_H
#define FOM_PROFILE_RENDER_H
#include <stdio.h>

#include "core/ctx.h"
#include "model/profile.h"

void profile_render_text(FILE *fp, const struct profile *p);
void profile_render_json(FILE *fp, const struct profile *p);
void profile_render_csv(FILE *fp, const struct profile *p);
void profile_render(FILE *fp, const struct profile *p, enum out_format f);

#endif
