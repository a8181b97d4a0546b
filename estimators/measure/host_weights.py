#!/usr/bin/env python3
"""Derive, from GPU traces, what issuing one op of a training step costs
the host, in units of the machine file's `dispatch`: the figures that
src/model/est_host.c gives the calls of a CPU trace estimated on a GPU.

The estimate sums its calls' costs, so the figure of a class of ops is
the mean cost of a call, not the typical call's: per trace, the class's
host time over its calls (a ratio of sums), then the median of that over
the traces, which keeps one odd trace from moving it.  (The median call's
cost, which these figures were before, sits a third below the mean of a
class whose few long calls hold much of its time.)

Each trace is replayed by `fom estimate` on its own machine with its run's
measured step (the .meta.json beside it), so the host times are the
calibrated ones (profiler's recording out, host speed of the timed run),
over the machine file's dispatch.  Per trace:

  - one-kernel: the ops of one kernel per call (the op's kernel launches
    equal its calls; forward and backward passes; not a convolution,
    norm, recurrent layer, optimizer op, copy or collective, not a view);
  - norm, view: the host classes of est_host.c (views: no kernel);
  - gap: the host's time between top-level calls (the trace's host time
    less its ops' own times) per call, which each call adds to its own;
  - convolutions by pass and spatial dimensions (1-D and 2-D together,
    3-D), and each op of several kernels per call (the ops of
    kernels_per_call.py): the mean host time per call over the same
    trace's one-kernel figure, a ratio that takes out the host's speed.

  host_weights.py --fom ./fom --machines DIR [--kernels DIR] TRACE.json.gz...

DIR holds the machine files named by machine_file_of(); --kernels DIR
holds one folder of tables per device (estimators/), for the replay's
device side.  Prints the figures as text.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys

PHASES = ("forward", "backward")
OWN_MODEL = {"conv", "norm", "rnn", "optimizer", "memcpy", "comm"}
VIEWS = set("view _unsafe_view view_as reshape t transpose permute expand expand_as as_strided "
            "slice select narrow split split_with_sizes chunk unbind unsqueeze squeeze flatten "
            "unflatten detach detach_ alias broadcast_tensors numpy_T lift_fresh item".split())
MACHINE_FILES = {"h100": "h100-sxm5-80gb.xml", "h200": "h200-sxm-141gb.xml"}


def is_view(o):
    return o["name"].split("::")[-1] in VIEWS


def dispatch_s(machine_xml):
    """The machine file's dispatch figure, in seconds."""
    import xml.etree.ElementTree as ET
    ov = ET.parse(machine_xml).getroot().find(".//overheads")
    v, unit = ov.get("dispatch").split()
    return float(v) * {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1.0}[unit]


def replay(fom, trace, machine, kernels, calibrate):
    meta = json.load(open(trace[: -len(".json.gz")] + ".meta.json"))
    cmd = [fom, "estimate", "--format", "json", "--machine", machine, "--profile", trace,
           "--profile-batch", str(meta["batch"])]
    if not calibrate:
        cmd += ["--measured-step", "none"]
    if kernels:
        cmd += ["--kernels", kernels]
    if meta["precision"] == "fp32":
        cmd += ["--cudnn-tf32"]
    est = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    prof = json.loads(subprocess.run([fom, "ingest", trace, "--format-out", "json", "-o", "-"],
                                     check=True, capture_output=True, text=True).stdout)
    return est, prof


def trace_figures(est, prof, disp):
    """The figures of one trace, or None when it has no one-kernel op."""
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0.0])  # class -> [calls, host s, kernels]
    calls_all = own_all = 0.0
    for o, p in zip(est["ops"], prof["ops"]):
        if o["name"] != p["name"] or o["count"] != p["count"]:
            raise SystemExit("the estimate's ops are not the profile's")
        n, h = o["count"], o["host_time_s"]
        if n <= 0:
            continue
        calls_all += n
        own_all += h
        keys = []
        if is_view(o):
            keys.append("view")
        elif o["phase"] in PHASES and o["kind"] == "norm":
            keys.append("norm")
        elif o["phase"] in PHASES and o["kind"] == "conv":
            dims = p["shapes"].split("],")[0].count(",") + 1
            keys.append("conv %s %s" % (o["phase"], "3-D" if dims == 5 else "2-D"))
        elif o["phase"] in PHASES and o["kind"] not in OWN_MODEL:
            if p.get("kernels", 0) == n:
                keys.append("one-kernel")
            keys.append("op %s %s" % (o["name"], o["phase"]))
        for k in keys:
            sums[k][0] += n
            sums[k][1] += h
            sums[k][2] += p.get("kernels", 0)
    if not sums["one-kernel"][0] or not calls_all:
        return None
    one = sums["one-kernel"][1] / sums["one-kernel"][0] / disp
    f = {"one-kernel": one,
         "gap": (est["host_time_s"] - own_all) / calls_all / disp,
         "repeat": repetition(prof)}
    for k in ("norm", "view"):
        if sums[k][0]:
            f[k] = sums[k][1] / sums[k][0] / disp
    for k, (n, h, kern) in sums.items():
        if k.startswith("conv "):
            f[k] = h / n / disp / one
        elif k.startswith("op "):
            f[k] = h / n / disp / one
    return f


def repetition(prof):
    """The pass's calls per op record (forward and backward): how often
    the same op with the same shapes runs again in it."""
    calls = [o["count"] for o in prof["ops"] if o["phase"] in PHASES and o["count"] > 0]
    return sum(calls) / len(calls) if calls else 1.0


def slope(xs, ys):
    """Least-squares slope of ys on xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def repeat_figures(traces):
    """[(log repetition, log one-kernel figure, model)] -> the slope of
    the one-kernel figure on the pass's repetition (log-log), its 95%
    interval from 1000 resamples of the models (a model's traces go
    together), and the median repetition."""
    import math
    import random
    rnd = random.Random(1)
    models = sorted({m for _, _, m in traces})
    by = {m: [(x, y) for x, y, mm in traces if mm == m] for m in models}
    b = slope([x for x, _, _ in traces], [y for _, y, _ in traces])
    boot = []
    for _ in range(1000):
        pts = [p for _ in models for p in by[rnd.choice(models)]]
        boot.append(slope([x for x, _ in pts], [y for _, y in pts]))
    boot.sort()
    return b, boot[24], boot[974], math.exp(statistics.median(x for x, _, _ in traces))


def quartiles(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[len(xs) // 4], xs[(3 * len(xs)) // 4]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fom", required=True)
    ap.add_argument("--machines", required=True)
    ap.add_argument("--kernels", help="folder of per-device table folders (estimators/)")
    ap.add_argument("--uncalibrated", action="store_true")
    ap.add_argument("--host-bound", action="store_true")
    ap.add_argument("--c-table", action="store_true", help="print est_host_ops.c's rows")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    per = collections.defaultdict(list)

    def one(t):
        dev = os.path.basename(t).split("_")[1]
        if dev not in MACHINE_FILES:
            return t, None
        machine = os.path.join(a.machines, MACHINE_FILES[dev])
        kern = os.path.join(a.kernels, dev) if a.kernels else None
        est, prof = replay(a.fom, t, machine, kern, not a.uncalibrated)
        if a.host_bound and not est["host_time_s"] > est["device_time_s"]:
            return t, None
        return t, trace_figures(est, prof, dispatch_s(machine))

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for t, f in pool.map(one, a.traces):
            model = os.path.basename(t).split("_")[0]
            for k, v in (f or {}).items():
                per[k].append((v, model))
    import math
    rep = [(math.log(r), math.log(o), m) for (r, m), (o, _) in zip(per["repeat"], per["one-kernel"])]
    if a.c_table:
        print("/* estimators/measure/host_weights.py --c-table: %d traces */" % len(a.traces))
        print("/* one-kernel %.2f, gap %.2f, norm %.2f, view %.2f (dispatch units) */"
              % tuple(quartiles([v for v, _ in per[k]])[0] for k in ("one-kernel", "gap", "norm", "view")))
        for k in sorted(k for k in per if k.startswith("conv ")):
            print("/* %s %.2f */" % (k, quartiles([v for v, _ in per[k]])[0]))
        b, lo, hi, med = repeat_figures(rep)
        print("/* repetition: slope %.3f (%.3f to %.3f), median calls per record %.2f */" % (b, lo, hi, med))
        for k in sorted(k for k in per if k.startswith("op ")):
            if len({x for _, x in per[k]}) >= 2:
                name, phase = k[3:].rsplit(" ", 1)
                print('    { "%s", PHASE_%s, %.2f },' % (name, phase.upper(),
                                                       quartiles([v for v, _ in per[k]])[0]))
        return
    b, lo, hi, med = repeat_figures(rep)
    print("one-kernel over the pass's calls per op record (log-log): slope %.3f (95%% %.3f to %.3f), "
          "median calls per record %.2f" % (b, lo, hi, med))
    print("figure                                          median  quartiles      traces models")
    for k in ["one-kernel", "gap", "norm", "view"] + sorted(k for k in per if k.startswith("conv ")):
        if per[k]:
            m, lo, hi = quartiles([v for v, _ in per[k]])
            print("%-46s %7.2f  %5.2f - %5.2f %6d %6d" % (k, m, lo, hi, len(per[k]),
                                                        len({x for _, x in per[k]})))
    print("ops of the kernel class in two models or more (over one-kernel):")
    for k in sorted(k for k in per if k.startswith("op ")):
        if len({x for _, x in per[k]}) >= 2:
            m, lo, hi = quartiles([v for v, _ in per[k]])
            print("%-46s %7.2f  %5.2f - %5.2f %6d %6d" % (k[3:], m, lo, hi, len(per[k]),
                                                        len({x for _, x in per[k]})))
    print("%d traces" % len(a.traces), file=sys.stderr)


if __name__ == "__main__":
    main()
