/* The communication model: ring and tree all-reduce terms, the
 * hierarchical split over nodes, the measured-table path and the bucket
 * overlap, each against sums done by hand. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/comm.h"
#include "model/kernel_table.h"
#include "model/profile.h"
#include "model/machine.h"

#define MIB (1024.0 * 1024.0)

/* A Perlmutter-like node: 4 devices, 300 GB/s and 3.4 us inside, 4 NICs
 * of 25 GB/s (100 GB/s) and 9.6 us between nodes. */
static struct machine perlmutter(void)
{
    struct machine m;
    memset(&m, 0, sizeof m);
    m.devices_per_node = 4;
    m.intra.bw_bs = 300e9;
    m.intra.latency_s = 3.4e-6;
    m.inter.bw_bs = 100e9;
    m.inter.nics = 4;
    m.inter.nic_bw_bs = 25e9;
    m.inter.latency_s = 9.6e-6;
    return m;
}

static void test_ring_tree(void **state)
{
    (void)state;
    /* 2 (4-1)/4 x 1e9 B / 1e9 B/s + 2 (4-1) x 1e-6 s = 1.5 + 6e-6 */
    assert_close(comm_ring_allreduce_s(1e9, 4, 1e9, 1e-6), 1.5 + 6e-6, 1e-15);
    /* tree over 5 ranks: 2 x 1 s + 2 ceil(log2 5) = 6 steps of 1 us */
    assert_close(comm_tree_allreduce_s(1e9, 5, 1e9, 1e-6), 2.0 + 6e-6, 1e-15);
    assert_true(comm_ring_allreduce_s(1e9, 1, 1e9, 1e-6) == 0);
    assert_true(comm_tree_allreduce_s(1e9, 1, 0, 0) == 0);
    assert_true(isnan(comm_ring_allreduce_s(1e9, 2, 0, 0)));
    assert_true(isnan(comm_ring_allreduce_s(-1, 2, 1e9, 0)));
    assert_true(isnan(comm_tree_allreduce_s(1e9, 0, 1e9, 0)));
    assert_true(isnan(comm_tree_allreduce_s(1e9, 2, 1e9, NAN)));
}

/* One node, two devices: the ring inside the node only. */
static void test_one_node(void **state)
{
    (void)state;
    struct machine m = perlmutter();
    struct comm_allreduce a;
    const char *why = NULL;
    assert_int_equal(comm_allreduce(25 * MIB, 2, &m, NULL, 0, &a, &why), 0);
    assert_int_equal(a.per_node, 2);
    assert_int_equal(a.nodes, 1);
    assert_int_equal(a.source, COMM_FROM_MACHINE);
    assert_int_equal(a.inter_algo, COMM_NONE);
    /* 2 (1/2) x 26214400 / 300e9 = 87.381 us; 2 x 3.4 us; + 8.4 us */
    assert_close(a.intra_bw_s, 26214400.0 / 300e9, 1e-12);
    assert_close(a.intra_lat_s, 6.8e-6, 1e-12);
    assert_close(a.time_s, 26214400.0 / 300e9 + 6.8e-6 + 8.4e-6, 1e-12);
    assert_true(a.inter_bw_s == 0 && a.inter_lat_s == 0);
}

/* 16 nodes of 4: ring inside, tree across (cheaper than the ring's 30
 * steps of 9.6 us), every term by hand. */
static void test_sixteen_nodes(void **state)
{
    (void)state;
    struct machine m = perlmutter();
    struct comm_allreduce a;
    const char *why = NULL;
    assert_int_equal(comm_allreduce(25 * MIB, 64, &m, NULL, 0, &a, &why), 0);
    assert_int_equal(a.per_node, 4);
    assert_int_equal(a.nodes, 16);
    assert_close(a.intra_bw_s, 1.5 * 26214400.0 / 300e9, 1e-12);   /* 131.072 us */
    assert_close(a.intra_lat_s, 6 * 3.4e-6, 1e-12);
    /* ring would be 2 (15/16) x 26214400 / 100e9 + 30 x 9.6 us = 779.52 us;
     * tree 2 x 26214400 / 100e9 + 2 x 4 x 9.6 us = 601.088 us */
    assert_int_equal(a.inter_algo, COMM_TREE);
    assert_close(a.inter_bw_s, 2 * 26214400.0 / 100e9, 1e-12);
    assert_close(a.inter_lat_s, 8 * 9.6e-6, 1e-12);
    assert_close(a.time_s, 760.96e-6, 1e-9);
    /* two nodes: the ring's 2 steps beat the tree's 2 */
    assert_int_equal(comm_allreduce(25 * MIB, 8, &m, NULL, 0, &a, &why), 0);
    assert_int_equal(a.inter_algo, COMM_RING);
    assert_close(a.inter_bw_s, 26214400.0 / 100e9, 1e-12);
}

static void test_refused(void **state)
{
    (void)state;
    struct machine m = perlmutter();
    struct comm_allreduce a;
    const char *why = NULL;
    assert_int_equal(comm_allreduce(1e6, 6, &m, NULL, 0, &a, &why), -1);
    assert_non_null(strstr(why, "whole nodes"));
    m.inter.bw_bs = 0;
    why = NULL;
    assert_int_equal(comm_allreduce(1e6, 8, &m, NULL, 0, &a, &why), -1);
    assert_non_null(strstr(why, "no inter-node network"));
    m = perlmutter();
    m.intra.bw_bs = 0;
    why = NULL;
    assert_int_equal(comm_allreduce(1e6, 2, &m, NULL, 0, &a, &why), -1);
    assert_non_null(strstr(why, "no intra-node link"));
    /* a node of one device needs no intra-node link */
    m.devices_per_node = 1;
    assert_int_equal(comm_allreduce(1e6, 2, &m, NULL, 0, &a, &why), 0);
    assert_int_equal(a.nodes, 2);
}

/* The measured table: used at its rank count inside its size range
 * (log-log between neighbours), the machine model elsewhere. */
static void test_table(void **state)
{
    (void)state;
    struct machine m = perlmutter();
    const struct comm_point t[] = {
        { 2, 1e6, 20e-6 }, { 2, 4e6, 80e-6 }, { 4, 1e6, 30e-6 }, { 2, 16e6, 200e-6 },
    };
    struct comm_allreduce a;
    const char *why = NULL;
    assert_int_equal(comm_allreduce(4e6, 2, &m, t, 4, &a, &why), 0);
    assert_int_equal(a.source, COMM_FROM_TABLE);
    assert_close(a.time_s, 80e-6, 1e-12);
    /* halfway in log size between 1e6 and 4e6: sqrt(20 x 80) = 40 us */
    assert_int_equal(comm_allreduce(2e6, 2, &m, t, 4, &a, &why), 0);
    assert_close(a.time_s, 40e-6, 1e-9);
    /* beyond the measured sizes, or another rank count: the machine */
    assert_int_equal(comm_allreduce(32e6, 2, &m, t, 4, &a, &why), 0);
    assert_int_equal(a.source, COMM_FROM_MACHINE);
    assert_int_equal(comm_allreduce(2e6, 3, &m, t, 4, &a, &why), 0);
    assert_int_equal(a.source, COMM_FROM_MACHINE);
    /* across nodes the one-host table does not apply */
    const struct comm_point t8[] = { { 8, 1e6, 1e-3 }, { 8, 1e9, 1.0 } };
    assert_int_equal(comm_allreduce(2e6, 8, &m, t8, 2, &a, &why), 0);
    assert_int_equal(a.source, COMM_FROM_MACHINE);
}

/* Buckets: 1 MiB first, 25 MiB after, remainder last; with no backward
 * time everything is exposed, with a long one only the last bucket. */
static void test_step_overlap(void **state)
{
    (void)state;
    struct machine m = perlmutter();
    struct comm_step s;
    const char *why = NULL;
    /* 25e6 parameters = 100e6 B: 1 MiB + 3 x 25 MiB + 20308224 B */
    assert_int_equal(comm_step_exchange(25e6, 0, 2, &m, NULL, 0, &s, &why), 0);
    assert_int_equal(s.n_buckets, 5);
    assert_close(s.grad_bytes, 100e6, 1e-15);
    double one = 26214400.0 / 300e9 + 15.2e-6;
    double first = 1048576.0 / 300e9 + 15.2e-6, last = 20308224.0 / 300e9 + 15.2e-6;
    assert_close(s.total_s, first + 3 * one + last, 1e-12);
    assert_close(s.exposed_s, s.total_s, 1e-12);
    assert_close(s.last_bucket_s, last, 1e-12);
    assert_close(s.full.time_s, one, 1e-12);
    /* a backward pass of 1 s hides all but the last bucket */
    assert_int_equal(comm_step_exchange(25e6, 1.0, 2, &m, NULL, 0, &s, &why), 0);
    assert_close(s.exposed_s, last, 1e-12);
    /* in between: buckets ready at even shares of 300 us; the exchange
     * falls behind and ends later than the last bucket alone would */
    assert_int_equal(comm_step_exchange(25e6, 300e-6, 2, &m, NULL, 0, &s, &why), 0);
    double ready[5] = { 1048576.0, 27262976.0, 53477376.0, 79691776.0, 100e6 };
    double took[5] = { first, one, one, one, last }, free_at = 0;
    for (int k = 0; k < 5; k++)
        free_at = fmax(free_at, 300e-6 * ready[k] / 100e6) + took[k];
    assert_close(s.exposed_s, free_at - 300e-6, 1e-12);
    assert_true(s.exposed_s > last && s.exposed_s < s.total_s);
    /* one rank: nothing to exchange */
    assert_int_equal(comm_step_exchange(25e6, 1.0, 1, &m, NULL, 0, &s, &why), 0);
    assert_true(s.exposed_s == 0 && s.total_s == 0 && s.n_buckets == 0);
    assert_int_equal(comm_step_exchange(NAN, 1.0, 2, &m, NULL, 0, &s, &why), -1);
}

/* A kernel table's comm rows become comm points: fp32 all-reduce rows
 * only (gradients are fp32), with their ranks, bytes and time. */
static void test_points_from_table(void **state)
{
    (void)state;
    struct kernel_row rows[4];
    memset(rows, 0, sizeof rows);
    char ar[] = "all_reduce", ag[] = "all_gather";
    for (int i = 0; i < 4; i++) {
        rows[i].kind = KERNEL_COMM;
        rows[i].prec = PREC_FP32;
        rows[i].op = ar;
        rows[i].dim[COMM_RANKS] = 4;
        rows[i].dim[COMM_BYTES] = 1000 << i;
        rows[i].time_s[0] = 1e-5 * (i + 1);
    }
    rows[1].op = ag;            /* another collective */
    rows[2].prec = PREC_BF16;   /* another precision */
    struct kernel_table t = { .rows = rows, .n_rows = 4 };
    struct comm_point *pts = NULL;
    assert_int_equal(comm_points_from_table(&t, &pts), 2);
    assert_int_equal(pts[0].ranks, 4);
    assert_close(pts[0].bytes, 1000, 0);
    assert_close(pts[1].bytes, 8000, 0);
    assert_close(pts[1].time_s, 4e-5, 1e-15);
    free(pts);
    assert_int_equal(comm_points_from_table(NULL, &pts), 0);
    assert_null(pts);
}

/* The parameter count from the shapes of a multi-tensor optimizer op's
 * first argument (the parameter list); other ops and lists are ignored. */
static void test_profile_parameters(void **state)
{
    (void)state;
    struct op ops[3];
    memset(ops, 0, sizeof ops);
    char foreach[] = "aten::_foreach_add_", mm[] = "aten::mm";
    char s1[] = "[[1000, 30], [1000], []], [[1000, 30], [1000], []], []";
    char s2[] = "[[7, 7]], [[7, 7]]";
    ops[0].name = foreach; ops[0].kind = OP_OPTIMIZER; ops[0].shapes = s1;
    ops[1].name = foreach; ops[1].kind = OP_OPTIMIZER; ops[1].shapes = s2;
    ops[2].name = mm; ops[2].kind = OP_GEMM; ops[2].shapes = s1;
    struct profile p;
    memset(&p, 0, sizeof p);
    p.ops = ops;
    p.n_ops = 3;
    /* 1000 x 30 + 1000 + one scalar */
    assert_close(comm_profile_parameters(&p), 31001, 0);
    p.n_ops = 0;
    assert_close(comm_profile_parameters(&p), 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_tree),
        cmocka_unit_test(test_one_node),
        cmocka_unit_test(test_sixteen_nodes),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_points_from_table),
        cmocka_unit_test(test_profile_parameters),
        cmocka_unit_test(test_step_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
