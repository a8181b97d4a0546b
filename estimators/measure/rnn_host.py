#!/usr/bin/env python3
"""Measure what a cuDNN recurrent layer costs a GPU's host, per kernel it
launches, for the machine file (`<overheads loop-launch=...>`) and for the
launch-count model of fom's estimator (src/model/est_host.c).

cuDNN runs a recurrent layer as a loop on the host: per layer and
direction, one GEMM over every step's input, then per time step a
recurrent GEMM and a pointwise kernel; the backward pass runs its own loop.
A layer of small steps is therefore as fast as the host issues that loop,
and what the host spends per launched kernel (cuDNN's bookkeeping around
each launch: events, stream waits, error checks) is a property of the
host and the library, not of the model.  This script measures it on
layers of shapes chosen for the purpose (none is a shape of a model that
fom validates with):

  - per configuration (cell, layers, directions, steps, hidden, batch,
    precision): the host time of the forward call and of the backward
    pass without the profiler (median of REPS timed iterations, each
    ended by a device synchronisation so that the launch queue never
    fills), and the device time of each (CUDA events);
  - the same with the device kept busy by a sleeping kernel before each
    pass: the host's issue cost alone (a call that waits for the device
    shows the sleep in its host time) and the kernels' device time alone;
  - from one profiled iteration: the kernels the forward call
    (aten::_cudnn_rnn) and its backward (aten::_cudnn_rnn_backward)
    launch, counted as the runtime's launch events inside each.

Writes DIR/rnn_host.json (every configuration, torch and host details)
and prints one line per configuration.

  rnn_host.py --out DIR [--device cuda:0] [--reps N] [--cells lstm,gru] [--layers 1,2,3]
              [--dirs 1,2] [--steps 24,80] [--hidden 256,640] [--batch 8] [--precisions fp32,bf16]
              [--inputs 0 (= hidden)] [--proj 0] [--batch-first]

--proj gives LSTMs projections (nn.LSTM's proj_size, cuDNN's projSize:
the hidden state P wide, the cell H); 0 is none, and a size not below the
hidden size, or any for a GRU, is skipped.
"""
import argparse
import itertools
import json
import os
import statistics
import tempfile
import time

import torch

from host_calib import host_info

# the default grid; each axis can be given on the command line
GRID = {"cells": "lstm,gru", "layers": "1,2,3", "dirs": "1,2", "steps": "24,80", "hidden": "256,640",
        "batch": "8", "precisions": "fp32,bf16", "inputs": "0", "proj": "0"}
LAUNCH_NAMES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")


def launches_in(trace_path):
    """Kernel launches inside the first aten::_cudnn_rnn and
    aten::_cudnn_rnn_backward of a Kineto trace (same thread, inside the
    op's span), and the ops' profiled host times."""
    with open(trace_path) as f:
        ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    out = {}
    for name, key in (("aten::_cudnn_rnn", "fwd"), ("aten::_cudnn_rnn_backward", "bwd")):
        ops = [e for e in ev if e.get("cat") == "cpu_op" and e["name"] == name]
        if not ops:
            continue
        o = ops[0]
        n = sum(1 for e in ev if e.get("cat") == "cuda_runtime" and e["name"] in LAUNCH_NAMES
                and e["tid"] == o["tid"] and o["ts"] <= e["ts"] <= o["ts"] + o["dur"])
        out[key] = {"launches": n, "profiled_host_s": o["dur"] * 1e-6}
    return out


def sleep_rate(dev):
    """GPU clock cycles per second of torch.cuda._sleep, timed."""
    torch.cuda._sleep(1000000)
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    torch.cuda._sleep(100000000)
    b.record()
    torch.cuda.synchronize(dev)
    return 1e8 / (a.elapsed_time(b) * 1e-3)


def one(cell, layers, dirs, steps, hidden, batch, prec, dev, reps, cycles_per_s, inp=0, batch_first=False,
        proj=0):
    inp = inp or hidden
    if cell == "lstm":
        rnn = torch.nn.LSTM(inp, hidden, num_layers=layers, bidirectional=dirs == 2,
                            batch_first=batch_first, proj_size=proj)
    else:
        rnn = torch.nn.GRU(inp, hidden, num_layers=layers, bidirectional=dirs == 2, batch_first=batch_first)
    rnn = rnn.to(dev)
    shape = (batch, steps, inp) if batch_first else (steps, batch, inp)
    x = torch.randn(*shape, device=dev, requires_grad=True)
    ac = torch.autocast("cuda", dtype=torch.bfloat16, enabled=prec == "bf16")

    def it(times=None, preload=0):
        """One training iteration, timed.  With preload (GPU clock cycles)
        the device is first kept busy by a sleeping kernel, so that the
        host times are the host's issue cost alone and the device times
        the kernels' alone (without it, a host-bound call's device time
        holds the device's waits for the host)."""
        e = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        with ac:
            if preload:
                torch.cuda._sleep(preload)
            e[0].record()
            t0 = time.perf_counter()
            y, _ = rnn(x)
            t1 = time.perf_counter()
            e[1].record()
        loss = y.float().sum()
        torch.cuda.synchronize(dev)
        if preload:
            torch.cuda._sleep(preload)
        e[2].record()
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        e[3].record()
        torch.cuda.synchronize(dev)
        if times is not None:
            times.append((t1 - t0, t3 - t2, e[0].elapsed_time(e[1]) * 1e-3,
                          e[2].elapsed_time(e[3]) * 1e-3))

    for _ in range(3):
        it()
    times = []
    for _ in range(reps):
        it(times)
    # keep the device busy for three times the slowest unloaded pass
    busy_s = 3 * max(max(t[0], t[1]) for t in times) + 1e-3
    loaded = []
    for _ in range(reps):
        it(loaded, int(busy_s * cycles_per_s))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
            it()
        prof.export_chrome_trace(path)
        counts = launches_in(path)
    med = [statistics.median(t[i] for t in times) for i in range(4)]
    lmed = [statistics.median(t[i] for t in loaded) for i in range(4)]
    return {
        "cell": cell, "layers": layers, "directions": dirs, "steps": steps, "hidden": hidden,
        "batch": batch, "precision": prec, "reps": reps, "input": inp, "batch_first": batch_first,
        "proj": proj,
        "fwd_host_s": med[0], "bwd_host_s": med[1], "fwd_device_s": med[2], "bwd_device_s": med[3],
        "fwd_host_all_s": [t[0] for t in times], "bwd_host_all_s": [t[1] for t in times],
        "loaded_fwd_host_s": lmed[0], "loaded_bwd_host_s": lmed[1],
        "loaded_fwd_device_s": lmed[2], "loaded_bwd_device_s": lmed[3],
        "loaded_fwd_host_all_s": [t[0] for t in loaded], "loaded_bwd_host_all_s": [t[1] for t in loaded],
        "fwd_launches": counts.get("fwd", {}).get("launches"),
        "bwd_launches": counts.get("bwd", {}).get("launches"),
        "fwd_profiled_host_s": counts.get("fwd", {}).get("profiled_host_s"),
        "bwd_profiled_host_s": counts.get("bwd", {}).get("profiled_host_s"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--batch-first", action="store_true")
    for k, v in GRID.items():
        ap.add_argument("--" + k, default=v, help="comma-separated (default %s)" % v)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device(a.device)
    torch.backends.cudnn.benchmark = False
    cycles_per_s = sleep_rate(dev)
    rows = []
    axes = [getattr(a, k).split(",") for k in GRID]
    for cell, layers, dirs, steps, hidden, batch, prec, inp, proj in itertools.product(*axes):
        if int(proj) and (cell != "lstm" or int(proj) >= int(hidden)):
            continue
        r = one(cell, int(layers), int(dirs), int(steps), int(hidden), int(batch), prec, dev, a.reps,
                cycles_per_s, int(inp), a.batch_first, int(proj))
        rows.append(r)
        print("%s L%d D%d T%-3d H%-4d P%-4d B%-4d %s  fwd %4s launches %7.1f us host (%6.1f dev)  "
              "bwd %4s launches %7.1f us host (%6.1f dev)" % (
                  cell, int(layers), int(dirs), int(steps), int(hidden), int(proj), int(batch), prec,
                  r["fwd_launches"], r["fwd_host_s"] * 1e6,
                  r["fwd_device_s"] * 1e6, r["bwd_launches"], r["bwd_host_s"] * 1e6,
                  r["bwd_device_s"] * 1e6), flush=True)
        print("    loaded: fwd %7.1f us host (%6.1f dev)  bwd %7.1f us host (%6.1f dev)" % (
            r["loaded_fwd_host_s"] * 1e6, r["loaded_fwd_device_s"] * 1e6,
            r["loaded_bwd_host_s"] * 1e6, r["loaded_bwd_device_s"] * 1e6), flush=True)
    info = {
        "what": "cuDNN recurrent layers' host cost per launched kernel: see estimators/measure/rnn_host.py",
        "rows": rows,
        "cudnn": torch.backends.cudnn.version(), "sleep_cycles_per_s": cycles_per_s,
    }
    info.update(host_info(dev))
    with open(os.path.join(a.out, "rnn_host.json"), "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
