/* Does one training run fit a device?  The peak device memory of one run
 * from its profile: weights, gradients and optimizer state from the
 * trained parameters and the optimizer the trace shows, the low-precision
 * weight copies autocast keeps, and the activations the forward pass
 * saves for the backward pass, estimated from the shapes of the forward
 * ops.  Pure: no files, no printing.
 *
 *   weights      4 B x parameters (fp32; under autocast too: the fp32
 *                weights are the master copy)
 *   gradients    4 B x parameters (the gradients of fp32 weights are fp32)
 *   optimizer    4 B x parameters x states: SGD 0, SGD with momentum 1,
 *                Adam/AdamW 2 (exp_avg, exp_avg_sq)
 *   casts        2 B x parameters under autocast (bf16/fp16 profiles):
 *                the cast weight copies autocast caches for the forward
 *   activations  for every forward op that saves its input for the
 *                backward pass (gemm, conv, attention, norm, reduction,
 *                rnn, and elementwise ops whose derivative needs their
 *                input: not add/sub, copies, casts, cat, fills; not
 *                embeddings, which keep only indices), its first input of
 *                two or more dimensions (the activation; weights and
 *                biases come later or have one dimension), in fp32 for the
 *                ops autocast runs in fp32 (norms, softmax, losses; for
 *                log_softmax the model's output the loop holds, 16-bit
 *                under autocast); for
 *                attention also key, value and the log-sum-exp; for
 *                dropout its one-byte mask (nothing when it ran no
 *                kernel); nothing for ops that keep their result (relu,
 *                sigmoid, tanh, exp, softmax: the next op keeps it); plus
 *                cuDNN's per-step gate and state reserve for LSTM/GRU; x
 *                its calls per pass, scaled by batch / profiled batch
 *   in flight    the backward frees saved tensors in reverse order, so the
 *                peak is the largest prefix (forward issue order) of saved
 *                bytes plus the two gradients of the op being
 *                differentiated (for a language model: the fp32 logits'
 *                gradients at the loss)
 *   workspaces   cuBLAS's, taken from PyTorch's caching allocator
 * Gradients are freed between steps (zero_grad's default), so the peak is
 * the larger of the backward's (weights, optimizer state, casts,
 * activations, gradients in flight, workspaces) and the optimizer step's
 * (weights, gradients, optimizer state and its temporaries, workspaces).
 * `make validate` measures it against torch.cuda.max_memory_allocated. */
#ifndef FOM_MEMORY_H
#define FOM_MEMORY_H
#include <stdint.h>

#include "model/profile.h"

enum mem_optimizer { MEM_OPT_NONE_SEEN, MEM_OPT_SGD, MEM_OPT_MOMENTUM, MEM_OPT_ADAM };

struct mem_estimate {
    int available;              /* 0 when the parameter count is unknown */
    enum mem_optimizer optimizer;
    int autocast;               /* bf16/fp16 profile: fp32 master weights + casts */
    double weights_b, grads_b, optimizer_b, casts_b, activations_b;
    double transient_b;         /* gradients in flight at the backward's peak */
    double workspace_b;         /* library workspaces (cuBLAS) */
    double step_temp_b;         /* the optimizer step's temporaries */
    int peak_at_step;           /* the peak is the optimizer step's, not the backward's */
    double total_b;             /* per device */
};

const char *mem_optimizer_name(enum mem_optimizer o);   /* "sgd", "sgd-momentum", "adam", "none seen" */
/* The optimizer the profile's optimizer-phase ops show. */
enum mem_optimizer mem_optimizer_of(const struct profile *p);
/* Activation bytes saved by the profile's forward pass, at its own batch. */
double mem_activations_b(const struct profile *p);
/* Saved activations alive at the backward pass's peak plus the two
 * gradients of the op being differentiated then, at its own batch. */
double mem_backward_peak_b(const struct profile *p);
/* The estimate for parameters (0: unknown, then only the activations are
 * filled and available is 0) at batch_scale = run batch per device /
 * profiled batch. */
void mem_estimate_run(const struct profile *p, int64_t parameters, double batch_scale,
                      struct mem_estimate *out);

#endif
