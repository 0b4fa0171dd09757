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
from torch.optim import lr_scheduler as S
def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
#%% chained warmup then cosine, state_dict round trip
m = model()
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
seq = S.SequentialLR(opt, [warm, cos], milestones=[3])
lrs = []
for i in range(5):
    opt.step(); seq.step(); lrs.append(round(seq.get_last_lr()[0], 6))
print(lrs)
sd = seq.state_dict()
print(sorted(sd.keys()), sd['last_epoch'], sd['_milestones'])
m2 = model()
opt2 = torch.optim.SGD(m2.parameters(), lr=0.1, momentum=0.9)
seq2 = S.SequentialLR(opt2, [S.LinearLR(opt2, start_factor=0.1, total_iters=3), S.CosineAnnealingLR(opt2, T_max=5, eta_min=0.001)], milestones=[3])
seq2.load_state_dict(sd)
opt2.load_state_dict(opt.state_dict())
a, b = [], []
for i in range(4):
    opt.step(); seq.step(); a.append(round(seq.get_last_lr()[0], 6))
    opt2.step(); seq2.step(); b.append(round(seq2.get_last_lr()[0], 6))
print(a == b, a)
#%% chained scheduler and plateau
m = model()
opt = torch.optim.Adam(m.parameters(), lr=0.01)
ch = S.ChainedScheduler([S.StepLR(opt, 2, gamma=0.5), S.ExponentialLR(opt, 0.9)])
out = []
for i in range(6):
    opt.step(); ch.step(); out.append([round(v, 6) for v in ch.get_last_lr()])
print(out)
print(sorted(ch.state_dict().keys()), len(ch.state_dict()['_schedulers']))
opt = torch.optim.SGD(m.parameters(), lr=1.0)
pl = S.ReduceLROnPlateau(opt, mode='max', factor=0.5, patience=1, threshold=0.1, cooldown=1, min_lr=0.1)
hist = []
for metric in [1.0, 1.05, 1.06, 1.07, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]:
    pl.step(metric); hist.append((opt.param_groups[0]['lr'], pl.num_bad_epochs, pl.cooldown_counter))
print(hist)
print(pl.state_dict()['best'], pl.get_last_lr())
show(lambda: S.ReduceLROnPlateau(opt, mode='avg'))
show(lambda: S.ReduceLROnPlateau(opt, factor=1.5))
#%% onecycle and cyclic with momentum
m = model()
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
oc = S.OneCycleLR(opt, max_lr=1.0, total_steps=8, pct_start=0.25, anneal_strategy='linear', three_phase=True)
vals = []
for i in range(8):
    opt.step(); oc.step(); vals.append((round(opt.param_groups[0]['lr'], 5), round(opt.param_groups[0]['momentum'], 5)))
print(vals)
show(lambda: [opt.step(), oc.step()])
opt = torch.optim.Adam(m.parameters(), lr=0.1)
cy = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='exp_range', gamma=0.9, cycle_momentum=True)
vals = []
for i in range(6):
    opt.step(); cy.step(); vals.append((round(opt.param_groups[0]['lr'], 5), tuple(round(b, 4) for b in opt.param_groups[0]['betas'])))
print(vals)
sd = cy.state_dict()
print(sorted(k for k in sd if not k.startswith('_')))
#%% schedulers misuse warnings
m = model()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
sch = S.StepLR(opt, step_size=1, gamma=0.1)
sch.step()
opt.step()
print(opt.param_groups[0]['lr'])
sch2 = S.MultiStepLR(opt, milestones=[2, 2, 4], gamma=0.5)
lr = []
for i in range(5):
    opt.step(); sch2.step(); lr.append(opt.param_groups[0]['lr'])
print([round(v, 8) for v in lr])
show(lambda: S.LambdaLR(opt, [lambda e: 1.0, lambda e: 2.0]))
show(lambda: S.StepLR(torch.ones(2), 1))
opt3 = torch.optim.SGD(m.parameters(), lr=0.1)
show(lambda: S.CosineAnnealingLR(opt3, T_max=3, last_epoch=4))
lam = S.LambdaLR(opt3, lambda e: 0.5 ** e)
print(sorted(lam.state_dict().keys()), lam.state_dict()['lr_lambdas'])
p = S.PolynomialLR(opt3, total_iters=4, power=2.0)
print([round(p.get_last_lr()[0], 6)] + [round((opt3.step(), p.step(), p.get_last_lr()[0])[2], 6) for _ in range(5)])
