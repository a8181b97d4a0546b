#!/usr/bin/env python3
"""Write a large Kineto trace by replicating the events of a real one.

usage: kineto-replicate.py SRC.json.gz OUT.json.gz MIN_BYTES

Each copy shifts ts by the source's time span and External id,
correlation and flow ids by their maxima, so linking stays unambiguous and
the result looks like one long profiling session.  MIN_BYTES counts the
uncompressed JSON; the output is gzip'd (level 1)."""
import gzip, json, sys

src, out, min_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(gzip.open(src))
ev = d.pop("traceEvents")
ts = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))]
span = max(e["ts"] + e.get("dur", 0) for e in ev if "ts" in e) - min(ts) + 1000.0
max_ext = max_corr = max_id = 0
for e in ev:
    a = e.get("args", {})
    if isinstance(a.get("External id"), int):
        max_ext = max(max_ext, a["External id"])
    if isinstance(a.get("correlation"), int):
        max_corr = max(max_corr, a["correlation"])
    if isinstance(e.get("id"), int):
        max_id = max(max_id, e["id"])
max_all = max(max_ext, max_corr, max_id) + 1

# One template per event: its JSON text without the shifted fields, which
# are appended per copy (args last, so they can go inside it).
templ = []
for e in ev:
    e = dict(e)
    a = dict(e.pop("args", {})) if isinstance(e.get("args"), dict) else None
    ts = e.pop("ts", None)
    fid = e.pop("id", None) if isinstance(e.get("id"), int) else None
    links = []
    if a is not None:
        for k in ("External id", "correlation"):
            if isinstance(a.get(k), int):
                links.append((k, a.pop(k)))
    body = json.dumps(e)[:-1]
    args = json.dumps(a)[1:-1] if a is not None else None
    templ.append((body, ts, fid, args, links))

head = json.dumps(d)[:-1]
written = 0
with gzip.open(out, "wt", compresslevel=1) as f:
    f.write(head + ', "traceEvents": [\n')
    copy = 0
    first = True
    while written < min_bytes:
        dt, di = copy * span, copy * max_all
        parts = []
        for body, ts, fid, args, links in templ:
            s = body
            if ts is not None:
                s += ', "ts": %.3f' % (ts + dt)
            if fid is not None:
                s += ', "id": %d' % (fid + di)
            if args is not None:
                l = ", ".join('"%s": %d' % (k, v + di) for k, v in links)
                s += ', "args": {' + l + (", " if l and args else "") + args + "}"
            parts.append(s + "}")
        chunk = ("" if first else ",\n") + ",\n".join(parts)
        first = False
        f.write(chunk)
        written += len(chunk)
        copy += 1
    f.write("\n]}\n")
print("%s: %d copies, %.0f MB of JSON" % (out, copy, written / 1e6))
