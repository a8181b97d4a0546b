#!/bin/sh
# fom ingest: what each reader concludes from a trace — the kinds of ops and
# kernels, whole step counts, the device of a TF1 timeline, convolution flops
# from tfprof shapes, and the ops inside a torch.compile region.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

P1B3=tests/data/traces/h200/p1b3_h200_fp32_b100.json.gz

# A trace that ends inside its second step: the events after the middle of
# ProfilerStep#2 are removed.  The partial step is left out (with a warning),
# so every count is a whole number of calls per complete step.
python3 - "$P1B3" "$T_TMP/cut.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
steps = sorted((e for e in d["traceEvents"] if e.get("cat") == "user_annotation"
                and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
cut = float(steps[-1]["ts"]) + float(steps[-1]["dur"]) / 2
d["traceEvents"] = [e for e in d["traceEvents"] if "ts" not in e or float(e["ts"]) <= cut]
json.dump(d, open(sys.argv[2], "w"))
PY
fom_run 0 ingest "$T_TMP/cut.json" --format-out json
expect_json_num 'd["steps"]' 1 0
expect_json_num 'all(o["count"] == int(o["count"]) for o in d["ops"])' 1 0
expect_err_contains "warning: the last profiled step holds"
# the complete first step alone gives the counts of the whole trace's step
fom_run 0 ingest "$P1B3" --format-out json
cp "$OUT" "$T_TMP/whole.json"
fom_run 0 ingest "$T_TMP/cut.json" --format-out json
if python3 - "$T_TMP/whole.json" "$OUT" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
ca = sorted((o["name"], o["count"]) for o in a["ops"] if o["kind"] == "gemm")
cb = sorted((o["name"], o["count"]) for o in b["ops"] if o["kind"] == "gemm")
sys.exit(0 if ca == cb else 1)
PY
then ok "cut trace: gemm counts per step equal the whole trace's"; else not_ok "cut trace gemm counts differ"; fi

# HTA's MI250 trace stops 49 us into ProfilerStep#2, before any op of it
fom_run 0 ingest tests/data/traces/third-party/kineto_amd_mi250_minitoy_record_shapes.json.gz --format-out json
expect_json_num 'd["steps"]' 1 0
expect_json_num 'all(o["count"] == int(o["count"]) and o["count"] >= 1 for o in d["ops"])' 1 0
expect_err_contains "holds 0 op calls against 70 in the step before"

# TF1 timeline with kernels on /gpu:0 stream lanes: a device profile
fom_run 0 ingest tests/data/tfprof/tf1_timeline_gpu_matmul.json
expect_out_contains "device:      /gpu:0"
fom_run 0 ingest tests/data/tfprof/tf1_timeline_gpu_matmul.json --format-out json
expect_json_num 'd["device"] == "/gpu:0" and d["has_device"]' 1 0

# tfprof Conv2D rows with input shapes (tensorflow tfprof_show_test.cc): the
# row's 10.44k float_ops fit stride 2 with SAME padding, so
#   [2,3,3,6] * [2,2,6,12]: out 2x2 -> 2*2*12*6*2*2*2*2 = 4608
#   [2,6,6,3] * [3,3,3,6]:  out 3x3 -> 2*2*6*3*3*3*3*3 = 5832
fom_run 0 ingest tests/data/tfprof/tfprof_op_view_input_shapes_example.txt --format-out json
expect_json_num '[o["flops"] for o in d["ops"] if o["conv"]["c"] == 6][0]' 4608 0
expect_json_num '[o["flops"] for o in d["ops"] if o["conv"]["c"] == 3][0]' 5832 0
expect_json_num 'all(o["conv"]["stride_h"] == 2 for o in d["ops"])' 1 0
# without the row's float_ops: Keras's defaults (stride 1, VALID), flagged
sed 's/10.44k float_ops/0 float_ops/' tests/data/tfprof/tfprof_op_view_input_shapes_example.txt \
    >"$T_TMP/noflops.txt"
fom_run 0 ingest "$T_TMP/noflops.txt" --format tfprof --format-out json
#   [2,6,6,3] * [3,3,3,6] VALID stride 1: out 4x4 -> 2*2*6*3*3*3*4*4 = 10368
expect_json_num '[o["flops"] for o in d["ops"] if o["conv"]["c"] == 3][0]' 10368 0
expect_json_num 'all("conv-stride-assumed" in o["flags"] for o in d["ops"])' 1 0

# torch.compile: the kernel under "Torch-Compiled Region" belongs to the
# Triton pointwise op that launched it, not to the region
fom_run 0 ingest tests/data/traces/third-party/kineto_a100_triton_example.json.gz --format-out json
expect_json_num '[o["kind"] for o in d["ops"] if o["name"].startswith("triton_poi_")][0] == "elementwise"' 1 0
expect_json_num 'any(o["name"].startswith("Torch-Compiled Region") for o in d["ops"])' 0 0
# the same region without the Triton op: its kernel, claimed by no op, is
# classed by its name (an Inductor pointwise kernel), not left to the region
python3 - tests/data/traces/third-party/kineto_a100_triton_example.json.gz "$T_TMP/region.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"]
                    if not (e.get("cat") == "cpu_op" and e["name"].startswith("triton_"))]
json.dump(d, open(sys.argv[2], "w"))
PY
fom_run 0 ingest "$T_TMP/region.json" --format-out json
expect_json_num '[o["kind"] for o in d["ops"] if o["name"].startswith("triton_poi_")][0] == "elementwise"' 1 0
expect_json_num 'any(o["name"].startswith("Torch-Compiled Region") for o in d["ops"])' 0 0

done_testing
