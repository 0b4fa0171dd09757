import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))

#%% Grad-CAM: forward hook keeps the activations, full backward hook keeps their gradients
torch.manual_seed(0)
m = Small().eval()
store = {}
h1 = m.features[2].register_forward_hook(lambda mod, inp, out: store.__setitem__("act", out))
h2 = m.features[2].register_full_backward_hook(lambda mod, gin, gout: store.__setitem__("grad", gout[0]))
x = torch.randn(1, 3, 6, 6)
logits = m(x)
logits[0, logits.argmax()].backward()
weights = store["grad"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * store["act"]).sum(1))
cam = cam / cam.max().clamp(min=1e-8)
print(logits.argmax().item(), cam.shape, r(cam[0, :2]))
h1.remove(); h2.remove()
print(len(m.features[2]._forward_hooks), len(m.features[2]._backward_hooks))

#%% forward pre-hooks that change inputs, hooks with kwargs, and always_call
torch.manual_seed(1)
lin = nn.Linear(2, 2)
lin.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
calls = []
lin.register_forward_hook(lambda mod, args, kwargs, out: calls.append(sorted(kwargs)) or out + 1, with_kwargs=True)
y = lin(torch.ones(1, 2))
print(r(y), calls)
seen = []
m2 = nn.Linear(2, 2)
m2.register_forward_pre_hook(lambda mod, args, kwargs: seen.append(len(args)) or None, with_kwargs=True, prepend=True)
m2(torch.zeros(3, 2))
print(seen)

#%% weight init with apply, named_modules, buffers and state_dict prefixes
torch.manual_seed(2)
m = Small()


def init(mod):
    if isinstance(mod, nn.Conv2d):
        nn.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
        nn.init.zeros_(mod.bias)
    elif isinstance(mod, nn.Linear):
        nn.init.xavier_uniform_(mod.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.constant_(mod.bias, 0.1)


m.apply(init)
print([n for n, _ in m.named_modules()], r(m.features[0].weight.std(), 3), r(m.fc.bias))
m.register_buffer("steps", torch.tensor(0))
m.register_buffer("tmp", torch.ones(2), persistent=False)
sd = m.state_dict(prefix="model.")
print(list(sd)[:3], "model.steps" in sd, "model.tmp" in sd, [n for n, _ in m.named_buffers()])
print(sum(p.numel() for p in m.parameters()), sum(p.numel() for p in m.parameters() if p.requires_grad))

#%% tensor hooks on gradients, retain_grad, and freezing parts of a model
torch.manual_seed(3)
m = Small()
for p in m.features.parameters():
    p.requires_grad_(False)
x = torch.randn(2, 3, 6, 6)
feat = m.pool(m.features(x)).flatten(1)
feat.retain_grad()
h = feat.register_hook(lambda g: g * 0.5)
out = m.fc(feat).sum()
out.backward()
print(r(feat.grad), m.features[0].weight.grad is None, r(m.fc.weight.grad.sum()))
h.remove()
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, m.parameters()), lr=0.1)
print(len(opt.param_groups[0]["params"]))

#%% state_dict hooks and load_state_dict with strict=False reporting
torch.manual_seed(4)
m = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
sd = m.state_dict()
sd["extra.weight"] = torch.zeros(1)
del sd["1.bias"]
res = m.load_state_dict(sd, strict=False)
print(res.missing_keys, res.unexpected_keys)
try:
    m.load_state_dict(sd)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
    print(str(e).split("\n")[1].strip())
bad = {k: v for k, v in m.state_dict().items()}
bad["0.weight"] = torch.zeros(5, 5)
try:
    m.load_state_dict(bad)
except RuntimeError as e:
    print(str(e).split("\n")[1].strip())
