import io
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Dropout(0.2), nn.Linear(8, 3))
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.05)
    sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=12)
    return m, opt, sch


def step(m, opt, sch, g):
    x = torch.randn(6, 5, generator=g)
    y = torch.randint(0, 3, (6,), generator=g)
    loss = F.cross_entropy(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sch.step()
    return loss.item()

#%% training 8 steps straight equals 4 steps, checkpoint, reload, 4 more steps
m, opt, sch = make()
g = torch.Generator().manual_seed(5)
straight = [round(step(m, opt, sch, g), 5) for _ in range(8)]
print(straight)
m, opt, sch = make()
g = torch.Generator().manual_seed(5)
first = [round(step(m, opt, sch, g), 5) for _ in range(4)]
buf = io.BytesIO()
torch.save({"model": m.state_dict(), "opt": opt.state_dict(), "sched": sch.state_dict(),
            "rng": torch.get_rng_state(), "gen": g.get_state(), "step": 4}, buf)
print(first, buf.tell() > 0)
buf.seek(0)
ck = torch.load(buf)
m2, opt2, sch2 = make()
m2.load_state_dict(ck["model"])
opt2.load_state_dict(ck["opt"])
sch2.load_state_dict(ck["sched"])
torch.set_rng_state(ck["rng"])
g2 = torch.Generator()
g2.set_state(ck["gen"])
rest = [round(step(m2, opt2, sch2, g2), 5) for _ in range(4)]
print(rest, first + rest == straight, sch2.get_last_lr())

#%% what the optimizer and scheduler state dicts hold
print(sorted(ck["opt"].keys()), sorted(ck["opt"]["state"][0].keys()), ck["opt"]["state"][0]["step"])
pg = ck["opt"]["param_groups"][0]
print({k: pg[k] for k in sorted(pg) if k not in ("params",)})
print(sorted(k for k in ck["sched"] if not k.startswith("_")), ck["sched"]["last_epoch"])

#%% saving to a file path, weights_only loading and strict=False partial loads
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "ck.pt")
    torch.save(ck, p)
    back = torch.load(p, weights_only=True)
    print(back["step"], torch.equal(back["model"]["0.weight"], ck["model"]["0.weight"]))
    small = nn.Sequential(nn.Linear(5, 8))
    res = small.load_state_dict(back["model"], strict=False)
    print(sorted(res.missing_keys), sorted(res.unexpected_keys))

#%% freezing a layer, a new param group, and a lower lr for the backbone
m, opt, sch = make()
for p in m[0].parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD([{"params": m[3].parameters()}], lr=0.1, momentum=0.9)
opt.add_param_group({"params": m[0].parameters(), "lr": 0.01})
g = torch.Generator().manual_seed(1)
before = m[0].weight.clone()
for _ in range(3):
    x = torch.randn(4, 5, generator=g)
    loss = m(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(torch.equal(before, m[0].weight), m[0].weight.grad, f"{loss.item():.5f}")
print([g["lr"] for g in opt.param_groups], len(opt.state))
