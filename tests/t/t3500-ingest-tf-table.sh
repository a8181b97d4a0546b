#!/bin/sh
# fom ingest on the non-Kineto inputs: the seed's tfprof MatMul dump, the
# tfprof documentation examples, a TF1 timeline, key_averages tables, and
# profiles that fom ingest itself saved (json and csv) read back.
# Reference for the seed dump (worked out by hand in
# tests/unit/u-ingest-tf.c): with --batch 100, 14 GEMM runs per pass and
# 12.14583 GFLOP per pass; the P1B3 PyTorch tables give the same figures.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

GEMM_COUNT='sum(o["count"] for o in d["ops"] if o["kind"] == "gemm")'
GEMM_FLOPS='sum(o["flops"] for o in d["ops"] if o["kind"] == "gemm")'
SEED=tests/data/tfprof/p1b3_x86_matmul_shapes.txt

fom_run 0 ingest "$SEED" --batch 100 --format-out json
expect_json_num "$GEMM_COUNT" 14 1e-12
expect_json_num "$GEMM_FLOPS" 12.14583e9 1e-9
expect_json_num 'd["steps"]' 1 0
expect_json_num 'd["total_time_s"]' 0.115528 1e-9
expect_err_contains "$SEED:1: warning: input-shape lines without an op row"

# without --batch the -1 rows are flagged, their flops 0, with file:line
fom_run 0 ingest "$SEED" --format tfprof --format-out json
expect_err_contains "$SEED:2: warning: input shape has a -1 (batch) dimension"
expect_json_num "$GEMM_FLOPS" 0.33303e9 1e-9     # 12.14583e9 - 2 x 5.9064e9

fom_run 0 ingest tests/data/tfprof/p1b3_x86_op_view.txt --format tfprof --format-out json
expect_json_num 'len(d["ops"])' 14 0
expect_json_num '[o for o in d["ops"] if o["name"] == "MatMul"][0]["time_s"]' 0.11552 1e-9
fom_run 0 ingest tests/data/tfprof/tfprof_op_view_readme_example.txt --format tfprof --format-out json
expect_json_num '[o for o in d["ops"] if o["name"] == "MatMul"][0]["count"]' 2694 0
fom_run 0 ingest tests/data/tfprof/tfprof_op_view_input_shapes_example.txt --format tfprof --format-out json
expect_json_num 'sum(o["time_s"] for o in d["ops"] if o["kind"] == "conv")' 4.887e-3 1e-9

# TF1 timeline: MatMul kernel time 4085 us on stream:all + 1 us on memcpy
fom_run 0 ingest tests/data/tfprof/tf1_timeline_gpu_matmul.json --format tf-timeline --format-out json
expect_json_num '[o for o in d["ops"] if o["name"] == "MatMul"][0]["time_s"]' 4.086e-3 1e-9

# key_averages tables
for t in p1b3_h200_fp32_b100 p1b3_hostcpu_fp32_b100; do
    fom_run 0 ingest tests/data/tables/$t.table.txt --format pt-table --format-out json
    expect_json_num "$GEMM_COUNT" 14 1e-12
    expect_json_num "$GEMM_FLOPS" 12.14583e9 1e-9
done
expect_json_num 'd["steps"]' 1 0

# saved profiles read back, as json and as csv
for f in json csv; do
    fom_run 0 ingest "$SEED" --batch 100 --format-out $f -o "$T_TMP/saved.$f"
    fom_run 0 ingest "$T_TMP/saved.$f" --format-out json
    expect_json_num "$GEMM_COUNT" 14 1e-12
    expect_json_num "$GEMM_FLOPS" 12.14583e9 1e-9
done

# bad input: exit 1 and file:line (text) or file: byte N (json; N is the
# offset just past the offending token: 60 = length of the text up to "gem")
printf '0:100x100,\t1:100x50\t(run*2 defined*2)\texec_time:\t549us\n0:100x1' >"$T_TMP/cut.txt"
fom_run 1 ingest "$T_TMP/cut.txt" --format tfprof
expect_err_contains "$T_TMP/cut.txt:2: error: found '0:100x1'"
head -c 2000 tests/data/tfprof/tf1_timeline_gpu_matmul.json >"$T_TMP/cut.json"
fom_run 1 ingest "$T_TMP/cut.json" --format tf-timeline
expect_err_contains "$T_TMP/cut.json: byte 2000: error: found the end of the file"
head -n 20 tests/data/tables/p1b3_hostcpu_fp32_b100.table.txt >"$T_TMP/cut.table.txt"
fom_run 1 ingest "$T_TMP/cut.table.txt" --format pt-table
expect_err_contains "$T_TMP/cut.table.txt:20: error: found the end of the file inside the table"
printf '{"format":"kineto","steps":1,"ops":[{"name":"a","kind":"gem"}]}' >"$T_TMP/bad.json"
fom_run 1 ingest "$T_TMP/bad.json"
expect_err_contains "$T_TMP/bad.json: byte 60: error: found gem for \"kind\""

done_testing
