/* Distinct kernel shapes of profiles: see kernel_shapes.h.  A shape is
 * identified by its kind, precision, strings and integer columns; the
 * forward and backward ops of one shape are one row (the harness measures
 * every pass of a kind for each row). */
#include "model/kernel_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

static const char *const col_names[KS_COL_COUNT] = {
    "m", "n", "k", "batch", "dims", "c", "d", "h", "w", "f_d", "f_h", "f_w",
    "pad_d", "pad_h", "pad_w", "stride_d", "stride_h", "stride_w", "dil_d", "dil_h",
    "dil_w", "groups", "input", "hidden", "layers", "seq", "bidirectional", "heads",
    "q_len", "kv_len", "head_dim", "causal", "s", "rows", "dim", "lookups", "params",
    "tensors", "elements",
};

const char *kernel_shape_col_name(int c)
{
    return c >= 0 && c < KS_COL_COUNT ? col_names[c] : NULL;
}

void kernel_shapes_init(struct kernel_shapes *s)
{
    memset(s, 0, sizeof *s);
}

void kernel_shapes_release(struct kernel_shapes *s)
{
    free(s->rows);
    memset(s, 0, sizeof *s);
}

static void put(struct kernel_shape *k, const int *cols, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        k->col[cols[i]] = v[i];
}

static int conv_shape_of(const struct op *o, struct kernel_shape *k)
{
    const struct conv_shape *c = op_conv(o);
    if (c->n <= 0 || c->c <= 0 || c->k <= 0 || c->w <= 0)
        return -1;
    static const int cols[] = { KS_DIMS, KS_N, KS_C, KS_D, KS_H, KS_W, KS_K, KS_F_D, KS_F_H,
                                KS_F_W, KS_PAD_D, KS_PAD_H, KS_PAD_W, KS_STRIDE_D, KS_STRIDE_H,
                                KS_STRIDE_W, KS_DIL_D, KS_DIL_H, KS_DIL_W, KS_GROUPS };
#define ONE(x) ((x) > 0 ? (x) : 1)
    const int64_t v[] = { c->dims ? c->dims : 2, c->n, c->c, ONE(c->d), ONE(c->h), c->w, c->k,
                          ONE(c->t), ONE(c->r), ONE(c->s), c->pad_d, c->pad_h, c->pad_w,
                          ONE(c->stride_d), ONE(c->stride_h), ONE(c->stride_w), ONE(c->dil_d),
                          ONE(c->dil_h), ONE(c->dil_w), ONE(c->groups) };
#undef ONE
    put(k, cols, v, (int)(sizeof v / sizeof v[0]));
    /* the harness measures the tensors' layout the trace recorded */
    snprintf(k->layout, sizeof k->layout, "%s",
             op_has_flag(o, "channels-last") ? "channels-last" : "contiguous");
    return 0;
}

static int all_known(const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] <= 0)
            return 0;
    return 1;
}

/* The row of op o, or -1 when its kind has no shapes or the trace does
 * not give them. */
static int shape_of(const struct op *o, struct kernel_shape *k)
{
    static const int rnn[] = { KS_INPUT, KS_HIDDEN, KS_LAYERS, KS_SEQ, KS_BATCH };
    static const int att[] = { KS_BATCH, KS_HEADS, KS_Q_LEN, KS_KV_LEN, KS_HEAD_DIM };
    static const int norm[] = { KS_N, KS_C, KS_S, KS_GROUPS };
    static const int emb[] = { KS_ROWS, KS_DIM, KS_LOOKUPS, KS_BATCH };
    static const int opt[] = { KS_PARAMS, KS_TENSORS };
    memset(k, 0, sizeof *k);
    for (int c = 0; c < KS_COL_COUNT; c++)
        k->col[c] = KS_EMPTY;
    k->kind = o->kind;
    k->prec = o->dtype;
    switch (o->kind) {
    case OP_GEMM: {
        const int cols[] = { KS_M, KS_N, KS_K, KS_BATCH };
        const int64_t v[] = { o->m, o->n, o->k, o->batch > 0 ? o->batch : 1 };
        if (!all_known(v, 4))
            return -1;
        put(k, cols, v, 4);
        k->a_t = o->a_t ? o->a_t : 'N';
        k->b_t = o->b_t ? o->b_t : 'N';
        return 0;
    }
    case OP_CONV: return conv_shape_of(o, k);
    case OP_RNN:
        if (!all_known(op_sizes(o)->kdim, 5) || !op_sizes(o)->kop[0] || o->kflag < 0)
            return -1;
        put(k, rnn, op_sizes(o)->kdim, 5);
        k->col[KS_BIDIRECTIONAL] = o->kflag;
        memcpy(k->cell, op_sizes(o)->kop, sizeof k->cell - 1);
        return 0;
    case OP_ATTENTION:
        if (!all_known(op_sizes(o)->kdim, 5))
            return -1;
        put(k, att, op_sizes(o)->kdim, 5);
        k->col[KS_CAUSAL] = o->kflag >= 0 ? o->kflag : KS_EMPTY;
        return 0;
    case OP_NORM:
        if (!all_known(op_sizes(o)->kdim, 3) || !op_sizes(o)->kop[0])
            return -1;
        put(k, norm, op_sizes(o)->kdim, 4);
        break;
    case OP_EMBEDDING:
        if (!all_known(op_sizes(o)->kdim, 4) || !op_sizes(o)->kmode[0])
            return -1;
        put(k, emb, op_sizes(o)->kdim, 4);
        memcpy(k->mode, op_sizes(o)->kmode, sizeof k->mode);
        break;
    case OP_OPTIMIZER:
        if (!all_known(op_sizes(o)->kdim, 2))
            return -1;
        put(k, opt, op_sizes(o)->kdim, 2);
        break;
    case OP_ELEMENTWISE:
    case OP_REDUCTION:
        if (!all_known(op_sizes(o)->kdim, 1) || !(o->count > 0))
            return -1;
        k->col[KS_ELEMENTS] = op_sizes(o)->kdim[0];
        k->bytes = o->bytes / o->count;
        break;
    default:
        return -1;
    }
    memcpy(k->op, op_sizes(o)->kop, sizeof k->op);
    return 0;
}

static int same_shape(const struct kernel_shape *a, const struct kernel_shape *b)
{
    return a->kind == b->kind && a->prec == b->prec && strcmp(a->op, b->op) == 0 &&
           strcmp(a->cell, b->cell) == 0 && strcmp(a->mode, b->mode) == 0 &&
           strcmp(a->layout, b->layout) == 0 && a->a_t == b->a_t &&
           a->b_t == b->b_t && memcmp(a->col, b->col, sizeof a->col) == 0 && a->bytes == b->bytes;
}

static int is_shape_kind(enum op_kind k)
{
    return k == OP_GEMM || k == OP_CONV || k == OP_RNN || k == OP_ATTENTION || k == OP_NORM ||
           k == OP_EMBEDDING || k == OP_ELEMENTWISE || k == OP_REDUCTION || k == OP_OPTIMIZER;
}

void kernel_shapes_add(struct kernel_shapes *s, const struct profile *p)
{
    s->pass_time_s += p->total_time_s + p->dropped_time_s;
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct op *o = &p->ops[i];
        struct kernel_shape k;
        if (!is_shape_kind(o->kind))
            continue;
        if (shape_of(o, &k) != 0) {
            s->skipped[o->kind]++;
            continue;
        }
        /* Linear search: profiles have hundreds of distinct ops. */
        struct kernel_shape *row = NULL;
        for (size_t j = 0; j < s->n && !row; j++)
            if (same_shape(&s->rows[j], &k))
                row = &s->rows[j];
        if (!row) {
            ALLOC_GROW(s->rows, s->n + 1, s->alloc);
            row = &s->rows[s->n++];
            *row = k;
        }
        row->count += o->count;
        row->time_s += o->time_s;
    }
}

static int cmp_rows(const void *pa, const void *pb)
{
    const struct kernel_shape *a = pa, *b = pb;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    if (a->time_s != b->time_s)
        return a->time_s < b->time_s ? 1 : -1;
    int c = memcmp(a->col, b->col, sizeof a->col);
    return c ? c : strcmp(a->layout, b->layout);
}

void kernel_shapes_finish(struct kernel_shapes *s)
{
    if (s->n > 1)
        qsort(s->rows, s->n, sizeof *s->rows, cmp_rows);
    for (size_t i = 0; i < s->n; i++)
        s->rows[i].share = s->pass_time_s > 0 ? s->rows[i].time_s / s->pass_time_s : 0;
}
