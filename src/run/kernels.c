#include "run/kernels.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/outfile.h"
#include "core/xalloc.h"
#include "ingest/env_json.h"
#include "ingest/ingest.h"
#include "ingest/kernel_csv.h"
#include "model/kernel_shapes.h"
#include "report/kernels_render.h"
#include "report/shapes_render.h"
#include "store/store.h"

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
}

/* Base name without trailing slashes and, when strip_ext, the extension. */
static char *base_of(const char *path, int strip_ext)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    char *s = xstrndup(path + b, n - b);
    char *dot = strip_ext ? strrchr(s, '.') : NULL;
    if (dot && dot != s)
        *dot = 0;
    return s;
}

static int has_cpu(const char *s)
{
    for (; *s; s++)
        if (strncasecmp(s, "cpu", 3) == 0)
            return 1;
    return 0;
}

static void note_origin(struct kernel_table *t, const char *path, const char *software)
{
    if (!t->origin) {
        t->origin = xstrdup(path);
    } else if (!strstr(t->origin, path)) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%s; %s", t->origin, path);
        free(t->origin);
        t->origin = strbuf_detach(&sb);
    }
    if (software && !t->software)
        t->software = xstrdup(software);
}

/* Read files into a staging set, then stamp origin and software on every
 * table it produced and move it into out. */
static int read_files(char **files, size_t n, const char *origin, const char *hw, int force,
                      const char *software, struct kernel_set *out, struct diag *d)
{
    struct kernel_set staging;
    int rc = 0;
    kernel_set_init(&staging);
    struct kernel_read_opts o = { .hw = hw, .force_hw = force };
    for (size_t i = 0; i < n && !rc; i++)
        rc = kernel_file_read(files[i], &o, &staging, d);
    if (!rc) {
        for (size_t i = 0; i < staging.n; i++)
            note_origin(&staging.tables[i], origin, software);
        kernel_set_take(out, &staging);
    }
    kernel_set_release(&staging);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *path, const char *hw, struct kernel_set *out, struct diag *d)
{
    struct kernels_env env = { 0 };
    char **files = NULL, *base = base_of(path, 0);
    size_t n = 0, alloc = 0;
    DIR *dir = NULL;
    int rc = 0;
    dir = opendir(path);
    if (!dir) {
        rc = diag_syserr(d, "cannot open folder '%s': %s", path, strerror(errno));
        goto out;
    }
    struct dirent *de;
    while ((de = readdir(dir))) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 5 || strcasecmp(de->d_name + len - 4, ".csv") != 0)
            continue;
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%s/%s", path, de->d_name);
        ALLOC_GROW(files, n + 1, alloc);
        files[n++] = strbuf_detach(&sb);
    }
    if (!n) {
        rc = diag_error(d, "%s: found a folder without *.csv files, expected kernel tables", path);
        goto out;
    }
    qsort(files, n, sizeof *files, cmp_str);
    int is_cpu = has_cpu(base) || (n > 0 && has_cpu(files[0] + strlen(path)));
    if ((rc = kernels_env_read(path, is_cpu, &env, d)))
        goto out;
    rc = read_files(files, n, path, hw ? hw : env.hw ? env.hw : base, hw != NULL, env.software,
                    out, d);
out:
    if (dir)
        closedir(dir);
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(base);
    kernels_env_release(&env);
    return rc;
}

static int load_file(const char *path, const char *hw, struct kernel_set *out, struct diag *d)
{
    struct kernels_env env = { 0 };
    char *dir = dir_of(path), *base = base_of(path, 1);
    int rc = 0;
    if ((rc = kernels_env_read(dir, has_cpu(base) || has_cpu(dir), &env, d)))
        goto out;
    char *files[] = { (char *)path };
    rc = read_files(files, 1, path, hw ? hw : env.hw ? env.hw : base, hw != NULL, env.software,
                    out, d);
out:
    free(dir);
    free(base);
    kernels_env_release(&env);
    return rc;
}

static int load_db(const char *path, const char *hw, struct kernel_set *out, struct diag *d)
{
    struct store *s = NULL;
    struct kernel_set staging;
    kernel_set_init(&staging);
    int rc = store_open(path, 0, &s, d);
    if (rc)
        goto out;
    if ((rc = store_load(s, NULL, &staging, d)))
        goto out;
    if (!staging.n) {
        rc = diag_error(d, "%s: found no kernel rows, expected an imported table", path);
        goto out;
    }
    if (hw) {
        /* Rename: every table of the db goes under the one name. */
        for (size_t i = 0; i < staging.n; i++) {
            free(staging.tables[i].hw);
            staging.tables[i].hw = xstrdup(hw);
        }
    }
    for (size_t i = 0; i < staging.n; i++) {
        struct kernel_table *t = &staging.tables[i];
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%s", path);
        if (t->origin)
            strbuf_addf(&sb, " (imported from %s)", t->origin);
        free(t->origin);
        t->origin = NULL;
        char *origin = strbuf_detach(&sb);
        struct kernel_table *dt = kernel_set_get(out, t->hw);
        note_origin(dt, origin, t->software);
        free(origin);
    }
    kernel_set_take(out, &staging);
out:
    kernel_set_release(&staging);
    store_close(s);
    return rc;
}

int kernels_load(const char *path, const char *hw, struct kernel_set *out, struct diag *d)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return diag_syserr(d, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return load_dir(path, hw, out, d);
    if (store_is_db(path))
        return load_db(path, hw, out, d);
    return load_file(path, hw, out, d);
}

int kernels_open(const char *path, struct kernel_set *out, struct diag *d)
{
    return kernels_load(path, NULL, out, d);
}

/* Rows of one table per kind and precision, for the summaries. */
static size_t count_rows(const struct kernel_table *t, enum kernel_kind k, enum precision p)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_rows; i++)
        n += t->rows[i].kind == k && t->rows[i].prec == p;
    return n;
}

int kernels_import(const struct kernels_import_opts *o, FILE *out, struct diag *d)
{
    struct kernel_set set;
    struct store *s = NULL;
    struct store_import_stats st;
    int rc = 0;
    kernel_set_init(&set);
    for (size_t i = 0; i < o->n_files && !rc; i++)
        rc = kernels_load(o->files[i], o->machine, &set, d);
    if (rc)
        goto out;
    if ((rc = store_open(o->db, 1, &s, d)))
        goto out;
    if ((rc = store_import(s, &set, &st, d)))
        goto out;
    for (size_t i = 0; i < set.n; i++) {
        const struct kernel_table *t = &set.tables[i];
        fprintf(out, "%s: %zu rows", t->hw, t->n_rows);
        const char *sep = " (";
        for (int k = 0; k < KERNEL_KIND_COUNT; k++)
            for (int p = 0; p < PREC_COUNT; p++) {
                size_t n = count_rows(t, (enum kernel_kind)k, (enum precision)p);
                if (n) {
                    fprintf(out, "%s%s %s %zu", sep, kernel_kind_name((enum kernel_kind)k),
                            precision_name((enum precision)p), n);
                    sep = ", ";
                }
            }
        fprintf(out, "%s\n", *sep == ',' ? ")" : "");
    }
    /* Same key imported again: the newer row replaces the older one. */
    fprintf(out, "%s: %zu rows imported, %zu new, %zu replaced older rows with the same key\n",
            o->db, st.inserted + st.replaced, st.inserted, st.replaced);
out:
    store_close(s);
    kernel_set_release(&set);
    return rc;
}

int kernels_list(const char *db, enum out_format fmt, FILE *out, struct diag *d)
{
    struct store *s = NULL;
    struct store_count *c = NULL;
    struct kernels_count *rows = NULL;
    size_t n = 0;
    int rc = store_open(db, 0, &s, d);
    if (rc)
        goto out;
    if ((rc = store_counts(s, &c, &n, d)))
        goto out;
    rows = xcalloc(n ? n : 1, sizeof *rows);
    for (size_t i = 0; i < n; i++)
        rows[i] = (struct kernels_count){ c[i].hw, c[i].kind, c[i].prec, c[i].rows };
    kernels_render_list(out, fmt, db, rows, n);
out:
    free(rows);
    store_counts_free(c, n);
    store_close(s);
    return rc;
}

int kernels_shapes(char *const *profiles, size_t n, enum out_format fmt, const char *out_path,
                   FILE *out, struct diag *d)
{
    struct ingest_opts io = { TRACE_AUTO, 0, 1.0, NULL };
    struct kernel_shapes ks;
    struct outfile of = { 0 };
    int rc = 0;
    kernel_shapes_init(&ks);
    for (size_t i = 0; i < n && !rc; i++) {
        struct profile p;
        profile_init(&p);
        rc = ingest_read(profiles[i], &io, &p, d);
        if (!rc)
            kernel_shapes_add(&ks, &p);
        profile_release(&p);
    }
    if (rc)
        goto out;
    kernel_shapes_finish(&ks);
    for (int k = 0; k < OP_KIND_COUNT; k++)
        if (ks.skipped[k])
            diag_warn(d, "%zu %s ops left out: their shape is not in the profile (the trace "
                         "does not record it, or an older fom saved the profile with gemm and "
                         "conv shapes only)",
                      ks.skipped[k], op_kind_name((enum op_kind)k));
    if (out_path) {
        if ((rc = outfile_open(&of, out_path, d)))
            goto out;
        shapes_render(of.fp, &ks, fmt);
        rc = outfile_commit(&of, d);
    } else {
        shapes_render(out, &ks, fmt);
    }
out:
    kernel_shapes_release(&ks);
    return rc;
}
