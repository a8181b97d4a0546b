#!/usr/bin/env python3
"""Measure fom's kernel tables on this machine (CUDA or ROCm GPU, or the CPU).

Writes <out>/<name>_<kind>.csv in the forms of estimators/measure/FORMATS.md
and <out>/env.json.  Every row is the median of `reps` timed calls after
warm-up (CUDA/HIP events on GPUs, time.perf_counter_ns on CPUs).  Rows are
written and flushed as they are measured; a rerun with the same --out skips
the rows already there, so a run stopped by --budget (or killed) resumes.
A row that fails (out of memory, unsupported precision or backend) is
logged to stderr and <out>/measure.log and skipped.

See estimators/measure/README.md for the grids and the whole loop.
Python 3.9+, PyTorch 1.13 to 2.11, numpy; no network.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import warnings

# NVLink multicast (NVLS) must stay off for the collectives: it is not
# available on every host, and tables measured with it would not describe
# the ring/tree algorithms the estimator models.  Set before torch loads
# NCCL so that every spawned rank inherits it.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))

TIMING_COLS = ["time_us", "time_us_min", "time_us_max", "time_us_p05",
               "time_us_p95", "reps", "source"]

# Shape (key) columns and derived columns of each kind, as in FORMATS.md.
KEYS = {
    "gemm": ["m", "n", "k", "a_t", "b_t", "batch", "precision"],
    "conv": ["dims", "n", "c", "d", "h", "w", "k", "f_d", "f_h", "f_w",
             "pad_d", "pad_h", "pad_w", "stride_d", "stride_h", "stride_w",
             "dil_d", "dil_h", "dil_w", "groups", "layout", "precision", "pass"],
    "rnn": ["cell", "input", "hidden", "layers", "seq", "batch",
            "bidirectional", "precision", "pass"],
    "attention": ["batch", "heads", "q_len", "kv_len", "head_dim", "causal",
                  "precision", "pass"],
    "norm": ["op", "n", "c", "s", "groups", "precision", "pass"],
    "embedding": ["op", "rows", "dim", "lookups", "batch", "mode",
                  "precision", "pass"],
    "eltwise": ["op", "precision", "elements"],
    "optimizer": ["op", "form", "params", "tensors", "precision", "pass"],
    "comm": ["op", "ranks", "bytes", "precision"],
    "resample": ["op", "n", "c", "out", "in", "precision", "pass"],
}
EXTRA = {
    "gemm": ["time_us_loop_mean", "tflops"],
    "conv": [],
    "rnn": [],
    "attention": ["backend"],
    "norm": [],
    "embedding": [],
    "eltwise": ["bytes", "gbps"],
    "optimizer": ["bytes", "gbps"],
    "comm": ["backend", "algbw_gbs", "busbw_gbs"],
    "resample": [],
}
# Measuring order: the kinds of short kernels first, so that the share of
# --budget they leave unused passes on to the kinds with the most rows.
KINDS = ["eltwise", "norm", "embedding", "optimizer", "attention", "gemm",
         "rnn", "conv", "resample", "comm"]
# Share of --budget each kind gets (what a kind leaves unused passes on to
# the next).  From the seconds per kind of the complete full-grid run on one
# H100 that estimators/h100 comes from (its measure.log: eltwise 3.8 s,
# norm 7.1, embedding 5.9, optimizer 5.9, attention 15.9, gemm 70.4,
# rnn 125.1, conv 48.2; 282 s), rounded up for the short kinds and
# renormalised with a share for the collectives, which start one process
# group per rank count.
BUDGET_WEIGHT = {"gemm": 0.23, "conv": 0.17, "rnn": 0.37, "attention": 0.06,
                 "norm": 0.03, "embedding": 0.03, "eltwise": 0.02,
                 "optimizer": 0.03, "comm": 0.06, "resample": 0.03}
PRECISIONS = ["fp32", "tf32", "bf16", "fp16"]
# Measured first, so that a budget that runs short still leaves fp32 and
# bf16 rows of every kind.
PRECISION_ORDER = {"fp32": 0, "bf16": 1, "tf32": 2, "fp16": 3}
# Which precisions mean something per kind: TF32 only changes matrix
# products (GEMM, convolution, recurrent cells, attention).
KIND_PRECISIONS = {
    "gemm": PRECISIONS, "conv": PRECISIONS, "rnn": PRECISIONS,
    "attention": PRECISIONS, "norm": ["fp32", "bf16", "fp16"],
    "embedding": ["fp32", "bf16", "fp16"], "eltwise": ["fp32", "bf16", "fp16"],
    "optimizer": ["fp32", "bf16"], "comm": ["fp32", "bf16"],
    "resample": ["fp32", "bf16", "fp16"],
}
ELTWISE_OPS = ["copy", "add", "mul", "relu", "gelu", "sigmoid", "tanh",
               "dropout", "softmax", "sum", "mean", "max"]
# Shapes-file kinds (as in `fom ingest`) → table kinds.
SHAPE_KIND = {"gemm": "gemm", "conv": "conv", "rnn": "rnn",
              "attention": "attention", "norm": "norm",
              "embedding": "embedding", "elementwise": "eltwise",
              "reduction": "eltwise", "eltwise": "eltwise",
              "optimizer": "optimizer", "comm": "comm", "resample": "resample"}

torch = None  # imported in main() so that --help works without it
np = None


class InputError(Exception):
    """A bad option or input file: main() prints it and exits 2."""


class RowError(Exception):
    """A row that cannot be measured here (unsupported, out of memory)."""


# --------------------------------------------------------------------------
# logging and progress

class Log:
    def __init__(self, path):
        self.f = open(path, "a", encoding="utf-8") if path else None

    def __call__(self, msg):
        line = "measure: " + msg
        print(line, file=sys.stderr, flush=True)
        if self.f:
            self.f.write(datetime.datetime.now().strftime("%H:%M:%S ") + line + "\n")
            self.f.flush()


LOG = Log(None)


# --------------------------------------------------------------------------
# timing

# Host time of calls queued behind one device-side wait (Timer._gpu_queued):
# at 5-10 us of host time per launch, 2 ms is a few hundred launches, under
# the depth of CUDA's launch queue (about a thousand), so queueing never
# blocks on a full queue while the device spins.
QUEUE_CHUNK_S = 2e-3

# How GPU rows are timed (env.json "timing"); fom's reader takes a launch
# gap out of rows of the harness that lack it (src/ingest/env_json.c).
GPU_TIMING = "queued behind a device-side wait, events around each call"


class Timer:
    """Times fn() per call: device events on GPUs, perf_counter_ns on CPUs."""

    def __init__(self, dev, args):
        self.dev = dev
        self.gpu = dev.type == "cuda"
        self.min_reps = args.min_reps
        self.max_reps = args.max_reps
        self.row_s = args.row_ms / 1e3
        self.flush_buf = None
        self.sleep_hz = None
        self.requeued = 0
        if args.flush_l2:
            self.flush_buf = torch.empty(flush_bytes(dev) // 4,
                                         dtype=torch.float32, device=dev)

    def sync(self):
        if self.gpu:
            torch.cuda.synchronize(self.dev)

    def _flush(self):
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    @staticmethod
    def _events(n):
        return [(torch.cuda.Event(enable_timing=True),
                 torch.cuda.Event(enable_timing=True)) for _ in range(n)]

    def _queue(self, evs, fn, setup):
        """Queues one call per event pair, each with its setup and flush
        and bracketed by its events; returns the host's seconds."""
        q0 = time.perf_counter()
        for s, e in evs:
            if setup:
                setup()
            self._flush()
            s.record()
            fn()
            e.record()
        return time.perf_counter() - q0

    def _one(self, fn, setup):
        """Seconds of one call (used to size the timed repeats) and, on a
        GPU, the host's seconds to queue it with its setup, flush and
        events, as the timed loop does (the device idle at the start, so
        the host never waits on it)."""
        if self.gpu:
            evs = self._events(1)
            self.sync()
            host_s = self._queue(evs, fn, setup)
            evs[0][1].synchronize()
            return evs[0][0].elapsed_time(evs[0][1]) / 1e3, host_s
        if setup:
            setup()
        self._flush()
        t0 = time.perf_counter_ns()
        fn()
        return (time.perf_counter_ns() - t0) / 1e9, 0.0

    def _cycles_per_s(self):
        """Clock of torch.cuda._sleep's spin loop, measured once with events
        (the SM clock moves with boost and power state; a datasheet figure
        would be off by up to the boost range)."""
        if self.sleep_hz is None:
            cyc = 10_000_000
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            self.sync()
            s.record()
            torch.cuda._sleep(cyc)
            e.record()
            e.synchronize()
            self.sleep_hz = cyc / max(s.elapsed_time(e) / 1e3, 1e-6)
        return self.sleep_hz

    def _gpu_queued(self, fn, setup, reps, host_s):
        """Per-call device times, the calls queued behind a device-side wait.

        Timed one call at a time with the host launching as it goes, a kernel
        shorter than the host's cost per launch measures the launch gap, not
        the kernel.  Holding the GPU in a spin (torch.cuda._sleep) while the
        host queues a chunk of calls lets the events bracket the kernels as
        the device runs them, back to back.  A chunk is what the host queues
        in QUEUE_CHUNK_S, well under the CUDA launch queue's depth (about a
        thousand launches, 5-10 us of host time each), at host_s per call
        (Timer._one), and the spin lasts twice that; a chunk the host was
        still queueing when its spin ended is timed again with a longer
        spin.
        Returns (times_us, chunks_requeued)."""
        hz = self._cycles_per_s()
        chunk = int(max(1, min(reps, QUEUE_CHUNK_S / max(host_s, 1e-6))))
        times, requeued, left = [], 0, reps
        spin_s = 2 * chunk * host_s + 50e-6
        while left > 0:
            n = min(chunk, left)
            for attempt in range(3):
                evs = self._events(n)
                torch.cuda._sleep(int(spin_s * hz))
                queued_s = self._queue(evs, fn, setup)
                self.sync()
                if queued_s < spin_s or attempt == 2:
                    break
                requeued += 1
                spin_s = 2 * queued_s + 50e-6
            times += [s.elapsed_time(e) * 1e3 for s, e in evs]
            left -= n
        return times, requeued

    def measure(self, fn, setup=None, loop_mean=False):
        """Returns dict with the timing columns (µs) and optionally the mean
        of back-to-back calls (time_us_loop_mean)."""
        if setup:
            setup()
        fn()  # warm-up: first-call costs (autotuning, allocation, JIT)
        self.sync()
        t1, host_s = self._one(fn, setup)
        t1 = max(t1, 1e-7)
        reps = int(min(self.max_reps, max(self.min_reps, self.row_s / t1)))
        times = []
        if self.gpu:
            times, requeued = self._gpu_queued(fn, setup, reps, host_s)
            self.requeued += requeued
        else:
            for _ in range(reps):
                if setup:
                    setup()
                self._flush()
                t0 = time.perf_counter_ns()
                fn()
                times.append((time.perf_counter_ns() - t0) / 1e3)
        a = np.asarray(times, dtype=np.float64)
        r = {"time_us": float(np.median(a)), "time_us_min": float(a.min()),
             "time_us_max": float(a.max()),
             "time_us_p05": float(np.percentile(a, 5)),
             "time_us_p95": float(np.percentile(a, 95)), "reps": reps}
        if loop_mean:
            # back-to-back calls show the launch overlap of short kernels;
            # for long ones a few calls give the same mean
            reps = int(min(reps, max(3, self.row_s / 2 / t1)))
            if self.gpu:
                s = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(reps):
                    fn()
                e.record()
                e.synchronize()
                r["time_us_loop_mean"] = s.elapsed_time(e) * 1e3 / reps
            else:
                t0 = time.perf_counter_ns()
                for _ in range(reps):
                    fn()
                r["time_us_loop_mean"] = (time.perf_counter_ns() - t0) / 1e3 / reps
        return r


def flush_bytes(dev):
    """Twice the last-level cache, so that one write evicts it."""
    if dev.type == "cuda":
        p = torch.cuda.get_device_properties(dev)
        l2 = getattr(p, "L2_cache_size", 0) or (256 << 20)
        return 2 * l2
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for idx in os.listdir(base):
            with open(os.path.join(base, idx, "size")) as f:
                s = f.read().strip()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
            best = max(best, int(s.rstrip("KMG")) * mult)
    except (OSError, ValueError):
        pass
    return 2 * (best or (256 << 20))


# --------------------------------------------------------------------------
# precision handling

DTYPE_NAMES = {"fp32": "float32", "tf32": "float32", "bf16": "bfloat16",
               "fp16": "float16"}


def dtype_of(prec):
    return getattr(torch, DTYPE_NAMES[prec])


def set_tf32(on):
    """TF32 on or off for matrix products and cuDNN (fp32 rows: off)."""
    m = torch.backends.cuda.matmul
    c = torch.backends.cudnn
    if hasattr(m, "fp32_precision"):  # torch 2.9+ API; the old one warns
        try:
            m.fp32_precision = "tf32" if on else "ieee"
            c.conv.fp32_precision = "tf32" if on else "ieee"
            c.rnn.fp32_precision = "tf32" if on else "ieee"
            return
        except (AttributeError, RuntimeError):
            pass
    m.allow_tf32 = on
    c.allow_tf32 = on


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def supported_precisions(dev):
    if dev.type == "cpu":
        fl = cpu_flags()
        # bf16 only where the CPU has bf16 arithmetic (AVX512-BF16, AMX,
        # Arm BF16); elsewhere torch emulates it and the rows mean little.
        bf = bool(fl & {"avx512_bf16", "amx_bf16", "bf16"})
        return ["fp32"] + (["bf16"] if bf else [])
    out = ["fp32"]
    if torch.version.hip:
        arch = getattr(torch.cuda.get_device_properties(dev), "gcnArchName", "")
        if arch.startswith(("gfx94", "gfx95")):  # MI300/MI350: xf32
            out.append("tf32")
    elif torch.cuda.get_device_capability(dev)[0] >= 8:  # Ampere and later
        out.append("tf32")
    try:
        if torch.cuda.is_bf16_supported():
            out.append("bf16")
    except Exception:  # old torch: no query, try a product
        try:
            torch.ones(2, 2, device=dev, dtype=torch.bfloat16).mm(
                torch.ones(2, 2, device=dev, dtype=torch.bfloat16))
            out.append("bf16")
        except RuntimeError:
            pass
    out.append("fp16")
    return out


# --------------------------------------------------------------------------
# grids.  Log-spaced; the reasoning is in README.md ("What each grid covers").

def pow2(lo, hi, step=1):
    return [1 << e for e in range(lo, hi + 1, step)]


def half_octaves(lo, hi):
    """2^k and 3·2^(k-1) between lo and hi: model widths are mostly one of
    the two (768 = 3·2^8, 1024 = 2^10, 1536, 3072, 4096, …)."""
    out = set()
    e = 0
    while (1 << e) <= hi:
        for v in ((1 << e), 3 << max(e - 1, 0)):
            if lo <= v <= hi:
                out.add(v)
        e += 1
    return sorted(out)


def read_deepbench(name):
    path = os.path.join(HERE, "deepbench", name)
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def gemm_cases(grid):
    rows = []

    def add(m, n, k, at, bt, batch, src):
        rows.append(({"m": m, "n": n, "k": k, "a_t": at, "b_t": bt,
                      "batch": batch}, src))
    if grid == "batched-small":
        # Matrices of a few rows and columns in batches of thousands to
        # millions (capsule routing, per-position projections): past the
        # designed grid's batched rows (64 and up, batches to 1,024), where
        # a batched kernel's per-matrix cost rather than its peak sets the
        # time, and cuBLAS picks among gemv, SIMT and generic batched
        # kernels by size and alignment (multiples of 8 elements take
        # other kernels than odd sizes: on an H200 a bf16 [16x8]·[8x1]
        # batch runs a generic kernel 4 times slower than fp32's gemv,
        # [12x6]·[6x1] a fast one).  Powers of two 1 to 64 each way, as
        # model widths are, in each of the three layouts a backward pass
        # uses (NN, TN, NT; on a sparser axis the alignment steps fall
        # between rows and the interpolation blurs them), batches 2^12 to
        # 2^22, operands of at most 2^32 bytes in fp32.
        sizes = (1, 2, 4, 8, 16, 32, 64)
        for b in (1 << 12, 1 << 15, 1 << 18, 1 << 21, 1 << 22):
            for at, bt in (("N", "N"), ("T", "N"), ("N", "T")):
                for m in sizes:
                    for n in sizes:
                        for k in sizes:
                            if 4 * b * (m * k + k * n + m * n) <= 1 << 32:
                                add(m, n, k, at, bt, b, "grid")
        return rows
    if grid == "batched-long":
        # Batches of products with one long side and two short ones
        # (skip-gram scores of a word against its samples, per-head
        # attention of one query, per-position projections along a
        # sequence): the designed grid's batched rows are square-ish, and
        # batched-small stops at 64 a side, so a batch of [1x300]·[300x16]
        # products read its time from rows whose cost is arithmetic while
        # its own is the operands' traffic.  Long side 512 to 8,192 on
        # every other octave in each of m, n and k, the short sides 1, 8,
        # 64 and 256, the three layouts a backward pass uses, batches 16 to
        # 32,768; operands of at most 2^32 bytes in fp32 and at most 2^40
        # flops, so one row stays under a second.
        shorts = (1, 8, 64, 256)
        for b in (16, 256, 4096, 32768):
            for at, bt in (("N", "N"), ("T", "N"), ("N", "T")):
                for pos in range(3):
                    for big in (512, 2048, 8192):
                        for s1 in shorts:
                            for s2 in shorts:
                                dims = [s1, s2]
                                dims.insert(pos, big)
                                m, n, k = dims
                                if (4 * b * (m * k + k * n + m * n) <= 1 << 32
                                        and 2 * m * n * k * b <= 1 << 40):
                                    add(m, n, k, at, bt, b, "grid")
        return rows
    if grid == "tiny":
        for s in (32, 128):
            add(s, s, s, "N", "N", 1, "grid")
        add(64, 32, 128, "T", "N", 1, "grid")
        add(64, 32, 128, "N", "T", 1, "grid")
        add(32, 32, 16, "N", "N", 4, "grid")
        return rows
    hi = 13 if grid == "full" else 11
    flop_cap = 2.0 ** 41 if grid == "full" else 2.0 ** 35
    # the cube 32…8192 (small: …2048), NN
    for m in pow2(5, hi):
        for n in pow2(5, hi):
            for k in pow2(5, hi):
                add(m, n, k, "N", "N", 1, "grid")
    # transposes on every other octave
    for at, bt in (("N", "T"), ("T", "N"), ("T", "T")):
        for m in pow2(5, hi, 2):
            for n in pow2(5, hi, 2):
                for k in pow2(5, hi, 2):
                    add(m, n, k, at, bt, 1, "grid")
    # flattened batch×sequence (tokens) against model widths: the forward
    # (NN), the input gradient (NT) and the weight gradient (TN) forms
    tokens = pow2(9, 15, 2) if grid == "full" else pow2(9, 13, 2)
    widths = half_octaves(512, 16384 if grid == "full" else 4096)
    for t in tokens:
        for n in widths:
            for k in widths:
                if n != k and n != 4 * k and k != 4 * n and n != 3 * k:
                    continue  # square, MLP (4×) and fused-QKV (3×) layers
                for at, bt in (("N", "N"), ("N", "T"), ("T", "N")):
                    if at == "T":  # weight gradient: k×n from t tokens
                        add(k, n, t, "T", "N", 1, "grid")
                    else:
                        add(t, n, k, at, bt, 1, "grid")
    # batched: attention-like (batch·heads, seq×seq×head_dim) and generic
    for b in (16, 128, 1024) if grid == "full" else (16, 128):
        for s in pow2(7, 11, 2):
            for d in (64, 128):
                add(s, s, d, "N", "T", b, "grid")
                add(s, d, s, "N", "N", b, "grid")
    for b in (4, 32, 256):
        for s in pow2(6, 10, 2):
            add(s, s, s, "N", "N", b, "grid")
    if grid == "full":
        for name, src in (("gemm_train.csv", "deepbench_train"),
                          ("gemm_inference.csv", "deepbench_inference")):
            for r in read_deepbench(name):
                add(int(r["m"]), int(r["n"]), int(r["k"]),
                    "T" if r["a_t"] == "1" else "N",
                    "T" if r["b_t"] == "1" else "N", 1, src)
    return [(c, s) for c, s in rows
            if 2.0 * c["m"] * c["n"] * c["k"] * c["batch"] <= flop_cap
            or s.startswith("deepbench")]


def conv_shape(dims, n, c, sp, k, f, stride=1, pad=None, dil=1, groups=1, layout="contiguous"):
    """A convolution over `dims` spatial dimensions of size sp each."""
    if pad is None:
        pad = dil * (f - 1) // 2
    d = {"dims": dims, "n": n, "c": c, "k": k, "groups": groups, "layout": layout}
    for ax in ("d", "h", "w"):
        active = (ax == "w") or (ax == "h" and dims >= 2) or dims == 3
        d[ax] = sp if active else 1
        d["f_" + ax] = f if active else 1
        d["pad_" + ax] = pad if active else 0
        d["stride_" + ax] = stride if active else 1
        d["dil_" + ax] = dil if active else 1
    return d


def both_layouts(rows):
    """Each (row, source) in the contiguous layout, then in the channels-last one."""
    return [(dict(row, layout=layout), src) for row, src in rows
            for layout in ("contiguous", "channels-last")]


def depthwise_cases():
    """The depthwise grid (--grid depthwise): depthwise 2-D convolutions as
    the mobile and ConvNeXt-style networks run them, 3x3, 5x5 and 7x7 at
    stride 1 and 3x3 at stride 2, over the image pyramid (spatial 224/2^i)
    x channels 32...1024 capped at 2^20 activation elements per sample, at
    batches 8, 32 and 128, each in both memory layouts: the contiguous
    tensors of the other grids and channels-last (NHWC) tensors, which
    training scripts ask for (torch.channels_last) and for which cuDNN
    runs other kernels."""
    rows = []
    for n in (8, 32, 128):
        for sp in (7, 14, 28, 56, 112):
            for c in pow2(5, 10):
                if c * sp * sp > (1 << 20):
                    continue
                for f, stride in ((3, 1), (5, 1), (7, 1), (3, 2)):
                    rows.append(conv_shape(2, n, c, sp, c, f, stride=stride, groups=c))
    return both_layouts([(r, "grid") for r in rows])


def dense_layout_cases():
    """The dense-layouts grid (--grid dense-layouts): the dense 2-D
    convolutions of the full grid (its designed shapes at batch 32 and
    DeepBench's training shapes), each in both memory layouts, so that a
    channels-last (NHWC) model is timed from rows of its layout and the
    contiguous rows of the same run check the machine against the table's
    earlier ones."""
    return both_layouts([(row, src) for row, src in conv_cases("full")
                         if row["dims"] == 2 and row["groups"] == 1])


def dilated_cases():
    """The dilated grid (--grid dilated): convolutions whose filter taps
    are spread (dilation), as temporal convolution nets and WaveNet-style
    stacks run them over long 1-D signals (taps 2 and 3, dilation 1 to 64
    in octaves) and segmentation nets run them over feature maps (atrous
    3x3, dilation 1 to 16), each with its undilated twin (dilation 1) in
    the same run, so that the cost of the dilation is measured, not
    inferred from other rows.  Padding keeps the length (dilation x
    (taps - 1) / 2, rounded down).  Contiguous tensors."""
    rows = []
    for n in (8, 32):
        for c in (32, 64, 256, 512):
            for length in (2048, 16384):
                for f in (2, 3):
                    for dil in pow2(0, 6):
                        rows.append(conv_shape(1, n, c, length, c, f, dil=dil))
        for c in (64, 256, 512):
            for sp in (28, 56):
                if c * sp * sp > (1 << 20):
                    continue
                for dil in pow2(0, 4):
                    rows.append(conv_shape(2, n, c, sp, c, 3, dil=dil))
    return [(r, "grid") for r in rows]


def conv3d_cases():
    """The 3-D grid (--grid conv3d): volumetric convolutions as scientific
    and medical networks train them, at batches 6 and 24 (the full grid's
    3-D rows run batch 2): per volume (8^3 to 64^3) and width (16 to 256
    channels, at most 2^22 activation elements per sample) a 3^3 layer of
    the same width, a strided widening one and a 1^3 one, and input layers
    of 1 and 4 channels (32 filters) over 32^3 and 64^3; then the 5^3
    layers of the same widths and volumes (cuDNN chooses its algorithms
    by filter size: 3^3 rows do not measure a 5^3 filter).  Contiguous
    tensors."""
    rows = []
    for n in (6, 24):
        for c in pow2(4, 8):
            for sp in pow2(3, 6):
                if c * sp ** 3 > (1 << 22):
                    continue
                rows.append(conv_shape(3, n, c, sp, c, 3))
                rows.append(conv_shape(3, n, c, sp, 2 * c, 3, stride=2))
                rows.append(conv_shape(3, n, c, sp, c, 1))
        for c in (1, 4):
            for sp in (32, 64):
                rows.append(conv_shape(3, n, c, sp, 32, 3))
    # after the rows above, so that a folder holding them resumes here
    for n in (6, 24):
        for c in pow2(4, 8):
            for sp in pow2(3, 6):
                if c * sp ** 3 <= (1 << 22):
                    rows.append(conv_shape(3, n, c, sp, c, 5))
    return [(r, "grid") for r in rows]


def depthwise3d_cases():
    """The 3-D depthwise grid (--grid depthwise3d): depthwise 3-D
    convolutions (a group per channel) as MedNeXt- and X3D-style networks
    run them: 3^3, 5^3 and 7^3 filters at stride 1 and 3^3 and 5^3 at
    stride 2, channels 16 to 512 over volumes 8^3 to 64^3 capped at 2^22
    activation elements per sample, at batches 3 and 12.  cuDNN runs them
    on kernels of their own (neither the dense 3-D rows nor the 2-D
    depthwise ones time them).  Contiguous tensors."""
    rows = []
    for n in (3, 12):
        for c in pow2(4, 9):
            for sp in pow2(3, 6):
                if c * sp ** 3 > (1 << 22):
                    continue
                for f, stride in ((3, 1), (5, 1), (7, 1), (3, 2), (5, 2)):
                    rows.append(conv_shape(3, n, c, sp, c, f, stride=stride, groups=c))
    return [(r, "grid") for r in rows]


def conv1d_cases():
    """The 1-D grid (--grid conv1d): dense 1-D convolutions as text,
    genomics, speech and time-series networks train them, where the
    full grid's 1-D rows (batch 16, widths 32 and 256) stop: batches 16,
    128 and 1,024, lengths 128 to 8,192 in two-octave steps, filters of
    1, 3, 5 and 9 taps ('same' padding, stride 1), as many filters as
    input channels, over two families of widths: powers of two (32 to
    1,024) and the round decimal widths papers use (25 x 2^i: 50 to 800,
    whose rows are aligned to 2 to 32 elements), since cuDNN chooses its
    algorithms by alignment too; then layers that narrow or widen by 4
    (filters 1, 3 and 9).  Capped at 2^26 activation elements per call
    and 2^39 flops per forward call, so that each row takes
    milliseconds; then the layers between 2^26 and 2^28 activation
    elements, up to 2^40 flops.  Contiguous tensors."""
    rows = []
    widths = sorted(pow2(5, 10) + [25 << i for i in range(1, 6)])
    for n in (16, 128, 1024):
        for length in pow2(7, 13, 2):
            for c in widths:
                if n * length * c > (1 << 26):
                    continue
                for f in (1, 3, 5, 9):
                    if 2.0 * n * length * c * c * f > 2.0 ** 39:
                        continue
                    rows.append(conv_shape(1, n, c, length, c, f))
    # after the rows above, so that a folder holding them resumes here:
    # layers that narrow or widen by 4 (bottlenecks, heads over wide
    # embeddings), which the same-width rows cannot tell apart from each
    # other (input and output channels move together there)
    for n in (16, 128, 1024):
        for length in pow2(7, 13, 2):
            for c in widths:
                for k in (c // 4, 4 * c):
                    if k < 8 or n * length * max(c, k) > (1 << 26):
                        continue
                    for f in (1, 3, 9):
                        if 2.0 * n * length * c * k * f > 2.0 ** 39:
                            continue
                        rows.append(conv_shape(1, n, c, length, k, f))
    # then the large layers the caps above leave out (2^26 to 2^28
    # activation elements per call: a batch of 256 documents of 1,000
    # words at 300 channels is 2^26.2), same width, narrowing and widening
    for n in (128, 1024):
        for length in pow2(9, 13, 2):
            for c in widths:
                for k in (c, c // 4, 4 * c):
                    act = n * length * max(c, k)
                    if k < 8 or act <= (1 << 26) or act > (1 << 28):
                        continue
                    for f in (1, 3, 9):
                        if 2.0 * n * length * c * k * f > 2.0 ** 40:
                            continue
                        rows.append(conv_shape(1, n, c, length, k, f))
    return [(r, "grid") for r in rows]


def grouped_cases():
    """The grouped grid (--grid grouped): grouped 2-D convolutions between
    the dense (1 group) and the depthwise (a group per channel) ones, as
    ResNeXt- and RegNet-style networks run them: group widths (channels
    per group) 4 to 64, 3x3 at stride 1 and 2 and 1x1, filters as many as
    input channels, over the image pyramid (spatial 7 to 56) x channels 32
    to 1024 capped at 2^20 activation elements per sample, at batches 8 and
    32.  Contiguous tensors."""
    rows = []
    for n in (8, 32):
        for sp in (7, 14, 28, 56):
            for c in pow2(5, 10):
                if c * sp * sp > (1 << 20):
                    continue
                for width in pow2(2, 6):
                    g = c // width
                    if g < 2 or width < 2:
                        continue
                    for f, stride in ((3, 1), (3, 2), (1, 1)):
                        rows.append(conv_shape(2, n, c, sp, c, f, stride=stride, groups=g))
    return [(r, "grid") for r in rows]


def conv_cases(grid):
    rows = []
    if grid == "grouped":
        return grouped_cases()
    if grid == "depthwise":
        return depthwise_cases()
    if grid == "dense-layouts":
        return dense_layout_cases()
    if grid == "dilated":
        return dilated_cases()
    if grid == "conv3d":
        return conv3d_cases()
    if grid == "depthwise3d":
        return depthwise3d_cases()
    if grid == "conv1d":
        return conv1d_cases()
    if grid == "tiny":
        rows.append(conv_shape(2, 2, 8, 16, 16, 3))
        rows.append(conv_shape(2, 2, 8, 16, 8, 3, groups=8))
        rows.append(conv_shape(1, 2, 4, 64, 8, 5, stride=2))
        rows.append(conv_shape(3, 1, 4, 8, 4, 3, dil=2))
        return [(r, "grid") for r in rows]
    full = grid == "full"
    # 2-D: the image pyramid (spatial 224/2^i) × channels 32…1024, capped
    # at 2^20 activation elements per sample; per point the layer types of
    # CNNs: 3×3 (same and strided, widening), 1×1 (same, 4× expand,
    # 4× reduce), depthwise 3×3 (stride 1 and 2).
    for n in (32,) if full else (8,):
        for sp in (7, 14, 28, 56, 112):
            for c in pow2(5, 10):
                if c * sp * sp > (1 << 20):
                    continue
                rows.append(conv_shape(2, n, c, sp, c, 3))
                rows.append(conv_shape(2, n, c, sp, 2 * c, 3, stride=2))
                rows.append(conv_shape(2, n, c, sp, c, 1))
                if full:
                    rows.append(conv_shape(2, n, c, sp, 4 * c, 1))
                rows.append(conv_shape(2, n, c, sp, c, 3, groups=c))
        # stems on 224² RGB input, and dilated 3×3 (segmentation)
        rows.append(conv_shape(2, n, 3, 224, 64, 7, stride=2))
        rows.append(conv_shape(2, n, 3, 224, 32, 3, stride=2))
        for c, sp in ((256, 28), (512, 14)):
            rows.append(conv_shape(2, n, c, sp, c, 3, dil=2))
    # 1-D: sequences (audio, genomics, text): channels × length
    for c in (1, 32, 256):
        for length in pow2(8, 16, 4) if full else pow2(8, 12, 4):
            for f in (3, 15):
                k = 64 if c == 1 else c
                rows.append(conv_shape(1, 16, c, length, k, f))
    # 3-D: volumes (scientific, medical, video), ≤ 2^22 elements per sample
    for c in (16, 64, 256):
        for sp in (16, 32, 64) if full else (16, 32):
            if c * sp ** 3 > (1 << 22):
                continue
            rows.append(conv_shape(3, 2, c, sp, c, 3))
            rows.append(conv_shape(3, 2, c, sp, c, 1))
            if full:
                rows.append(conv_shape(3, 2, c, sp, 2 * c, 3, stride=2))
    out = [(r, "grid") for r in rows]
    if full:
        for r in read_deepbench("conv_train.csv"):
            d = conv_shape(2, int(r["n"]), int(r["c"]), 1, int(r["k"]), 1)
            d.update({"h": int(r["h"]), "w": int(r["w"]),
                      "f_h": int(r["filter_h"]), "f_w": int(r["filter_w"]),
                      "pad_h": int(r["pad_h"]), "pad_w": int(r["pad_w"]),
                      "stride_h": int(r["stride_h"]),
                      "stride_w": int(r["stride_w"])})
            out.append((d, "deepbench_train"))
    return out


def rnn_cases(grid):
    rows = []

    def add(cell, inp, hid, layers, seq, batch, bi, src="grid"):
        rows.append(({"cell": cell, "input": inp, "hidden": hid,
                      "layers": layers, "seq": seq, "batch": batch,
                      "bidirectional": bi}, src))
    if grid == "tiny":
        add("lstm", 16, 32, 1, 4, 2, 0)
        add("gru", 16, 32, 2, 4, 2, 1)
        return rows
    full = grid == "full"
    for cell in ("lstm", "gru"):
        for hid in (256, 1024) if full else (128, 512):
            for layers in (1, 2):
                for seq in (32, 128) if full else (16, 64):
                    for batch in (16, 64) if full else (8, 64):
                        for bi in (0, 1) if full else (0,):
                            add(cell, hid, hid, layers, seq, batch, bi)
    if full:
        cells = {"vanilla": "rnn_tanh", "lstm": "lstm", "gru": "gru"}
        for r in read_deepbench("rnn_train.csv"):
            h = int(r["hidden"])
            add(cells[r["cell"]], h, h, 1, int(r["timesteps"]),
                int(r["batch"]), 0, "deepbench_train")
    return rows


def attention_cases(grid):
    rows = []

    def add(b, h, q, kv, d, causal):
        rows.append(({"batch": b, "heads": h, "q_len": q, "kv_len": kv,
                      "head_dim": d, "causal": causal}, "grid"))
    if grid == "tiny":
        add(1, 2, 16, 16, 16, 0)
        add(1, 2, 32, 32, 16, 1)
        return rows
    if grid == "head-dims":
        # the full grid's batches, heads and lengths at the head dims
        # around and beside its 64 and 128: the kernels pick a tile per
        # head dim (padding the ones between), so a time does not follow
        # the flops in head_dim and the rows must be measured
        dims, full = (16, 32, 80, 96), True
    else:
        dims, full = (64, 128), grid == "full"
    for b in (2, 16):
        for h in (8, 32) if full else (8,):
            for L in pow2(7, 13, 2) if full else pow2(7, 11, 2):
                for d in dims:
                    for causal in (0, 1):
                        if b * h * L * L <= (1 << 30):
                            add(b, h, L, L, d, causal)
    if grid == "head-dims":
        return rows
    # decoding: one query against a long cache
    for kv in pow2(10, 14, 2):
        add(16, 32, 1, kv, 128, 0)
    return rows


def norm_cases(grid):
    rows = []

    def add(op, n, c, s, groups=0):
        rows.append(({"op": op, "n": n, "c": c, "s": s, "groups": groups},
                     "grid"))
    if grid == "norm2d":
        # Batch norm over rows of features ([N, C] input, s = 1: BatchNorm1d
        # after a linear layer in MLP heads, graph and point-cloud networks),
        # which PyTorch runs as its own kernels, not as the 4-D ones above:
        # 1k to 256k rows, 32 to 2,048 features.
        for n in pow2(10, 18, 2):
            for c in (32, 128, 512, 2048):
                if n * c <= 1 << 28:
                    add("batch_norm", n, c, 1)
        return rows
    if grid == "norm-rows":
        # Layer and RMS norms over many short rows (16 to 512 features,
        # 1k to 1M rows): PyTorch's CUDA kernels give each row one thread
        # block, forward and backward, so past one block per multiprocessor
        # such a norm is paced by its rows, not by its bytes, and the
        # designed grid (256 features and more, at most 8k rows) does not
        # show it.  The batches bracket the usual ones; rows (n x s) are
        # what the kernels see.
        for op in ("layer_norm", "rms_norm"):
            for c in (16, 32, 64, 128, 256, 512):
                for n, first in ((1, 10), (8, 7), (64, 4)):
                    for s in pow2(first, first + 10, 2):
                        if n * c * s <= 1 << 27:
                            add(op, n, c, s)
        return rows
    if grid == "norm-batch":
        # Batch and group norms of 4-D activations at the batches training
        # runs (the designed grid below measures batches 8 and 64 only, so
        # a convolutional network's norms at batch 256 were extrapolated):
        # batches 12, 96, 768 and 6,144 (apart by 8x, off the powers of two
        # models train at, bracketing them; the last for norms over the
        # many series or patches a [N, C, L] input holds), 16 to 1,024
        # channels, maps of 2 x 2 to 64 x 64 (4 to 4,096 points; a
        # [N, C, L] sequence's norm is the same kernel), 2^14 to 2^28
        # elements.
        for n in (12, 96, 768, 6144):
            for c in (16, 64, 256, 1024):
                for s in pow2(2, 12, 2):
                    if 1 << 14 <= n * c * s <= 1 << 28:
                        add("batch_norm", n, c, s)
                        add("group_norm", n, c, s, 8 if c < 64 else 32)
        return rows
    if grid == "tiny":
        add("batch_norm", 4, 8, 64)
        add("group_norm", 4, 8, 64, 4)
        add("layer_norm", 4, 64, 16)
        add("rms_norm", 4, 64, 16)
        return rows
    full = grid == "full"
    cap = 1 << 28 if full else 1 << 24
    for n in (8, 64):
        for c in (64, 256, 1024):
            for s in pow2(6, 14, 4):  # 8², 32², 128² feature maps
                if n * c * s <= cap:
                    add("batch_norm", n, c, s)
                    add("group_norm", n, c, s, 32)
    # Few channels over large maps and 3-D volumes (2^11 to 2^20 points, a
    # 13³ to a 101³ volume): cuDNN's NCHW batch norm reduces a channel in few
    # blocks, so its rate falls with the channel count, which the grid above
    # (64 channels and more) does not show.  The batches bracket the usual
    # ones from either side.
    for n in (2, 32):
        for c in (8, 32):
            for s in pow2(11, 20, 3):
                if n * c * s <= cap:
                    add("batch_norm", n, c, s)
                    add("group_norm", n, c, s, 8)
    for n in (1, 8, 64) if full else (1, 8):
        for s in (128, 1024):
            for c in (256, 1024, 4096):
                if n * c * s <= cap:
                    add("layer_norm", n, c, s)
                    add("rms_norm", n, c, s)
    return rows


def embedding_cases(grid):
    rows = []

    def add(op, rows_, dim, lookups, batch, mode):
        rows.append(({"op": op, "rows": rows_, "dim": dim, "lookups": lookups,
                      "batch": batch, "mode": mode}, "grid"))
    if grid == "embedding-tokens":
        # Plain lookups of many indices (a batch of skip-gram centre
        # words, negatives and contexts; a recommender's histories): the
        # designed grid stops at 16,384 indices, and the backward's cost
        # (sorting the indices, then adding rows) grows past it by a law
        # of its own.  Indices 2^8 to 2^22 on every other octave, as 32
        # lookups in batches of indices/32; tables of 2^12, 2^16 and 2^20
        # rows, 16, 128 and 512 wide, at most 2^28 elements.
        for tokens in pow2(8, 22, 2):
            for r in (1 << 12, 1 << 16, 1 << 20):
                for dim in (16, 128, 512):
                    if r * dim <= (1 << 28):
                        add("embedding", r, dim, 32, tokens // 32, "none")
        return rows
    if grid == "tiny":
        add("embedding", 1000, 16, 8, 4, "none")
        add("embedding_bag", 1000, 16, 4, 8, "sum")
        add("embedding_bag", 1000, 16, 4, 8, "max")
        return rows
    full = grid == "full"
    for r in pow2(14, 20, 3) if full else pow2(14, 17, 3):
        for dim in (64, 256, 1024):
            if r * dim > (1 << 28):
                continue
            for batch, lookups in ((32, 128), (8, 2048)):  # tokens
                add("embedding", r, dim, lookups, batch, "none")
    for r in pow2(16, 20, 4) if full else (1 << 16,):
        for dim in (32, 128):
            for batch in (512, 8192):
                for lookups in (1, 16, 64):
                    for mode in ("sum", "mean", "max"):
                        add("embedding_bag", r, dim, lookups, batch, mode)
    return rows


def eltwise_cases(grid):
    if grid == "tiny":
        sizes = [1 << 10, 1 << 14]
        ops = ELTWISE_OPS
    else:
        sizes = pow2(10, 28) if grid == "full" else pow2(10, 24, 2)
        ops = ELTWISE_OPS
    return [({"op": op, "elements": n}, "grid") for op in ops for n in sizes]


def optimizer_cases(grid):
    if grid == "tiny":
        sizes, tensors = [1 << 12], [4]
    elif grid == "small":
        sizes, tensors = [1 << 16, 1 << 20], [8]
    else:
        sizes, tensors = pow2(20, 27, 3)[:-1] + [1 << 27], [8, 128]
    rows = []
    for op in ("sgd", "sgd_momentum", "adam", "adamw"):
        for form in ("single", "foreach", "fused"):
            for p in sizes:
                for t in tensors:
                    rows.append(({"op": op, "form": form, "params": p,
                                  "tensors": t}, "grid"))
    return rows


# The upsampling ops PyTorch records (aten::upsample_*), by the number of
# spatial dimensions they resize.
RESAMPLE_OPS = {"upsample_nearest2d": 2, "upsample_bilinear2d": 2, "upsample_bicubic2d": 2,
                "upsample_nearest3d": 3, "upsample_trilinear3d": 3}


def resample_cases(grid):
    """Upsampling by planes (n x c), output and input points (h x w, or
    d x h x w).  PyTorch's CUDA kernels of the interpolating modes give
    each thread one output point and loop over the planes inside it, and
    their backward adds each output's gradient into its sources with
    atomics, so the time follows the planes, the output points and the
    scale (how many outputs share a source), not the bytes
    (estimators/h200/upsample-probe/ORIGIN.md).  Square (cubic) maps of 1
    to 256 points a side, scales 2 to 32 a side (32: a pooled 1 x 1 map
    spread back over its feature map), 16 to 65,536 planes."""
    rows = []

    def add(op, planes, side_in, scale):
        dims = RESAMPLE_OPS[op]
        n = min(planes, 16)
        rows.append(({"op": op, "n": n, "c": planes // n, "out": (side_in * scale) ** dims,
                      "in": side_in ** dims}, "grid"))
    if grid == "tiny":
        add("upsample_bilinear2d", 16, 4, 2)
        add("upsample_nearest2d", 16, 4, 2)
        add("upsample_trilinear3d", 16, 2, 2)
        return rows
    cap = 1 << 28 if grid == "full" else 1 << 27
    for op, dims in RESAMPLE_OPS.items():
        sides = pow2(0, 8) if dims == 2 else pow2(1, 6)
        scales = (2, 4, 8, 32) if dims == 2 else (2, 4)
        for planes in pow2(4, 16, 2) if dims == 2 else pow2(4, 12, 2):
            for side in sides:
                for scale in scales:
                    out = (side * scale) ** dims
                    if side * scale <= (1024 if dims == 2 else 128) and planes * out <= cap:
                        add(op, planes, side, scale)
    return rows


CASES = {"gemm": gemm_cases, "conv": conv_cases, "rnn": rnn_cases,
         "attention": attention_cases, "norm": norm_cases,
         "embedding": embedding_cases, "eltwise": eltwise_cases,
         "optimizer": optimizer_cases, "resample": resample_cases}
PASSES = {"gemm": [None], "conv": ["fwd", "bwd_data", "bwd_weight"],
          "rnn": ["fwd", "bwd"], "attention": ["fwd", "bwd"],
          "norm": ["fwd", "bwd"], "embedding": ["fwd", "bwd"],
          "eltwise": [None], "optimizer": ["step"], "comm": [None],
          "resample": ["fwd", "bwd"]}


# --------------------------------------------------------------------------
# builders: (shape, precision, pass, device) → (fn, setup, extra columns)

def rand(shape, dt, dev, grad=False):
    t = torch.randn(*shape, device=dev, dtype=torch.float32).to(dt)
    if grad:
        t.requires_grad_(True)
    return t


def build_gemm(s, prec, _pass, dev):
    dt = dtype_of(prec)
    m, n, k, b = s["m"], s["n"], s["k"], s["batch"]
    ta, tb = s["a_t"] == "T", s["b_t"] == "T"
    bat = (b,) if b > 1 else ()
    a = rand(bat + ((k, m) if ta else (m, k)), dt, dev)
    bb = rand(bat + ((n, k) if tb else (k, n)), dt, dev)
    if ta:
        a = a.transpose(-1, -2)
    if tb:
        bb = bb.transpose(-1, -2)
    c = torch.empty(bat + (m, n), device=dev, dtype=dt)
    op = torch.bmm if b > 1 else torch.mm
    return (lambda: op(a, bb, out=c)), None


def conv_args(s):
    dims = s["dims"]
    axes = ["d", "h", "w"][3 - dims:]
    return (dims, axes, [s["stride_" + a] for a in axes],
            [s["pad_" + a] for a in axes], [s["dil_" + a] for a in axes])


def build_conv(s, prec, pas, dev):
    dt = dtype_of(prec)
    dims, axes, stride, pad, dil = conv_args(s)
    g = s["groups"]
    if s["c"] % g or s["k"] % g:
        raise RowError("channels %d and filters %d not divisible by groups %d"
                       % (s["c"], s["k"], g))
    x = rand([s["n"], s["c"]] + [s[a] for a in axes], dt, dev)
    wt = rand([s["k"], s["c"] // g] + [s["f_" + a] for a in axes], dt, dev)
    layout = s.get("layout", "contiguous")
    if layout == "channels-last":
        # what torch.channels_last gives a model: both tensors NHWC (NDHWC)
        if dims == 1:
            raise RowError("a 1-D convolution has no channels-last layout")
        fmt = torch.channels_last if dims == 2 else torch.channels_last_3d
        x = x.contiguous(memory_format=fmt)
        wt = wt.contiguous(memory_format=fmt)
    elif layout != "contiguous":
        raise RowError("layout %r is not contiguous or channels-last" % layout)
    F = torch.nn.functional
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dims]
    if pas == "fwd":
        return (lambda: conv(x, wt, None, stride, pad, dil, g)), None
    y = conv(x, wt, None, stride, pad, dil, g)
    gy = torch.randn_like(y)
    bw = getattr(torch.ops.aten, "convolution_backward", None)
    if bw is not None:  # the kernel autograd runs, one output at a time
        mask = [pas == "bwd_data", pas == "bwd_weight", False]
        return (lambda: bw(gy, x, wt, None, stride, pad, dil, False,
                           [0] * dims, g, mask)), None
    # older torch: autograd with requires_grad on one input
    if pas == "bwd_data":
        x.requires_grad_(True)
        target = x
    else:
        wt.requires_grad_(True)
        target = wt
    y = conv(x, wt, None, stride, pad, dil, g)
    return (lambda: torch.autograd.grad(y, target, gy, retain_graph=True)), None


def build_rnn(s, prec, pas, dev):
    dt = dtype_of(prec)
    cell = s["cell"]
    if cell not in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
        raise RowError("cell %r is not lstm, gru, rnn_tanh or rnn_relu" % cell)
    kw = {"nonlinearity": cell[4:]} if cell.startswith("rnn_") else {}
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(cell, torch.nn.RNN)
    mod = cls(s["input"], s["hidden"], s["layers"],
              bidirectional=bool(s["bidirectional"]), **kw).to(dev, dt)
    if dev.type == "cuda":
        mod.flatten_parameters()  # one weight buffer, as cuDNN wants
    x = rand((s["seq"], s["batch"], s["input"]), dt, dev, grad=(pas == "bwd"))
    if pas == "fwd":
        return (lambda: mod(x)), None
    out, _ = mod(x)
    gy = torch.randn_like(out)
    inputs = [x] + list(mod.parameters())
    return (lambda: torch.autograd.grad(out, inputs, gy, retain_graph=True)), None


def sdpa_backends():
    """[(name, context factory)] in the order flash, efficient, cudnn, math."""
    try:
        from torch.nn.attention import sdpa_kernel, SDPBackend
        out = []
        for name, attr in (("flash", "FLASH_ATTENTION"),
                           ("efficient", "EFFICIENT_ATTENTION"),
                           ("cudnn", "CUDNN_ATTENTION"), ("math", "MATH")):
            if hasattr(SDPBackend, attr):
                out.append((name, (lambda b=getattr(SDPBackend, attr):
                                   sdpa_kernel(b))))
        return out
    except ImportError:
        pass
    k = getattr(torch.backends.cuda, "sdp_kernel", None)
    if k is None:
        return []
    return [("flash", lambda: k(enable_flash=True, enable_math=False,
                                enable_mem_efficient=False)),
            ("efficient", lambda: k(enable_flash=False, enable_math=False,
                                    enable_mem_efficient=True)),
            ("math", lambda: k(enable_flash=False, enable_math=True,
                               enable_mem_efficient=False))]


def manual_attention(q, k, v, causal):
    sc = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        mask = torch.ones(L, S, dtype=torch.bool, device=q.device).tril(S - L)
        sc = sc.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(sc, dim=-1), v)


class Ctx:
    """Holds a context manager open around the timing of one row."""

    def __init__(self, factory):
        self.factory = factory
        self.cm = None

    def __enter__(self):
        if self.factory:
            self.cm = self.factory()
            self.cm.__enter__()
        return self

    def __exit__(self, *exc):
        if self.cm:
            self.cm.__exit__(*exc)
        return False


def build_attention(s, prec, pas, dev):
    dt = dtype_of(prec)
    b, h, d = s["batch"], s["heads"], s["head_dim"]
    grad = pas == "bwd"
    q = rand((b, h, s["q_len"], d), dt, dev, grad)
    k = rand((b, h, s["kv_len"], d), dt, dev, grad)
    v = rand((b, h, s["kv_len"], d), dt, dev, grad)
    causal = bool(s["causal"])
    F = torch.nn.functional
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    cands = sdpa_backends() if sdpa else []
    if sdpa is None:
        def f():
            return manual_attention(q, k, v, causal)
        cands = [("math", None)]
    else:
        def f():
            return sdpa(q, k, v, is_causal=causal)
    last = None
    for name, factory in cands:
        try:
            with Ctx(factory), warnings.catch_warnings():
                # each refusing backend warns why; the chosen one is recorded
                warnings.simplefilter("ignore")
                out = f()
                if grad:
                    gy = torch.randn_like(out)
                    torch.autograd.grad(out, (q, k, v), gy, retain_graph=True)
        except RuntimeError as e:  # backend does not take this shape/dtype
            last = e
            if "out of memory" in str(e):
                raise
            continue
        if grad:
            fn = (lambda: torch.autograd.grad(out, (q, k, v), gy,
                                              retain_graph=True))
        else:
            fn = f
        return fn, None, {"backend": name}, factory
    raise RowError("no attention backend takes it: %s" % first_line(last))


def rms_norm(x, w, eps=1e-6):
    f = getattr(torch.nn.functional, "rms_norm", None)
    if f is not None:
        return f(x, (x.shape[-1],), w, eps)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def build_norm(s, prec, pas, dev):
    dt = dtype_of(prec)
    grad = pas == "bwd"
    n, c, sp, op = s["n"], s["c"], s["s"], s["op"]
    F = torch.nn.functional
    if op in ("layer_norm", "rms_norm"):
        x = rand((n * sp, c), dt, dev, grad)
        w = rand((c,), dt, dev, grad)
        bias = rand((c,), dt, dev, grad)
        if op == "layer_norm":
            def f():
                return F.layer_norm(x, (c,), w, bias)
            params = [x, w, bias]
        else:
            def f():
                return rms_norm(x, w)
            params = [x, w]
    else:
        # s = 1 is an [N, C] input (BatchNorm1d over features), as models give it
        x = rand((n, c) if sp == 1 else (n, c, sp), dt, dev, grad)
        # cuDNN batch norm keeps fp32 scale and statistics for half inputs
        pdt = torch.float32 if (op == "batch_norm" and dev.type == "cuda") else dt
        w = rand((c,), pdt, dev, grad)
        bias = rand((c,), pdt, dev, grad)
        params = [x, w, bias]
        if op == "batch_norm":
            rm = torch.zeros(c, device=dev, dtype=pdt)
            rv = torch.ones(c, device=dev, dtype=pdt)

            def f():
                return F.batch_norm(x, rm, rv, w, bias, training=True)
        else:
            g = s["groups"]
            if not g or c % g:
                raise RowError("group norm needs groups dividing c (%d, %d)" % (g, c))

            def f():
                return F.group_norm(x, g, w, bias)
    if not grad:
        return f, None
    out = f()
    gy = torch.randn_like(out)
    return (lambda: torch.autograd.grad(out, params, gy, retain_graph=True)), None


def build_embedding(s, prec, pas, dev):
    dt = dtype_of(prec)
    grad = pas == "bwd"
    w = rand((s["rows"], s["dim"]), dt, dev, grad)
    idx = torch.randint(0, s["rows"], (s["batch"], s["lookups"]), device=dev)
    F = torch.nn.functional
    if s["op"] == "embedding":
        def f():
            return F.embedding(idx, w)
    else:
        mode = s["mode"]
        if mode not in ("sum", "mean", "max"):
            raise RowError("embedding_bag mode %r is not sum, mean or max" % mode)

        def f():
            return F.embedding_bag(idx, w, mode=mode)
    if not grad:
        return f, None
    out = f()
    gy = torch.randn_like(out)
    return (lambda: torch.autograd.grad(out, [w], gy, retain_graph=True)), None


def eltwise_bytes(op, n, es):
    if op in ("add", "mul"):
        return 3 * n * es
    if op in ("sum", "mean", "max"):
        return n * es + es
    if op == "dropout":
        return 2 * n * es + n  # plus the one-byte mask
    return 2 * n * es


def build_eltwise(s, prec, _pass, dev):
    dt = dtype_of(prec)
    n, op = s["elements"], s["op"]
    x = rand((n,), dt, dev)
    F = torch.nn.functional
    if op in ("add", "mul", "copy"):
        y = rand((n,), dt, dev)
    fns = {
        "copy": lambda: y.copy_(x),
        "add": lambda: torch.add(x, y),
        "mul": lambda: torch.mul(x, y),
        "relu": lambda: torch.relu(x),
        "gelu": lambda: F.gelu(x),
        "sigmoid": lambda: torch.sigmoid(x),
        "tanh": lambda: torch.tanh(x),
        "dropout": lambda: F.dropout(x, 0.1, training=True),
        "softmax": lambda: torch.softmax(x.view(-1, min(n, 1024)), dim=-1),
        "sum": lambda: x.sum(),
        "mean": lambda: x.mean(),
        "max": lambda: x.max(),
    }
    if op in fns:
        return fns[op], None
    # another operator of a shapes file: torch.<op> on one tensor, else on
    # two; bytes are its inputs and output
    f = getattr(torch, op, None)
    if not callable(f):
        try:
            f = getattr(torch.ops.aten, op)
        except (AttributeError, RuntimeError):
            f = None
    if f is None:
        raise RowError("elementwise op %r is neither one of %s nor a torch function"
                       % (op, ",".join(ELTWISE_OPS)))
    y = rand((n,), dt, dev)
    # one tensor, two, or two and a scalar (threshold_backward and the like)
    for args in ((x,), (x, y), (x, y, 0)):
        try:
            out = f(*args)
        except (RuntimeError, TypeError):
            continue
        if isinstance(out, torch.Tensor):
            es = x.element_size()
            nt = sum(isinstance(a, torch.Tensor) for a in args)
            nbytes = nt * n * es + out.numel() * out.element_size()
            return (lambda: f(*args)), None, {"bytes": nbytes}
    raise RowError("torch.%s takes neither one nor two tensors of %d elements (with a scalar)"
                   % (op, n))


OPT_BYTES = {"sgd": 3, "sgd_momentum": 5, "adam": 7, "adamw": 7}


def build_optimizer(s, prec, _pass, dev):
    dt = dtype_of(prec)
    op, form, P, T = s["op"], s["form"], s["params"], s["tensors"]
    if op not in OPT_BYTES:
        raise RowError("optimizer %r is not sgd, sgd_momentum, adam or adamw" % op)
    per = max(1, P // T)
    ps = []
    for _ in range(T):
        p = torch.nn.Parameter(rand((per,), dt, dev))
        p.grad = rand((per,), dt, dev)
        ps.append(p)
    kw = {}
    if form == "foreach":
        kw["foreach"] = True
    elif form == "fused":
        kw["fused"] = True
    elif form == "single":
        kw["foreach"] = False
    else:
        raise RowError("optimizer form %r is not single, foreach or fused" % form)
    O = torch.optim
    try:
        if op in ("sgd", "sgd_momentum"):
            opt = O.SGD(ps, lr=1e-3, momentum=0.9 if op == "sgd_momentum" else 0, **kw)
        elif op == "adam":
            opt = O.Adam(ps, lr=1e-3, **kw)
        else:
            opt = O.AdamW(ps, lr=1e-3, **kw)
        opt.step()
    except (TypeError, RuntimeError, ValueError) as e:
        raise RowError("torch %s has no %s %s step here: %s"
                       % (torch.__version__, form, op, first_line(e)))
    return opt.step, None


def build_resample(s, prec, pas, dev):
    """The forward through F.interpolate; the backward as the aten op the
    autograd node calls (aten::upsample_*_backward: it zeroes the input's
    gradient, then adds into it), so that no autograd bookkeeping is timed."""
    op, dims = s["op"], RESAMPLE_OPS.get(s["op"])
    if dims is None:
        raise RowError("resample op %r: expected one of %s" % (op, ",".join(RESAMPLE_OPS)))
    side_out = round(s["out"] ** (1.0 / dims))
    side_in = round(s["in"] ** (1.0 / dims))
    if side_out ** dims != s["out"] or side_in ** dims != s["in"]:
        raise RowError("out %d and in %d are not %d-D squares" % (s["out"], s["in"], dims))
    dt = dtype_of(prec)
    size_in = [s["n"], s["c"]] + [side_in] * dims
    size_out = [side_out] * dims
    mode = op[len("upsample_"):-2]
    interp = {"nearest": "nearest", "bilinear": "bilinear", "bicubic": "bicubic",
              "trilinear": "trilinear"}[mode]
    F = torch.nn.functional
    if pas == "fwd":
        x = rand(size_in, dt, dev)
        kw = {} if interp == "nearest" else {"align_corners": False}

        def f():
            return F.interpolate(x, size=size_out, mode=interp, **kw)
        return f, None
    gy = rand([s["n"], s["c"]] + size_out, dt, dev)
    bwd = getattr(torch.ops.aten, op + "_backward")
    scales = [None] * dims
    if interp == "nearest":
        def f():
            return bwd(gy, size_out, size_in, *scales)
    else:
        def f():
            return bwd(gy, size_out, size_in, False, *scales)
    return f, None


BUILD = {"gemm": build_gemm, "conv": build_conv, "rnn": build_rnn,
         "attention": build_attention, "norm": build_norm,
         "embedding": build_embedding, "eltwise": build_eltwise,
         "optimizer": build_optimizer, "resample": build_resample}


def first_line(e):
    s = str(e).strip().splitlines()
    return s[0][:200] if s else type(e).__name__


# --------------------------------------------------------------------------
# output tables

def fmt(v):
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return ""
        return "%.6g" % v if abs(v) < 1e-3 else ("%.3f" % v).rstrip("0").rstrip(".")
    return str(v)


def key_of(kind, row):
    return tuple(str(row.get(c, "")) for c in KEYS[kind])


class Table:
    """One <name>_<kind>.csv: the rows already there (for resuming) and an
    append handle flushed after each row."""

    def __init__(self, out, name, kind):
        self.kind = kind
        self.path = os.path.join(out, "%s_%s.csv" % (name, kind))
        self.cols = KEYS[kind] + EXTRA[kind] + TIMING_COLS
        self.done = set()
        self.f = None
        if os.path.exists(self.path):
            self._load()

    def _load(self):
        with open(self.path, newline="", encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines(True)
        if not lines:
            return
        header = next(csv.reader([lines[0]]))
        missing = [c for c in self.cols if c not in header]
        if missing:
            raise InputError("%s:1: error: columns %s missing, expected "
                             "the columns of FORMATS.md; measure into a new --out"
                             % (self.path, ",".join(missing)))
        self.cols = header
        good = [lines[0]]
        for i, line in enumerate(lines[1:], 2):
            fields = next(csv.reader([line])) if line.strip() else []
            if len(fields) != len(header) or not line.endswith("\n"):
                LOG("%s:%d: dropping a row cut short by an earlier stop" % (self.path, i))
                continue
            good.append(line)
            self.done.add(key_of(self.kind, dict(zip(header, fields))))
        if len(good) != len(lines):
            tmp = self.path + ".tmp"
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write("".join(good))
            os.replace(tmp, self.path)

    def write(self, row):
        if self.f is None:
            new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
            self.f = open(self.path, "a", encoding="utf-8", newline="")
            self.w = csv.writer(self.f, lineterminator="\n")
            if new:
                self.w.writerow(self.cols)
        self.w.writerow([fmt(row.get(c, "")) for c in self.cols])
        self.f.flush()
        self.done.add(key_of(self.kind, row))

    def close(self):
        if self.f:
            self.f.close()
            self.f = None


# --------------------------------------------------------------------------
# shapes files (`fom kernels shapes`)

def read_shapes(path):
    """Rows of a `fom kernels shapes` CSV or JSON file, as dicts of strings."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise InputError("%s:%d:%d: error: %s" % (path, e.lineno, e.colno, e.msg))
        rows = doc.get("shapes") if isinstance(doc, dict) else None
        if not isinstance(rows, list):
            raise InputError('%s:1:1: error: no "shapes" array, expected '
                             '{"shapes":[{"kind":...}...]}' % path)
        return [(i + 1, {k: ("" if v is None else str(v)) for k, v in r.items()})
                for i, r in enumerate(rows)]
    rd = csv.DictReader(text.splitlines())
    if not rd.fieldnames or "kind" not in rd.fieldnames:
        raise InputError("%s:1: error: no kind column, expected the CSV of "
                         "`fom kernels shapes --format csv`" % path)
    return [(i + 2, r) for i, r in enumerate(rd)]


INT_COLS = {"m", "n", "k", "batch", "dims", "c", "d", "h", "w", "f_d", "f_h",
            "f_w", "pad_d", "pad_h", "pad_w", "stride_d", "stride_h",
            "stride_w", "dil_d", "dil_h", "dil_w", "groups", "input",
            "hidden", "layers", "seq", "bidirectional", "heads", "q_len",
            "kv_len", "head_dim", "causal", "s", "rows", "dim", "lookups",
            "elements", "params", "tensors", "ranks", "bytes", "out", "in"}
# Cells a shapes row may leave empty, and what they mean.
DEFAULTS = {"batch": 1, "d": 1, "h": 1, "f_d": 1, "f_h": 1, "pad_d": 0,
            "pad_h": 0, "pad_w": 0, "stride_d": 1, "stride_h": 1,
            "stride_w": 1, "dil_d": 1, "dil_h": 1, "dil_w": 1, "groups": 1,
            "layers": 1, "bidirectional": 0, "causal": 0, "tensors": 1,
            "mode": "none", "a_t": "N", "b_t": "N", "layout": "contiguous"}


def shape_from_row(kind, r):
    """The shape dict of a shapes-file row for a table kind."""
    s = {}
    for col in KEYS[kind]:
        if col in ("precision", "pass"):
            continue
        v = (r.get(col) or "").strip()
        if v == "":
            if kind == "conv" and col == "dims":
                v = "3" if (r.get("d") or "1") not in ("", "1") else (
                    "2" if (r.get("h") or "1") not in ("", "1") else "1")
            elif kind == "norm" and col == "groups":
                v = "32" if r.get("op") == "group_norm" else "0"
            elif kind == "eltwise" and col == "op":
                raise ValueError("empty op")
            elif col in DEFAULTS:
                v = str(DEFAULTS[col])
            else:
                raise ValueError("empty %s" % col)
        if col in INT_COLS:
            try:
                fv = float(v)
            except ValueError:
                raise ValueError("%s is %r, expected a number" % (col, v))
            if fv != int(fv) or fv < 0:
                raise ValueError("%s is %r, expected a whole number" % (col, v))
            s[col] = int(fv)
        elif col in ("a_t", "b_t"):
            s[col] = {"0": "N", "1": "T", "n": "N", "t": "T"}.get(v.lower(), v.upper())
            if s[col] not in ("N", "T"):
                raise ValueError("%s is %r, expected N or T" % (col, v))
        else:
            s[col] = v.lower()
    if kind == "eltwise":
        op = re.sub(r"^aten::", "", s["op"]).rstrip("_")
        if not re.match(r"^[a-z][a-z0-9_]*$", op):
            raise ValueError("op %r is not an operator name" % s["op"])
        s["op"] = op
    if kind == "rnn" and s["cell"] not in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
        raise ValueError("cell %r is not lstm, gru, rnn_tanh or rnn_relu" % s["cell"])
    return s


def shapes_cases(path, kinds):
    """{kind: [(shape, 'shapes', precision or None)]} from a shapes file."""
    out = {}
    for line, r in read_shapes(path):
        sk = (r.get("kind") or "").strip().lower()
        kind = SHAPE_KIND.get(sk)
        if kind is None:
            LOG("%s:%d: skipping kind %r: the harness measures %s"
                % (path, line, sk, ",".join(sorted(SHAPE_KIND))))
            continue
        if kind not in kinds:
            continue
        r = dict(r)
        # cells the trace did not say: measure every value they can take
        spread = [r]
        if kind == "attention" and not (r.get("causal") or "").strip():
            spread = [dict(r, causal=v) for v in ("0", "1")]
        if kind == "optimizer":
            op = (r.get("op") or "").strip().lower()
            if op not in OPT_BYTES:
                LOG("%s:%d: skipping optimizer op %r: the optimizer table holds whole steps "
                    "(sgd, sgd_momentum, adam, adamw), which the grid measures" % (path, line, op))
                continue
            if not (r.get("form") or "").strip():
                spread = [dict(r, form=f) for f in ("single", "foreach", "fused")]
        prec = (r.get("precision") or "").strip().lower() or None
        if prec and prec not in PRECISIONS:
            LOG("%s:%d: skipping precision %r: expected one of %s"
                % (path, line, prec, ",".join(PRECISIONS)))
            continue
        for rr in spread:
            try:
                s = shape_from_row(kind, rr)
            except ValueError as e:
                LOG("%s:%d: skipping a %s row: %s" % (path, line, sk, e))
                break
            out.setdefault(kind, []).append((s, "shapes", prec))
    return out


# --------------------------------------------------------------------------
# environment

def run_cmd(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30, universal_newlines=True)
        return p.stdout if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_model(lscpu):
    for line in (lscpu or "").splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(dev, args, precs):
    lscpu = run_cmd(["lscpu"])
    env = {
        "harness": "estimators/measure/measure.py",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "python": platform.python_version(),
        "hostname": socket.gethostname(),
        "host_cpus": os.cpu_count(),
        "cpu": cpu_model(lscpu),
        "lscpu": lscpu,
        "device": str(dev),
        "precisions": precs,
        "grid": args.grid,
        "flush_l2": bool(args.flush_l2),
        "cudnn_benchmark": bool(getattr(args, "cudnn_benchmark", False)) and dev.type == "cuda",
        "argv": sys.argv[1:],
    }
    if dev.type == "cuda":
        p = torch.cuda.get_device_properties(dev)
        env.update({"gpu": p.name, "hw": p.name,
                    "sms": p.multi_processor_count,
                    "gpu_mem": p.total_memory,
                    "gpu_count": torch.cuda.device_count(),
                    "l2_bytes": getattr(p, "L2_cache_size", None),
                    "capability": "%d.%d" % (p.major, p.minor),
                    "timing": GPU_TIMING})
        if getattr(p, "gcnArchName", None):
            env["gcn_arch"] = p.gcnArchName
        idx = dev.index if dev.index is not None else 0
        if shutil.which("nvidia-smi"):
            env["nvidia_smi"] = run_cmd([
                "nvidia-smi", "-i", str(idx), "--format=csv",
                "--query-gpu=name,clocks.max.sm,clocks.max.memory,clocks.sm,"
                "clocks.mem,power.limit,driver_version,pci.bus_id"])
            env["nvidia_smi_q"] = run_cmd(["nvidia-smi", "-q", "-i", str(idx)])
            env["nvidia_smi_topo"] = run_cmd(["nvidia-smi", "topo", "-m"])
            q = env["nvidia_smi"] or ""
            rows = list(csv.reader(q.splitlines()))
            if len(rows) == 2:
                vals = dict(zip([h.strip() for h in rows[0]], [v.strip() for v in rows[1]]))
                env["clocks"] = {k: v for k, v in vals.items() if k.startswith("clocks")}
                env["driver"] = vals.get("driver_version")
        if shutil.which("rocm-smi"):
            env["rocm_smi"] = run_cmd(["rocm-smi", "--showproductname", "--showclocks",
                                       "--showmaxpower", "--showdriverversion"])
    else:
        env["hw"] = env["cpu"]
        env["threads"] = torch.get_num_threads()
        env["timing"] = "monotonic clock around each call"
    return env


def check_env(out, env):
    """Refuse to mix two machines' rows in one folder."""
    path = os.path.join(out, "env.json")
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                old = json.load(f)
        except ValueError:
            old = {}
        if old.get("hw") and old.get("hw") != env["hw"]:
            raise InputError("%s: error: the folder holds rows of %r, this is %r; "
                             "use another --out" % (path, old["hw"], env["hw"]))
        if old.get("hw") and old.get("timing") != env.get("timing"):
            raise InputError("%s: error: the folder holds rows timed %s, this harness times "
                             "them %s; use another --out" % (
                                 path, repr(old["timing"]) if old.get("timing") else
                                 "by an earlier harness (no \"timing\" in env.json)",
                                 repr(env.get("timing"))))
        if old.get("hw") and bool(old.get("cudnn_benchmark")) != bool(env.get("cudnn_benchmark")):
            raise InputError("%s: error: the folder holds rows with cudnn benchmark %s, this "
                             "run has it %s; use another --out" % (
                                 path, "on" if old.get("cudnn_benchmark") else "off",
                                 "on" if env.get("cudnn_benchmark") else "off"))
        env["first_date"] = old.get("first_date", old.get("date"))
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(env, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def default_name(out, dev):
    base = re.sub(r"[^a-z0-9-]+", "-", os.path.basename(os.path.abspath(out)).lower()).strip("-")
    if base:
        return base
    return "cpu" if dev.type == "cpu" else "gpu"


# --------------------------------------------------------------------------
# the run

class Stats:
    def __init__(self):
        self.rows = {}      # (kind, precision) → measured rows
        self.failed = {}    # kind → failed rows
        self.skipped = {}   # kind → rows left for lack of budget
        self.present = {}   # kind → rows already in the output
        self.secs = {}      # kind → seconds

    def add(self, d, k, n=1):
        d[k] = d.get(k, 0) + n


def expand(kind, cases, precs):
    """[(shape, source, precision, pass)] in measuring order."""
    out = []
    for item in cases:
        s, src = item[0], item[1]
        want = [item[2]] if len(item) > 2 and item[2] else precs
        if src.startswith("deepbench"):
            # DeepBench's lists are for comparison with its published
            # fp32 and 16-bit results: fp32 and bf16 only, which keeps
            # the full grid within 10 minutes of one GPU
            want = [p for p in want if p in ("fp32", "bf16")]
        for p in want:
            if p not in precs:
                continue
            for pas in PASSES[kind]:
                out.append((s, src, p, pas))
    # stable sort: the designed grid (or the shapes file) before the
    # DeepBench lists, fp32 and bf16 first, grid order kept within
    out.sort(key=lambda t: (t[1].startswith("deepbench"), PRECISION_ORDER[t[2]]))
    return out


def is_oom(e):
    return "out of memory" in str(e).lower() or type(e).__name__ == "OutOfMemoryError"


def measure_kind(kind, work, table, timer, dev, deadline, stats, progress):
    t_kind = time.time()
    fails_in_row = 0
    last_print = 0.0
    n_total = len(work)
    for i, (s, src, prec, pas) in enumerate(work):
        now = time.time()
        if deadline is not None and now >= deadline:
            stats.add(stats.skipped, kind, n_total - i)
            LOG("%s: budget spent, %d rows left for a rerun with the same --out"
                % (kind, n_total - i))
            break
        if now - last_print >= 2.0 or i == 0:
            last_print = now
            progress(kind, i, n_total, now - t_kind)
        row = dict(s)
        row["precision"] = prec
        if pas is not None:
            row["pass"] = pas
        row["source"] = src
        if key_of(kind, row) in table.done:
            continue
        if dev.type == "cuda":
            set_tf32(prec == "tf32")
        fn = None
        try:
            ctx = None
            built = BUILD[kind](s, prec, pas, dev)
            fn, setup = built[0], built[1]
            if len(built) > 2:
                row.update(built[2])
            if len(built) > 3:
                ctx = built[3]
            with Ctx(ctx):
                r = timer.measure(fn, setup, loop_mean=(kind == "gemm"))
            row.update(r)
            derive(kind, row, prec)
            table.write(row)
            stats.add(stats.rows, (kind, prec))
            fails_in_row = 0
        except (RowError, RuntimeError, ValueError, TypeError, NotImplementedError,
                AssertionError, IndexError) as e:
            stats.add(stats.failed, kind)
            fails_in_row += 1
            LOG("%s %s: skipped: %s" % (kind, row_label(kind, row), first_line(e)))
            if is_oom(e) and dev.type == "cuda":
                fn = None
                torch.cuda.empty_cache()
            if fails_in_row >= 50:
                stats.add(stats.skipped, kind, n_total - i - 1)
                LOG("%s: 50 rows failed in a row; leaving the kind" % kind)
                break
        finally:
            fn = None
    table.close()
    stats.secs[kind] = stats.secs.get(kind, 0) + time.time() - t_kind


def row_label(kind, row):
    return " ".join("%s=%s" % (c, row[c]) for c in KEYS[kind] if c in row)


def derive(kind, row, prec):
    t = row["time_us"]
    es = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2}[prec]
    if kind == "gemm":
        row["tflops"] = 2.0 * row["m"] * row["n"] * row["k"] * row["batch"] / t / 1e6
    elif kind == "eltwise":
        if "bytes" not in row:
            row["bytes"] = eltwise_bytes(row["op"], row["elements"], es)
        row["gbps"] = row["bytes"] / t / 1e3
    elif kind == "optimizer":
        row["bytes"] = OPT_BYTES[row["op"]] * row["params"] * es
        row["gbps"] = row["bytes"] / t / 1e3


# --------------------------------------------------------------------------
# collectives: one process per GPU, NCCL (RCCL on ROCm)

COMM_OPS = ["all_reduce", "all_gather", "reduce_scatter", "broadcast"]
BUS_FACTOR = {"all_reduce": lambda n: 2.0 * (n - 1) / n,
              "all_gather": lambda n: (n - 1.0) / n,
              "reduce_scatter": lambda n: (n - 1.0) / n,
              "broadcast": lambda n: 1.0}


def comm_sizes(grid):
    if grid == "tiny":
        return pow2(10, 16, 6)
    return pow2(10, 30) if grid == "full" else pow2(10, 26, 2)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def comm_worker(rank, world, port, out_path, cols, done, precs, sizes,
                deadline, opts):
    global torch, np
    import torch as _t
    import numpy as _n
    torch, np = _t, _n
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    backend = "rccl" if getattr(torch.version, "hip", None) else "nccl"
    f = open(out_path, "a", encoding="utf-8", newline="") if rank == 0 else None
    w = csv.writer(f, lineterminator="\n") if f else None
    ag = getattr(dist, "all_gather_into_tensor", None) or dist._all_gather_base
    rs = getattr(dist, "reduce_scatter_tensor", None) or dist._reduce_scatter_base
    flag = torch.zeros(1, device=dev)
    written = 0
    try:
        for prec in precs:
            dt = dtype_of(prec)
            es = torch.tensor([], dtype=dt).element_size()
            for op in COMM_OPS:
                for size in sizes:
                    n = size // es
                    if op in ("all_gather", "reduce_scatter"):
                        n -= n % world  # equal parts per rank
                    nbytes = n * es
                    key = tuple(str(v) for v in (op, world, nbytes, prec))
                    if key in done or n == 0:
                        continue
                    flag.fill_(1.0 if (deadline is None or time.time() < deadline) else 0.0)
                    dist.broadcast(flag, 0)  # rank 0 decides for all
                    if flag.item() == 0:
                        raise StopIteration
                    if op == "all_gather":
                        buf = torch.zeros(n, dtype=dt, device=dev)
                        inp = torch.ones(n // world, dtype=dt, device=dev)
                        fn = (lambda: ag(buf, inp))
                    elif op == "reduce_scatter":
                        inp = torch.ones(n, dtype=dt, device=dev)
                        buf = torch.zeros(n // world, dtype=dt, device=dev)
                        fn = (lambda: rs(buf, inp))
                    elif op == "all_reduce":
                        buf = torch.ones(n, dtype=dt, device=dev)
                        fn = (lambda: dist.all_reduce(buf))
                    else:
                        buf = torch.ones(n, dtype=dt, device=dev)
                        fn = (lambda: dist.broadcast(buf, 0))
                    for _ in range(2):
                        fn()
                    torch.cuda.synchronize()
                    s = torch.cuda.Event(enable_timing=True)
                    e = torch.cuda.Event(enable_timing=True)
                    s.record()
                    fn()
                    e.record()
                    e.synchronize()
                    t1 = torch.tensor([s.elapsed_time(e) / 1e3], device=dev)
                    dist.all_reduce(t1, op=dist.ReduceOp.MAX)
                    reps = int(min(opts["max_reps"], max(opts["min_reps"],
                                                         opts["row_s"] / max(t1.item(), 1e-7))))
                    evs = [(torch.cuda.Event(enable_timing=True),
                            torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
                    for s, e in evs:
                        s.record()
                        fn()
                        e.record()
                    torch.cuda.synchronize()
                    ts = torch.tensor([s.elapsed_time(e) * 1e3 for s, e in evs], device=dev)
                    # a collective ends when its slowest rank ends
                    dist.all_reduce(ts, op=dist.ReduceOp.MAX)
                    if rank == 0:
                        a = ts.cpu().double().numpy()
                        med = float(np.median(a))
                        algbw = nbytes / med / 1e3
                        row = {"op": op, "ranks": world, "bytes": nbytes,
                               "precision": prec, "backend": backend,
                               "algbw_gbs": algbw,
                               "busbw_gbs": algbw * BUS_FACTOR[op](world),
                               "time_us": med, "time_us_min": float(a.min()),
                               "time_us_max": float(a.max()),
                               "time_us_p05": float(np.percentile(a, 5)),
                               "time_us_p95": float(np.percentile(a, 95)),
                               "reps": reps, "source": "grid"}
                        w.writerow([fmt(row.get(c, "")) for c in cols])
                        f.flush()
                        written += 1
                    del buf
                    fn = None
    except StopIteration:
        if rank == 0:
            print("measure: comm: budget spent at %d ranks" % world, file=sys.stderr)
    finally:
        if f:
            f.close()
        dist.destroy_process_group()
    if rank == 0:
        with open(out_path + ".count", "w") as cf:
            cf.write(str(written))


def measure_comm(args, table, precs, deadline, stats):
    t0 = time.time()
    ngpu = torch.cuda.device_count()
    if ngpu < 2:
        LOG("comm: %d GPU here; collectives need 2 or more, none measured" % ngpu)
        return
    if not torch.distributed.is_available() or not torch.distributed.is_nccl_available():
        LOG("comm: this torch has no NCCL; no collectives measured")
        return
    import torch.multiprocessing as mp
    # make sure the file and its header exist before the ranks append
    if not os.path.exists(table.path) or os.path.getsize(table.path) == 0:
        with open(table.path, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerow(table.cols)
    sizes = comm_sizes(args.grid)
    opts = {"min_reps": args.min_reps, "max_reps": args.max_reps,
            "row_s": args.row_ms / 1e3}
    ranks = list(range(2, ngpu + 1))
    for i, world in enumerate(ranks):
        if deadline is not None and time.time() >= deadline:
            LOG("comm: budget spent before %d ranks" % world)
            break
        # each rank count gets an equal part of what is left
        dl = None if deadline is None else time.time() + (deadline - time.time()) / (len(ranks) - i)
        LOG("comm: %d ranks" % world)
        cnt = table.path + ".count"
        if os.path.exists(cnt):
            os.remove(cnt)
        try:
            mp.spawn(comm_worker, nprocs=world, join=True,
                     args=(world, free_port(), table.path, table.cols, table.done,
                           precs, sizes, dl, opts))
        except Exception as e:  # a rank failed: log, go on with the next count
            stats.add(stats.failed, "comm")
            LOG("comm: %d ranks failed: %s" % (world, first_line(e)))
        if os.path.exists(cnt):
            with open(cnt) as f:
                n = int(f.read() or 0)
            os.remove(cnt)
            stats.add(stats.rows, ("comm", "/".join(precs)), n)
    stats.secs["comm"] = time.time() - t0


# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="measure.py",
        description="Measure fom kernel tables on this machine (see README.md).")
    ap.add_argument("--device", default=None,
                    help="cuda:N or cpu (default: cuda:0 when a GPU is present, else cpu)")
    ap.add_argument("--grid", choices=["tiny", "small", "full", "depthwise", "dense-layouts", "dilated", "conv3d",
                                       "depthwise3d", "grouped", "norm2d", "norm-rows", "norm-batch", "batched-small",
                                       "batched-long", "embedding-tokens", "head-dims", "conv1d"],
                    default="small",
                    help="designed grids of every kind, or the depthwise, the grouped, the dilated, the 3-D, the 3-D depthwise or "
                         "the full grid's dense 2-D convolutions in both memory layouts (--kinds conv), or "
                         "batch norms over [N, C] inputs (norm2d, --kinds norm), or layer and RMS norms over "
                         "many short rows (norm-rows, --kinds norm), or batch and group norms of 4-D "
                         "activations at batches 12 to 6,144 (norm-batch, --kinds norm), or small matrices in "
                         "batches of thousands to millions (batched-small, --kinds gemm), or "
                         "batched products with one side of 512 to 8,192 and two of 1 to 256 "
                         "(batched-long, --kinds gemm), or plain embeddings of 256 to 4M indices "
                         "(embedding-tokens, --kinds embedding), or "
                         "attention at head dims 16, 32, 80 and 96 (head-dims, --kinds attention)")
    ap.add_argument("--kinds", default=None,
                    help="comma list among %s (default: all; comm needs 2+ GPUs)" % ",".join(KINDS))
    ap.add_argument("--precisions", default=None,
                    help="comma list among fp32,tf32,bf16,fp16 (default: every one the device supports)")
    ap.add_argument("--shapes", default=None,
                    help="measure exactly the rows of this `fom kernels shapes` CSV or JSON file")
    ap.add_argument("--out", required=True, help="output folder (created; reruns resume)")
    ap.add_argument("--name", default=None,
                    help="file prefix <name>_<kind>.csv (default: the --out folder's name)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run; rows not reached are left for a rerun")
    ap.add_argument("--cudnn-benchmark", action="store_true",
                    help="let cuDNN time its algorithms per shape (torch.backends.cudnn."
                         "benchmark = True) as training scripts that set it do; the "
                         "default is PyTorch's: cuDNN's heuristics pick")
    ap.add_argument("--flush-l2", action="store_true",
                    help="write a buffer twice the last-level cache before each timed call")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads (torch.set_num_threads)")
    ap.add_argument("--min-reps", type=int, default=5, help="timed calls per row, at least (5)")
    ap.add_argument("--max-reps", type=int, default=50, help="timed calls per row, at most (50)")
    ap.add_argument("--row-ms", type=float, default=10.0,
                    help="aim for this much timed work per row, within the rep bounds (10)")
    a = ap.parse_args(argv)
    if a.min_reps < 1 or a.max_reps < a.min_reps:
        ap.error("need 1 <= --min-reps <= --max-reps")
    if a.budget is not None and a.budget <= 0:
        ap.error("--budget must be positive seconds")
    if a.threads is not None and a.threads < 1:
        ap.error("--threads must be at least 1")
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except InputError as e:
        print("measure: %s" % e, file=sys.stderr)
        return 2


# The grids of one kind: (the kind, what it measures).
GRID_KIND = {g: ("conv", "convolutions") for g in ("depthwise", "dense-layouts", "dilated", "conv3d",
                                                    "depthwise3d", "grouped")}
GRID_KIND["norm2d"] = ("norm", "batch norms")
GRID_KIND["norm-rows"] = ("norm", "layer and RMS norms over short rows")
GRID_KIND["norm-batch"] = ("norm", "batch and group norms at training batches")
GRID_KIND["batched-small"] = ("gemm", "batched GEMMs")
GRID_KIND["batched-long"] = ("gemm", "batched GEMMs with one long side")
GRID_KIND["embedding-tokens"] = ("embedding", "plain embeddings of many indices")
GRID_KIND["head-dims"] = ("attention", "attention at head dims besides 64 and 128")


def run(args):
    global torch, np, LOG
    t_start = time.time()
    deadline = None if args.budget is None else t_start + args.budget
    # what can be checked without torch first: loading it takes seconds
    kinds = KINDS if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        print("measure: error: --kinds %s: expected some of %s" % (",".join(bad) or "''", ",".join(KINDS)),
              file=sys.stderr)
        return 2
    if args.grid in GRID_KIND and kinds != [GRID_KIND[args.grid][0]]:
        kind, what = GRID_KIND[args.grid]
        print("measure: error: --grid %s measures %s: give --kinds %s" % (args.grid, what, kind),
              file=sys.stderr)
        return 2
    if args.device == "cpu" and "comm" in kinds and args.kinds is not None:
        print("measure: error: --kinds comm needs --device cuda:N on a host of 2+ GPUs",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    LOG = Log(os.path.join(args.out, "measure.log"))
    shape_rows = None
    if args.shapes:
        try:
            shape_rows = shapes_cases(args.shapes, kinds)
        except OSError as e:
            print("measure: error: %s: %s" % (args.shapes, e.strerror), file=sys.stderr)
            return 2
    try:
        import numpy
        import torch as _torch
    except ImportError as e:
        print("measure: error: %s; the harness needs PyTorch and numpy" % e, file=sys.stderr)
        return 3
    torch, np = _torch, numpy
    dev_s = args.device or ("cuda:0" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(dev_s)
    except RuntimeError:
        print("measure: error: --device %r, expected cuda:N or cpu" % dev_s, file=sys.stderr)
        return 2
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            print("measure: error: --device %s but this torch sees no GPU" % dev_s, file=sys.stderr)
            return 2
        if dev.index is None:
            dev = torch.device("cuda", 0)
        if dev.index >= torch.cuda.device_count():
            print("measure: error: --device %s but there are %d GPUs"
                  % (dev_s, torch.cuda.device_count()), file=sys.stderr)
            return 2
        torch.cuda.set_device(dev)
        # PyTorch's default (off) is what a model runs with unless its script
        # turns it on; autotuning also costs more per row than the timing.
        torch.backends.cudnn.benchmark = bool(args.cudnn_benchmark)
    elif dev.type != "cpu":
        print("measure: error: --device %r, expected cuda:N or cpu" % dev_s, file=sys.stderr)
        return 2
    if args.threads:
        if dev.type != "cpu":
            print("measure: error: --threads is for --device cpu", file=sys.stderr)
            return 2
        torch.set_num_threads(args.threads)
    if dev.type == "cpu" and "comm" in kinds and args.kinds is not None:
        print("measure: error: --kinds comm needs --device cuda:N on a host of 2+ GPUs",
              file=sys.stderr)
        return 2

    have = supported_precisions(dev)
    if args.precisions is None:
        precs = have
    else:
        precs = [p.strip() for p in args.precisions.split(",") if p.strip()]
        bad = [p for p in precs if p not in PRECISIONS]
        if bad or not precs:
            print("measure: error: --precisions %s: expected some of %s"
                  % (",".join(bad) or "''", ",".join(PRECISIONS)), file=sys.stderr)
            return 2
        nosup = [p for p in precs if p not in have]
        if nosup:
            print("measure: error: --precisions %s: %s supports %s"
                  % (",".join(nosup), dev, ",".join(have)), file=sys.stderr)
            return 2


    env = environment(dev, args, precs)
    check_env(args.out, env)
    name = args.name or default_name(args.out, dev)
    LOG("%s (%s), torch %s, precisions %s, grid %s%s, out %s/%s_*.csv"
        % (env["hw"], dev, torch.__version__, ",".join(precs),
           "shapes file" if args.shapes else args.grid,
           "" if deadline is None else ", budget %.0f s" % args.budget, args.out, name))

    timer = Timer(dev, args)
    stats = Stats()
    plan = []
    for kind in kinds:
        if kind == "comm":
            if shape_rows is None and dev.type == "cuda":
                if torch.cuda.device_count() >= 2:
                    plan.append((kind, None))
                else:  # no share of --budget kept for it
                    LOG("comm: 1 GPU visible; collectives need 2 or more, none measured")
            elif dev.type == "cpu":
                LOG("comm: collectives are measured between GPUs; none on the CPU")
            else:
                LOG("comm: not in shapes files; measured with the grid only")
            continue
        kp = [p for p in precs if p in KIND_PRECISIONS[kind]]
        if shape_rows is not None:
            cases = shape_rows.get(kind, [])
        else:
            cases = CASES[kind](args.grid)
        plan.append((kind, expand(kind, cases, kp)))
    tables = {k: Table(args.out, name, k) for k, _ in plan}
    for kind, work in plan:
        if work is not None:
            left = [w for w in work if key_of(kind, dict(w[0], precision=w[2], **({"pass": w[3]} if w[3] else {}))) not in tables[kind].done]
            stats.present[kind] = len(work) - len(left)
    total_left = sum(len(w) for _, w in plan if w is not None) - sum(stats.present.values())

    done_rows = [0]

    def progress(kind, i, n, secs):
        el = time.time() - t_start
        msg = "%s: %d/%d rows, %.0f s in kind, %.0f s elapsed" % (kind, i, n, secs, el)
        if done_rows[0] + i > 0 and total_left > 0:
            eta = el / max(1, done_rows[0] + i) * max(0, total_left - done_rows[0] - i)
            if deadline is not None:
                eta = min(eta, max(0.0, deadline - time.time()))
            msg += ", ETA %.0f s" % eta
        print("measure: " + msg, file=sys.stderr, flush=True)

    for idx, (kind, work) in enumerate(plan):
        kdl = None
        if deadline is not None:
            rest = sum(BUDGET_WEIGHT[k] for k, _ in plan[idx:])
            kdl = time.time() + max(0.0, deadline - time.time()) * BUDGET_WEIGHT[kind] / rest
        if kind == "comm":
            measure_comm(args, tables[kind],
                         [p for p in precs if p in KIND_PRECISIONS["comm"]], kdl, stats)
            continue
        todo = [w for w in work if key_of(kind, dict(w[0], precision=w[2], **({"pass": w[3]} if w[3] else {}))) not in tables[kind].done]
        measure_kind(kind, todo, tables[kind], timer, dev, kdl, stats, progress)
        done_rows[0] += len(todo)
        if dev.type == "cuda":
            torch.cuda.empty_cache()

    summary(stats, plan, time.time() - t_start, args.out, timer.requeued)
    return 0


def summary(stats, plan, secs, out, requeued=0):
    lines = ["summary (%s):" % out,
             "  %-10s %-9s %6s %8s %7s %7s %8s" % ("kind", "precision", "rows", "present",
                                                  "failed", "left", "seconds")]
    for kind, _ in plan:
        precs = sorted({p for k, p in stats.rows if k == kind},
                       key=lambda p: PRECISION_ORDER.get(p, 9))
        first = True
        for p in precs or ["-"]:
            lines.append("  %-10s %-9s %6d %8s %7s %7s %8s" % (
                kind if first else "", p, stats.rows.get((kind, p), 0),
                stats.present.get(kind, 0) if first else "",
                stats.failed.get(kind, 0) if first else "",
                stats.skipped.get(kind, 0) if first else "",
                "%.1f" % stats.secs.get(kind, 0) if first else ""))
            first = False
    lines.append("  %d rows measured in %.1f s (rows: measured now; present: there before; "
                 "left: not reached within --budget)" % (sum(stats.rows.values()), secs))
    if requeued:
        lines.append("  %d chunks of queued calls timed again with a longer device-side wait "
                     "(the host was still queueing when the wait ended)" % requeued)
    for line in lines:
        LOG(line)


if __name__ == "__main__":
    sys.exit(main())
