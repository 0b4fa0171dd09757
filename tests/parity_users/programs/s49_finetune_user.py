import io
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6 * 4 * 4, 16)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


class Classifier(nn.Module):
    def __init__(self, n_out=3):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Sequential(nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, n_out))

    def forward(self, x):
        return self.head(self.backbone(x))


def batches(n, seed):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        yield torch.randn(4, 3, 8, 8, generator=g), torch.randint(0, 3, (4,), generator=g)

#%% freeze backbone, count trainable parameters, train only the head
model = Classifier()
for p in model.backbone.parameters():
    p.requires_grad = False
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
print(sum(p.numel() for p in model.parameters() if p.requires_grad),
      sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
before = model.backbone.fc.weight.clone()
for x, y in batches(3, 1):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))
print(torch.equal(before, model.backbone.fc.weight), model.backbone.fc.weight.grad)
print(model.backbone.bn.running_mean)

#%% discriminative learning rates with param groups and a scheduler
model = Classifier()
opt = torch.optim.AdamW([
    {"params": model.backbone.parameters(), "lr": 1e-4},
    {"params": model.head.parameters()},
], lr=1e-2, weight_decay=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch, (x, y) in enumerate(batches(5, 2)):
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    sched.step()
    print(epoch, [round(g["lr"], 8) for g in opt.param_groups], sched.get_last_lr())
print(len(opt.state), sorted(opt.state_dict()["state"][0].keys()))
print(opt.state_dict()["param_groups"][0]["params"], opt.state_dict()["param_groups"][1]["params"])

#%% replace the head and load the old weights partially
model = Classifier(3)
sd = model.state_dict()
new = Classifier(5)
res = new.load_state_dict(sd, strict=False)
print(res)
try:
    new.load_state_dict(sd)
except RuntimeError as e:
    print(str(e))
filtered = {k: v for k, v in sd.items() if not k.startswith("head")}
print(new.load_state_dict(filtered, strict=False))
print(torch.equal(new.backbone.conv.weight, model.backbone.conv.weight))
print(list(sd.keys())[:6], sd["backbone.bn.num_batches_tracked"])

#%% save and resume a training checkpoint through a buffer
torch.manual_seed(3)
model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
data = list(batches(4, 4))
for x, y in data[:2]:
    opt.zero_grad(); F.cross_entropy(model(x), y).backward(); opt.step()
buf = io.BytesIO()
torch.save({"epoch": 2, "model": model.state_dict(), "opt": opt.state_dict(),
            "rng": torch.get_rng_state()}, buf)
buf.seek(0)
ck = torch.load(buf)
print(sorted(ck), ck["epoch"], ck["opt"]["param_groups"][0]["betas"], ck["rng"].dtype, ck["rng"].shape)
m2 = Classifier(); m2.load_state_dict(ck["model"])
o2 = torch.optim.Adam(m2.parameters(), lr=1e-3); o2.load_state_dict(ck["opt"])
torch.set_rng_state(ck["rng"])
for x, y in data[2:]:
    for m, o in ((model, opt), (m2, o2)):
        o.zero_grad(); F.cross_entropy(m(x), y).backward(); o.step()
print(all(torch.equal(a, b) for a, b in zip(model.parameters(), m2.parameters())))
print(o2.state[o2.param_groups[0]["params"][0]]["step"])

#%% evaluation loop with accuracy, confusion matrix and no_grad
torch.manual_seed(5)
model = Classifier().eval()
correct, total = 0, 0
conf = torch.zeros(3, 3, dtype=torch.long)
with torch.no_grad():
    for x, y in batches(3, 6):
        logits = model(x)
        pred = logits.argmax(dim=1)
        correct += (pred == y).sum().item()
        total += y.size(0)
        conf.index_put_((y, pred), torch.ones_like(y), accumulate=True)
        probs = logits.softmax(-1)
        print(probs.max(1).values.round(decimals=4), logits.requires_grad)
print(correct, total, f"{100 * correct / total:.2f}%")
print(conf, conf.sum(), conf.diag().float() / conf.sum(1).clamp(min=1))

#%% deepcopy an EMA model and update it
torch.manual_seed(6)
model = Classifier()
ema = copy.deepcopy(model)
for p in ema.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for x, y in batches(3, 7):
    opt.zero_grad(); F.cross_entropy(model(x), y).backward(); opt.step()
    with torch.no_grad():
        for pe, pm in zip(ema.parameters(), model.parameters()):
            pe.mul_(0.9).add_(pm, alpha=0.1)
        for be, bm in zip(ema.buffers(), model.buffers()):
            be.copy_(bm)
print(ema.head[2].weight[0], ema.backbone.bn.num_batches_tracked)
print(torch.allclose(ema.head[2].bias, model.head[2].bias), ema.training, ema.head[2].weight.requires_grad)

#%% gradient clipping and accumulation over micro-batches
torch.manual_seed(8)
model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
opt.zero_grad()
for i, (x, y) in enumerate(batches(4, 9)):
    loss = F.cross_entropy(model(x), y) / 4
    loss.backward()
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
print(round(total.item(), 5))
print(round(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item(), 5))
nn.utils.clip_grad_value_(model.parameters(), 0.01)
print(max(p.grad.abs().max().item() for p in model.parameters()))
opt.step()
print(model.head[2].bias)

#%% unfreeze gradually and add the new params to the optimizer
torch.manual_seed(10)
model = Classifier()
model.backbone.requires_grad_(False)
opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
print(len(opt.param_groups), len(opt.param_groups[0]["params"]))
model.backbone.fc.requires_grad_(True)
opt.add_param_group({"params": model.backbone.fc.parameters(), "lr": 0.01})
print([len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups])
try:
    opt.add_param_group({"params": model.head.parameters()})
except ValueError as e:
    print(e)
x, y = next(batches(1, 11))
F.cross_entropy(model(x), y).backward()
print(model.backbone.conv.weight.grad is None, model.backbone.fc.weight.grad.shape)
