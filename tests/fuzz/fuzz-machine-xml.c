/* libFuzzer target for the machine file loader: any bytes must give a
 * status and no crash, leak or undefined behaviour.  Build: make fuzz. */
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "ingest/machine_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d;
    struct machine m;
    diag_init(&d, NULL);    /* errors are expected; keep them quiet */
    machine_load_mem("fuzz.xml", (const char *)data, size, &m, &d);
    machine_release(&m);
    return 0;
}
