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

# A recurrent layer run step by step (PyTorch's CPU GRU: no fused kernel
# below aten::gru) is one forward call of the layer and one backward call
# holding the backward functions of the ops inside it (matched by autograd
# sequence number), as on a GPU, where cuDNN runs the layer.
GRU=profiles/devset/hostcpu/gru_hostcpu_fp32_b16.json.gz
fom_run 0 ingest "$GRU" --format-out json
cp "$OUT" "$T_TMP/gru.json"
if python3 - "$GRU" "$T_TMP/gru.json" >"$T_TMP/gru.check" 2>&1 <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
ops = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
g = [e for e in ops if e["name"] == "aten::gru"]
assert len(g) == 1, len(g)
g = g[0]
inside = {e["args"]["Sequence number"] for e in ops
          if e["tid"] == g["tid"] and g["ts"] <= e["ts"] < g["ts"] + g["dur"]
          and "Sequence number" in e["args"]}
bwd_us = sum(e["dur"] for e in ops
             if e["name"].startswith("autograd::engine::evaluate_function")
             and e["args"].get("Sequence number") in inside)
by = {(o["name"], o["phase"]): o for o in p["ops"]}
f, b = by[("aten::gru", "forward")], by[("aten::gru_backward", "backward")]
assert f["kind"] == b["kind"] == "rnn" and f["count"] == b["count"] == 1, (f, b)
# the profiler's recording cost per event, computed here from the raw
# events: the median span from a parent's start to its first child plus
# the median span from its last child's end to its own end (10 ns bins),
# taken out once per op recorded below the layer's calls
lead, trail = [], []
by_tid = {}
for e in ops:
    by_tid.setdefault(e["tid"], []).append(e)
def below(p, v):
    return [e for e in v if p["ts"] <= e["ts"] and e["ts"] + e["dur"] <= p["ts"] + p["dur"] and e is not p]
desc = {}
for tid, v in by_tid.items():
    v.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack, kids = [], {}
    for e in v:
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
            stack.pop()
        for a in stack:
            desc[id(a)] = desc.get(id(a), 0) + 1
        if stack:
            kids.setdefault(id(stack[-1]), (stack[-1], []))[1].append(e)
        stack.append(e)
    for par, ks in kids.values():
        lead.append(round((ks[0]["ts"] - par["ts"]) * 1000))
        trail.append(round((par["ts"] + par["dur"] - ks[-1]["ts"] - ks[-1]["dur"]) * 1000))
def med_bin(x):
    x = sorted(x)
    return x[(len(x) - 1) // 2] // 10 * 10 / 1000.0
cost_us = med_bin(lead) + med_bin(trail)
want_f = g["dur"] - desc.get(id(g), 0) * cost_us
want_b = sum(e["dur"] - desc.get(id(e), 0) * cost_us for e in ops
             if e["name"].startswith("autograd::engine::evaluate_function")
             and e["args"].get("Sequence number") in inside)
assert 1.5 < cost_us < 10, cost_us
assert abs(f["time_s"] * 1e6 - want_f) <= 0.01 * want_f, (f["time_s"], want_f, cost_us)
assert abs(b["time_s"] * 1e6 - want_b) <= 0.01 * want_b, (b["time_s"], want_b, bwd_us, cost_us)
per_step = [o for o in p["ops"] if o["kind"] == "gemm" and o["count"] >= 128]
assert not per_step, [(o["name"], o["count"]) for o in per_step]
PY
then ok "step-by-step GRU: one forward and one backward rnn call"
else not_ok "step-by-step GRU"; sed 's/^/# /' "$T_TMP/gru.check" | tail -5; fi
fom_run 0 kernels shapes "$GRU" --format csv
if python3 - "$OUT" >"$T_TMP/gru.check" 2>&1 <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "rnn"]
got = [(r["cell"], r["input"], r["hidden"], r["layers"], r["seq"], r["batch"], r["count"])
       for r in rows]
# the layer's two calls (forward and backward) of one shape
assert got == [("gru", "256", "512", "2", "128", "16", "2")], got
PY
then ok "kernels shapes: the GRU layer's forward and backward in the rnn table's terms"
else not_ok "kernels shapes of the GRU"; sed 's/^/# /' "$T_TMP/gru.check" | tail -5; fi

done_testing
