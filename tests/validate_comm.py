#!/usr/bin/env python3
"""Validate the data-parallel step estimate against measured DDP steps
(the communication part of `make validate`).

Each case of profiles/devset/ddp/ is one model trained with PyTorch DDP on
2 or 4 GPUs of one H200 host (NCCL, 25 MB buckets, NVLink multicast off);
its .meta.json names the one-GPU trace of the same model at the same
per-device batch.  For each case a one-problem study is written with that
trace, the global batch, devices-per-run = ranks, the machine
machines/hgx-h200-8gpu.xml and the tables estimators/h200, and `fom fom
--format json` gives the estimated pass at the per-device batch and the
exposed gradient exchange (problems[].scaling.<system>).  Printed per case:
  estimate     the pass plus the exposed exchange
  no-comm      the pass alone (the baseline the exchange should improve)
against the measured median DDP step.  Targets (median |error| <= 8%,
max <= 25%) as in issue 12.  Nothing is tuned per case: every case runs
the same command with the same machine file and tables.  The parameter
count is the model's (the .meta.json's params, passed as parameters=):
these traces' multi-tensor optimizer ops carry no shapes to read it from.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVSET = os.path.join(ROOT, "profiles", "devset")
FOM = os.environ.get("FOM", os.path.join(ROOT, "fom"))
MACHINE = os.path.join(ROOT, "machines", "hgx-h200-8gpu.xml")
TABLES = os.path.join(ROOT, "estimators", "h200")
MEDIAN_MAX, WORST_MAX = 0.08, 0.25

STUDY = """<?xml version="1.0"?>
<study name="ddp-{tag}" baseline="node">
  <system id="node" nodes="1" machine="{machine}" kernels="{tables}"/>
  <problem id="{model}">
    <workload profile="{trace}" batch="{batch}" samples-per-epoch="{batch}" epochs="1"
              devices-per-run="{ranks}" parameters="{params}"
              profile-batch="{pbatch}"{prec}/>
  </problem>
</study>
"""


def estimate(case, tmp):
    meta = json.load(open(case))
    trace = os.path.join(DEVSET, "h200", meta["single_trace"])
    if not os.path.exists(trace):
        return meta, None, "no trace " + meta["single_trace"]
    prec = "" if meta["precision"] == "fp32" else ' precision="%s"' % meta["precision"]
    path = os.path.join(tmp, meta["tag"] + ".xml")
    with open(path, "w") as f:
        f.write(STUDY.format(tag=meta["tag"], machine=MACHINE, tables=TABLES, model=meta["model"],
                             trace=trace, batch=meta["batch"], ranks=meta["ranks"],
                             params=meta["params"], pbatch=meta["batch_per_device"], prec=prec))
    r = subprocess.run([FOM, "fom", path, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        return meta, None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
    d = json.loads(r.stdout)
    curve = d["problems"][0]["scaling"]["node"]
    pt = [q for q in curve if q["devices_per_run"] == meta["ranks"]][0]
    return meta, pt, None


def main():
    cases = sorted(glob.glob(os.path.join(DEVSET, "ddp", "*.meta.json")))
    if not cases:
        print("validate-comm: no DDP cases under profiles/devset/ddp; skipped")
        return 0
    rows, failed = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            meta, pt, err = estimate(c, tmp)
            if err:
                print("%-28s error: %s" % (meta["tag"], err))
                failed += 1
                continue
            truth = meta["step_time_s"]["median"]
            est = pt["pass_s"] + pt["exposed_comm_s"]
            rows.append((meta["tag"], meta["ranks"], truth, est, pt["pass_s"], pt["exposed_comm_s"],
                         pt["comm_s"]))
    print("%-28s %5s %10s %10s %8s %10s %8s %10s %10s" % (
        "case", "ranks", "meas [ms]", "est [ms]", "err", "no-comm", "err", "exposed", "exchange"))
    for tag, ranks, truth, est, base, exp, tot in rows:
        print("%-28s %5d %10.3f %10.3f %+7.1f%% %10.3f %+7.1f%% %10.3f %10.3f" % (
            tag, ranks, truth * 1e3, est * 1e3, 100 * (est / truth - 1), base * 1e3,
            100 * (base / truth - 1), exp * 1e3, tot * 1e3))
    ok = failed == 0
    for ranks in sorted({r[1] for r in rows}):
        sel = [r for r in rows if r[1] == ranks]
        e = [abs(r[3] / r[2] - 1) for r in sel]
        b = [abs(r[4] / r[2] - 1) for r in sel]
        good = statistics.median(e) <= MEDIAN_MAX and max(e) <= WORST_MAX
        ok = ok and good
        print("%d GPUs (%d cases): estimate median %.1f%% max %.1f%%; no-comm median %.1f%% "
              "max %.1f%%; target median <= %.0f%%, max <= %.0f%%: %s" % (
                  ranks, len(sel), 100 * statistics.median(e), 100 * max(e),
                  100 * statistics.median(b), 100 * max(b), 100 * MEDIAN_MAX, 100 * WORST_MAX,
                  "met" if good else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
