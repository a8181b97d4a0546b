/* The recorded arguments of one op, parsed (src/model/ops.c), shared by
 * the flop formulas there and the kernel-table parameters of
 * src/model/op_params.c.  Internal to src/model/. */
#ifndef FOM_OP_ARGS_H
#define FOM_OP_ARGS_H
#include <stdint.h>

#include "model/profile.h"

#define MAX_ARGS 24
#define MAX_DIMS 8

struct targ {
    int present;        /* a tensor (or tensor list) with recorded dims */
    int ndim;
    int64_t d[MAX_DIMS];
    int ntensors;       /* tensors in this argument (lists: several) */
    double elems;       /* elements over all its tensors */
};

/* "[1, 2]" or "1" -> up to max ints; returns how many. */
int ops_parse_intlist(const char *s, int64_t *v, int max);

/* Set o's kernel-table parameters (kdim, kop, kmode, kflag) for rnn,
 * attention, norm, embedding, optimizer and elementwise ops from its
 * parsed Input Dims a[0..na) and Concrete Inputs conc[0..nc) (entries may
 * be empty strings).  o->name and o->kind must be set. */
void op_params_fill(struct op *o, const struct targ *a, int na, char *const *conc, int nc);

#endif
