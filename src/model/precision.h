/* Numeric precisions and op kinds shared by every module. */
#ifndef FOM_PRECISION_H
#define FOM_PRECISION_H

enum precision {
    PREC_FP64,
    PREC_FP32,
    PREC_TF32,
    PREC_BF16,
    PREC_FP16,
    PREC_FP8,
    PREC_INT8,
    PREC_COUNT,
    PREC_UNKNOWN = PREC_COUNT,
};

/* Where a rate comes from: plain vector/SIMD units or matrix engines
 * (tensor cores, XMX, AMX, MFMA). */
enum exec_unit {
    EXEC_VECTOR,
    EXEC_MATRIX,
    EXEC_COUNT,
};

/* "fp32" -> PREC_FP32; also accepts "float32", "float", "bfloat16", "half",
 * "double", "c10::BFloat16"...  Returns PREC_UNKNOWN when unknown. */
enum precision precision_parse(const char *s);
const char *precision_name(enum precision p);       /* "fp32"; "unknown" */
/* Storage size of one element in bytes (tf32 is stored as 4). */
int precision_bytes(enum precision p);

const char *exec_unit_name(enum exec_unit u);       /* "vector", "matrix" */

#endif
