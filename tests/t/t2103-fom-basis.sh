#!/bin/sh
# A FOM you can defend: the study's batch rescales the pass like
# `fom estimate --batch`, no batch option is ignored, every estimated cell
# says what it rests on, and intervals that cannot be computed are
# unavailable instead of zero-width.
. "$TESTS_DIR/t/lib.sh"

M=machines/h100-sxm5-80gb.xml
K="--kernels estimators/h100 --kernels estimators/h200"

# --- study batch rescaled from profile-batch (issue item 1) --------------
fom_run 0 estimate --profile profiles/resnet50_h200_bf16_b64.json.gz --machine $M $K \
    --batch 256 --profile-batch 64 --format json
est=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_time_s"])' "$OUT")
fom_run 0 fom tests/data/study/batch-rescale.xml --format json
study=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["problems"][0]["estimates"]["h100"]["pass_time_s"])' "$OUT")
expect_json_num 'd["problems"][0]["estimates"]["h100"]["pass_time_s"]' "$est" 0.02
expect_json_num 'd["problems"][0]["estimates"]["h100"]["batch"]' 256 0
expect_json_num 'd["problems"][0]["estimates"]["h100"]["profile_batch"]' 64 0
# hours per unit = pass x ceil(1281167 / 256) minibatches x 90 epochs
expect_json_num 'd["problems"][0]["hours_per_unit"]["h100"]' \
    "$(python3 -c "import math; print($est * math.ceil(1281167 / 256) * 90 / 3600)")" 0.02
# The profiled batch is read from the .meta.json beside the trace when the
# study does not give it, and fom estimate names where it came from.
fom_run 0 fom tests/data/study/batch-inferred.xml --format json
expect_json_num 'd["problems"][0]["estimates"]["h100"]["pass_time_s"]' "$study" 1e-12
fom_run 0 estimate --profile profiles/resnet50_h200_bf16_b64.json.gz --machine $M $K --batch 256
expect_out_contains 'batch:          256 (profiled 64, from profiles/resnet50_h200_bf16_b64.meta.json; x4)'
# A trace that does not say its batch: the study is refused at the workload.
cp profiles/p1b2_h200_fp32_b60.json.gz "$T_TMP/p1b2.json.gz"
cat >"$T_TMP/s.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<study name="no batch" baseline="a">
  <system id="a" nodes="1" machine="$ROOT/$M"/>
  <problem id="p">
    <workload profile="p1b2.json.gz" batch="120"
              samples-per-epoch="2700" epochs="1"/>
  </problem>
</study>
XML
fom_run 1 fom "$T_TMP/s.xml"
expect_err_contains "s.xml:6: error: found batch=\"120\" but"
expect_err_contains 'expected profile-batch="N" to rescale from'
# A saved profile that says its batch and a profile-batch that disagrees.
fom_run 0 ingest profiles/p1b2_h200_fp32_b60.json.gz --batch 60 --format-out json -o "$T_TMP/p1b2.prof.json"
fom_run 2 estimate --profile "$T_TMP/p1b2.prof.json" --machine $M --batch 120 --profile-batch 30
expect_err_contains 'was taken at batch 60, expected the two to agree'

# --- fom estimate --batch never ignored (item 2) -------------------------
fom_run 2 estimate --profile "$T_TMP/p1b2.json.gz" --machine $M --batch 120
expect_err_contains "give --profile-batch N to rescale from"
fom_run 0 estimate --profile "$T_TMP/p1b2.json.gz" --machine $M --batch 120 --profile-batch 60
expect_out_contains 'batch:          120 (profiled 60, from --profile-batch; x2)'

# --- every estimated cell carries its basis (item 3) ---------------------
fom_run 0 fom reports/h100-vs-h200.xml --format json
expect_json_num 'all(set(e) >= {"pass_time_s", "bound", "methods"} for p in d["problems"] for e in p["estimates"].values())' 1 0
expect_json_num 'all(abs(sum(e["methods"].values()) - 1) < 1e-9 for p in d["problems"] for e in p["estimates"].values())' 1 0
# every cell without a measured time is estimated: 9 of the 10 cells
expect_json_num 'sum(len(p["estimates"]) for p in d["problems"])' 9 0
expect_json_num '"h200" not in [p for p in d["problems"] if p["id"] == "p1b2"][0]["estimates"]' 1 0
fom_run 0 fom reports/h100-vs-h200.xml --format csv
if python3 - "$OUT" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
est = [r for r in rows if r["row"] == "problem" and r["pass_time [s]"]]
shares = [k for k in rows[0] if k.startswith("share_")]
assert len(est) == 9 and all(r["bound"] for r in est)
assert all(abs(sum(float(r[k]) for k in shares) - 1) < 1e-9 for r in est)
PY
then ok "csv: pass time, bound and method shares summing to 1 per estimated cell"
else not_ok "csv basis columns"; fi
# A system with no kernel tables is estimated from the roofline, the efficiency model or peak scaling: marked.
cat >"$T_TMP/roof.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<study name="roofline" baseline="h100">
  <system id="h100" nodes="1" machine="$ROOT/$M" kernels="$ROOT/estimators/h100"/>
  <system id="a100" nodes="1" machine="$ROOT/machines/perlmutter-gpu-node-a100.xml"/>
  <problem id="resnet50">
    <workload profile="$ROOT/profiles/resnet50_h200_bf16_b256.json.gz" batch="256"
              samples-per-epoch="1281167" epochs="90" precision="bf16"/>
  </problem>
</study>
XML
fom_run 0 fom "$T_TMP/roof.xml" --format json
expect_json_num 'd["problems"][0]["estimates"]["a100"]["mostly_roofline_or_scaled"]' 1 0
expect_json_num 'sum(d["problems"][0]["estimates"]["a100"]["methods"].get(m, 0) for m in ("roofline", "efficiency", "scaled")) > 0.5' 1 0
fom_run 0 fom "$T_TMP/roof.xml"
if grep -E '^resnet50 +a100 .*(roofline|efficiency|scaled) [0-9]+% !' "$OUT" >/dev/null; then ok "text marks the roofline cell with !"; else not_ok "no ! mark on the roofline cell"; fi
expect_out_contains '! = at least 50% from the machine file'"'"'s roofline, efficiency model or peak scaling'

fom_run 0 report "$T_TMP/roof.xml" -o "$T_TMP/rep"
if grep -E '^\| a100 \| 1 node of 4 x [^|]+ \| [^|]+ \| [0-9.]+ ! \|' "$T_TMP/rep/report.md" >/dev/null; then ok "report summary marks a100's FOM with !"; else not_ok "report summary lacks the ! mark"; grep '^| a100' "$T_TMP/rep/report.md" | sed 's/^/# /'; fi
if grep -F '! = the system has problems estimated mostly (at least 50% of the op time)' "$T_TMP/rep/report.md" >/dev/null; then ok "report summary legend"; else not_ok "report summary legend missing"; fi

# --- unavailable, not zero-width, intervals (item 4) ---------------------
fom_run 0 fom tests/data/study/ci-fixed.xml --format json
expect_json_num '[s for s in d["systems"] if s["id"] == "fixed"][0]["fom_ci"] is None' 1 0
expect_json_num '[s for s in d["systems"] if s["id"] == "old"][0]["fom_ci"] is None' 1 0
expect_json_num '[s for s in d["systems"] if s["id"] == "new"][0]["fom_ci"]["hi"] > 4.8' 1 0
fom_run 0 fom tests/data/study/ci-fixed.xml
if grep -E '^fixed .* n/a ' "$OUT" >/dev/null; then ok "text: FOM CI of 'fixed' is n/a"; else not_ok "text: FOM CI of 'fixed' is not n/a"; fi
expect_out_contains 'FOM CI n/a: no resampled input moves it'
# Table rows without p05/p95: no spread, no interval.
mkdir -p "$T_TMP/nospread"
cp "$DATA/estimate/tables/env.json" "$T_TMP/nospread/"
printf 'm,n,k,a_t,b_t,precision,time_us\n100,1024,1024,N,N,fp32,50\n' >"$T_TMP/nospread/testgpu_gemm.csv"
fom_run 0 estimate --profile "$DATA/estimate/small.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$T_TMP/nospread" --format json
expect_json_num 'd["pass_time_ci"] is None' 1 0

# --- messages (item 9) ----------------------------------------------------
fom_run 1 fom machines/h100-sxm5-80gb.xml
expect_err_contains 'machines/h100-sxm5-80gb.xml:10: error: found <machine>: this is a machine file'
fom_run 1 ingest profiles
expect_err_contains 'profiles: error: found a directory, expected a trace file'
if [ -s "$OUT" ]; then not_ok "fom ingest DIR wrote to stdout"; else ok "fom ingest DIR writes nothing to stdout"; fi

done_testing
