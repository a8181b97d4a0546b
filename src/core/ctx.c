#include "core/ctx.h"

#include <string.h>

int out_format_parse(const char *s, enum out_format *f)
{
    if (!s)
        return -1;
    if (strcmp(s, "text") == 0)
        *f = FMT_TEXT;
    else if (strcmp(s, "json") == 0)
        *f = FMT_JSON;
    else if (strcmp(s, "csv") == 0)
        *f = FMT_CSV;
    else
        return -1;
    return 0;
}

const char *out_format_name(enum out_format f)
{
    switch (f) {
    case FMT_JSON: return "json";
    case FMT_CSV: return "csv";
    default: return "text";
    }
}
