#!/bin/sh
# One cap on op names for every reader: a 100 kB name in a Kineto trace, a
# TF timeline, a tfprof op view, a key_averages table and a saved profile
# is read (exit 0) and kept as its first OP_NAME_MAX (16384) bytes, cut
# before a UTF-8 sequence rather than through it.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
cd "$T_TMP" || exit 1
CAP=16384

# make FORMAT OUT: writes the input; the long name is aten::big__ then
# two-byte characters (JSON readers) or aten::big_ then x (the column
# formats)
make_input() {
    python3 - "$1" "$2" "$DATA" <<'PY'
import json, sys
fmt, out, data = sys.argv[1], sys.argv[2], sys.argv[3]
utf = "aten::big__" + "\u00e9" * 50000         # 11 + 100000 bytes
asc = "aten::big_" + "x" * 100000
if fmt == "kineto":
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
           "ts": 1000, "dur": 100, "args": {"External id": 1}},
          {"ph": "X", "cat": "cpu_op", "name": utf, "pid": 1, "tid": 1, "ts": 1010, "dur": 50,
           "args": {"External id": 2, "Input Dims": [[4, 4]], "Input type": ["float"]}}]
    json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": ev},
              open(out, "w"), ensure_ascii=False)
elif fmt == "tf-timeline":
    d = json.load(open(data + "/tfprof/tf1_timeline_gpu_matmul.json"))
    for e in d["traceEvents"]:
        if e.get("ph") == "X" and e.get("name") == "MatMul":
            e.setdefault("args", {})["name"] = utf
    json.dump(d, open(out, "w"), ensure_ascii=False)
elif fmt == "tfprof":
    lines = open(data + "/tfprof/tfprof_op_view_readme_example.txt").read().split("\n")
    out_lines = []
    for l in lines:
        if l.startswith("MatMul "):
            l = asc + l[len("MatMul"):]
        out_lines.append(l)
    open(out, "w").write("\n".join(out_lines))
elif fmt == "pt-table":
    w = len(asc)
    sep = "-" * w + "  " + "  ".join(["-" * 12] * 9)
    cols = ["Self CPU %", "Self CPU", "CPU total", "Self CUDA", "CUDA total", "CUDA time avg",
            "# of Calls", "Input Shapes", "Total MFLOPs"]
    head = "Name".rjust(w) + "  " + "  ".join(c.rjust(12) for c in cols)
    row = asc.rjust(w) + "  " + "  ".join(v.rjust(12) for v in
          ["50.00%", "1.000ms", "1.000ms", "2.000ms", "2.000ms", "1.000ms", "2", "[[4, 4]]", "--"])
    row2 = "aten::add".rjust(w) + "  " + "  ".join(v.rjust(12) for v in
          ["50.00%", "1.000ms", "1.000ms", "2.000ms", "2.000ms", "1.000ms", "2", "[[4, 4]]", "--"])
    open(out, "w").write("\n".join([sep, head, sep, row, row2, sep,
                                    "Self CPU time total: 2.000ms", "Self CUDA time total: 4.000ms", ""]))
elif fmt == "profile":
    d = json.load(open(data + "/estimate/small.profile.json"))
    d["ops"][0]["name"] = utf
    json.dump(d, open(out, "w"), ensure_ascii=False)
PY
}

# check_cut WHAT FULL: the longest name of the profile on stdout is the
# start of the full name (utf, asc, or utf-tf: the timeline's "node (op)"),
# at most OP_NAME_MAX bytes, no fewer than a cut UTF-8 sequence less, and
# valid UTF-8
check_cut() {
    if python3 - "$OUT" "$2" "$CAP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [o["name"].encode() for o in d["ops"]]
top = max(names, key=len)
utf = "aten::big__" + "\u00e9" * 50000
cap = int(sys.argv[3])
# the timeline cuts the node's name (to cap - 1 bytes here) before adding " (op)"
full = {"utf": utf.encode(), "asc": ("aten::big_" + "x" * 100000).encode(),
        "utf-tf": utf.encode()[:cap - 1] + b" (MatMul)"}[sys.argv[2]]
print("# longest name: %d bytes" % len(top))
top.decode("utf-8")
sys.exit(0 if cap - 1 <= len(top) <= cap and full.startswith(top) else 1)
PY
    then ok "$1: name cut to the cap"; else not_ok "$1: name not cut to the cap"; fi
}

# byte 16384 of the JSON readers' name is inside an e-acute (they start at
# odd offsets after the 11-byte prefix): the cut keeps 16383 bytes
make_input kineto in.kineto.json
hostile_run 0 ingest in.kineto.json --format-out json
check_cut kineto utf
make_input profile in.profile.json
hostile_run 0 ingest in.profile.json --format-out json
check_cut "saved profile" utf
make_input tf-timeline in.tl.json
hostile_run 0 ingest in.tl.json --format-out json
check_cut "TF timeline" utf-tf
for f in tfprof pt-table; do
    make_input $f in.$f.txt
    hostile_run 0 ingest in.$f.txt --format $f --format-out json
    check_cut $f asc
done
# a profile written from a cut name reads back the same
hostile_run 0 ingest in.kineto.json --format-out json -o saved.json
hostile_run 0 ingest saved.json --format-out json
check_cut "saved profile read back" utf
done_testing
