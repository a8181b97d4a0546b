#!/bin/sh
# A GPU trace's host times calibrated against the same run's step measured
# without the profiler: from the .meta.json beside the trace by default,
# from --measured-step, or not at all (--measured-step none).  On its own
# device the calibrated replay gives the measured step; on another device
# the trace's host times (and only they) move by the same factor; what
# cannot be calibrated is refused when asked for and said when found.
. "$TESTS_DIR/t/lib.sh"

ROOT="$TESTS_DIR/.."
T="$ROOT/profiles/devset/h100/convnext_h100_bf16_b32.json.gz"
CPU="$ROOT/profiles/devset/hostcpu/convnext_hostcpu_fp32_b4.json.gz"
M="$ROOT/machines/h100-sxm5-80gb.xml"
M2="$ROOT/machines/h200-sxm-141gb.xml"

fom_run 0 estimate --profile "$T" --machine "$M" --format json
cp "$OUT" "$T_TMP/side.json"
fom_run 0 estimate --profile "$T" --machine "$M" --measured-step none --format json
cp "$OUT" "$T_TMP/none.json"
fom_run 0 estimate --profile "$T" --machine "$M" --measured-step 40ms --format json
cp "$OUT" "$T_TMP/given.json"
fom_run 0 estimate --profile "$T" --machine "$M2" --kernels "$ROOT/estimators/h200" \
    --kernels "$ROOT/estimators/h100" --format json
cp "$OUT" "$T_TMP/h200.json"
fom_run 0 estimate --profile "$T" --machine "$M2" --kernels "$ROOT/estimators/h200" \
    --kernels "$ROOT/estimators/h100" --measured-step none --format json
cp "$OUT" "$T_TMP/h200none.json"
if python3 - "$T_TMP" "${T%.json.gz}.meta.json" <<'PY'
import json, os, sys
t, meta = sys.argv[1], sys.argv[2]
ld = lambda f: json.load(open(os.path.join(t, f)))
side, none, given, h200, h200none = (ld(f + ".json") for f in ("side", "none", "given", "h200", "h200none"))
step = json.load(open(meta))["step_time_s"]["median"]
close = lambda a, b, tol=1e-6: abs(a - b) <= tol * abs(b)
hc = side["host_calibration"]
assert hc["state"] == "applied" and hc["from"].endswith("convnext_h100_bf16_b32.meta.json"), hc
assert close(hc["measured_step_s"], step, 1e-12) and close(side["pass_time_s"], step)
# the trace alone is what --measured-step none gives
assert none["host_calibration"] is None
assert close(hc["trace_replay_s"], none["pass_time_s"], 1e-12)
assert hc["host_scale"] < 1 < hc["host_scale_max"]
assert close(side["host_time_s"], hc["host_scale"] * none["host_time_s"])
g = given["host_calibration"]
assert g["from"] == "--measured-step" and close(given["pass_time_s"], 0.040)
# another device: the device times are the same with and without, the
# host times move by the factor
h = h200["host_calibration"]
assert h["state"] == "applied" and close(h["host_scale"], hc["host_scale"], 1e-9)
assert close(h200["device_time_s"], h200none["device_time_s"], 1e-12)
assert close(h200["host_time_s"], h["host_scale"] * h200none["host_time_s"])
assert h200["pass_time_s"] < h200none["pass_time_s"]
PY
then ok "calibrated replay meets the measured step; other devices move the host alone"
else not_ok "calibration"; fi

fom_run 0 estimate --profile "$T" --machine "$M"
expect_out_contains "host calibrated: trace host times x0."
expect_out_contains "so that the trace replayed on its device gives 30.5513 ms against 30.5513 ms without the profiler"
# a step below what the trace's device work alone takes: the host's busy
# time is held to the step
fom_run 0 estimate --profile "$T" --machine "$M" --measured-step 10ms --format json
expect_json_num 'd["host_calibration"]["host_scale"] * 0.045394343' 0.010 1e-6
expect_json_num 'd["host_time_s"]' 0.010 1e-9
expect_json_num 'd["host_calibration"]["least_host_replay_s"] > 0.010' 1 0
fom_run 0 estimate --profile "$T" --machine "$M" --measured-step 10ms
expect_out_contains "clamped: the trace's device work alone replays longer than the measured step, so the host's busy time is held to that step"

# a CPU trace: the sidecar's step is said not to apply; given, refused
fom_run 0 estimate --profile "$CPU" --machine "$M"
expect_out_contains "host not calibrated: the measured step"
fom_run 2 estimate --profile "$CPU" --machine "$M" --measured-step 30ms
expect_err_contains "error: --measured-step: '$CPU' is not a GPU trace, expected a GPU trace with its calls estimated on a GPU"
fom_run 2 estimate --profile "$T" --machine "$M" --measured-step 30
expect_err_contains "--measured-step"
fom_run 2 estimate --profile "$T" --machine "$M" --measured-step 0ms
expect_err_contains "a positive time with its unit (30ms) or none"

# a sidecar whose step is not a time
cp "$T" "$T_TMP/run.json.gz"
printf '{"batch": 32,\n "step_time_s": {"median": "fast"}}\n' >"$T_TMP/run.meta.json"
fom_run 1 estimate --profile "$T_TMP/run.json.gz" --machine "$M"
expect_err_contains "$T_TMP/run.meta.json: error: found a step_time_s that is not a positive number of seconds"
printf '{"step_time_s": 0.02}\n' >"$T_TMP/run.meta.json"
fom_run 0 estimate --profile "$T_TMP/run.json.gz" --machine "$M" --format json
expect_json_num 'd["host_calibration"]["measured_step_s"]' 0.02 0
# timed steps: the median is met, its 95% interval (eight steps: their
# range) said beside it
printf '{"step_time_s": {"median": 0.0458, "all": [0.0450, 0.0452, 0.0455, 0.0457, 0.0459, 0.0461, 0.0463, 0.0466]}}\n' >"$T_TMP/run.meta.json"
fom_run 0 estimate --profile "$T_TMP/run.json.gz" --machine "$M" --format json
expect_json_num 'd["pass_time_s"]' 0.0458 1e-6
expect_json_num 'd["host_calibration"]["measured_median_ci_s"][0]' 0.0450 1e-12
expect_json_num 'd["host_calibration"]["measured_median_ci_s"][1]' 0.0466 1e-12
fom_run 0 estimate --profile "$T_TMP/run.json.gz" --machine "$M"
expect_out_contains "measured step: median 45.8000 ms, its 95% interval 45.0000..46.6000 ms (order statistics of the timed steps)"
# the saved profile keeps the interval
fom_run 0 ingest "$T_TMP/run.json.gz" --format-out json -o "$T_TMP/run.prof.json"
fom_run 0 estimate --profile "$T_TMP/run.prof.json" --machine "$M" --format json
expect_json_num 'd["host_calibration"]["measured_median_ci_s"][1]' 0.0466 1e-12

done_testing
