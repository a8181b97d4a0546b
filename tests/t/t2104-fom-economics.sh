#!/bin/sh
# Procurement economics and feasibility: power and price of each system,
# the FOM per watt and per dollar beside the FOM, the energy per unit of
# work, and whether each estimated run fits a device's memory.
. "$TESTS_DIR/t/lib.sh"

S=tests/data/study/gpt2-fit.xml

fom_run 0 fom $S --format json
# Power: 4 nodes x (1 x 700 W device TDP + 575 W host) from the machine
# file; 4 x 1.5 kW from the study's node-power.
expect_json_num 'd["systems"][0]["power_w"]' 5100 1e-12
expect_json_num 'd["systems"][1]["power_w"]' 6000 1e-12
expect_json_num '"device TDP (datasheet)" in d["systems"][0]["power_from"]' 1 0
expect_json_num 'd["systems"][1]["power_from"] == "study: node-power"' 1 0
# Per watt and per dollar: the baseline is 1, the other cannot be formed
# (gpt2 does not fit it), so both are null rather than invented.
expect_json_num 'd["systems"][0]["fom_per_watt"]' 1 1e-12
expect_json_num 'd["systems"][0]["fom_per_dollar"]' 1 1e-12
expect_json_num 'd["systems"][0]["harmonic_rate_per_mw"] * 5100 / 1e6' \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["systems"][0]["harmonic_rate"])' "$OUT")" 1e-9
expect_json_num 'd["systems"][1]["fom_per_watt"] is None and d["systems"][1]["fom"] is None' 1 0
# Energy per unit = hours per unit on one node x node power.
expect_json_num '[p for p in d["problems"] if p["id"]=="p1b2"][0]["energy_kwh_per_unit"]["small"]' \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=[p for p in d["problems"] if p["id"]=="p1b2"][0]; print(p["hours_per_unit"]["small"] * 1.5)' "$OUT")" 1e-9
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["energy_kwh_per_unit"]["small"] is None' 1 0

# Does it fit?  GPT-2 at batch 8 fits the H100 (80 GB), not a 4 GB device.
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]["fits"] == True' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["small"]["fits"] == False' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["small"]["memory_bytes"] > 4e9' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["small"]["device_memory_bytes"]' 4e9 1e-12
# 124,439,808 parameters (the trace's .meta.json): fp32 weights and
# gradients, one momentum buffer (SGD with momentum seen in the trace),
# bf16 autocast copies.
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]["memory"]["weights_bytes"]' 497759232 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]["memory"]["optimizer_bytes"]' 497759232 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]["memory"]["autocast_copies_bytes"]' 248879616 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]["memory"]["optimizer"] == "sgd-momentum"' 1 0
expect_json_num '[p for p in d["problems"] if p["id"]=="gpt2"][0]["ratio"] is None' 1 0
# The backward's peak: every saved activation alive when the loss is
# differentiated, with its two fp32 gradients of the logits [8192, 50257]
# (log_softmax runs in fp32 under autocast): 2 x 4 B x 8192 x 50257.
G='[p for p in d["problems"] if p["id"]=="gpt2"][0]["estimates"]["h100"]'
expect_json_num "$G[\"memory\"][\"gradients_in_flight_bytes\"]" 3293642752 0
# Two cuBLAS workspaces of 32 MiB (forward thread, autograd's thread).
expect_json_num "$G[\"memory\"][\"workspace_bytes\"]" 67108864 0
# The step's peak is the larger of the backward's (no gradients: zero_grad
# frees them) and the optimizer step's (gradients, no activations).
expect_json_num "$G[\"memory\"][\"peak_at\"] == \"backward\" and $G[\"memory_bytes\"] == sum($G[\"memory\"][k] for k in (\"weights_bytes\", \"optimizer_bytes\", \"autocast_copies_bytes\", \"activations_bytes\", \"gradients_in_flight_bytes\", \"workspace_bytes\"))" 1 0
expect_err_contains "gpt2-fit.xml:14: warning: problem 'gpt2' does not fit a device of system 'small': needs"
expect_err_contains "give it more devices per run (devices-per-run) or a smaller batch"

# Text: the numbers, what to change, and the FOM left unformed.
fom_run 0 fom $S
expect_out_contains 'DOES NOT FIT'
expect_out_contains 'gpt2 on small does not fit a device: needs'
expect_out_contains 'The FOM of small cannot be formed without it.'
expect_out_contains 'units/day per MW'
if grep -E '^h100 +5\.1 ' "$OUT" >/dev/null; then ok "text: h100 power 5.1 kW"; else not_ok "text: h100 power"; fi

# CSV: the same figures.
fom_run 0 fom $S --format csv
if python3 - "$OUT" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sysrows = {r["system"]: r for r in rows if r["row"] == "system"}
assert float(sysrows["h100"]["power [W]"]) == 5100
assert float(sysrows["h100"]["fom_per_dollar [x]"]) == 1
assert sysrows["small"]["fom_per_watt [x]"] == ""
g = [r for r in rows if r["row"] == "problem" and r["problem"] == "gpt2" and r["system"] == "small"][0]
assert g["fits"] == "no" and float(g["memory [B]"]) > 4e9 and g["energy_per_unit [kWh]"] == ""
PY
then ok "csv: power, per watt/dollar, energy and fit columns"; else not_ok "csv economics columns"; fi

# The report: a section beside the summary, the fit message, and a chart of
# FOM, FOM per MW and FOM per $ side by side.
fom_run 0 report $S -o "$T_TMP/rep"
if grep -F '## Power, price and fit' "$T_TMP/rep/report.md" >/dev/null; then ok "report: power, price and fit section"; else not_ok "report: no power section"; fi
if grep -F 'Does not fit: gpt2 on small needs' "$T_TMP/rep/report.md" >/dev/null; then ok "report: does-not-fit message"; else not_ok "report: no fit message"; fi
if grep -E '^\| h100 \| 5\.1 \| [0-9.]+ \| 1\.000 \| 0\.16 \|' "$T_TMP/rep/report.md" >/dev/null; then ok "report: h100 power and price row"; else not_ok "report: h100 power row"; fi
if [ -s "$T_TMP/rep/economics.svg" ] && grep -q 'FOM per MW' "$T_TMP/rep/economics.svg"; then ok "report: economics chart"; else not_ok "report: no economics chart"; fi

# Measured-only studies have no power: unavailable, not invented.
fom_run 0 fom reports/candle-seed.xml --format json
expect_json_num 'all(s["power_w"] is None and s["fom_per_watt"] is None and s["fom_per_dollar"] is None for s in d["systems"])' 1 0
expect_json_num 'all(v is None for p in d["problems"] for v in p["energy_kwh_per_unit"].values())' 1 0

# A study's node-power must be a power.
sed 's/node-power="1.5kW"/node-power="1.5"/' $S > "$T_TMP/bad.xml"
sed -i "s|\\.\\./\\.\\./\\.\\./|$ROOT/|g; s|\\.\\./machine/|$ROOT/tests/data/machine/|" "$T_TMP/bad.xml"
fom_run 1 fom "$T_TMP/bad.xml"
expect_err_contains "bad.xml:11: error: found node-power='1.5', expected a positive power with a unit"

done_testing
