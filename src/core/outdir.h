/* A folder of outputs replaced as a whole (`fom report -o DIR`): the files
 * are written into a fresh folder beside DIR (DIR.tmp.XXXXXX), which is
 * swapped in only when every file is written.  On any failure, or an
 * interruption (core/tmpreg.h), the fresh folder goes and the previous
 * DIR stays whole; after the swap nothing of the previous one is left
 * beside the new files.  The swap is atomic where the file system can
 * exchange two names (renameat2 RENAME_EXCHANGE, Linux 3.15); elsewhere
 * DIR is moved aside for the instant between two renames.
 *
 * Because DIR is replaced, an existing DIR must hold nothing but what the
 * writer makes (is_own): a folder with other files in it is refused, so
 * "-o ~" can never delete a home folder. */
#ifndef FOM_OUTDIR_H
#define FOM_OUTDIR_H

struct diag;

struct outdir {
    char *fresh;    /* write the files here */
    char *path;     /* the folder replaced (symbolic links resolved) */
    char *shown;    /* the name given, for messages */
    int reg;        /* core/tmpreg.h slot + 1 of fresh */
};

/* Create the parents of dir, check what dir holds, make the fresh folder.
 * Returns 0, FOM_EUSAGE (dir holds other files) or FOM_ESYS. */
int outdir_open(struct outdir *o, const char *dir, int (*is_own)(const char *name),
                struct diag *d);
/* Swap the fresh folder in and remove the previous one.  0 or FOM_ESYS
 * (the fresh folder is removed, the previous one stays). */
int outdir_commit(struct outdir *o, struct diag *d);
/* Remove the fresh folder; the previous one stays. */
void outdir_abort(struct outdir *o);

#endif
