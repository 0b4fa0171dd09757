import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, n=3):
    if isinstance(t, torch.Tensor):
        return t.detach().float().round(decimals=n).tolist()
    return round(float(t), n)

#%% a training step under CPU autocast with bfloat16: which results are bf16, grads stay float32
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 3))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
x, y = torch.randn(4, 8), torch.tensor([0, 2, 1, 0])
for step in range(3):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = model[0](x)
        a = model[1](h)
        n = model[2](a)
        logits = model[3](n)
        loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, h.dtype, a.dtype, n.dtype, logits.dtype, loss.dtype, r(loss))
print(model[0].weight.grad.dtype, r(model[0].weight.grad[0, :4]))

#%% matmul, conv, softmax, sum and pow under autocast
torch.manual_seed(1)
a, b = torch.randn(3, 4), torch.randn(4, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    mm = a @ b
    bmm = torch.bmm(a[None], b[None])
    conv = F.conv1d(torch.randn(1, 2, 5), torch.randn(3, 2, 2))
    sm = torch.softmax(mm, dim=1)
    s = mm.sum()
    p = mm.pow(2)
    lsm = F.log_softmax(mm, 1)
    e = torch.exp(mm)
    cat = torch.cat([mm, a[:, :2]], 0)
    ad = mm + a[:, :2]
print([t.dtype for t in (mm, bmm, conv, sm, s, p, lsm, e, cat, ad)])
print(r(mm), r(sm))

#%% bfloat16 tensors directly: arithmetic, rounding, conversion and printing
v = torch.tensor([1.0, 1.00390625, 3.14159, 1e-3, 65504.0, 1e38]).to(torch.bfloat16)
print(v, v.float().tolist())
w = v * 3 + 1
print(w, (v / 7).tolist(), v.sum(), v.mean(), v.cumsum(0))
print(torch.finfo(torch.bfloat16).eps, torch.finfo(torch.bfloat16).max, torch.finfo(torch.bfloat16).tiny)
print(torch.tensor([0.1, 0.2], dtype=torch.bfloat16) + torch.tensor([0.3], dtype=torch.float16))
big = torch.arange(300, dtype=torch.bfloat16)
print(big[-3:], big.sum(), (big + 0.5)[255:258])

#%% half precision: overflow, nan handling, mixed with float32 scalars
h = torch.tensor([60000.0, 1e-5, -2.5], dtype=torch.float16)
print(h * 2, h.exp(), (h * 1e-4).tolist(), h.to(torch.int32), torch.isinf(h * 2))
print(h.softmax(0), h.float().softmax(0).half(), F.layer_norm(h[None], (3,)))
print(torch.tensor(1, dtype=torch.float16) / 3, torch.tensor([2.0], dtype=torch.float16) ** 0.5)
