/* Output that is never half-written: "-o FILE" writes FILE.tmp.XXXXXX in
 * the same directory and renames it over FILE only on success, so a crash
 * or an error leaves the previous FILE untouched. */
#ifndef FOM_OUTFILE_H
#define FOM_OUTFILE_H
#include <stdio.h>

struct diag;

struct outfile {
    FILE *fp;       /* write here */
    char *path;     /* final name, NULL for stdout */
    char *tmp;      /* temporary name while open */
};

/* path NULL or "-" means stdout.  Returns 0 or FOM_ESYS. */
int outfile_open(struct outfile *o, const char *path, struct diag *d);
/* Flush, fsync, rename into place.  Returns 0 or FOM_ESYS (the
 * temporary file is removed on failure). */
int outfile_commit(struct outfile *o, struct diag *d);
/* Throw the output away (no-op for stdout). */
void outfile_abort(struct outfile *o);

/* Write a whole buffer to path atomically. */
int write_file_atomic(const char *path, const void *data, size_t len, struct diag *d);

#endif
