#!/usr/bin/env python3
"""Memory estimate against measured peak memory (`make validate`).

For every development-set trace recorded on a GPU (profiles/devset/h100,
profiles/devset/h200) the peak device memory fom estimates for one run at
the recorded batch (a one-problem study on the matching machine file,
`problems[].estimates.<system>.memory_bytes` of `fom fom --format json`)
is compared with torch.cuda.max_memory_allocated over the timed steps
(`max_memory_allocated_bytes` in the trace's .meta.json).  Prints one line
per trace and the median and largest |error|; fails when the median
misses the target.  Skipped with a message when
the development set is absent.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOM = os.environ.get("FOM", os.path.join(ROOT, "fom"))
MACHINES = {"h100": "machines/h100-sxm5-80gb.xml", "h200": "machines/h200-sxm-141gb.xml"}
TARGET = 0.20  # issue 15: within 20% (median)

STUDY = """<?xml version="1.0" encoding="UTF-8"?>
<study name="memory" baseline="gpu">
  <system id="gpu" nodes="1" machine="{machine}"/>
  <problem id="p">
    <workload profile="{trace}" batch="{batch}" samples-per-epoch="{batch}" epochs="1"/>
  </problem>
</study>
"""


def estimate(trace, batch, machine, tmp):
    path = os.path.join(tmp, "study.xml")
    with open(path, "w") as f:
        f.write(STUDY.format(machine=os.path.join(ROOT, machine), trace=os.path.abspath(trace),
                             batch=batch))
    out = subprocess.run([FOM, "fom", path, "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:]
    est = json.loads(out.stdout)["problems"][0]["estimates"]["gpu"]
    return est.get("memory_bytes"), est


def main():
    metas = sorted(glob.glob(os.path.join(ROOT, "profiles/devset/h1*/*.meta.json")) +
                   glob.glob(os.path.join(ROOT, "profiles/devset/h2*/*.meta.json")))
    metas = [m for m in metas if os.path.basename(os.path.dirname(m)) in MACHINES]
    if not metas:
        print("validate-memory: no profiles/devset/h100 or h200 traces, skipped")
        return 0
    errs = []
    print("%-40s %12s %12s %8s" % ("trace", "measured GB", "estimate GB", "error"))
    with tempfile.TemporaryDirectory() as tmp:
        for meta_path in metas:
            meta = json.load(open(meta_path))
            peak = meta.get("max_memory_allocated_bytes")
            trace = meta_path[:-len(".meta.json")] + ".json.gz"
            if not peak or not os.path.exists(trace):
                continue
            gpu = os.path.basename(os.path.dirname(meta_path))
            est, info = estimate(trace, meta["batch"], MACHINES[gpu], tmp)
            name = os.path.basename(trace)[:-len(".json.gz")]
            if est is None:
                print("%-40s %12.3f %12s   (%s)" % (name, peak / 1e9, "n/a", info))
                continue
            err = est / peak - 1
            errs.append(abs(err))
            print("%-40s %12.3f %12.3f %+7.1f%%" % (name, peak / 1e9, est / 1e9, 100 * err))
    if not errs:
        print("validate-memory: nothing to compare")
        return 0
    med = statistics.median(errs)
    print("memory estimate vs torch.cuda.max_memory_allocated: %d traces, median |error| "
          "%.1f%%, max %.1f%% (target: median within %.0f%%)"
          % (len(errs), 100 * med, 100 * max(errs), 100 * TARGET))
    return 0 if med <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
