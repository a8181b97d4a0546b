#!/bin/sh
# make bench (ingest part): a >= 1 GB Kineto trace (uncompressed JSON size;
# stored gzip'd, level 1) made by replicating the events of a real trace;
# times 'fom ingest' next to 'zcat' on the same file and python's
# json.load on a ~200 MB slice (json.load of 1 GB needs ~10 GB of RAM), and
# compares throughput per byte of JSON.  Peak RSS from /usr/bin/time.
set -eu
FOM=${FOM:-./fom}
SRC=${SRC:-tests/data/traces/h200/resnet50_h200_bf16_b64.json.gz}
MIN_BYTES=${MIN_BYTES:-1000000000}
SLICE_BYTES=${SLICE_BYTES:-200000000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/fom-bench-ingest.XXXXXX")
trap 'rm -rf "$DIR"' EXIT INT TERM
BIG="$DIR/big.json.gz"
SLICE="$DIR/slice.json.gz"

echo "generating traces from $SRC (gzip'd JSON, sizes uncompressed) ..."
python3 tests/bench/kineto-replicate.py "$SRC" "$BIG" "$MIN_BYTES"
python3 tests/bench/kineto-replicate.py "$SRC" "$SLICE" "$SLICE_BYTES"
big_bytes=$(zcat "$BIG" | wc -c)
slice_bytes=$(zcat "$SLICE" | wc -c)

# run NAME CMD...: prints "NAME wall_s cpu_s maxrss_kb"
run() {
    name=$1; shift
    /usr/bin/time -f "$name %e %U %S %M" -o "$DIR/t" "$@" >/dev/null
    awk '{printf "%s %.3f %.3f %d\n", $1, $2, $3 + $4, $5}' "$DIR/t"
}
{
    run zcat zcat "$BIG"
    run fom "$FOM" ingest "$BIG" --format-out json -o "$DIR/prof.json"
    run fom_slice "$FOM" ingest "$SLICE" --format-out json -o "$DIR/prof_slice.json"
    run python_slice python3 -c 'import json,gzip,sys; json.load(gzip.open(sys.argv[1]))' "$SLICE"
} >"$DIR/res"
cat "$DIR/res"
python3 - "$DIR/res" "$big_bytes" "$slice_bytes" "$DIR/prof.json" "$DIR/prof_slice.json" <<'PY'
import json, sys
r = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(sys.argv[1])}
big, sl = int(sys.argv[2]), int(sys.argv[3])
mb = 1e6
fom_t, z_t, fs_t, py_t = r["fom"][0], r["zcat"][0], r["fom_slice"][0], r["python_slice"][0]
print()
print("big trace:   %.0f MB of JSON (gzip'd); slice: %.0f MB" % (big / mb, sl / mb))
print("fom ingest:  %.2f s wall, %.2f s cpu, %.0f MB/s, peak RSS %.1f MB"
      % (fom_t, r["fom"][1], big / mb / fom_t, r["fom"][2] / 1024))
print("zcat:        %.2f s wall, %.2f s cpu, %.0f MB/s" % (z_t, r["zcat"][1], big / mb / z_t))
print("python json.load (slice): %.2f s wall, %.0f MB/s, peak RSS %.0f MB"
      % (py_t, sl / mb / py_t, r["python_slice"][2] / 1024))
print("fom (slice): %.2f s wall, %.0f MB/s" % (fs_t, sl / mb / fs_t))
print()
ratio_z = fom_t / z_t
ratio_py = (sl / py_t) and (big / fom_t) / (sl / py_t)
ratio_py_same = py_t / fs_t
print("fom / zcat time on the same file:             %.2fx (target <= 2)  %s" % (ratio_z, "ok" if ratio_z <= 2 else "MISSED"))
print("fom vs python json.load, per-byte throughput: %.1fx faster (1 GB fom vs slice python; target >= 5)  %s" % (ratio_py, "ok" if ratio_py >= 5 else "MISSED"))
print("fom vs python json.load, same slice file:     %.1fx faster" % ratio_py_same)
print("fom peak RSS on the big trace:                %.1f MB (target < 64)  %s" % (r["fom"][2] / 1024, "ok" if r["fom"][2] / 1024 < 64 else "MISSED"))
a, b = json.load(open(sys.argv[4])), json.load(open(sys.argv[5]))
print("per-pass total time big vs slice: %.6g s vs %.6g s (replicas: must be equal)" % (a["total_time_s"], b["total_time_s"]))
PY
