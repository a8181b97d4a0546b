#!/usr/bin/env python3
"""Validate `fom estimate` against measured step times (make validate).

Every case runs the estimator on a trace and compares its pass time with
the `step_time_s.median` of the trace the case aims at (its .meta.json).
Groups and targets (median |error|):
  cpu-to-gpu       each hostcpu trace -> the H200 fp32 step of the same model
                   at the GPU run's batch (--batch)                     <= 20%
  cross-precision  each fp32 H200 trace -> the bf16 step of the same model
                   (--precision bf16, --batch when the runs differ)     <= 10%
  cross-batch      resnet50 bf16 b64 -> b256, p1b3 fp32 b100 -> b1000   <= 10%
  same-machine     each H200 trace -> its own measured step             <=  5%
The data lives outside the project (../shared/data); without it the
validation says so and is skipped.  Nothing here is tuned per case: every
case runs the same command with the same machine file and tables.
"""
import glob
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
FOM = os.environ.get("FOM", os.path.join(ROOT, "fom"))
MACHINE = os.path.join(ROOT, "machines", "h200-sxm-141gb.xml")
TARGETS = {"cpu-to-gpu": 0.20, "cross-precision": 0.10, "cross-batch": 0.10, "same-machine": 0.05}


def tables():
    own = os.path.join(ROOT, "estimators", "h200")
    if os.path.isdir(own) and os.listdir(own):
        return own
    return os.path.join(DATA, "kernels", "h200")


def runs(device):
    out = {}
    for meta in sorted(glob.glob(os.path.join(DATA, "traces", "pytorch", device, "*.meta.json"))):
        m = json.load(open(meta))
        trace = meta[: -len(".meta.json")] + ".json.gz"
        if os.path.exists(trace):
            out[(m["model"], m["precision"], int(m["batch"]))] = (trace, m["step_time_s"]["median"])
    return out


def cases():
    gpu, cpu = runs("h200"), runs("hostcpu")
    out = []
    for (model, prec, batch), (trace, _) in sorted(cpu.items()):
        aims = sorted(k for k in gpu if k[0] == model and k[1] == prec)
        same = [k for k in aims if k[2] == batch]
        aim = same[0] if same else (aims[0] if aims else None)
        if aim:
            out.append(("cpu-to-gpu", trace, aim, gpu[aim][1], ["--batch", str(aim[2])]))
    for (model, prec, batch), (trace, _) in sorted(gpu.items()):
        if prec != "fp32":
            continue
        aims = sorted(k for k in gpu if k[0] == model and k[1] == "bf16")
        if not aims:
            continue
        same = [k for k in aims if k[2] == batch]
        aim = same[0] if same else aims[0]
        extra = ["--precision", "bf16"]
        if aim[2] != batch:
            extra += ["--batch", str(aim[2])]
        out.append(("cross-precision", trace, aim, gpu[aim][1], extra))
    for src, dst in ((("resnet50", "bf16", 64), ("resnet50", "bf16", 256)),
                     (("p1b3", "fp32", 100), ("p1b3", "fp32", 1000))):
        if src in gpu and dst in gpu:
            out.append(("cross-batch", gpu[src][0], dst, gpu[dst][1], ["--batch", str(dst[2])]))
    for key, (trace, truth) in sorted(gpu.items()):
        out.append(("same-machine", trace, key, truth, []))
    return out


def main():
    # -v: per case, the device and host totals beside the pass time
    verbose = "-v" in sys.argv[1:] or os.environ.get("VERBOSE")
    if not os.path.isdir(os.path.join(DATA, "traces", "pytorch")):
        print("validate: %s not found; skipping (the measured traces are not in this checkout)" % DATA)
        return 0
    print("validate: measured data from %s" % DATA)
    print("validate: machine %s, kernel tables %s" % (os.path.relpath(MACHINE, ROOT), tables()))
    errs = {}
    failed = 0
    hdr = "%-16s %-30s %-22s %14s %14s %9s  %s" % (
        "group", "profile", "aim", "estimate [ms]", "measured [ms]", "error", "bound/methods")
    print(hdr)
    for group, trace, aim, truth, extra in cases():
        # The traces do not record their batch; the run's .meta.json does.
        src_batch = json.load(open(trace[: -len(".json.gz")] + ".meta.json"))["batch"]
        cmd = [FOM, "estimate", "--profile", trace, "--machine", MACHINE, "--kernels", tables(),
               "--profile-batch", str(src_batch), "--format", "json"] + extra
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        name = os.path.basename(trace).replace(".json.gz", "")
        aimname = "%s %s b%d" % aim
        if p.returncode != 0:
            failed += 1
            print("%-16s %-30s %-22s %14s %14.3f %9s  %s" % (group, name, aimname, "FAILED",
                  truth * 1e3, "-", p.stderr.strip().splitlines()[-1:] if p.stderr else ""))
            continue
        d = json.loads(p.stdout)
        est = d["pass_time_s"]
        err = (est - truth) / truth
        errs.setdefault(group, []).append(err)
        mt = d.get("method_time_s", {})
        tot = sum(mt.values()) or 1
        top = ", ".join("%s %.0f%%" % (k, 100 * v / tot) for k, v in
                        sorted(mt.items(), key=lambda kv: -kv[1]) if v > 0.05 * tot)
        print("%-16s %-30s %-22s %14.3f %14.3f %+8.1f%%  %s; %s" % (
            group, name, aimname, est * 1e3, truth * 1e3, 100 * err, d.get("bound"), top))
        if verbose:
            print("%-16s   device %.3f ms, host %.3f ms, sync %.3f ms, profiled step %.3f ms" % (
                "", d.get("device_time_s", 0) * 1e3, d.get("host_time_s", 0) * 1e3,
                d.get("sync_s", 0) * 1e3, (d.get("profiled_step_time_s") or 0) * 1e3))
    print()
    print("%-16s %6s %18s %15s %12s  %s" % ("group", "cases", "median |error|", "max |error|",
                                             "target", "verdict"))
    miss = 0
    for group in TARGETS:
        e = [abs(x) for x in errs.get(group, [])]
        if not e:
            print("%-16s %6d %18s %15s %11.0f%%  %s" % (group, 0, "-", "-", 100 * TARGETS[group],
                                                        "no cases"))
            continue
        med = statistics.median(e)
        ok = med <= TARGETS[group]
        miss += not ok
        print("%-16s %6d %17.1f%% %14.1f%% %11.0f%%  %s" % (group, len(e), 100 * med, 100 * max(e),
                                                           100 * TARGETS[group],
                                                           "met" if ok else "MISSED"))
    if failed:
        print("validate: %d case(s) failed to run" % failed)
    return 1 if failed or miss else 0


if __name__ == "__main__":
    sys.exit(main())
