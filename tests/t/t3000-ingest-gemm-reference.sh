#!/bin/sh
# For every PyTorch trace fixture, the per-pass GEMM flops and GEMM op
# count of 'fom ingest' must equal an independent computation (python3
# straight from the gz JSON: 2·m·n·k·b over aten::mm/addmm/bmm/baddbmm
# cpu_ops starting inside ProfilerStep ranges, divided by the steps) within
# 1%, and the step count must match the .meta.json (GPU 2, CPU 1).
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

REF="$T_TMP/ref.py"
cat >"$REF" <<'PY'
import gzip, json, sys
trace, prof, meta = sys.argv[1:4]
d = json.load(gzip.open(trace))
p = json.load(open(prof))
m = json.load(open(meta))
ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
steps = [(e["ts"], e["ts"] + e["dur"]) for e in ev
         if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
G = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")
gem = [e for e in ev if e.get("cat") == "cpu_op" and e["name"] in G
       and any(a <= e["ts"] <= b for a, b in steps)]
# An autocast wrapper (aten::addmm calling aten::addmm on cast inputs)
# contains another GEMM op on its thread: only the inner one computes.
def contains(o, i):
    return (o is not i and o["tid"] == i["tid"] and o["ts"] <= i["ts"]
            and i["ts"] + i["dur"] <= o["ts"] + o["dur"])
inner = [e for e in gem if not any(contains(e, o) for o in gem)]
fl = 0.0
for e in inner:
    dims = e["args"]["Input Dims"]
    if e["name"] in ("aten::addmm", "aten::baddbmm"):
        dims = dims[1:]
    a, b = dims[0], dims[1]
    if len(a) == 2:
        fl += 2.0 * a[0] * a[1] * b[1]
    else:
        fl += 2.0 * a[0] * a[1] * a[2] * b[2]
n = len(steps)
ref_flops, ref_count = fl / n, len(inner) / n
got_flops = sum(o["flops"] for o in p["ops"] if o["kind"] == "gemm")
got_count = sum(o["count"] for o in p["ops"] if o["kind"] == "gemm")
def close(x, y):
    return abs(x - y) <= 0.01 * abs(y) if y else abs(x) < 1e-9
name = trace.split("/")[-1]
want_steps = m.get("profiled_steps", 2 if m.get("device") == "cuda" else 1)
print("%s steps %d (want %d)" % ("OK" if p["steps"] == n == want_steps else "FAIL", p["steps"], want_steps), name)
print("%s gemm GFLOP/pass %.6g (reference %.6g)" % ("OK" if close(got_flops, ref_flops) else "FAIL", got_flops / 1e9, ref_flops / 1e9), name)
print("%s gemm ops/pass %.6g (reference %.6g)" % ("OK" if close(got_count, ref_count) else "FAIL", got_count, ref_count), name)
PY

for t in "$DATA"/traces/h200/*.json.gz "$DATA"/traces/hostcpu/*.json.gz; do
    meta=${t%.json.gz}.meta.json
    fom_run 0 ingest "$t" --format-out json
    cp "$OUT" "$T_TMP/prof.json"
    python3 "$REF" "$t" "$T_TMP/prof.json" "$meta" >"$T_TMP/res" 2>&1 || echo "FAIL python reference crashed" >>"$T_TMP/res"
    while read -r status rest; do
        if [ "$status" = OK ]; then ok "$rest"; else not_ok "$status $rest"; fi
    done <"$T_TMP/res"
done
done_testing
