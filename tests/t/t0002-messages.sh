#!/bin/sh
# Messages for inputs that are not what a command expects: a file a study
# names that does not exist, a PyTorch execution trace given as a trace.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

# A study whose workload names a missing profile: the study's line, once,
# exit 1 (an error in the study, not in the system).
cat >"$T_TMP/s.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<study name="missing" baseline="a">
  <system id="a" nodes="1" machine="$ROOT/machines/h100-sxm5-80gb.xml"/>
  <system id="b" nodes="1" machine="$ROOT/machines/h200-sxm-141gb.xml"/>
  <problem id="P1">
    <workload profile="no-such-trace.json" batch="100" samples-per-epoch="1000" epochs="1"/>
  </problem>
</study>
XML
for cmd in fom report; do
    if [ $cmd = report ]; then fom_run 1 report "$T_TMP/s.xml" -o "$T_TMP/r"; else fom_run 1 fom "$T_TMP/s.xml"; fi
    expect_err_contains "$T_TMP/s.xml:6: error: found profile=\"$T_TMP/no-such-trace.json\", which does not exist"
    n=$(grep -c "no-such-trace" "$ERR")
    if [ "$n" -eq 1 ]; then ok "$cmd: the missing profile is named once"; else not_ok "$cmd: named $n times"; fi
done
# a missing machine file: the <system>'s line
sed -e 's|h200-sxm-141gb.xml|no-such-machine.xml|' \
    -e "s|no-such-trace.json|$ROOT/tests/data/traces/h200/p1b3_h200_fp32_b100.json.gz|" "$T_TMP/s.xml" >"$T_TMP/m.xml"
fom_run 1 fom "$T_TMP/m.xml"
expect_err_contains "$T_TMP/m.xml:4: error: found machine=\"$ROOT/machines/no-such-machine.xml\", which does not exist"

# A PyTorch execution trace (ExecutionTraceObserver / Chakra JSON; the node
# is the verbatim example of schema 1.0.2-chakra.0.0.4): named, refused,
# and the Kineto trace asked for instead
cat >"$T_TMP/et.json" <<'JSON'
{
  "schema": "1.0.2-chakra.0.0.4", "pid": 788625, "time": "2024-03-21 18:54:23", "start_ts": 350785410,
  "nodes": [
    {"id": 4, "name": "aten::empty", "ctrl_deps": 2,
     "inputs": {"values": [[1],6,0,"cpu",false,"<None>"], "shapes": [[[]],[],[],[],[],[]], "types": ["GenericList[Int]","Int","Int","Device","Bool","None"]},
     "outputs": {"values": [[5,6,0,1,4,"cpu"]], "shapes": [[1]], "types": ["Tensor(float)"]},
     "attrs": [{"name": "rf_id", "type": "uint64", "value": 2}]}
  ]
}
JSON
fom_run 1 ingest "$T_TMP/et.json"
expect_err_contains "$T_TMP/et.json:1: error: found a PyTorch execution trace (ET/Chakra, schema '1.0.2-chakra.0.0.4')"
expect_err_contains "expected a Kineto trace of the same run"
gzip -c "$T_TMP/et.json" >"$T_TMP/et.json.gz"
fom_run 1 ingest "$T_TMP/et.json.gz" --format kineto
expect_err_contains "found a PyTorch execution trace"

# a directory, a machine file given as a study, a far-off command name
fom_run 1 ingest tests
expect_err_contains "tests: error: found a directory, expected a trace file"
if [ ! -s "$OUT" ]; then ok "nothing on stdout for a directory"; else not_ok "stdout has output"; fi
fom_run 1 fom machines/h100-sxm5-80gb.xml
expect_err_contains "this is a machine file"
fom_run 2 frob
if grep -q "most similar" "$ERR"; then not_ok "fom frob suggests a command"; else ok "fom frob suggests nothing"; fi
fom_run 2 estimat
expect_err_contains "the most similar command is"

# an estimate of a trace whose batch is not recorded says so, not "(0)"
fom_run 0 estimate --profile tests/data/traces/h200/p1b3_h200_fp32_b100.json.gz \
    --machine machines/h100-sxm5-80gb.xml
expect_out_contains "batch:          as profiled (its size is not recorded; --profile-batch N gives it)"
if grep -q "as profiled (0)" "$OUT"; then not_ok "batch printed as 0"; else ok "no batch 0"; fi

done_testing
