#!/usr/bin/env python3
"""How much more a training step's _foreach_ calls cost a GPU's host than
foreach_host.py's loop of the same call (estimators/h200/ORIGIN.md says
what it was used for: a model of a CPU trace's optimizer step on a GPU
that the estimator does not take yet).

Per development-set model with a host CPU trace and an fp32 GPU trace (the
H200's where there is one, else the H100's), both in fp32:
  - the tensors of each optimizer op, from the CPU trace: the calls of its
    name in the optimizer step (PyTorch's per-tensor loop there);
  - the GPU trace's host time of its _foreach_ calls, from fom's replay of
    the trace on its own machine (host_weights.py's replay, with the run's
    measured step beside it: the host times calibrated on the step, the
    profiler's cost per event taken out);
  - what foreach_host.json gives for those calls (its seven ops, read
    linearly between list lengths, a name it lacks as add_'s) in the
    machine file's dispatches.
Prints the median and quartiles over the models of the second over the
third.

  foreach_step.py [--fom PATH] [--table estimators/h200/foreach-host/foreach_host.json.gz]
"""
import argparse
import glob
import gzip
import json
import os
import subprocess

from host_weights import MACHINE_FILES, dispatch_s, quartiles, replay

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def table(path):
    d = json.load(gzip.open(path, "rt"))
    rows = {}
    for r in d["rows"]:
        rows.setdefault(r["op"].replace("_foreach_", ""), {})[r["tensors"]] = r["host_s"] / d["dispatch_s"]
    return rows


def dispatches(rows, name, n):
    name = name.replace("aten::", "")
    r = rows.get("div_" if name == "div" else name, rows["add_"])
    sizes = sorted(r)
    if n <= sizes[0]:
        return r[sizes[0]]
    for a, b in zip(sizes, sizes[1:]):
        if n <= b or b == sizes[-1]:
            return r[a] + (r[b] - r[a]) * (n - a) / (b - a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fom", default=os.path.join(ROOT, "fom"))
    ap.add_argument("--table", default=os.path.join(ROOT, "estimators", "h200", "foreach-host",
                                                     "foreach_host.json.gz"))
    a = ap.parse_args()
    rows = table(a.table)
    ratios = []
    dev = os.path.join(ROOT, "profiles", "devset")
    for cpu in sorted(glob.glob(os.path.join(dev, "hostcpu", "*_hostcpu_fp32_b*.json.gz"))):
        model = os.path.basename(cpu).split("_hostcpu_")[0]
        gpus = [t for d in ("h200", "h100")
                for t in sorted(glob.glob(os.path.join(dev, d, model + "_" + d + "_fp32_b*.json.gz")))]
        if not gpus:
            continue
        gpu = gpus[0]
        d = os.path.basename(os.path.dirname(gpu))
        machine = os.path.join(ROOT, "machines", MACHINE_FILES[d])
        n = {}
        prof = json.loads(subprocess.run([a.fom, "ingest", cpu, "--format-out", "json", "-o", "-"],
                                         check=True, capture_output=True, text=True).stdout)
        for o in prof["ops"]:
            if o["phase"] == "optimizer" and o["kind"] == "elementwise":
                n[o["name"]] = n.get(o["name"], 0) + o["count"]
        est, _ = replay(a.fom, gpu, machine, None, True)
        real = sum(o["host_time_s"] for o in est["ops"] if o["name"].startswith("aten::_foreach_"))
        model_s = sum(dispatches(rows, k, v) for k, v in n.items()) * dispatch_s(machine)
        if real > 0 and model_s > 0:
            ratios.append(real / model_s)
            print("%-16s %s  %7.1f us in the step, %7.1f us from the loop  %.2f"
                  % (model, d, real * 1e6, model_s * 1e6, real / model_s))
    print("%d models: median %.2f, quartiles %.2f and %.2f" % ((len(ratios),) + quartiles(ratios)))


if __name__ == "__main__":
    main()
