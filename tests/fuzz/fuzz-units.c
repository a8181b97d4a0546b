/* libFuzzer target: quantities with units ("3.35 TB/s", "60h").  The
 * first byte picks the kind, the rest is the text.  Any bytes must give
 * 0 with a finite value or -1 with a description, and formatting the value
 * back must fit its buffer.  Build and run: make fuzz; replayed by
 * u-hostile-replay. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    enum qty q = (enum qty)(data[0] % QTY_COUNT_);
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    double v = 0;
    const char *expected = NULL;
    char buf[64];
    if (unit_parse(text, q, &v, &expected) == 0) {
        if (!isfinite(v))
            abort();    /* the contract: NaN and infinities are refused */
        unit_format(v, q, buf, sizeof buf);
        if (strlen(buf) >= sizeof buf)
            abort();
    } else if (!expected) {
        abort();
    }
    free(text);
    return 0;
}
