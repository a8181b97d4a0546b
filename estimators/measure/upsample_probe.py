"""Time PyTorch's 2-D upsampling kernels over splits of planes (N x C) and
output pixels, forward and backward, fp32 and bf16: which of the two sets a
call's time."""
import json, sys, time, torch
import torch.nn.functional as F
dev = torch.device("cuda:0")
out = []
def timed(f, reps=20):
    for _ in range(3): f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) * 1e3)
    ts.sort(); return ts[len(ts) // 2], ts[0]
for mode in ("bilinear", "nearest", "bicubic"):
    for dt in (torch.float32, torch.bfloat16):
        for nc in (16, 64, 256, 1024, 4096):
            for hw_out in (32, 64, 128, 256, 512):
                for scale in (2, 4, 8):
                    hin = hw_out // scale
                    if hin < 2 or nc * hw_out * hw_out > (1 << 28): continue
                    n = 16 if nc >= 16 else 1
                    x = torch.randn(n, nc // n, hin, hin, device=dev, dtype=dt, requires_grad=True)
                    kw = {} if mode == "nearest" else {"align_corners": False}
                    y = F.interpolate(x, scale_factor=scale, mode=mode, **kw)
                    g = torch.randn_like(y)
                    fwd = timed(lambda: F.interpolate(x, scale_factor=scale, mode=mode, **kw))
                    bwd = timed(lambda: torch.autograd.grad(y, x, g, retain_graph=True))
                    out.append({"mode": mode, "dtype": str(dt).split(".")[-1], "n": n, "c": nc // n,
                                "h_in": hin, "h_out": hw_out, "fwd_us": fwd[0], "fwd_min_us": fwd[1],
                                "bwd_us": bwd[0], "bwd_min_us": bwd[1]})
                    print(out[-1], flush=True)
json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "rows": out},
          open(sys.argv[1], "w"), indent=0)
