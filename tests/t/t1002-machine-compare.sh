#!/bin/sh
# fom machine compare: golden H100 vs H200, ratios checked by hand:
# bandwidth 4.8 / 3.35 = 1.43284, capacity 141 / 80 = 1.7625, ridge
# (same peaks) 3.35 / 4.8 = 0.697917.
. "$TESTS_DIR/t/lib.sh"

fom_run 0 machine compare machines/h100*.xml machines/h200*.xml
expect_golden t1002-compare-h100-h200
expect_out_contains "baseline: h100-sxm5-80gb (machines/h100-sxm5-80gb.xml)"
expect_out_contains "main memory bandwidth per device [GB/s]"

fom_run 0 machine compare machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml --format json
row() { echo "[r for r in d[\"rows\"] if r[\"quantity\"]==\"$1\"][0]"; }
expect_json_num 'd["baseline"] == "h100-sxm5-80gb"' 1 0
expect_json_num "$(row main_memory.bw.device)[\"ratios\"][1]" 1.4328358208955223 1e-12
expect_json_num "$(row main_memory.bw.device)[\"values\"][1]" 4.8e12 1e-12
expect_json_num "$(row main_memory.capacity.device)[\"ratios\"][1]" 1.7625 1e-12
expect_json_num "$(row ridge.bf16.matrix)[\"ratios\"][1]" 0.6979166666666667 1e-12
expect_json_num "$(row ridge.bf16.matrix)[\"values\"][0]" 295.34328358208955 1e-12
expect_json_num "$(row peak.bf16.matrix.device)[\"ratios\"][1]" 1 1e-12
expect_json_num "$(row price)[\"ratios\"][1] is None" 1 0

# Three machines with different devices per node: per-node fp64 of a
# Perlmutter node (4 x 9.7) over one H100 (33.5) = 1.15821.
fom_run 0 machine compare machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml machines/perlmutter-gpu-node-a100.xml --format json
expect_json_num "$(row peak.fp64.vector.node)[\"ratios\"][2]" 1.1582089552238806 1e-12
expect_json_num "$(row peak.fp64.vector.device)[\"ratios\"][2]" 0.2895522388059701 1e-12

fom_run 0 machine compare machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml --format csv
expect_out_contains "quantity,unit,h100-sxm5-80gb,h200-sxm-141gb,h200-sxm-141gb/h100-sxm5-80gb ratio"
expect_out_contains "main_memory.bw.device,GB/s,3350,4800,1.432835821"

# A bad file: nothing is written, every bad file is named.
fom_run 1 machine compare machines/h100-sxm5-80gb.xml tests/data/machine/bad-zero.xml tests/data/machine/bad-unit.xml -o "$T_TMP/cmp.txt"
expect_err_contains "tests/data/machine/bad-zero.xml:6: error: found '0 TFLOP/s' in <peak>, expected a value greater than zero"
expect_err_contains "tests/data/machine/bad-unit.xml:7: error: found unit 'GHz'"
if [ -e "$T_TMP/cmp.txt" ]; then not_ok "output written despite errors"; else ok "no output on error"; fi

# a chart that gnuplot cannot write is a usage error, before any file is read
fom_run 2 machine compare machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml --chart "$T_TMP/c.pdf"
expect_err_contains "error: found chart '$T_TMP/c.pdf', expected a file name ending in .svg or .png"

done_testing
