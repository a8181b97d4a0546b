#include "ingest/textio.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/xalloc.h"

#define BLK_SIZE (64u * 1024u)

int textio_open(struct textio *t, const char *path, struct diag *d)
{
    memset(t, 0, sizeof *t);
    strbuf_init(&t->cur);
    t->path = path;
    t->d = d;
    t->src.file = path;
    t->gz = gzopen(path, "rb");
    if (!t->gz)
        return diag_syserr(d, "cannot open '%s': %s", path,
                           errno ? strerror(errno) : "out of memory");
    t->blk = xmalloc(BLK_SIZE);
    return FOM_OK;
}

void textio_close(struct textio *t)
{
    if (t->d && t->d->src == &t->src)
        t->d->src = NULL;
    if (t->gz)
        gzclose(t->gz);
    t->gz = NULL;
    free(t->blk);
    t->blk = NULL;
    strbuf_release(&t->cur);
}

int textio_gz_check_ratio(gzFile gz, const char *path, struct diag *d)
{
    if (gzdirect(gz))
        return FOM_OK;
    z_off_t out = gztell(gz), in = gzoffset(gz);
    if (out < 0 || in <= 0 || (unsigned long long)out <= TEXTIO_GZ_BOMB_MIN ||
        out / TEXTIO_GZ_BOMB_RATIO <= in)
        return FOM_OK;
    return diag_error_at(d, path, 0, 0,
                         "found gzip data expanding %lld times (%lld MB from %lld kB), "
                         "expected at most %d times (a gzip bomb?)",
                         (long long)(out / in), (long long)(out >> 20), (long long)(in >> 10),
                         TEXTIO_GZ_BOMB_RATIO);
}

long textio_gzread(gzFile gz, const char *path, void *buf, unsigned n,
                   struct diag *d, int *status)
{
    int got = gzread(gz, buf, n);
    if (got > 0 && (*status = textio_gz_check_ratio(gz, path, d)) != FOM_OK)
        return -1;
    if (got >= 0) {
        /* zlib reports a gzip stream cut short only through gzerror
         * after the data it could decode. */
        int zerr = Z_OK;
        gzerror(gz, &zerr);
        if (got == 0 && zerr != Z_OK && zerr != Z_STREAM_END) {
            *status = diag_error_at(d, path, 0, 0,
                                    "found a truncated or corrupt gzip stream, expected complete data");
            return -1;
        }
        return got;
    }
    int zerr = Z_OK;
    const char *msg = gzerror(gz, &zerr);
    if (zerr == Z_ERRNO) {
        *status = diag_syserr(d, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    *status = diag_error_at(d, path, 0, 0,
                            "found corrupt gzip data (%s), expected a readable stream",
                            msg ? msg : "unknown");
    return -1;
}

static int fill(struct textio *t, struct diag *d)
{
    long got = textio_gzread(t->gz, t->path, t->blk, BLK_SIZE, d, &t->status);
    if (got < 0)
        return -1;
    t->blk_len = (size_t)got;
    t->blk_pos = 0;
    if (got == 0)
        t->eof = 1;
    return 0;
}

int textio_next(struct textio *t, struct diag *d)
{
    strbuf_reset(&t->cur);
    t->src.line = 0;    /* t->cur no longer holds the line */
    t->src.col = 0;
    if (t->status)
        return -1;
    int any = 0;
    for (;;) {
        if (t->blk_pos >= t->blk_len) {
            if (t->eof || fill(t, d) < 0)
                break;
            if (t->eof)
                break;
        }
        const char *p = t->blk + t->blk_pos;
        size_t avail = t->blk_len - t->blk_pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        any = 1;
        if (memchr(p, '\0', take)) {
            t->status = diag_error_at(d, t->path, t->line + 1, 0,
                                      "found a NUL byte, expected text");
            return -1;
        }
        if (t->cur.len + take > TEXTIO_MAX_LINE) {
            t->status = diag_error_at(d, t->path, t->line + 1, 0,
                                      "found a line longer than %u bytes, expected text lines",
                                      TEXTIO_MAX_LINE);
            return -1;
        }
        strbuf_add(&t->cur, p, take);
        t->blk_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (t->status)
        return -1;
    if (!any)
        return 0;
    t->line++;
    while (t->cur.len && (t->cur.buf[t->cur.len - 1] == '\r'))
        t->cur.buf[--t->cur.len] = '\0';
    t->src.line = t->line;
    t->src.text = strbuf_str(&t->cur);
    t->src.len = t->cur.len;
    if (t->d)
        t->d->src = &t->src;
    return 1;
}

char *textio_byte_where(const char *path, unsigned long long byte)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s: byte %llu", path, byte);
    return strbuf_detach(&sb);
}

int textio_parse_i64(const char *s, size_t n, long long *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == n)
        return -1;
    long long v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

char *textio_show(const char *s, size_t n, char *buf, size_t bufn)
{
    size_t i = 0;
    for (; i < n && i < 40 && i + 1 < bufn; i++)
        buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

const char *textio_trim(const char *s, size_t *n)
{
    size_t len = *n;
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    *n = len;
    return s;
}

/* ------------------------------------------------------------------ */
/* TensorFlow op types.  Exact names first, then families by prefix. */

struct tf_kind { const char *name; enum op_kind kind; };

static const struct tf_kind tf_exact[] = {
    { "MatMul", OP_GEMM }, { "BatchMatMul", OP_GEMM }, { "BatchMatMulV2", OP_GEMM },
    { "BatchMatMulV3", OP_GEMM }, { "SparseMatMul", OP_GEMM }, { "_MklMatMul", OP_GEMM },
    { "_FusedMatMul", OP_GEMM }, { "Einsum", OP_GEMM },
    { "BiasAdd", OP_ELEMENTWISE }, { "BiasAddV1", OP_ELEMENTWISE },
    { "Add", OP_ELEMENTWISE }, { "AddV2", OP_ELEMENTWISE }, { "AddN", OP_ELEMENTWISE },
    { "Sub", OP_ELEMENTWISE }, { "Mul", OP_ELEMENTWISE }, { "RealDiv", OP_ELEMENTWISE },
    { "Div", OP_ELEMENTWISE }, { "DivNoNan", OP_ELEMENTWISE }, { "FloorDiv", OP_ELEMENTWISE },
    { "Floor", OP_ELEMENTWISE }, { "Ceil", OP_ELEMENTWISE }, { "Sqrt", OP_ELEMENTWISE },
    { "Rsqrt", OP_ELEMENTWISE }, { "Square", OP_ELEMENTWISE }, { "SquaredDifference", OP_ELEMENTWISE },
    { "Exp", OP_ELEMENTWISE }, { "Log", OP_ELEMENTWISE }, { "Log1p", OP_ELEMENTWISE },
    { "Neg", OP_ELEMENTWISE }, { "Abs", OP_ELEMENTWISE }, { "Pow", OP_ELEMENTWISE },
    { "Maximum", OP_ELEMENTWISE }, { "Minimum", OP_ELEMENTWISE }, { "Cast", OP_ELEMENTWISE },
    { "Select", OP_ELEMENTWISE }, { "SelectV2", OP_ELEMENTWISE }, { "Greater", OP_ELEMENTWISE },
    { "GreaterEqual", OP_ELEMENTWISE }, { "Less", OP_ELEMENTWISE }, { "LessEqual", OP_ELEMENTWISE },
    { "Equal", OP_ELEMENTWISE }, { "NotEqual", OP_ELEMENTWISE }, { "LogicalAnd", OP_ELEMENTWISE },
    { "Relu", OP_ELEMENTWISE }, { "Relu6", OP_ELEMENTWISE }, { "ReluGrad", OP_ELEMENTWISE },
    { "Relu6Grad", OP_ELEMENTWISE }, { "LeakyRelu", OP_ELEMENTWISE }, { "Elu", OP_ELEMENTWISE },
    { "EluGrad", OP_ELEMENTWISE }, { "Selu", OP_ELEMENTWISE }, { "Sigmoid", OP_ELEMENTWISE },
    { "SigmoidGrad", OP_ELEMENTWISE }, { "Tanh", OP_ELEMENTWISE }, { "TanhGrad", OP_ELEMENTWISE },
    { "Softplus", OP_ELEMENTWISE }, { "SoftplusGrad", OP_ELEMENTWISE },
    { "RandomUniform", OP_ELEMENTWISE }, { "RandomStandardNormal", OP_ELEMENTWISE },
    { "TruncatedNormal", OP_ELEMENTWISE }, { "Fill", OP_ELEMENTWISE }, { "ZerosLike", OP_ELEMENTWISE },
    { "OnesLike", OP_ELEMENTWISE }, { "ConcatV2", OP_ELEMENTWISE }, { "Concat", OP_ELEMENTWISE },
    { "Slice", OP_ELEMENTWISE }, { "StridedSlice", OP_ELEMENTWISE },
    { "StridedSliceGrad", OP_ELEMENTWISE }, { "Transpose", OP_ELEMENTWISE }, { "Pad", OP_ELEMENTWISE },
    { "Tile", OP_ELEMENTWISE }, { "Pack", OP_ELEMENTWISE }, { "Unpack", OP_ELEMENTWISE },
    { "Split", OP_ELEMENTWISE }, { "SplitV", OP_ELEMENTWISE }, { "MaxPool", OP_ELEMENTWISE },
    { "MaxPoolGrad", OP_ELEMENTWISE }, { "AvgPool", OP_ELEMENTWISE }, { "AvgPoolGrad", OP_ELEMENTWISE },
    { "Dropout", OP_ELEMENTWISE },
    { "Sum", OP_REDUCTION }, { "Mean", OP_REDUCTION }, { "Max", OP_REDUCTION },
    { "Min", OP_REDUCTION }, { "Prod", OP_REDUCTION }, { "ArgMax", OP_REDUCTION },
    { "ArgMin", OP_REDUCTION }, { "All", OP_REDUCTION }, { "Any", OP_REDUCTION },
    { "BiasAddGrad", OP_REDUCTION }, { "L2Loss", OP_REDUCTION }, { "Softmax", OP_REDUCTION },
    { "LogSoftmax", OP_REDUCTION }, { "SoftmaxCrossEntropyWithLogits", OP_REDUCTION },
    { "SparseSoftmaxCrossEntropyWithLogits", OP_REDUCTION },
    { "LRN", OP_NORM }, { "LRNGrad", OP_NORM },
    { "Gather", OP_EMBEDDING }, { "GatherV2", OP_EMBEDDING }, { "ResourceGather", OP_EMBEDDING },
    { "UnsortedSegmentSum", OP_EMBEDDING },
    { "Assign", OP_OPTIMIZER }, { "AssignAdd", OP_OPTIMIZER }, { "AssignSub", OP_OPTIMIZER },
    { "AssignVariableOp", OP_OPTIMIZER }, { "AssignAddVariableOp", OP_OPTIMIZER },
    { "AssignSubVariableOp", OP_OPTIMIZER },
    { "_Send", OP_MEMCPY }, { "_Recv", OP_MEMCPY }, { "_HostSend", OP_MEMCPY },
    { "_HostRecv", OP_MEMCPY }, { "MEMCPYHtoD", OP_MEMCPY }, { "MEMCPYDtoH", OP_MEMCPY },
    { "MEMCPYDtoD", OP_MEMCPY }, { "MEMCPYHtoH", OP_MEMCPY },
};

struct tf_prefix { const char *prefix; enum op_kind kind; };

static const struct tf_prefix tf_prefixes[] = {
    { "Conv", OP_CONV }, { "DepthwiseConv", OP_CONV }, { "_FusedConv", OP_CONV },
    { "_MklConv", OP_CONV },
    { "FusedBatchNorm", OP_NORM }, { "BatchNorm", OP_NORM }, { "_FusedBatchNorm", OP_NORM },
    { "LayerNorm", OP_NORM },
    { "CudnnRNN", OP_RNN }, { "BlockLSTM", OP_RNN }, { "LSTMBlock", OP_RNN },
    { "GRUBlock", OP_RNN },
    { "Apply", OP_OPTIMIZER }, { "ResourceApply", OP_OPTIMIZER },
    { "SparseApply", OP_OPTIMIZER }, { "ResourceSparseApply", OP_OPTIMIZER },
    { "SparseSegment", OP_EMBEDDING },
    { "Nccl", OP_COMM }, { "_Nccl", OP_COMM }, { "Collective", OP_COMM },
    { "HorovodAll", OP_COMM }, { "MEMCPY", OP_MEMCPY },
};

enum op_kind tf_op_kind(const char *type)
{
    if (!type)
        return OP_OTHER;
    for (size_t i = 0; i < sizeof tf_exact / sizeof tf_exact[0]; i++)
        if (strcmp(type, tf_exact[i].name) == 0)
            return tf_exact[i].kind;
    for (size_t i = 0; i < sizeof tf_prefixes / sizeof tf_prefixes[0]; i++)
        if (strncmp(type, tf_prefixes[i].prefix, strlen(tf_prefixes[i].prefix)) == 0)
            return tf_prefixes[i].kind;
    return OP_OTHER;
}

enum op_phase tf_op_phase(const char *type)
{
    if (!type)
        return PHASE_UNKNOWN;
    if (strncmp(type, "Apply", 5) == 0 || strncmp(type, "ResourceApply", 13) == 0 ||
        strncmp(type, "SparseApply", 11) == 0 || strncmp(type, "ResourceSparseApply", 19) == 0)
        return PHASE_OPTIMIZER;
    if (strstr(type, "Grad") || strstr(type, "Backprop"))
        return PHASE_BACKWARD;
    return PHASE_UNKNOWN;
}
