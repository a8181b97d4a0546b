#!/bin/sh
# A profile saved by `fom ingest --format-out json|csv` gives the same
# estimate as the trace it came from: the saved file keeps each op's id and
# the step's calls that the estimator replays.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

EST="--machine machines/h100-sxm5-80gb.xml --kernels estimators/h100 --kernels estimators/h200 --format json"

# pass_time_s of `fom estimate --profile FILE` (empty when it fails)
pass_time() {
    "$FOM" estimate --profile "$1" $EST 2>/dev/null \
        | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["pass_time_s"]))' 2>/dev/null
}

# same_num A B TOL WHAT: A and B agree within relative TOL
same_num() {
    if [ -n "$1" ] && [ -n "$2" ] &&
        python3 -c 'import sys; a,b,t=map(float,sys.argv[1:4]); sys.exit(0 if abs(a-b) <= t*abs(a) else 1)' "$1" "$2" "$3"; then
        ok "$4: $2 = $1"
    else
        not_ok "$4: '$2' != '$1'"
    fi
}

for t in profiles/p1b3_h200_fp32_b100.json.gz tests/data/traces/h200/resnet50_h200_bf16_b64.json.gz; do
    name=$(basename "$t" .json.gz)
    fom_run 0 ingest "$t" --format-out json -o "$T_TMP/$name.json"
    fom_run 0 ingest "$t" --format-out csv -o "$T_TMP/$name.csv"
    ref=$(pass_time "$t")
    if [ -n "$ref" ]; then ok "$name: estimate from the trace, pass_time_s $ref"; else not_ok "$name: no estimate from the trace"; fi
    same_num "$ref" "$(pass_time "$T_TMP/$name.json")" 1e-9 "$name saved json"
    same_num "$ref" "$(pass_time "$T_TMP/$name.csv")" 1e-9 "$name saved csv"

    # the file itself, read by python: every call names an op of the file,
    # the ids are distinct, and the csv holds the same calls
    if python3 - "$T_TMP/$name.json" "$T_TMP/$name.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = [o["id"] for o in d["ops"]]
assert len(ids) == len(set(ids)), "duplicate op ids"
calls = d["calls"]
assert len(calls) > 0 and all(len(c) == 5 for c in calls)
assert all(c[0] in set(ids) for c in calls), "a call names no op"
assert [c[1] for c in calls] == sorted(c[1] for c in calls), "steps out of order"
csv = [l[len("# call: "):].strip().split(",") for l in open(sys.argv[2]) if l.startswith("# call: ")]
assert len(csv) == len(calls)
assert all([float(x) for x in a] == [float(x) for x in b] for a, b in zip(csv, calls)), "csv calls differ"
PY
    then ok "$name: ids and calls consistent in json and csv"; else not_ok "$name: ids and calls"; fi

    # without its calls the saved profile does not replay the step: the
    # estimate moves (what a saved profile gave before it kept the calls)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["calls"]; json.dump(d, open(sys.argv[2], "w"))' \
        "$T_TMP/$name.json" "$T_TMP/$name.nocalls.json"
    if python3 -c 'import sys; a,b=map(float,sys.argv[1:3]); sys.exit(0 if abs(a-b) > 1e-6*a else 1)' \
        "$ref" "$(pass_time "$T_TMP/$name.nocalls.json")" 2>/dev/null; then
        ok "$name: the calls matter to the estimate"
    else
        not_ok "$name: the estimate without calls is the same"
    fi
done

# --top: calls of dropped ops are kept with no op id (null in json, an
# empty field in csv); json and csv give the same estimate
P1B3=profiles/p1b3_h200_fp32_b100.json.gz
fom_run 0 ingest "$P1B3" --top 0.5 --format-out json -o "$T_TMP/top.json"
fom_run 0 ingest "$P1B3" --top 0.5 --format-out csv -o "$T_TMP/top.csv"
if python3 - "$T_TMP/top.json" "$T_TMP/top.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = set(o["id"] for o in d["ops"])
dropped = [c for c in d["calls"] if c[0] is None]
assert d["dropped_ops"] > 0 and dropped, "no dropped calls"
assert all(c[0] in ids for c in d["calls"] if c[0] is not None)
csv = [l for l in open(sys.argv[2]) if l.startswith("# call: ,")]
assert len(csv) == len(dropped), (len(csv), len(dropped))
assert any(l.startswith("# dropped_ops: %d" % d["dropped_ops"]) for l in open(sys.argv[2]))
PY
then ok "--top: dropped ops' calls written without an op id"; else not_ok "--top: dropped calls"; fi
a=$(pass_time "$T_TMP/top.json")
same_num "$a" "$(pass_time "$T_TMP/top.csv")" 1e-9 "--top 0.5 saved csv vs json"
fom_run 0 ingest "$T_TMP/top.json" --format-out json -o "$T_TMP/top2.json"
if cmp -s "$T_TMP/top.json" "$T_TMP/top2.json"; then ok "saved json read and saved again is the same file"; else not_ok "saved json changes when saved again"; fi

# bad input: a call naming an op id that no op has
at=$(python3 - "$T_TMP/p1b3_h200_fp32_b100.json" "$T_TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["calls"][1][0] = max(o["id"] for o in d["ops"]) + 1000
text = json.dumps(d)
open(sys.argv[2], "w").write(text)
# the message points at the bad call's '[' (bytes counted from 1)
first = text.index('"calls": [') + len('"calls": [')
print(text.index("[", first + 1) + 1)
PY
)
fom_run 1 estimate --profile "$T_TMP/bad.json" $EST
expect_err_contains "$T_TMP/bad.json: byte $at: error: found a call of op id "
expect_err_contains ": error: found a call of op id "
expect_err_contains "expected the id of an op in the file"

{ grep -v '^# call: ' "$T_TMP/p1b3_h200_fp32_b100.csv"; echo '# call: 99999,0,0,1e-6,1e-6'; } >"$T_TMP/bad.csv"
n=$(wc -l <"$T_TMP/bad.csv" | tr -d ' ')
fom_run 1 estimate --profile "$T_TMP/bad.csv" $EST
expect_err_contains "$T_TMP/bad.csv:$n: error: found a call of op id 99999, expected the id of an op in the file"
fom_run 1 ingest "$T_TMP/bad.csv"
expect_err_contains "$T_TMP/bad.csv:$n: error: found a call of op id 99999"

done_testing
