/* Reading study files (reports/study.xsd, described in reports/README.md).
 * The XML is parsed without network access, without loading DTDs and
 * without substituting entities; a document that declares any entity is
 * rejected before its first reference is read. */
#ifndef FOM_STUDY_XML_H
#define FOM_STUDY_XML_H

#include "model/study.h"

struct diag;

/* Read, validate and check the study at path into out (which the caller
 * study_init()s and later study_release()s, also on failure).  Every
 * problem found is reported as "FILE:LINE: error: ..." through d.
 * Returns FOM_OK, FOM_EDATA (bad file) or FOM_ESYS (cannot read it). */
int study_load(const char *path, struct study *out, struct diag *d);

/* The schema compiled into fom; identical to reports/study.xsd. */
const char *study_xsd_text(void);

#endif
