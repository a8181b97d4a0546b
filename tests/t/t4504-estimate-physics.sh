#!/bin/sh
# What an estimate rests on beyond the tables' rows: the precision an fp32
# op ran at (its kernels' names) or is said to run at (--cudnn-tf32), the
# framework's defaults where a trace cannot say (foreach optimizers on a
# GPU), the share of a measured time that the bandwidth ratio moves, and which candidate wins
# past a table's measured sizes.  Each check is computed here from the
# trace, the machine files or the tables, not from fom's own figures.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

H100=machines/h100-sxm5-80gb.xml
TF32=profiles/devset/h100/unet3d_h100_fp32_b4.json.gz
IEEE=tests/data/validate/runs/h200/resnet50_h200_fp32_b64.json.gz
CPU=profiles/devset/hostcpu/segnet_hostcpu_fp32_b1.json.gz
# rows timed one call at a time with cuDNN autotuning (the harness's first
# timing; the shipped tables are all queued now)
PERCALL=tests/data/kernels/h200-percall
# machine files whose only other table (beside them, as shipped tables
# are) is that per-call one
MF="$T_TMP/mf"
mkdir -p "$MF/machines" "$MF/estimators"
cp machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml "$MF/machines/"
cp -r "$PERCALL" "$MF/estimators/h200"

# An fp32 op whose kernels are named for TF32 ran as TF32: the reader says
# tf32 for a trace that has such kernels and for no op of one without.
for t in "$TF32" "$IEEE"; do
    fom_run 0 ingest "$t" --format-out json
    if python3 - "$t" "$OUT" <<'PY'
import gzip, json, sys
raw = json.load(gzip.open(sys.argv[1]))
has = any(e.get("cat") == "kernel" and "tf32" in e.get("name", "") for e in raw["traceEvents"])
p = json.load(open(sys.argv[2]))
conv = [o for o in p["ops"] if o["kind"] == "conv"]
tf32 = [o for o in conv if o["dtype"] == "tf32"]
assert conv
# the largest convolution of a TF32 trace ran as TF32; no op of an IEEE one did
big = max(conv, key=lambda o: o["time_s"])
assert (big["dtype"] == "tf32") == has and (len(tf32) > 0) == has, (has, len(tf32), big["dtype"])
assert not any(o["dtype"] == "tf32" for o in p["ops"]) or has
PY
    then ok "$t: tf32 ops exactly where the kernels are named for TF32"
    else not_ok "$t: tf32 ops do not follow the kernels' names"; fi
done

# A CPU trace on a GPU: its fp32 convolutions run as IEEE fp32, as the
# tables' fp32 rows, said once with the way to PyTorch's default;
# --cudnn-tf32 runs them (and nothing else) as TF32.  Its per-parameter
# optimizer ops are the foreach form, one dispatch per 48 tensors (not one
# per parameter tensor).
fom_run 0 estimate --profile "$CPU" --machine "$H100" --kernels estimators/h100 --format json
cp "$OUT" "$T_TMP/cpu.json"
fom_run 0 estimate --profile "$CPU" --machine "$H100" --kernels estimators/h100 --format json --cudnn-tf32
cp "$OUT" "$T_TMP/cpu-tf32.json"
fom_run 0 machine show "$H100" --format json
cp "$OUT" "$T_TMP/h100.json"
if python3 - "$T_TMP/cpu.json" "$T_TMP/cpu-tf32.json" "$T_TMP/h100.json" <<'PY'
import json, math, sys
e = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
m = json.load(open(sys.argv[3]))
assert e["cudnn_tf32"] is False and t["cudnn_tf32"] is True
conv = [o for o in e["ops"] if o["kind"] == "conv"]
assert conv and all(o["precision"] == "fp32" for o in e["ops"] if o["precision"]), \
    sorted({o["precision"] for o in e["ops"]})
assert sum("taken as IEEE fp32" in w and "--cudnn-tf32" in w for w in e["warnings"]) == 1, e["warnings"]
assert all(o["precision"] == "tf32" for o in t["ops"] if o["kind"] == "conv")
assert all(o["precision"] != "tf32" for o in t["ops"] if o["kind"] != "conv")
assert not any("taken as IEEE fp32" in w for w in t["warnings"]), t["warnings"]
# TF32 runs on faster units than IEEE fp32: the convolutions take less time
ct = lambda d: sum(o["device_time_s"] * o["count"] for o in d["ops"] if o["kind"] == "conv")
assert ct(t) < ct(e), (ct(t), ct(e))
opt = [o for o in e["ops"] if o["phase"] == "optimizer" and o["kind"] == "elementwise" and o["count"] > 1]
assert opt
for o in opt:
    want = math.ceil(o["count"] / 48) * m["dispatch_s"]
    assert abs(o["host_time_s"] - want) <= 1e-9 * want, (o["name"], o["count"], o["host_time_s"], want)
PY
then ok "CPU trace on a GPU: convolutions IEEE fp32, TF32 with --cudnn-tf32; optimizer ops as foreach launches"
else not_ok "CPU trace on a GPU: precision or optimizer dispatch"; fi

# A GPU trace whose kernels show cuDNN's TF32 on: --cudnn-tf32 describes
# that run and changes no op; one that ran IEEE throughout moves its
# convolutions to TF32 with it.  A target without TF32 units is refused.
for t in "$TF32" "$IEEE"; do
    fom_run 0 estimate --profile "$t" --machine "$H100" --kernels estimators/h100 --format json
    cp "$OUT" "$T_TMP/plain.json"
    fom_run 0 estimate --profile "$t" --machine "$H100" --kernels estimators/h100 --format json --cudnn-tf32
    if python3 - "$T_TMP/plain.json" "$OUT" "$t" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
ran_tf32 = any(o["precision"] == "tf32" for o in a["ops"] if o["kind"] == "conv")
assert ran_tf32 == ("unet3d" in sys.argv[3]), ran_tf32
changed = [(x["name"], x["precision"], y["precision"]) for x, y in zip(a["ops"], b["ops"])
           if x["precision"] != y["precision"]]
if ran_tf32:
    assert not changed and a["pass_time_s"] == b["pass_time_s"], changed[:3]
else:
    assert changed and all(k == "conv" for k in {o["kind"] for x, o in zip(a["ops"], b["ops"])
                                                   if x["precision"] != o["precision"]})
    assert all(y == "tf32" for _, _, y in changed)
PY
    then ok "$t: --cudnn-tf32 changes exactly the convolutions that ran IEEE in a run with TF32 off"
    else not_ok "$t: --cudnn-tf32 on a GPU trace"; fi
done
fom_run 2 estimate --profile "$CPU" --machine machines/xeon-host-16c.xml --cudnn-tf32
expect_err_contains "error: --cudnn-tf32: 'machines/xeon-host-16c.xml' is not a GPU with TF32 units"

# Past the H100 norm rows' largest batch (64) a bf16 batch norm keeps
# their rate, a scaled measurement (distance 2.5), rather than the
# efficiency model, when no other GPU's rows are shipped beside the
# machine file; in the shipped tree the H200's rows at its size win
# (distance 2: a peer row at the op's size beats the target's rate
# carried past its rows), and the warning names both.  From the machine
# file alone, beside no queued table, the efficiency model gives it the
# bandwidth other machines' norm rows achieve, far below a copy's.
MOB=profiles/devset/hostcpu/mobilenetv2_hostcpu_fp32_b8.json.gz
ALONE="$T_TMP/h100alone"
mkdir -p "$ALONE/machines" "$ALONE/estimators"
cp "$H100" "$ALONE/machines/"
cp -r estimators/h100 "$ALONE/estimators/"
fom_run 0 estimate --profile "$MOB" --machine "$ALONE/machines/h100-sxm5-80gb.xml" \
    --kernels "$ALONE/estimators/h100" --precision bf16 --batch 128 --profile-batch 8 --format json
expect_json_num 'max((o for o in d["ops"] if o["kind"] == "norm"), key=lambda o: o["bytes"])["distance"]' 2.5 0
expect_json_num 'max((o for o in d["ops"] if o["kind"] == "norm"), key=lambda o: o["bytes"])["method"] == "table-interp"' 1 0
fom_run 0 estimate --profile "$MOB" --machine "$H100" --kernels estimators/h100 --precision bf16 \
    --batch 128 --profile-batch 8 --format json
expect_json_num 'max((o for o in d["ops"] if o["kind"] == "norm"), key=lambda o: o["bytes"])["distance"]' 2 0
expect_json_num 'max((o for o in d["ops"] if o["kind"] == "norm"), key=lambda o: o["bytes"])["method"] == "scaled-table"' 1 0
expect_err_contains "ops that the tables of 'h100-sxm5-80gb' do not reach"
expect_err_contains "and 'NVIDIA H200' rows measure at their shape"
fom_run 0 estimate --profile "$MOB" --machine "$MF/machines/h100-sxm5-80gb.xml" --precision bf16 --batch 128 \
    --profile-batch 8 --format json
if python3 - "$OUT" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
assert e["efficiency_model"]
def rate(o):
    return o["bytes"] / o["device_time_s"]
norm = max((o for o in e["ops"] if o["kind"] == "norm" and o["phase"] == "backward"), key=lambda o: o["bytes"])
copy = max((o for o in e["ops"] if o["kind"] == "elementwise" and o["method"] == "efficiency"), key=lambda o: o["bytes"])
assert norm["method"] == "efficiency", norm["method"]
assert rate(norm) < 0.5 * rate(copy), (rate(norm), rate(copy))
PY
then ok "machine file alone: a bf16 batch norm's backward below half a copy's bandwidth"
else not_ok "machine file alone: the norm runs at a copy's bandwidth"; fi

# H200 -> H100 with both tables: a kernel that moved its bytes at a small
# share f of the H200's bandwidth moves by the bandwidth ratio only for
# that share, the rest by the fp32 peaks' ratio, 1 here: within 3f of 1,
# where the whole time moving by 4.8/3.35 would be 1.43.  Convolutions
# move by the two tables' rows when both used cuDNN's default choice, by
# the peaks when one table's rows were autotuned (a per-call fixture).
U=profiles/devset/h200/unet3d_h200_bf16_b8.json.gz
fom_run 0 estimate --profile "$U" --machine "$H100" --kernels estimators/h100 --kernels estimators/h200 --format json
cp "$OUT" "$T_TMP/u.json"
fom_run 0 estimate --profile "$U" --machine "$H100" --kernels estimators/h100 --kernels "$PERCALL" --format json
cp "$OUT" "$T_TMP/u-auto.json"
fom_run 0 machine show machines/hgx-h200-8gpu.xml --format json
cp "$OUT" "$T_TMP/h200.json"
if python3 - "$T_TMP/u.json" "$T_TMP/h200.json" "$T_TMP/h100.json" "$T_TMP/u-auto.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
auto = json.load(open(sys.argv[4]))
bw0 = json.load(open(sys.argv[2]))["main_memory_bw_bs"]
bw1 = json.load(open(sys.argv[3]))["main_memory_bw_bs"]
ops = [o for o in e["ops"] if o["kind"] == "norm" and o["method"] == "scaled-table"
       and o["bytes"] / bw0 / o["measured_time_s"] < 0.05]
assert ops
for o in ops:
    # the bandwidth ratio (4.8/3.35, or the tables' rows') moves f of it
    f = o["bytes"] / bw0 / o["measured_time_s"]
    assert abs(o["ratio"] - 1) <= 3 * f, (o["name"], o["ratio"], f, bw0 / bw1)
assert not any(w.startswith("convolution rows of 'NVIDIA H200' were timed with cuDNN's autotuned") for w in e["warnings"])
assert any(o["method"] == "scaled-table" for o in e["ops"] if o["kind"] == "conv")
assert any(w.startswith("convolution rows of 'NVIDIA H200' were timed with cuDNN's autotuned") for w in auto["warnings"])
assert all(o["method"] != "scaled-table" for o in auto["ops"] if o["kind"] == "conv")
PY
then ok "H200 -> H100: off-roofline norms move by their bandwidth share; convolutions of differently chosen algorithms by the peaks"
else not_ok "H200 -> H100: norm ratios or convolution method"; fi

# Rows timed one call at a time (an env.json without "timing") hold a recurrent layer's launches: its recurrent times are
# said to be upper bounds; the H100's queued rows are not.
GRU=profiles/devset/hostcpu/gru_hostcpu_fp32_b16.json.gz
fom_run 0 estimate --profile "$GRU" --machine machines/h200-sxm-141gb.xml --kernels "$PERCALL" \
    --precision bf16 --batch 128 --profile-batch 16
expect_err_contains "recurrent rows of 'NVIDIA H200' were timed one call at a time"
fom_run 0 estimate --profile "$GRU" --machine "$H100" --kernels estimators/h100 \
    --precision bf16 --batch 128 --profile-batch 16
if grep -q "recurrent rows" "$ERR"; then not_ok "H100 queued rows called upper bounds"; else ok "H100 queued rows: no upper-bound note"; fi

# Retargeted to bf16, a run is under autocast: the ops it keeps in fp32
# (group norm, log_softmax and their backward ops) stay fp32, and the
# casts it adds, followed through the step's calls, are the parameters'
# (each convolution's weight and bias once, cast down and their gradients
# back: the SegNet's layers are distinct) and the activations' where
# autocast's rules put them: the fp32 input batch into the first
# convolution, both sides of a group norm (a low-precision input cast up,
# its fp32 output cast down by the convolution after it), none for
# log_softmax (it takes an fp32 output type) and the nll_loss after it,
# at the target batch.
fom_run 0 ingest "$CPU" --format-out json
cp "$OUT" "$T_TMP/seg.json"
fom_run 0 estimate --profile "$CPU" --machine "$H100" --kernels estimators/h100 --precision bf16 \
    --batch 16 --profile-batch 1 --format json
if python3 - "$T_TMP/seg.json" "$OUT" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
def numel(shapes, i):
    groups = [g for g in shapes.split("]") if g.strip(", ")]
    dims = [int(x) for x in groups[i].strip(", [").split(",") if x.strip()]
    return math.prod(dims) if dims else 0
def base(n):
    return n.split("::")[-1]
assert not any(o["kind"] == "gemm" for o in p["ops"])
bytes_, casts = 0.0, 0
for o in p["ops"]:
    if o["phase"] != "forward":
        continue
    if o["kind"] == "conv":
        w = numel(o["shapes"], 1)
        k = int(o["shapes"].split("[")[2].split(",")[0])
        t = 2 if numel(o["shapes"], 2) == k else 1
        bytes_ += o["count"] * 2 * (w + (k if t == 2 else 0)) * 6
        casts += o["count"] * 2 * t
    elif base(o["name"]) == "group_norm":
        bytes_ += o["count"] * 2 * 2 * numel(o["shapes"], 0) * 16 * 6
        casts += o["count"] * 2 * 2
    elif "to-fp32" in (o["flags"] or ""):
        # the step's output.float(): a no-op in fp32, a cast of the last
        # convolution's bf16 output (and of its gradient back) under autocast
        bytes_ += o["count"] * 2 * numel(o["shapes"], 0) * 16 * 6
        casts += o["count"] * 2
by_id = {o["id"]: o for o in p["ops"]}
first = next(by_id[c[0]] for c in p["calls"] if by_id[c[0]]["kind"] == "conv")
bytes_ += 2 * numel(first["shapes"], 0) * 16 * 6
casts += 2
c = [o for o in e["ops"] if o["name"] == "(autocast casts)"]
assert len(c) == 1 and c[0]["count"] == casts, (c, casts)
assert abs(c[0]["bytes"] - bytes_) <= 1e-9 * bytes_, (c[0]["bytes"], bytes_)
fp32 = [o for o in e["ops"] if "group_norm" in o["name"] or "log_softmax" in o["name"]]
assert len(fp32) >= 3 and all(o["precision"] == "fp32" for o in fp32), [(o["name"], o["precision"]) for o in fp32]
assert all(o["precision"] == "bf16" for o in e["ops"] if o["kind"] == "conv")
PY
then ok "autocast: its fp32 ops stay fp32, casts of parameters, boundary activations and explicit .float() added"
else not_ok "autocast: fp32-list ops or casts"; fi

# A convolution larger than every row of its kind (a batch of 16 at
# 256 x 256, past the rows' largest N*P*Q) keeps at most the best rate of
# the rows near it (as implicit GEMMs: output channels 32 to 128 and
# c*r*s 288 to 576 around its 64 and 576, at most 207 TFLOP/s); the plane
# fit's tilt would carry it to 244.  It is a scaled measurement, not the
# efficiency model.
if python3 - "$OUT" estimators/h100/h100_conv.csv <<'PY'
import csv, json, sys
e = json.load(open(sys.argv[1]))
def near(r):
    crs = int(r["c"]) * int(r["f_h"]) * int(r["f_w"])
    return 32 <= int(r["k"]) <= 128 and 288 <= crs <= 576
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["precision"] == "bf16" and r["pass"] == "fwd"
        and r["dims"] == "2" and r["groups"] == "1" and r["stride_h"] == "1" and near(r)]
def rate(r):
    p = int(r["h"]) + 2 * int(r["pad_h"]) - int(r["f_h"]) + 1
    q = int(r["w"]) + 2 * int(r["pad_w"]) - int(r["f_w"]) + 1
    return 2 * int(r["n"]) * int(r["k"]) * int(r["c"]) * int(r["f_h"]) * int(r["f_w"]) * p * q / (float(r["time_us"]) * 1e-6)
best = max(rate(r) for r in rows)
big = [o for o in e["ops"] if o["kind"] == "conv" and o["phase"] == "forward" and o["flops"] > 7e10]
assert big
for o in big:
    assert o["method"] == "table-interp" and o["lookup"] == "extrap", (o["method"], o["lookup"])
    assert o["flops"] / o["device_time_s"] <= best * 1.0001, (o["flops"] / o["device_time_s"], best)
PY
then ok "a convolution past the rows keeps their best rate, as a scaled measurement"
else not_ok "a convolution past the rows: method or rate"; fi

# A dense 3-D convolution of 5x5x5 filters (the V-Net's) against 3-D rows
# of 1x1x1 and 3x3x3 filters only: no row measures its filter, so its
# fp32 (TF32) measurement moves to bf16 by the machine's peaks (scaled),
# never slower, not by the ratio of two tables' rows of other filters
# (scaled-table), and the estimate counts them.  The same rows relabelled
# as 5x5x5 ones measure that filter: the table's ratio moves them again.
VN=profiles/devset/h200/vnet_h200_fp32_b4.json.gz
for with5 in 0 1; do
    K="$T_TMP/k3d$with5"
    mkdir -p "$K"
    cp estimators/h200/*.csv estimators/h200/env.json "$K/"
    python3 - "$K/h200_conv_3d.csv" "$with5" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keep = [r for r in rows if r["f_d"] in ("1", "3")]
if sys.argv[2] == "1":
    for r in [r for r in keep if r["f_d"] == "3" and r["stride_d"] == "1"]:
        r5 = dict(r)
        for ax in "dhw":
            r5["f_" + ax], r5["pad_" + ax] = "5", "2"
        keep.append(r5)
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0].keys()))
w.writeheader()
w.writerows(keep)
PY
    fom_run 0 estimate --profile "$VN" --machine machines/h200-sxm-141gb.xml --profile-batch 4 \
        --kernels "$K" --precision bf16 --format json
    if python3 - "$OUT" "$with5" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))
with5 = sys.argv[2] == "1"
five = [o for o in e["ops"] if o["kind"] == "conv" and o["measured_time_s"] > 0
        and o["flops"] > 0 and o["method"] != "measured"]
said = [w for w in e["warnings"] if "have filter volumes that no table row" in w]
# the V-Net's convolutions are all 5x5x5 but its 2x2x2 strided ones (their
# own filter volume, 8, lies between the rows' 1 and 27)
unmeasured = [o for o in five if o["method"] == "scaled"]
assert len(unmeasured) >= 10 or with5, len(unmeasured)
if with5:
    assert not said, said
    assert not unmeasured, [(o["name"], o["method"]) for o in unmeasured]
else:
    n = int(re.match(r"(\d+) convolution", said[0]).group(1))
    assert n == len(unmeasured), (n, len(unmeasured))
    for o in unmeasured:
        assert o["device_time_s"] <= o["measured_time_s"] * 1.0001, (o["name"], o["ratio"])
PY
    then ok "5x5x5 convolutions: rows of other filters ($with5: with rows of their own) decide the method"
    else not_ok "5x5x5 convolutions and the filters the rows measure ($with5)"; fi
done

# GEMMs past every row of the H200's table in bf16, from a host-CPU trace:
# a batched product of 126,976 [1 x 64] by [64 x 64] matrices (one
# kernel, memory-bound: its 1 GB second operand) and a 16,777,216 x 4096
# x 128 product (the tall rows end at 2^23 rows; at 126,976 rows it now
# lies among them, interpolated from products measured at 1.4 to 1.8
# times their bandwidth bound).  Past the rows they run at the rate of an aligned cube GEMM
# of the same work or at the bandwidth, whichever is slower: within twice
# the roofline of the machine file (989.4 TFLOP/s bf16 matrix, 4.8 TB/s),
# not at the rate of 126,976 launches of a tiny cube (seconds) or of an
# unaligned cube's slow kernels (ten times the roofline).
python3 - "$T_TMP/gemm-past.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 9000}]
ops = [("aten::bmm", [[126976, 1, 64], [126976, 64, 64]]), ("aten::mm", [[16777216, 128], [128, 4096]])]
for i, (name, dims) in enumerate(ops):
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 10 + 3000 * i, "dur": 2000,
               "args": {"External id": 10 + i, "Input Dims": dims, "Input type": ["float", "float"]}})
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
fom_run 0 estimate --profile "$T_TMP/gemm-past.json" --machine machines/h200-sxm-141gb.xml \
    --kernels estimators/h200 --precision bf16 --format json
if python3 - "$OUT" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
got = {o["name"]: o for o in e["ops"] if o["name"] in ("aten::bmm", "aten::mm")}
assert len(got) == 2, list(got)
for o in got.values():
    roof = max(o["flops"] / 989.4e12, o["bytes"] / 4.8e12)
    assert roof <= o["device_time_s"] * 1.0001 <= 2 * roof * 1.0001, (o["name"], o["device_time_s"], roof)
PY
then ok "GEMMs past the rows: at an aligned cube's rate or the bandwidth, within twice the roofline"
else not_ok "GEMMs past the rows: far off their roofline"; fi

# A recurrent layer of rows timed one call at a time (each time step's
# launch gap in them) is held to what another GPU's rows measure at the
# same shape, times the largest of the two machines' spec ratios (peaks
# of the precision, bandwidth, launch latency): the H200 and H100 share
# one die, so an H200 layer is no slower than the H100's row.  With no
# other table at hand (a machine file alone in its folder) nothing holds
# it.  On a GPU each call of a CPU trace's layer pays, beside its dispatch,
# cuDNN's loop on the host: the machine's measured host time per layer,
# direction and step of the op's pass; a machine file without it pays each
# of layers x directions x (2 x steps + 1) launches at its launch latency.
fom_run 0 ingest "$GRU" --format-out json
cp "$OUT" "$T_TMP/gru.json"
fom_run 0 estimate --profile "$GRU" --machine machines/h200-sxm-141gb.xml --kernels "$PERCALL" \
    --precision bf16 --batch 128 --profile-batch 16 --format json
cp "$OUT" "$T_TMP/e200.json"
fom_run 0 estimate --profile "$GRU" --machine "$H100" --kernels estimators/h100 \
    --precision bf16 --batch 128 --profile-batch 16 --format json
cp "$OUT" "$T_TMP/e100.json"
if grep -q "recurrent op(s) of the CPU trace" "$ERR"; then not_ok "launch fallback said where the machine gives the steps"
else ok "machine with the recurrent steps: no launch fallback said"; fi
mkdir -p "$T_TMP/alone"
cp machines/h200-sxm-141gb.xml "$T_TMP/alone/"
fom_run 0 estimate --profile "$GRU" --machine "$T_TMP/alone/h200-sxm-141gb.xml" --kernels "$PERCALL" \
    --precision bf16 --batch 128 --profile-batch 16 --format json
cp "$OUT" "$T_TMP/ealone.json"
fom_run 0 machine show machines/h200-sxm-141gb.xml --format json
cp "$OUT" "$T_TMP/m200.json"
mkdir -p "$T_TMP/nostep"
sed 's/ rnn-forward-step="[^"]*"//; s/ rnn-backward-step="[^"]*"//' "$H100" >"$T_TMP/nostep/h100.xml"
fom_run 0 estimate --profile "$GRU" --machine "$T_TMP/nostep/h100.xml" --kernels estimators/h100 \
    --precision bf16 --batch 128 --profile-batch 16 --format json
cp "$OUT" "$T_TMP/enostep.json"
expect_err_contains "2 recurrent op(s) of the CPU trace: machine 'h100-sxm5-80gb' gives no rnn-forward-step or rnn-backward-step"
if python3 - "$T_TMP/gru.json" "$T_TMP/e200.json" "$T_TMP/e100.json" "$T_TMP/ealone.json" "$T_TMP/h100.json" \
    "$T_TMP/m200.json" "$T_TMP/enostep.json" <<'PY'
import json, sys
prof, e200, e100, alone, m100, m200, nostep = (json.load(open(a)) for a in sys.argv[1:])
def rnn(e):
    return {o["phase"]: o for o in e["ops"] if o["kind"] == "rnn"}
def peak(m):
    return max(p["flops"] for p in m["peaks"] if p["precision"] in ("bf16", "fp16"))
hi = max(peak(m100) / peak(m200), m100["main_memory_bw_bs"] / m200["main_memory_bw_bs"],
         m200["launch_latency_s"] / m100["launch_latency_s"])
a, b, c = rnn(e200), rnn(e100), rnn(alone)
assert set(a) == {"forward", "backward"} == set(b) == set(c)
for ph in a:
    assert "peer-table" in a[ph]["limits"], a[ph]["limits"]
    assert a[ph]["device_time_s"] <= b[ph]["device_time_s"] * hi * (1 + 1e-9), (ph, a[ph]["device_time_s"], b[ph]["device_time_s"])
    assert "peer-table" not in c[ph]["limits"] and c[ph]["device_time_s"] > a[ph]["device_time_s"] * 1.5
assert e200["limits_fired"]["peer-table"] == 2 and alone["limits_fired"]["peer-table"] == 0
n = 0
for o in prof["ops"]:
    if o["kind"] != "rnn":
        continue
    dirs = 2 if o["kflag"] > 0 else 1
    step = m100["rnn_backward_step_s" if o["phase"] == "backward" else "rnn_forward_step_s"]
    assert step and step > m100["launch_latency_s"], step
    want = o["count"] * (m100["dispatch_s"] + o["kdim_2"] * dirs * o["kdim_3"] * step)
    got = b[o["phase"]]["host_time_s"]
    assert abs(got - want) <= 1e-9 * want, (o["phase"], got, want)
    launches = o["kdim_2"] * dirs * (2 * o["kdim_3"] + 1)
    want = o["count"] * (m100["dispatch_s"] + launches * m100["launch_latency_s"])
    got = rnn(nostep)[o["phase"]]["host_time_s"]
    assert abs(got - want) <= 1e-9 * want, (o["phase"], got, want)
    n += 1
assert n == 2
assert m200["rnn_forward_step_s"] > 0 and m200["rnn_backward_step_s"] > 0
PY
then ok "recurrent layers: per-call rows held to another GPU's, cuDNN's host loop per step (or per launch) paid on the host"
else not_ok "recurrent layers: peer limit or host loop time"; fi

# The same per-call rows change a recurrent layer's precision on its own
# device by a ratio that keeps each step's launch gap (an H200 LSTM row's
# bf16/fp32 ratio is 0.3 to 1.2): the layer changes by the ratio of another
# GPU's queued rows instead, said in a warning.  Its ratio lies among the
# H100 rows' bf16/fp32 ratios around its shape (hidden and input 256 to
# 1024, 32 to 128 steps, 2 layers, batch 64); with no other table at hand
# it is the H200 rows' own.
LSTM=tests/data/validate/runs/h200/lstm_h200_fp32_b64.json.gz
fom_run 0 estimate --profile "$LSTM" --machine machines/h200-sxm-141gb.xml --kernels "$PERCALL" \
    --precision bf16 --format json
expect_err_contains "recurrent layers of 'NVIDIA H200' change precision or batch by the ratio of 'NVIDIA H100 80GB HBM3' rows"
cp "$OUT" "$T_TMP/l200.json"
fom_run 0 estimate --profile "$LSTM" --machine "$T_TMP/alone/h200-sxm-141gb.xml" --kernels "$PERCALL" \
    --precision bf16 --format json
cp "$OUT" "$T_TMP/lalone.json"
if grep -q "change precision or batch by the ratio" "$ERR"; then not_ok "per-call rows alone: a peer ratio claimed"
else ok "per-call rows alone: no peer ratio"; fi
if python3 - "$T_TMP/l200.json" "$T_TMP/lalone.json" estimators/h100/h100_rnn.csv <<'PY'
import csv, json, sys
peer = {o["phase"]: o for o in json.load(open(sys.argv[1]))["ops"] if o["kind"] == "rnn"}
alone = {o["phase"]: o for o in json.load(open(sys.argv[2]))["ops"] if o["kind"] == "rnn"}
rows = {}
for r in csv.DictReader(open(sys.argv[3])):
    if r["cell"] == "lstm" and r["layers"] == "2" and r["bidirectional"] == "0" and r["batch"] == "64":
        rows[(r["input"], r["hidden"], r["seq"], r["pass"], r["precision"])] = float(r["time_us"])
ratios = [t / rows[k[:4] + ("fp32",)] for k, t in rows.items()
          if k[4] == "bf16" and k[:4] + ("fp32",) in rows and k[1] in ("256", "1024") and k[2] in ("32", "128")]
assert len(ratios) >= 8
assert set(peer) == {"forward", "backward"} == set(alone)
for ph in peer:
    assert peer[ph]["method"] == "scaled-table"
    assert min(ratios) <= peer[ph]["ratio"] <= max(ratios), (ph, peer[ph]["ratio"], min(ratios), max(ratios))
    assert abs(alone[ph]["ratio"] - peer[ph]["ratio"]) > 0.05, (ph, alone[ph]["ratio"], peer[ph]["ratio"])
PY
then ok "per-call recurrent rows: precision changes by another GPU's rows' ratio"
else not_ok "per-call recurrent rows: ratio of the precision change"; fi

# A GPU known only from its file (no table of its own): an op that another
# GPU's queued rows measure at its shape moves from that row by the two
# machines' specs (matrix ops by the peaks of their precision, the others
# between the bandwidth ratio and the fp32 vector peaks' ratio), a scaled
# measurement said in a warning.  Per-call rows teach an H100 nothing
# this way.
MOB=profiles/devset/hostcpu/mobilenetv2_hostcpu_fp32_b8.json.gz
fom_run 0 estimate --profile "$MOB" --machine machines/h200-sxm-141gb.xml --precision bf16 --batch 64 \
    --profile-batch 8 --format json
expect_err_contains "no table for 'h200-sxm-141gb': ops that 'NVIDIA H100 80GB HBM3' rows measure at their shape"
cp "$OUT" "$T_TMP/mf200.json"
fom_run 0 estimate --profile "$MOB" --machine "$MF/machines/h100-sxm5-80gb.xml" --precision bf16 --batch 64 \
    --profile-batch 8 --format json
cp "$OUT" "$T_TMP/mf100.json"
if python3 - "$T_TMP/mf200.json" "$T_TMP/mf100.json" "$T_TMP/h100.json" "$T_TMP/m200.json" <<'PY'
import json, sys
e200, e100, m100, m200 = (json.load(open(a)) for a in sys.argv[1:])
def peak(m, prec, units):
    return max(p["flops"] for p in m["peaks"] if p["precision"] == prec and p["unit"] in units)
bw = m100["main_memory_bw_bs"] / m200["main_memory_bw_bs"]
core = peak(m100, "fp32", ("vector",)) / peak(m200, "fp32", ("vector",))
lo, hi = min(bw, core), max(bw, core)
moved = [o for o in e200["ops"] if o["method"] == "scaled-table"]
assert len(moved) >= 10 and any(o["kind"] == "conv" for o in moved) and any(o["kind"] == "norm" for o in moved)
for o in moved:
    if o["kind"] in ("gemm", "conv", "attention", "rnn"):
        want = peak(m100, o["precision"], ("vector", "matrix")) / peak(m200, o["precision"], ("vector", "matrix"))
        assert abs(o["ratio"] - want) <= 1e-9, (o["name"], o["ratio"], want)
    else:
        assert lo * (1 - 1e-9) <= o["ratio"] <= hi * (1 + 1e-9), (o["name"], o["ratio"], lo, hi)
assert not any(o["method"] == "scaled-table" for o in e100["ops"])
assert not any("rows measure at their shape" in w for w in e100["warnings"])
PY
then ok "machine file alone: ops another GPU's queued rows measure move from them by the specs"
else not_ok "machine file alone: ops moved from another GPU's rows"; fi

# A host-CPU trace's host time on a GPU says what it rests on: the
# machine's dispatch times each class's weight per call, the classes and
# the recurrent layers' loops adding up to the host time; a GPU trace's
# host time is its own (null).
fom_run 0 estimate --profile "$GRU" --machine machines/h100-sxm5-80gb.xml --kernels estimators/h100 --format json
expect_json_num 'd["host_basis"]["dispatch_s"]' 13.5e-6 1e-9
# the calls of the passes take the pass's repetition, (calls per op record
# / 3.87)^-0.129, in their weights; the optimizer's do not
expect_json_num 'abs(d["host_basis"]["repeat_scale"] - (d["host_basis"]["calls_per_op_record"] / 3.87) ** -0.129) < 1e-12' 1 0
expect_json_num 'all(abs(d["host_basis"]["classes"][k]["weight"] - w) < 1e-4 for k, w in (("view", 0.61 * d["host_basis"]["repeat_scale"]), ("once", 1)))' 1 0
# kernel ops weigh what their names cost in the GPU traces (est_host_ops.c:
# 0.49 between calls and 0.02 to 19.59 times the mean op of one kernel's
# 2.08), 2.57 where the traces did not measure them: the class's weight is
# its calls' mean, inside that range (the share of the ops that launch
# several kernels on the GPU is said apart)
expect_json_num '(0.49 + 0.02 * 2.08) * d["host_basis"]["repeat_scale"] - 1e-4 <= d["host_basis"]["classes"]["kernel-op"]["weight"] <= (0.49 + 19.59 * 2.08) * d["host_basis"]["repeat_scale"] + 1e-4' 1 0
expect_json_num 'd["host_basis"]["multi_kernel_ops"]["time_s"] <= d["host_basis"]["classes"]["kernel-op"]["time_s"]' 1 0
expect_json_num 'sum(c["time_s"] for c in d["host_basis"]["classes"].values()) + d["host_basis"]["recurrent_loops_s"]' "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host_time_s"])' "$OUT")" 1e-9
# each class's weight is its calls' mean, to four decimals
expect_json_num 'all(abs(c["time_s"] - c["calls"] * c["weight"] * d["host_basis"]["dispatch_s"]) <= 0.5e-4 * c["calls"] * d["host_basis"]["dispatch_s"] + 1e-15 for c in d["host_basis"]["classes"].values())' 1 0
expect_json_num 'd["host_basis"]["recurrent_loops_s"] > 0' 1 0
fom_run 0 estimate --profile "$GRU" --machine machines/h100-sxm5-80gb.xml --kernels estimators/h100
expect_out_contains "host per op kind: the machine's dispatch 13.50 us x "
fom_run 0 estimate --profile tests/data/traces/h200/p1b2_h200_fp32_b60.json.gz --machine machines/h100-sxm5-80gb.xml --format json
expect_json_num 'd["host_basis"] is None' 1 0

# A host-CPU trace's dense embedding backward runs on a GPU as PyTorch's
# sort-and-reduce: 31 launches a call (est_host.c: multi_kernel_ops), its
# own host time 9.10 times the mean op of one kernel's (est_host_ops.c).  DeepFM's two embedding tables.
fom_run 0 estimate --profile profiles/devset/hostcpu/deepfm_hostcpu_fp32_b1024.json.gz \
    --machine machines/h200-sxm-141gb.xml --kernels estimators/h200 --batch 8192 --format json
expect_json_num 'd["host_basis"]["multi_kernel_ops"]["calls"] >= 2' 1 0
expect_json_num 'all(o["device_time_s"] >= 31 * 4e-6 * o["count"] * (1 - 1e-9) for o in d["ops"] if o["name"] == "aten::embedding_backward")' 1 0
expect_json_num 'all(abs(o["host_time_s"] - o["count"] * (0.49 + 9.10 * 2.08) * 11.3e-6 * d["host_basis"]["repeat_scale"]) < 1e-9 for o in d["ops"] if o["name"] == "aten::embedding_backward")' 1 0

done_testing
