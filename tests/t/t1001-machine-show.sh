#!/bin/sh
# fom machine show: golden text for the H100, JSON values checked against
# the datasheet numbers, CSV and -o.
. "$TESTS_DIR/t/lib.sh"

fom_run 0 machine show machines/h100-sxm5-80gb.xml
expect_golden t1001-show-h100

fom_run 0 machine show machines/h100-sxm5-80gb.xml --format json
expect_json_num 'd["devices_per_node"]' 1 0
# 132 SMs (the H100 architecture whitepaper)
expect_json_num 'd["compute_units"]' 132 0
expect_json_num '[p["flops"] for p in d["peaks"] if p["precision"]=="bf16" and p["unit"]=="matrix"][0]' 989.4e12 1e-12
expect_json_num '[p["flops"] for p in d["peaks"] if p["precision"]=="fp64" and p["unit"]=="vector"][0]' 33.5e12 1e-12
# ridge = 989.4 TFLOP/s / 3.35 TB/s
expect_json_num '[p["ridge_flop_per_byte"] for p in d["peaks"] if p["precision"]=="bf16" and p["unit"]=="matrix"][0]' 295.34328358208955 1e-12
expect_json_num 'd["main_memory_bw_bs"]' 3.35e12 1e-12
expect_json_num 'd["memory"][1]["capacity_b"]' 80e9 1e-12
expect_json_num 'd["launch_latency_s"]' 4e-6 1e-12
expect_json_num 'd["intra_node"]["bw_bs"]' 450e9 1e-12
# 1 x 700 W device TDP + 575 W host share (device-power + host-power)
expect_json_num 'd["power_w"]' 1275 0
expect_json_num 'd["price_usd"] is None' 1 0

# A four-device node: per-node peak = 4 x 9.7 TFLOP/s
fom_run 0 machine show machines/perlmutter-gpu-node-a100.xml --format=json
# its network: 4 Slingshot-11 NICs of 200 Gbit/s = 25 GB/s, 100 GB/s per node
expect_json_num 'd["inter_node_nics"]' 4 0
expect_json_num 'd["inter_node_nic_bw_bs"]' 25e9 1e-12
expect_json_num 'd["inter_node"]["bw_bs"]' 100e9 1e-12
expect_json_num 'd["inter_node"]["topology"] == "dragonfly"' 1 0
expect_json_num 'd["intra_node"]["fabric"] == "NVLink 3"' 1 0
expect_json_num '[p["node_flops"] for p in d["peaks"] if p["precision"]=="fp64" and p["unit"]=="vector"][0]' 38.8e12 1e-12

fom_run 0 machine show tests/data/machine/good.xml --format csv
expect_out_contains "field,value,unit"
expect_out_contains "name,Test node & friends,"
expect_out_contains "peak.int8.matrix.device,800000000000000,OP/s"
expect_out_contains "peak.bf16.matrix.node,1600000000000000,FLOP/s"
expect_out_contains "memory.HBM.capacity,103079215104,B"
expect_out_contains "intra_node.bw,25000000000,B/s"
expect_out_contains "price,125000,USD"

fom_run 0 machine show machines/h100-sxm5-80gb.xml -o "$T_TMP/show.txt"
if [ ! -s "$OUT" ] && cmp -s "$T_TMP/show.txt" "$GOLDEN/t1001-show-h100.out"; then
    ok "-o writes the same text as standard output"
else
    not_ok "-o output differs"
fi
if ls "$T_TMP"/show.txt.tmp.* >/dev/null 2>&1; then not_ok "temporary file left"; else ok "no temporary file left"; fi

done_testing
