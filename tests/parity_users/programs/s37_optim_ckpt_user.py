import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
import io
def model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
def train(m, opt, steps=3):
    torch.manual_seed(10)
    for _ in range(steps):
        x = torch.randn(5, 3)
        loss = m(x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    return loss.item()
#%% optimizer state into a new model
for name, kw in [('Adam', dict(lr=0.01, amsgrad=True)), ('AdamW', dict(lr=0.01, weight_decay=0.1)), ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True)),
                 ('RMSprop', dict(lr=0.01, centered=True, momentum=0.5)), ('Adagrad', dict(lr=0.1)), ('NAdam', dict(lr=0.01)), ('RAdam', dict(lr=0.01)), ('Adamax', dict(lr=0.01))]:
    m = model(); opt = getattr(torch.optim, name)(m.parameters(), **kw)
    train(m, opt)
    m2 = model(1); m2.load_state_dict(m.state_dict())
    opt2 = getattr(torch.optim, name)(m2.parameters(), **kw)
    opt2.load_state_dict(opt.state_dict())
    l1, l2 = train(m, opt), train(m2, opt2)
    sd = opt.state_dict()
    print(name, round(l1, 6), l1 == l2, sorted(sd['state'][0].keys()), sd['param_groups'][0]['params'], type(sd['state'][0].get('step')).__name__)
#%% load errors and param groups
m = model()
opt = torch.optim.Adam([{'params': m[0].parameters(), 'lr': 0.1}, {'params': m[2].parameters()}], lr=0.01)
train(m, opt, 1)
sd = opt.state_dict()
print([{k: v for k, v in g.items() if k not in ('params',)}['lr'] for g in sd['param_groups']], [g['params'] for g in sd['param_groups']])
opt_one = torch.optim.Adam(model().parameters(), lr=0.01)
show(lambda: opt_one.load_state_dict(sd))
opt_bad = torch.optim.Adam([{'params': list(m[0].parameters())[:1]}, {'params': m[2].parameters()}], lr=0.01)
show(lambda: opt_bad.load_state_dict(sd))
show(lambda: torch.optim.Adam([{'params': m[0].parameters()}, {'params': m[0].parameters()}]))
show(lambda: torch.optim.SGD(m.parameters()))
show(lambda: torch.optim.Adam(m.parameters(), lr=-1))
show(lambda: torch.optim.Adam(m.parameters(), betas=(1.0, 0.9)))
show(lambda: torch.optim.SGD(m.parameters(), lr=0.1, nesterov=True))
show(lambda: torch.optim.Adam([]))
show(lambda: torch.optim.Adam(torch.ones(2, requires_grad=True)))
opt.add_param_group({'params': [nn.Parameter(torch.ones(2))], 'lr': 0.5})
print(len(opt.param_groups), opt.param_groups[2]['lr'], opt.param_groups[2]['betas'])
show(lambda: opt.add_param_group({'params': m[0].weight}))
#%% zero_grad and step closures
m = model()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
m(torch.ones(1, 3)).sum().backward()
opt.zero_grad()
print([p.grad for p in m.parameters()][:1])
m(torch.ones(1, 3)).sum().backward()
opt.zero_grad(set_to_none=False)
print(m[0].bias.grad)
lbfgs = torch.optim.LBFGS(m.parameters(), lr=0.5, max_iter=5, history_size=3)
x = torch.linspace(-1, 1, 6).reshape(2, 3)
def closure():
    lbfgs.zero_grad()
    loss = m(x).pow(2).sum()
    loss.backward()
    return loss
print(round(lbfgs.step(closure).item(), 5), round(closure().item(), 5))
print(sorted(lbfgs.state_dict()['state'][0].keys()) if lbfgs.state_dict()['state'] else None, list(lbfgs.state_dict()['state'].keys()))
show(lambda: torch.optim.Adam(m.parameters()).step(lambda: 3.5))
#%% save and load checkpoint dict
m = model(); opt = torch.optim.AdamW(m.parameters(), lr=0.01)
train(m, opt, 2)
buf = io.BytesIO()
torch.save({'model': m.state_dict(), 'opt': opt.state_dict(), 'epoch': 3, 'note': 'hi', 'hist': [0.5, 0.25]}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print(sorted(ck.keys()), ck['epoch'], ck['hist'], type(ck['opt']['state'][0]['step']).__name__, ck['opt']['state'][0]['step'])
m2 = model(5); m2.load_state_dict(ck['model'])
opt2 = torch.optim.AdamW(m2.parameters(), lr=0.01); opt2.load_state_dict(ck['opt'])
print(train(m, opt, 2) == train(m2, opt2, 2))
import fractions
buf = io.BytesIO(); torch.save({'cfg': fractions.Fraction(1, 3), 'w': torch.ones(2)}, buf); buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0][:120])
buf.seek(0)
print(torch.load(buf, weights_only=False)['cfg'])
t = torch.arange(6.)
buf = io.BytesIO(); torch.save([t, t[2:4], t.view(2, 3)], buf); buf.seek(0)
a, b, c = torch.load(buf)
b.fill_(-1)
print(a, c, b.storage_offset(), c.stride())
