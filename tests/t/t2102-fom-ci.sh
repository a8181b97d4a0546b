#!/bin/sh
# Confidence intervals of estimated cells: the Monte Carlo over the kernel
# tables' p05/p95 carried from the pass time (fom estimate) to the
# per-problem ratios and the FOM (fom fom), reproducible run to run.
. "$TESTS_DIR/t/lib.sh"

S=reports/h100-vs-h200.xml
fom_run 0 fom $S --format json
cp "$OUT" "$T_TMP/a.json"
fom_run 0 fom $S --format json
if cmp -s "$OUT" "$T_TMP/a.json"; then ok "same study, same intervals (fixed seeds)"; else not_ok "intervals differ between two runs"; fi

# The interval kind is named, with its level and draws.
expect_json_num 'd["ci"]["method"] == "percentile interval of a Monte Carlo over kernel-table p05/p95 spreads"' 1 0
expect_json_num 'd["ci"]["level"]' 0.95 0
expect_json_num 'd["ci"]["estimate_draws"]' 1000 0
expect_json_num '"not the estimator" in d["ci"]["covers"]' 1 0
# The FOM and every ratio lie within their intervals; the baseline has none.
expect_json_num 'd["fom_ci"]["lo"] <= d["fom"] <= d["fom_ci"]["hi"]' 1 0
expect_json_num 'd["fom_ci"]["hi"] > d["fom_ci"]["lo"]' 1 0
expect_json_num 'all(p["ratio_ci"]["lo"] <= p["ratio"] <= p["ratio_ci"]["hi"] for p in d["problems"] if p["ratio_ci"])' 1 0
# An interval is either real or absent (null), never "1.00 .. 1.00"
# (ci-fixed.xml in t2103 has a cell that nothing moves).
expect_json_num 'all(p["ratio_ci"] is None or p["ratio_ci"]["hi"] > p["ratio_ci"]["lo"] for p in d["problems"])' 1 0
expect_json_num 'd["systems"][0]["fom_ci"] is None' 1 0
expect_json_num 'all(p["ratios_ci"]["h200"] == p["ratio_ci"] for p in d["problems"])' 1 0
expect_json_num 'all(list(p["ratios_ci"]) == ["h200"] for p in d["problems"])' 1 0

# p1b2 is measured once on the H200 (fixed) and estimated on the H100 (the
# baseline): its ratio is hours(h100) / hours(h200), linear in the H100
# pass time, so its interval is the ratio x the pass time CI / the pass
# time of fom estimate, up to the resampling of the 1000 draws (within a
# twentieth of the interval's width: the interval spans 1.7% of the ratio
# with the shipped tables, so 8e-4).
fom_run 0 estimate --profile profiles/p1b2_h200_fp32_b60.json.gz \
    --machine machines/h100-sxm5-80gb.xml --kernels estimators/h100 --kernels estimators/h200 --format json
cp "$OUT" "$T_TMP/est.json"
# fom estimate's interval is computed, not drawn; the study's draws agree
# with it (below)
expect_json_num '"draws" not in d["pass_time_ci"] and "exact" in d["pass_time_ci"]["method"]' 1 0
expect_json_num 'd["pass_time_ci"]["lo_s"] < d["pass_time_ci"]["hi_s"]' 1 0
# one quantile for every op: the estimate is the pass at the median,
# inside its interval, however skewed the rows' spreads
expect_json_num 'd["pass_time_ci"]["lo_s"] < d["pass_time_s"] < d["pass_time_ci"]["hi_s"]' 1 0
want=$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
p = [p for p in f["problems"] if p["id"] == "p1b2"][0]
print(p["ratio"] * e["pass_time_ci"]["lo_s"] / e["pass_time_s"], p["ratio"] * e["pass_time_ci"]["hi_s"] / e["pass_time_s"])' \
    "$T_TMP/est.json" "$T_TMP/a.json")
cp "$T_TMP/a.json" "$OUT"
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["ratio_ci"]["lo"]' "${want% *}" 8e-4
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["ratio_ci"]["hi"]' "${want#* }" 8e-4

# A trace estimated on its own device: every op is measured once, nothing
# to draw from, the CI is unavailable rather than invented.
fom_run 0 estimate --profile profiles/p1b2_h200_fp32_b60.json.gz \
    --machine machines/h200-sxm-141gb.xml --kernels estimators/h200 --format json
expect_json_num 'd["pass_time_ci"] is None' 1 0
fom_run 0 estimate --profile profiles/p1b2_h200_fp32_b60.json.gz \
    --machine machines/h200-sxm-141gb.xml --kernels estimators/h200
expect_out_contains 'pass 95% CI [ms]        n/a  (no op has a table spread to draw from)'

# Text: the ratio CI column and what the interval covers.
fom_run 0 fom $S
expect_out_contains 'ratio CI [x]'
expect_out_contains 'it reflects kernel timing spread only, not the error of the estimator itself'
expect_out_contains 'each resample takes one of 1000 Monte Carlo draws (seed 20170828)'

done_testing
