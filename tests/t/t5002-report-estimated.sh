#!/bin/sh
# fom report on a study whose problems are estimated from a trace: per-op
# breakdowns, method shares, bound, the roll-up of the pass time, the
# breakdown and roofline charts, and sources naming the kernel tables.
. "$TESTS_DIR/t/lib.sh"
D="$T_TMP/out"

fom_run 0 report "$DATA/report/est.xml" -o "$D"
for f in report.md report.html report.json breakdown-1.svg breakdown-1.png roofline-1.svg roofline-2.png; do
    if [ -s "$D/$f" ]; then ok "wrote $f"; else not_ok "missing $f"; fi
done
# The report's pass time rolled up by hand (python3) must give the hours
# the evaluation used: pass x ceil(10000 / 10) minibatches x 10 epochs.
if python3 - "$D/report.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
p = d["problems"][0]
b = d["breakdowns"][0]["systems"]
bad = 0
for s in ("h100", "h200"):
    c = b[s]
    hours = c["pass_time_s"] * math.ceil(10000 / 10) * 10 / 3600
    print("# %s: pass %.6g s -> %.9g h, evaluation %.9g h" % (s, c["pass_time_s"], hours, p["hours_per_unit"][s]))
    bad += abs(hours - p["hours_per_unit"][s]) > 1e-9 * hours
    ops = sum(o["time_s"] for o in c["ops"])
    kinds = sum(c["time_by_kind_s"].values())
    bad += abs(ops - kinds) > 1e-9 * ops
    bad += c["bound"] not in ("compute", "memory", "latency", "host")
    bad += not c["estimated"]
bad += d["breakdowns"][1]["systems"]["h200"]["estimated"]
sys.exit(1 if bad else 0)
PY
then ok "pass times roll up to the evaluation's hours; op and kind sums agree"
else not_ok "estimated breakdown inconsistent"; fi
with_md() { saved=$OUT; OUT="$D/report.md"; expect_out_contains "$1"; OUT=$saved; }
with_md '### p3b1 on h100'
with_md 'Share of the op time by method: '
with_md 'Kernel table measured on NVIDIA H100 80GB HBM3'
with_md 'Trace of **p3b1**: '
with_md '| measured | h200 | 2 | 2 | 24 | 1.50 = 24 / 16 | CI unavailable | measured (n=1) |  |'
with_md '![Roofline of h100 \(NVIDIA H100 SXM5 80GB\) with the estimated ops](roofline-1.svg)'

done_testing
