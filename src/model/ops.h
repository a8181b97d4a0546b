/* Framework op names -> kinds, and the flop/byte formulas of an op from
 * its recorded input shapes.  Pure: no I/O. */
#ifndef FOM_OPS_H
#define FOM_OPS_H
#include <stdint.h>

#include "model/profile.h"

/* What an op name says about how to count it. */
struct op_class {
    enum op_kind kind;
    int transparent;    /* composite wrapper (aten::linear, aten::matmul,
                           aten::conv2d, autograd nodes): its time belongs
                           to the ops it calls, never counted itself */
    int major;          /* gemm, conv, attention, rnn: the compute ops a
                           parent is split into */
    int backward;       /* the name itself marks backward work */
};

/* Classify a framework op name ("aten::addmm", "MmBackward0", ...). */
void ops_classify(const char *name, struct op_class *c);
/* Whether an op (its name without "aten::") reads or adds rows through an
 * index: a gather (index_select, gather) or a scatter-add made of atomic
 * adds (index_add_, index_select_backward, scatter_add_).  Their kernels
 * move one element per thread through the index, so their time follows
 * the elements more than the bytes (bf16 no faster than fp32: measured,
 * estimators/h100/index-ops/ORIGIN.md); kernel tables keep their rows
 * apart from the stream of contiguous elements. */
int ops_is_indexed(const char *base);
/* An op's name without its namespace ("aten::mm" -> "mm"); "" when it has none. */
const char *ops_base_name(const struct op *op);
/* Complex tensors ("c10::complex<float>"): the op's dtype is its parts'
 * precision and it carries the flag "complex"; an element is two of them.
 * Returns the parts' precision of a complex type name, else PREC_UNKNOWN. */
enum precision ops_complex_parts(const char *type);
int ops_is_complex(const struct op *op);
/* Whether an op keeps its precision when the run moves to bf16/fp16:
 * complex ops (autocast casts floating-point tensors only) and FFTs
 * (PyTorch's cuFFT path has no bf16, so models cast to fp32 around them). */
int ops_keeps_precision(const struct op *op);
/* Whether an op (its full name, "aten::nonzero") hands the host a value
 * computed on the device, so that on a GPU its caller waits until the
 * device has run everything queued before it: a count of nonzeros or of
 * unique values that sizes the output, a scalar read by item(). */
int ops_syncs_host(const char *name);
/* Classify a device kernel / memcpy name with no framework op above it. */
enum op_kind ops_classify_kernel(const char *name);

/* The recorded arguments of one op, as the JSON texts the profiler wrote
 * (each may be NULL): Input Dims, Input type, Input Strides, Concrete
 * Inputs. */
struct op_args {
    const char *dims, *types, *strides, *concrete;
};

/* A convolution's output channels, output shape (n, channels, depth,
 * height, width) and output elements per call.  A transposed convolution
 * (flag "transposed") is kept as the convolution whose data gradient it
 * computes: its output is that one's input. */
int64_t conv_output_channels(const struct op *op, const struct conv_shape *cs);
void conv_output_shape(const struct op *op, const struct conv_shape *cs, int64_t out[5]);
double conv_output_elems(const struct op *op, const struct conv_shape *cs);

/* Fill dtype, m, n, k, batch, a_t, b_t, conv and the shape text of o from
 * its arguments, and return the flops and bytes of ONE occurrence.  o->name
 * and o->kind must be set; o->phase is used for backward conv. */
void ops_fill(struct op *o, const struct op_args *a, double *flops1, double *bytes1);

/* Sort ops by time_s descending (ties by name) and recompute
 * p->total_time_s.  Ops already in that order stay as they are. */
/* The result sizes of forward advanced indexings (aten::index) whose
 * index shapes the trace lacks, from their gradients' puts. */
void ops_index_outputs(struct profile *p);
void ops_sort(struct profile *p);
/* The order of ops_sort, as a qsort comparison of two struct op. */
int ops_cmp_time_desc(const void *pa, const void *pb);

/* Keep the fewest leading ops (after ops_sort) whose time covers at least
 * `top` of the total; record what was dropped in p->dropped_* and
 * p->coverage.  top >= 1 keeps everything. */
void ops_select_top(struct profile *p, double top);

/* Whether autocast runs op in fp32 whatever its inputs' precision
 * (PyTorch's "CUDA ops that can autocast to float32" list); with
 * backward_too their backward ops ("native_layer_norm_backward") too. */
int ops_autocast_fp32(const struct op *op, int backward_too);

/* Dominant precision of the gemm/conv/attention/rnn ops, by time (ties and
 * no compute ops: by all ops). */
enum precision ops_dominant_dtype(const struct profile *p);

#endif
