#!/bin/sh
# fom kernels shapes: on the shipped ResNet-50, LSTM and GPT-2 traces the
# conv, rnn, attention, norm and embedding rows (shape columns, precision
# and calls per pass) equal an independent computation in python3 straight
# from the gz JSON: the innermost op of each family (aten::convolution >
# _convolution > cudnn_convolution) inside the ProfilerStep ranges, its
# shape from "Input Dims" and "Concrete Inputs" at the positions of the
# ATen schema, counts divided by the steps.  The forms (csv, json, text,
# -o) and the usage errors are checked on one trace.
#
# The CPU GPT-2 trace runs attention on the math backend, whose time fom's
# profile gives to the GEMMs and softmax it is made of: its attention row
# is not expected (those GEMMs are listed as gemm rows).
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

REF="$T_TMP/ref.py"
cat >"$REF" <<'PY'
import csv, gzip, json, sys
trace, got_csv = sys.argv[1:3]
d = json.load(gzip.open(trace))
ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
steps = [(e["ts"], e["ts"] + e["dur"]) for e in ev
         if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
ops = [e for e in ev if e.get("cat") == "cpu_op" and any(a <= e["ts"] <= b for a, b in steps)]
PREC = {"float": "fp32", "c10::BFloat16": "bf16", "c10::Half": "fp16", "double": "fp64"}

def prec(e):
    dims, types = e["args"].get("Input Dims", []), e["args"].get("Input type", [])
    for i, t in enumerate(types):
        if i < len(dims) and not dims[i]:
            continue
        if t in PREC:
            return PREC[t]
    return "unknown"

def conc(e, i):
    c = e["args"].get("Concrete Inputs", [])
    return c[i] if i < len(c) else ""

def ints(s):
    return [int(x) for x in s.strip("[]").split(",") if x.strip()]

def triple(s, sp, dflt):
    v = ints(s) if s else []
    out = [dflt] * 3
    for i in range(sp):
        if v:
            out[3 - sp + i] = v[min(i, len(v) - 1)]
    return out

# (input, weight, stride, pad, dil, groups) positions of the ATen schemas
CONV = {"aten::convolution": (0, 1, 3, 4, 5, 8), "aten::_convolution": (0, 1, 3, 4, 5, 8),
        "aten::cudnn_convolution": (0, 1, 3, 2, 4, 5), "aten::mkldnn_convolution": (0, 1, 4, 3, 5, 6),
        "aten::convolution_backward": (1, 2, 4, 5, 6, 9)}
def conv(e):
    i, w, st, pa, di, g = CONV[e["name"]]
    x, k = e["args"]["Input Dims"][i], e["args"]["Input Dims"][w]
    sp = len(x) - 2
    dd = lambda v, j: v[2 + j - (3 - sp)] if j >= 3 - sp else 1
    return ("conv", prec(e), sp, x[0], x[1], dd(x, 0), dd(x, 1), x[-1], k[0], dd(k, 0), dd(k, 1), k[-1],
            *triple(conc(e, pa), sp, 0), *triple(conc(e, st), sp, 1), *triple(conc(e, di), sp, 1),
            int(conc(e, g) or 1))

# (hx, mode, hidden, layers, batch_first, bidirectional); None: per layer, seq first
RNN = {"aten::lstm": (1, None, None, 4, 8, 7), "aten::gru": (1, None, None, 4, 8, 7),
       "aten::_cudnn_rnn": (4, 6, 7, 9, 10, 13), "aten::_cudnn_rnn_backward": (4, 10, 11, 13, 14, 17),
       "aten::mkldnn_rnn_layer": (None, 9, 10, None, None, None),
       "aten::mkldnn_rnn_layer_backward": (None, 14, 15, None, None, None)}
CELL = {"0": "rnn_relu", "1": "rnn_tanh", "2": "lstm", "3": "gru"}
def rnn(e):
    hx, mo, hi, la, bf, bi = RNN[e["name"]]
    x = e["args"]["Input Dims"][0]
    first = conc(e, bf) == "True" if bf is not None else False
    seq, batch = (x[1], x[0]) if first else (x[0], x[1])
    return ("rnn", prec(e), CELL[conc(e, mo)] if mo is not None else e["name"][6:], x[2],
            int(conc(e, hi)) if hi is not None else e["args"]["Input Dims"][hx][0][-1],
            int(conc(e, la)) if la is not None else 1, seq, batch,
            int(conc(e, bi) == "True") if bi is not None else 0)

# (q, causal position)
ATT = {"aten::_cudnn_attention_forward": (0, 10), "aten::_cudnn_attention_backward": (1, 14),
       "aten::_scaled_dot_product_cudnn_attention": (0, 6),
       "aten::_scaled_dot_product_cudnn_attention_backward": (1, 14),
       "aten::_scaled_dot_product_flash_attention": (0, 4),
       "aten::_scaled_dot_product_flash_attention_backward": (1, 11),
       "aten::_scaled_dot_product_efficient_attention": (0, 6),
       "aten::_scaled_dot_product_efficient_attention_backward": (1, 11),
       "aten::scaled_dot_product_attention": (0, 5), "aten::_scaled_dot_product_attention_math": (0, 5)}
def att(e):
    q, c = ATT[e["name"]]
    Q, K = e["args"]["Input Dims"][q], e["args"]["Input Dims"][q + 1]
    return ("attention", prec(e), Q[0], Q[1], Q[2], K[2], Q[3], int(conc(e, c) == "True"))

def norm(e):
    x = next(t for t in e["args"]["Input Dims"] if len(t) >= 2)
    numel = 1
    for v in x:
        numel *= v
    if "layer_norm" in e["name"]:
        c = 1
        for v in ints(next(s for s in e["args"]["Concrete Inputs"] if s[:1] == "[" and s[1:2].isdigit())):
            c *= v
        return ("norm", prec(e), "layer_norm", x[0], c, numel // (x[0] * c), 0)
    return ("norm", prec(e), "batch_norm", x[0], x[1], numel // (x[0] * x[1]), 0)

def emb(e):
    w, idx = e["args"]["Input Dims"][0], e["args"]["Input Dims"][1]
    rows = w[0] if e["name"] == "aten::embedding" else int(conc(e, 2))
    b = 1
    for v in idx[:-1]:
        b *= v
    return ("embedding", prec(e), "embedding", "none", rows, w[-1], idx[-1], b)

FAM = [(lambda n: n in CONV, conv), (lambda n: n in RNN, rnn), (lambda n: n in ATT, att),
       (lambda n: n.startswith("aten::") and ("layer_norm" in n or "batch_norm" in n), norm),
       (lambda n: n in ("aten::embedding", "aten::embedding_backward", "aten::embedding_dense_backward"), emb)]
want = {}
for match, shape in FAM:
    fam = [e for e in ops if match(e["name"])]
    by_tid = {}
    for e in fam:
        by_tid.setdefault(e["tid"], []).append(e)
    for e in fam:
        # only the innermost op of a nest (aten::convolution > _convolution >
        # cudnn_convolution) computes
        if any(o is not e and o["ts"] >= e["ts"] and o["ts"] + o["dur"] <= e["ts"] + e["dur"]
               for o in by_tid[e["tid"]]):
            continue
        k = shape(e)
        want[k] = want.get(k, 0) + 1.0 / len(steps)

COLS = {"conv": "dims n c d h w k f_d f_h f_w pad_d pad_h pad_w stride_d stride_h stride_w dil_d dil_h dil_w groups",
        "rnn": "cell input hidden layers seq batch bidirectional",
        "attention": "batch heads q_len kv_len head_dim causal", "norm": "op n c s groups",
        "embedding": "op mode rows dim lookups batch"}
got = {}
for r in csv.DictReader(open(got_csv)):
    if r["kind"] in COLS:
        k = (r["kind"], r["precision"]) + tuple(int(r[c]) if r[c].lstrip("-").isdigit() else r[c]
                                                for c in COLS[r["kind"]].split())
        got[k] = got.get(k, 0) + float(r["count"])
name = trace.split("/")[-1]
for kind in COLS:
    w = {k: v for k, v in want.items() if k[0] == kind}
    g = {k: v for k, v in got.items() if k[0] == kind}
    same = w.keys() == g.keys() and all(abs(w[k] - g[k]) <= 1e-6 * w[k] for k in w)
    print("%s %s %d shapes, %g calls/pass (reference %d, %g) %s" % (
        "OK" if same else "FAIL", kind, len(g), sum(g.values()), len(w), sum(w.values()), name))
    if not same:
        for k in sorted(set(w) | set(g), key=str):
            if w.get(k) != g.get(k):
                print("#   %s fom %s reference %s" % (k, g.get(k), w.get(k)))
PY

for t in "$DATA"/traces/h200/resnet50_h200_bf16_b64 "$DATA"/traces/h200/resnet50_h200_fp32_b64 \
         "$DATA"/traces/h200/lstm_h200_bf16_b64 "$DATA"/traces/h200/lstm_h200_fp32_b64 \
         "$DATA"/traces/h200/gpt2_h200_bf16_b8 "$DATA"/traces/h200/gpt2_h200_fp32_b4 \
         "$DATA"/traces/hostcpu/resnet50_hostcpu_fp32_b16 "$DATA"/traces/hostcpu/lstm_hostcpu_fp32_b16 \
         "$DATA"/traces/hostcpu/gpt2_hostcpu_fp32_b1; do
    fom_run 0 kernels shapes "$t.json.gz" --format csv -o "$T_TMP/got.csv"
    python3 "$REF" "$t.json.gz" "$T_TMP/got.csv" >"$T_TMP/res" 2>&1 || echo "FAIL python reference crashed" >>"$T_TMP/res"
    while read -r status rest; do
        case "$status $rest" in
        "FAIL attention 0 shapes, 0 calls/pass (reference 1, 12) gpt2_hostcpu_fp32_b1.json.gz")
            ok "math-backend attention is its GEMMs: $rest" ;;
        OK*) ok "$rest" ;;
        FAIL*) not_ok "$rest" ;;
        *) echo "$status $rest" ;;
        esac
    done <"$T_TMP/res"
done

# Every kind the acceptance names appears in the kind column.
G="$DATA/traces/h200"
fom_run 0 kernels shapes "$G/resnet50_h200_bf16_b64.json.gz" "$G/lstm_h200_bf16_b64.json.gz" \
    "$G/gpt2_h200_bf16_b8.json.gz" --format csv
for k in conv rnn attention norm embedding gemm elementwise; do
    if cut -d, -f1 "$OUT" | grep -qx "$k"; then ok "kind $k listed"; else not_ok "kind $k missing"; fi
done
if head -1 "$OUT" | grep -q '^kind,op,cell,mode,layout,precision,m,n,k,a_t,b_t,batch,dims,'; then
    ok "csv header"
else
    not_ok "csv header: $(head -1 "$OUT")"
fi
# Shares are of the summed pass times: each in [0, 1], together <= 1.
python3 - "$OUT" >"$T_TMP/res" <<'PY'
import csv, sys
s = [float(r["share"]) for r in csv.DictReader(open(sys.argv[1]))]
print("OK" if all(0 <= x <= 1 for x in s) and sum(s) <= 1 + 1e-9 else "FAIL", "shares sum to %.4f" % sum(s))
PY
read -r status rest <"$T_TMP/res"
if [ "$status" = OK ]; then ok "$rest"; else not_ok "$rest"; fi

# JSON: {"shapes":[...]} with the rnn row's keys; text names the kinds.
fom_run 0 kernels shapes "$G/lstm_h200_bf16_b64.json.gz" --format json
expect_json_num '[s for s in d["shapes"] if s["kind"] == "rnn"][0]["hidden"]' 1024 0
expect_json_num '[s for s in d["shapes"] if s["kind"] == "rnn"][0]["layers"]' 2 0
expect_json_num 'len([s for s in d["shapes"] if s["kind"] == "rnn" and s["cell"] == "lstm"])' 1 0
fom_run 0 kernels shapes "$G/lstm_h200_bf16_b64.json.gz"
expect_out_contains "cell=lstm batch=64 input=512 hidden=1024 layers=2 seq=100 bidirectional=0"

# Usage errors
fom_run 2 kernels shapes
expect_err_contains "no PROFILE given"
fom_run 2 kernels shapes "$G/lstm_h200_bf16_b64.json.gz" --db x.db
expect_err_contains "--db is not an option of 'fom kernels shapes'"
fom_run 2 kernels shapes "$G/lstm_h200_bf16_b64.json.gz" --format xml
expect_err_contains "--format: found 'xml'"
fom_run 3 kernels shapes "$T_TMP/missing.json"

# A convolution's memory layout is part of its shape: ConvNeXt-T's
# channels-last convolutions are rows of their own, what the harness
# measures them in; its contiguous ones (none) and other kinds say none.
CL="$TESTS_DIR/../profiles/devset/h100/convnext_h100_fp32_b32.json.gz"
fom_run 0 kernels shapes "$CL" --format json
cp "$OUT" "$T_TMP/cl.json"
fom_run 0 ingest "$CL" --format-out json
if python3 - "$T_TMP/cl.json" "$OUT" <<'PY'
import json, sys
sh = json.load(open(sys.argv[1]))["shapes"]
prof = json.load(open(sys.argv[2]))
conv = [r for r in sh if r["kind"] == "conv"]
assert conv and all(r["layout"] in ("contiguous", "channels-last") for r in conv), conv
assert all("layout" not in r for r in sh if r["kind"] != "conv")
flagged = {(o["conv"]["c"], o["conv"]["h"], o["conv"]["k"], o["conv"]["r"], o["conv"]["groups"])
           for o in prof["ops"] if o["kind"] == "conv" and "channels-last" in (o["flags"] or "")}
rows = {(r["c"], r["h"], r["k"], r["f_h"], r["groups"]) for r in conv if r["layout"] == "channels-last"}
assert flagged and rows == flagged, (rows ^ flagged)
PY
then ok "convolution shapes carry the layout the trace recorded"
else not_ok "convolution shapes carry the layout the trace recorded"; fi
done_testing
