/* Shared by the fuzz targets whose reader takes a path: the input bytes
 * are written to one scratch file per process (under $TMPDIR, /tmp if
 * unset) that is overwritten for every input and removed at exit. */
#ifndef FOM_FUZZ_FILE_H
#define FOM_FUZZ_FILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path_buf[4096];

static void fuzz_file_remove(void)
{
    if (fuzz_path_buf[0])
        unlink(fuzz_path_buf);
}

/* Returns the scratch path now holding data[0..size), or NULL. */
static const char *fuzz_file_write(const uint8_t *data, size_t size)
{
    if (!fuzz_path_buf[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(fuzz_path_buf, sizeof fuzz_path_buf, "%s/fom-fuzz-%ld.in",
                 dir && *dir ? dir : "/tmp", (long)getpid());
        atexit(fuzz_file_remove);
    }
    FILE *fp = fopen(fuzz_path_buf, "wb");
    if (!fp)
        return NULL;
    if (size && fwrite(data, 1, size, fp) != size) {
        fclose(fp);
        return NULL;
    }
    if (fclose(fp))
        return NULL;
    return fuzz_path_buf;
}

#endif
