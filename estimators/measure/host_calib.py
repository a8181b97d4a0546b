#!/usr/bin/env python3
"""Measure a GPU host's speed at framework work, for its machine file.

A training step whose ops are short is as fast as its host: PyTorch's
dispatch of each op and each kernel launch.  Two figures describe that
host, both measured here and neither tied to a model fom validates:

  - the profiler's own cost per recorded event, which fom reads from every
    Kineto trace (`fom estimate`'s profiler_overhead.per_event_s: the
    median time from a parent op's start to its first child plus from its
    last child to its end).  It is pure host work on the same code path
    as the framework's dispatch, so two hosts' figures compare their
    speed at a traced step's host work;
  - the host time of one small op without the profiler (a loop of adds on
    a 256-element tensor, the device far ahead of the host).

The traced step is a 16-layer MLP of 256 features at batch 32 with SGD:
hundreds of ops of microseconds each.  Writes DIR/calib_mlp.json.gz (the
Kineto trace of three steps) and DIR/host_calib.json (the loop's timing,
torch and host details).

  host_calib.py --out DIR [--device cuda:0]
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import time

import torch


def mlp(dev):
    layers = []
    for _ in range(16):
        layers += [torch.nn.Linear(256, 256), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).to(dev)


def host_per_call(fn, dev, calls, reps=7, warm=3):
    """Host seconds per call of fn: the median of reps loops of calls
    calls, each loop timed from its first call to the return of its last,
    the device synchronised between loops (where its work is shorter than
    the host's, the host's issue rate is what is timed), and every loop's
    figure."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize(dev)
    per = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize(dev)
        per.append((t1 - t0) / calls)
    return statistics.median(per), per


def dispatch_loop(dev, n=20000, reps=7):
    """Host seconds per torch.add of a 256-element tensor, median of reps
    loops of n adds each (the device runs far behind: each add's kernel
    takes ~2 us, so the host's issue rate is what is timed)."""
    x = torch.ones(256, device=dev)
    y = torch.ones(256, device=dev)
    return host_per_call(lambda: torch.add(x, y), dev, n, reps, warm=1000)


def host_info(dev):
    """What the measurement ran on and with: torch, CUDA, the GPU, the host's
    CPU model (from /proc/cpuinfo where it can be read) and the date."""
    info = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(dev),
        "cpu_count": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def out_and_device():
    """The host scripts' command line: --out DIR (created) and --device."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda:0")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    return a.out, torch.device(a.device)


def main():
    out, dev = out_and_device()
    model = mlp(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(32, 256, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).sum().backward()
        opt.step()

    for _ in range(20):
        step()
    torch.cuda.synchronize(dev)
    raw = os.path.join(out, "calib_mlp.json")
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts, record_shapes=True,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=3),
                                on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(4):
            step()
            torch.cuda.synchronize(dev)
            prof.step()
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    med, all_s = dispatch_loop(dev)
    info = {
        "what": "host calibration: see estimators/measure/host_calib.py",
        "add_loop_host_s_per_op": {"median": med, "all": all_s},
    }
    info.update(host_info(dev))
    with open(os.path.join(out, "host_calib.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(json.dumps({k: info[k] for k in ("gpu", "cpu", "cpu_count")}), "add loop %.2f us/op" % (med * 1e6))


if __name__ == "__main__":
    main()
