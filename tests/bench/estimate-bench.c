/* make bench: estimate a generated 10,000-op profile against a
 * 100,000-row kernel table.  The reference measured in the same run is the
 * time to generate the profile and the table in memory (allocating and
 * filling 110,000 records), so the ratios hold on any machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/diag.h"
#include "core/xalloc.h"
#include "model/estimate.h"

#define N_OPS 10000
#define N_ROWS 100000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Deterministic generator (xorshift64), no global state. */
static double rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static int64_t dim(unsigned long long *s)
{
    return (int64_t)(16 * (1 << (int)(rnd(s) * 9))) + (int64_t)(rnd(s) < 0.3 ? 0 : rnd(s) * 64);
}

static void generate(struct profile *p, struct kernel_set *ks, unsigned long long seed)
{
    ALLOC_GROW(ks->tables, 1, ks->alloc);
    ks->n = 1;
    struct kernel_table *t = &ks->tables[0];
    kernel_table_init(t);
    t->hw = xstrdup("Bench GPU");
    for (int i = 0; i < N_ROWS; i++) {
        struct kernel_row *r = kernel_table_add(t);
        int elt = i % 50 == 0;
        r->kind = elt ? KERNEL_ELTWISE : KERNEL_GEMM;
        r->prec = i % 3 == 0 ? PREC_BF16 : PREC_FP32;
        if (elt) {
            r->bytes = 1024.0 * (1 << (i / 50 % 18));
            r->elements = r->bytes / 4;
            r->time_s[0] = 3e-6 + r->bytes / 3e12;
        } else {
            r->m = dim(&seed);
            r->n = dim(&seed);
            r->k = dim(&seed);
            r->a_t = 'N';
            r->b_t = i % 2 ? 'T' : 'N';
            double f = 2.0 * r->m * r->n * r->k;
            r->time_s[0] = 4e-6 + f / (r->prec == PREC_BF16 ? 600e12 : 50e12);
        }
        r->time_lo_s = r->time_s[0] * 0.95;
        r->time_hi_s = r->time_s[0] * 1.1;
        r->reps = 20;
    }
    profile_init(p);
    p->batch = 64;
    for (int i = 0; i < N_OPS; i++) {
        struct op *o = profile_add_op(p);
        char name[32];
        snprintf(name, sizeof name, "op%d", i);
        o->name = xstrdup(name);
        o->count = 1 + i % 4;
        o->dtype = PREC_FP32;
        o->phase = i % 2 ? PHASE_BACKWARD : PHASE_FORWARD;
        o->time_s = 1e-4;
        if (i % 5 < 3) {
            o->kind = OP_GEMM;
            /* every tenth op hits a row exactly */
            const struct kernel_row *r = &t->rows[(size_t)(rnd(&seed) * (N_ROWS - 1))];
            if (i % 10 == 0 && r->kind == KERNEL_GEMM) {
                o->m = r->m, o->n = r->n, o->k = r->k;
            } else {
                o->m = i % 7 ? dim(&seed) : 64, o->n = dim(&seed), o->k = dim(&seed);
            }
            o->a_t = o->b_t = 'N';
            o->flops = o->count * 2.0 * o->m * o->n * o->k;
            o->bytes = o->count * 4.0 * (o->m * o->k + o->k * o->n + o->m * o->n);
        } else {
            o->kind = OP_ELEMENTWISE;
            o->bytes = o->count * 4096.0 * (1 + i % 1000);
            o->shapes = xstrdup("[64, 1024]");
        }
    }
}

int main(void)
{
    struct machine m;
    struct mem_level hbm = { "HBM", 80e9, 3.35e12 };
    memset(&m, 0, sizeof m);
    m.id = "bench";
    m.device_name = "Bench GPU";
    m.kind = MACHINE_GPU;
    m.peak_flops[PREC_FP32][EXEC_VECTOR] = 67e12;
    m.peak_flops[PREC_BF16][EXEC_MATRIX] = 989e12;
    m.mem = &hbm;
    m.n_mem = 1;
    m.launch_latency_s = 4e-6;
    m.dispatch_s = 15e-6;

    struct diag d;
    diag_init(&d, stderr);
    struct profile p;
    struct kernel_set ks;
    kernel_set_init(&ks);
    double t0 = now_s();
    generate(&p, &ks, 88172645463325252ULL);
    double t_gen = now_s() - t0;

    struct estimate e;
    estimate_init(&e);
    struct estimate_opts o;
    estimate_opts_init(&o);
    t0 = now_s();
    int rc = estimate_profile(&p, &m, &ks, &o, &e, &d);
    double t_cold = now_s() - t0;
    o.precision = PREC_BF16;
    o.batch = 128;
    t0 = now_s();
    rc |= estimate_profile(&p, &m, &ks, &o, &e, &d);
    double t_warm = now_s() - t0;
    /* the same again: both precisions' indexes built, the per-op work alone */
    t0 = now_s();
    rc |= estimate_profile(&p, &m, &ks, &o, &e, &d);
    double t_again = now_s() - t0;

    printf("estimate bench: %d ops, %d table rows\n", N_OPS, N_ROWS);
    printf("  %-46s %10.2f ms\n", "reference: generate profile and table", 1e3 * t_gen);
    printf("  %-46s %10.2f ms  (%.2fx reference)\n", "estimate, first (builds the table index)",
           1e3 * t_cold, t_cold / t_gen);
    printf("  %-46s %10.2f ms  (%.2fx reference)\n", "estimate as bf16 at batch 128 (its index built)",
           1e3 * t_warm, t_warm / t_gen);
    printf("  %-46s %10.2f ms  (%.2fx reference)\n", "the same again (no index to build)",
           1e3 * t_again, t_again / t_gen);
    printf("  pass time %.4f ms; target < 100 ms per estimate: %s\n", 1e3 * e.pass_time_s,
           t_cold < 0.1 ? "met" : "MISSED");
    estimate_release(&e);
    profile_release(&p);
    kernel_set_release(&ks);
    /* a missed target is reported above; make bench goes on to its other cases */
    return rc != 0;
}
