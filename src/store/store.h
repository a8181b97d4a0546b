/* The SQLite store of measured kernel tables (`fom kernels import`).
 * The only module that includes sqlite3.h.
 *
 * Schema (version 3):
 *   schema_version(version)
 *   hardware(id, name UNIQUE NOCASE, origin, software)
 *   kernel(id, hw_id, kind, precision, key, shape and time columns...,
 *          UNIQUE(hw_id, kind, precision, key))
 * `kind` is one of kernel_kind_name()'s; rnn .. comm rows keep their
 * size parameters in dim0.. (kernel_kind_dims() order), their cell or op
 * in `op`, mode/form/backend in `mode`, bidirectional/causal in `flag`.
 * `key` is the row's identity as text ("1760x16x1760:NT" for a GEMM), so
 * that one UNIQUE constraint dedups every kind: importing a row whose key
 * exists replaces the old row (the newer measurement wins) and is counted
 * as replaced.  A database of version 1 (gemm, conv and eltwise only) is
 * migrated when opened, as is one of version 2
 * (no resample rows).  Every import runs in one transaction: a failed
 * or killed import leaves the database as it was.  The db is in WAL mode:
 * readers see the last committed state while an import writes, imports
 * queue behind each other's write lock, and the schema is created under
 * that lock, so first imports started together all succeed. */
#ifndef FOM_STORE_H
#define FOM_STORE_H
#include <stddef.h>

#include "model/kernel_table.h"

struct diag;
struct store;

#define STORE_SCHEMA_VERSION 3

/* Open (create = 1: create if missing) the database at path.  On success
 * *out is the handle, freed with store_close(). */
int store_open(const char *path, int create, struct store **out, struct diag *d);
void store_close(struct store *s);

/* True when the file at path starts with SQLite's magic header. */
int store_is_db(const char *path);

struct store_import_stats {
    size_t inserted;    /* rows with a new key */
    size_t replaced;    /* rows whose key was there (old row replaced) */
    size_t tables;      /* hardware entries written */
};

/* Write every table of set in ONE transaction.  Returns 0 or FOM_ESYS
 * (the transaction is rolled back). */
int store_import(struct store *s, const struct kernel_set *set,
                 struct store_import_stats *st, struct diag *d);

/* Append the tables of the database (all of them when hw is NULL, else
 * the one named hw) to out. */
int store_load(struct store *s, const char *hw, struct kernel_set *out, struct diag *d);

struct store_count {
    char *hw;
    enum kernel_kind kind;
    enum precision prec;
    size_t rows;
};

/* Row counts per hardware, kind and precision, ordered by hardware name.
 * *out is an array the caller frees with store_counts_free(). */
int store_counts(struct store *s, struct store_count **out, size_t *n, struct diag *d);
void store_counts_free(struct store_count *c, size_t n);

#endif
