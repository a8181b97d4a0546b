#!/usr/bin/env python3
"""Count, from GPU traces, the kernels PyTorch's CUDA implementation of an
op launches per call and what issuing such a call costs the host against
an op of one kernel, for ops that launch more than one.

A CPU trace says nothing of either: on a GPU, a dense embedding's backward
sorts its indices and reduces segments (some thirty kernels and memsets a
call), a top-k selects in passes, a loss with logits fuses nothing.  The
estimate of a CPU trace on a GPU (src/model/est_host.c) takes the kernels
per call of the ops named here; what a call costs the host it takes from
host_weights.py, whose figures are means per call over the mean op of one
kernel (this script's host column is over the median op record's, kept
to compare).

For each trace (read by `fom ingest`), per op name and pass: kernels per
call (the op's kernel launches over its calls) and host time per call over
the trace's median host time per call of the ops that launch one kernel
per call (forward and backward passes), which takes out the host's speed
and what is left of the profiler's cost.  Per op and pass the median over
traces of both; an op is kept when it launches two kernels or more per
call in the median and appears in the traces of two models or more.
Kinds with a model of their own are left out: convolutions and norms (the
host classes of est_host.c), recurrent layers (launches per time step),
optimizer ops (foreach launches), copies and collectives.

With --conv it prints instead the same host figure for cuDNN's
convolutions by pass and spatial dimensions (1-D and 2-D together, 3-D):
the medians over op records (est_host.c's conv_host_ratio is
host_weights.py's, per trace and per call).

  kernels_per_call.py --fom ./fom [--conv] TRACE.json.gz... > table.csv
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

SKIP_KINDS = {"conv", "norm", "rnn", "optimizer", "memcpy", "comm"}
PHASES = ("forward", "backward")


def read_profile(fom, path, tmp):
    """The trace's profile (fom ingest) and its median host time per call
    of the ops of one kernel per call (None when it has none)."""
    out = os.path.join(tmp, "p.json")
    subprocess.run([fom, "ingest", path, "--format-out", "json", "-o", out], check=True,
                   stderr=subprocess.DEVNULL)
    prof = json.load(open(out))
    one = [o["host_time_s"] / o["count"] for o in prof["ops"]
           if o["count"] > 0 and o.get("kernels", 0) == o["count"] and o["phase"] in PHASES]
    return prof, (statistics.median(one) if one else None)


def conv_rows(prof, ref):
    """(pass, '3-D' or '2-D', host per call over ref, kernels per call) per conv op record."""
    for o in prof["ops"]:
        if o["kind"] == "conv" and o["count"] > 0 and o["phase"] in PHASES:
            dims = o["shapes"].split("],")[0].count(",") + 1
            yield (o["phase"], "3-D" if dims == 5 else "2-D", o["host_time_s"] / o["count"] / ref,
                   o.get("kernels", 0) / o["count"])


def trace_rows(prof, ref):
    """{(op, pass): (kernels per call, host per call over ref, calls)} of
    the kinds without a model of their own."""
    agg = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for o in prof["ops"]:
        if o["phase"] not in PHASES or o["kind"] in SKIP_KINDS or o["count"] <= 0:
            continue
        a = agg[(o["name"], o["phase"])]
        a[0] += o["count"]
        a[1] += o.get("kernels", 0)
        a[2] += o["host_time_s"]
    return {k: (a[1] / a[0], a[2] / a[0] / ref, a[0]) for k, a in agg.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fom", required=True)
    ap.add_argument("--conv", action="store_true")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    per = collections.defaultdict(list)
    models = collections.defaultdict(set)
    conv = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for t in a.traces:
            model = os.path.basename(t).split("_")[0]
            prof, ref = read_profile(a.fom, t, tmp)
            if ref is None:
                continue
            for k, v in trace_rows(prof, ref).items():
                per[k].append(v)
                models[k].add(model)
            for phase, dims, host, kpc in conv_rows(prof, ref):
                conv[(phase, dims)].append((host, kpc, model))
    if a.conv:
        print("pass,dims,host_per_call_over_one_kernel_op,kernels_per_call,op_records,models")
        for (phase, dims), v in sorted(conv.items()):
            print("%s,%s,%.2f,%.1f,%d,%d" % (phase, dims, statistics.median(x[0] for x in v),
                                              statistics.median(x[1] for x in v), len(v),
                                              len({x[2] for x in v})))
        return
    rows = []
    for k, v in per.items():
        kpc = statistics.median(x[0] for x in v)
        host = statistics.median(x[1] for x in v)
        if kpc >= 2 and len(models[k]) >= 2:
            rows.append((k[0], k[1], kpc, host, len(v), len(models[k]), sum(x[2] for x in v)))
    rows.sort(key=lambda r: (r[0], r[1]))
    print("op,pass,kernels_per_call,host_per_call_over_one_kernel_op,traces,models,calls")
    for r in rows:
        print("%s,%s,%.1f,%.2f,%d,%d,%d" % r)
    print("%d traces" % len(a.traces), file=sys.stderr)


if __name__ == "__main__":
    main()
