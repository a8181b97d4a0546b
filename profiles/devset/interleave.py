#!/usr/bin/env python3
"""Is a model's bf16 (autocast) step slower than its fp32 step on the same
host at the same moment?

The development set's host-bound models record bf16 steps longer than
their fp32 steps at the same batch (the RWKV 212 -> 332 ms, the
GPT-2-shaped MoE 68 -> 132 ms), and their traces show the same fp32 op
(an fp32 mul with no children) taking 50% more host time in the bf16
trace.  record.py times each precision minutes apart, and a host's add
loop moves by up to 60% within one recording (host_calib before and
after), so the difference may be the run's or the host's.  Here both
precisions of one model live side by side and are timed in alternating
blocks, with the add loop between blocks: a difference that holds in
every block is the run's.

Usage: interleave.py --models rwkv:32,dien:2048 [--blocks 6] [--steps 10]
                     [--warm 5] -o OUT.json
Writes per model and precision every block's step times and the add
loop's host time per add before each block.
"""
import argparse
import json
import os
import platform
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "estimators", "measure"))
from record import Case, env_info  # noqa: E402
from host_calib import dispatch_loop  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", required=True, help="name:batch,...")
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    dev = torch.device("cuda")
    res = {"what": "fp32 and bf16 (autocast) steps of one model timed in alternating blocks "
                   "on one host (profiles/devset/interleave.py)",
           "blocks": a.blocks, "steps_per_block": a.steps, "models": []}
    res.update(env_info(dev))
    res["python"] = platform.python_version()
    for spec in a.models.split(","):
        name, batch = spec.split(":")
        batch = int(batch)
        cases = {p: Case(name, batch, p, dev) for p in ("fp32", "bf16")}
        for c in cases.values():
            for _ in range(a.warm):
                c.step()
        torch.cuda.synchronize(dev)
        m = {"model": name, "batch": batch, "blocks": []}
        for b in range(a.blocks):
            # alternate which precision goes first, so that neither always
            # follows the add loop
            order = ("fp32", "bf16") if b % 2 == 0 else ("bf16", "fp32")
            blk = {"add_s": dispatch_loop(dev, reps=1)[0]}
            for p in order:
                blk[p] = cases[p].timed(a.steps)
            m["blocks"].append(blk)
        f = [statistics.median(bk["fp32"]) for bk in m["blocks"]]
        h = [statistics.median(bk["bf16"]) for bk in m["blocks"]]
        m["fp32_block_medians_s"], m["bf16_block_medians_s"] = f, h
        m["bf16_over_fp32_by_block"] = [y / x for x, y in zip(f, h)]
        res["models"].append(m)
        print("%s b%d: fp32 %s ms, bf16 %s ms, bf16/fp32 %s, add %s us" % (
            name, batch, " ".join("%.1f" % (x * 1e3) for x in f),
            " ".join("%.1f" % (x * 1e3) for x in h),
            " ".join("%.2f" % r for r in m["bf16_over_fp32_by_block"]),
            " ".join("%.1f" % (bk["add_s"] * 1e6) for bk in m["blocks"])), flush=True)
        del cases
        torch.cuda.empty_cache()
    with open(a.out, "w") as fo:
        json.dump(res, fo, indent=1)


if __name__ == "__main__":
    main()
