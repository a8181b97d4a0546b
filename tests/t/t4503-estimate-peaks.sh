#!/bin/sh
# The peak each op is held to: tf32 work on a machine without tf32 units
# runs as fp32 and elementwise ops compute in fp32 whatever they store, so
# neither warns; a matrix precision without units (bf16 on a V100) is an
# emulation, said so; a measured convolution above the peak on its
# direct-algorithm flops (Winograd, FFT) keeps its time and is flagged.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
# A trace whose elementwise ops have flops (the small profile's have none).
P=profiles/p1b3_h200_fp32_b100.json.gz

fom_run 0 estimate --profile "$P" --machine machines/h100-sxm5-80gb.xml --precision tf32
if grep -q "no tf32 peak\|peak instead" "$ERR"; then not_ok "h100 tf32 warns about a peak"; sed 's/^/# /' "$ERR"; else ok "h100 tf32: no peak warning (the file has a tf32 matrix peak)"; fi
fom_run 0 estimate --profile "$P" --machine machines/frontier-node-mi250x.xml --precision bf16
if grep -q "no bf16" "$ERR"; then not_ok "frontier bf16 warns"; sed 's/^/# /' "$ERR"; else ok "frontier bf16: no warning (bf16 matrix peak, fp32 opmath for the rest)"; fi
fom_run 0 estimate --profile "$P" --machine machines/frontier-node-mi250x.xml --precision tf32
if grep -q "no tf32\|peak instead" "$ERR"; then not_ok "frontier tf32 warns about a peak"; sed 's/^/# /' "$ERR"; else ok "frontier tf32 runs as fp32 without a warning"; fi
fom_run 0 estimate --profile "$P" --machine machines/summit-node-v100.xml --precision bf16
expect_err_contains "machine 'summit-node-v100' has no bf16 units: its bf16 matrix ops are estimated as emulated in fp32, at its fp32 peak"

# One fp32 3x3 convolution, 32x64x56x56 -> 64 filters: 2*32*64*64*9*56*56
# = 7.398e9 direct-algorithm flops, 0.740 ms at the test GPU's 10 TFLOP/s;
# its table row says 0.300 ms (a Winograd kernel's rate).
mkdir -p "$T_TMP/tab"
cp "$DATA/estimate/tables/env.json" "$T_TMP/tab/"
cat >"$T_TMP/tab/testgpu_conv.csv" <<'CSV'
dims,n,c,d,h,w,k,f_d,f_h,f_w,pad_d,pad_h,pad_w,stride_d,stride_h,stride_w,dil_d,dil_h,dil_w,groups,precision,pass,time_us
2,32,64,1,56,56,64,1,3,3,0,1,1,1,1,1,1,1,1,1,fp32,fwd,300
CSV
cat >"$T_TMP/conv.profile.json" <<'JSON'
{"format": "profile-json", "source": "hand-made", "device": "Other GPU", "framework": "PyTorch 2.11.0",
 "steps": 1, "batch": 32, "dtype": "fp32", "has_device": true, "total_time_s": 0.001,
 "step_time_s": 0.001, "host_time_s": 0, "coverage": 1, "dropped_time_s": 0, "dropped_ops": 0,
 "ops": [{"name": "aten::cudnn_convolution", "kind": "conv", "phase": "forward", "dtype": "fp32",
   "count": 1, "time_s": 0.001, "device_time_s": 0.001, "host_time_s": 0.00001, "kernels": 1,
   "flops": 7398752256, "bytes": 0, "m": 0, "n": 0, "k": 0, "batch": 0, "a_t": null, "b_t": null,
   "shapes": "[32, 64, 56, 56], [64, 64, 3, 3]", "flags": null,
   "conv": {"n": 32, "c": 64, "h": 56, "w": 56, "k": 64, "r": 3, "s": 3, "stride_h": 1, "stride_w": 1,
            "pad_h": 1, "pad_w": 1, "dil_h": 1, "dil_w": 1, "groups": 1, "p": 56, "q": 56}}]}
JSON
fom_run 0 estimate --profile "$T_TMP/conv.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$T_TMP/tab" --format json
expect_json_num 'd["ops"][0]["device_time_s"]' 0.000300 1e-6
expect_json_num 'd["limits_fired"]["above-peak"]' 1 0
expect_json_num 'd["limits_fired"]["roofline"]' 0 0
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "above-peak" in d["ops"][0]["limits"] else 1)' "$OUT"; then
    ok "the op names its above-peak flag"
else
    not_ok "the op lacks its above-peak flag"
fi
fom_run 0 estimate --profile "$T_TMP/conv.profile.json" --machine "$DATA/estimate/testgpu.xml" --kernels "$T_TMP/tab"
expect_out_contains "limit above-peak flagged 1 op(s)"
expect_out_contains "Winograd or FFT"

# A table row holds its harness's dispatch gap when the kernel is shorter
# than the gap: the gap d is the table's smallest row (20 us here), a row
# at t between d and 2d holds d x (2 - t/d) of it, one above 2d none.
# The 25 us row gives 25 - 20 x 0.75 = 10 us; the 1000 us row stays.
# Only rows the harness timed one call at a time (env.json names it) hold
# such a gap; the same rows from elsewhere are taken as they are.
mkdir -p "$T_TMP/gap" "$T_TMP/nogap"
printf '{"gpu": "Test GPU", "harness": "estimators/measure/measure.py"}\n' >"$T_TMP/gap/env.json"
cp "$DATA/estimate/tables/env.json" "$T_TMP/nogap/"
cat >"$T_TMP/gap/testgpu_eltwise.csv" <<'CSV'
op,precision,elements,bytes,time_us
copy,fp32,125,1000,20
copy,fp32,125000,1000000,25
copy,fp32,125000000,1000000000,1000
CSV
cat >"$T_TMP/cpu.profile.json" <<'JSON'
{"format": "profile-json", "source": "hand-made", "device": "", "framework": "PyTorch 2.11.0",
 "steps": 1, "batch": 8, "dtype": "fp32", "has_device": false, "total_time_s": 0.003,
 "step_time_s": 0.003, "host_time_s": 0.003, "coverage": 1, "dropped_time_s": 0, "dropped_ops": 0,
 "ops": [{"name": "aten::add", "kind": "elementwise", "phase": "forward", "dtype": "fp32",
   "count": 1, "time_s": 0.001, "device_time_s": 0, "host_time_s": 0.001, "kernels": 0,
   "flops": 0, "bytes": 1000000, "m": 0, "n": 0, "k": 0, "batch": 0, "a_t": null, "b_t": null,
   "shapes": "[8, 31250], [8, 31250]", "flags": null},
  {"name": "aten::mul", "kind": "elementwise", "phase": "forward", "dtype": "fp32",
   "count": 1, "time_s": 0.002, "device_time_s": 0, "host_time_s": 0.002, "kernels": 0,
   "flops": 0, "bytes": 1000000000, "m": 0, "n": 0, "k": 0, "batch": 0, "a_t": null, "b_t": null,
   "shapes": "[8, 31250000], [8, 31250000]", "flags": null}]}
JSON
fom_run 0 estimate --profile "$T_TMP/cpu.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$T_TMP/gap" --format json
expect_json_num '[o for o in d["ops"] if o["name"] == "aten::add"][0]["device_time_s"]' 10e-6 1e-6
expect_json_num '[o for o in d["ops"] if o["name"] == "aten::mul"][0]["device_time_s"]' 1000e-6 1e-6
cp "$T_TMP/gap/testgpu_eltwise.csv" "$T_TMP/nogap/"
fom_run 0 estimate --profile "$T_TMP/cpu.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$T_TMP/nogap" --format json
expect_json_num '[o for o in d["ops"] if o["name"] == "aten::add"][0]["device_time_s"]' 25e-6 1e-6
done_testing
