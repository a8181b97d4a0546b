/* libFuzzer target: the study file reader (XML parse, schema, checks).
 * Any bytes must give a status, never a crash, leak, hang or undefined
 * behaviour.  Build and run: make fuzz; replayed by u-hostile-replay. */
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "ingest/study_xml.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d;
    struct study s;
    const char *path = fuzz_file_write(data, size);
    if (!path)
        return 0;
    diag_init(&d, NULL);    /* errors are expected; keep them quiet */
    study_init(&s);
    study_load(path, &s, &d);
    study_release(&s);
    return 0;
}
