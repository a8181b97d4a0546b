#!/bin/sh
# Convolutions on channels-last tensors (ConvNeXt-T's, by the trace's
# recorded strides) are flagged by the reader; an estimate that times them
# from the tables' rows, which are of contiguous tensors, says how many in
# its warnings; a replay (their own measurements) and a model of contiguous
# convolutions say nothing of it.
. "$TESTS_DIR/t/lib.sh"

ROOT="$TESTS_DIR/.."
CL="$ROOT/profiles/heldout/h100/convnext_h100_fp32_b32.json.gz"
NCHW="$ROOT/profiles/devset/h100/mobilenetv2_h100_fp32_b64.json.gz"
M="$ROOT/machines/h100-sxm5-80gb.xml"

fom_run 0 ingest "$CL" --format-out json
cp "$OUT" "$T_TMP/cl.prof.json"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$ROOT/estimators/h100" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.est.json"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$ROOT/estimators/h100" --format json
cp "$OUT" "$T_TMP/cl.replay.json"
fom_run 0 ingest "$NCHW" --format-out json
cp "$OUT" "$T_TMP/nchw.prof.json"
fom_run 0 estimate --profile "$NCHW" --machine "$M" --kernels "$ROOT/estimators/h100" \
    --precision bf16 --batch 128 --profile-batch 64 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/nchw.est.json"

if python3 - "$T_TMP" <<'PY'
import json, os, re, sys
t = sys.argv[1]
ld = lambda f: json.load(open(os.path.join(t, f)))
cl, est, rep, nchw, nest = (ld(f) for f in ("cl.prof.json", "cl.est.json", "cl.replay.json",
                                             "nchw.prof.json", "nchw.est.json"))
def flagged(p):
    return [i for i, o in enumerate(p["ops"]) if "channels-last" in (o["flags"] or "").split(",")]
def said(e):
    n = [int(m.group(1)) for w in e["warnings"]
         for m in [re.match(r"(\d+) convolution\(s\) ran on channels-last tensors", w)] if m]
    return n[0] if n else 0
f = flagged(cl)
# only convolutions are flagged
assert f and all(cl["ops"][i]["kind"] == "conv" for i in f), f
# the estimate's ops are the profile's, in its order
assert [o["name"] for o in est["ops"][:len(cl["ops"])]] == [o["name"] for o in cl["ops"]]
want = sum(1 for i in f if est["ops"][i]["method"] in ("table-exact", "table-interp", "scaled-table"))
assert want > 0 and said(est) == want, (want, said(est), est["warnings"])
assert said(rep) == 0, rep["warnings"]
assert not flagged(nchw) and said(nest) == 0, nest["warnings"]
PY
then ok "channels-last convolutions counted in the warning as the ops' methods say"
else not_ok "channels-last convolutions counted in the warning as the ops' methods say"
fi
done_testing
