/* Machine description files (machines/NAME.xml, schema machines/machine.xsd).
 *
 * The parser runs with network access off and never expands an entity:
 * a document that declares entities or refers to one (other than the five
 * predefined ones) is rejected before any expansion could happen. */
#ifndef FOM_MACHINE_XML_H
#define FOM_MACHINE_XML_H
#include <stddef.h>

#include "model/machine.h"

struct diag;

/* Largest machine file we accept; real ones are a few KB. */
#define MACHINE_FILE_MAX (1024 * 1024)

/* Parse, validate against the schema, then check values (units, positive,
 * finite).  On success fills *out (OUT: release with machine_release) and
 * returns 0; otherwise reports "FILE:LINE: error: ..." through d, leaves
 * *out empty and returns FOM_EDATA (bad file) or FOM_ESYS (cannot read). */
int machine_load(const char *path, struct machine *out, struct diag *d);

/* The same, from a buffer; name is used in messages and as out->path. */
int machine_load_mem(const char *name, const char *buf, size_t len,
                     struct machine *out, struct diag *d);

/* The schema built into fom; identical to machines/machine.xsd. */
extern const char machine_xsd[];

#endif
