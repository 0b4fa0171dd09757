import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, pos):
    d = x.shape[-1]
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
    ang = pos[:, None].float() * inv[None, :]
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, d=16, h=2):
        super().__init__()
        self.h = h
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.up = nn.Linear(d, 4 * d, bias=False)
        self.gate = nn.Linear(d, 4 * d, bias=False)
        self.down = nn.Linear(4 * d, d, bias=False)

    def forward(self, x, pos, cache=None):
        B, T, C = x.shape
        q, k, v = self.qkv(self.n1(x)).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        q, k = rope(q, pos), rope(k, pos)
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        y = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None or T > 1)
        x = x + self.o(y.transpose(1, 2).reshape(B, T, C))
        hdn = self.n2(x)
        return x + self.down(F.silu(self.gate(hdn)) * self.up(hdn))


class LM(nn.Module):
    def __init__(self, vocab=20, d=16, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx, start=0, caches=None):
        pos = torch.arange(start, start + idx.shape[1])
        x = self.emb(idx)
        for i, b in enumerate(self.blocks):
            x = b(x, pos, None if caches is None else caches[i])
        return self.head(self.norm(x))

#%% training a tiny LM with tied weights, AdamW groups and cosine warmup
torch.manual_seed(0)
lm = LM()
decay = [p for n, p in lm.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in lm.named_parameters() if p.dim() < 2]
print(len(decay), len(no_decay), sum(p.numel() for p in lm.parameters()))
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=3e-3, betas=(0.9, 0.95))
warm, total = 3, 10
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm))))
data = torch.randint(0, 20, (4, 9))
for step in range(total):
    logits = lm(data[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 20), data[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(lm.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 3 == 0:
        print(step, round(loss.item(), 3), round(gn.item(), 3), f"{sched.get_last_lr()[0]:.6f}")
print(lm.head.weight is lm.emb.weight, list(lm.state_dict().keys())[-2:])

#%% generation with a KV cache equals generation without it
torch.manual_seed(1)
lm = LM().eval()
prompt = torch.tensor([[3, 7, 1]])
with torch.no_grad():
    full = prompt.clone()
    for _ in range(5):
        nxt = lm(full)[:, -1].argmax(-1, keepdim=True)
        full = torch.cat([full, nxt], dim=1)
    caches = [{} for _ in lm.blocks]
    out = lm(prompt, 0, caches)
    seq = prompt.clone()
    for i in range(5):
        nxt = out[:, -1].argmax(-1, keepdim=True)
        seq = torch.cat([seq, nxt], dim=1)
        out = lm(nxt, seq.shape[1] - 1, caches)
print(full.tolist(), torch.equal(full, seq), caches[0]["k"].shape)

#%% top-p and top-k sampling with temperature
torch.manual_seed(2)
logits = torch.randn(3, 20)


def top_p(logits, p=0.8, temp=0.7):
    probs = F.softmax(logits / temp, dim=-1)
    sp, si = torch.sort(probs, descending=True, dim=-1)
    cum = sp.cumsum(-1)
    sp[(cum - sp) > p] = 0.0
    sp.div_(sp.sum(-1, keepdim=True))
    return si.gather(-1, torch.multinomial(sp, 1))


def top_k(logits, k=4):
    v, _ = torch.topk(logits, k)
    logits = torch.where(logits < v[:, -1:], torch.full_like(logits, -float("inf")), logits)
    return torch.multinomial(logits.softmax(-1), 1)


print(top_p(logits).flatten().tolist(), top_k(logits).flatten().tolist())
print(top_p(logits, p=0.0).flatten().tolist(), logits.argmax(-1).tolist())

#%% attention masks: padding plus causal, and manual attention equals sdpa
torch.manual_seed(3)
q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
lengths = torch.tensor([5, 3])
pad = torch.arange(5)[None, :] < lengths[:, None]
causal = torch.ones(5, 5, dtype=torch.bool).tril()
mask = pad[:, None, None, :] & causal
att = (q @ k.transpose(-2, -1)) / math.sqrt(4)
att = att.masked_fill(~mask, float("-inf")).softmax(-1)
manual = att @ v
sd = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(torch.allclose(manual, sd, atol=1e-6), manual[1, 0, 4].round(decimals=4))
print(att[1, 1, 4].round(decimals=4))

#%% LoRA adapter on a frozen linear
torch.manual_seed(4)


class LoRA(nn.Module):
    def __init__(self, base, r=2, alpha=4):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale


layer = LoRA(nn.Linear(6, 3))
x = torch.randn(4, 6)
print(torch.equal(layer(x), layer.base(x)))
opt = torch.optim.Adam([layer.A, layer.B], lr=0.01)
for _ in range(3):
    opt.zero_grad()
    (layer(x) ** 2).mean().backward()
    opt.step()
print(layer.B.round(decimals=5), layer.base.weight.grad)
merged = layer.base.weight + layer.scale * layer.B @ layer.A
print(torch.allclose(F.linear(x, merged, layer.base.bias), layer(x), atol=1e-6))
