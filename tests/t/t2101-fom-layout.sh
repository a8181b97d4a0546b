#!/bin/sh
# Runs on multi-device nodes: independent runs side by side, and
# data-parallel runs with a gradient all-reduce, checked by hand against
# fom estimate's pass times.
. "$TESTS_DIR/t/lib.sh"

L=tests/data/layout
E=tests/data/estimate
est() { # pass time [s] of the small profile on the test GPU, extra args
    "$FOM" estimate --profile $E/small.profile.json --machine $E/testgpu.xml \
        --kernels $E/tables --format json "$@" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["pass_time_s"])'
}
full=$(est)
half=$(est --batch 50 --profile-batch 100)

fom_run 0 fom $L/study.xml --format json
# single: one device per run, 10 passes x 3 epochs; four such runs share a node.
expect_json_num '[p for p in d["problems"] if p["id"]=="single"][0]["hours_per_unit"]["four"]' \
    "$(python3 -c "print($full * 10 * 3 / 3600 / 4)")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="single"][0]["hours_per_unit"]["one"]' \
    "$(python3 -c "print($full * 10 * 3 / 3600)")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="single"][0]["runs_per_node"]["four"]' 4 0
expect_json_num '[p for p in d["problems"] if p["id"]=="single"][0]["ratio"]' 4 1e-12
# dp2: each device takes 50 of the 100 samples; the 25e6 fp32 gradients
# (1e8 B) go in DDP buckets of 1 MiB, 3 x 25 MiB and the rest (5 buckets);
# each ring all-reduce over 2 devices sends 1/2 x 2 x its bytes at
# 100 GB/s plus 2 x 10 us of link latency and 8.4 us per call: 1e8 B /
# 100 GB/s + 5 x 28.4 us = 1.142 ms.  The profile has no backward-phase
# ops to hide it behind, so all of it is exposed; two runs share a node.
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["exposed_comm_s"]["four"]' 1.142e-3 1e-12
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["exposed_comm_s"]["one"] is None' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="single"][0]["exposed_comm_s"]["four"]' 0 0
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["hours_per_unit"]["four"]' \
    "$(python3 -c "print(($half + 1.142e-3) * 10 * 3 / 3600 / 2)")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["runs_per_node"]["four"]' 2 0
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["units_per_day"]["four"]' \
    "$(python3 -c "print(24 / (($half + 1.142e-3) * 10 * 3 / 3600 / 2) * 2)")" 1e-9
# the scaling curve: widths 1, 2, 4 on the 4-device node; at width 2 the
# run's rate is one run's, the ideal twice the 1-device rate
expect_json_num '[q["devices_per_run"] for q in [p for p in d["problems"] if p["id"]=="dp2"][0]["scaling"]["four"]] == [1, 2, 4]' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["scaling"]["four"][1]["units_per_day"]' \
    "$(python3 -c "print(86400 / (($half + 1.142e-3) * 10 * 3))")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["scaling"]["four"][1]["ideal_units_per_day"]' \
    "$(python3 -c "print(2 * 86400 / ($full * 10 * 3))")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="dp2"][0]["scaling"]["four"][2]["concurrent_runs"]' 2 0

fom_run 0 fom $L/study.xml
expect_out_contains "single on four: 4 runs side by side per node; hours/unit = one run's time / 4"

# CSV: the interval columns bound the row's ratio.
fom_run 0 fom $L/study.xml --format csv
if python3 - "$OUT" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = [x for x in rows if x["row"] == "problem" and x["problem"] == "single" and x["system"] == "four"][0]
lo, ratio, hi = float(r["ci_lo [x]"]), float(r["ratio_to_one [x]"]), float(r["ci_hi [x]"])
base = [x for x in rows if x["row"] == "problem" and x["system"] == "one"][0]
sys.exit(0 if lo <= ratio <= hi and lo < hi and base["ci_lo [x]"] == "" else 1)
PY
then ok "csv ci_lo <= ratio <= ci_hi, empty for the baseline"; else not_ok "csv ratio interval"; fi

# The report states the layout among its assumptions.
fom_run 0 report $L/study.xml -o "$T_TMP/rep"
if grep -qF "1 device per run; 4 runs per node on four" "$T_TMP/rep/report.md" &&
   grep -qF "2 devices per run (data parallel: the batch split evenly; the fp32 gradients of 25000000 parameters are all-reduced in DDP buckets of 25 MiB" "$T_TMP/rep/report.md"; then
    ok "report.md names devices per run and runs per node"
else
    not_ok "report.md lacks the run layout"
fi

# A run wider than a node, a data-parallel run without parameters, an
# uneven split and a machine without the link to all-reduce over.
sed 's|devices-per-run="2"|devices-per-run="5"|' $L/study.xml >"$T_TMP/wide.xml"
sed -i "s|\.\./estimate/|$ROOT/$E/|g; s|testgpu4.xml|$ROOT/$L/testgpu4.xml|" "$T_TMP/wide.xml"
fom_run 1 fom "$T_TMP/wide.xml"
expect_err_contains "$T_TMP/wide.xml:13: error: found devices-per-run=5 for problem 'dp2' on system 'four' (2 nodes of 4 devices), expected a run that fits a node or fills whole nodes of it: devices-per-run at most 4 or a multiple of 4 up to 8 (a run must fill whole nodes)"
# whole nodes, but more than the system has
sed 's|devices-per-run="5"|devices-per-run="12"|; s|batch="100"|batch="120"|' "$T_TMP/wide.xml" >"$T_TMP/big.xml"
fom_run 1 fom "$T_TMP/big.xml"
expect_err_contains "(a run must fit the system)"
# two whole nodes: the inter-node network is crossed, and testgpu4.xml has none
sed 's|devices-per-run="5"|devices-per-run="8"|; s|batch="100"|batch="160"|' "$T_TMP/wide.xml" >"$T_TMP/two.xml"
fom_run 1 fom "$T_TMP/two.xml"
expect_err_contains "error: system 'four' cannot exchange the gradients of problem 'dp2' over 8 devices: the machine file gives no inter-node network bandwidth"

sed 's| parameters="25000000"||' "$T_TMP/wide.xml" | sed 's|devices-per-run="5"|devices-per-run="2"|' >"$T_TMP/noparams.xml"
fom_run 1 fom "$T_TMP/noparams.xml"
expect_err_contains "$T_TMP/noparams.xml:13: error: problem 'dp2' runs on 2 devices but neither the study nor its profile gives the parameter count, expected parameters=\"N\" on the workload"

sed 's|devices-per-run="5"|devices-per-run="3"|' "$T_TMP/wide.xml" >"$T_TMP/uneven.xml"
fom_run 1 fom "$T_TMP/uneven.xml"
expect_err_contains "$T_TMP/uneven.xml:13: error: found batch='100' over devices-per-run='3', expected a batch that splits evenly over the devices"

sed 's|devices-per-run="5"|devices-per-run="2"|; s|testgpu4.xml|testgpu4-nolink.xml|' "$T_TMP/wide.xml" >"$T_TMP/nolink.xml"
fom_run 1 fom "$T_TMP/nolink.xml"
expect_err_contains "$T_TMP/nolink.xml:6: error: system 'four' cannot exchange the gradients of problem 'dp2' over 2 devices: the machine file gives no intra-node link bandwidth"

done_testing
