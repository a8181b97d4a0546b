#!/usr/bin/env python3
"""Time the indexed ops (gathers and scatter-adds of rows) against a plain
copy of the same elements, in fp32 and bf16, on one GPU.

Graph and recommendation models spend their time in ops that read or
add rows chosen by an index: index_select (a gather of rows),
index_add_ and index_select's backward (scatter-adds of rows, done with
atomic adds, since several index entries may name one row), gather and
scatter_add_ (per element), and advanced indexing's pair, x[idx]
(aten::index, a gather of rows) and its backward (aten::_index_put_impl_
with accumulate: the indices sorted, then the rows added).  The
element-wise table rows (a stream of
contiguous elements) say nothing about them: an indexed kernel reads
one element per thread through an index, and a scatter-add makes the
memory system add into a word rather than store it.  These timings show
whether such an op follows its bytes (faster in bf16) or its element
count (as slow in bf16 as in fp32).

Sizes: rows N, row width F, index length E = N x degree, none of them a
shape of the models in profiles/ (the validated models must not be in
what the estimator is built from).  Every op is timed with CUDA events
around REPS launches after a warm-up, median of ROUNDS rounds.

Writes DIR/index_ops.csv (one row per op, precision and size) and
DIR/env.json.  --ops names the ops to time (default: all of them).

  index_ops.py --out DIR [--device cuda:0] [--ops index,_index_put_impl_]
"""
import argparse
import csv
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_calib import host_info  # noqa: E402

ROWS = (6000, 20000, 90000)
WIDTHS = (40, 96, 200, 520)
DEGREES = (3, 10, 24)
REPS = 10
ROUNDS = 7


def time_us(fn, dev):
    """Median over ROUNDS of the mean time of REPS back-to-back launches."""
    fn()
    torch.cuda.synchronize(dev)
    out = []
    for _ in range(ROUNDS):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(REPS):
            fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) * 1e3 / REPS)
    out.sort()
    return statistics.median(out), out[0], out[-1]


def ops_for(n, f, e, dt, dev):
    """(op, elements it produces or adds, fn) at one size."""
    g = torch.Generator(device=dev)
    g.manual_seed(n * 131 + f * 7 + e)
    x = torch.randn(n, f, device=dev, dtype=dt)
    idx = torch.randint(0, n, (e,), device=dev, generator=g)
    src = torch.randn(e, f, device=dev, dtype=dt)
    out = torch.zeros(n, f, device=dev, dtype=dt)
    idx2 = idx.unsqueeze(1).expand(e, f).contiguous()
    dst = torch.empty(e, f, device=dev, dtype=dt)
    ef = e * f
    return [
        ("index_select", ef, lambda: torch.index_select(x, 0, idx)),
        ("index_add_", ef, lambda: out.index_add_(0, idx, src)),
        ("index_select_backward", ef,
         lambda: torch.ops.aten.index_select_backward(src, [n, f], 0, idx)),
        ("gather", ef, lambda: torch.gather(x, 0, idx2)),
        ("scatter_add_", ef, lambda: out.scatter_add_(0, idx2, src)),
        ("index", ef, lambda: torch.ops.aten.index(x, [idx])),
        ("_index_put_impl_", ef,
         lambda: torch.ops.aten._index_put_impl_(out, [idx], src, True, False)),
        ("copy_", ef, lambda: dst.copy_(src)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--ops", default="")
    a = ap.parse_args()
    only = set(x for x in a.ops.split(",") if x)
    dev = torch.device(a.device)
    os.makedirs(a.out, exist_ok=True)
    name = torch.cuda.get_device_name(dev)
    rows = []
    for dt, pname in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        for n in ROWS:
            for f in WIDTHS:
                for d in DEGREES:
                    e = n * d
                    for op, elems, fn in ops_for(n, f, e, dt, dev):
                        if only and op not in only:
                            continue
                        med, lo, hi = time_us(fn, dev)
                        rows.append(dict(op=op, precision=pname, rows=n, width=f, index=e,
                                         elements=elems, time_us=round(med, 3),
                                         time_us_min=round(lo, 3), time_us_max=round(hi, 3),
                                         reps=REPS * ROUNDS))
                    torch.cuda.empty_cache()
        print("%s %s: %d rows" % (name, pname, len(rows)), flush=True)
    with open(os.path.join(a.out, "index_ops.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    env = host_info(dev)
    env.update(rows=ROWS, widths=WIDTHS, degrees=DEGREES, reps=REPS, rounds=ROUNDS,
               ops=sorted(only) if only else "all")
    with open(os.path.join(a.out, "env.json"), "w") as fh:
        json.dump(env, fh, indent=1)


if __name__ == "__main__":
    main()
