#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

static const char schema_sql[] =
    "CREATE TABLE schema_version(version INTEGER NOT NULL);"
    "INSERT INTO schema_version(version) VALUES(1);"
    "CREATE TABLE hardware("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    " origin TEXT,"
    " software TEXT);"
    "CREATE TABLE kernel("
    " id INTEGER PRIMARY KEY,"
    " hw_id INTEGER NOT NULL REFERENCES hardware(id) ON DELETE CASCADE,"
    " kind TEXT NOT NULL CHECK(kind IN ('gemm','conv','eltwise')),"
    " precision TEXT NOT NULL,"
    " key TEXT NOT NULL,"
    " m INTEGER, n INTEGER, k INTEGER, a_t TEXT, b_t TEXT,"
    " conv_n INTEGER, c INTEGER, h INTEGER, w INTEGER, kf INTEGER, r INTEGER, s INTEGER,"
    " pad_h INTEGER, pad_w INTEGER, stride_h INTEGER, stride_w INTEGER,"
    " op TEXT, elements REAL, bytes REAL,"
    " time_s REAL, time_bwd_data_s REAL, time_bwd_filter_s REAL,"
    " time_lo_s REAL, time_hi_s REAL, time_loop_s REAL, reps INTEGER, source TEXT,"
    " UNIQUE(hw_id, kind, precision, key));"
    /* The UNIQUE index serves loads per hardware; this one serves direct
     * shape queries (sqlite3 shell, bench). */
    "CREATE INDEX kernel_gemm_shape ON kernel(hw_id, kind, precision, m, n, k);";

enum stmt_id {
    ST_HW_UPSERT, ST_HW_ID, ST_EXISTS, ST_INSERT, ST_LOAD, ST_COUNTS,
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_COUNT,
};

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
        "INSERT OR REPLACE INTO kernel(hw_id, kind, precision, key, m, n, k, a_t, b_t,"
        " conv_n, c, h, w, kf, r, s, pad_h, pad_w, stride_h, stride_w, op, elements, bytes,"
        " time_s, time_bwd_data_s, time_bwd_filter_s, time_lo_s, time_hi_s, time_loop_s, reps, source)"
        " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
        " ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
    [ST_LOAD] =
        "SELECT h.name, h.origin, h.software, k.kind, k.precision, k.m, k.n, k.k, k.a_t, k.b_t,"
        " k.conv_n, k.c, k.h, k.w, k.kf, k.r, k.s, k.pad_h, k.pad_w, k.stride_h, k.stride_w,"
        " k.op, k.elements, k.bytes, k.time_s, k.time_bwd_data_s, k.time_bwd_filter_s,"
        " k.time_lo_s, k.time_hi_s, k.time_loop_s, k.reps, k.source"
        " FROM kernel k JOIN hardware h ON h.id = k.hw_id"
        " WHERE ?1 IS NULL OR h.name = ?1 ORDER BY h.id, k.id",
    [ST_COUNTS] =
        "SELECT h.name, k.kind, k.precision, count(*) FROM kernel k JOIN hardware h ON h.id = k.hw_id"
        " GROUP BY h.id, k.kind, k.precision ORDER BY h.name COLLATE NOCASE, k.kind, k.precision",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

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

/* Check the schema version, creating the schema in an empty database
 * when allowed. */
static int schema_check(struct store *s, int create, struct diag *d)
{
    sqlite3_stmt *q = NULL;
    int rc = 0, n_objects = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB)
            rc = diag_error(d, "%s: found a file that is not a SQLite database, expected one "
                               "made by 'fom kernels import'", s->path);
        else
            rc = db_error(s, d, "cannot read the schema");
        goto out;
    }
    n_objects = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    q = NULL;
    if (n_objects == 0) {
        if (!create) {
            rc = diag_error(d, "%s: found an empty database, expected one made by 'fom kernels import'",
                            s->path);
            goto out;
        }
        char *msg = NULL;
        if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
            rc = db_error(s, d, "cannot create the schema");
            goto out;
        }
        if (sqlite3_exec(s->db, schema_sql, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            rc = diag_syserr(d, "%s: cannot create the schema: %s", s->path,
                             msg ? msg : sqlite3_errmsg(s->db));
            sqlite3_free(msg);
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            goto out;
        }
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
    if (version != STORE_SCHEMA_VERSION)
        rc = diag_error(d, "%s: found schema version %d, expected %d (%s)", s->path, version,
                        STORE_SCHEMA_VERSION,
                        version > STORE_SCHEMA_VERSION ? "made by a newer fom" : "unknown");
out:
    sqlite3_finalize(q);
    return rc;
}

int store_open(const char *path, int create, struct store **out, struct diag *d)
{
    struct store *s = xcalloc(1, sizeof *s);
    int rc = 0;
    s->path = xstrdup(path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        /* A db on read-only media can still be read (unless a killed
         * import left a journal that needs rolling back). */
        if (!create && s->db) {
            sqlite3_close(s->db);
            s->db = NULL;
            if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
                goto opened;
        }
        rc = diag_syserr(d, "cannot open database '%s': %s", path,
                         s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto out;
    }
opened:
    sqlite3_busy_timeout(s->db, 5000);
    sqlite3_extended_result_codes(s->db, 1);
    if (sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
        /* Not a database at all shows up here. */
        rc = diag_syserr(d, "cannot open database '%s': %s", path, sqlite3_errmsg(s->db));
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
        store_close(s);
        s = NULL;
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

static void row_key(const struct kernel_row *r, struct strbuf *sb)
{
    strbuf_reset(sb);
    switch (r->kind) {
    case KERNEL_GEMM:
        strbuf_addf(sb, "%lldx%lldx%lld:%c%c", (long long)r->m, (long long)r->n, (long long)r->k,
                    r->a_t ? r->a_t : 'N', r->b_t ? r->b_t : 'N');
        break;
    case KERNEL_CONV:
        strbuf_addf(sb, "n%lld c%lld h%lld w%lld k%lld r%lld s%lld pad%lldx%lld stride%lldx%lld",
                    (long long)r->n_, (long long)r->c, (long long)r->h, (long long)r->w,
                    (long long)r->kf, (long long)r->r, (long long)r->s, (long long)r->pad_h,
                    (long long)r->pad_w, (long long)r->stride_h, (long long)r->stride_w);
        break;
    default:
        strbuf_addf(sb, "%s:%.17g", r->op ? r->op : "", r->bytes);
        break;
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
    if (r->kind == KERNEL_GEMM) {
        char at[2] = { r->a_t ? r->a_t : 'N', 0 }, bt[2] = { r->b_t ? r->b_t : 'N', 0 };
        sqlite3_bind_int64(q, 5, r->m);
        sqlite3_bind_int64(q, 6, r->n);
        sqlite3_bind_int64(q, 7, r->k);
        sqlite3_bind_text(q, 8, at, 1, SQLITE_TRANSIENT);
        sqlite3_bind_text(q, 9, bt, 1, SQLITE_TRANSIENT);
    } else if (r->kind == KERNEL_CONV) {
        const int64_t v[] = { r->n_, r->c, r->h, r->w, r->kf, r->r, r->s,
                              r->pad_h, r->pad_w, r->stride_h, r->stride_w };
        for (int i = 0; i < 11; i++)
            sqlite3_bind_int64(q, 10 + i, v[i]);
    } else {
        bind_opt_text(q, 21, r->op);
        bind_opt_double(q, 22, r->elements);
        bind_opt_double(q, 23, r->bytes);
    }
    for (int i = 0; i < CONV_PASS_COUNT; i++)
        bind_opt_double(q, 24 + i, r->time_s[i]);
    bind_opt_double(q, 27, r->time_lo_s);
    bind_opt_double(q, 28, r->time_hi_s);
    bind_opt_double(q, 29, r->time_loop_s);
    if (r->reps > 0)
        sqlite3_bind_int(q, 30, r->reps);
    bind_opt_text(q, 31, r->source);
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
        const char *kind = (const char *)sqlite3_column_text(q, 3);
        const char *prec = (const char *)sqlite3_column_text(q, 4);
        struct kernel_row row;
        memset(&row, 0, sizeof row);
        row.kind = kernel_kind_parse(kind);
        row.prec = precision_parse(prec);
        if (row.kind == KERNEL_KIND_COUNT || row.prec == PREC_UNKNOWN) {
            rc = diag_error(d, "%s: found kernel kind '%s' precision '%s', expected known ones",
                            s->path, kind ? kind : "", prec ? prec : "");
            goto out;
        }
        row.m = sqlite3_column_int64(q, 5);
        row.n = sqlite3_column_int64(q, 6);
        row.k = sqlite3_column_int64(q, 7);
        const unsigned char *at = sqlite3_column_text(q, 8), *bt = sqlite3_column_text(q, 9);
        row.a_t = at ? (char)at[0] : 0;
        row.b_t = bt ? (char)bt[0] : 0;
        int64_t *conv[] = { &row.n_, &row.c, &row.h, &row.w, &row.kf, &row.r, &row.s,
                            &row.pad_h, &row.pad_w, &row.stride_h, &row.stride_w };
        for (int i = 0; i < 11; i++)
            *conv[i] = sqlite3_column_int64(q, 10 + i);
        row.elements = sqlite3_column_double(q, 22);
        row.bytes = sqlite3_column_double(q, 23);
        for (int i = 0; i < CONV_PASS_COUNT; i++)
            row.time_s[i] = sqlite3_column_double(q, 24 + i);
        row.time_lo_s = sqlite3_column_double(q, 27);
        row.time_hi_s = sqlite3_column_double(q, 28);
        row.time_loop_s = sqlite3_column_double(q, 29);
        row.reps = sqlite3_column_int(q, 30);
        struct kernel_row *dst = kernel_table_add(t);
        *dst = row;
        dst->op = col_text(q, 21);
        dst->source = col_text(q, 31);
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
