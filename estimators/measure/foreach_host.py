#!/usr/bin/env python3
"""Measure what one call of PyTorch's multi-tensor (foreach) ops costs a
GPU host, by the number of tensors in its lists.

On a GPU, PyTorch's Adam, AdamW and SGD with momentum update all the
parameters of a step with one call of each _foreach_ op (a list of every
parameter's tensor), where a CPU trace records one call per parameter and
op.  What a host spends on such a call grows with its tensors (the lists
are checked, grouped by device and type, split into launches of at most a
few dozen tensors, and an allocating op such as _foreach_sqrt makes one
output tensor each), so neither one dispatch per parameter nor one per
call is right.  This times the seven ops of the foreach Adam step (those
of AdamW and SGD momentum are among them) on lists of 1 to 1,024 tensors
of 4,096 fp32 elements (the kernels far shorter than the host's work: the
host's issue rate is what is timed, as in host_calib.py's add loop), and
the add loop itself, so that each call's cost is also given in the
machine's dispatches.

  foreach_host.py --out DIR [--device cuda:0]

Writes DIR/foreach_host.json: per op and list length the median host
seconds per call over 7 repeats, and the dispatch of host_calib.py's loop.
The H200 host's run and what it shows: estimators/h200/ORIGIN.md.
"""
import json
import os

import torch

from host_calib import dispatch_loop, host_info, host_per_call, out_and_device

SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def ops(n, dev):
    """The foreach Adam step's ops as (name, thunk) on lists of n tensors."""
    mk = lambda: [torch.rand(4096, device=dev) + 0.5 for _ in range(n)]
    p, g, m, v = mk(), mk(), mk(), mk()
    return [
        ("_foreach_lerp_", lambda: torch._foreach_lerp_(m, g, 0.1)),
        ("_foreach_mul_", lambda: torch._foreach_mul_(v, 0.999)),
        ("_foreach_addcmul_", lambda: torch._foreach_addcmul_(v, g, g, 0.001)),
        ("_foreach_sqrt", lambda: torch._foreach_sqrt(v)),
        ("_foreach_div_", lambda: torch._foreach_div_(v, 1.0001)),
        ("_foreach_add_", lambda: torch._foreach_add_(v, 1e-8)),
        ("_foreach_addcdiv_", lambda: torch._foreach_addcdiv_(p, m, v, -1e-6)),
    ]


def main():
    out, dev = out_and_device()
    disp, disp_all = dispatch_loop(dev)
    rows = []
    for n in SIZES:
        for name, fn in ops(n, dev):
            calls = max(20, 4000 // n)
            med, allv = host_per_call(fn, dev, calls)
            rows.append({"op": name, "tensors": n, "host_s": med, "repeats_s": allv})
            print(f"{name:20s} {n:5d} tensors  {med * 1e6:9.2f} us per call  {med / disp:7.2f} dispatches",
                  flush=True)
    disp_after, _ = dispatch_loop(dev)
    res = {"dispatch_s": disp, "dispatch_repeats_s": disp_all, "dispatch_after_s": disp_after,
           "tensor_elements": 4096, "rows": rows, "host": host_info(dev)}
    with open(os.path.join(out, "foreach_host.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(f"dispatch {disp * 1e6:.2f} us before, {disp_after * 1e6:.2f} us after")


if __name__ == "__main__":
    main()
