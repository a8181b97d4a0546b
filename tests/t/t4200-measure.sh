#!/bin/sh
# The measuring harness (estimators/measure/measure.py) on the CPU with the
# tiny grid: every kind but comm (which needs 2+ GPUs) is measured, the
# tables have the columns of estimators/measure/FORMATS.md and sane values,
# a rerun into the same folder measures nothing new, a shapes file is
# measured row by row, bad options are refused, and the tables import.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
MEASURE="$ROOT/estimators/measure/measure.py"

# The torch of this machine may belong to another interpreter than the
# first python3 on PATH (Debian's python3-torch is for /usr/bin/python3).
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import torch, numpy' 2>/dev/null; then
        PY=$p; break
    fi
done
if [ -z "$PY" ]; then
    echo "ok 1 # skip torch and numpy cannot be imported (Debian: apt-get install python3-torch)"
    echo "1..1"
    exit 0
fi

# measure_run EXPECTED_STATUS args... : runs the harness on the CPU.
measure_run() {
    want=$1; shift
    "$PY" "$MEASURE" "$@" >"$OUT" 2>"$ERR"
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok "exit $want: measure.py $*"
    else not_ok "exit $rc (expected $want): measure.py $*"; tail -15 "$ERR" | sed 's/^/# /'; fi
}
# Few short repeats: the table's numbers are not the point here.
FAST="--device cpu --threads 1 --min-reps 3 --max-reps 5 --row-ms 1"
D="$T_TMP/cpu"

measure_run 0 $FAST --grid tiny --out "$D"
expect_err_contains "summary ($D):"

# Every kind's table, with the FORMATS.md columns, values that make sense.
check_tables() { # DIR SOURCE KINDS...
    dir=$1; src=$2; shift 2
    if "$PY" - "$dir" "$src" "$@" >"$T_TMP/check" 2>&1 <<'PY'
import csv, json, os, sys
d, src, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
cols = {
    "gemm": "m,n,k,a_t,b_t,batch,precision,time_us_loop_mean,tflops",
    "conv": "dims,n,c,d,h,w,k,f_d,f_h,f_w,pad_d,pad_h,pad_w,stride_d,stride_h,"
            "stride_w,dil_d,dil_h,dil_w,groups,precision,pass",
    "rnn": "cell,input,hidden,layers,seq,batch,bidirectional,precision,pass",
    "attention": "batch,heads,q_len,kv_len,head_dim,causal,precision,pass,backend",
    "norm": "op,n,c,s,groups,precision,pass",
    "embedding": "op,rows,dim,lookups,batch,mode,precision,pass",
    "eltwise": "op,precision,elements,bytes,gbps",
    "optimizer": "op,form,params,tensors,precision,bytes",
    "resample": "op,n,c,out,in,precision,pass",
}
timing = "time_us,time_us_min,time_us_max,time_us_p05,time_us_p95,reps,source".split(",")
passes = {"conv": {"fwd", "bwd_data", "bwd_weight"}, "optimizer": {"step"}}
env = json.load(open(os.path.join(d, "env.json")))
assert env.get("hw") and env.get("lscpu") and env.get("torch"), "env.json lacks hw/lscpu/torch"
name = os.path.basename(d)
for kind in kinds:
    path = os.path.join(d, "%s_%s.csv" % (name, kind))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        f.seek(0)
        header = f.readline().strip().split(",")
    want = cols[kind].split(",") + timing
    miss = [c for c in want if c not in header]
    assert not miss, "%s: columns %s missing" % (path, miss)
    assert header[-len(timing):] == timing, "%s: timing columns not last" % path
    assert rows, "%s: no rows" % path
    for i, r in enumerate(rows, 2):
        t = [float(r[c]) for c in ("time_us_min", "time_us_p05", "time_us", "time_us_p95", "time_us_max")]
        assert t[0] > 0 and t == sorted(t), "%s:%d: not 0 < min <= p05 <= median <= p95 <= max: %s" % (path, i, t)
        assert int(r["reps"]) >= 1, "%s:%d: reps %s" % (path, i, r["reps"])
        assert r["source"] == src, "%s:%d: source %s" % (path, i, r["source"])
        assert r["precision"] in ("fp32", "bf16"), "%s:%d: precision %s on a CPU" % (path, i, r["precision"])
        if "pass" in r:
            assert r["pass"] in passes.get(kind, {"fwd", "bwd"}), "%s:%d: pass %s" % (path, i, r["pass"])
        if kind == "gemm":
            tf = 2.0 * int(r["m"]) * int(r["n"]) * int(r["k"]) * int(r["batch"]) / float(r["time_us"]) / 1e6
            assert abs(tf - float(r["tflops"])) <= 0.01 * tf + 1e-3, "%s:%d: tflops %s, 2mnk/t %g" % (path, i, r["tflops"], tf)
        if kind == "eltwise":
            es = 4 if r["precision"] == "fp32" else 2
            assert int(r["bytes"]) >= int(r["elements"]) * es, "%s:%d: bytes" % (path, i)
        if kind == "attention":
            assert r["backend"] in ("flash", "efficient", "cudnn", "math"), "%s:%d: backend %s" % (path, i, r["backend"])
    print("%s: %d rows" % (kind, len(rows)))
PY
    then ok "tables of $* in $dir: FORMATS.md columns, 0 < min <= p05 <= median <= p95 <= max, reps >= 1"
    else not_ok "tables in $dir"; sed 's/^/# /' "$T_TMP/check" | tail -5; fi
}
check_tables "$D" grid gemm conv rnn attention norm embedding eltwise optimizer resample

# Both passes where training has them; the three of a convolution.
for want in "conv:fwd" "conv:bwd_data" "conv:bwd_weight" "rnn:bwd" "attention:bwd" \
            "norm:bwd" "embedding:bwd" "resample:bwd"; do
    kind=${want%%:*}; pass=${want#*:}
    if grep -q ",$pass," "$D/cpu_$kind.csv"; then ok "$kind has $pass rows"
    else not_ok "$kind lacks $pass rows"; fi
done
if grep -q "^rms_norm," "$D/cpu_norm.csv" && grep -q "^group_norm," "$D/cpu_norm.csv"; then
    ok "norm has rms_norm and group_norm rows"
else
    not_ok "norm lacks rms_norm or group_norm"
fi

# Resuming: the same command again measures nothing and changes no table.
cat "$D"/*.csv >"$T_TMP/before"
measure_run 0 $FAST --grid tiny --out "$D"
expect_err_contains "0 rows measured"
cat "$D"/*.csv >"$T_TMP/after"
if cmp -s "$T_TMP/before" "$T_TMP/after"; then ok "rerun left the tables unchanged"
else not_ok "rerun changed the tables"; fi

# Rows timed another way are never mixed into one folder: env.json says how
# the rows were timed, and a folder of the older per-call timing (no
# "timing" key) is refused with its path.
O="$T_TMP/oldtiming"
mkdir -p "$O"
"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1])); t=e.pop("timing"); json.dump(e, open(sys.argv[2],"w")); print(t)' \
    "$D/env.json" "$O/env.json" >"$T_TMP/timing"
if grep -q 'monotonic clock around each call' "$T_TMP/timing"; then ok "env.json says how CPU rows are timed"
else not_ok "env.json timing: $(cat "$T_TMP/timing")"; fi
measure_run 2 $FAST --grid tiny --kinds gemm --out "$O"
expect_err_contains "$O/env.json: error: the folder holds rows timed by an earlier harness"

# A row cut short by a kill is dropped and measured again.
gemm="$D/cpu_gemm.csv"
n0=$(wc -l <"$gemm")
head -c -20 "$gemm" >"$T_TMP/cut" && cat "$T_TMP/cut" >"$gemm"
measure_run 0 $FAST --grid tiny --kinds gemm --out "$D"
expect_err_contains "dropping a row cut short"
n1=$(wc -l <"$gemm")
if [ "$n0" -eq "$n1" ] && tail -1 "$gemm" | grep -q ',grid$'; then ok "cut row measured again ($n1 lines)"
else not_ok "after the cut row: $n1 lines, expected $n0"; tail -2 "$gemm" | sed 's/^/# /'; fi

# A shapes file (the CSV of `fom kernels shapes`): exactly its rows.
S="$T_TMP/shapes"
"$PY" - "$T_TMP/shapes.csv" <<'PY'
import csv, sys
cols = ("kind,op,layout,precision,m,n,k,a_t,b_t,batch,dims,c,d,h,w,f_d,f_h,f_w,pad_h,pad_w,"
        "stride_h,stride_w,dil_h,dil_w,groups,elements,s,heads,q_len,kv_len,head_dim,causal,"
        "count,share").split(",")
rows = [
    dict(kind="gemm", precision="fp32", m=48, n=24, k=40, a_t="N", b_t="T", count=3, share=0.2),
    dict(kind="conv", precision="fp32", dims=2, n=3, c=4, h=10, w=12, k=8, f_h=3, f_w=3,
         pad_h=1, pad_w=1, stride_h=1, stride_w=1, dil_h=1, dil_w=1, groups=2, count=1, share=0.3),
    dict(kind="conv", layout="channels-last", precision="fp32", dims=2, n=3, c=4, h=10, w=12, k=8,
         f_h=3, f_w=3, pad_h=1, pad_w=1, stride_h=1, stride_w=1, dil_h=1, dil_w=1, groups=2, count=1,
         share=0.1),
    dict(kind="elementwise", op="relu", precision="fp32", elements=4096, count=5, share=0.1),
    dict(kind="norm", op="layer_norm", precision="fp32", n=6, c=32, s=8, count=2, share=0.1),
    # causal not known from the trace: both are measured
    dict(kind="attention", precision="fp32", batch=1, heads=2, q_len=8, kv_len=8, head_dim=8,
         count=1, share=0.1),
]
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), cols, lineterminator="\n")
w.writeheader()
w.writerows(rows)
PY
measure_run 0 $FAST --shapes "$T_TMP/shapes.csv" --out "$S"
if "$PY" - "$S" >"$T_TMP/check" 2>&1 <<'PY'
import csv, os, sys
d = sys.argv[1]
def rows(kind):
    return list(csv.DictReader(open(os.path.join(d, "shapes_%s.csv" % kind))))
g = rows("gemm")
assert [(r["m"], r["n"], r["k"], r["a_t"], r["b_t"], r["batch"], r["source"]) for r in g] == \
    [("48", "24", "40", "N", "T", "1", "shapes")], g
c = rows("conv")
assert sorted((r["layout"], r["pass"]) for r in c) == [
    (l, p) for l in ("channels-last", "contiguous") for p in ("bwd_data", "bwd_weight", "fwd")], c
assert all((r["dims"], r["n"], r["c"], r["d"], r["h"], r["w"], r["k"], r["f_d"], r["f_h"], r["f_w"],
            r["groups"], r["source"]) ==
           ("2", "3", "4", "1", "10", "12", "8", "1", "3", "3", "2", "shapes") for r in c), c
e = rows("eltwise")
assert [(r["op"], r["elements"], r["bytes"]) for r in e] == [("relu", "4096", "32768")], e
nm = rows("norm")
assert sorted((r["op"], r["n"], r["c"], r["s"], r["pass"]) for r in nm) == \
    [("layer_norm", "6", "32", "8", "bwd"), ("layer_norm", "6", "32", "8", "fwd")], nm
a = rows("attention")
assert sorted((r["causal"], r["pass"]) for r in a) == \
    [("0", "bwd"), ("0", "fwd"), ("1", "bwd"), ("1", "fwd")], a
others = [f for f in os.listdir(d) if f.endswith(".csv") and f.split("_", 1)[1] not in
          ("gemm.csv", "conv.csv", "eltwise.csv", "norm.csv", "attention.csv")]
assert not others, others
PY
then ok "shapes file: exactly its rows, every pass, each layout, both causal forms when unknown, source shapes"
else not_ok "shapes file rows"; sed 's/^/# /' "$T_TMP/check" | tail -5; fi

# Refused: what the device cannot do, unknown kinds, a shapes file without kind.
measure_run 2 --device cpu --precisions fp16 --out "$T_TMP/x"
expect_err_contains "--precisions fp16: cpu supports"
measure_run 2 --device cpu --kinds gemm,matmul --out "$T_TMP/x"
expect_err_contains "--kinds matmul: expected some of"
measure_run 2 --device cpu --kinds comm --out "$T_TMP/x"
expect_err_contains "comm needs --device cuda:N"
printf 'm,n,k\n1,2,3\n' >"$T_TMP/nokind.csv"
measure_run 2 --device cpu --shapes "$T_TMP/nokind.csv" --out "$T_TMP/x"
expect_err_contains "nokind.csv:1: error: no kind column"

# The folder imports into the store (hardware named by env.json) and lists
# every kind and precision with as many rows as the tables hold.
DB="$T_TMP/k.db"
fom_run 0 kernels import "$D" --db "$DB"
fom_run 0 kernels list --db "$DB" --format csv
hw=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["hw"])' "$D/env.json")
if "$PY" - "$D" "$hw" "$OUT" >"$T_TMP/check" 2>&1 <<'PY'
import csv, os, sys
d, hw, listing = sys.argv[1], sys.argv[2], sys.argv[3]
want = {}
for f in os.listdir(d):
    if f.endswith(".csv"):
        kind = f[len("cpu_"):-len(".csv")]
        for r in csv.DictReader(open(os.path.join(d, f))):
            want[(kind, r["precision"])] = want.get((kind, r["precision"]), 0) + 1
got = {(r["kind"], r["precision"]): int(r["rows"])
       for r in csv.DictReader(open(listing)) if r["hw"] == hw}
assert got == want, "listed %s, tables hold %s" % (sorted(got.items()), sorted(want.items()))
assert {k for k, _ in got} == {"gemm", "conv", "rnn", "attention", "norm", "embedding",
                               "eltwise", "optimizer", "resample"}, sorted(got)
PY
then ok "kernels list: every kind and precision, as many rows as the tables"
else not_ok "kernels list against the tables"; sed 's/^/# /' "$T_TMP/check" | tail -5; fi

done_testing
