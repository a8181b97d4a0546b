/* The Monte Carlo of the pass time over the kernel tables' spreads.
 * Expected quantiles come from the log-normal worked out in python3:
 *   est x exp(z x ln(est / p05) / z95) below the median,
 *   est x exp(z x ln(p95 / est) / z95) above it,
 * z95 = 1.6448536269514722, z975 = 1.959963984540054. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "core/diag.h"
#include "core/xalloc.h"
#include "model/estimate.h"
#include "model/stats.h"

static void test_spread_quantiles(void **state)
{
    (void)state;
    struct est_spread sp;
    /* est 100, p05 90, p95 120: p05 and p95 come back at 5% and 95% */
    assert_int_equal(est_spread_of(100, 90, 120, &sp), 1);
    assert_close(sp.sigma_lo, log(100.0 / 90) / 1.6448536269514722, 1e-12);
    assert_close(sp.sigma_hi, log(1.2) / 1.6448536269514722, 1e-12);
    assert_close(est_spread_quantile(&sp, 0.05), 90, 1e-9);
    assert_close(est_spread_quantile(&sp, 0.95), 120, 1e-9);
    assert_close(est_spread_quantile(&sp, 0.5), 100, 1e-12);
    /* python3: 88.20162511137832 and 124.26541486441297 */
    assert_close(est_spread_quantile(&sp, 0.025), 88.20162511137832, 1e-9);
    assert_close(est_spread_quantile(&sp, 0.975), 124.26541486441297, 1e-9);
    assert_close(est_spread_at(&sp, 0), 100, 0);
    /* symmetric in log space: a plain log-normal, 100 x 2^(+-z975/z95)
     * = 228.40171677253616 and 43.7825080358697 */
    assert_int_equal(est_spread_of(100, 50, 200, &sp), 1);
    assert_close(sp.sigma_lo, sp.sigma_hi, 1e-15);
    assert_close(est_spread_quantile(&sp, 0.975), 228.40171677253616, 1e-9);
    assert_close(est_spread_quantile(&sp, 0.025), 43.7825080358697, 1e-9);
    /* no spread */
    assert_int_equal(est_spread_of(100, 100, 100, &sp), 0);
    assert_int_equal(est_spread_of(100, 0, 0, &sp), 0);
    assert_int_equal(est_spread_of(0, 0, 1, &sp), 0);
    /* one side only: the other half has no width */
    assert_int_equal(est_spread_of(100, 100, 150, &sp), 1);
    assert_close(sp.sigma_lo, 0, 0);
    assert_close(est_spread_quantile(&sp, 0.01), 100, 1e-12);
    /* a p05 above the estimate is not a negative width */
    assert_int_equal(est_spread_of(100, 110, 150, &sp), 1);
    assert_close(sp.sigma_lo, 0, 0);
}

/* The fixture of u-estimate.c's exact hit: a GPU with 10 us dispatch and
 * 5 us launch; one GEMM of two calls of the 100 us row (p05 90, p95 120):
 * device 200 us (180 .. 240), host 102 us, pass max(200, 102) + 5 us. */
struct fix {
    struct machine m;
    struct mem_level hbm;
    struct kernel_set ks;
    struct profile p;
    FILE *fp;
    struct diag d;
};

static void fix_init(struct fix *f, int with_table)
{
    memset(f, 0, sizeof *f);
    f->m.id = "testgpu";
    f->m.name = "Test GPU";
    f->m.device_name = "Test GPU";
    f->m.kind = MACHINE_GPU;
    f->m.peak_flops[PREC_FP32][EXEC_VECTOR] = 10e12;
    /* tf32 tensor cores: the rows below are within physics (see u-estimate.c) */
    f->m.peak_flops[PREC_TF32][EXEC_MATRIX] = 100e12;
    f->hbm.name = "HBM";
    f->hbm.bw_bs = 1e12;
    f->m.mem = &f->hbm;
    f->m.n_mem = 1;
    f->m.launch_latency_s = 5e-6;
    /* a matrix product's call costs the host 4.69 dispatches (est_host.c), 1.09 times
     * that at 2 calls a record: 2 x 51 us, under the op's 200 us */
    f->m.dispatch_s = 10e-6;
    kernel_set_init(&f->ks);
    if (with_table) {
        ALLOC_GROW(f->ks.tables, 1, f->ks.alloc);
        f->ks.n = 1;
        kernel_table_init(&f->ks.tables[0]);
        f->ks.tables[0].hw = xstrdup("Test GPU");
        struct kernel_row *r = kernel_table_add(&f->ks.tables[0]);
        r->kind = KERNEL_GEMM;
        r->prec = PREC_FP32;
        r->m = r->n = r->k = 1024;
        r->a_t = r->b_t = 'N';
        r->time_s[0] = 100e-6;
        r->time_lo_s = 90e-6;
        r->time_hi_s = 120e-6;
        r->reps = 20;
    }
    profile_init(&f->p);
    struct op *o = profile_add_op(&f->p);
    o->name = xstrdup("aten::mm");
    o->kind = OP_GEMM;
    o->count = 2;
    o->dtype = PREC_FP32;
    o->phase = PHASE_FORWARD;
    o->m = o->n = o->k = 1024;
    o->a_t = o->b_t = 'N';
    o->flops = 2 * 2.0 * 1024 * 1024 * 1024;
    o->time_s = 0.5;
    f->fp = tmpfile();
    diag_init(&f->d, f->fp);
}

static void fix_free(struct fix *f)
{
    profile_release(&f->p);
    kernel_set_release(&f->ks);
    fclose(f->fp);
}

static void test_reproducible(void **state)
{
    (void)state;
    struct fix f;
    fix_init(&f, 1);
    struct estimate a, b;
    estimate_init(&a);
    estimate_init(&b);
    struct estimate_opts o;
    estimate_opts_init(&o);
    o.mc_draws = EST_MC_DRAWS;
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &a, &f.d), 0);
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &b, &f.d), 0);
    assert_int_equal(a.n_draws, EST_MC_DRAWS);
    assert_int_equal(a.n_spread_ops, 1);
    assert_int_equal(a.n_draws, b.n_draws);
    assert_memory_equal(a.pass_draws, b.pass_draws, a.n_draws * sizeof *a.pass_draws);
    assert_true(a.pass_ci_lo_s == b.pass_ci_lo_s && a.pass_ci_hi_s == b.pass_ci_hi_s);
    /* another seed draws other times; the point estimate never moves */
    o.mc_seed = 1;
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &b, &f.d), 0);
    assert_true(memcmp(a.pass_draws, b.pass_draws, a.n_draws * sizeof *a.pass_draws) != 0);
    assert_true(a.pass_time_s == b.pass_time_s);
    /* the interval is not drawn: the same with another seed or without
     * draws, which are not made unless asked for */
    assert_true(a.pass_ci_lo_s == b.pass_ci_lo_s && a.pass_ci_hi_s == b.pass_ci_hi_s);
    estimate_opts_init(&o);
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &b, &f.d), 0);
    assert_null(b.pass_draws);
    assert_int_equal(b.n_draws, 0);
    assert_true(a.pass_ci_lo_s == b.pass_ci_lo_s && a.pass_ci_hi_s == b.pass_ci_hi_s);
    assert_true(a.pass_time_s == b.pass_time_s);
    assert_true(a.pass_lo_s == b.pass_lo_s && a.pass_hi_s == b.pass_hi_s);
    assert_close(a.pass_time_s, 205e-6, 1e-12);
    estimate_release(&a);
    estimate_release(&b);
    fix_free(&f);
}

/* A profile of 20000 spread ops gets EST_MC_WORK / 20000 = 838 draws
 * instead of EST_MC_DRAWS: each draw sums every op. */
static void test_draws_capped(void **state)
{
    (void)state;
    struct fix f;
    fix_init(&f, 1);
    size_t n = 20000;
    for (size_t i = 1; i < n; i++) {
        struct op *o = profile_add_op(&f.p);
        *o = f.p.ops[0];
        o->name = xstrdup(f.p.ops[0].name);
    }
    struct estimate e;
    estimate_init(&e);
    struct estimate_opts o;
    estimate_opts_init(&o);
    o.mc_draws = EST_MC_DRAWS;
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &e, &f.d), 0);
    assert_int_equal(e.n_spread_ops, n);
    assert_int_equal(e.n_draws, EST_MC_WORK / n);
    assert_true(e.n_draws < EST_MC_DRAWS && e.n_draws >= EST_MC_MIN_DRAWS);
    assert_true(isfinite(e.pass_ci_lo_s) && e.pass_ci_lo_s < e.pass_ci_hi_s);
    estimate_release(&e);
    fix_free(&f);
}

/* One op with p05 180 us, p95 240 us around 200 us; the host (102 us) never
 * limits: the pass CI is the op's 2.5% and 97.5% quantiles + 5 us sync,
 * python3: 176.40325022275664 and 248.53082972882595 us, exactly.  The
 * draws agree: with 20000 of them the standard error of a 2.5% quantile
 * is about sqrt(0.025 x 0.975 / 20000) / phi(1.96) = 0.019 sigma, under
 * 0.5 us here: 1% (1.8 us) is four standard errors. */
static void test_one_op_ci(void **state)
{
    (void)state;
    struct fix f;
    fix_init(&f, 1);
    struct estimate e;
    estimate_init(&e);
    struct estimate_opts o;
    estimate_opts_init(&o);
    o.mc_draws = 20000;
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, &o, &e, &f.d), 0);
    assert_int_equal(e.n_draws, 20000);
    assert_close(e.pass_ci_lo_s, 5e-6 + 176.40325022275664e-6, 1e-12);  /* relative */
    assert_close(e.pass_ci_hi_s, 5e-6 + 248.53082972882595e-6, 1e-12);
    double *sorted = xmalloc(e.n_draws * sizeof *sorted);
    memcpy(sorted, e.pass_draws, e.n_draws * sizeof *sorted);
    gsl_sort(sorted, 1, e.n_draws);
    assert_close(stats_quantile_sorted(sorted, e.n_draws, 0.025), e.pass_ci_lo_s, 0.01);
    assert_close(stats_quantile_sorted(sorted, e.n_draws, 0.975), e.pass_ci_hi_s, 0.008);
    free(sorted);
    /* the share of draws below p05 and above p95 (+ sync): 5% each, with
     * a standard error of sqrt(0.05 x 0.95 / 20000) = 0.15%: 0.5% (relative
     * tolerance 0.1) is over three */
    size_t below = 0, above = 0;
    for (size_t i = 0; i < e.n_draws; i++) {
        below += e.pass_draws[i] < 185e-6;
        above += e.pass_draws[i] > 245e-6;
        assert_true(e.pass_draws[i] > 45e-6);
    }
    assert_close((double)below / e.n_draws, 0.05, 0.1);
    assert_close((double)above / e.n_draws, 0.05, 0.1);
    estimate_release(&e);
    fix_free(&f);
}

/* Without a table the op is a roofline estimate: nothing to draw, CI
 * unavailable. */
static void test_no_spread(void **state)
{
    (void)state;
    struct fix f;
    fix_init(&f, 0);
    struct estimate e;
    estimate_init(&e);
    assert_int_equal(estimate_profile(&f.p, &f.m, &f.ks, NULL, &e, &f.d), 0);
    assert_int_equal(e.ops[0].method, EST_ROOFLINE);
    assert_int_equal(e.n_spread_ops, 0);
    assert_int_equal(e.n_draws, 0);
    assert_null(e.pass_draws);
    assert_true(isnan(e.pass_ci_lo_s) && isnan(e.pass_ci_hi_s));
    assert_true(e.pass_time_s > 0);
    estimate_release(&e);
    fix_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_quantiles),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_one_op_ci),
        cmocka_unit_test(test_draws_capped),
        cmocka_unit_test(test_no_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
