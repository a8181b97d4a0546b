#!/usr/bin/env python3
"""Measure what one op of a training step costs a GPU host, for the
machine file's `train-dispatch`.

A host-CPU trace moved to a GPU pays, per op call it holds, what the
GPU's host spends to issue that op inside a training step: PyTorch's
dispatch, autograd's recording of the forward op and its engine's run of
the backward one, the module and optimizer code around them.  A loop of
bare adds (host_calib.py's `dispatch`) times the first part only.  Here a
step of a calibration network is timed on the GPU without the profiler,
its tensors so small that the device idles and the step is its host's
work, and the same step of the same network is traced on the host CPU
(PyTorch's profiler, record_shapes), the trace `fom` reads to count the
op calls the estimate charges.  The network is none of the models fom is
validated on: a few blocks of the common layer kinds at toy sizes (a
3x3 convolution with batch norm and ReLU, a layer-normed MLP with GELU
and dropout, a softmax attention product, an embedding), AdamW.

Writes DIR/train_host.json (the GPU step times: three rounds of timed
steps after a warm-up, each step synchronised) and
DIR/calib_train_cpu.json.gz (the CPU trace of one step).  `fom estimate
--profile DIR/calib_train_cpu.json.gz --machine M.xml --format json` with
the machine's `dispatch` gives the host time it charges; the step's
measured time over the calls it charged (host time / dispatch) is the
host's cost per op of a training step.

  train_host.py --out DIR [--device cuda:0]
"""
import gzip
import json
import os
import shutil
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_calib import host_info, out_and_device  # noqa: E402

BATCH, CH, HW, SEQ, D, VOCAB, BLOCKS = 2, 8, 8, 16, 32, 100, 6


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(CH, CH, 3, padding=1)
        self.bn = nn.BatchNorm2d(CH)
        self.ln = nn.LayerNorm(D)
        self.up = nn.Linear(D, 2 * D)
        self.down = nn.Linear(2 * D, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.drop = nn.Dropout(0.1)

    def forward(self, img, seq):
        img = img + F.relu(self.bn(self.conv(img)))
        q, k, v = self.qkv(seq).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(1, 2) / D ** 0.5, dim=-1) @ v
        seq = seq + att
        seq = seq + self.drop(self.down(F.gelu(self.up(self.ln(seq)))))
        return img, seq


class Calib(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.stem = nn.Conv2d(3, CH, 3, padding=1)
        self.blocks = nn.ModuleList(Block() for _ in range(BLOCKS))
        self.head = nn.Linear(CH + D, 10)

    def forward(self, img, tok):
        img, seq = self.stem(img), self.emb(tok)
        for b in self.blocks:
            img, seq = b(img, seq)
        return self.head(torch.cat([img.mean(dim=(2, 3)), seq.mean(dim=1)], dim=1))


def build(dev):
    torch.manual_seed(0)
    model = Calib().to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    img = torch.randn(BATCH, 3, HW, HW, device=dev)
    tok = torch.randint(0, VOCAB, (BATCH, SEQ), device=dev)
    y = torch.randint(0, 10, (BATCH,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(img, tok), y).backward()
        opt.step()
    return step


def gpu_steps(dev, warm=20, rounds=3, n=50):
    step = build(dev)
    for _ in range(warm):
        step()
    torch.cuda.synchronize(dev)
    out = []
    for _ in range(rounds):
        ts = []
        for _ in range(n):
            torch.cuda.synchronize(dev)
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize(dev)
            ts.append(time.perf_counter() - t0)
        out.append(ts)
    return out


def cpu_trace(path):
    step = build(torch.device("cpu"))
    for _ in range(3):
        step()
    raw = path[:-3]
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=1),
                                on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(2):
            step()
            prof.step()
    with open(raw, "rb") as f, gzip.open(path, "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)


def main():
    out, dev = out_and_device()
    rounds = gpu_steps(dev)
    cpu_trace(os.path.join(out, "calib_train_cpu.json.gz"))
    med = [statistics.median(r) for r in rounds]
    info = {
        "what": "training-step host calibration: see estimators/measure/train_host.py",
        "batch": BATCH, "blocks": BLOCKS,
        "gpu_step_s": {"median": statistics.median([t for r in rounds for t in r]),
                       "round_medians": med, "all": rounds},
    }
    info.update(host_info(dev))
    with open(os.path.join(out, "train_host.json"), "w") as f:
        json.dump(info, f, indent=1)
    print("%s: training step %.3f ms (round medians %s)" % (
        info["gpu"], info["gpu_step_s"]["median"] * 1e3, ", ".join("%.3f" % (m * 1e3) for m in med)))


if __name__ == "__main__":
    main()
