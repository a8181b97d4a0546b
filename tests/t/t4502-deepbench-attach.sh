#!/bin/sh
# DeepBench's published tables attach to the shipped machine files they
# describe through the machine file's <table-name>, with no renaming; when
# no table fits, the warning names the tables' hardware and the fix.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

P1B3=tests/data/traces/h200/p1b3_h200_fp32_b100.json.gz

fom_run 0 machine validate machines/summit-node-v100.xml
fom_run 0 estimate --profile "$P1B3" --machine machines/summit-node-v100.xml \
    --kernels estimators/deepbench/NV_V100 --format json
expect_json_num 'd["target_table"] == "NV_V100"' 1 0
# the table's GEMM rows are used: some op's method is a table method
expect_json_num 'any(o["method"] in ("table", "interpolated", "scaled-table") for o in d["ops"] if o["kind"] == "gemm")' 1 0
if grep -q "no kernel table is for" "$ERR"; then not_ok "summit warns of no table"; else ok "summit takes NV_V100"; fi

# Titan's K20X has no DeepBench table: the warning lists the hardware the
# tables are for and how to attach one
fom_run 0 estimate --profile "$P1B3" --machine machines/titan-node-k20x.xml \
    --kernels estimators/deepbench/NV_V100 --kernels estimators/deepbench/NV_P100
expect_err_contains "warning: no kernel table is for 'Tesla K20X' (the tables are for 'NV_V100', 'NV_P100'"
expect_err_contains "add <table-name>NAME</table-name> with the table's hardware name to machines/titan-node-k20x.xml"

# a <table-name> in a machine file of one's own attaches a table the same way
sed 's|<device-name>Tesla K20X</device-name>|&<table-name>NV_P100</table-name>|' \
    machines/titan-node-k20x.xml >"$T_TMP/k20x.xml"
fom_run 0 estimate --profile "$P1B3" --machine "$T_TMP/k20x.xml" \
    --kernels estimators/deepbench/NV_P100 --format json
expect_json_num 'd["target_table"] == "NV_P100"' 1 0

done_testing
