import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S


def make(lr=0.1, **kw):
    p = nn.Parameter(torch.zeros(2))
    return optim.SGD([p], lr=lr, momentum=0.9, **kw)


def run(sched, opt, n, metric=None):
    out = []
    for i in range(n):
        opt.step()
        if metric is not None:
            sched.step(metric[i])
        else:
            sched.step()
        out.append(round(opt.param_groups[0]['lr'], 6))
    print(out)
#%% onecycle
o = make()
s = S.OneCycleLR(o, max_lr=1.0, total_steps=10)
print([round(g['momentum'], 4) for g in o.param_groups], round(o.param_groups[0]['lr'], 6))
run(s, o, 9)
print(round(o.param_groups[0]['momentum'], 4))
try:
    o.step()
    s.step()
except Exception as e:
    print(type(e).__name__, e)
o = make()
s = S.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=3, anneal_strategy='linear', three_phase=True, pct_start=0.4, div_factor=5, final_div_factor=100)
run(s, o, 5)
print(sorted(s.state_dict().keys()))
#%% onecycle adam betas
p = nn.Parameter(torch.zeros(2))
o = optim.Adam([p], lr=0.1, betas=(0.9, 0.99))
s = S.OneCycleLR(o, max_lr=0.3, total_steps=6, base_momentum=0.8, max_momentum=0.95)
for _ in range(3):
    o.step(); s.step()
print(o.param_groups[0]['betas'], round(o.param_groups[0]['lr'], 6))
try:
    S.OneCycleLR(optim.Adagrad([p]), max_lr=0.1, total_steps=5)
except Exception as e:
    print(type(e).__name__, e)
try:
    S.OneCycleLR(make(), max_lr=0.1)
except Exception as e:
    print(type(e).__name__, e)
try:
    S.OneCycleLR(make(), max_lr=0.1, total_steps=5, pct_start=1.2)
except Exception as e:
    print(type(e).__name__, e)
#%% cosine warm restarts
o = make()
s = S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)
run(s, o, 12)
print(s.T_i, s.T_cur, s.last_epoch)
s.step(5.5)
print(round(o.param_groups[0]['lr'], 6), s.T_i, s.T_cur)
s.step(20)
print(round(o.param_groups[0]['lr'], 6), s.T_i, s.T_cur)
for bad in (dict(T_0=0), dict(T_0=2, T_mult=0), dict(T_0=2, T_mult=1.5), dict(T_0=2.0)):
    try:
        S.CosineAnnealingWarmRestarts(make(), **bad)
    except Exception as e:
        print(type(e).__name__, e)
#%% reduce on plateau
o = make(lr=1.0)
s = S.ReduceLROnPlateau(o, mode='min', factor=0.5, patience=1, threshold=0.1, cooldown=1, min_lr=0.1)
run(s, o, 12, metric=[1.0, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8])
print(s.num_bad_epochs, s.cooldown_counter, s.best, s.last_epoch, s._last_lr)
o = make(lr=1.0)
s = S.ReduceLROnPlateau(o, mode='max', threshold_mode='abs', threshold=0.05, patience=0, eps=0.3)
run(s, o, 5, metric=[0.5, 0.52, 0.6, 0.6, 0.61])
sd = s.state_dict()
print(sorted(sd.keys()))
for bad in (dict(factor=1.0), dict(mode='avg'), dict(threshold_mode='pct')):
    try:
        S.ReduceLROnPlateau(make(), **bad)
    except Exception as e:
        print(type(e).__name__, e)
s = S.ReduceLROnPlateau(make())
try:
    s.step()
except Exception as e:
    print(type(e).__name__, e)
s.step(torch.tensor(3.0))
print(s.best)
#%% sequential lr
o = make()
s1 = S.LinearLR(o, start_factor=0.1, total_iters=3)
s2 = S.ExponentialLR(o, gamma=0.5)
s = S.SequentialLR(o, schedulers=[s1, s2], milestones=[3])
print(round(o.param_groups[0]['lr'], 6))
run(s, o, 7)
print(s.last_epoch, s.get_last_lr(), sorted(s.state_dict().keys()))
try:
    S.SequentialLR(o, schedulers=[s1, s2], milestones=[3, 5])
except Exception as e:
    print(type(e).__name__, e)
try:
    S.SequentialLR(o, schedulers=[s1, S.StepLR(make(), 2)], milestones=[3])
except Exception as e:
    print(type(e).__name__, e)
#%% chained scheduler
o = make(lr=1.0)
s = S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=2), S.ExponentialLR(o, gamma=0.9)])
print(round(o.param_groups[0]['lr'], 6))
run(s, o, 4)
print(s.get_last_lr(), sorted(s.state_dict().keys()))
o2 = make(lr=1.0)
s2 = S.ChainedScheduler([S.ConstantLR(o2, factor=0.5, total_iters=2), S.ExponentialLR(o2, gamma=0.9)])
s2.load_state_dict(s.state_dict())
print(s2.get_last_lr(), s2._schedulers[1].last_epoch)
#%% multistep cyclic polynomial lambda
o = make()
run(S.MultiStepLR(o, milestones=[2, 2, 4], gamma=0.5), o, 6)
o = make()
run(S.PolynomialLR(o, total_iters=4, power=2.0), o, 6)
o = make()
run(S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='triangular2'), o, 9)
o = make()
run(S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=1, mode='exp_range', gamma=0.9), o, 7)
print(round(o.param_groups[0]['momentum'], 4))
o = make()
run(S.LambdaLR(o, lr_lambda=lambda e: 1 / (e + 1)), o, 4)
o = make()
run(S.MultiplicativeLR(o, lr_lambda=lambda e: 0.9), o, 4)
o = make()
run(S.CosineAnnealingLR(o, T_max=3, eta_min=0.02), o, 8)
#%% scheduler state dict and warnings
o = make()
s = S.StepLR(o, step_size=2, gamma=0.3)
sd = s.state_dict()
print(sorted(sd.keys()), sd['step_size'], sd['base_lrs'], sd['last_epoch'])
s.step()
s.step(5)
print(s.last_epoch, s.get_last_lr())
o = make()
s = S.LambdaLR(o, lr_lambda=lambda e: 0.5)
print(sorted(s.state_dict().keys()), s.state_dict()['lr_lambdas'])
o = make()
s = S.ExponentialLR(o, gamma=0.5)
s.step()
print(s.get_lr(), s.get_last_lr())
try:
    S.StepLR(make(), step_size=2, last_epoch=3)
except Exception as e:
    print(type(e).__name__, e)
