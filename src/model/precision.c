#include "model/precision.h"

#include <string.h>
#include <strings.h>

static const char *const names[PREC_COUNT] = {
    "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8",
};

static const struct { const char *alias; enum precision p; } aliases[] = {
    { "double", PREC_FP64 }, { "float64", PREC_FP64 },
    { "float", PREC_FP32 }, { "float32", PREC_FP32 }, { "single", PREC_FP32 },
    { "bfloat16", PREC_BF16 }, { "c10::bfloat16", PREC_BF16 },
    { "half", PREC_FP16 }, { "float16", PREC_FP16 }, { "c10::half", PREC_FP16 },
    { "float8", PREC_FP8 }, { "float8_e4m3fn", PREC_FP8 }, { "float8_e5m2", PREC_FP8 },
    { "e4m3", PREC_FP8 }, { "char", PREC_INT8 }, { "signed char", PREC_INT8 },
    { "dt_float", PREC_FP32 }, { "dt_half", PREC_FP16 }, { "dt_bfloat16", PREC_BF16 },
    { "dt_double", PREC_FP64 },
};

enum precision precision_parse(const char *s)
{
    if (!s)
        return PREC_UNKNOWN;
    for (int i = 0; i < PREC_COUNT; i++)
        if (strcasecmp(s, names[i]) == 0)
            return (enum precision)i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].alias) == 0)
            return aliases[i].p;
    return PREC_UNKNOWN;
}

const char *precision_name(enum precision p)
{
    return (unsigned)p < PREC_COUNT ? names[p] : "unknown";
}

int precision_bytes(enum precision p)
{
    switch (p) {
    case PREC_FP64: return 8;
    case PREC_FP32: case PREC_TF32: return 4;
    case PREC_BF16: case PREC_FP16: return 2;
    case PREC_FP8: case PREC_INT8: return 1;
    default: return 4;
    }
}

const char *exec_unit_name(enum exec_unit u)
{
    return u == EXEC_MATRIX ? "matrix" : "vector";
}
