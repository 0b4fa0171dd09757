import warnings
import torch
import torch.nn as nn
def opt():
    return torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
#%% several schedulers over epochs
for make in [lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
             lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 3], gamma=0.1),
             lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.5),
             lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=3),
             lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=6),
             lambda o: torch.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2),
             lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)),
             lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0)]:
    o = opt()
    s = make(o)
    lrs = []
    for _ in range(5):
        o.step()
        s.step()
        lrs.append(round(s.get_last_lr()[0], 6))
    print(type(s).__name__, lrs)
#%% ReduceLROnPlateau and warm restarts
o = opt()
s = torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1)
for loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5]:
    s.step(loss)
    print(o.param_groups[0]["lr"], end=" ")
print()
o = opt()
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2)
print([round((o.step(), s.step(), s.get_last_lr()[0])[2], 5) for _ in range(6)])
#%% chained and sequential schedulers
o = opt()
s1 = torch.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2)
s2 = torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)
seq = torch.optim.lr_scheduler.SequentialLR(o, [s1, s2], milestones=[2])
out = []
for _ in range(4):
    o.step(); seq.step(); out.append(round(o.param_groups[0]["lr"], 6))
print(out)
o = opt()
ch = torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2), torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)])
out = []
for _ in range(3):
    o.step(); ch.step(); out.append(round(o.param_groups[0]["lr"], 6))
print(out, sorted(ch.state_dict().keys()))
#%% scheduler state_dict round trip
o = opt()
s = torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.1)
for _ in range(3):
    o.step(); s.step()
sd = s.state_dict()
print(sorted(sd), sd["last_epoch"], sd["_last_lr"])
o2 = opt()
s2 = torch.optim.lr_scheduler.StepLR(o2, step_size=2, gamma=0.1)
s2.load_state_dict(sd)
o2.step(); s2.step()
print(s2.last_epoch, s2.get_last_lr())
