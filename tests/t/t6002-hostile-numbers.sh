#!/bin/sh
# Hostile numbers: gemm sizes whose flops overflow 64-bit integers (2^40
# cubed), conv sizes near 2^62, negative dimensions, and NaN, infinite,
# negative and zero times in every text format (key_averages table,
# tfprof, saved profiles json/csv, kernel CSV, DeepBench stdout, study,
# machine).  Exit 0 with the exact double, or 1 naming file:line.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
MK="python3 $DATA/hostile/mktrace.py"
GPU="$DATA/estimate/testgpu.xml"

# -- gemm of 2^40 x 2^40 by 2^40 x 2^40: 2^121 flops as a double, no wrap
$MK big-gemm "$T_TMP/big-gemm.json"
hostile_run 0 ingest "$T_TMP/big-gemm.json" --format-out json
expect_json_num "d['ops'][0]['flops']" "$(python3 -c 'print(float(2 * 2**120))')" 1e-12
expect_json_num "d['ops'][0]['m']" 1099511627776 0
# the same through the estimator: fp32 roofline of the test GPU, 10 TFLOP/s
hostile_run 0 estimate --profile "$T_TMP/big-gemm.json" --machine "$GPU" --format json
expect_json_num "d['ops'][0]['flops']" "$(python3 -c 'print(float(2 * 2**120))')" 1e-12
expect_json_num "d['ops'][0]['time_s']" "$(python3 -c 'print(2 * 2**120 / 10e12)')" 1e-9
# a saved profile holding such an op, and a kernel table row of that size
python3 - "$DATA/estimate/small.profile.json" "$T_TMP/bigp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = d['ops'][0]
e = 2 ** 40
o.update(m=e, n=e, k=e, flops=2.0 * e ** 3 * 2, count=2)
d['ops'] = [o]
json.dump(d, open(sys.argv[2], 'w'))
PY
hostile_run 0 estimate --profile "$T_TMP/bigp.json" --machine "$GPU" --format json
expect_json_num "d['pass_time_s'] - d['host_time_s'] - d['sync_s']" "$(python3 -c 'print(4 * 2**120 / 10e12)')" 1e-9
printf 'm,n,k,a_t,b_t,precision,time_us\n1099511627776,1099511627776,1099511627776,N,N,fp32,27.36\n' >"$T_TMP/kbig.csv"
hostile_run 0 estimate --profile "$T_TMP/bigp.json" --machine "$GPU" --kernels "$T_TMP/kbig.csv" --format json
hostile_run 0 kernels import "$T_TMP/kbig.csv" --db "$T_TMP/kbig.db" --machine big
printf 'm,n,k,a_t,b_t,precision,time_us\n9223372036854775807,1,9223372036854775808,N,N,fp32,27.36\n' >"$T_TMP/kbig2.csv"
hostile_run 1 kernels import "$T_TMP/kbig2.csv" --db "$T_TMP/kbig2.db" --machine big
expect_err_contains "kbig2.csv:2:23: error: k: found '9223372036854775808', expected a positive integer"

# -- conv with sizes and padding near 2^62 (int64 overflow before the fix)
$MK big-conv "$T_TMP/big-conv.json"
hostile_run 0 ingest "$T_TMP/big-conv.json" --format-out json
expect_json_num "d['ops'][0]['flops']" 0 0
# -- negative dimensions: no shape rather than a negative size
$MK neg-dims "$T_TMP/neg-dims.json"
hostile_run 0 ingest "$T_TMP/neg-dims.json" --format-out json
expect_json_num "d['ops'][0]['m']" 0 0
expect_json_num "d['ops'][0]['bytes']" 0 0

# -- key_averages table: a bad Self CUDA time on line 5
T="$DATA/tables/small.table.txt"
for v in nan inf -2.000 1e400; do
    sed "5s/      2.000ms       2.000ms/      ${v}ms       ${v}ms/" "$T" >"$T_TMP/pt.txt"
    hostile_run 1 ingest "$T_TMP/pt.txt"
    expect_err_contains "pt.txt:5: error: found '"
    expect_err_contains "in column 'Self CUDA', expected a time like"
done
# -- tfprof op view: a bad total execution time on line 4
R="$DATA/tfprof/tfprof_op_view_readme_example.txt"
for v in nansec infsec -708.14ms 1e999ms; do
    sed "s/708.14ms (73.32%/$v (73.32%/" "$R" >"$T_TMP/tf.txt"
    hostile_run 1 ingest "$T_TMP/tf.txt"
    expect_err_contains "tf.txt:4: error: found 'MatMul"
done
# -- saved profile, json: NaN/Infinity are not JSON; negative and overflow named
P="$DATA/estimate/small.profile.json"
for v in NaN Infinity -0.00012 1e999; do
    sed "s/\"time_s\": 0.00012/\"time_s\": $v/" "$P" >"$T_TMP/p.json"
    hostile_run 1 ingest "$T_TMP/p.json"
    expect_err_contains "p.json: byte "
done
expect_err_contains "found 1e999 for \"time_s\", expected a finite number >= 0"
# -- saved profile, csv: the aten::mm row
"$FOM" ingest "$T" --format-out csv >"$T_TMP/good.csv" 2>/dev/null
L=$(grep -n '^aten::mm,' "$T_TMP/good.csv" | cut -d: -f1)
for v in nan inf -0.001 1e999; do
    sed "${L}s/,2,0.001,0.001,/,2,$v,0.001,/" "$T_TMP/good.csv" >"$T_TMP/p.csv"
    hostile_run 1 ingest "$T_TMP/p.csv"
    expect_err_contains "p.csv:$L: error: found '$v' in column 'time_s', expected a finite number >= 0"
done
# -- kernel CSV and DeepBench stdout: time NaN, inf, negative, zero, overflow
G="$DATA/kernels/h100_gemm.csv"
for v in nan inf -27.36 0 1e999; do
    { head -1 "$G"; sed -n 2p "$G" | sed "s/,fp32,27.36,/,fp32,$v,/"; } >"$T_TMP/k.csv"
    hostile_run 1 kernels import "$T_TMP/k.csv" --db "$T_TMP/k.db" --machine x
    expect_err_contains "k.csv:2:23: error: time: found '$v', expected a positive finite number"
    { sed -n 1,5p "$DATA/kernels/deepbench_stdout_gemm.txt"; echo "   1760      16   1760      0      0    float    $v"; } >"$T_TMP/db.txt"
    hostile_run 1 kernels import "$T_TMP/db.txt" --db "$T_TMP/k.db" --machine x
    expect_err_contains "db.txt:6:"
done
if [ -e "$T_TMP/k.db" ]; then
    hostile_run 0 kernels list --db "$T_TMP/k.db" --format csv
    if [ "$(wc -l <"$OUT")" -le 1 ]; then ok "no row of a bad file was imported"; else not_ok "rows of bad files imported"; fi
else
    ok "no database created by failed imports"
fi

# -- study times and machine peaks
S="$DATA/study/good.xml"
for v in "nan h" "inf h" "-1 h" "0 h" "1e999 h"; do
    sed "0,/per-unit=\"[^\"]*\"/s//per-unit=\"$v\"/" "$S" >"$T_TMP/s.xml"
    hostile_run 1 fom "$T_TMP/s.xml"
    expect_err_contains "s.xml:"
    expect_err_contains ": error: found "
done
M="$DATA/machine/good.xml"
for v in "nan TFLOP/s" "inf TFLOP/s" "-1 TFLOP/s" "0 TFLOP/s" "1e999 TFLOP/s"; do
    sed "0,\\|>[0-9.]* TFLOP/s<|s||>$v<|" "$M" >"$T_TMP/m.xml"
    hostile_run 1 machine validate "$T_TMP/m.xml"
    expect_err_contains "m.xml:"
    expect_err_contains ": error: found '$v' in <peak>"
done

# -- autocast's walk through the calls (--precision bf16) on a step whose
# shapes and counts sit at int64_t's and a double's edges: no overflow in
# the shape keys, the element counts or the parameters' multiplicities
python3 - "$T_TMP/walk.json" <<'PY'
import json, sys
big, half = 2 ** 63 - 1, 2 ** 62
ops = [
    {"name": "aten::addmm", "kind": "gemm", "phase": "forward", "dtype": "fp32", "count": 2,
     "time_s": 1e-3, "device_time_s": 1e-3, "host_time_s": 1e-5, "flops": 1e30, "bytes": 1e20,
     "m": 2 ** 40, "n": 2 ** 40, "k": 2 ** 40, "batch": 1, "a_t": "N", "b_t": "N",
     "shapes": "[%d], [%d, %d], [%d, %d], [], []" % (big, big, half, half, big), "id": 1},
    {"name": "aten::softplus", "kind": "elementwise", "phase": "forward", "dtype": "fp32",
     "count": 2, "time_s": 1e-3, "device_time_s": 1e-3, "host_time_s": 1e-5, "bytes": 1e20,
     "shapes": "[%d, %d], [], []" % (big, big), "id": 2},
    {"name": "aten::addcdiv_", "kind": "elementwise", "phase": "optimizer", "dtype": "fp32",
     "count": 1e300, "time_s": 1e-3, "device_time_s": 1e-3, "host_time_s": 1e-5, "bytes": 1e3,
     "shapes": "[%d, %d], [%d, %d], [%d, %d], []" % (big, half, big, half, big, half), "id": 3},
]
calls = [[1, 0, 0, 1e-5, 1e-3], [2, 0, 1e-5, 1e-5, 1e-3], [1, 0, 2e-5, 1e-5, 1e-3],
         [2, 0, 3e-5, 1e-5, 1e-3], [3, 0, 4e-5, 1e-5, 1e-3]]
json.dump({"format": "profile-json", "source": "walk", "device": "Test GPU", "steps": 1,
           "batch": 0, "dtype": "fp32", "has_device": True, "total_time_s": 5e-3,
           "step_time_s": 0, "host_time_s": 5e-5, "coverage": 1, "dropped_time_s": 0,
           "dropped_ops": 0, "ops": ops, "calls": calls}, open(sys.argv[1], "w"))
PY
hostile_run 0 estimate --profile "$T_TMP/walk.json" --machine "$GPU" --precision bf16 --format json
expect_err_contains "casts added per pass"
done_testing
