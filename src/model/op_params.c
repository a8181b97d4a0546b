/* Kernel-table parameters of rnn, attention, norm, embedding, optimizer
 * and elementwise ops from their recorded arguments (Kineto's "Input
 * Dims" and "Concrete Inputs"), at the positions of each op's ATen schema
 * (native_functions.yaml of PyTorch 2.x):
 *
 *   rnn        lstm/gru/rnn_tanh/rnn_relu(input, hx, params, has_biases,
 *              num_layers, dropout, train, bidirectional, batch_first);
 *              _cudnn_rnn(input, weight, weight_stride0, weight_buf, hx, cx,
 *              mode, hidden_size, proj_size, num_layers, batch_first,
 *              dropout, train, bidirectional, ...) and its backward (mode at
 *              10); miopen_rnn; mkldnn_rnn_layer (one layer, one direction,
 *              input always (seq, batch, feature)) and its backward.  The
 *              cuDNN/oneDNN mode is 0 rnn_relu, 1 rnn_tanh, 2 lstm, 3 gru.
 *   attention  q and k of [batch, heads, len, head_dim] (the _flash_ and
 *              _efficient_ kernels: [batch, len, heads, head_dim]) and the
 *              is_causal argument (the efficient kernels: custom_mask_type
 *              != 0); causal -1 for an op not in the table.
 *   norm       the first tensor [n, c, spatial...] of batch and group norm
 *              (s = the spatial product; instance norm is group norm with
 *              one group per channel); layer and RMS norm normalise over
 *              c = the product of normalized_shape (the first integer list
 *              of the concrete inputs; else the last dim), n = the first dim
 *              and s = the rest.
 *   embedding  embedding(weight [rows, dim], indices [batch..., lookups]);
 *              its backward (grad [..., dim], indices, num_weights);
 *              embedding_bag(weight, indices, offsets, scale_grad_by_freq,
 *              mode, ...) with batch = the bags (offsets, less one with
 *              include_last_offset) and lookups = indices / batch.
 *   optimizer  params = elements of the largest (list) argument, tensors =
 *              its tensors; elementwise and reductions: elements of the
 *              largest input; an upsampling (aten::upsample_*) after them
 *              its batch, channels, output and input points (OP_RS_*).
 * Pure: no I/O. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/op_args.h"

static const char *conc_at(char *const *conc, int nc, int i)
{
    return i >= 0 && i < nc && conc[i] ? conc[i] : "";
}

/* Integer at concrete position i; 0 when absent. */
static int conc_int(char *const *conc, int nc, int i, int64_t *v)
{
    const char *s = conc_at(conc, nc, i);
    char *end;
    if (!*s)
        return 0;
    long long x = strtoll(s, &end, 10);
    if (end == s)
        return 0;
    *v = x;
    return 1;
}

/* 1 True, 0 False, -1 absent. */
static int conc_bool(char *const *conc, int nc, int i)
{
    const char *s = conc_at(conc, nc, i);
    if (strcmp(s, "True") == 0 || strcmp(s, "1") == 0)
        return 1;
    if (strcmp(s, "False") == 0 || strcmp(s, "0") == 0)
        return 0;
    return -1;
}

static const char *base_of(const char *name)
{
    return strncmp(name, "aten::", 6) == 0 ? name + 6 : name;
}

static void set_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s);
}

/* ------------------------------------------------------------------ rnn */

static const struct rnn_schema {
    const char *name;
    int hx, mode, hidden, layers, batch_first, bidir;
    int proj;           /* cuDNN's proj_size (an LSTM's projection), -1 none */
    int per_layer;      /* one layer and direction, input (seq, batch, feature) */
    /* a per-layer call's arguments that give its stack: num_layers and
     * bidirectional (oneDNN's mkldnn_rnn_layer and its backward) */
    int stack_layers, stack_bidir;
} rnn_schemas[] = {
    { "lstm", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "gru", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "rnn_tanh", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "rnn_relu", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    /* a layer run step by step, its backward read as one call (the
     * Kineto reader names it "<layer>_backward" with the layer's
     * arguments) */
    { "lstm_backward", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "gru_backward", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "rnn_tanh_backward", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "rnn_relu_backward", 1, -1, -1, 4, 8, 7, -1, 0, -1, -1 },
    { "_cudnn_rnn", 4, 6, 7, 9, 10, 13, 8, 0, -1, -1 },
    { "_cudnn_rnn_backward", 4, 10, 11, 13, 14, 17, 12, 0, -1, -1 },
    { "miopen_rnn", 3, 5, 6, 7, 8, 11, -1, 0, -1, -1 },
    { "mkldnn_rnn_layer", -1, 9, 10, -1, -1, -1, -1, 1, 11, 13 },
    { "mkldnn_rnn_layer_backward", -1, 14, 15, -1, -1, -1, -1, 1, 16, 19 },
};

static const char *rnn_cell(int64_t mode)
{
    static const char *const cells[] = { "rnn_relu", "rnn_tanh", "lstm", "gru" };
    return mode >= 0 && mode < 4 ? cells[mode] : "";
}

static void fill_rnn(struct op *o, const struct targ *a, int na, char *const *conc, int nc)
{
    struct op_table_sizes *ts = op_sizes_mut(o);
    const char *base = base_of(o->name);
    const struct rnn_schema *rs = NULL;
    for (size_t i = 0; i < sizeof rnn_schemas / sizeof rnn_schemas[0]; i++)
        if (strcmp(base, rnn_schemas[i].name) == 0)
            rs = &rnn_schemas[i];
    if (!rs || na < 1 || !a[0].present || a[0].ndim < 2 || a[0].ndim > 3)
        return;
    const struct targ *in = &a[0];
    int64_t mode = -1, hidden = 0, layers = 1;
    if (rs->mode < 0) {
        /* the cell: "gru" of "gru" and of "gru_backward" */
        size_t n = strcspn(base, "_");
        if (strncmp(base, "rnn_", 4) == 0)
            n = 4 + strcspn(base + 4, "_");
        snprintf(ts->kop, sizeof ts->kop, "%.*s", (int)n, base);
    }
    else if (conc_int(conc, nc, rs->mode, &mode))
        set_str(ts->kop, sizeof ts->kop, rnn_cell(mode));
    if (rs->hidden >= 0)
        conc_int(conc, nc, rs->hidden, &hidden);
    else if (rs->hx >= 0 && rs->hx < na && a[rs->hx].present && a[rs->hx].ndim >= 2)
        hidden = a[rs->hx].d[a[rs->hx].ndim - 1];
    /* An LSTM with projections (proj_size P) keeps a hidden state of P
     * and a cell state of H: cuDNN's call says both; the layer op's hx
     * list (h [layers x dirs, batch, P], c [.., H]) gives H as the
     * elements past h's. */
    int64_t proj = 0;
    if (rs->proj >= 0)
        conc_int(conc, nc, rs->proj, &proj);
    else if (rs->hx >= 0 && rs->hx < na && a[rs->hx].present && a[rs->hx].ntensors == 2 &&
             a[rs->hx].ndim == 3 && strcmp(ts->kop, "lstm") == 0) {
        const struct targ *hx = &a[rs->hx];
        double rows = (double)hx->d[0] * (double)hx->d[1];
        double cell = rows > 0 ? (hx->elems - rows * (double)hx->d[2]) / rows : 0;
        if (cell >= 1 && cell < 1e9 && cell != (double)hx->d[2] && cell == floor(cell)) {
            proj = hidden;
            hidden = (int64_t)cell;
        }
    }
    if (proj < 0 || proj >= hidden)
        proj = 0;
    if (rs->layers >= 0 && !conc_int(conc, nc, rs->layers, &layers))
        layers = 0;
    int batch_first = rs->batch_first >= 0 ? conc_bool(conc, nc, rs->batch_first) : 0;
    if (batch_first < 0)
        return;
    int64_t seq = in->d[0], batch = 1;
    if (in->ndim == 3) {
        seq = in->d[batch_first ? 1 : 0];
        batch = in->d[batch_first ? 0 : 1];
    }
    ts->kdim[0] = in->d[in->ndim - 1];  /* RNN_INPUT .. RNN_BATCH */
    ts->kdim[1] = hidden;
    ts->kdim[2] = layers;
    ts->kdim[3] = seq;
    ts->kdim[4] = batch;
    ts->kdim[5] = proj;                 /* RNN_PROJ: 0 without projections */
    o->kflag = rs->per_layer ? 0 : conc_bool(conc, nc, rs->bidir);
    /* a per-layer call keeps its stack in kmode, "layers x directions":
     * the GPU runs the stack as one call, whose shape decides cuDNN's
     * algorithm (est_host.c: rnn_persistent) */
    int64_t st_layers = 0;
    int st_bidir = rs->stack_bidir >= 0 ? conc_bool(conc, nc, rs->stack_bidir) : -1;
    if (rs->per_layer && rs->stack_layers >= 0 && conc_int(conc, nc, rs->stack_layers, &st_layers)
        && st_layers > 0 && st_layers < 1000 && st_bidir >= 0)
        snprintf(ts->kmode, sizeof ts->kmode, "%dx%d", (int)st_layers, st_bidir ? 2 : 1);
}

/* ------------------------------------------------------------ attention */

static const struct att_schema {
    const char *name;
    int q, k;
    int blhd;           /* [batch, len, heads, dim] */
    int causal;         /* position of is_causal (custom_mask_type if mask) */
    int mask;
} att_schemas[] = {
    { "scaled_dot_product_attention", 0, 1, 0, 5, 0 },
    { "_scaled_dot_product_attention_math", 0, 1, 0, 5, 0 },
    { "_scaled_dot_product_flash_attention", 0, 1, 0, 4, 0 },
    { "_scaled_dot_product_flash_attention_backward", 1, 2, 0, 11, 0 },
    { "_scaled_dot_product_flash_attention_for_cpu", 0, 1, 0, 4, 0 },
    { "_scaled_dot_product_flash_attention_for_cpu_backward", 1, 2, 0, 7, 0 },
    { "_scaled_dot_product_efficient_attention", 0, 1, 0, 6, 0 },
    { "_scaled_dot_product_efficient_attention_backward", 1, 2, 0, 11, 0 },
    { "_scaled_dot_product_cudnn_attention", 0, 1, 0, 6, 0 },
    { "_scaled_dot_product_cudnn_attention_backward", 1, 2, 0, 14, 0 },
    { "_cudnn_attention_forward", 0, 1, 0, 10, 0 },
    { "_cudnn_attention_backward", 1, 2, 0, 14, 0 },
    { "_flash_attention_forward", 0, 1, 1, 8, 0 },
    { "_flash_attention_backward", 1, 2, 1, 11, 0 },
    { "_efficient_attention_forward", 0, 1, 1, 9, 1 },
    { "_efficient_attention_backward", 1, 2, 1, 14, 1 },
};

static void fill_attention_params(struct op *o, const struct targ *a, int na, char *const *conc,
                                  int nc)
{
    struct op_table_sizes *ts = op_sizes_mut(o);
    const char *base = base_of(o->name);
    struct att_schema unknown = { base, 0, 1, 0, -1, 0 };
    const struct att_schema *as = &unknown;
    for (size_t i = 0; i < sizeof att_schemas / sizeof att_schemas[0]; i++)
        if (strcmp(base, att_schemas[i].name) == 0)
            as = &att_schemas[i];
    if (as == &unknown && strstr(base, "backward"))
        unknown.q = 1, unknown.k = 2;   /* grad_out first */
    if (as->k >= na || !a[as->q].present || !a[as->k].present || a[as->q].ndim != 4 ||
        a[as->k].ndim != 4)
        return;
    const struct targ *q = &a[as->q], *k = &a[as->k];
    int l = as->blhd ? 1 : 2, h = as->blhd ? 2 : 1;
    ts->kdim[0] = q->d[0];     /* ATT_BATCH .. ATT_HEAD_DIM */
    ts->kdim[1] = q->d[h];
    ts->kdim[2] = q->d[l];
    ts->kdim[3] = k->d[l];
    ts->kdim[4] = q->d[3];
    int64_t mt;
    if (as->causal < 0)
        o->kflag = -1;
    else if (as->mask)
        o->kflag = conc_int(conc, nc, as->causal, &mt) ? mt != 0 : -1;
    else
        o->kflag = conc_bool(conc, nc, as->causal);
}

/* ----------------------------------------------------------------- norm */

/* The first concrete integer list ("[768]"): layer and RMS norm's
 * normalized_shape; its product, or 0. */
static int64_t normalized_size(char *const *conc, int nc)
{
    for (int i = 0; i < nc; i++) {
        const char *s = conc_at(conc, nc, i);
        if (s[0] != '[' || !(s[1] >= '0' && s[1] <= '9'))
            continue;
        int64_t v[MAX_DIMS], p = 1;
        int n = ops_parse_intlist(s, v, MAX_DIMS);
        for (int j = 0; j < n; j++)
            p *= v[j];
        return n ? p : 0;
    }
    return 0;
}

static void fill_norm(struct op *o, const struct targ *a, int na, char *const *conc, int nc)
{
    struct op_table_sizes *ts = op_sizes_mut(o);
    const char *base = base_of(o->name);
    const struct targ *in = NULL;
    for (int i = 0; i < na && !in; i++)
        if (a[i].present && a[i].ndim >= 2)
            in = &a[i];
    if (!in)
        return;
    double numel = in->elems;
    int64_t n = in->d[0], c = in->d[1], groups = 0;
    if (strstr(base, "layer_norm") || strstr(base, "rms_norm")) {
        set_str(ts->kop, sizeof ts->kop, strstr(base, "layer_norm") ? "layer_norm" : "rms_norm");
        c = normalized_size(conc, nc);
        if (c <= 0)
            c = in->d[in->ndim - 1];
    } else if (strstr(base, "batch_norm")) {
        set_str(ts->kop, sizeof ts->kop, "batch_norm");
    } else if (strstr(base, "group_norm")) {
        set_str(ts->kop, sizeof ts->kop, "group_norm");
        /* group_norm(input, num_groups, ...); native_group_norm(input,
         * weight, bias, N, C, HxW, group, eps); its backward: group at 8 */
        int at = strcmp(base, "group_norm") == 0 ? 1 : strstr(base, "backward") ? 8 : 6;
        if (!conc_int(conc, nc, at, &groups))
            groups = 0;
    } else if (strstr(base, "instance_norm")) {
        set_str(ts->kop, sizeof ts->kop, "group_norm");
        groups = c;
    } else {
        return;
    }
    if (n <= 0 || c <= 0)
        return;
    double s = numel / ((double)n * (double)c);
    ts->kdim[0] = n;   /* NORM_N .. NORM_GROUPS */
    ts->kdim[1] = c;
    ts->kdim[2] = s >= 1 ? (int64_t)(s + 0.5) : 1;
    ts->kdim[3] = groups;
}

/* ------------------------------------------------------------ embedding */

static const char *bag_mode(int64_t m)
{
    return m == 0 ? "sum" : m == 1 ? "mean" : m == 2 ? "max" : "";
}

/* batch and lookups of indices (2-D: [batch, lookups]) or, 1-D, of bags
 * given by their count. */
static void emb_counts(struct op *o, const struct targ *idx, int64_t bags)
{
    struct op_table_sizes *ts = op_sizes_mut(o);
    if (idx->ndim >= 2) {
        ts->kdim[3] = (int64_t)(idx->elems / (double)idx->d[idx->ndim - 1] + 0.5);
        ts->kdim[2] = idx->d[idx->ndim - 1];
    } else if (bags > 0) {
        ts->kdim[3] = bags;
        ts->kdim[2] = (int64_t)(idx->elems / (double)bags + 0.5);
    } else {
        ts->kdim[3] = idx->d[0];
        ts->kdim[2] = 1;
    }
}

static void fill_embedding(struct op *o, const struct targ *a, int na, char *const *conc, int nc)
{
    struct op_table_sizes *ts = op_sizes_mut(o);
    const char *base = base_of(o->name);
    if (na < 2 || !a[0].present || !a[1].present)
        return;
    int bag = strstr(base, "embedding_bag") != NULL, bwd = strstr(base, "backward") != NULL;
    int64_t rows = 0, mode = -1, bags = 0;
    if (!bwd)
        rows = a[0].d[0];
    else if (!conc_int(conc, nc, !bag ? 2 : strstr(base, "dense") ? 5 : 6, &rows))
        rows = 0;
    if (bag) {
        int at = !bwd ? 4 : strstr(base, "dense") ? 7 : 8;
        conc_int(conc, nc, at, &mode);
        if (bwd)
            bags = a[0].d[0];
        else if (na > 2 && a[2].present)
            bags = a[2].d[0] - (conc_bool(conc, nc, 7) == 1);
    }
    set_str(ts->kop, sizeof ts->kop, bag ? "embedding_bag" : "embedding");
    set_str(ts->kmode, sizeof ts->kmode, bag ? bag_mode(mode) : "none");
    ts->kdim[0] = rows;    /* EMB_ROWS .. EMB_BATCH */
    ts->kdim[1] = a[0].d[a[0].ndim - 1];
    emb_counts(o, &a[1], bags);
}

/* ------------------------------------------------------------- resample */

/* Up to max numbers of a list such as "[2., 2.]" or "[8, 8]"; how many. */
static int conc_reals(const char *s, double *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        if (isdigit((unsigned char)*s)) {
            v[n++] = strtod(s, &end);
            s = end;
        } else {
            s++;
        }
    }
    return n;
}

/* Points of a map of n sizes, or 0 when one is not positive or the count
 * is beyond any tensor (a hostile trace's sizes never overflow). */
static int64_t points(const double *d, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++) {
        if (!(d[i] >= 1))
            return 0;
        p *= floor(d[i]);
    }
    return p <= 0x1p53 ? (int64_t)p : 0;
}

static int64_t points_of(const int64_t *d, int n)
{
    double v[3];
    for (int i = 0; i < n && i < 3; i++)
        v[i] = (double)d[i];
    return points(v, n < 3 ? n : 3);
}

/* aten::upsample_<mode><k>d[_backward] (and its _aa and nearest_exact
 * forms): the resample row it is (kernel_table.h).  The forward's
 * output is its output_size (concrete input 1), or the input times its
 * scale factors (a list among the later concrete inputs, the .vec
 * overload); the backward's input (grad_output) is the output and its
 * input_size (concrete input 2, batch and channels first) the input. */
static void fill_resample(struct op *o, const struct targ *a, int na, char *const *conc, int nc)
{
    const char *base = base_of(o->name);
    while (*base == '_')
        base++;
    size_t len = strlen(base);
    int bwd = len > 9 && strcmp(base + len - 9, "_backward") == 0;
    if (bwd)
        len -= 9;
    if (strncmp(base, "upsample_", 9) != 0 || len >= sizeof o->sizes->kop || na < 1 ||
        !a[0].present || a[0].ndim < 3 || a[0].ndim > 5)
        return;
    int sp = a[0].ndim - 2;
    const int64_t *x = a[0].d;
    int64_t other[8];
    int64_t out, in;
    if (bwd) {
        if (ops_parse_intlist(conc_at(conc, nc, 2), other, 8) != sp + 2)
            return;
        out = points_of(x + 2, sp);
        in = points_of(other + 2, sp);
    } else {
        in = points_of(x + 2, sp);
        if (ops_parse_intlist(conc_at(conc, nc, 1), other, 8) == sp) {
            out = points_of(other, sp);
        } else {
            double f[3], size[3];
            int i = 2;
            while (i < nc && (!strchr(conc_at(conc, nc, i), '[') ||
                              conc_reals(conc_at(conc, nc, i), f, 3) != sp))
                i++;
            if (i == nc)
                return;
            for (int k = 0; k < sp; k++)
                size[k] = (double)x[2 + k] * f[k];
            out = points(size, sp);
        }
    }
    if (x[0] <= 0 || x[1] <= 0 || out <= 0 || in <= 0)
        return;
    struct op_table_sizes *ts = op_sizes_mut(o);
    snprintf(ts->kop, sizeof ts->kop, "%.*s", (int)len, base);
    ts->kdim[OP_RS_N] = x[0];
    ts->kdim[OP_RS_C] = x[1];
    ts->kdim[OP_RS_OUT] = out;
    ts->kdim[OP_RS_IN] = in;
}

/* ------------------------------------------------------------------ all */

void op_params_fill(struct op *o, const struct targ *a, int na, char *const *conc, int nc)
{
    if (o->sizes)
        memset(o->sizes, 0, sizeof *o->sizes);
    o->kflag = -1;
    if (!o->name)
        return;
    switch (o->kind) {
    case OP_RNN: fill_rnn(o, a, na, conc, nc); break;
    case OP_ATTENTION: fill_attention_params(o, a, na, conc, nc); break;
    case OP_NORM: fill_norm(o, a, na, conc, nc); break;
    case OP_EMBEDDING: fill_embedding(o, a, na, conc, nc); break;
    case OP_OPTIMIZER:
    case OP_ELEMENTWISE:
    case OP_REDUCTION: {
        const struct targ *big = NULL;
        for (int i = 0; i < na; i++)
            if (a[i].present && (!big || a[i].elems > big->elems))
                big = &a[i];
        if (!big)
            break;
        struct op_table_sizes *ts = op_sizes_mut(o);
        ts->kdim[0] = (int64_t)big->elems;   /* OPT_PARAMS; elementwise: elements */
        ts->kdim[1] = o->kind == OP_OPTIMIZER ? big->ntensors : 0;
        set_str(ts->kop, sizeof ts->kop, base_of(o->name));
        if (o->kind == OP_ELEMENTWISE)
            fill_resample(o, a, na, conc, nc);
        break;
    }
    default: break;
    }
}
