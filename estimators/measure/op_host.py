#!/usr/bin/env python3
"""Measure what issuing one op costs a GPU's host, per kind of op and at
tiny and at real sizes, without the profiler.

A chain of K layers of one kind (the same shape in and out) is run
forward and backward.  The host's time to issue the chain is timed from
a synchronised start to the return of the Python call, without waiting
for the device: the forward's K calls, then loss.backward() (which
returns once autograd's engine has issued every backward kernel).  K is
small enough that the launches fit the device's queue, so the host is
never held back by the device.  The device's time for the same work is
timed with CUDA events after a synchronised start, for reference.

Also times whole training steps of some models (models.py) the same way:
the host's issue time of a step (forward, backward, optimizer) against
the step's time with the device waited for.

Writes DIR/op_host.json.

  op_host.py --out DIR [--device cuda:0] [--models densenet:32:fp32,...]
             [--sizes tiny,real] [--kinds conv3x3,conv_bn,...]
"""
import argparse
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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "profiles", "devset"))
from host_calib import host_info  # noqa: E402
from record import Case, sync  # noqa: E402  (profiles/devset/record.py: the harness's step)

K = 32          # layers per chain
ROUNDS = 15


class Cat(nn.Module):
    def __init__(self, parts):
        super().__init__()
        self.parts = parts

    def forward(self, x):
        return torch.cat([x] * self.parts, dim=1)[:, : x.shape[1]]


def chains(size):
    """(name, builder of one layer, input shape) per kind at size 'tiny' or
    'real'.  Every layer keeps its input's shape, so that K of them chain."""
    if size == "tiny":
        b, c, hw, d = 2, 8, 8, 32
    else:
        b, c, hw, d = 32, 128, 28, 1024
    img = (b, c, hw, hw)
    vec = (b * 64 if size == "real" else b, d)
    shared = nn.Linear(d, d)
    return [
        ("add", lambda: Lambda(lambda x: x + 1.0), img),
        ("mul", lambda: Lambda(lambda x: x * 0.5), img),
        ("narrow", lambda: Lambda(lambda x: x.narrow(1, 0, x.shape[1])), img),
        ("view", lambda: Lambda(lambda x: x.view(x.shape)), img),
        ("conv3x3", lambda: nn.Conv2d(c, c, 3, padding=1, bias=False), img),
        ("conv3x3_bias", lambda: nn.Conv2d(c, c, 3, padding=1), img),
        ("conv1x1", lambda: nn.Conv2d(c, c, 1, bias=False), img),
        ("batchnorm", lambda: nn.BatchNorm2d(c), img),
        ("relu", lambda: nn.ReLU(), img),
        ("maxpool", lambda: nn.MaxPool2d(3, 1, 1), img),
        ("dropout", lambda: nn.Dropout(0.1), img),
        ("cat8", lambda: Cat(8), img),
        ("linear", lambda: nn.Linear(d, d), vec),
        ("linear_nobias", lambda: nn.Linear(d, d, bias=False), vec),
        ("layernorm", lambda: nn.LayerNorm(d), vec),
        ("gelu", lambda: nn.GELU(), vec),
        ("softmax", lambda: nn.Softmax(dim=-1), vec),
        # eight ops inside one module's forward, as functional code runs
        # them: the ops' cost without a module call each
        ("add_x8", lambda: Lambda(add8), img),
        ("mul_relu_x4", lambda: Lambda(mul_relu4), img),
        ("rmsnorm", lambda: Lambda(rmsnorm), vec),
        # blocks as models stack them: under autocast a batch norm reads
        # the convolution's low-precision output, and a GEMM after a layer
        # norm (which autocast runs in fp32) casts its activation too;
        # the blocks against the single layers above give what autocast
        # adds per op in context
        ("conv_bn", lambda: nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False),
                                          nn.BatchNorm2d(c)), img),
        ("conv_bn_relu", lambda: nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False),
                                               nn.BatchNorm2d(c), nn.ReLU()), img),
        ("conv_bias_relu", lambda: nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU()), img),
        ("ln_linear", lambda: nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d)), vec),
        ("linear_gelu", lambda: nn.Sequential(nn.Linear(d, d), nn.GELU()), vec),
        # one linear layer applied K times (a recurrent cell, a weight-tied
        # block): autocast casts its weight once and reuses the cast, so
        # against "linear" this gives what a call with a cached cast costs
        ("linear_shared", lambda: Shared(shared), vec),
    ]


def add8(x):
    for _ in range(8):
        x = x + 1.0
    return x


def mul_relu4(x):
    for _ in range(4):
        x = F.relu(x * 0.5)
    return x


def rmsnorm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Shared(nn.Module):
    """A layer that K places of a chain share: one set of parameters."""
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


class Lambda(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


def time_chain(net, x, dev, autocast):
    """Median host issue time of the forward and of the backward, and the
    device time of both, in seconds per chain."""
    fwd, bwd, devt = [], [], []
    for r in range(ROUNDS + 3):
        sync(dev)
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
            y = net(x)
            loss = y.float().sum()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        sync(dev)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
            y = net(x)
            loss = y.float().sum()
        loss.backward()
        e1.record()
        sync(dev)
        net.zero_grad(set_to_none=True)
        if r >= 3:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
            devt.append(e0.elapsed_time(e1) * 1e-3)
    return statistics.median(fwd), statistics.median(bwd), statistics.median(devt)


def op_chains(dev, sizes, kinds):
    out = []
    for size in sizes:
        for name, layer, shape in chains(size):
            if kinds and name not in kinds:
                continue
            for autocast in (False, True):
                net = nn.Sequential(*[layer() for _ in range(K)]).to(dev)
                x = torch.randn(*shape, device=dev, requires_grad=True)
                f, b, d = time_chain(net, x, dev, autocast)
                row = {"kind": name, "size": size, "shape": list(shape), "autocast_bf16": autocast,
                       "layers": K, "host_fwd_s": f, "host_bwd_s": b, "device_s": d,
                       "host_fwd_per_layer_us": f / K * 1e6, "host_bwd_per_layer_us": b / K * 1e6}
                print("%-13s %-4s ac=%d fwd %7.1f us  bwd %7.1f us  per layer; device %8.3f ms"
                      % (name, size, autocast, row["host_fwd_per_layer_us"],
                         row["host_bwd_per_layer_us"], d * 1e3), flush=True)
                out.append(row)
                del net, x
    return out


def cpu_traces(out_dir, kinds):
    """One forward and backward of each tiny chain on the host CPU under the
    profiler (record_shapes, as the traces fom reads): what fom charges per
    layer of each kind."""
    from torch.profiler import ProfilerActivity, profile
    for name, layer, shape in chains("tiny"):
        if kinds and name not in kinds:
            continue
        net = nn.Sequential(*[layer() for _ in range(K)])
        x = torch.randn(*shape, requires_grad=True)
        for _ in range(3):
            net(x).sum().backward()
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_flops=True) as prof:
            net(x).sum().backward()
        path = os.path.join(out_dir, "cpu_%s.json" % name)
        prof.export_chrome_trace(path)
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        os.remove(path)


def model_steps(names, dev):
    """Training steps of the development set's models (profiles/devset/record.py's
    Case, the step the harness times), each spec NAME:BATCH:PRECISION."""
    out = []
    for spec in names:
        name, batch, prec = spec.split(":")
        case = Case(name, int(batch), prec, dev)
        issue, step = [], []
        for r in range(25):
            sync(dev)
            t0 = time.perf_counter()
            case.step()
            t1 = time.perf_counter()
            sync(dev)
            t2 = time.perf_counter()
            if r >= 5:
                issue.append(t1 - t0)
                step.append(t2 - t0)
        row = {"model": name, "batch": int(batch), "precision": prec,
               "host_issue_s": statistics.median(issue), "step_s": statistics.median(step),
               "issue_all_s": issue, "step_all_s": step}
        print("%-10s b%-4s %s: host issue %.2f ms, step %.2f ms" % (name, batch, prec,
              row["host_issue_s"] * 1e3, row["step_s"] * 1e3), flush=True)
        out.append(row)
        del case
        torch.cuda.empty_cache()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--models", default="")
    ap.add_argument("--sizes", default="tiny,real")
    ap.add_argument("--kinds", default="", help="only these chains (comma-separated names)")
    a = ap.parse_args()
    kinds = set(a.kinds.split(",")) - {""}
    dev = torch.device(a.device)
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    res = {"host": host_info(dev), "torch": torch.__version__,
           "device_name": torch.cuda.get_device_name(dev),
           "chains": op_chains(dev, a.sizes.split(","), kinds)}
    cpu_traces(a.out, kinds)
    if a.models:
        res["models"] = model_steps(a.models.split(","), dev)
    with open(os.path.join(a.out, "op_host.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
