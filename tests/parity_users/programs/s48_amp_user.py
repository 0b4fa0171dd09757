import torch
import torch.nn as nn
import torch.nn.functional as F
#%% autocast dtypes of common ops
torch.manual_seed(0)
a, b = torch.randn(4, 4), torch.randn(4, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    outs = {
        "mm": a @ b, "add": a + b, "relu": F.relu(a), "softmax": F.softmax(a, -1), "log_softmax": F.log_softmax(a, -1),
        "linear": F.linear(a, b), "sum": (a @ b).sum(), "exp": a.exp(), "layer_norm": F.layer_norm(a @ b, (4,)),
        "ce": F.cross_entropy(a @ b, torch.tensor([0, 1, 2, 3])), "mse": F.mse_loss(a @ b, b), "bmm": torch.bmm(a[None], b[None]),
        "baddbmm": torch.baddbmm(a[None], a[None], b[None]), "addmm": torch.addmm(a, a, b), "matmul_f64": a.double() @ b.double(),
        "cat": torch.cat([a @ b, a]), "stack": torch.stack([a @ b, a]), "mean": (a @ b).mean(), "norm": (a @ b).norm(),
        "gelu": F.gelu(a @ b), "sigmoid": torch.sigmoid(a @ b), "topk": (a @ b).topk(2).values, "conv": F.conv1d(a[None], b[:, :, None]),
        "bce_logits": F.binary_cross_entropy_with_logits(a @ b, torch.rand(4, 4)), "cumsum": (a @ b).cumsum(0), "prod": (a @ b).prod(),
        "sdpa": F.scaled_dot_product_attention(a[None, None], b[None, None], b[None, None]), "batch_norm": F.batch_norm(a @ b, None, None, training=True),
        "group_norm": F.group_norm((a @ b)[None], 2), "dist": torch.cdist(a @ b, a), "pow": (a @ b).pow(2), "where": torch.where(a > 0, a @ b, a),
    }
for k, v in outs.items():
    print(k, v.dtype)
#%% autocast training step and scaler cpu
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 3))
opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(6, 8), torch.tensor([0, 1, 2, 0, 1, 2])
for i in range(3):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        out = m(x)
        loss = F.cross_entropy(out, y)
    print(out.dtype, loss.dtype, round(loss.item(), 2))
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    print(m[0].weight.grad.dtype, round(torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0).item(), 1))
    scaler.step(opt); scaler.update()
print(scaler.get_scale(), scaler.state_dict())
#%% autocast nesting and decorators
@torch.autocast("cpu", dtype=torch.bfloat16)
def f(u, v):
    return u @ v
print(f(torch.ones(2, 2), torch.ones(2, 2)).dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.autocast("cpu", enabled=False):
        print((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_cpu_enabled())
print(torch.is_autocast_enabled("cpu"))
with torch.autocast("cpu", dtype=torch.float16):
    print((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
#%% autocast bad dtype
with torch.autocast("cpu", dtype=torch.float32):
    print((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
#%% autocast bad device
with torch.autocast("gpu"):
    pass
#%% cuda amp on cpu machine
sc = torch.cuda.amp.GradScaler()
print(sc.is_enabled())
with torch.cuda.amp.autocast():
    print((torch.ones(2, 2) @ torch.ones(2, 2)).dtype)
#%% lstm under autocast
torch.manual_seed(0)
lstm = nn.LSTM(4, 5, batch_first=True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    o, (h, c) = lstm(torch.randn(2, 3, 4))
print(o.dtype, h.dtype, c.dtype)
#%% half model directly
torch.manual_seed(0)
m = nn.Linear(4, 2).bfloat16()
x = torch.randn(3, 4, dtype=torch.bfloat16)
out = m(x)
out.float().sum().backward()
print(out.dtype, m.weight.grad.dtype, out)
print(m.weight.grad)
