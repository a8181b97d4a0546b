#!/bin/sh
# make bench (scale part): inputs as large as the size caps allow, each
# beside a reference run on the same input in the same go.
#   study: 100k systems (one time each) and 100k repeats of one problem
#          (two systems, 50k each): 'fom fom' next to 'xmllint --noout' of
#          the same file (libxml2's parse alone, the floor of any reader);
#          targets: under 2 s.
#   ops:   a Kineto trace of N_OPS (default 1M) distinct GEMM shapes, one
#          call each, next to a trace of as many calls of ONE shape (same
#          bytes per event): ingest time ratio, and the peak memory of the
#          difference per distinct op (target: under 300 bytes); then
#          'fom estimate' of the distinct profile per op (target: under
#          10 us) next to reading and writing the same profile back.
# Time is wall and cpu (user + system) seconds, memory the peak RSS from
# /usr/bin/time.
set -eu
FOM=${FOM:-./fom}
N_SYS=${N_SYS:-100000}
N_REP=${N_REP:-100000}
N_OPS=${N_OPS:-1000000}
MACHINE=${MACHINE:-machines/h100-sxm5-80gb.xml}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/fom-bench-scale.XXXXXX")
trap 'rm -rf "$DIR"' EXIT INT TERM

# run NAME CMD...: appends "NAME wall_s cpu_s maxrss_kb" to $DIR/res.
# sync first: the kernel writes the previous case's output (hundreds of
# MB) back to disk meanwhile and throttles writers while it is dirty,
# which would land in this case's time
run() {
    name=$1; shift
    sync
    /usr/bin/time -f "$name %e %U %S %M" -o "$DIR/t" "$@" >/dev/null 2>"$DIR/err" ||
        { echo "$name failed:"; cat "$DIR/err"; exit 1; }
    awk '{printf "%s %.3f %.3f %d\n", $1, $2, $3 + $4, $5}' "$DIR/t" >>"$DIR/res"
}

awk -v n="$N_SYS" 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    print "<study name=\"systems\" baseline=\"s0\">"
    for (i = 0; i < n; i++) printf "  <system id=\"s%d\" nodes=\"%d\"/>\n", i, 1 + i % 64
    print "  <problem id=\"p\">"
    for (i = 0; i < n; i++) printf "    <time system=\"s%d\" per-unit=\"%gh\"/>\n", i, 1 + (i % 97) / 10
    print "  </problem>"
    print "</study>"
}' >"$DIR/systems.xml"
awk -v n="$N_REP" 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    print "<study name=\"repeats\" baseline=\"a\">"
    print "  <system id=\"a\" nodes=\"100\"/>"
    print "  <system id=\"b\" nodes=\"50\"/>"
    print "  <problem id=\"p\">"
    for (i = 0; i < n; i++) printf "    <time system=\"%s\" per-unit=\"%gh\"/>\n", i % 2 ? "b" : "a", 1 + (i % 997) / 100
    print "  </problem>"
    print "</study>"
}' >"$DIR/repeats.xml"

# trace N DISTINCT: N aten::mm calls in one step; shapes m x k by k x n
# all different (DISTINCT=1) or all 500 x 500 by 500 x 1 (same width)
trace() {
    awk -v n="$1" -v distinct="$2" 'BEGIN {
        printf "{\"schemaVersion\":1,\"deviceProperties\":[],\"traceEvents\":[\n"
        printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":%d,\"args\":{\"External id\":1}}", n * 10 + 10
        for (i = 0; i < n; i++) {
            if (distinct) { m = 1 + i % 1000; k = 1 + int(i / 1000) % 1000; c = 1 + int(i / 1000000) }
            else { m = 500; k = 500; c = 1 }
            printf ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"args\":{\"External id\":%d,\"Input Dims\":[[%d,%d],[%d,%d]],\"Input type\":[\"float\",\"float\"]}}", 1000 + i * 10, i + 2, m, k, k, c
        }
        printf "\n]}\n"
    }'
}
trace "$N_OPS" 1 >"$DIR/distinct.json"
trace "$N_OPS" 0 >"$DIR/same.json"

: >"$DIR/res"
run study_systems "$FOM" fom "$DIR/systems.xml" --format json -o "$DIR/systems.out"
run xmllint_systems xmllint --noout --huge "$DIR/systems.xml"
run study_repeats "$FOM" fom "$DIR/repeats.xml" --format json -o "$DIR/repeats.out"
run xmllint_repeats xmllint --noout --huge "$DIR/repeats.xml"
run ingest_distinct "$FOM" ingest "$DIR/distinct.json" --format-out json -o "$DIR/distinct.prof.json"
run ingest_same "$FOM" ingest "$DIR/same.json" --format-out json -o "$DIR/same.prof.json"
run estimate_distinct "$FOM" estimate --profile "$DIR/distinct.prof.json" --machine "$MACHINE" \
    --format json -o "$DIR/est.json"
run reread_distinct "$FOM" ingest "$DIR/distinct.prof.json" --format-out json -o "$DIR/reread.json"
cat "$DIR/res"
python3 - "$DIR/res" "$N_SYS" "$N_REP" "$N_OPS" "$DIR/distinct.json" "$DIR/distinct.prof.json" <<'PY'
import json, os, sys
r = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(sys.argv[1])}
n_sys, n_rep, n_ops = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
trace_mb = os.path.getsize(sys.argv[5]) / 1e6
ops = len(json.load(open(sys.argv[6]))["ops"])
def ok(c): return "ok" if c else "MISSED"
print()
for name, n, what in (("systems", n_sys, "systems"), ("repeats", n_rep, "repeats of one problem")):
    f, x = r["study_" + name], r["xmllint_" + name]
    print("study, %d %s: %.2f s wall (%.2f s cpu), peak RSS %.0f MB; xmllint %.2f s wall (%.2f s cpu), "
          "%.0f MB; %.1fx xmllint's cpu (target < 2 s)  %s"
          % (n, what, f[0], f[1], f[2] / 1024, x[0], x[1], x[2] / 1024, f[1] / x[1], ok(f[0] < 2)))
d, s = r["ingest_distinct"], r["ingest_same"]
per_op = (d[2] - s[2]) * 1024 / ops
print("ingest, %d distinct ops (%.0f MB trace): %.2f s wall (%.2f s cpu), %.0f MB/s, peak RSS %.0f MB; "
      "one op %d times: %.2f s wall, %.0f MB/s, %.0f MB; time %.2fx"
      % (ops, trace_mb, d[0], d[1], trace_mb / d[0], d[2] / 1024, n_ops, s[0], trace_mb / s[0], s[2] / 1024,
         d[0] / s[0]))
print("  memory per distinct op: %.0f bytes (target < 300)  %s" % (per_op, ok(per_op < 300)))
e, rr = r["estimate_distinct"], r["reread_distinct"]
print("estimate, %d distinct ops: %.2f s wall (%.2f s cpu) = %.1f us per op (cpu %.1f), peak RSS %.0f MB; "
      "reading and writing the profile back %.2f s wall; %.2fx (target < 10 us per op)  %s"
      % (ops, e[0], e[1], e[0] / ops * 1e6, e[1] / ops * 1e6, e[2] / 1024, rr[0], e[0] / rr[0],
         ok(e[0] / ops * 1e6 < 10)))
PY
