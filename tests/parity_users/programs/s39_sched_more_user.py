import torch
import torch.nn as nn
from torch.optim import lr_scheduler as S


def mk(lr=0.1, opt=torch.optim.SGD, **kw):
    model = nn.Linear(2, 1)
    return opt(model.parameters(), lr=lr, **kw)
#%% SequentialLR warmup then step, printed each epoch
o = mk()
w = S.LinearLR(o, start_factor=0.25, total_iters=3)
d = S.StepLR(o, step_size=2, gamma=0.5)
s = S.SequentialLR(o, schedulers=[w, d], milestones=[3])
for e in range(8):
    o.step()
    s.step()
    print(e, s.get_last_lr(), s.last_epoch)
print(sorted(s.state_dict().keys()))
#%% SequentialLR errors
o = mk()
w = S.ConstantLR(o, factor=0.5, total_iters=2)
try:
    S.SequentialLR(o, schedulers=[w], milestones=[1, 2])
except Exception as e:
    print(type(e).__name__, e)
o2 = mk()
try:
    S.SequentialLR(o, schedulers=[w, S.StepLR(o2, 2)], milestones=[2])
except Exception as e:
    print(type(e).__name__, e)
try:
    S.SequentialLR(o, schedulers=[], milestones=[])
except Exception as e:
    print(type(e).__name__, e)
try:
    S.SequentialLR(o, schedulers=[w, 3], milestones=[2])
except Exception as e:
    print(type(e).__name__, e)
#%% ChainedScheduler multiplies
o = mk(lr=1.0)
s = S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)])
for e in range(5):
    o.step()
    s.step()
    print(e, s.get_last_lr())
sd = s.state_dict()
print(sorted(sd.keys()), len(sd["_schedulers"]))
o2 = mk(lr=1.0)
s2 = S.ChainedScheduler([S.ConstantLR(o2, factor=0.1, total_iters=2), S.ExponentialLR(o2, gamma=0.9)])
s2.load_state_dict(sd)
print(s2.get_last_lr(), [x.last_epoch for x in s2._schedulers])
#%% ChainedScheduler with optimizer arg and errors
o = mk()
s = S.ChainedScheduler([S.StepLR(o, 1, 0.5)], optimizer=o)
o.step(); s.step(); print(s.get_last_lr())
o2 = mk()
try:
    S.ChainedScheduler([S.StepLR(o, 1), S.StepLR(o2, 1)])
except Exception as e:
    print(type(e).__name__, e)
try:
    S.ChainedScheduler([S.StepLR(o, 1)], optimizer=o2)
except Exception as e:
    print(type(e).__name__, e)
#%% OneCycleLR cos / linear / three_phase
for strat in ["cos", "linear"]:
    for three in [False, True]:
        o = mk(momentum=0.9)
        s = S.OneCycleLR(o, max_lr=1.0, total_steps=10, anneal_strategy=strat, three_phase=three,
                         pct_start=0.3, div_factor=10, final_div_factor=100)
        lrs, moms = [], []
        for _ in range(10):
            lrs.append(round(o.param_groups[0]["lr"], 6))
            moms.append(round(o.param_groups[0]["momentum"], 6))
            o.step()
            s.step()
        print(strat, three, lrs)
        print(moms)
#%% OneCycleLR epochs*steps_per_epoch and errors
o = mk(momentum=0.9)
s = S.OneCycleLR(o, max_lr=[0.5], epochs=2, steps_per_epoch=3)
print(s.total_steps, o.param_groups[0]["initial_lr"], o.param_groups[0]["max_lr"], o.param_groups[0]["min_lr"])
for bad in [dict(max_lr=1.0), dict(max_lr=1.0, total_steps=0), dict(max_lr=1.0, epochs=0, steps_per_epoch=2),
            dict(max_lr=1.0, total_steps=5, pct_start=1.5), dict(max_lr=1.0, total_steps=5, anneal_strategy="exp"),
            dict(max_lr=[1.0, 2.0], total_steps=5), dict(max_lr=1.0, epochs=2, steps_per_epoch=-1)]:
    try:
        S.OneCycleLR(mk(momentum=0.9), **bad)
        print("ok", bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    S.OneCycleLR(mk(), max_lr=1.0, total_steps=3)
except Exception as e:
    print(type(e).__name__, e)
o = mk(opt=torch.optim.Adam)
s = S.OneCycleLR(o, max_lr=1.0, total_steps=4)
print(o.param_groups[0]["betas"])
for _ in range(4):
    o.step(); s.step()
try:
    o.step(); s.step()
except Exception as e:
    print(type(e).__name__, e)
#%% ReduceLROnPlateau modes
for mode, tm in [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")]:
    o = mk(lr=1.0)
    s = S.ReduceLROnPlateau(o, mode=mode, factor=0.5, patience=1, threshold=0.1, threshold_mode=tm, cooldown=1,
                            min_lr=0.1)
    seq = [1.0, 0.95, 0.93, 0.92, 1.5, 0.5, 0.49, 0.48, 0.47, 0.46] if mode == "min" else [1.0, 1.05, 1.06, 2.0, 2.01, 2.02, 2.03, 2.04]
    out = []
    for v in seq:
        s.step(v)
        out.append((o.param_groups[0]["lr"], s.num_bad_epochs, s.cooldown_counter))
    print(mode, tm, out, s.best)
#%% ReduceLROnPlateau min_lr list, eps, errors, state_dict
m1, m2 = nn.Linear(1, 1), nn.Linear(1, 1)
o = torch.optim.SGD([{"params": m1.parameters()}, {"params": m2.parameters(), "lr": 0.01}], lr=1.0)
s = S.ReduceLROnPlateau(o, patience=0, min_lr=[0.3, 0.009], eps=1e-3)
for v in range(6):
    s.step(5.0)
    print([g["lr"] for g in o.param_groups], s.get_last_lr())
print(sorted(k for k in s.state_dict().keys()))
for bad in [dict(min_lr=[0.1]), dict(factor=1.0), dict(mode="avg"), dict(threshold_mode="x")]:
    try:
        S.ReduceLROnPlateau(o, **bad)
    except Exception as e:
        print(type(e).__name__, e)
s2 = S.ReduceLROnPlateau(o)
s2.load_state_dict(s.state_dict())
print(s2.best, s2.num_bad_epochs, s2.last_epoch, s2.min_lrs)
#%% CyclicLR triangular, triangular2, exp_range
for mode in ["triangular", "triangular2", "exp_range"]:
    o = mk(momentum=0.9)
    s = S.CyclicLR(o, base_lr=0.1, max_lr=1.0, step_size_up=2, step_size_down=3, mode=mode, gamma=0.9)
    out = []
    for _ in range(12):
        out.append((round(s.get_last_lr()[0], 6), round(o.param_groups[0]["momentum"], 6)))
        o.step(); s.step()
    print(mode, out)
o = mk(momentum=0.9)
s = S.CyclicLR(o, base_lr=0.1, max_lr=1.0, step_size_up=2, scale_fn=lambda x: 0.5 ** x, scale_mode="cycle")
for _ in range(7):
    o.step(); s.step()
print(s.get_last_lr())
try:
    S.CyclicLR(mk(), base_lr=0.1, max_lr=1.0, mode="tri")
except Exception as e:
    print(type(e).__name__, e)
try:
    S.CyclicLR(mk(opt=torch.optim.Adagrad), base_lr=0.1, max_lr=1.0)
except Exception as e:
    print(type(e).__name__, e)
print(S.CyclicLR(mk(opt=torch.optim.Adam), base_lr=0.1, max_lr=1.0, cycle_momentum=False).get_last_lr())
