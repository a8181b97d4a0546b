#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

/* The kernel table of schema version 3 (STORE_SCHEMA_VERSION), without
 * its name so that the migrations can create it beside the old one. */
#define KERNEL_TABLE_COLUMNS \
    "(id INTEGER PRIMARY KEY," \
    " hw_id INTEGER NOT NULL REFERENCES hardware(id) ON DELETE CASCADE," \
    " kind TEXT NOT NULL CHECK(kind IN ('gemm','conv','eltwise','rnn','attention','norm'," \
    "  'embedding','optimizer','comm','resample'))," \
    " precision TEXT NOT NULL," \
    " key TEXT NOT NULL," \
    " m INTEGER, n INTEGER, k INTEGER, a_t TEXT, b_t TEXT," \
    " conv_n INTEGER, c INTEGER, h INTEGER, w INTEGER, kf INTEGER, r INTEGER, s INTEGER," \
    " pad_h INTEGER, pad_w INTEGER, stride_h INTEGER, stride_w INTEGER," \
    " op TEXT, elements REAL, bytes REAL," \
    " time_s REAL, time_bwd_data_s REAL, time_bwd_filter_s REAL," \
    " time_lo_s REAL, time_hi_s REAL, time_loop_s REAL, reps INTEGER, source TEXT," \
    " batch INTEGER, dims INTEGER, conv_d INTEGER, t INTEGER, pad_d INTEGER, stride_d INTEGER," \
    " dil_d INTEGER, dil_h INTEGER, dil_w INTEGER, groups INTEGER," \
    " pass TEXT, mode TEXT, flag INTEGER," \
    " dim0 INTEGER, dim1 INTEGER, dim2 INTEGER, dim3 INTEGER, dim4 INTEGER, dim5 INTEGER," \
    " UNIQUE(hw_id, kind, precision, key))"

/* The UNIQUE index serves loads per hardware; this one serves direct
 * shape queries (sqlite3 shell, bench). */
#define KERNEL_INDEX_SQL "CREATE INDEX kernel_gemm_shape ON kernel(hw_id, kind, precision, m, n, k);"

static const char schema_sql[] =
    "CREATE TABLE schema_version(version INTEGER NOT NULL);"
    "INSERT INTO schema_version(version) VALUES(3);"
    "CREATE TABLE hardware("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    " origin TEXT,"
    " software TEXT);"
    "CREATE TABLE kernel" KERNEL_TABLE_COLUMNS ";"
    KERNEL_INDEX_SQL;

/* Version 1 -> 2: the kind CHECK grows (SQLite cannot alter a CHECK, so
 * the table is rebuilt) and conv keys gain the passes the row times, as
 * row_key() writes them: ":fwd,bwd_data,bwd_weight" for the older form's
 * rows, which time all three. */
static const char migrate_1_2_sql[] =
    "CREATE TABLE kernel_v2" KERNEL_TABLE_COLUMNS ";"
    "INSERT INTO kernel_v2(id, hw_id, kind, precision, key, m, n, k, a_t, b_t,"
    " conv_n, c, h, w, kf, r, s, pad_h, pad_w, stride_h, stride_w, op, elements, bytes,"
    " time_s, time_bwd_data_s, time_bwd_filter_s, time_lo_s, time_hi_s, time_loop_s, reps, source)"
    " SELECT id, hw_id, kind, precision,"
    "  CASE WHEN kind = 'conv' THEN key || ':' || substr("
    "   CASE WHEN time_s IS NOT NULL THEN ',fwd' ELSE '' END ||"
    "   CASE WHEN time_bwd_data_s IS NOT NULL THEN ',bwd_data' ELSE '' END ||"
    "   CASE WHEN time_bwd_filter_s IS NOT NULL THEN ',bwd_weight' ELSE '' END, 2)"
    "  ELSE key END,"
    " m, n, k, a_t, b_t, conv_n, c, h, w, kf, r, s, pad_h, pad_w, stride_h, stride_w, op, elements,"
    " bytes, time_s, time_bwd_data_s, time_bwd_filter_s, time_lo_s, time_hi_s, time_loop_s, reps,"
    " source FROM kernel;"
    "DROP TABLE kernel;"
    "ALTER TABLE kernel_v2 RENAME TO kernel;"
    KERNEL_INDEX_SQL
    "UPDATE schema_version SET version = 2;";

/* Version 2 -> 3: the kind CHECK grows by resample; the columns are
 * version 2's, in its order. */
static const char migrate_2_3_sql[] =
    "CREATE TABLE kernel_v3" KERNEL_TABLE_COLUMNS ";"
    "INSERT INTO kernel_v3 SELECT * FROM kernel;"
    "DROP TABLE kernel;"
    "ALTER TABLE kernel_v3 RENAME TO kernel;"
    KERNEL_INDEX_SQL
    "UPDATE schema_version SET version = 3;";

/* Columns of a kernel row as the insert binds them and the load reads
 * them, in one order (KC_*). */
#define KERNEL_ROW_COLUMNS \
    "m, n, k, a_t, b_t, batch, conv_n, c, conv_d, h, w, kf, t, r, s, pad_d, pad_h, pad_w," \
    " stride_d, stride_h, stride_w, dil_d, dil_h, dil_w, groups, dims, pass, op, mode, flag," \
    " dim0, dim1, dim2, dim3, dim4, dim5, elements, bytes, time_s, time_bwd_data_s," \
    " time_bwd_filter_s, time_lo_s, time_hi_s, time_loop_s, reps, source"
enum {
    KC_M, KC_N, KC_K, KC_AT, KC_BT, KC_BATCH, KC_CONV_N, KC_C, KC_CONV_D, KC_H, KC_W, KC_KF, KC_T,
    KC_R, KC_S, KC_PAD_D, KC_PAD_H, KC_PAD_W, KC_STRIDE_D, KC_STRIDE_H, KC_STRIDE_W, KC_DIL_D,
    KC_DIL_H, KC_DIL_W, KC_GROUPS, KC_DIMS, KC_PASS, KC_OP, KC_MODE, KC_FLAG, KC_DIM0,
    KC_ELEMENTS = KC_DIM0 + KERNEL_DIMS_MAX, KC_BYTES, KC_TIME, KC_LO = KC_TIME + CONV_PASS_COUNT,
    KC_HI, KC_LOOP, KC_REPS, KC_SOURCE, KC_COUNT
};

enum stmt_id {
    ST_HW_UPSERT, ST_HW_ID, ST_EXISTS, ST_INSERT, ST_LOAD, ST_COUNTS,
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_COUNT,
};

/* Parameters ?5.. of the insert, one per KC_* column. */
#define P10(a) "?" #a "0, ?" #a "1, ?" #a "2, ?" #a "3, ?" #a "4, ?" #a "5, ?" #a "6, ?" #a "7, ?" #a "8, ?" #a "9"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_HW_UPSERT] =
        "INSERT INTO hardware(name, origin, software) VALUES(?1, ?2, ?3)"
        " ON CONFLICT(name) DO UPDATE SET"
        "  origin = CASE WHEN excluded.origin IS NULL THEN origin"
        "                WHEN origin IS NULL THEN excluded.origin"
        "                WHEN instr(origin, excluded.origin) > 0 THEN origin"
        "                ELSE origin || '; ' || excluded.origin END,"
        "  software = coalesce(excluded.software, software)",
    [ST_HW_ID] = "SELECT id FROM hardware WHERE name = ?1",
    [ST_EXISTS] = "SELECT 1 FROM kernel WHERE hw_id = ?1 AND kind = ?2 AND precision = ?3 AND key = ?4",
    [ST_INSERT] =
        "INSERT OR REPLACE INTO kernel(hw_id, kind, precision, key, " KERNEL_ROW_COLUMNS ")"
        " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, " P10(1) ", " P10(2) ", " P10(3) ", " P10(4) ","
        " ?50)",
    [ST_LOAD] =
        "SELECT h.name, h.origin, h.software, k.kind, k.precision, " KERNEL_ROW_COLUMNS ", k.key"
        " FROM kernel k JOIN hardware h ON h.id = k.hw_id"
        " WHERE ?1 IS NULL OR h.name = ?1 ORDER BY h.id, k.id",
    [ST_COUNTS] =
        "SELECT h.name, k.kind, k.precision, count(*) FROM kernel k JOIN hardware h ON h.id = k.hw_id"
        " GROUP BY h.id, k.kind, k.precision ORDER BY h.name COLLATE NOCASE, k.kind, k.precision",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

/* First parameter of the insert and first column of the load that are
 * KC_* columns. */
#define INSERT_KC0 5
#define LOAD_KC0 5

struct store {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *st[ST_COUNT];
};

static int db_error(struct store *s, struct diag *d, const char *what)
{
    return diag_syserr(d, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int store_is_db(const char *path)
{
    static const char magic[16] = "SQLite format 3";
    char head[16];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(head, 1, sizeof head, fp);
    fclose(fp);
    return n == sizeof head && memcmp(head, magic, sizeof head) == 0;
}

/* Bring a database of an older schema to STORE_SCHEMA_VERSION in one
 * transaction (a failure leaves it as it was). */
static int schema_migrate(struct store *s, int from, struct diag *d)
{
    char *msg = NULL;
    int rc = 0;
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK ||
        (from < 2 && sqlite3_exec(s->db, migrate_1_2_sql, NULL, NULL, &msg) != SQLITE_OK) ||
        sqlite3_exec(s->db, migrate_2_3_sql, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
        rc = diag_syserr(d, "%s: cannot migrate schema version %d to %d: %s", s->path, from,
                         STORE_SCHEMA_VERSION, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_free(msg);
    return rc;
}

/* How long a connection waits for another one's lock before giving up.
 * Writers queue behind an import (BEGIN IMMEDIATE waits here), so this
 * bounds the longest import another one can wait for: a 300k-row table
 * imports in about 5 s on the 2-core test machine (t4001), so 10 minutes
 * covers tables a hundred times larger.  Readers never wait on a writer in
 * WAL mode; they wait only during a checkpoint's brief exclusive step. */
#define STORE_BUSY_MS (10 * 60 * 1000)

static int count_objects(struct store *s, int *n, struct diag *d)
{
    sqlite3_stmt *q = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB)
            rc = diag_error(d, "%s: found a file that is not a SQLite database, expected one "
                               "made by 'fom kernels import'", s->path);
        else
            rc = db_error(s, d, "cannot read the schema");
    } else {
        *n = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
    return rc;
}

/* Create the schema in an empty database.  The count is taken again under
 * the write lock: of several first imports started together, one creates
 * the schema and the others find it made. */
static int schema_create(struct store *s, struct diag *d)
{
    char *msg = NULL;
    int rc = 0, n_objects = 0;
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_error(s, d, "cannot create the schema");
    if ((rc = count_objects(s, &n_objects, d)))
        goto out;
    if (n_objects == 0 && sqlite3_exec(s->db, schema_sql, NULL, NULL, &msg) != SQLITE_OK) {
        rc = diag_syserr(d, "%s: cannot create the schema: %s", s->path,
                         msg ? msg : sqlite3_errmsg(s->db));
        goto out;
    }
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = db_error(s, d, "cannot create the schema");
out:
    sqlite3_free(msg);
    if (rc)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Check the schema version, creating the schema in an empty database
 * when allowed. */
static int schema_check(struct store *s, int create, struct diag *d)
{
    sqlite3_stmt *q = NULL;
    int rc = 0, n_objects = 0;
    if ((rc = count_objects(s, &n_objects, d)))
        goto out;
    if (n_objects == 0) {
        if (!create)
            rc = diag_error(d, "%s: found an empty database, expected one made by 'fom kernels import'",
                            s->path);
        else
            rc = schema_create(s, d);
        goto out;
    }
    if (sqlite3_prepare_v2(s->db, "SELECT max(version) FROM schema_version", -1, &q, NULL) != SQLITE_OK) {
        rc = diag_error(d, "%s: found a database without a schema_version table, expected one "
                           "made by 'fom kernels import'", s->path);
        goto out;
    }
    if (sqlite3_step(q) != SQLITE_ROW) {
        rc = db_error(s, d, "cannot read the schema version");
        goto out;
    }
    int version = sqlite3_column_int(q, 0);
    if (version == 1 || version == 2) {
        sqlite3_finalize(q);
        q = NULL;
        rc = schema_migrate(s, version, d);
        goto out;
    }
    if (version != STORE_SCHEMA_VERSION)
        rc = diag_error(d, "%s: found schema version %d, expected %d (%s)", s->path, version,
                        STORE_SCHEMA_VERSION,
                        version > STORE_SCHEMA_VERSION ? "made by a newer fom" : "unknown");
out:
    sqlite3_finalize(q);
    return rc;
}

/* Open path read-only: a db on read-only media can still be read (unless
 * a killed import left a journal that needs rolling back).  A WAL-mode db
 * whose shared-memory file cannot be created there is read as immutable:
 * nothing can write to it while it sits on read-only media. */
static int open_readonly(struct store *s)
{
    sqlite3_close(s->db);
    s->db = NULL;
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    sqlite3_close(s->db);
    s->db = NULL;
    char *uri = sqlite3_mprintf("file:%s?immutable=1", s->path);
    int r = uri ? sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) : SQLITE_NOMEM;
    sqlite3_free(uri);
    return r != SQLITE_OK;
}

/* Turn the db to WAL.  The switch needs the file to itself, and SQLite
 * answers BUSY at once, without its busy handler, where waiting could
 * deadlock (several first imports that all read the empty schema and then
 * want the exclusive lock), so the switch is retried here while others
 * finish theirs, within the same bound as any other lock wait. */
static int wal_switch(sqlite3 *db)
{
    int r, waited_ms = 0;
    while ((r = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) != SQLITE_OK &&
           ((r & 0xff) == SQLITE_BUSY || (r & 0xff) == SQLITE_LOCKED) && waited_ms < STORE_BUSY_MS)
        waited_ms += sqlite3_sleep(5 + waited_ms % 20);
    return r;
}

/* Remove the file a failed first open made (and SQLite's side files), so
 * that a full disk leaves no empty database behind. */
static void unlink_created(const char *path)
{
    static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        struct strbuf p = STRBUF_INIT;
        strbuf_addf(&p, "%s%s", path, sfx[i]);
        unlink(p.buf);
        strbuf_release(&p);
    }
}

int store_open(const char *path, int create, struct store **out, struct diag *d)
{
    struct store *s = xcalloc(1, sizeof *s);
    struct stat st;
    int rc = 0, made = create && stat(path, &st) != 0 && errno == ENOENT;
    s->path = xstrdup(path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int r = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (r == SQLITE_OK && !create && sqlite3_exec(s->db, "SELECT 1 FROM sqlite_master", NULL, NULL, NULL) ==
                                         SQLITE_CANTOPEN)
        r = SQLITE_CANTOPEN; /* a WAL db on read-only media */
    if (r != SQLITE_OK && (create || !s->db || open_readonly(s))) {
        rc = diag_syserr(d, "cannot open database '%s': %s", path,
                         s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto out;
    }
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
    sqlite3_extended_result_codes(s->db, 1);
    if (sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
        /* Not a database at all shows up here. */
        rc = diag_syserr(d, "cannot open database '%s': %s", path, sqlite3_errmsg(s->db));
        goto out;
    }
    /* A writer turns the db to WAL (it stays so in the file): readers then
     * see the last committed state while an import runs, instead of
     * waiting for its lock. */
    if (create && wal_switch(s->db) != SQLITE_OK) {
        rc = db_error(s, d, "cannot switch to the WAL journal");
        goto out;
    }
    if ((rc = schema_check(s, create, d)))
        goto out;
    for (int i = 0; i < ST_COUNT; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL) !=
            SQLITE_OK) {
            rc = db_error(s, d, "cannot prepare a statement");
            goto out;
        }
out:
    if (rc) {
        /* A file this open made and could not fill (a full disk) is
         * removed, but not one it lost a lock race on: another first
         * import may be setting that one up. */
        int code = s->db ? sqlite3_errcode(s->db) & 0xff : 0;
        store_close(s);
        s = NULL;
        if (made && code != SQLITE_BUSY && code != SQLITE_LOCKED)
            unlink_created(path);
    }
    *out = s;
    return rc;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    free(s->path);
    free(s);
}

/* Run a statement without results. */
static int step_done(struct store *s, enum stmt_id id, struct diag *d, const char *what)
{
    int r = sqlite3_step(s->st[id]);
    sqlite3_reset(s->st[id]);
    if (r != SQLITE_DONE)
        return db_error(s, d, what);
    return 0;
}

static long long one_if_0(int64_t v)
{
    return v > 0 ? (long long)v : 1;
}

/* A conv row's passes, as the 1 -> 2 migration writes them. */
static void conv_passes(const struct kernel_row *r, struct strbuf *sb)
{
    static const char *const names[CONV_PASS_COUNT] = { "fwd", "bwd_data", "bwd_weight" };
    const char *sep = ":";
    for (int i = 0; i < CONV_PASS_COUNT; i++)
        if (r->time_s[i] > 0) {
            strbuf_addf(sb, "%s%s", sep, names[i]);
            sep = ",";
        }
}

/* A row's identity as text; rows of schema version 1 keep their keys
 * (conv keys gain their passes): sizes of 3-D, dilated and grouped
 * convolutions and of batched GEMMs are added only where they differ
 * from 1. */
static void row_key(const struct kernel_row *r, struct strbuf *sb)
{
    strbuf_reset(sb);
    switch (r->kind) {
    case KERNEL_GEMM:
        if (r->batch > 1)
            strbuf_addf(sb, "b%lld:", (long long)r->batch);
        strbuf_addf(sb, "%lldx%lldx%lld:%c%c", (long long)r->m, (long long)r->n, (long long)r->k,
                    r->a_t ? r->a_t : 'N', r->b_t ? r->b_t : 'N');
        break;
    case KERNEL_CONV:
        strbuf_addf(sb, "n%lld c%lld h%lld w%lld k%lld r%lld s%lld pad%lldx%lld stride%lldx%lld",
                    (long long)r->n_, (long long)r->c, (long long)r->h, (long long)r->w,
                    (long long)r->kf, (long long)r->r, (long long)r->s, (long long)r->pad_h,
                    (long long)r->pad_w, (long long)r->stride_h, (long long)r->stride_w);
        if (one_if_0(r->d) > 1 || one_if_0(r->t) > 1 || r->pad_d || one_if_0(r->stride_d) > 1 ||
            one_if_0(r->dil_d) > 1 || (r->dims && r->dims != 2))
            strbuf_addf(sb, " dims%d d%lld t%lld pad_d%lld stride_d%lld dil_d%lld", r->dims ? r->dims : 2,
                        one_if_0(r->d), one_if_0(r->t), (long long)r->pad_d, one_if_0(r->stride_d),
                        one_if_0(r->dil_d));
        if (one_if_0(r->dil_h) > 1 || one_if_0(r->dil_w) > 1)
            strbuf_addf(sb, " dil%lldx%lld", one_if_0(r->dil_h), one_if_0(r->dil_w));
        if (one_if_0(r->groups) > 1)
            strbuf_addf(sb, " g%lld", one_if_0(r->groups));
        if (r->flag)
            strbuf_addstr(sb, " channels-last");
        conv_passes(r, sb);
        break;
    case KERNEL_ELTWISE:
        strbuf_addf(sb, "%s:%.17g", r->op ? r->op : "", r->bytes);
        break;
    default: {
        /* pass:op:mode:flag:sizes; the backend of attention and comm rows
         * says what ran, not what was asked, and is no part of the key
         * (kernel_row_key_cmp). */
        int n;
        kernel_kind_dims(r->kind, &n);
        int mode = r->kind != KERNEL_ATTENTION && r->kind != KERNEL_COMM;
        strbuf_addf(sb, "%s:%s:%s:%d:", kernel_pass_name(r->pass), r->op ? r->op : "",
                    mode && r->mode ? r->mode : "", r->flag);
        for (int i = 0; i < n; i++)
            strbuf_addf(sb, "%s%lld", i ? "x" : "", (long long)r->dim[i]);
        break;
    }
    }
}

static void bind_opt_double(sqlite3_stmt *q, int i, double v)
{
    if (v > 0)
        sqlite3_bind_double(q, i, v);
    else
        sqlite3_bind_null(q, i);
}

static void bind_opt_text(sqlite3_stmt *q, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(q, i);
}

/* Integer columns of a row that are >0 when set, in KC_* order from
 * KC_M; NULL where 0.  a_t/b_t/pass/op/mode/flag are bound apart. */
static const int64_t *row_ints(const struct kernel_row *r, int kc, int64_t *tmp)
{
    switch (kc) {
    case KC_M: return &r->m;
    case KC_N: return &r->n;
    case KC_K: return &r->k;
    case KC_BATCH: return &r->batch;
    case KC_CONV_N: return &r->n_;
    case KC_C: return &r->c;
    case KC_CONV_D: return &r->d;
    case KC_H: return &r->h;
    case KC_W: return &r->w;
    case KC_KF: return &r->kf;
    case KC_T: return &r->t;
    case KC_R: return &r->r;
    case KC_S: return &r->s;
    case KC_PAD_D: return &r->pad_d;
    case KC_PAD_H: return &r->pad_h;
    case KC_PAD_W: return &r->pad_w;
    case KC_STRIDE_D: return &r->stride_d;
    case KC_STRIDE_H: return &r->stride_h;
    case KC_STRIDE_W: return &r->stride_w;
    case KC_DIL_D: return &r->dil_d;
    case KC_DIL_H: return &r->dil_h;
    case KC_DIL_W: return &r->dil_w;
    case KC_GROUPS: return &r->groups;
    case KC_DIMS: *tmp = r->dims; return tmp;
    case KC_FLAG: *tmp = r->flag; return tmp;
    case KC_REPS: *tmp = r->reps; return tmp;
    default:
        if (kc >= KC_DIM0 && kc < KC_DIM0 + KERNEL_DIMS_MAX)
            return &r->dim[kc - KC_DIM0];
        return NULL;
    }
}

/* Which integer columns a kind stores (the others stay NULL). */
static int kind_has_col(enum kernel_kind kind, int kc)
{
    if (kc == KC_REPS)
        return 1;
    if (kind == KERNEL_GEMM)
        return kc <= KC_BATCH;
    if (kind == KERNEL_CONV)    /* flag: the memory layout */
        return (kc >= KC_CONV_N && kc <= KC_DIMS) || kc == KC_FLAG;
    if (kind == KERNEL_ELTWISE)
        return 0;
    return kc == KC_FLAG || (kc >= KC_DIM0 && kc < KC_DIM0 + KERNEL_DIMS_MAX);
}

static void bind_row(sqlite3_stmt *q, const struct kernel_row *r)
{
    for (int kc = 0; kc < KC_COUNT; kc++) {
        int64_t tmp;
        const int64_t *v = row_ints(r, kc, &tmp);
        if (v && kind_has_col(r->kind, kc) && (*v > 0 || kc == KC_FLAG || kc == KC_PAD_D ||
                                               kc == KC_PAD_H || kc == KC_PAD_W))
            sqlite3_bind_int64(q, INSERT_KC0 + kc, *v);
    }
    if (r->kind == KERNEL_GEMM) {
        char at[2] = { r->a_t ? r->a_t : 'N', 0 }, bt[2] = { r->b_t ? r->b_t : 'N', 0 };
        sqlite3_bind_text(q, INSERT_KC0 + KC_AT, at, 1, SQLITE_TRANSIENT);
        sqlite3_bind_text(q, INSERT_KC0 + KC_BT, bt, 1, SQLITE_TRANSIENT);
    }
    if (r->kind > KERNEL_ELTWISE)
        sqlite3_bind_text(q, INSERT_KC0 + KC_PASS, kernel_pass_name(r->pass), -1, SQLITE_STATIC);
    bind_opt_text(q, INSERT_KC0 + KC_OP, r->op);
    bind_opt_text(q, INSERT_KC0 + KC_MODE, r->mode);
    bind_opt_double(q, INSERT_KC0 + KC_ELEMENTS, r->elements);
    bind_opt_double(q, INSERT_KC0 + KC_BYTES, r->bytes);
    for (int i = 0; i < CONV_PASS_COUNT; i++)
        bind_opt_double(q, INSERT_KC0 + KC_TIME + i, r->time_s[i]);
    bind_opt_double(q, INSERT_KC0 + KC_LO, r->time_lo_s);
    bind_opt_double(q, INSERT_KC0 + KC_HI, r->time_hi_s);
    bind_opt_double(q, INSERT_KC0 + KC_LOOP, r->time_loop_s);
    bind_opt_text(q, INSERT_KC0 + KC_SOURCE, r->source);
}

static int import_row(struct store *s, sqlite3_int64 hw_id, const struct kernel_row *r,
                      struct strbuf *key, struct store_import_stats *st, struct diag *d)
{
    const char *kind = kernel_kind_name(r->kind), *prec = precision_name(r->prec);
    row_key(r, key);
    sqlite3_stmt *q = s->st[ST_EXISTS];
    sqlite3_bind_int64(q, 1, hw_id);
    sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, prec, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, key->buf, (int)key->len, SQLITE_STATIC);
    int ex = sqlite3_step(q);
    sqlite3_reset(q);
    if (ex != SQLITE_ROW && ex != SQLITE_DONE)
        return db_error(s, d, "cannot look up a kernel row");

    q = s->st[ST_INSERT];
    sqlite3_clear_bindings(q);
    sqlite3_bind_int64(q, 1, hw_id);
    sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, prec, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, key->buf, (int)key->len, SQLITE_STATIC);
    bind_row(q, r);
    int rc = step_done(s, ST_INSERT, d, "cannot insert a kernel row");
    if (rc)
        return rc;
    if (ex == SQLITE_ROW)
        st->replaced++;
    else
        st->inserted++;
    return 0;
}

int store_import(struct store *s, const struct kernel_set *set,
                 struct store_import_stats *st, struct diag *d)
{
    struct strbuf key = STRBUF_INIT;
    int rc, in_tx = 0;
    memset(st, 0, sizeof *st);
    if ((rc = step_done(s, ST_BEGIN, d, "cannot begin the import")))
        goto out;
    in_tx = 1;
    for (size_t i = 0; i < set->n; i++) {
        const struct kernel_table *t = &set->tables[i];
        sqlite3_stmt *q = s->st[ST_HW_UPSERT];
        sqlite3_bind_text(q, 1, t->hw, -1, SQLITE_STATIC);
        bind_opt_text(q, 2, t->origin);
        bind_opt_text(q, 3, t->software);
        if ((rc = step_done(s, ST_HW_UPSERT, d, "cannot write hardware")))
            goto out;
        q = s->st[ST_HW_ID];
        sqlite3_bind_text(q, 1, t->hw, -1, SQLITE_STATIC);
        if (sqlite3_step(q) != SQLITE_ROW) {
            sqlite3_reset(q);
            rc = db_error(s, d, "cannot read back hardware");
            goto out;
        }
        sqlite3_int64 hw_id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        st->tables++;
        for (size_t j = 0; j < t->n_rows; j++)
            if ((rc = import_row(s, hw_id, &t->rows[j], &key, st, d)))
                goto out;
    }
    rc = step_done(s, ST_COMMIT, d, "cannot commit the import");
    if (!rc)
        in_tx = 0;
out:
    if (in_tx) {
        int r = sqlite3_step(s->st[ST_ROLLBACK]);
        sqlite3_reset(s->st[ST_ROLLBACK]);
        (void)r; /* the error that brought us here is the one to report */
    }
    strbuf_release(&key);
    return rc;
}

static char *col_text(sqlite3_stmt *q, int i)
{
    const unsigned char *v = sqlite3_column_text(q, i);
    return v ? xstrdup((const char *)v) : NULL;
}

/* The row at the load statement's current result; -1 for a kind,
 * precision or pass this fom does not know. */
static int load_row(sqlite3_stmt *q, struct kernel_row *row)
{
    memset(row, 0, sizeof *row);
    const char *kind = (const char *)sqlite3_column_text(q, 3);
    const char *prec = (const char *)sqlite3_column_text(q, 4);
    row->kind = kernel_kind_parse(kind);
    row->prec = precision_parse(prec);
    if (row->kind == KERNEL_KIND_COUNT || row->prec == PREC_UNKNOWN)
        return -1;
    for (int kc = 0; kc < KC_COUNT; kc++) {
        int64_t tmp;
        int64_t *v = (int64_t *)row_ints(row, kc, &tmp);
        if (!v)
            continue;
        int64_t x = sqlite3_column_int64(q, LOAD_KC0 + kc);
        if (v == &tmp) {
            int *dst = kc == KC_DIMS ? &row->dims : kc == KC_FLAG ? &row->flag : &row->reps;
            *dst = (int)x;
        } else {
            *v = x;
        }
    }
    const unsigned char *at = sqlite3_column_text(q, LOAD_KC0 + KC_AT);
    const unsigned char *bt = sqlite3_column_text(q, LOAD_KC0 + KC_BT);
    row->a_t = at ? (char)at[0] : 0;
    row->b_t = bt ? (char)bt[0] : 0;
    const char *pass = (const char *)sqlite3_column_text(q, LOAD_KC0 + KC_PASS);
    row->pass = pass ? kernel_pass_parse(pass) : KPASS_FWD;
    if (row->pass == KPASS_COUNT)
        return -1;
    row->elements = sqlite3_column_double(q, LOAD_KC0 + KC_ELEMENTS);
    row->bytes = sqlite3_column_double(q, LOAD_KC0 + KC_BYTES);
    for (int i = 0; i < CONV_PASS_COUNT; i++)
        row->time_s[i] = sqlite3_column_double(q, LOAD_KC0 + KC_TIME + i);
    row->time_lo_s = sqlite3_column_double(q, LOAD_KC0 + KC_LO);
    row->time_hi_s = sqlite3_column_double(q, LOAD_KC0 + KC_HI);
    row->time_loop_s = sqlite3_column_double(q, LOAD_KC0 + KC_LOOP);
    if (row->kind == KERNEL_CONV && sqlite3_column_type(q, LOAD_KC0 + KC_FLAG) == SQLITE_NULL) {
        /* imported before convolutions stored their layout's column: the
         * layout is in the row's key (row_key) */
        const char *key = (const char *)sqlite3_column_text(q, LOAD_KC0 + KC_COUNT);
        row->flag = key && strstr(key, " channels-last") != NULL;
    }
    return 0;
}

int store_load(struct store *s, const char *hw, struct kernel_set *out, struct diag *d)
{
    sqlite3_stmt *q = s->st[ST_LOAD];
    struct kernel_table *t = NULL;
    int rc = 0, r;
    bind_opt_text(q, 1, hw);
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0);
        if (!t || strcasecmp(t->hw, name ? name : "") != 0) {
            t = kernel_set_get(out, name);
            if (!t->origin)
                t->origin = col_text(q, 1);
            if (!t->software)
                t->software = col_text(q, 2);
        }
        struct kernel_row row;
        if (load_row(q, &row) != 0) {
            const char *kind = (const char *)sqlite3_column_text(q, 3);
            const char *prec = (const char *)sqlite3_column_text(q, 4);
            const char *pass = (const char *)sqlite3_column_text(q, LOAD_KC0 + KC_PASS);
            rc = diag_error(d, "%s: found kernel kind '%s' precision '%s' pass '%s', expected known ones",
                            s->path, kind ? kind : "", prec ? prec : "", pass ? pass : "");
            goto out;
        }
        struct kernel_row *dst = kernel_table_add(t);
        *dst = row;
        dst->op = col_text(q, LOAD_KC0 + KC_OP);
        dst->mode = col_text(q, LOAD_KC0 + KC_MODE);
        dst->source = col_text(q, LOAD_KC0 + KC_SOURCE);
    }
    if (r != SQLITE_DONE)
        rc = db_error(s, d, "cannot read kernel rows");
out:
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return rc;
}

int store_counts(struct store *s, struct store_count **out, size_t *n, struct diag *d)
{
    sqlite3_stmt *q = s->st[ST_COUNTS];
    struct store_count *c = NULL;
    size_t len = 0, alloc = 0;
    int r, rc = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        ALLOC_GROW(c, len + 1, alloc);
        c[len].hw = col_text(q, 0);
        c[len].kind = kernel_kind_parse((const char *)sqlite3_column_text(q, 1));
        c[len].prec = precision_parse((const char *)sqlite3_column_text(q, 2));
        c[len].rows = (size_t)sqlite3_column_int64(q, 3);
        len++;
    }
    if (r != SQLITE_DONE)
        rc = db_error(s, d, "cannot count kernel rows");
    sqlite3_reset(q);
    if (rc) {
        store_counts_free(c, len);
        c = NULL;
        len = 0;
    }
    *out = c;
    *n = len;
    return rc;
}

void store_counts_free(struct store_count *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].hw);
    free(c);
}
