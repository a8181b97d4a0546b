#!/bin/sh
# A study whose system names a measured all-reduce table (a `comm` kernel
# table): each DDP bucket's all-reduce comes from the table where it has
# rows at the run's rank count (one host) and the bucket lies within its
# sizes, from the machine file otherwise; the report says which.  The
# expected sums are redone here from the CSV and the machine file.
. "$TESTS_DIR/t/lib.sh"

K="$T_TMP/h200-comm"
mkdir -p "$K"
cp estimators/h200/h200_comm.csv estimators/h200/env.json "$K/"
study() {   # $1: kernels attribute (may be empty)
    cat >"$T_TMP/s.xml" <<EOF
<?xml version="1.0"?>
<study name="comm table" baseline="node">
  <system id="node" nodes="2" machine="$ROOT/machines/hgx-h200-8gpu.xml"$1/>
  <problem id="p1b3">
    <workload profile="$ROOT/profiles/p1b3_h200_fp32_b100.json.gz" batch="400"
              profile-batch="100" samples-per-epoch="900000" epochs="1" precision="fp32"
              devices-per-run="4" parameters="30088701"/>
  </problem>
</study>
EOF
}

# 30,088,701 parameters x 4 B = 120,354,804 B: 1 MiB, 4 x 25 MiB, the rest
BUCKETS="[1048576] + [26214400] * 4 + [120354804 - 1048576 - 4 * 26214400]"
# the table's fp32 all-reduce rows at 4 ranks, log-log between neighbours
TABLE_SUM=$(python3 -c "
import csv, math
rows = sorted((int(r['bytes']), float(r['time_us']) * 1e-6)
              for r in csv.DictReader(open('estimators/h200/h200_comm.csv'))
              if r['op'] == 'all_reduce' and r['ranks'] == '4' and r['precision'] == 'fp32')
def t(n):
    lo = max(r for r in rows if r[0] <= n); hi = min(r for r in rows if r[0] >= n)
    if lo[0] == hi[0]: return lo[1]
    f = math.log(n / lo[0]) / math.log(hi[0] / lo[0])
    return math.exp(math.log(lo[1]) + f * math.log(hi[1] / lo[1]))
print(repr(sum(t(n) for n in $BUCKETS)))")
# the machine file: 2 (g-1)/g n / 450 GB/s + 2 (g-1) x 3.4 us + 8.4 us
MACHINE_SUM=$(python3 -c "print(repr(sum(1.5 * n / 450e9 + 6 * 3.4e-6 + 8.4e-6 for n in $BUCKETS)))")

study " kernels=\"$K\""
fom_run 0 fom "$T_TMP/s.xml" --format json
P='d["problems"][0]["scaling"]["node"]'
Q="[q for q in $P if q[\"devices_per_run\"]==4][0]"
expect_json_num "$Q[\"comm_buckets\"]" 6 0
expect_json_num "$Q[\"comm_buckets_from_table\"]" 6 0
expect_json_num "$Q[\"comm_s\"]" "$TABLE_SUM" 1e-9
# 8 ranks: the table has no rows there, so every bucket is the machine's
expect_json_num "[q for q in $P if q[\"devices_per_run\"]==8][0][\"comm_buckets_from_table\"]" 0 0
# 16 ranks span two nodes: a one-host table never applies
expect_json_num "[q for q in $P if q[\"devices_per_run\"]==16][0][\"comm_buckets_from_table\"]" 0 0

study ""
fom_run 0 fom "$T_TMP/s.xml" --format json
expect_json_num "$Q[\"comm_buckets_from_table\"]" 0 0
expect_json_num "$Q[\"comm_s\"]" "$MACHINE_SUM" 1e-9
cp "$OUT" "$T_TMP/study.json"

# The exposed exchange, redone from `fom estimate` at the per-device batch:
# the backward pass lasts the larger of its ops' device and host times;
# bucket k is ready at that window x its cumulative share of the bytes,
# one exchange at a time; what runs past the window is exposed.
fom_run 0 estimate --profile profiles/p1b3_h200_fp32_b100.json.gz \
    --machine machines/hgx-h200-8gpu.xml --batch 100 --profile-batch 100 --format json
EXPOSED=$(python3 - "$OUT" <<PY
import json, sys
e = json.load(open(sys.argv[1]))
bw = [o for o in e["ops"] if o["phase"] == "backward"]
w = max(sum(o["device_time_s"] for o in bw), sum(o["host_time_s"] for o in bw))
b = $BUCKETS
free, done = 0.0, 0
for n in b:
    done += n
    free = max(free, w * done / sum(b)) + 1.5 * n / 450e9 + 6 * 3.4e-6 + 8.4e-6
print(repr(max(0.0, free - w)))
PY
)
PASS=$(python3 -c "import json; print(repr(json.load(open('$OUT'))['pass_time_s']))")
cp "$T_TMP/study.json" "$OUT"
expect_json_num "$Q[\"pass_s\"]" "$PASS" 1e-12
expect_json_num "$Q[\"exposed_comm_s\"]" "$EXPOSED" 1e-9

if command -v gnuplot >/dev/null 2>&1; then
    study " kernels=\"$K\""
    fom_run 0 report "$T_TMP/s.xml" -o "$T_TMP/rep"
    R="$T_TMP/rep/report.md"
    for s in "Source: the measured all-reduce table of NVIDIA H200" \
             "for 6 of the 6 buckets, the machine file for the rest"; do
        if grep -qF "$s" "$R"; then ok "report.md: $s"; else not_ok "report.md lacks: $s"; fi
    done
    study ""
    fom_run 0 report "$T_TMP/s.xml" -o "$T_TMP/rep2"
    if grep -qF "Source of every all-reduce term: the machine file" "$T_TMP/rep2/report.md"; then
        ok "report.md without a table names the machine file"
    else
        not_ok "report.md without a table does not name the machine file"
    fi
fi

done_testing
