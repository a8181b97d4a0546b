#!/bin/sh
# fom estimate on a hand-made profile, machine and table whose numbers can
# be checked by hand (tests/data/estimate/: 10 TFLOP/s fp32, 1 TB/s, 5 us
# launch, 20 us dispatch; gemm 100x1024x1024 fp32 50 us, bf16 10 us;
# 200x1024x1024 fp32 90 us).
. "$(dirname "$0")/lib.sh"
D=tests/data/estimate
P=$D/small.profile.json
M=$D/testgpu.xml
K=$D/tables

fom_run 0 estimate --profile $P --machine $M --kernels $K
expect_golden estimate-small
expect_err_contains "no fp32 rows for elementwise ops; falling back to the roofline"

fom_run 0 estimate --profile $P --machine $M --kernels $K --format json
expect_json_num 'd["machine"] == "testgpu"' 1 0
# The pass's interval: only addmm has a spread (row p05 45 us, p95 60 us
# around 50 us, two calls): the pass CI is the pass with addmm at its
# log-normal's 2.5% and 97.5% quantiles, python3: 88.20162511 and
# 124.26541486 us for 100 us, so 2.110 - 0.100 + 0.08820162511 and
# + 0.12426541486 ms, exactly (no draws: the pass is monotone in the
# quantile).
expect_json_num 'd["pass_time_ci"]["lo_s"]' 2.09820162511e-3 1e-9
expect_json_num 'd["pass_time_ci"]["hi_s"]' 2.13426541486e-3 1e-9
expect_json_num 'd["pass_time_ci"]["spread_ops"]' 1 0
expect_json_num '"draws" not in d["pass_time_ci"]' 1 0
cp "$OUT" "$T_TMP/est.json"
# the CSV's pass row carries the same interval, in ms; op rows leave it empty
fom_run 0 estimate --profile $P --machine $M --kernels $K --format csv
if python3 - "$OUT" "$T_TMP/est.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ci = json.load(open(sys.argv[2]))["pass_time_ci"]
p = rows[-1]
ok = (p["name"] == "(pass)" and abs(float(p["ci_lo_ms"]) - ci["lo_s"] * 1e3) < 1e-6
      and abs(float(p["ci_hi_ms"]) - ci["hi_s"] * 1e3) < 1e-6
      and all(r["ci_lo_ms"] == "" for r in rows[:-1]))
sys.exit(0 if ok else 1)
PY
then ok "csv pass row has the pass CI"; else not_ok "csv pass CI"; fi
cp "$T_TMP/est.json" "$OUT"     # the JSON checks below read it again
# addmm: 2 calls x 50 us (exact row)
expect_json_num 'd["ops"][0]["time_s"]' 100e-6 1e-9
expect_json_num 'd["ops"][0]["method"] == "table-exact"' 1 0
# add: 2e9 B / 1 TB/s + 5 us launch
expect_json_num 'd["ops"][1]["time_s"]' 2.005e-3 1e-9
expect_json_num 'd["ops"][1]["bound"] == "memory"' 1 0
expect_json_num 'd["ops"][1]["method"] == "roofline"' 1 0
# host 30 + 10 + 5 us from the profile; no call order: pass max(2.105, 0.045) + 0.005 ms
expect_json_num 'd["host_time_s"]' 45e-6 1e-9
expect_json_num 'd["pass_time_s"]' 2.110e-3 1e-9
expect_json_num 'all(k in o for o in d["ops"] for k in ("name","kind","time_s","method","bound"))' 1 0

# as bf16: addmm 2 x 10 us; add moves half the bytes: 1 ms + 5 us
fom_run 0 estimate --profile $P --machine $M --kernels $K --precision bf16 --format json
expect_json_num 'd["ops"][0]["time_s"]' 20e-6 1e-9
expect_json_num 'd["ops"][1]["time_s"]' 1.005e-3 1e-9

# at batch 200: addmm m 100 -> 200 (2 x 90 us), add leads with the batch: 4 ms + 5 us
fom_run 0 estimate --profile $P --machine $M --kernels $K --batch 200 --format csv
expect_out_contains "aten::addmm,gemm,forward,fp32,table-exact"
fom_run 0 estimate --profile $P --machine $M --kernels $K --batch 200 --format json
expect_json_num 'd["ops"][0]["time_s"]' 180e-6 1e-9
expect_json_num 'd["ops"][1]["time_s"]' 4.005e-3 1e-9
expect_json_num 'd["batch"]' 200 0

# the machine has no fp16 peak: fallback with a warning on stderr
fom_run 0 estimate --profile $P --machine $M --precision fp16 --format json
expect_err_contains "machine 'testgpu' has no fp16 units: its fp16 matrix ops are estimated as emulated in fp32, at its fp32 peak"

# usage and bad input
fom_run 2 estimate --profile $P
expect_err_contains "missing --machine"
fom_run 2 estimate --profile $P --machine $M --precision int4
expect_err_contains "found 'int4', expected fp32, tf32, bf16 or fp16"
fom_run 2 estimate --profile $P --machine $M --batch -3
expect_err_contains "--batch: found '-3'"
fom_run 1 estimate --profile $D/cut.profile.json --machine $M
expect_err_contains "cut.profile.json"
fom_run 1 estimate --profile $P --machine $D/tables/env.json
expect_err_contains "env.json:1"
fom_run 0 estimate --help
expect_out_contains "scaled-table"
# every command takes --opt=value (estimate used to refuse it)
fom_run 0 estimate --profile=$P --machine=$M --kernels=$K --format=json
expect_json_num 'd["machine"] == "testgpu"' 1 0
fom_run 2 estimate --profile $P --machine $M stray
expect_err_contains "error: found 'stray', expected an option of 'fom estimate'"
done_testing
