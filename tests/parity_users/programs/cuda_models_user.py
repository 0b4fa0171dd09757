import torch
import torch.nn as nn
import torch.nn.functional as F
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
r = lambda t, d=4: [round(v, d) for v in t.detach().cpu().flatten().tolist()]
#%% DataParallel wrapper on one device
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 2))
model = nn.DataParallel(net).to(dev) if dev.type == "cuda" else net
x = torch.randn(6, 5).to(dev)
out = model(x)
out.sum().backward()
sd = (model.module if isinstance(model, nn.DataParallel) else model).state_dict()
print(tuple(out.shape), r(out.sum()), sorted(sd)[:2], r(net[0].weight.grad.sum()))
#%% gradient accumulation, clipping, scheduler, ema
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.LayerNorm(12), nn.Linear(12, 1)).to(dev)
ema = [p.detach().clone() for p in model.parameters()]
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
data = torch.randn(16, 6).to(dev)
target = torch.randn(16, 1).to(dev)
for step in range(4):
    for chunk in range(2):
        xb, yb = data[chunk * 8:(chunk + 1) * 8], target[chunk * 8:(chunk + 1) * 8]
        loss = F.mse_loss(model(xb), yb) / 2
        loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    sched.step()
    with torch.no_grad():
        for e, p in zip(ema, model.parameters()):
            e.mul_(0.9).add_(p, alpha=0.1)
    print(step, round(loss.item(), 4), round(norm.item(), 4), norm.device.type, round(sched.get_last_lr()[0], 6))
print(r(sum(e.sum() for e in ema), 3))
#%% amp with unscale and clipping
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cuda", enabled=dev.type == "cuda")
x, y = torch.randn(8, 4).to(dev), torch.randn(8, 1).to(dev)
for step in range(2):
    with torch.autocast(dev.type, dtype=torch.float16 if dev.type == "cuda" else torch.bfloat16):
        loss = F.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    n = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    print(step, round(loss.item(), 2), round(n.item(), 2))
#%% interpolate, grid sample, pad, one hot, pixel shuffle on the device
torch.manual_seed(0)
img = torch.randn(1, 2, 4, 4).to(dev)
print(r(F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=False).sum(), 3), r(F.interpolate(img, size=(3, 5), mode="nearest").sum(), 3))
theta = torch.tensor([[[0.9, 0.1, 0.0], [-0.1, 0.9, 0.1]]]).to(dev)
grid = F.affine_grid(theta, (1, 2, 4, 4), align_corners=False)
print(r(F.grid_sample(img, grid, align_corners=False).sum(), 3), r(F.pad(img, (1, 1, 2, 0), mode="reflect").sum(), 3))
print(F.one_hot(torch.tensor([0, 2, 1]).to(dev), 4).tolist(), tuple(F.pixel_shuffle(torch.randn(1, 8, 2, 2).to(dev), 2).shape))
print(r(F.avg_pool2d(img, 2).flatten()[:4], 3), r(F.max_pool2d(img, 2, return_indices=True)[1].float()), r(F.adaptive_max_pool2d(img, 1), 3))
#%% counting ops on the device
v = torch.tensor([0, 1, 1, 3, 3, 3]).to(dev)
print(torch.bincount(v).tolist(), torch.bincount(v, minlength=6).tolist(), r(torch.histc(v.float(), bins=4, min=0, max=3)))
print(torch.unique(v, return_counts=True)[1].tolist(), torch.unique_consecutive(v).tolist(), torch.searchsorted(torch.tensor([0, 2, 4]).to(dev), v).tolist())
print(torch.sort(torch.tensor([3.0, 1.0, 2.0]).to(dev)).indices.tolist(), torch.argsort(v, descending=True, stable=True).tolist(), v.bool().all().item(), v.any().item())
#%% distributions on the device
loc = torch.tensor([0.0, 1.0]).to(dev)
scale = torch.tensor([1.0, 2.0]).to(dev)
n = torch.distributions.Normal(loc, scale)
val = torch.tensor([0.5, -0.5]).to(dev)
print(r(n.log_prob(val)), r(n.entropy()), r(n.cdf(val)), n.sample((3,)).shape, n.rsample().device.type)
c = torch.distributions.Categorical(logits=torch.tensor([[0.1, 0.2, 0.7], [1.0, 0.0, -1.0]]).to(dev))
print(r(c.log_prob(torch.tensor([2, 0]).to(dev))), r(c.entropy()), c.sample().shape, c.probs.device.type)
b = torch.distributions.Bernoulli(probs=torch.tensor([0.2, 0.9]).to(dev))
print(r(b.log_prob(torch.tensor([1.0, 0.0]).to(dev))), r(torch.distributions.kl_divergence(n, torch.distributions.Normal(loc + 1, scale))))
#%% checkpointing activations on the device
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
blk = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4)).to(dev)
x = torch.randn(3, 4, requires_grad=True).to(dev)
y = checkpoint(blk, x, use_reentrant=False)
y.sum().backward()
print(r(y.sum()), r(blk[0].weight.grad.sum()), x.grad is None)
#%% channels last and memory formats
torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3, padding=1).to(dev).to(memory_format=torch.channels_last)
inp = torch.randn(2, 3, 5, 5).to(dev).contiguous(memory_format=torch.channels_last)
o = conv(inp)
print(tuple(o.shape), r(o.sum(), 3), conv.weight.is_contiguous(memory_format=torch.channels_last))
#%% a tiny gpt block on the device
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.h = h
        self.register_buffer("bias", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))
    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))
blk = Block(16, 4).to(dev)
tok = nn.Embedding(30, 16).to(dev)
idx = torch.randint(0, 30, (2, 6)).to(dev)
logits = F.linear(blk(tok(idx)), tok.weight)
loss = F.cross_entropy(logits.view(-1, 30), idx.view(-1))
loss.backward()
print(round(loss.item(), 4), r(tok.weight.grad.norm(), 4), blk.bias.device.type, r(torch.multinomial(F.softmax(logits[0, -1], -1), 1).float() * 0))
