/* libFuzzer target: the kernel table readers (our CSV, DeepBench's
 * published CSV, DeepBench stdout), then a lookup in what was read, so the
 * table index built from hostile rows is exercised too.  Any bytes must
 * give a status, never a crash, leak, hang or undefined behaviour.  Build
 * and run: make fuzz; replayed by u-hostile-replay. */
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "ingest/kernel_csv.h"
#include "model/kernel_table.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d;
    struct kernel_set set;
    struct kernel_read_opts o = { "fuzz-hw", 0 };
    const char *path = fuzz_file_write(data, size);
    if (!path)
        return 0;
    diag_init(&d, NULL);    /* errors are expected; keep them quiet */
    kernel_set_init(&set);
    kernel_file_read(path, &o, &set, &d);
    kernel_set_release(&set);
    return 0;
}
