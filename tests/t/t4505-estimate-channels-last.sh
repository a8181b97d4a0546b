#!/bin/sh
# Convolutions on channels-last tensors (ConvNeXt-T's, by the trace's
# recorded strides of the input and weight) are flagged by the reader and
# looked up among the tables' rows of their layout: the H100's and H200's depthwise
# and dense 2-D rows hold both layouts.  An estimate that times such a
# convolution from rows of the other layout says how many in its warnings
# (with the dense channels-last rows taken away, the dense ones; with
# every channels-last row taken away, every table-timed one); a replay
# (their own measurements) and a model of contiguous convolutions say
# nothing of it.
. "$TESTS_DIR/t/lib.sh"

ROOT="$TESTS_DIR/.."
CL="$ROOT/profiles/devset/h100/convnext_h100_fp32_b32.json.gz"
NCHW="$ROOT/profiles/devset/h100/mobilenetv2_h100_fp32_b64.json.gz"
M="$ROOT/machines/h100-sxm5-80gb.xml"

fom_run 0 ingest "$CL" --format-out json
cp "$OUT" "$T_TMP/cl.prof.json"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$ROOT/estimators/h100" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.est.json"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$ROOT/estimators/h100" --format json
cp "$OUT" "$T_TMP/cl.replay.json"
fom_run 0 kernels import "$ROOT"/estimators/h100/*.csv --db "$T_TMP/k.db"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$T_TMP/k.db" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.db.json"
# a store imported before convolutions kept their layout's column: the
# layout is read from the row's key
sqlite3 "$T_TMP/k.db" "UPDATE kernel SET flag = NULL WHERE kind = 'conv'"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$T_TMP/k.db" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.olddb.json"
mkdir "$T_TMP/nodw"
cp "$ROOT"/estimators/h100/*.csv "$ROOT/estimators/h100/env.json" "$T_TMP/nodw/"
rm "$T_TMP/nodw/h100_conv_cl.csv"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$T_TMP/nodw" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.nodw.json"
mkdir "$T_TMP/nodense"
cp "$ROOT"/estimators/h100/*.csv "$ROOT/estimators/h100/env.json" "$T_TMP/nodense/"
awk -F, 'NR == 1 || $20 > 1' "$ROOT/estimators/h100/h100_conv_cl.csv" >"$T_TMP/nodense/h100_conv_cl.csv"
fom_run 0 estimate --profile "$CL" --machine "$M" --kernels "$T_TMP/nodense" \
    --precision bf16 --batch 64 --profile-batch 32 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.nodense.json"
# to the H200: both tables with channels-last rows, the ratio from rows of
# the op's layout; the H200's without them, a ratio of rows of one layout
# only, so the H100's channels-last rows change nothing
M2="$ROOT/machines/h200-sxm-141gb.xml"
mkdir "$T_TMP/h200nocl"
cp "$ROOT"/estimators/h200/*.csv "$ROOT/estimators/h200/env.json" "$T_TMP/h200nocl/"
rm "$T_TMP/h200nocl/h200_conv_cl.csv"
fom_run 0 estimate --profile "$CL" --machine "$M2" --kernels "$ROOT/estimators/h200" \
    --kernels "$ROOT/estimators/h100" --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.h200both.json"
fom_run 0 estimate --profile "$CL" --machine "$M2" --kernels "$T_TMP/h200nocl" \
    --kernels "$ROOT/estimators/h100" --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.h200.json"
fom_run 0 estimate --profile "$CL" --machine "$M2" --kernels "$T_TMP/h200nocl" \
    --kernels "$T_TMP/nodw" --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/cl.h200.nodw.json"
fom_run 0 ingest "$NCHW" --format-out json
cp "$OUT" "$T_TMP/nchw.prof.json"
fom_run 0 estimate --profile "$NCHW" --machine "$M" --kernels "$ROOT/estimators/h100" \
    --precision bf16 --batch 128 --profile-batch 64 --cudnn-tf32 --format json
cp "$OUT" "$T_TMP/nchw.est.json"

if python3 - "$T_TMP" <<'PY'
import json, os, re, sys
t = sys.argv[1]
ld = lambda f: json.load(open(os.path.join(t, f)))
cl, est, rep, nchw, nest, nodw, db = (ld(f) for f in ("cl.prof.json", "cl.est.json", "cl.replay.json",
                                                       "nchw.prof.json", "nchw.est.json", "cl.nodw.json",
                                                       "cl.db.json"))
# the store keeps both layouts' rows: the same estimate from it
assert [o["time_s"] for o in db["ops"]] == [o["time_s"] for o in est["ops"]]
assert [o["time_s"] for o in ld("cl.olddb.json")["ops"]] == [o["time_s"] for o in est["ops"]]
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
tabled = ("table-exact", "table-interp", "scaled-table")
dense = [i for i in f if cl["ops"][i]["conv"]["groups"] == 1]
depthwise = [i for i in f if cl["ops"][i]["conv"]["groups"] > 1]
assert dense and depthwise, (dense, depthwise)
nodense = ld("cl.nodense.json")
assert said(est) == 0, est["warnings"]
want = sum(1 for i in dense if nodense["ops"][i]["method"] in tabled)
assert want > 0 and said(nodense) == want, (want, said(nodense), nodense["warnings"])
want = sum(1 for i in f if nodw["ops"][i]["method"] in tabled)
assert want > said(nodense) and said(nodw) == want, (want, said(nodw), nodw["warnings"])
# the convolutions' own rows change their estimate: cuDNN's channels-last
# kernels are other kernels
assert sum(est["ops"][i]["time_s"] for i in depthwise) != sum(nodw["ops"][i]["time_s"] for i in depthwise)
assert sum(est["ops"][i]["time_s"] for i in dense) != sum(nodense["ops"][i]["time_s"] for i in dense)
assert [est["ops"][i]["time_s"] for i in depthwise] == [nodense["ops"][i]["time_s"] for i in depthwise]
assert said(rep) == 0, rep["warnings"]
assert not flagged(nchw) and said(nest) == 0, nest["warnings"]
h2, h2n, h2b = ld("cl.h200.json"), ld("cl.h200.nodw.json"), ld("cl.h200both.json")
assert [o["time_s"] for o in h2["ops"]] == [o["time_s"] for o in h2n["ops"]]
assert said(h2) == sum(1 for i in f if h2["ops"][i]["method"] in tabled) > 0
assert said(h2b) == 0, h2b["warnings"]
assert sum(h2b["ops"][i]["time_s"] for i in f) != sum(h2["ops"][i]["time_s"] for i in f)
PY
then ok "channels-last convolutions: rows of their layout where the table has them, else counted in the warning"
else not_ok "channels-last convolutions: rows of their layout where the table has them, else counted in the warning"
fi
done_testing
