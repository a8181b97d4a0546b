#!/usr/bin/env python3
"""Record the development set: for each model, a Kineto trace of a few
training steps (record_shapes, with_flops) and the step time measured
without the profiler, on one GPU, on the host CPU, or data-parallel over
several GPUs (DDP, one process per GPU, NCCL).

  record.py single --device cuda --tag h100 --out DIR [--models a,b] [--configs gpu|cpu]
  record.py ddp --ranks 2 --tag h100 --out DIR [--models a,b]

Per case it writes <model>_<tag>_<precision>_b<batch>.json.gz (the trace),
.meta.json (batch, precision, step times without and with the profiler,
peak memory) and, for DDP, <model>_<tag>x<ranks>_<precision>_b<batch>.meta.json.
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import MODELS  # noqa: E402

# Per-model batches: (GPU batch, CPU batch).  GPU batches are sizes such
# models are trained at on one 80 GB device; CPU batches keep one step
# within seconds on a 16-core host.
BATCH = {
    "mobilenetv2": (64, 8), "efficientnet": (64, 8), "vit": (64, 8),
    "segnet": (8, 1), "unet3d": (4, 1), "gptmini": (8, 1), "bert": (32, 4),
    "gru": (64, 16), "bilstm": (128, 32), "dlrm": (2048, 256),
    "convnext": (32, 4), "convae": (32, 4), "tcn": (64, 8), "lstmlm": (32, 8), "seq2seq": (32, 4),
    "densenet": (32, 4), "llama": (16, 2), "attnlstm": (64, 16), "twotower": (4096, 512), "cosmoflow": (16, 2),
    "shufflenet": (64, 8), "gcn": (32768, 4096), "mixer": (64, 8), "deepspeech": (32, 4), "regnet": (64, 8),
    "gin": (50000, 5000), "resnext": (64, 8), "swin": (64, 8), "pointnet": (128, 16), "wavenet": (16, 2),
    "dcn": (8192, 1024), "maxvit": (32, 4), "nerf": (65536, 8192), "fno": (16, 2), "conformer": (32, 4),
    "moe": (16, 2), "unet2d": (32, 4), "t5small": (32, 4), "ecgresnet": (128, 16), "gat": (50000, 5000),
    "perceiver": (32, 4), "rnnt": (32, 4), "effnetv2": (64, 8), "r3d": (16, 2), "ncf": (65536, 8192),
    "vqvae": (64, 8), "mamba": (32, 4), "whisper": (16, 2), "yolo": (32, 4), "fttransformer": (4096, 512),
    "sasrec": (256, 32), "deeplab": (16, 2), "convlstm": (16, 2), "schnet": (128, 16), "dit": (128, 16),
    "wav2vec2": (16, 2), "dgcnn": (32, 4), "deepfm": (8192, 1024), "timesformer": (8, 1), "odernn": (256, 32),
    "rwkv": (32, 4), "hyena": (16, 2), "vnet": (4, 1), "autoint": (8192, 1024), "convmixer": (64, 8),
    "deeponet": (2048, 256),
    "mpnn": (128, 16), "lstmcrf": (64, 8), "pointnet2": (32, 4), "tabnet": (8192, 1024), "hifigan": (16, 2),
    "lru": (64, 8), "xdeepfm": (4096, 512), "poolformer": (64, 8), "neox": (16, 2), "slowfast": (32, 4),
    "gpt2moe": (32, 4), "efficientdet": (32, 4), "transformerxl": (32, 4), "gnnsage": (1024, 128), "unetr": (8, 1),
    "uno": (4096, 512), "din": (4096, 512), "qrnn": (64, 8), "resunet3d": (2, 1), "inception": (128, 8),
    "cyclegan": (8, 1), "stylegan2": (32, 2), "tft": (256, 32), "pixelcnn": (64, 4), "nbeats": (1024, 128),
    "dien": (2048, 256), "albert": (32, 4), "meshgraphnet": (4, 1), "mobilevit": (64, 8), "wgangp": (64, 8),
    "detr": (16, 2), "tacotron2": (32, 4), "bst": (2048, 256), "afno": (16, 2), "capsnet": (256, 32),
    "evoformer": (2, 1), "deepcam": (8, 1), "lstnet": (128, 32), "mmoe": (4096, 512), "convtasnet": (8, 2),
    "segformer": (16, 2), "reformer": (4, 1), "nfnet": (64, 4), "egnn": (96, 16), "fibinet": (4096, 512),
    "hrnet": (32, 4), "gnmt": (64, 8), "pna": (512, 64), "gpt2medium": (8, 1), "wide_deep": (8192, 1024),
    "quartznet": (64, 16), "graphormer": (512, 128), "instantngp": (262144, 32768), "raft": (16, 4), "simclr": (256, 32),
    "mae": (128, 16), "glow": (64, 8), "performer": (8, 1), "pointtransformer": (32, 4), "bidaf": (64, 16),
    "pspnet": (16, 2), "edsr": (64, 8), "biggan": (64, 8), "informer": (256, 32), "gptckpt": (16, 2),
    "convnext_nn": (64, 8), "swin_nn": (64, 8), "gru4rec": (512, 64), "resnet3d": (16, 2), "retnet": (8, 1),
    "demucs": (64, 8), "longformer": (8, 1), "x3d": (32, 4), "pinn": (16384, 2048), "fnet": (32, 4),
    "resnest": (32, 4), "deberta": (8, 1), "lstmp": (64, 8), "youtubednn": (8192, 1024), "transolver": (4, 1),
    "ghostnet": (128, 16), "bloom": (8, 1), "slstm": (64, 8), "finalmlp": (8192, 1024), "mednext": (2, 1),
    "mistral": (16, 2), "crnn": (512, 64), "s4d": (256, 32), "electra": (256, 32), "cgcnn": (4096, 512),
    "candletc1": (64, 8), "combo": (2048, 256), "st1": (512, 64), "levit": (256, 16), "dcrnn": (64, 16),
    "p1b1": (128, 16), "candleattn": (1024, 128), "mobilenetv3": (128, 16), "convnextv2": (64, 8), "esm": (32, 2),
    "p3b2": (1024, 128), "p2b1": (2048, 256), "pvtv2": (128, 8), "gptj": (8, 1), "bert4rec": (256, 16),
    "p3b3": (256, 16), "p3b4": (128, 8), "dimenet": (128, 8), "tabtransformer": (4096, 512), "unetpp": (16, 2),
    "charcnn": (128, 16), "xception": (128, 8), "patchtst": (32, 4), "gmlp": (32, 8), "srgnn": (512, 64),
    "squeezenet": (256, 32), "siren": (262144, 32768), "dcnv2": (8192, 1024), "bart": (16, 2), "indrnn": (128, 16),
    "kan": (1024, 128), "word2vec": (32768, 4096), "vgg16": (64, 4), "dqn": (512, 64), "linformer": (8, 1),
    "mind": (4096, 512), "ecapa": (256, 32), "fno3d": (16, 2), "byol": (256, 32), "clip": (256, 32),
    "stn": (256, 32), "nystromformer": (32, 4), "snn": (64, 8), "maml": (8, 1), "fastspeech2": (48, 6),
}


def summary(xs):
    s = sorted(xs)
    n = len(s)
    q = lambda p: s[min(n - 1, max(0, int(round(p * (n - 1)))))]
    return {"median": statistics.median(s), "min": s[0], "max": s[-1],
            "mean": statistics.fmean(s), "p05": q(0.05), "p95": q(0.95), "all": s}


def make_opt(name, params):
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-4)
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-4)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    return torch.optim.SGD(params, lr=1e-3, momentum=0.9)


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


class Case:
    def __init__(self, name, batch, precision, dev, ddp_rank=None):
        build = MODELS[name][0]
        model, make, self.loss_fn, self.opt_name = build(batch, dev)
        model = model.to(dev).train()
        self.params = sum(p.numel() for p in model.parameters())
        if ddp_rank is not None:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[ddp_rank])
        self.model, self.dev, self.precision = model, dev, precision
        self.opt = make_opt(self.opt_name, model.parameters())
        self.x, self.y = make()   # one synthetic batch, reused: no data loading in the step

    def step(self):
        ac = torch.autocast(device_type=self.dev.type, dtype=torch.bfloat16,
                            enabled=self.precision == "bf16")
        with ac:
            out = self.model(self.x)
            loss = self.loss_fn(out.float(), self.y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()

    def timed(self, n):
        ts = []
        for _ in range(n):
            sync(self.dev)
            t0 = time.perf_counter()
            self.step()
            sync(self.dev)
            ts.append(time.perf_counter() - t0)
        return ts


def env_info(dev):
    info = {"torch": torch.__version__, "python": platform.python_version(),
            "host": platform.node(), "cpu_count": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if dev.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(dev)
        info["cuda"] = torch.version.cuda
        info["cudnn"] = torch.backends.cudnn.version()
    return info


def record_single(name, batch, precision, dev, tag, out, warm, timed, active):
    case = Case(name, batch, precision, dev)
    for _ in range(warm):
        case.step()
    if dev.type == "cuda":
        sync(dev)
        torch.cuda.reset_peak_memory_stats(dev)
    times = case.timed(timed)
    peak = torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else None
    acts = [torch.profiler.ProfilerActivity.CPU]
    if dev.type == "cuda":
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    base = f"{name}_{tag}_{precision}_b{batch}"
    raw = os.path.join(out, base + ".json")
    prof_times = []
    # the trace is written when the schedule's active steps end
    with torch.profiler.profile(activities=acts, record_shapes=True, with_flops=True,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=active),
                                on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(1 + active):
            sync(dev)
            t0 = time.perf_counter()
            case.step()
            sync(dev)
            prof_times.append(time.perf_counter() - t0)
            prof.step()
    with open(raw, "rb") as fi, gzip.open(raw + ".gz", "wb", compresslevel=9) as fo:
        shutil.copyfileobj(fi, fo)
    os.remove(raw)
    meta = {"tag": base, "model": name, "note": MODELS[name][1], "device": dev.type,
            "precision": precision, "batch": batch, "optimizer": case.opt_name,
            "params": case.params, "profiled_steps": active, "timed_steps": timed,
            "step_time_s": summary(times),
            "profiled_step_time_s": summary(prof_times[1:]),
            "cpu_threads": torch.get_num_threads()}
    if peak is not None:
        meta["max_memory_allocated_bytes"] = peak
    meta.update(env_info(dev))
    with open(os.path.join(out, base + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{base}: step {meta['step_time_s']['median']*1e3:.2f} ms, profiled "
          f"{meta['profiled_step_time_s']['median']*1e3:.2f} ms", flush=True)
    del case
    if dev.type == "cuda":
        torch.cuda.empty_cache()


def cmd_single(a):
    dev = torch.device(a.device)
    if a.threads:
        torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        gb, cb = BATCH[name]
        if dev.type == "cuda":
            cases = [("fp32", gb), ("bf16", gb), ("bf16", 2 * gb)]
            warm, timed, active = 5, 15, a.active
        else:
            cases = [("fp32", cb)]
            warm, timed, active = 2, 5, 1
        for prec, b in cases:
            try:
                record_single(name, b, prec, dev, a.tag, a.out, warm, timed, active)
            except Exception as e:  # a failing case is logged, never aborts the set
                print(f"{name} {prec} b{b}: failed: {e!r}", file=sys.stderr, flush=True)
                if dev.type == "cuda":
                    torch.cuda.empty_cache()


def ddp_worker(rank, ranks, a, port):
    import torch.distributed as dist
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("nccl", rank=rank, world_size=ranks)
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    for name in a.models.split(","):
        gb = BATCH[name][0]
        for prec in a.precisions.split(","):
            try:
                case = Case(name, gb, prec, dev, ddp_rank=rank)
                for _ in range(5):
                    case.step()
                dist.barrier()
                times = case.timed(15)
                if rank == 0:
                    base = f"{name}_{a.tag}x{ranks}_{prec}_b{gb}"
                    meta = {"tag": base, "model": name, "note": MODELS[name][1],
                            "device": "cuda", "ranks": ranks, "precision": prec,
                            "batch_per_device": gb, "batch": gb * ranks,
                            "optimizer": case.opt_name, "params": case.params,
                            "ddp_bucket_cap_mb": 25, "timed_steps": 15,
                            "single_trace": f"{name}_{a.tag}_{prec}_b{gb}.json.gz",
                            "step_time_s": summary(times)}
                    meta.update(env_info(dev))
                    with open(os.path.join(a.out, base + ".meta.json"), "w") as f:
                        json.dump(meta, f, indent=1)
                    print(f"{base}: step {meta['step_time_s']['median']*1e3:.2f} ms", flush=True)
                del case
                torch.cuda.empty_cache()
            except Exception as e:
                print(f"rank {rank} {name} {prec}: failed: {e!r}", file=sys.stderr, flush=True)
    dist.destroy_process_group()


def cmd_ddp(a):
    import torch.multiprocessing as mp
    os.makedirs(a.out, exist_ok=True)
    mp.spawn(ddp_worker, args=(a.ranks, a, 29500 + a.ranks), nprocs=a.ranks, join=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("single")
    s.add_argument("--device", default="cuda")
    s.add_argument("--threads", type=int, default=0)
    s.add_argument("--active", type=int, default=2, help="profiled steps on a GPU (default 2)")
    d = sub.add_parser("ddp")
    d.add_argument("--ranks", type=int, required=True)
    d.add_argument("--precisions", default="fp32")
    for p in (s, d):
        p.add_argument("--tag", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args()
    if a.cmd == "single":
        cmd_single(a)
    else:
        cmd_ddp(a)


if __name__ == "__main__":
    main()
