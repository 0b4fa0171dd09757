import torch
import torch.nn as nn
from torch.optim import lr_scheduler as S


def mk(lr=0.1):
    return torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=lr)
#%% scheduler.step before optimizer.step warns
o = mk()
s = S.StepLR(o, step_size=1, gamma=0.5)
s.step()
print(s.get_last_lr())
#%% get_lr outside step warns
o = mk()
s = S.ExponentialLR(o, gamma=0.5)
print(s.get_lr())
o.step()
s.step()
print(s.get_lr(), s.get_last_lr())
#%% step with an epoch argument is deprecated
o = mk()
s = S.StepLR(o, step_size=2, gamma=0.5)
o.step()
s.step(5)
print(s.last_epoch, s.get_last_lr())
#%% LambdaLR state_dict round trip with a lambda and a callable object
class Warm:
    def __init__(self, n):
        self.n = n
    def __call__(self, e):
        return min(1.0, (e + 1) / self.n)
o = mk()
s = S.LambdaLR(o, lr_lambda=Warm(4))
for _ in range(2):
    o.step(); s.step()
sd = s.state_dict()
print(sorted(sd.keys()), sd["lr_lambdas"], sd["last_epoch"], sd["base_lrs"])
o2 = mk()
s2 = S.LambdaLR(o2, lr_lambda=Warm(10))
s2.load_state_dict(sd)
print(s2.lr_lambdas[0].n, s2.last_epoch)
for _ in range(3):
    o2.step(); s2.step()
    print(s2.get_last_lr())
o3 = mk()
s3 = S.LambdaLR(o3, lr_lambda=lambda e: 0.9 ** e)
print(s3.state_dict()["lr_lambdas"])
#%% MultiplicativeLR round trip and multiple groups
m1, m2 = nn.Linear(1, 1), nn.Linear(1, 1)
o = torch.optim.SGD([{"params": m1.parameters()}, {"params": m2.parameters(), "lr": 1.0}], lr=0.1)
s = S.MultiplicativeLR(o, lr_lambda=[lambda e: 0.5, lambda e: 0.9])
for _ in range(3):
    o.step(); s.step()
print(s.get_last_lr())
sd = s.state_dict()
print(sd["lr_lambdas"], sd["last_epoch"], sd["_last_lr"])
try:
    S.LambdaLR(o, lr_lambda=[lambda e: 1.0])
except Exception as e:
    print(type(e).__name__, e)
#%% constructing with last_epoch without initial_lr
o = mk()
try:
    S.StepLR(o, step_size=2, last_epoch=3)
except Exception as e:
    print(type(e).__name__, e)
o.param_groups[0]["initial_lr"] = 0.4
s = S.StepLR(o, step_size=2, gamma=0.1, last_epoch=3)
print(s.get_last_lr(), s.base_lrs)
#%% scheduler on a non-optimizer
try:
    S.StepLR(object(), step_size=2)
except Exception as e:
    print(type(e).__name__, e)
#%% PolynomialLR, LinearLR errors
o = mk()
for bad in [dict(start_factor=0.0), dict(start_factor=2.0), dict(end_factor=1.5)]:
    try:
        S.LinearLR(o, **bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    S.ConstantLR(o, factor=2.0)
except Exception as e:
    print(type(e).__name__, e)
s = S.PolynomialLR(o, total_iters=4, power=2.0)
for _ in range(6):
    o.step(); s.step()
    print(s.get_last_lr())
#%% CosineAnnealingLR eta_min and beyond T_max
o = mk(1.0)
s = S.CosineAnnealingLR(o, T_max=3, eta_min=0.1)
out = []
for _ in range(8):
    o.step(); s.step()
    out.append(s.get_last_lr()[0])
print(out)
try:
    S.CosineAnnealingWarmRestarts(mk(), T_0=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    S.CosineAnnealingWarmRestarts(mk(), T_0=2, T_mult=1.5)
except Exception as e:
    print(type(e).__name__, e)
