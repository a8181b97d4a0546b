/* The efficiency model: what fraction of its peak compute and bandwidth
 * a machine achieves per op kind, as a function of the op's size and
 * arithmetic intensity, learned from the measured tables of other
 * machines (the shipped ones) and applied to the target's datasheet
 * peaks.  A machine known only from its file then gets a realistic time,
 * not its peak one.
 *
 * Learning: every GEMM row gives flops / (time x peak) of its machine at
 * its precision, every convolution row the same per pass, every
 * bandwidth row bytes / (time x memory bandwidth), and every norm row its
 * least traffic / (time x memory bandwidth), kept apart by norm op and pass.  Rows are binned by
 * octave of work per call (flops or bytes) and, for GEMM and convolution,
 * by octave of arithmetic intensity (flops per byte); each bin keeps the
 * median fraction over the rows and machines in it.  Reading: the bin of
 * the op, else the nearest bins that hold rows (their mean); ops beyond
 * MAX_REACH octaves of any row get no estimate (the caller falls back to
 * the roofline).  Only machines of the target's kind (GPU, CPU) teach it,
 * never the target itself. */
#include "model/est_internal.h"
#include "model/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "core/xalloc.h"

#define N_PREC 3        /* fp32/tf32, bf16/fp16, other */
/* GEMMs by the alignment of their rows (kernel_table_gemm_class): 16
 * bytes, 4 or 8, 2 or less.  An aligned GEMM's fraction of the peak says
 * nothing of a misaligned one's: on an H200 the bf16 GEMMs of the three
 * classes ran at medians of 740, 250 and 95-145 TFLOP/s (the same shapes
 * but for the misaligned size, h200_gemm_misaligned.csv).  Other kinds
 * are class 0. */
#define N_ALIGN 3
#define N_CLASS (N_PREC * N_ALIGN)
#define N_WORK 64       /* octaves of flops or bytes per call */
#define N_AI 24         /* octaves of flops per byte, 2^-8 .. 2^15 */
#define AI_OFF 8
#define MAX_REACH 4     /* octaves: beyond them the rows say nothing */

/* Dense undilated 1-D convolutions (EK_CONV1D) apart from the other
 * convolutions, as in the tables' lookup (kernel_lookup.c): cuDNN's 1-D
 * data gradients run at rates no image of the same implicit GEMM shows
 * (estimators/h200/ORIGIN.md); an op of a kind the reference tables do
 * not hold falls back to the convolutions, then to the GEMMs. */
enum { EK_GEMM, EK_CONV, EK_MEM, EK_NORM, EK_ATT, EK_CONV1D, EK_COUNT };

/* Attention rows by pass and causal flag (att_slot), each with its head
 * dims' octaves, 16 to 512, on the intensity axis.  FlashAttention and
 * the memory-efficient kernels are not GEMMs: their rate follows the
 * head dim they tile (a head below the tile is padded to it,
 * kernel_lookup.c) and the softmax between their products, not a
 * product's intensity. */
#define ATT_HD_OFF 4    /* head dims from 2^4 */
#define ATT_HD_N 6
#define ATT_SLOTS 4

static int att_slot(enum kernel_pass pass, int causal)
{
    return 2 * (pass == KPASS_BWD) + (causal != 0);
}

static int att_axis(int slot, double head_dim)
{
    int o = (int)floor(log2(head_dim)) - ATT_HD_OFF;
    return slot * ATT_HD_N + (o < 0 ? 0 : o >= ATT_HD_N ? ATT_HD_N - 1 : o);
}

/* One call's work: the flops of its two products at head dim d. */
static double att_work(const int64_t *dim, double d)
{
    return 4.0 * (double)dim[ATT_BATCH] * (double)dim[ATT_HEADS] * (double)dim[ATT_Q_LEN] *
           (double)dim[ATT_KV_LEN] * d;
}

/* Norm rows by op and pass (the intensity axis holds them, a norm has
 * none of its own): PyTorch's kernels differ by op and pass far more than
 * by size (on an H100 a bf16 batch norm's backward moves 0.2 TB/s where a
 * copy moves 3), so a copy's bandwidth says nothing of them. */
static const char *const norm_ops[] = { "batch_norm", "layer_norm", "group_norm", "rms_norm", NULL };

#define N_NORM_OPS ((int)(sizeof norm_ops / sizeof norm_ops[0]) - 1)

/* A norm over [N, C] (dim[NORM_S] 1) in slots of its own, after the maps'
 * (kernel_lookup.c keeps its rows apart likewise). */
static int norm_slot(const char *op, enum kernel_pass pass, const int64_t *dim)
{
    for (int i = 0; op && norm_ops[i]; i++)
        if (strcmp(op, norm_ops[i]) == 0)
            return 2 * i + (pass == KPASS_BWD) + (dim[NORM_S] == 1 ? 2 * N_NORM_OPS : 0);
    return -1;
}

/* A norm call's least traffic: its input read and output written, and
 * for the backward the incoming gradient read as well (the per-channel
 * statistics are small beside them). */
static double norm_bytes(const int64_t *dim, enum precision p, enum kernel_pass pass)
{
    double e = (double)dim[NORM_N] * (double)dim[NORM_C] * (double)dim[NORM_S];
    if (!(e > 0))
        return 0;
    return e * precision_bytes(p) * (pass == KPASS_BWD ? 3 : 2);
}

struct sample { int kind, cls, w, a; double frac, head_dim; };

struct est_eff {
    double *med;        /* [EK_COUNT][N_CLASS][N_WORK][N_AI], NAN where empty */
    double att_hd_min[N_CLASS][ATT_SLOTS];  /* the smallest head dim learned, 0 if none */
    size_t machines;    /* machines it learned from */
};

static size_t at(int kind, int cls, int w, int a)
{
    return (((size_t)kind * N_CLASS + (size_t)cls) * N_WORK + (size_t)w) * N_AI + (size_t)a;
}

static int prec_class(enum precision p)
{
    if (p == PREC_FP32 || p == PREC_TF32)
        return 0;
    if (p == PREC_BF16 || p == PREC_FP16)
        return N_ALIGN;
    return 2 * N_ALIGN;
}

/* Attention's class: tf32 apart from fp32 (the alignment slots are free
 * for it).  A fraction is of the peak of the precision's unit (66.9
 * TFLOP/s of vector fp32 on an H200, 494.7 of tf32 matrix), and
 * PyTorch's memory-efficient attention runs the same code in both (the
 * same times in both on an H200 and an H100): in one median they would
 * read 7.4 times apart. */
static int att_class(enum precision p)
{
    return prec_class(p) + (p == PREC_TF32);
}

/* The class of a GEMM of p by its rows' alignment (see N_ALIGN). */
static int gemm_class(enum precision p, double m, double n, double k)
{
    int b = precision_bytes(p);
    if (b <= 0)
        return prec_class(p);
    return prec_class(p) + 2 - kernel_table_gemm_class(p, kernel_table_gemm_align_bytes(b, m, n, k));
}

static int octave(double v, int off, int n)
{
    if (!(v > 0) || !isfinite(v))
        return -1;
    int o = (int)floor(log2(v)) + off;
    return o < 0 ? 0 : o >= n ? n - 1 : o;
}

/* The rate a machine's datasheet gives for p: its matrix unit when it
 * has one for p, else its vector units (the same peak est_peak_of uses,
 * so that a fraction learned on one machine means the same on another). */
static double peak_at(const struct machine *m, enum precision p)
{
    if ((unsigned)p >= PREC_COUNT)
        return 0;
    double v = m->peak_flops[p][EXEC_VECTOR], x = m->peak_flops[p][EXEC_MATRIX];
    return x > v ? x : v;
}

/* The sample added, or NULL where it says nothing (no bin, no fraction). */
static struct sample *add(struct sample **s, size_t *n, size_t *alloc, int kind, int cls, int w, int a,
                          double frac)
{
    if (w < 0 || a < 0 || !(frac > 0) || !isfinite(frac))
        return NULL;
    ALLOC_GROW(*s, *n + 1, *alloc);
    (*s)[*n] = (struct sample){ kind, cls, w, a, frac, 0 };
    return &(*s)[(*n)++];
}

static void learn_row(const struct kernel_row *r, const struct machine *m, struct sample **s,
                      size_t *n, size_t *alloc)
{
    double pk = peak_at(m, r->prec), bw = machine_mem_bw(m);
    int eb = precision_bytes(r->prec), cls = prec_class(r->prec);
    if (r->kind == KERNEL_GEMM && r->batch <= 1 && pk > 0 && r->time_s[0] > 0) {
        /* single products only: a batch of small ones (h200_gemm_bsm.csv)
         * runs at its own rate, far below one product of the same work */
        double f = 2.0 * r->m * r->n * r->k;
        double b = ((double)r->m * r->k + (double)r->k * r->n + (double)r->m * r->n) * eb;
        add(s, n, alloc, EK_GEMM, gemm_class(r->prec, (double)r->m, (double)r->n, (double)r->k),
            octave(f, 0, N_WORK), octave(f / b, AI_OFF, N_AI), f / (r->time_s[0] * pk));
    } else if (r->kind == KERNEL_CONV && pk > 0 && r->stride_h > 0 && r->stride_w > 0 && !r->flag) {
        /* rows of contiguous tensors, the layout every machine's table has;
         * a grouped convolution's filters each see c / groups channels */
        double p = (double)((r->h + 2 * r->pad_h - r->r) / r->stride_h + 1);
        double q = (double)((r->w + 2 * r->pad_w - r->s) / r->stride_w + 1);
        double g = r->groups > 1 ? (double)r->groups : 1;
        double f = 2.0 * r->n_ * r->kf * (r->c / g) * r->r * r->s * p * q;
        double b = ((double)r->n_ * r->c * r->h * r->w + (double)r->kf * (r->c / g) * r->r * r->s
                    + (double)r->n_ * r->kf * p * q) * eb;
        struct conv_shape one;
        kernel_row_conv(r, &one);
        int ek = conv_shape_dense_1d(&one) ? EK_CONV1D : EK_CONV;
        for (int pass = 0; pass < CONV_PASS_COUNT; pass++)
            if (r->time_s[pass] > 0 && p > 0 && q > 0)
                add(s, n, alloc, ek, cls, octave(f, 0, N_WORK), octave(f / b, AI_OFF, N_AI),
                    f / (r->time_s[pass] * pk));
    } else if (r->kind == KERNEL_NORM && bw > 0 && r->time_s[0] > 0) {
        double b = norm_bytes(r->dim, r->prec, r->pass);
        int slot = norm_slot(r->op, r->pass, r->dim);
        if (b > 0 && slot >= 0)
            add(s, n, alloc, EK_NORM, cls, octave(b, 0, N_WORK), slot, b / (r->time_s[0] * bw));
    } else if (r->kind == KERNEL_ATTENTION && pk > 0 && r->time_s[0] > 0 && r->dim[ATT_HEAD_DIM] > 0) {
        double d = (double)r->dim[ATT_HEAD_DIM], f = att_work(r->dim, d);
        struct sample *x = add(s, n, alloc, EK_ATT, att_class(r->prec), octave(f, 0, N_WORK),
                               att_axis(att_slot(r->pass, r->flag), d), f / (r->time_s[0] * pk));
        if (x)
            x->head_dim = d;
    } else if (r->kind == KERNEL_ELTWISE && bw > 0 && r->time_s[0] > 0 && r->bytes > 0) {
        /* ops that move rows through an index in a slot of their own, per
         * precision: they run by their elements, not their bytes */
        int ix = ops_is_indexed(r->op);
        add(s, n, alloc, EK_MEM, ix ? cls : 0, octave(r->bytes, 0, N_WORK), ix,
            r->bytes / (r->time_s[0] * bw));
    }
}

static int cmp_sample(const void *pa, const void *pb)
{
    const struct sample *a = pa, *b = pb;
    size_t ia = at(a->kind, a->cls, a->w, a->a), ib = at(b->kind, b->cls, b->w, b->a);
    return ia < ib ? -1 : ia > ib;
}

const struct machine *est_machine_of(const struct kernel_table *t, const struct machine *ms, size_t n)
{
    for (size_t i = 0; t->hw && i < n; i++)
        if (same_name(ms[i].device_name, t->hw) || same_name(ms[i].name, t->hw))
            return &ms[i];
    return NULL;
}

struct est_eff *est_eff_build(const struct kernel_set *ref, const struct machine *ref_m, size_t n_ref_m,
                              const struct machine *target)
{
    struct sample *s = NULL;
    size_t n = 0, alloc = 0, machines = 0;
    if (!ref)
        return NULL;
    for (size_t i = 0; i < ref->n; i++) {
        const struct kernel_table *t = &ref->tables[i];
        const struct machine *m = est_machine_of(t, ref_m, n_ref_m);
        if (!m || m->kind != target->kind || same_name(t->hw, target->device_name)
            || same_name(t->hw, target->name))
            continue;
        size_t before = n;
        for (size_t r = 0; r < t->n_rows; r++)
            learn_row(&t->rows[r], m, &s, &n, &alloc);
        machines += n > before;
    }
    if (!n) {
        free(s);
        return NULL;
    }
    struct est_eff *e = xcalloc(1, sizeof *e);
    size_t cells = (size_t)EK_COUNT * N_CLASS * N_WORK * N_AI;
    e->med = xmalloc(cells * sizeof *e->med);
    for (size_t i = 0; i < cells; i++)
        e->med[i] = NAN;
    e->machines = machines;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != EK_ATT)
            continue;
        double *lo = &e->att_hd_min[s[i].cls][s[i].a / ATT_HD_N];
        if (*lo == 0 || s[i].head_dim < *lo)
            *lo = s[i].head_dim;
    }
    qsort(s, n, sizeof *s, cmp_sample);
    double *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n;) {
        size_t j = i, cell = at(s[i].kind, s[i].cls, s[i].w, s[i].a);
        for (; j < n && at(s[j].kind, s[j].cls, s[j].w, s[j].a) == cell; j++)
            v[j - i] = s[j].frac;
        gsl_sort(v, 1, j - i);
        e->med[cell] = gsl_stats_median_from_sorted_data(v, 1, j - i);
        i = j;
    }
    free(v);
    free(s);
    return e;
}

void est_eff_release(struct est_eff *e)
{
    if (!e)
        return;
    free(e->med);
    free(e);
}

size_t est_eff_machines(const struct est_eff *e)
{
    return e ? e->machines : 0;
}

/* The fraction at (kind, cls, w, a): the bin's, else the mean of the
 * nearest bins with rows (Chebyshev distance in octaves), NAN beyond
 * MAX_REACH. */
static double frac_at(const struct est_eff *e, int kind, int cls, int w, int a)
{
    for (int r = 0; r <= MAX_REACH; r++) {
        double sum = 0;
        int cnt = 0;
        for (int dw = -r; dw <= r; dw++) {
            for (int da = -r; da <= r; da++) {
                if ((dw != -r && dw != r && da != -r && da != r))
                    continue;   /* the ring at distance r only */
                int ww = w + dw, aa = a + da;
                if (ww < 0 || ww >= N_WORK || aa < 0 || aa >= N_AI)
                    continue;
                if ((kind == EK_MEM || kind == EK_NORM) && da != 0)
                    continue;   /* no intensity axis: the same op and pass only */
                if (kind == EK_ATT && aa / ATT_HD_N != a / ATT_HD_N)
                    continue;   /* the same pass and causal flag only */
                double f = e->med[at(kind, cls, ww, aa)];
                if (!isnan(f)) {
                    sum += f;
                    cnt++;
                }
            }
        }
        if (cnt)
            return sum / cnt;
    }
    return NAN;
}

/* A norm op at the rate its kind of norm achieves: -1 when the op is not
 * one the rows describe. */
static int norm_time(const struct est_eff *e, const struct machine *target, const struct op *op,
                     const struct shape *s, double *time_s)
{
    struct kernel_query q;
    enum kernel_pass pass = op->phase == PHASE_BACKWARD ? KPASS_BWD : KPASS_FWD;
    double bw = machine_mem_bw(target);
    if (kernel_query_from_op(op, pass, &q) != 0 || q.kind != KERNEL_NORM || !(bw > 0))
        return -1;
    int slot = norm_slot(q.op, pass, s->kdim);
    double b = norm_bytes(s->kdim, s->prec, pass);
    if (slot < 0 || !(b > 0))
        return -1;
    double calls = s->calls > 0 ? s->calls : 1;
    double frac = frac_at(e, EK_NORM, prec_class(s->prec), octave(b, 0, N_WORK), slot);
    if (isnan(frac))
        return -1;
    *time_s = calls * b / (bw * frac);
    return 0;
}

/* An attention op at the rate of the attention rows of its pass, causal
 * flag and head dim, a head below the smallest learned one padded to it
 * (its work too); -1 when the op's shape is not known. */
static int att_time(const struct est_eff *e, const struct machine *target, const struct op *op,
                    const struct shape *s, double *time_s)
{
    struct kernel_query q;
    enum kernel_pass pass = op->phase == PHASE_BACKWARD ? KPASS_BWD : KPASS_FWD;
    double pk = peak_at(target, s->prec);
    if (kernel_query_from_op(op, pass, &q) != 0 || q.kind != KERNEL_ATTENTION || !(pk > 0))
        return -1;
    int cls = att_class(s->prec), slot = att_slot(pass, q.flag);
    double d = (double)s->kdim[ATT_HEAD_DIM], lo = e->att_hd_min[cls][slot];
    if (!(d > 0) || !(lo > 0))
        return -1;
    d = fmax(d, lo);
    double f = att_work(s->kdim, d);
    double frac = frac_at(e, EK_ATT, cls, octave(f, 0, N_WORK), att_axis(slot, d));
    if (isnan(frac) || !(f > 0))
        return -1;
    *time_s = (s->calls > 0 ? s->calls : 1) * f / (pk * frac);
    return 0;
}

int est_eff_time(const struct est_eff *e, const struct machine *target, const struct op *op,
                 const struct shape *s, double *time_s)
{
    enum op_kind kind = op->kind;
    if (!e)
        return -1;
    if (kind == OP_NORM && norm_time(e, target, op, s, time_s) == 0)
        return 0;
    if (kind == OP_ATTENTION && att_time(e, target, op, s, time_s) == 0)
        return 0;
    if (is_matrix_kind(kind) && s->flops > 0) {
        int ek = kind != OP_CONV ? EK_GEMM : conv_shape_dense_1d(&s->conv) ? EK_CONV1D : EK_CONV;
        int cls = prec_class(s->prec);
        /* a recurrent layer runs its GEMM once per time step (nb steps
         * per call), one after the other: its size is one step's */
        double calls = s->calls * (kind == OP_RNN && s->nb > 1 ? (double)s->nb : 1);
        double f1 = s->flops / (calls > 0 ? calls : 1);
        double ai = s->bytes > 0 ? s->flops / s->bytes : 64;
        /* a plain GEMM among the rows of its alignment where they reach
         * it (a batched one: each product's rows) */
        int gc = kind == OP_GEMM && s->m > 0 && s->n > 0 && s->k > 0
                 ? gemm_class(s->prec, (double)s->m, (double)s->n, (double)s->k) : cls;
        double frac = frac_at(e, ek, gc, octave(f1, 0, N_WORK), octave(ai, AI_OFF, N_AI));
        if (isnan(frac) && gc != cls)
            frac = frac_at(e, ek, cls, octave(f1, 0, N_WORK), octave(ai, AI_OFF, N_AI));
        if (isnan(frac) && ek == EK_CONV1D)
            frac = frac_at(e, EK_CONV, cls, octave(f1, 0, N_WORK), octave(ai, AI_OFF, N_AI));
        if (isnan(frac) && ek != EK_GEMM)
            frac = frac_at(e, EK_GEMM, cls, octave(f1, 0, N_WORK), octave(ai, AI_OFF, N_AI));
        double pk = peak_at(target, s->prec);
        if (isnan(frac) || !(pk > 0))
            return -1;
        *time_s = s->flops / (pk * frac);
        return 0;
    }
    double bw = machine_mem_bw(target);
    if (!(s->bytes > 0) || !(bw > 0))
        return -1;
    double kernels = s->kernels > 0 ? s->kernels : 1;
    int w = octave(s->bytes / kernels, 0, N_WORK);
    double frac = NAN;
    if (ops_is_indexed(op_sizes(op)->kop))
        frac = frac_at(e, EK_MEM, prec_class(s->prec), w, 1);
    if (isnan(frac))
        frac = frac_at(e, EK_MEM, 0, w, 0);
    if (isnan(frac))
        return -1;
    *time_s = s->bytes / (bw * frac);
    return 0;
}
