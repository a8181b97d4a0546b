#include "core/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

int outfile_open(struct outfile *o, const char *path, struct diag *d)
{
    o->fp = NULL;
    o->path = NULL;
    o->tmp = NULL;
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return 0;
    }
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s.tmp.XXXXXX", path);
    char *tmp = strbuf_detach(&sb);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = diag_syserr(d, "cannot create '%s': %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    /* mkstemp creates 0600; outputs are ordinary files that should get the
     * same mode as any file the user creates (0666 less the umask). */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        int rc = diag_syserr(d, "cannot set the mode of '%s': %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    o->fp = fdopen(fd, "w");
    if (!o->fp) {
        int rc = diag_syserr(d, "cannot open '%s': %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    o->path = xstrdup(path);
    o->tmp = tmp;
    return 0;
}

int outfile_commit(struct outfile *o, struct diag *d)
{
    int rc = 0;
    if (!o->fp)
        return 0;
    if (!o->path) {
        if (fflush(o->fp) != 0 || ferror(o->fp))
            rc = diag_syserr(d, "cannot write to standard output: %s", strerror(errno));
        o->fp = NULL;
        return rc;
    }
    if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0) {
        rc = diag_syserr(d, "cannot write '%s': %s", o->path, strerror(errno));
        goto out;
    }
    if (fclose(o->fp) != 0) {
        o->fp = NULL;
        rc = diag_syserr(d, "cannot write '%s': %s", o->path, strerror(errno));
        goto out;
    }
    o->fp = NULL;
    if (rename(o->tmp, o->path) != 0)
        rc = diag_syserr(d, "cannot rename '%s' to '%s': %s", o->tmp, o->path,
                         strerror(errno));
out:
    if (rc)
        outfile_abort(o);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return rc;
}

void outfile_abort(struct outfile *o)
{
    if (o->path) {
        if (o->fp)
            fclose(o->fp);
        if (o->tmp)
            unlink(o->tmp);
        free(o->tmp);
        free(o->path);
    }
    o->fp = NULL;
    o->tmp = o->path = NULL;
}

int write_file_atomic(const char *path, const void *data, size_t len, struct diag *d)
{
    struct outfile o;
    int rc = outfile_open(&o, path, d);
    if (rc)
        return rc;
    if (fwrite(data, 1, len, o.fp) != len) {
        rc = diag_syserr(d, "cannot write '%s': %s", path, strerror(errno));
        outfile_abort(&o);
        return rc;
    }
    return outfile_commit(&o, d);
}
