#!/bin/sh
# A study's <workload cudnn-tf32="true">: its GPU systems estimate the fp32
# convolutions as TF32, exactly as `fom estimate --cudnn-tf32` does; a
# system without TF32 units is said (file:line) to estimate IEEE fp32; a
# value that is not a boolean is refused by the schema.
. "$TESTS_DIR/t/lib.sh"

CPU="$TESTS_DIR/../profiles/devset/hostcpu/segnet_hostcpu_fp32_b1.json.gz"
ROOT="$TESTS_DIR/.."
study() {
    cat >"$T_TMP/s.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<study name="tf32" baseline="xeon">
  <system id="xeon" nodes="1" machine="$ROOT/machines/xeon-host-16c.xml" kernels="$ROOT/estimators/hostcpu"/>
  <system id="h100" nodes="1" machine="$ROOT/machines/h100-sxm5-80gb.xml" kernels="$ROOT/estimators/h100"/>
  <problem id="segnet">
    <workload profile="$CPU" batch="8" profile-batch="1" samples-per-epoch="800" epochs="1"$1/>
  </problem>
</study>
XML
}

study ""
fom_run 0 fom "$T_TMP/s.xml" --format json
cp "$OUT" "$T_TMP/ieee.json"
study ' cudnn-tf32="true"'
fom_run 0 fom "$T_TMP/s.xml" --format json
cp "$OUT" "$T_TMP/tf32.json"
expect_err_contains "s.xml:6: warning: cudnn-tf32=\"true\" does not apply to '$ROOT/machines/xeon-host-16c.xml'"

for f in "" --cudnn-tf32; do
    fom_run 0 estimate --profile "$CPU" --machine "$ROOT/machines/h100-sxm5-80gb.xml" \
        --kernels "$ROOT/estimators/hostcpu" --kernels "$ROOT/estimators/h100" --batch 8 --profile-batch 1 \
        --format json $f
    cp "$OUT" "$T_TMP/e$f.json"
done
if python3 - "$T_TMP/ieee.json" "$T_TMP/tf32.json" "$T_TMP/e.json" "$T_TMP/e--cudnn-tf32.json" <<'PY'
import json, sys
ieee, tf32, e0, e1 = (json.load(open(a)) for a in sys.argv[1:])
def hours(s, sys_):
    return s["problems"][0]["hours_per_unit"][sys_]
# 100 passes per unit: each cell is 100 x the estimate's pass time
for s, e in ((ieee, e0), (tf32, e1)):
    want = e["pass_time_s"] * 100 / 3600
    assert abs(hours(s, "h100") - want) <= 1e-9 * want, (hours(s, "h100"), want)
assert e1["pass_time_s"] < e0["pass_time_s"]
# the host CPU is the same either way
assert hours(ieee, "xeon") == hours(tf32, "xeon")
PY
then ok "cudnn-tf32 in a study: the GPU cell is estimate --cudnn-tf32's, the CPU cell unchanged"
else not_ok "cudnn-tf32 in a study"; fi

study ' cudnn-tf32="yes"'
fom_run 1 fom "$T_TMP/s.xml"
expect_err_contains "s.xml:6: error: element 'workload', attribute 'cudnn-tf32': 'yes' is not a valid value of the atomic type 'xs:boolean'"

done_testing
