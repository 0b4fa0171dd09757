import io

import torch
import torch.nn as nn

#%% fp8 weight storage: per-tensor scale, cast, dequantise, compare
torch.manual_seed(0)
lin = nn.Linear(16, 8)
w = lin.weight.detach()
scale = w.abs().max() / torch.finfo(torch.float8_e4m3fn).max
w8 = (w / scale).to(torch.float8_e4m3fn)
deq = w8.to(torch.float32) * scale
print(w8.dtype, w8.element_size(), w8.shape, f"{(deq - w).abs().max().item():.6f}")
x = torch.randn(3, 16)
print(torch.allclose(x @ deq.t(), x @ w.t(), atol=0.1), (x @ deq.t()).round(decimals=3)[0].tolist())

#%% block-wise scales as fp8 checkpoints store them (128x128 blocks here 4x4)
torch.manual_seed(1)
W = torch.randn(8, 8) * 3
blocks = W.reshape(2, 4, 2, 4).permute(0, 2, 1, 3)
s = blocks.abs().amax(dim=(-1, -2), keepdim=True) / 448.0
q = (blocks / s).to(torch.float8_e4m3fn)
back = (q.float() * s).permute(0, 2, 1, 3).reshape(8, 8)
print(q.view(torch.uint8).flatten()[:12].tolist(), f"{(back - W).abs().max().item():.5f}")
print(s.flatten().tolist())

#%% the five formats: limits and how edge values land
vals = torch.tensor([0.1, 1.5, 300.0, -2.25, 1e-3, 1000.0, float("inf"), float("nan")])
for dt in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz):
    fi = torch.finfo(dt)
    y = vals.to(dt)
    print(dt, fi.max, fi.eps, fi.tiny, y.float().tolist(), y.view(torch.uint8).tolist())
print(vals.abs().to(torch.float8_e8m0fnu).float().tolist())

#%% fp8 tensors in checkpoints, views, slicing and printing
t = torch.linspace(-4, 4, 9).to(torch.float8_e5m2)
buf = io.BytesIO()
torch.save({"t": t, "scale": torch.tensor(0.5)}, buf)
buf.seek(0)
r = torch.load(buf, weights_only=True)
print(r["t"].dtype, torch.equal(r["t"].view(torch.uint8), t.view(torch.uint8)))
print(t)
print(t[::2].float().tolist(), t.reshape(3, 3).t().contiguous().view(torch.uint8).tolist())
print(torch.cat([t, t[:3]]).shape, t.clone().dtype, t.new_zeros(2))
for other in (torch.float32, torch.int64):
    try:
        torch.promote_types(torch.float8_e5m2, other)
    except RuntimeError as e:
        print(e)
