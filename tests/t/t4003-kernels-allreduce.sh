#!/bin/sh
# DeepBench's published all-reduce results (train_results_allreduce.csv:
# hw,num_floats,ranks,nodes,mean_ms,...) import as comm rows: fp32
# all_reduce of 4 x num_floats bytes, one table per hw; rows over several
# nodes are left out with a warning at the first.  A study on a machine
# whose table is one of them takes each bucket's all-reduce from it.
. "$TESTS_DIR/t/lib.sh"
K="$DATA/kernels/deepbench_published_allreduce.csv"
DB="$T_TMP/k.db"

fom_run 0 kernels import "$K" --db "$DB"
# one row per (hw, ranks, num_floats) of the one-host rows (nodes empty)
python3 - "$K" >"$T_TMP/want" <<'PY'
import csv, sys
keys = {}
for r in csv.DictReader(open(sys.argv[1])):
    if not r["nodes"]:
        keys.setdefault(r["hw"], set()).add((r["ranks"], r["num_floats"]))
for hw in sorted(keys):
    print("%s: %d rows (comm fp32 %d)" % (hw, len(keys[hw]), len(keys[hw])))
PY
while read -r line; do expect_out_contains "$line"; done <"$T_TMP/want"
L=$(awk -F, 'NR > 1 && $4 != "" { print NR; exit }' "$K")
expect_err_contains "deepbench_published_allreduce.csv:$L:21: warning: found an all-reduce over 2 nodes, expected one host"

# NV_P100's 4-rank rows as the table of a 6-GPU node named NV_P100
sed 's|<table-name>NV_V100</table-name>|<table-name>NV_P100</table-name>|' \
    machines/summit-node-v100.xml >"$T_TMP/p100-node.xml"
cat >"$T_TMP/s.xml" <<EOF
<?xml version="1.0"?>
<study name="deepbench all-reduce" baseline="node">
  <system id="node" nodes="1" machine="$T_TMP/p100-node.xml" kernels="$DB"/>
  <problem id="p1b3">
    <workload profile="$ROOT/profiles/p1b3_h200_fp32_b100.json.gz" batch="400"
              profile-batch="100" samples-per-epoch="900000" epochs="1" precision="fp32"
              devices-per-run="4" parameters="30088701"/>
  </problem>
</study>
EOF
# 120,354,804 B in 1 MiB, 4 x 25 MiB and the rest; log-log between the two
# nearest sizes of NV_P100's 4-rank rows (a later row of the same size wins)
WANT=$(python3 - "$K" <<'PY'
import csv, math, sys
t = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["hw"] == "NV_P100" and r["ranks"] == "4" and not r["nodes"]:
        t[4 * int(r["num_floats"])] = float(r["mean_ms"]) * 1e-3
rows = sorted(t.items())
def at(n):
    lo = max(r for r in rows if r[0] <= n); hi = min(r for r in rows if r[0] >= n)
    if lo[0] == hi[0]: return lo[1]
    f = math.log(n / lo[0]) / math.log(hi[0] / lo[0])
    return math.exp(math.log(lo[1]) + f * math.log(hi[1] / lo[1]))
b = [1048576] + [26214400] * 4 + [120354804 - 1048576 - 4 * 26214400]
print(repr(sum(at(n) for n in b)))
PY
)
fom_run 0 fom "$T_TMP/s.xml" --format json
Q='[q for q in d["problems"][0]["scaling"]["node"] if q["devices_per_run"]==4][0]'
expect_json_num "$Q[\"comm_buckets_from_table\"]" 6 0
expect_json_num "$Q[\"comm_s\"]" "$WANT" 1e-9

# a bad cell is an error at its line and column
printf 'hw,num_floats,ranks,nodes,mean_ms\nNV_X,0,2,,0.5\n' >"$T_TMP/bad.csv"
fom_run 1 kernels import "$T_TMP/bad.csv" --db "$DB"
expect_err_contains "bad.csv:2:6: error: num_floats: found '0'"
printf 'hw,num_floats,ranks,nodes\nNV_X,10,2,\n' >"$T_TMP/notime.csv"
fom_run 1 kernels import "$T_TMP/notime.csv" --db "$DB"
expect_err_contains "notime.csv:1:1: error: header: found 'hw', expected a 'mean_ms' column (comm table)"

done_testing
