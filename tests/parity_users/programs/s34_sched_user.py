import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S


def mk(lr=0.1, opt=optim.SGD, **kw):
    p = nn.Parameter(torch.zeros(2))
    return opt([p], lr=lr, **kw)
def run(o, s, n, metric=None):
    out = []
    for i in range(n):
        o.step()
        if metric is None:
            s.step()
        else:
            s.step(metric[i])
        out.append(round(o.param_groups[0]['lr'], 6))
    return out
#%% onecycle
o = mk(0.01, momentum=0.9)
s = S.OneCycleLR(o, max_lr=0.1, total_steps=10)
print(run(o, s, 9), round(o.param_groups[0]['momentum'], 5))
o = mk(0.01, optim.Adam)
s = S.OneCycleLR(o, max_lr=0.1, epochs=2, steps_per_epoch=3, anneal_strategy='linear', three_phase=True)
print(run(o, s, 5), [round(b, 4) for b in o.param_groups[0]['betas']])
#%% onecycle overstep error
o = mk()
s = S.OneCycleLR(o, max_lr=0.1, total_steps=2)
try:
    run(o, s, 3)
except Exception as e:
    print(type(e).__name__, e)
#%% cosine warm restarts
o = mk(0.1)
s = S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)
print(run(o, s, 10))
o = mk(0.1)
s = S.CosineAnnealingWarmRestarts(o, T_0=4)
for e in [0.5, 1.5, 5.2]:
    s.step(e)
    print(round(o.param_groups[0]['lr'], 6))
try:
    S.CosineAnnealingWarmRestarts(mk(), T_0=0)
except Exception as e:
    print(type(e).__name__, e)
#%% reduce on plateau
o = mk(1.0)
s = S.ReduceLROnPlateau(o, mode='min', factor=0.5, patience=1, threshold=0.1, cooldown=1, min_lr=0.1)
print(run(o, s, 10, metric=[5, 5, 5, 5, 4, 4, 4, 4, 4, 4]))
o = mk(1.0)
s = S.ReduceLROnPlateau(o, mode='max', patience=0, threshold_mode='abs', threshold=0.5)
print(run(o, s, 5, metric=[1, 1.2, 2, 2.1, 3]), s.get_last_lr() if hasattr(s, 'get_last_lr') else None)
#%% sequential lr
o = mk(0.1)
s1 = S.LinearLR(o, start_factor=0.1, total_iters=3)
s2 = S.ExponentialLR(o, gamma=0.5)
s = S.SequentialLR(o, schedulers=[s1, s2], milestones=[3])
print(run(o, s, 7), s.get_last_lr())
#%% chained scheduler
o = mk(1.0)
s = S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=2), S.ExponentialLR(o, gamma=0.9)])
print(run(o, s, 5))
#%% step multistep lambda multiplicative
o = mk(1.0)
print(run(o, S.StepLR(o, step_size=2, gamma=0.5), 5))
o = mk(1.0)
print(run(o, S.MultiStepLR(o, milestones=[1, 3, 3], gamma=0.1), 5))
o = mk(1.0)
print(run(o, S.LambdaLR(o, lambda e: 1 / (e + 1)), 4))
o = mk(1.0)
print(run(o, S.MultiplicativeLR(o, lambda e: 0.9), 4))
#%% polynomial and cyclic
o = mk(1.0)
print(run(o, S.PolynomialLR(o, total_iters=4, power=2.0), 6))
o = mk(0.1, momentum=0.9)
s = S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='triangular2')
print(run(o, s, 9), round(o.param_groups[0]['momentum'], 4))
o = mk(0.1, optim.Adam)
try:
    S.CyclicLR(o, base_lr=0.01, max_lr=0.1)
except Exception as e:
    print(type(e).__name__, e)
#%% scheduler state dict roundtrip
o = mk(1.0)
s = S.StepLR(o, 2, 0.1)
run(o, s, 3)
sd = s.state_dict()
print(sorted(sd.keys()), sd['last_epoch'], sd['_last_lr'])
o2 = mk(1.0)
s2 = S.StepLR(o2, 2, 0.1)
s2.load_state_dict(sd)
print(s2.last_epoch, s2.get_last_lr())
#%% warning step order
import warnings

o = mk(1.0)
s = S.StepLR(o, 1)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    s.step()
    print([str(x.message)[:80] for x in w])
#%% param group lr multiple groups
a, b = nn.Parameter(torch.zeros(1)), nn.Parameter(torch.zeros(1))
o = optim.SGD([{'params': [a]}, {'params': [b], 'lr': 0.5}], lr=0.1)
s = S.CosineAnnealingLR(o, T_max=4)
for _ in range(5):
    o.step(); s.step()
    print([round(g['lr'], 6) for g in o.param_groups])
#%% onecycle with multiple max_lr and cycle_momentum false
a, b = nn.Parameter(torch.zeros(1)), nn.Parameter(torch.zeros(1))
o = optim.SGD([{'params': [a]}, {'params': [b]}], lr=0.1)
s = S.OneCycleLR(o, max_lr=[0.1, 1.0], total_steps=6, cycle_momentum=False, div_factor=10, final_div_factor=100, pct_start=0.5)
for _ in range(5):
    o.step(); s.step()
    print([round(g['lr'], 6) for g in o.param_groups])
print(o.param_groups[0]['initial_lr'], o.param_groups[1]['max_lr'], o.param_groups[1]['min_lr'])
