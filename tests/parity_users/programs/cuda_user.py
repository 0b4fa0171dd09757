import io
import torch
import torch.nn as nn
import torch.nn.functional as F
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
r = lambda t, d=4: [round(v, d) for v in t.detach().cpu().flatten().tolist()]
#%% device basics
x = torch.arange(6.0).reshape(2, 3).to(dev)
print(r(x * 2), x.device.type, x.is_cuda, x.cpu().numpy().sum(), x.dtype, (x > 2).sum().item())
y = torch.zeros(2, 3, device=dev) + torch.ones_like(x) + torch.full((2, 3), 2.0, device=dev)
print(r(y), y.device == x.device, torch.arange(4, device=dev).tolist(), r(torch.linspace(0, 1, 5, device=dev)))
print(r(torch.eye(3, device=dev)), torch.tensor([1, 2], device=dev).dtype, torch.tensor([1.5], device=dev).device.type)
print(x.new_zeros(2).device.type, x.new_tensor([3.0]).device.type, torch.empty(0, device=dev).numel())
#%% scalar and cpu zero-dim operands
x = torch.randn(3).to(dev)
s = torch.tensor(2.0)
print(r(x * s), r(x + 1), r(s - x), (x * s).device.type, r(torch.where(x > 0, x, s)))
#%% mlp training
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
data, target = torch.randn(32, 8), torch.randint(0, 3, (32,))
data, target = data.to(dev), target.to(dev)
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(data), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(next(model.parameters()).device.type, r(sum(p.sum() for p in model.parameters())))
with torch.no_grad():
    acc = (model(data).argmax(1) == target).float().mean().item()
print(round(acc, 4))
#%% conv net training
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.benchmark = True
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(4, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)).to(dev)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
imgs, labels = torch.randn(16, 1, 12, 12).to(dev), torch.randint(0, 10, (16,)).to(dev)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(net(imgs), labels)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 3))
net.eval()
print(r(net(imgs[:2]), 3), r(net[1].running_mean, 3), net[1].num_batches_tracked.item())
#%% lstm language model step
torch.manual_seed(0)
emb = nn.Embedding(20, 6).to(dev)
lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True).to(dev)
head = nn.Linear(8, 20).to(dev)
tokens = torch.randint(0, 20, (3, 7)).to(dev)
out, (h, c) = lstm(emb(tokens))
logits = head(out)
loss = F.cross_entropy(logits[:, :-1].reshape(-1, 20), tokens[:, 1:].reshape(-1))
loss.backward()
print(round(loss.item(), 4), tuple(out.shape), tuple(h.shape), h.device.type)
print(r(lstm.weight_hh_l0.grad.sum()), r(emb.weight.grad.abs().sum()), r(head.bias.grad, 3))
nn.utils.clip_grad_norm_(list(lstm.parameters()), 0.5)
print(r(torch.stack([p.grad.norm() for p in lstm.parameters()]).norm()))
#%% transformer encoder in eval
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).to(dev).eval()
src = torch.randn(2, 5, 16).to(dev)
mask = nn.Transformer.generate_square_subsequent_mask(5).to(dev)
with torch.no_grad():
    out = enc(src, mask=mask, is_causal=True)
print(tuple(out.shape), out.device.type, r(out.pow(2).sum(), 2), r(out[0, 0, :4], 3))
#%% mixed device error
a = torch.ones(3).to(dev)
b = torch.ones(3)
if dev.type == "cuda":
    a + b
else:
    print("cpu only", r(a + b))
#%% numpy of a device tensor
t = torch.ones(2).to(dev)
print(t.numpy() if dev.type == "cpu" else t.cpu().numpy())
t.numpy()
#%% save and load across devices
torch.manual_seed(0)
m = nn.Linear(3, 2).to(dev)
buf = io.BytesIO()
torch.save({"model": m.state_dict(), "step": 3}, buf)
buf.seek(0)
ck = torch.load(buf, map_location="cpu")
print(ck["step"], ck["model"]["weight"].device.type, r(ck["model"]["bias"]))
m2 = nn.Linear(3, 2)
m2.load_state_dict(ck["model"])
m2.to(dev)
print(r(m2(torch.ones(1, 3).to(dev))), m2.weight.device.type)
buf.seek(0)
ck2 = torch.load(buf, map_location=dev)
print(ck2["model"]["weight"].device.type)
#%% autocast and grad scaler
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(dev.type, enabled=dev.type == "cuda")
x, y = torch.randn(6, 4).to(dev), torch.randn(6, 2).to(dev)
low = torch.float16 if dev.type == "cuda" else torch.bfloat16
for step in range(3):
    opt.zero_grad()
    with torch.autocast(device_type=dev.type, dtype=low):
        out = model(x)
        loss = F.mse_loss(out.float(), y)
    print(out.dtype, loss.dtype, round(loss.item(), 2))
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else 1.0)
#%% dataloader to device
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10))
dl = DataLoader(ds, batch_size=4, shuffle=False, pin_memory=torch.cuda.is_available())
tot = 0.0
for xb, yb in dl:
    xb, yb = xb.to(dev, non_blocking=True), yb.to(dev, non_blocking=True)
    tot += (xb.sum() * yb.float().mean()).item()
    print(tuple(xb.shape), xb.device.type, yb.dtype)
print(round(tot, 3))
#%% indexing and scatter on device
x = torch.arange(12.0).reshape(3, 4).to(dev)
idx = torch.tensor([2, 0]).to(dev)
print(r(x[idx]), r(x[:, idx]), r(x[x > 5]), x.nonzero().shape, r(x.gather(1, torch.tensor([[0], [1], [3]]).to(dev))))
z = torch.zeros(3, 4, device=dev)
z.index_add_(0, torch.tensor([0, 0, 2]).to(dev), torch.ones(3, 4).to(dev))
z.scatter_(1, torch.tensor([[1], [2], [3]]).to(dev), 5.0)
print(r(z), r(x.masked_fill(x < 3, -1.0)))
v, i = x.flatten().topk(3)
print(r(v), i.tolist(), r(torch.sort(x[:, 1], descending=True).values), torch.unique(torch.tensor([3, 1, 3, 2]).to(dev)).tolist())
print(x.argmax().item(), x.argmax(1).tolist(), r(x.cumsum(1)[:, -1]), r(x.cummax(0).values[-1]))
#%% math on device
torch.manual_seed(0)
a, b = torch.randn(4, 5).to(dev), torch.randn(5, 3).to(dev)
print(r(a @ b, 3), r(torch.einsum("ij,jk->ik", a, b).sum(), 3), r(a.softmax(1).sum(1), 3), r(a.log_softmax(0)[0], 3))
print(r(a.std(1), 3), r(a.var(0, unbiased=False), 3), r(a.norm(dim=1), 3), r(a.abs().max(0).values, 3), r(a.mean(), 4))
print(r(torch.clamp(a, -0.5, 0.5)[0], 3), r(a.exp().log()[1], 3), r(torch.tanh(a)[2], 3), r(F.gelu(a)[3], 3))
#%% half on device
x = torch.linspace(-2, 2, 8).to(dev)
h = x.half() if dev.type == "cuda" else x.bfloat16()
print(h.dtype in (torch.float16, torch.bfloat16), r((h * 2 + 1).float(), 2), r(F.relu(h).float(), 2), r(h.sum().float(), 1))
#%% in place ops and views on device
x = torch.arange(6.0).to(dev)
v = x.view(2, 3)
v.add_(1)
v.t().mul_(2)
x.clamp_(max=9.0)
print(r(x), v.is_contiguous(), v.t().is_contiguous(), r(v.t().contiguous().view(-1)), x.data_ptr() == v.data_ptr())
#%% cuda module api
print(torch.cuda.is_available() == (dev.type == "cuda"), torch.cuda.device_count() >= (1 if dev.type == "cuda" else 0))
if dev.type == "cuda":
    print(torch.cuda.current_device(), torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0) >= (7, 0))
    torch.cuda.synchronize()
    print(torch.cuda.memory_allocated() > 0, torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated())
    torch.cuda.manual_seed_all(1)
    print(torch.randn(2, device="cuda").device.type, torch.cuda.initial_seed())
#%% generator on cpu then moved
g = torch.Generator().manual_seed(3)
w = torch.randn(4, generator=g).to(dev)
print(r(w), w.device.type, r(F.dropout(w, 0.0, training=True)))
