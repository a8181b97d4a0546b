/* renameat2 and RENAME_EXCHANGE are GNU extensions of <stdio.h>. */
#define _GNU_SOURCE
#include "core/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/tmpreg.h"
#include "core/xalloc.h"

/* mkdir -p of dir, the parent of the folder shown (named in messages). */
static int make_dirs(const char *dir, const char *shown, struct diag *d)
{
    char *path = xstrdup(dir);
    int rc = 0;
    for (char *p = path + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            rc = diag_syserr(d, "cannot create directory '%s' for '%s': %s", path, shown,
                             strerror(errno));
            break;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    if (rc == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = diag_syserr(d, "cannot create '%s': '%s' exists and is not a directory", shown, dir);
    free(path);
    return rc;
}

/* The first entry of dir that is_own does not claim, or NULL. */
static char *foreign_entry(const char *dir, int (*is_own)(const char *name))
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char *found = NULL;
    if (!dp)
        return NULL;
    while (!found && (e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_type == DT_DIR || !is_own(e->d_name))
            found = xstrdup(e->d_name);
    }
    closedir(dp);
    return found;
}

/* Remove a folder of files (what outdir writes: no subfolders). */
static int remove_flat(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    if (!dp)
        return -1;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(dp), e->d_name, 0);
    closedir(dp);
    return rmdir(dir);
}

/* Where the folder goes: the given name without trailing slashes, or
 * the folder a link or "." stands for when it exists. */
static int final_path(struct outdir *o, const char *dir, int (*is_own)(const char *), struct diag *d)
{
    struct strbuf sb = STRBUF_INIT;
    struct stat st;
    int rc = 0;
    strbuf_addstr(&sb, dir);
    while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
        sb.buf[--sb.len] = '\0';
    if (stat(sb.buf, &st) != 0) {
        const char *slash = strrchr(sb.buf, '/');
        if (slash && slash != sb.buf) {
            char *parent = xstrndup(sb.buf, (size_t)(slash - sb.buf));
            rc = make_dirs(parent, dir, d);
            free(parent);
        }
        o->path = strbuf_detach(&sb);
        return rc;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = diag_syserr(d, "'%s' exists and is not a directory", dir);
        goto out;
    }
    char *foreign = foreign_entry(sb.buf, is_own);
    if (foreign) {
        rc = diag_usage(d, "'%s' holds '%s', which this command does not write; expected a new "
                           "folder or one holding only an earlier output (the folder is replaced "
                           "as a whole)", dir, foreign);
        free(foreign);
        goto out;
    }
    o->path = realpath(sb.buf, NULL);
    if (!o->path)
        rc = diag_syserr(d, "cannot resolve '%s': %s", dir, strerror(errno));
out:
    strbuf_release(&sb);
    return rc;
}

int outdir_open(struct outdir *o, const char *dir, int (*is_own)(const char *name),
                struct diag *d)
{
    memset(o, 0, sizeof *o);
    o->shown = xstrdup(dir);
    int rc = final_path(o, dir, is_own, d);
    if (rc)
        goto out;
    o->fresh = outfile_tmp_name(o->path);
    int slot;
    if (!tmpreg_mkdtemp(o->fresh, &slot)) {
        rc = diag_syserr(d, "cannot create a folder beside '%s': %s", dir, strerror(errno));
        free(o->fresh);
        o->fresh = NULL;
        goto out;
    }
    o->reg = slot + 1;
    /* mkdtemp makes 0700; the report folder is an ordinary one */
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(o->fresh, 0777 & ~mask) != 0)
        rc = diag_syserr(d, "cannot set the mode of '%s': %s", o->fresh, strerror(errno));
out:
    if (rc)
        outdir_abort(o);
    return rc;
}

static void outdir_forget(struct outdir *o)
{
    if (o->reg)
        tmpreg_drop(o->reg - 1);
    free(o->fresh);
    free(o->path);
    free(o->shown);
    memset(o, 0, sizeof *o);
}

int outdir_commit(struct outdir *o, struct diag *d)
{
    int rc = 0;
    /* an interruption between the renames would leave the previous folder
     * under a temporary name, or the new one half swapped in */
    sigset_t held;
    tmpreg_hold(&held);
    if (rename(o->fresh, o->path) == 0)
        goto out; /* there was no previous folder */
    if (errno != EEXIST && errno != ENOTEMPTY) {
        rc = diag_syserr(d, "cannot rename '%s' to '%s': %s", o->fresh, o->path, strerror(errno));
        goto out;
    }
    if (renameat2(AT_FDCWD, o->fresh, AT_FDCWD, o->path, RENAME_EXCHANGE) != 0) {
        if (errno != EINVAL && errno != ENOSYS) {
            rc = diag_syserr(d, "cannot replace '%s': %s", o->shown, strerror(errno));
            goto out;
        }
        /* no exchange here: move the old folder aside, the new one in */
        char *aside = outfile_tmp_name(o->path);
        if (!mkdtemp(aside) || rmdir(aside) != 0 || rename(o->path, aside) != 0) {
            rc = diag_syserr(d, "cannot replace '%s': %s", o->shown, strerror(errno));
        } else if (rename(o->fresh, o->path) != 0) {
            rc = diag_syserr(d, "cannot replace '%s': %s", o->shown, strerror(errno));
            rename(aside, o->path);
        } else {
            rename(aside, o->fresh); /* the old folder is removed below */
        }
        free(aside);
        if (rc)
            goto out;
    }
    /* the fresh name now holds the previous folder */
    if (remove_flat(o->fresh) != 0)
        diag_warn(d, "the previous '%s' is kept as '%s': %s", o->shown, o->fresh, strerror(errno));
out:
    if (rc)
        remove_flat(o->fresh);
    outdir_forget(o);
    tmpreg_release(&held);
    return rc;
}

void outdir_abort(struct outdir *o)
{
    if (o->fresh)
        remove_flat(o->fresh);
    outdir_forget(o);
}
