#!/usr/bin/env python3
"""Validate `fom estimate` against measured step times (make validate).

Runs (tests/data/validate/runs/<device>/, profiles/devset/<device>/ and
profiles/heldout/<device>/, each <model>_<device>_<precision>_b<batch>):
a Kineto trace (.json.gz) and the step time measured WITHOUT the profiler
(.meta.json step_time_s.median).  Tables: the shipped estimators/<device>/,
measured by the harness on designed grids, none from a validated model's
shapes (estimators/<device>/ORIGIN.md).  Each case estimates one run's
trace on a target and compares the pass time with the target run's measured
step; the baseline beside it is "not estimating": the source run's own
measured step time taken as the answer (for the replay: the profiled step,
as the trace shows it).

Groups (cases are formed from whatever runs exist; nothing is picked by hand):
  replay           each GPU run on its own machine
  gpu-both         a GPU run -> the same model, precision and batch on another
                   GPU, with both GPUs' tables
  gpu-target       the same with only the target's tables named (the profiled
                   device's are found by the trace's device name)
  cpu-to-gpu       each host-CPU run -> each GPU run of the model (fp32 and
                   bf16) at the GPU run's batch, with the target's tables
  fp32-to-bf16     each GPU fp32 run -> the bf16 runs of the model on that GPU
                   (--precision bf16, --batch where the runs differ)
  machine-file     each host-CPU run -> each GPU run of the model from the
                   machine file alone (no tables: the efficiency model)

Two sets are reported apart: the development set (the shared runs and
profiles/devset/, which the estimator was developed against) and the
held-out set (profiles/heldout/: models recorded once the estimator's
changes of the day were settled, kept out of its development; a change made
after looking at their results moves them to the development set, as it
moved the second round, profiles/devset/SECOND-ROUND.md).

Beside each group's median and maximum |error|: the median's 95% interval
(order statistics, no assumption on the errors' distribution), how many
estimates fall inside the target run's own p05 to p95 of timed steps, and
that range's half-width over its median (the median over the group): an
error within the spread of the measurement itself says no more than it.

The held-out runs recorded a second time on the same machine minutes later
(profiles/heldout/repeat/) are not estimated: the summary says how far their
measured steps lie from the first recording's, the floor under any error.

Options: -v (per-case lines), --guard (TAP: each group's max |error| at most
its guard below, for make test), --markdown (the table in Markdown),
--update-readme (write that table into README.md between its markers).
Every case runs the same command shape with the same machine files; nothing
here is tuned per case; the one flag that differs, --cudnn-tf32, is each
run set's own setting (RUN_DIRS).
"""
import concurrent.futures
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "validate")
FOM = os.environ.get("FOM", os.path.join(ROOT, "fom"))
MACHINES = {"h100": "h100-sxm5-80gb.xml", "h200": "h200-sxm-141gb.xml"}
GROUPS = ["replay", "gpu-both", "gpu-target", "cpu-to-gpu", "fp32-to-bf16", "machine-file"]
TITLES = {
    "replay": "GPU trace replayed on its own GPU",
    "gpu-both": "GPU trace -> other GPU, both tables",
    "gpu-target": "GPU trace -> other GPU, target tables named",
    "cpu-to-gpu": "host-CPU trace -> GPU at the GPU batch (fp32, bf16)",
    "fp32-to-bf16": "GPU fp32 trace -> bf16 at the bf16 run's batch",
    "machine-file": "host-CPU trace -> GPU, machine file alone",
}
# Regression guards: each group's max |error| as measured when the guard was
# set (make validate), rounded up to the next 5%.  A change that makes a
# group's worst case worse fails make test.  They are not targets.
GUARDS = {
    "development": {"replay": 1.40, "gpu-both": 0.70, "gpu-target": 0.70, "cpu-to-gpu": 0.95,
                    "fp32-to-bf16": 0.90, "machine-file": 0.95},
    "held-out": {"replay": 0.20, "gpu-both": 0.30, "gpu-target": 0.30, "cpu-to-gpu": 0.50,
                 "fp32-to-bf16": 1.00, "machine-file": 0.50},
}
SETS = ["development", "held-out"]


# The tables validated with: the shipped ones (estimators/<device>/), which
# the harness measured on designed grids, none from a validated model's
# shapes (estimators/<device>/ORIGIN.md).  --tables DIR: DIR/<device>/.
TABLES = os.path.join(ROOT, "estimators")
if "--tables" in sys.argv:
    TABLES = os.path.abspath(sys.argv[sys.argv.index("--tables") + 1])

# The run folders: (folder, set, cudnn_tf32).  cudnn_tf32 is how the
# folder's fp32 runs were configured, as a user states it with
# --cudnn-tf32: the reference runs turned TF32 off (their kernels are IEEE
# throughout), profiles/devset/record.py (which also recorded the held-out
# set) keeps PyTorch's defaults (cuDNN convolutions and recurrent layers in
# TF32, matrix products IEEE).
RUN_DIRS = [
    (os.path.join(DATA, "runs"), "development", False),
    (os.path.join(ROOT, "profiles", "devset"), "development", True),
    (os.path.join(ROOT, "profiles", "heldout"), "held-out", True),
]


def runs():
    out = {}
    for d, st, tf32 in RUN_DIRS:
        for dev in ("h100", "h200", "hostcpu"):
            for meta in sorted(glob.glob(os.path.join(d, dev, "*.meta.json"))):
                m = json.load(open(meta))
                trace = meta[: -len(".meta.json")] + ".json.gz"
                if os.path.exists(trace):
                    t = m["step_time_s"]
                    out[(dev, m["model"], m["precision"], int(m["batch"]))] = (
                        trace, t["median"], tf32, st, t.get("p05", t["median"]), t.get("p95", t["median"]))
    return out


def cases(rs):
    gpus = sorted({k[0] for k in rs if k[0] in MACHINES})
    out = []
    for (dev, model, prec, batch) in sorted(rs):
        if dev in MACHINES:
            # the trace alone: its run's measured step (the .meta.json
            # beside it) would calibrate the replay onto the answer
            out.append(("replay", (dev, model, prec, batch), (dev, model, prec, batch), ["alone"]))
            for other in gpus:
                aim = (other, model, prec, batch)
                if other != dev and aim in rs:
                    out.append(("gpu-both", (dev, model, prec, batch), aim, ["both"]))
                    out.append(("gpu-target", (dev, model, prec, batch), aim, []))
            if prec == "fp32":
                for aim in sorted(k for k in rs if k[0] == dev and k[1] == model and k[2] == "bf16"):
                    out.append(("fp32-to-bf16", (dev, model, prec, batch), aim, []))
        elif dev == "hostcpu":
            for aim in sorted(k for k in rs if k[0] in MACHINES and k[1] == model
                              and k[2] in ("fp32", "bf16")):
                out.append(("cpu-to-gpu", (dev, model, prec, batch), aim, []))
                out.append(("machine-file", (dev, model, prec, batch), aim, ["notables"]))
    return out


def command(tmp, src, aim, flags, rs):
    trace = rs[src][0]
    cmd = [FOM, "estimate", "--profile", trace, "--machine", os.path.join(tmp, "machines", MACHINES[aim[0]]),
           "--profile-batch", str(src[3]), "--format", "json"]
    if "alone" in flags:
        cmd += ["--measured-step", "none"]
    if "notables" not in flags:
        cmd += ["--kernels", os.path.join(tmp, "estimators", aim[0])]
    if "both" in flags and src[0] != aim[0]:
        cmd += ["--kernels", os.path.join(tmp, "estimators", src[0])]
    if aim[2] != src[2]:
        cmd += ["--precision", aim[2]]
    if aim[3] != src[3]:
        cmd += ["--batch", str(aim[3])]
    if aim[2] == "fp32" and rs[aim][2]:
        cmd += ["--cudnn-tf32"]
    return cmd


def setup():
    """machines/ and estimators/ side by side, as in the project, so that the
    profiled device's tables and the efficiency model's reference machines
    are found the way a user's run finds them, but only among the
    validation tables."""
    tmp = tempfile.mkdtemp(prefix="fom-validate-")
    os.mkdir(os.path.join(tmp, "machines"))
    for f in MACHINES.values():
        shutil.copy(os.path.join(ROOT, "machines", f), os.path.join(tmp, "machines", f))
    for dev in ("h100", "h200", "hostcpu"):
        shutil.copytree(os.path.join(TABLES, dev), os.path.join(tmp, "estimators", dev))
    return tmp


def measure(verbose, every=1):
    """every: estimate one case in that many of each set's group (the
    sanitizer build's run, where each estimate is several times slower; a
    subset's maxima are within the full set's, so the guards still hold).
    The estimates run VALIDATE_JOBS at a time (default: the online cores;
    each is one single-threaded fom process); the results are taken in the
    cases' order, so the output is the same whatever the number of jobs."""
    rs = runs()
    tmp = setup()
    res = {st: {g: [] for g in GROUPS} for st in SETS}
    seen = {}
    failed = []
    todo = []
    jobs = int(os.environ.get("VALIDATE_JOBS") or os.cpu_count() or 1)
    try:
        for st, group, src, aim, flags in ((st,) + c for st in SETS
                                           for c in cases({k: v for k, v in rs.items() if v[3] == st})):
            seen[st, group] = seen.get((st, group), 0) + 1
            if (seen[st, group] - 1) % every:
                continue
            todo.append((st, group, src, aim, command(tmp, src, aim, flags, rs)))
        with concurrent.futures.ThreadPoolExecutor(max(jobs, 1)) as pool:
            done = pool.map(lambda c: subprocess.run(c[4], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                     text=True), todo)
            for (st, group, src, aim, _), p in zip(todo, done):
                name = "%s %s %s b%d -> %s %s b%d" % (src[0], src[1], src[2], src[3], aim[0], aim[2], aim[3])
                if p.returncode != 0:
                    failed.append((group, name, p.stderr.strip().splitlines()[-1:]))
                    continue
                d = json.loads(p.stdout)
                truth = rs[aim][1]
                err = (d["pass_time_s"] - truth) / truth
                # replay: the baseline is the profiled step (the trace's own
                # ProfilerStep time) taken as the answer
                src_t = rs[src][1]
                if group == "replay":
                    src_t = d.get("profiled_step_time_s") or src_t
                base = (src_t - truth) / truth
                # the measured steps' own spread: where 90% of the timed steps
                # of the target run fell (p05 to p95), as a fraction of their median
                lo, hi = rs[aim][4], rs[aim][5]
                inside = lo <= d["pass_time_s"] <= hi
                res[st][group].append((err, base, inside, (hi - lo) / (2 * truth)))
                if verbose:
                    mt = d.get("method_time_s", {})
                    tot = sum(mt.values()) or 1
                    top = ", ".join("%s %.0f%%" % (k, 100 * v / tot) for k, v in
                                    sorted(mt.items(), key=lambda kv: -kv[1]) if v > 0.05 * tot)
                    print("%-13s %-46s %10.3f %10.3f %+8.1f%% %+8.1f%%  %s" % (
                        group, name, d["pass_time_s"] * 1e3, truth * 1e3, 100 * err, 100 * base, top),
                          flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res, failed


def repeatability():
    """The held-out runs recorded a second time on the same machine
    (profiles/heldout/repeat/): |second - first| / first of each run's
    median step, the first run being the validation's answer.  Returns
    (n, median, max) or None."""
    rep = os.path.join(ROOT, "profiles", "heldout", "repeat")
    d = []
    for meta in sorted(glob.glob(os.path.join(rep, "*", "*.meta.json"))):
        first = os.path.join(ROOT, "profiles", "heldout", os.path.relpath(meta, rep))
        if os.path.exists(first):
            a = json.load(open(first))["step_time_s"]["median"]
            b = json.load(open(meta))["step_time_s"]["median"]
            d.append(abs(b - a) / a)
    return (len(d), statistics.median(d), max(d)) if d else None


def median_ci(xs, level=0.95):
    """A distribution-free confidence interval of the median: the order
    statistics x(j), x(n+1-j) with j the largest rank for which a
    Binomial(n, 1/2) count falls below j with probability at most
    (1 - level) / 2 (no assumption on the errors' distribution; the cases
    of a group share models and machines, so the interval is a guide, not
    a guarantee).  None when n is too small for the level."""
    s = sorted(xs)
    n = len(s)
    tail, j = 0.0, 0
    for i in range(n + 1):
        tail += math.comb(n, i) / 2.0 ** n
        if tail > (1 - level) / 2:
            break
        j = i + 1
    if j < 1:
        return None
    return s[j - 1], s[n - j]


def summary(res):
    """Per group of one set's results: (group, cases, median, max, baseline
    median, baseline max, median's 95% interval, cases whose estimate lies
    inside the measured steps' p05 to p95, median half-width of that range)
    of the |errors|."""
    rows = []
    for g in GROUPS:
        e = [abs(x[0]) for x in res[g]]
        b = [abs(x[1]) for x in res[g]]
        if e:
            rows.append((g, len(e), statistics.median(e), max(e), statistics.median(b), max(b),
                         median_ci(e), sum(1 for x in res[g] if x[2]),
                         statistics.median(x[3] for x in res[g])))
        else:
            rows.append((g, 0, None, None, None, None, None, 0, None))
    return rows


def pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def ci(v):
    return "-" if v is None else "%.1f-%.1f%%" % (100 * v[0], 100 * v[1])


def main():
    args = sys.argv[1:]
    verbose = "-v" in args or os.environ.get("VERBOSE")
    if not os.path.isdir(os.path.join(DATA, "runs")):
        print("validate: %s not found" % DATA)
        return 1
    if verbose:
        print("%-13s %-46s %10s %10s %9s %9s  %s" % ("group", "case", "est [ms]", "meas [ms]",
                                                   "error", "baseline", "methods"))
    every = int(args[args.index("--every") + 1]) if "--every" in args else 1
    res, failed = measure(verbose, max(every, 1))
    rows = {st: summary(res[st]) for st in SETS}
    if "--update-readme" in args:
        path = os.path.join(ROOT, "README.md")
        text = open(path).read()
        for st, tag in (("development", "validate"), ("held-out", "validate-heldout")):
            if not any(r[1] for r in rows[st]):
                continue    # no runs in the set: what the README says of it stands
            a, b = "<!-- %s:begin -->\n" % tag, "<!-- %s:end -->" % tag
            i, j = text.index(a) + len(a), text.index(b)
            text = text[:i] + "\n".join(markdown(rows[st])) + "\n" + text[j:]
        open(path, "w").write(text)
        return 1 if failed else 0
    if "--markdown" in args:
        for st in SETS:
            print("%s set:\n" % st)
            print("\n".join(markdown(rows[st])) + "\n")
        return 1 if failed else 0
    if "--guard" in args:
        k = 0
        for st in SETS:
            if not any(r[1] for r in rows[st]):
                # a set with no runs (profiles/heldout/ between two rounds)
                # has nothing to guard: said, not counted as a skipped test
                print("# %s set: no runs" % st)
                continue
            for g, n, med, mx, bmed, bmx, _, _, _ in rows[st]:
                k += 1
                guard = GUARDS[st][g]
                if n == 0:
                    print("ok %d - %s %s: no cases in the validation data # SKIP" % (k, st, g))
                elif mx <= guard:
                    print("ok %d - %s %s: max |error| %s within its guard %s (median %s)" % (
                        k, st, g, pct(mx), pct(guard), pct(med)))
                else:
                    print("not ok %d - %s %s: max |error| %s above its guard %s (median %s)" % (
                        k, st, g, pct(mx), pct(guard), pct(med)))
        for g, name, why in failed:
            k += 1
            print("not ok %d - %s %s failed: %s" % (k, g, name, why))
        print("1..%d" % k)
        return 0
    for st in SETS:
        print()
        print("%-13s %6s %15s %13s %17s %14s %13s %10s %9s   (%s set)" % (
            "group", "cases", "median |error|", "max |error|", "baseline median", "baseline max",
            "median 95% CI", "in p05-p95", "spread", st))
        for g, n, med, mx, bmed, bmx, mci, inside, spread in rows[st]:
            print("%-13s %6d %15s %13s %17s %14s %13s %10s %9s" % (
                g, n, pct(med), pct(mx), pct(bmed), pct(bmx), ci(mci), "%d/%d" % (inside, n),
                pct(spread)))
    print("baseline: the source run's measured step time taken as the target's (replay: the traced step)")
    print("median 95% CI: distribution-free interval of the median |error| (order statistics)")
    print("in p05-p95: estimates inside the range of the target run's middle 90% of timed steps;")
    print("spread: that range's half-width over its median, the median over the group's cases")
    rp = repeatability()
    if rp:
        print("measured again: %d held-out runs recorded a second time on the same machine minutes later "
              "differ from the first by %s in the median, %s at most (profiles/heldout/repeat/)"
              % (rp[0], pct(rp[1]), pct(rp[2])))
    for g, name, why in failed:
        print("validate: %s %s failed: %s" % (g, name, why))
    return 1 if failed else 0


def markdown(rows):
    lines = ["| case group | cases | median \\|error\\| (95% CI) | max \\|error\\| | baseline median | "
             "baseline max | inside the measured p05-p95 | measured spread |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for g, n, med, mx, bmed, bmx, mci, inside, spread in rows:
        m = pct(med) if mci is None else "%s (%s)" % (pct(med), ci(mci))
        lines.append("| %s | %d | %s | %s | %s | %s | %d | %s |" % (
            TITLES[g], n, m, pct(mx), pct(bmed), pct(bmx), inside, pct(spread)))
    return lines

if __name__ == "__main__":
    sys.exit(main())
