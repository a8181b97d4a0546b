#!/usr/bin/env python3
"""Measure the gap a GPU leaves between two kernels queued on one stream.

A Kineto trace times each kernel on the device; the replay in `fom
estimate` puts a trace's kernels back to back when the device is the
bottleneck, and between two queued kernels the device spends a short
time of its own (the next kernel's launch from the queue, the previous
one's drain), which no kernel's duration holds.  Here the device is held
by a long sleep kernel while the host queues N small kernels of one kind
behind it; the profiler's trace then shows them running back to back,
and the time from one kernel's end to the next one's start, over all
consecutive pairs, is that gap (median and spread).  Kinds: an add on
256 elements, an add on 4M elements (memory-bound, 32 MB), a 256-cubed
fp32 GEMM and a 1024-cubed bf16 GEMM, so that the gap is seen not to
depend on what the kernel does.

Writes DIR/kernel_gap.json.

  kernel_gap.py --out DIR [--device cuda:0] [--n 2000]
"""
import argparse
import json
import os
import statistics
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile


def cases(dev):
    small = torch.zeros(256, device=dev)
    big = torch.zeros(1 << 22, device=dev)
    a32 = torch.randn(256, 256, device=dev)
    a16 = torch.randn(1024, 1024, device=dev, dtype=torch.bfloat16)
    return [
        ("add-256", lambda: small.add_(1)),
        ("add-4M", lambda: big.add_(1)),
        ("gemm-fp32-256", lambda: torch.mm(a32, a32)),
        ("gemm-bf16-1024", lambda: torch.mm(a16, a16)),
    ]


def quantile(s, q):
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def one(dev, name, fn, n, tmp):
    torch.backends.cuda.matmul.allow_tf32 = False
    for _ in range(50):
        fn()
    torch.cuda.synchronize(dev)
    path = os.path.join(tmp, name + ".json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        # about 0.5 s of device time at 2 GHz: longer than the host takes
        # to queue n kernels, even under the profiler
        torch.cuda._sleep(1_000_000_000)
        for _ in range(n):
            fn()
        torch.cuda.synchronize(dev)
    p.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]
    k = sorted((e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"),
               key=lambda e: e["ts"])
    # the sleep kernel first, then the queued ones
    k = [e for e in k if "sleep" not in e["name"].lower()]
    gaps = sorted(b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(k, k[1:]))
    durs = sorted(e["dur"] for e in k)
    return {
        "kernels": len(k),
        "kernel_name": k[0]["name"][:120] if k else None,
        "kernel_us": {"median": statistics.median(durs), "p05": quantile(durs, 0.05),
                      "p95": quantile(durs, 0.95)},
        "gap_us": {"median": statistics.median(gaps), "p05": quantile(gaps, 0.05),
                   "p95": quantile(gaps, 0.95), "min": gaps[0], "max": gaps[-1]},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--n", type=int, default=2000)
    a = ap.parse_args()
    dev = torch.device(a.device)
    os.makedirs(a.out, exist_ok=True)
    res = {"what": "gap between queued kernels on one stream: see estimators/measure/kernel_gap.py",
           "gpu": torch.cuda.get_device_name(dev), "torch": torch.__version__,
           "cuda": torch.version.cuda, "n": a.n, "cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in cases(dev):
            res["cases"][name] = one(dev, name, fn, a.n, tmp)
            print(name, json.dumps(res["cases"][name]["gap_us"]), flush=True)
    with open(os.path.join(a.out, "kernel_gap.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
