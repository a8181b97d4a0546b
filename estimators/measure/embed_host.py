#!/usr/bin/env python3
"""Measure what a dense embedding's backward costs a GPU's host per call,
with and without the profiler.

PyTorch's CUDA embedding_dense_backward sorts the indices and reduces
segments: a GPU trace shows some twenty launches, ten memsets and a dozen
allocations under each call, and the host time the traces give such a
call (hundreds of microseconds) is far above what an op of one kernel
costs.  This times the call itself on the host, the device kept ahead of
the queue (20 calls a repeat, far fewer launches than the queue holds, so
the host never waits for it), over tables of 1,000 to 1,000,000 rows of 16
and 64 features and 256 to 65,536 indices, and the same calls under the
profiler (their recorded host durations and the events each records),
next to host_calib.py's add loop.

  embed_host.py --out DIR [--device cuda:0]

Writes DIR/embed_host.json: per configuration the median host seconds
per call over 7 repeats without the profiler, the median recorded
duration with it, and the events recorded under one call.
"""
import json
import os
import statistics

import torch

from host_calib import dispatch_loop, host_info, host_per_call, out_and_device

CONFIGS = [(v, d, n) for v in (1000, 100000, 1000000) for d in (16, 64) for n in (256, 4096, 65536)]


def profiled(fn, dev, calls=10):
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize(dev)
    evs = [e for e in prof.events() if e.name == "aten::embedding_dense_backward"]
    durs = sorted(e.time_range.elapsed_us() * 1e-6 for e in evs)
    inside = 0
    if evs:
        e0 = evs[len(evs) // 2]
        lo, hi = e0.time_range.start, e0.time_range.end
        inside = sum(1 for e in prof.events() if e is not e0 and e.thread == e0.thread
                     and e.time_range.start >= lo and e.time_range.end <= hi)
    return (statistics.median(durs) if durs else None), inside


def main():
    out, dev = out_and_device()
    disp, _ = dispatch_loop(dev)
    rows = []
    for vocab, dim, n in CONFIGS:
        grad = torch.randn(n, dim, device=dev)
        idx = torch.randint(0, vocab, (n,), device=dev)
        fn = lambda: torch.ops.aten.embedding_dense_backward(grad, idx, vocab, -1, False)
        med, allv = host_per_call(fn, dev, 20)
        prof_s, events = profiled(fn, dev)
        rows.append({"vocab": vocab, "dim": dim, "indices": n, "host_s": med, "repeats_s": allv,
                     "profiled_s": prof_s, "events_inside": events})
        print(f"vocab {vocab:8d} dim {dim:3d} indices {n:6d}: {med * 1e6:8.1f} us per call "
              f"({med / disp:5.1f} dispatches), profiled {prof_s * 1e6 if prof_s else 0:8.1f} us, "
              f"{events} events inside", flush=True)
    disp_after, _ = dispatch_loop(dev)
    with open(os.path.join(out, "embed_host.json"), "w") as f:
        json.dump({"dispatch_s": disp, "dispatch_after_s": disp_after, "rows": rows,
                   "host": host_info(dev)}, f, indent=1)
    print(f"dispatch {disp * 1e6:.2f} us before, {disp_after * 1e6:.2f} us after")


if __name__ == "__main__":
    main()
