#include "model/profile.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"

static const char *const kind_names[OP_KIND_COUNT] = {
    "gemm", "conv", "rnn", "attention", "elementwise", "reduction",
    "norm", "embedding", "optimizer", "memcpy", "comm", "other",
};

static const char *const phase_names[] = { "forward", "backward", "optimizer", "unknown" };

const char *op_kind_name(enum op_kind k)
{
    return (unsigned)k < OP_KIND_COUNT ? kind_names[k] : "other";
}

enum op_kind op_kind_parse(const char *s)
{
    for (int i = 0; s && i < OP_KIND_COUNT; i++)
        if (strcmp(s, kind_names[i]) == 0)
            return (enum op_kind)i;
    return OP_KIND_COUNT;
}

const char *op_phase_name(enum op_phase p)
{
    return (unsigned)p <= PHASE_UNKNOWN ? phase_names[p] : "unknown";
}

enum op_phase op_phase_parse(const char *s)
{
    for (int i = 0; s && i < PHASE_UNKNOWN; i++)
        if (strcmp(s, phase_names[i]) == 0)
            return (enum op_phase)i;
    return PHASE_UNKNOWN;
}

size_t op_name_len(const char *s, size_t len)
{
    if (len <= OP_NAME_MAX)
        return len;
    size_t n = OP_NAME_MAX;
    /* back off continuation bytes (10xxxxxx) to the start of a sequence */
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

void profile_init(struct profile *p)
{
    memset(p, 0, sizeof *p);
    p->dtype = PREC_UNKNOWN;
    p->coverage = 1.0;
}

const struct conv_shape *op_conv(const struct op *o)
{
    static const struct conv_shape none;
    return o->conv ? o->conv : &none;
}

struct conv_shape *op_conv_mut(struct op *o)
{
    if (!o->conv)
        o->conv = xcalloc(1, sizeof *o->conv);
    return o->conv;
}

const struct op_table_sizes *op_sizes(const struct op *o)
{
    static const struct op_table_sizes none;
    return o->sizes ? o->sizes : &none;
}

int op_is_resample(const struct op *o)
{
    const struct op_table_sizes *ts = op_sizes(o);
    return (o->kind == OP_ELEMENTWISE) && strncmp(ts->kop, "upsample_", 9) == 0 &&
           ts->kdim[OP_RS_N] > 0 && ts->kdim[OP_RS_C] > 0 && ts->kdim[OP_RS_OUT] > 0 &&
           ts->kdim[OP_RS_IN] > 0;
}

struct op_table_sizes *op_sizes_mut(struct op *o)
{
    if (!o->sizes)
        o->sizes = xcalloc(1, sizeof *o->sizes);
    return o->sizes;
}

void op_release(struct op *o)
{
    free(o->sizes);
    if (!o->strs_borrowed) {
        free(o->name);
        free(o->shapes);
    }
    free(o->flags);
    free(o->conv);
}

/* 64 KiB: the block's header and the unused end of a block (at most one
 * string's length) stay under 0.2% of it for op names and shapes of
 * tens of bytes, while a profile of a few ops holds one such block. */
#define STR_BLOCK_B 65536

char *profile_strndup(struct profile *p, const char *s, size_t len)
{
    struct str_block *b = p->strs;
    if (!b || b->size - b->used < len + 1) {
        size_t size = len + 1 > STR_BLOCK_B ? len + 1 : STR_BLOCK_B;
        b = xmalloc(sizeof *b + size);
        b->size = size;
        b->used = 0;
        /* a name longer than a block gets its own, behind the one
         * being filled */
        if (p->strs && size > STR_BLOCK_B) {
            b->next = p->strs->next;
            p->strs->next = b;
        } else {
            b->next = p->strs;
            p->strs = b;
        }
    }
    char *t = b->text + b->used;
    memcpy(t, s, len);
    t[len] = '\0';
    b->used += len + 1;
    return t;
}

struct op *profile_add_op(struct profile *p)
{
    ALLOC_GROW(p->ops, p->n_ops + 1, p->alloc_ops);
    struct op *o = &p->ops[p->n_ops++];
    memset(o, 0, sizeof *o);
    o->dtype = PREC_UNKNOWN;
    o->phase = PHASE_UNKNOWN;
    o->kind = OP_OTHER;
    return o;
}

void profile_release(struct profile *p)
{
    for (size_t i = 0; i < p->n_ops; i++)
        op_release(&p->ops[i]);
    free(p->ops);
    free(p->calls);
    free(p->source);
    free(p->format);
    free(p->device_name);
    free(p->framework);
    free(p->measured_step_from);
    while (p->strs) {
        struct str_block *b = p->strs;
        p->strs = b->next;
        free(b);
    }
    memset(p, 0, sizeof *p);
}

int op_has_flag(const struct op *op, const char *flag)
{
    size_t n = strlen(flag);
    const char *f = op->flags;
    while (f && *f) {
        size_t len = strcspn(f, ",");
        if (len == n && strncmp(f, flag, n) == 0)
            return 1;
        f += len;
        if (*f == ',')
            f++;
    }
    return 0;
}

void op_add_flag(struct op *op, const char *flag)
{
    if (op_has_flag(op, flag))
        return;
    struct strbuf sb = STRBUF_INIT;
    if (op->flags)
        strbuf_addf(&sb, "%s,", op->flags);
    strbuf_addstr(&sb, flag);
    free(op->flags);
    op->flags = strbuf_detach(&sb);
}

int conv_shape_1d(const struct conv_shape *c)
{
    return c->dims == 1 || ((c->dims == 2 || c->dims == 0) && c->h <= 1 && c->r <= 1 &&
                            c->d <= 1 && c->t <= 1);
}

int conv_shape_dense_1d(const struct conv_shape *c)
{
    return conv_shape_1d(c) && c->groups <= 1 && c->dil_w <= 1;
}
