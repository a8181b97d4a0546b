#!/bin/sh
# Runs over whole nodes: the 1,000-node Perlmutter-like study with 16-node
# runs (reports/perlmutter-1000.xml), its gradient exchange redone by hand
# from machines/perlmutter-gpu-node-a100.xml, the scaling curve and the
# report's Communication section and chart.
. "$TESTS_DIR/t/lib.sh"

S=reports/perlmutter-1000.xml
fom_run 0 fom $S --format json
P='[p for p in d["problems"] if p["id"]=="p1b3"][0]'
Q="[q for q in $P[\"scaling\"][\"perlmutter\"] if q[\"devices_per_run\"]==64][0]"
# p1b3: 30,088,701 parameters (the trace's .meta.json) x 4 B = 120,354,804 B in DDP
# buckets: 1 MiB, 4 x 25 MiB, 14,448,628 B.  g = 4, N = 16: per bucket of
# n bytes 2 (3/4) n / 300 GB/s + 6 x 3.4 us inside, a tree across (2 n /
# 100 GB/s + 2 x 4 x 9.6 us, cheaper than the ring's 30 steps) and 8.4 us:
# n x 2.5e-11 s/B + 105.6 us.
expect_json_num "$Q[\"comm_s\"]" "$(python3 -c "print(120354804 * 2.5e-11 + 6 * 105.6e-6)")" 1e-9
# the last bucket is never hidden
expect_json_num "$Q[\"exposed_comm_s\"] >= 14448628 * 2.5e-11 + 105.6e-6 - 1e-12" 1 0
expect_json_num "$P[\"exposed_comm_s\"][\"perlmutter\"] == $Q[\"exposed_comm_s\"]" 1 0
# 62 runs of 16 nodes fit 1,000 nodes (8 idle): 0.062 runs per node
expect_json_num "$P[\"runs_per_node\"][\"perlmutter\"]" 0.062 1e-12
expect_json_num "$Q[\"concurrent_runs\"]" 62 0
expect_json_num "$Q[\"system_units_per_day\"] / $Q[\"units_per_day\"]" 62 1e-12
# one run: 86400 s / (141 minibatches x (pass + exposed)), 900,000 / 6,400
expect_json_num "$Q[\"units_per_day\"]" \
    "$(fom_run 0 fom $S --format json >/dev/null; python3 -c "
import json; d = json.load(open('$OUT')); q = $Q
print(86400 / (141 * (q['pass_s'] + q['exposed_comm_s'])))")" 1e-12
fom_run 0 fom $S --format json
# the ideal line: the 1-device rate x 64
expect_json_num "$Q[\"ideal_units_per_day\"] / $P[\"scaling\"][\"perlmutter\"][0][\"units_per_day\"]" 64 1e-12
expect_json_num "[q[\"devices_per_run\"] for q in $P[\"scaling\"][\"perlmutter\"]] == [1, 2, 4, 8, 16, 32, 64, 128, 256]" 1 0
# 16-node runs on the 8-GPU HGX nodes are 8-node runs
expect_json_num "[q for q in $P[\"scaling\"][\"hgx-h200\"] if q[\"devices_per_run\"]==64][0][\"nodes_per_run\"]" 8 0

# the text output says the exposed exchange the JSON gives (7 significant digits)
X=$(python3 -c "import json; d = json.load(open('$OUT')); print('%.7g' % $P['exposed_comm_s']['perlmutter'])")
fom_run 0 fom $S
expect_out_contains "p1b3 on perlmutter: $X s exposed gradient exchange per pass"

if command -v gnuplot >/dev/null 2>&1; then
    fom_run 0 report $S -o "$T_TMP/rep"
    R="$T_TMP/rep/report.md"
    for s in "## Communication" \
             "N = 16 nodes, B_node = 4 NICs x 25 GB/s = 100 GB/s, a_inter = 9.6 us" \
             "across nodes a tree (cheaper than a ring here): 2 n / B_node = 524.288 us, 2 ceil(log2 N) x a_inter = 76.8 us; + a_0: 760.96 us in all." \
             "30088701 parameters (from the trace's .meta.json)" \
             "| 64 | 16 | 100 |"; do
        if grep -qF "$s" "$R"; then ok "report.md: $s"; else not_ok "report.md lacks: $s"; fi
    done
    if [ -s "$T_TMP/rep/scaling-2.svg" ] && grep -qF "perlmutter ideal" "$T_TMP/rep/scaling-2.svg"; then
        ok "scaling chart with the ideal line"
    else
        not_ok "no scaling-2.svg with an ideal line"
    fi
    # weak scaling beside it: the whole system's rate with runs side by side
    if grep -qF "perlmutter system, runs side by side" "$T_TMP/rep/scaling-2.svg"; then
        ok "scaling chart with the system's rate (weak scaling)"
    else
        not_ok "scaling-2.svg lacks the system's rate (weak scaling)"
    fi
fi

done_testing
