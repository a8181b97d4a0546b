#!/bin/sh
# fom fom on a study whose problems are estimated from shipped traces:
# the roll-up of the estimated pass time, the study-wide kernel tables and
# the messages printed once per evaluation.
. "$TESTS_DIR/t/lib.sh"

S=reports/h100-vs-h200.xml
fom_run 0 fom $S --format json
cp "$OUT" "$T_TMP/study.json"
cp "$ERR" "$T_TMP/study.err"

# The same machine pair gives the same warning for every problem: printed once.
n=$(grep -c "scaled-table: measured times on 'NVIDIA H200'" "$T_TMP/study.err")
if [ "$n" -eq 1 ]; then ok "scaled-table warning printed once"; else not_ok "scaled-table warning printed $n times"; fi

# p1b3 on h100: hours per unit = pass time x ceil(900000 / 100) passes x 1 epoch,
# with the pass time from fom estimate given the same machine and every table of the study.
fom_run 0 estimate --profile profiles/p1b3_h200_fp32_b100.json.gz \
    --machine machines/h100-sxm5-80gb.xml --kernels estimators/h100 --kernels estimators/h200 --format json
pass=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_time_s"])' "$OUT")
cp "$T_TMP/study.json" "$OUT"
want=$(python3 -c "print($pass * 9000 / 3600)")
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b3"][0]["hours_per_unit"]["h100"]' "$want" 1e-9

# p1b2 on h200 is measured: 79.021 ms per epoch x 20 epochs.
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["hours_per_unit"]["h200"]' \
    "$(python3 -c 'print(0.079021 * 20 / 3600)')" 1e-9

# Same compute peaks, 43% more bandwidth: the H200 does not do less work per day
# than the H100 on any problem, and more on the memory-heavy ResNet-50.
expect_json_num 'min(p["ratio"] for p in d["problems"]) >= 0.97' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="resnet50"][0]["ratio"] > 1' 1 0

# p1b2 is measured on the H200, the device its profile ran on: its H100
# estimate is scaled by the H200 measurement over fom's estimate of the H200
# (45 passes per epoch x 20 epochs), so both cells compare as estimates do.
fom_run 0 estimate --profile profiles/p1b2_h200_fp32_b60.json.gz \
    --machine machines/h200-sxm-141gb.xml --kernels estimators/h200 --kernels estimators/h100 --format json
p200=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_time_s"])' "$OUT")
fom_run 0 estimate --profile profiles/p1b2_h200_fp32_b60.json.gz \
    --machine machines/h100-sxm5-80gb.xml --kernels estimators/h100 --kernels estimators/h200 --format json
p100=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_time_s"])' "$OUT")
cp "$T_TMP/study.json" "$OUT"
a=$(python3 -c "print(0.079021 * 20 / 3600 / ($p200 * 45 * 20 / 3600))")
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["estimates"]["h100"]["anchor"]["measured_over_estimated"]' "$a" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["estimates"]["h100"]["anchor"]["system"] == "h200"' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["hours_per_unit"]["h100"]' \
    "$(python3 -c "print($p100 * 45 * 20 / 3600 * $a)")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b3"][0]["estimates"]["h100"]["anchor"] is None' 1 0
grep -q "p1b2: estimates x" "$T_TMP/study.err" && not_ok "anchor note on stderr" || ok "anchor note not a warning"
expect_json_num 'len(d["problems"])' 5 0

done_testing
