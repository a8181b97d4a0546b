/* libFuzzer target: the TF1 timeline JSON reader.
 * Any bytes must give a status, never a crash, leak, hang or undefined
 * behaviour.  Build and run: make fuzz; replayed by u-hostile-replay. */
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "ingest/ingest.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d;
    struct profile p;
    struct ingest_opts o = { TRACE_TF_TIMELINE, 0, 1.0, NULL };
    const char *path = fuzz_file_write(data, size);
    if (!path)
        return 0;
    diag_init(&d, NULL);    /* errors are expected; keep them quiet */
    profile_init(&p);
    tf_timeline_read(path, &o, &p, &d);
    profile_release(&p);
    return 0;
}
