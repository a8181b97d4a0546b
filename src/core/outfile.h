/* Output that is never half-written: "-o FILE" writes a temporary file
 * next to FILE and renames it over FILE only on success, so a crash, an
 * error or an interruption (see core/tmpreg.h) leaves the previous FILE
 * untouched.  What is at FILE decides how:
 * - nothing, or a regular file with one link: FILE.tmp.XXXXXX (the name
 *   shortened to fit when FILE's name is long), renamed over FILE; an
 *   existing FILE's mode and owner are kept;
 * - a symbolic link: the same next to the file it points to, so the link
 *   stays a link;
 * - a regular file with several hard links: the output is written whole
 *   to the temporary file first, then copied into FILE in place, so every
 *   link sees it;
 * - a device, FIFO or other non-regular file: written straight into it
 *   (there is nothing to rename over: "-o /dev/null" must not replace
 *   /dev/null); write errors, a full disk included, are system errors;
 * - a folder: refused. */
#ifndef FOM_OUTFILE_H
#define FOM_OUTFILE_H
#include <stdio.h>

struct diag;

struct outfile {
    FILE *fp;       /* write here */
    char *path;     /* final name (a link's target), NULL for stdout */
    char *tmp;      /* temporary name while open, NULL when written in place */
    int reg;        /* core/tmpreg.h slot + 1 of tmp, 0 for none */
    int copy_in;    /* hard-linked: copy tmp into path on commit */
    char *shown;    /* the name given, for messages */
};

/* path NULL or "-" means stdout.  Returns 0 or FOM_ESYS. */
int outfile_open(struct outfile *o, const char *path, struct diag *d);
/* Flush, fsync, rename into place.  Returns 0 or FOM_ESYS (the
 * temporary file is removed on failure). */
int outfile_commit(struct outfile *o, struct diag *d);
/* Throw the output away (no-op for stdout and non-regular files). */
void outfile_abort(struct outfile *o);

/* Write a whole buffer to path atomically. */
int write_file_atomic(const char *path, const void *data, size_t len, struct diag *d);

/* The temporary name for path: PATH.tmp.XXXXXX, its last component cut so
 * that it fits in NAME_MAX.  The caller frees it. */
char *outfile_tmp_name(const char *path);

#endif
