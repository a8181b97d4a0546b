/* Loading kernel tables for `--kernels PATH` and `fom kernels import`.
 *
 * PATH is one of
 *  - a SQLite database made by `fom kernels import` (recognised by its
 *    header, whatever its name);
 *  - a folder: every *.csv in it (sorted by name), named by the folder's
 *    env.json when there is one (see below), else by the folder's name;
 *  - a single CSV or DeepBench stdout file, named by an env.json next to
 *    it, else by its base name without the extension.
 * Files with a hw column (DeepBench's published results) give one table
 * per hw value instead.
 *
 * env.json (ingest/env_json.h) names the hardware and software; a folder
 * is a CPU's when its name contains "cpu".
 *
 * CSV is parsed directly on every call rather than imported into a cache
 * database: the shipped tables parse in a few milliseconds (100k rows in
 * well under a second), a cache would need a writable place next to
 * read-only installed data and an invalidation rule, and a user who wants
 * the db can run `fom kernels import` once. */
#ifndef FOM_RUN_KERNELS_H
#define FOM_RUN_KERNELS_H

#include <stdio.h>

#include "core/ctx.h"
#include "model/kernel_table.h"

struct diag;

/* Add the tables at path to out (may be called repeatedly; rows for a
 * hardware already in out are appended and win over older ones with the
 * same key).  Returns 0 or an enum fom_status after a message. */
int kernels_open(const char *path, struct kernel_set *out, struct diag *d);

/* The same, with every row put in the table named hw (NULL: as above). */
int kernels_load(const char *path, const char *hw, struct kernel_set *out, struct diag *d);

struct kernels_import_opts {
    char **files;           /* CSV files, folders or dbs */
    size_t n_files;
    const char *db;         /* created when missing */
    const char *machine;    /* --machine NAME: hardware name for every row, or NULL */
};

/* `fom kernels import`: read every input first (a bad file aborts before
 * the db is touched), then write them in one transaction.  Prints one
 * summary line per hardware to out. */
int kernels_import(const struct kernels_import_opts *o, FILE *out, struct diag *d);

/* `fom kernels list`: rows per hardware, kind and precision. */
int kernels_list(const char *db, enum out_format fmt, FILE *out, struct diag *d);

/* `fom kernels shapes`: the distinct kernel shapes of the profiles (traces
 * or saved profiles), written to out_path (atomically) or out. */
int kernels_shapes(char *const *profiles, size_t n, enum out_format fmt, const char *out_path,
                   FILE *out, struct diag *d);

#endif
