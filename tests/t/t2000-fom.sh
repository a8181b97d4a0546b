#!/bin/sh
# fom fom: the seed's worked example (golden text, JSON, CSV), numbers
# checked against independent arithmetic, a weighted three-system study,
# repeated measurements, and bad input.
. "$TESTS_DIR/t/lib.sh"

# ---- the seed example, golden output in all three formats -------------
fom_run 0 fom reports/candle-seed.xml
expect_golden t2000-seed-text
fom_run 0 fom reports/candle-seed.xml --format csv
expect_golden t2000-seed-csv
fom_run 0 fom reports/candle-seed.xml --format json
expect_golden t2000-seed-json

# Independent values (python3, exact fractions):
#   units/day = 24/h x nodes: titan 7475.2, 74752, 37376; A 564000, 4512000, 9024000
#   ratios 564000/7475.2 = 75.4494863, 4512000/74752 = 60.3595890,
#          9024000/37376 = 241.4383562 (the seed prints 241.43: truncated)
#   H_titan = 3/(1/7475.2 + 1/74752 + 1/37376) = 224256/13 = 17250.461538
#   H_A = 27072000/19 = 1424842.105263;  FOM = 229125/2774 = 82.597332372
#   mean of ratios: arithmetic 125.749143836, harmonic 88.331105914
expect_json_num 'd["fom"]' 82.597332372026 1e-9
expect_json_num 'd["systems"][0]["harmonic_rate"]' 17250.461538461538 1e-9
expect_json_num 'd["systems"][1]["harmonic_rate"]' 1424842.1052631579 1e-9
expect_json_num 'd["mean_of_ratios"]["arithmetic"]' 125.74914383561644 1e-9
expect_json_num 'd["mean_of_ratios"]["harmonic"]' 88.33110591379887 1e-9
expect_json_num 'd["problems"][0]["ratio"]' 75.44948630136986 1e-9
expect_json_num 'd["problems"][1]["ratio"]' 60.35958904109589 1e-9
expect_json_num 'd["problems"][2]["ratio"]' 241.43835616438355 1e-9
expect_json_num 'd["problems"][0]["units_per_day"]["titan"]' 7475.2 1e-12
expect_json_num 'd["problems"][2]["units_per_day"]["A"]' 9024000 1e-12
expect_json_num 'd["problems"][1]["hours_per_unit"]["A"]' 0.5 1e-12
expect_json_num 'd["systems"][1]["nodes"]' 94000 0
expect_json_num 'd["fom_ci"] is None' 1 0
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
need = {"baseline", "fom", "mean_of_ratios", "systems", "problems"}
assert need <= set(d), need - set(d)
assert d["baseline"] == "titan"
assert set(d["mean_of_ratios"]) >= {"arithmetic", "harmonic"}
for s in d["systems"]:
    assert {"id", "nodes", "harmonic_rate"} <= set(s)
for p in d["problems"]:
    assert {"id", "ratio", "units_per_day", "hours_per_unit"} <= set(p)
    assert set(p["units_per_day"]) == {"titan", "A"}
' "$OUT"; then ok "json has the contract keys"; else not_ok "json lacks contract keys"; fi

# ---- the seed's per-epoch CANDLE table ---------------------------------
# 4/0.056 = 71.428571, 3612/53.1 = 68.022599, 26/0.217 = 119.815668
fom_run 0 fom reports/candle-epochs.xml --format json
expect_json_num 'd["problems"][0]["ratio"]' 71.42857142857143 1e-9
expect_json_num 'd["problems"][1]["ratio"]' 68.02259887005650 1e-9
expect_json_num 'd["problems"][2]["ratio"]' 119.81566820276498 1e-9
# one node, one epoch: 86400/4 = 21600 epochs a day on titan for P1B2
expect_json_num 'd["problems"][0]["units_per_day"]["titan"]' 21600 1e-12

# ---- three systems, four problems, s/min/h/d, weights -------------------
# Hand arithmetic (python3 fractions), U = 24/h x nodes, k80 100 nodes,
# v100 40, h100 16, weights P1 2, P2 1, P3 0.5, P4 1.5 (sum 5):
#   P1: 1.5h, 2700s = 0.75h, 20min = 1/3h -> 1600, 1280, 1152
#   P2: 2d = 48h, 10h, 0.25d = 6h         ->   50,   96,   64
#   P3: 36000s = 10h, 75min = 1.25h, 0.5h ->  240,  768,  768
#   P4: 3h, 1h, 900s = 0.25h              ->  800,  960, 1536
#   H_k80  = 5/(2/1600 + 1/50 + 0.5/240 + 1.5/800)  = 24000/121 = 198.347107
#   H_v100 = 5/(2/1280 + 1/96 + 0.5/768 + 1.5/960)  = 38400/109 = 352.293578
#   H_h100 = 5/(2/1152 + 1/64 + 0.5/768 + 1.5/1536) = 9216/35   = 263.314286
#   FOM v100 = 968/545 = 1.776146789;  FOM h100 = 5808/4375 = 1.327542857
#   ratios v100 0.8, 1.92, 3.2, 1.2: weighted mean (1.6+1.92+1.6+1.8)/5 = 1.384,
#     weighted harmonic 5/(2/0.8 + 1/1.92 + 0.5/3.2 + 1.5/1.2) = 1.129411765
#   ratios h100 0.72, 1.28, 3.2, 1.92: weighted mean 7.2/5 = 1.44,
#     weighted harmonic 5/(2/0.72 + 1/1.28 + 0.5/3.2 + 1.5/1.92) = 1.111969112
fom_run 0 fom tests/data/study/three-systems.xml --format json
expect_json_num 'd["systems"][0]["harmonic_rate"]' 198.34710743801654 1e-9
expect_json_num 'd["systems"][1]["harmonic_rate"]' 352.29357798165137 1e-9
expect_json_num 'd["systems"][2]["harmonic_rate"]' 263.3142857142857 1e-9
expect_json_num 'd["fom"]' 1.7761467889908258 1e-9
expect_json_num 'd["fom_by_system"]["v100"]' 1.7761467889908258 1e-9
expect_json_num 'd["fom_by_system"]["h100"]' 1.3275428571428571 1e-9
expect_json_num 'd["fom_by_system"]["k80"]' 1 1e-15
expect_json_num 'd["mean_of_ratios"]["arithmetic"]' 1.384 1e-9
expect_json_num 'd["mean_of_ratios"]["harmonic"]' 1.1294117647058823 1e-9
expect_json_num 'd["systems"][2]["mean_of_ratios"]["arithmetic"]' 1.44 1e-9
expect_json_num 'd["systems"][2]["mean_of_ratios"]["harmonic"]' 1.111969111969112 1e-9
expect_json_num 'd["problems"][0]["ratio"]' 0.8 1e-12
expect_json_num 'd["problems"][3]["ratios"]["h100"]' 1.92 1e-12
expect_json_num 'd["problems"][1]["units_per_day"]["k80"]' 50 1e-12
expect_json_num 'd["problems"][2]["hours_per_unit"]["v100"]' 1.25 1e-12
expect_json_num 'd["problems"][0]["weight"]' 2 0
fom_run 0 fom tests/data/study/three-systems.xml
expect_golden t2000-three-text

# ---- repeated measurements ----------------------------------------------
# P1/new: 0.9 0.95 1.0 1.1 1.2 1.3 5 h -> median 1.1 h, 95% CI of the
# median [x(1), x(7)] = [0.9, 5] h, coverage 1 - 2/128 = 0.984375.
# Rates (10 nodes): old 60, 120; new 240/1.1 = 218.18, 240.
# H_old = 2/(1/60 + 1/120) = 80; H_new = 2/(1.1/240 + 1/240) = 228.571;
# FOM = 20/7 = 2.857142857.
fom_run 0 fom tests/data/study/repeats.xml --format json
expect_json_num 'd["problems"][0]["hours_per_unit"]["new"]' 1.1 1e-12
expect_json_num 'd["problems"][0]["repeats"]["new"]' 7 0
expect_json_num 'd["problems"][0]["hours_per_unit_ci"]["new"]["lo"]' 0.9 1e-12
expect_json_num 'd["problems"][0]["hours_per_unit_ci"]["new"]["hi"]' 5 1e-12
expect_json_num 'd["problems"][0]["hours_per_unit_ci"]["new"]["coverage"]' 0.984375 1e-12
expect_json_num 'd["problems"][1]["hours_per_unit_ci"]["new"] is None' 1 0
expect_json_num 'd["fom"]' 2.857142857142857 1e-9
expect_json_num 'd["ci"]["level"]' 0.95 0
expect_json_num 'd["ci"]["resamples"]' 2000 0
expect_json_num 'd["fom_ci"]["lo"] <= d["fom"] <= d["fom_ci"]["hi"]' 1 0
# the resampled medians lie between the smallest and the largest repeat,
# so the interval of the FOM lies between the FOMs they give:
# P1/new at 5 h -> H_new = 2/(5/240 + 1/240) = 80 -> FOM 1;
# at 0.9 h -> H_new = 2/(0.9/240 + 1/240) = 252.63 -> FOM 3.157895
expect_json_num 'd["fom_ci"]["lo"] >= 1 and d["fom_ci"]["hi"] <= 3.157894737' 1 0
cp "$OUT" "$T_TMP/first.json"
fom_run 0 fom tests/data/study/repeats.xml --format json
if cmp -s "$OUT" "$T_TMP/first.json"; then ok "bootstrap is reproducible"; else not_ok "bootstrap differs between runs"; fi
fom_run 0 fom tests/data/study/repeats.xml
expect_out_contains "0.9 .. 5 (98.4%)"
expect_out_contains "95% percentile bootstrap over the repeats, 2000 resamples"

# ---- -o writes the same bytes as stdout ---------------------------------
fom_run 0 fom reports/candle-seed.xml --format csv -o "$T_TMP/seed.csv"
if cmp -s "$T_TMP/seed.csv" "$GOLDEN/t2000-seed-csv.out"; then ok "-o FILE has the csv"; else not_ok "-o FILE differs"; fi
if [ ! -s "$OUT" ]; then ok "-o leaves stdout empty"; else not_ok "-o wrote to stdout"; fi

# ---- bad input: exit 1 and FILE:LINE: error: ----------------------------
S=tests/data/study
fom_run 1 fom $S/unclosed.xml
expect_err_contains "$S/unclosed.xml:6: error: opening and ending tag mismatch"
fom_run 1 fom $S/parsecs.xml
expect_err_contains "$S/parsecs.xml:5: error: found per-unit='60 parsecs', expected a number with a time unit"
fom_run 1 fom $S/nodes-zero.xml
expect_err_contains "$S/nodes-zero.xml:3: error: element 'system', attribute 'nodes': '0' is not a valid value"
fom_run 1 fom $S/nodes-negative.xml
expect_err_contains "$S/nodes-negative.xml:4: error: element 'system', attribute 'nodes': '-5'"
fom_run 1 fom $S/time-zero.xml
expect_err_contains "$S/time-zero.xml:6: error: found per-unit='0h', expected a time greater than zero"
fom_run 1 fom $S/time-nan.xml
expect_err_contains "$S/time-nan.xml:5: error: found per-unit='NaN h'"
fom_run 1 fom $S/baseline-missing.xml
expect_err_contains "$S/baseline-missing.xml:3: error: found baseline='titan', expected one of the systems 'a'"
fom_run 1 fom $S/missing-time.xml
expect_err_contains "$S/missing-time.xml:9: error: found no time for system 'b' in problem 'P2'"
fom_run 1 fom $S/xxe.xml
expect_err_contains "$S/xxe.xml:3: error: found a declaration of entity 'secret'"
if grep -q "root:" "$ERR" "$OUT"; then not_ok "entity was expanded"; else ok "entity not expanded"; fi
fom_run 1 fom $S/laughs.xml
expect_err_contains "$S/laughs.xml:3: error: found a declaration of entity 'lol', expected no entities"
fom_run 1 fom $S/dup-system.xml
expect_err_contains "$S/dup-system.xml:4: error: found a second system 'a'"
fom_run 1 fom $S/epoch-no-epochs.xml
expect_err_contains "$S/epoch-no-epochs.xml:5: error: found a per-epoch time in problem 'P1' without epochs"
fom_run 1 fom $S/estimate.xml
expect_err_contains "$S/estimate.xml:4: error: system 'b' has no machine file, expected machine=\"FILE.xml\" to estimate problem 'P1' on it"
if [ ! -s "$OUT" ]; then ok "nothing on stdout after an error"; else not_ok "stdout written after an error"; fi
# an error leaves an existing -o file untouched
echo keep >"$T_TMP/keep.txt"
fom_run 1 fom $S/parsecs.xml -o "$T_TMP/keep.txt"
if [ "$(cat "$T_TMP/keep.txt")" = keep ]; then ok "-o file untouched on error"; else not_ok "-o file changed on error"; fi

# ---- usage and system errors --------------------------------------------
fom_run 2 fom
expect_err_contains "no study file given"
fom_run 2 fom reports/candle-seed.xml --format yaml
expect_err_contains "error: --format: found 'yaml', expected text, json or csv"
fom_run 2 fom reports/candle-seed.xml --bogus
expect_err_contains "unknown option '--bogus'"
fom_run 3 fom $S/no-such-study.xml
expect_err_contains "cannot open '$S/no-such-study.xml'"
fom_run 0 fom --help
expect_out_contains "usage: fom fom STUDY.xml"

done_testing
