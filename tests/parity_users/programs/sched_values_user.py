import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S


def model():
    torch.manual_seed(0)
    return nn.Linear(2, 1)


def run(make_sched, steps=12, opt_cls=optim.SGD, metric=None, **okw):
    m = model()
    opt = opt_cls(m.parameters(), **okw)
    sch = make_sched(opt)
    lrs = []
    for i in range(steps):
        opt.step()
        if metric is None:
            sch.step()
        else:
            sch.step(metric(i))
        lrs.append(opt.param_groups[0]["lr"])
    return lrs, opt, sch
#%% onecycle values full precision
lrs, opt, sch = run(lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=12), steps=11, lr=0.01, momentum=0.9)
print(lrs)
print([g["momentum"] for g in opt.param_groups], sch.get_last_lr())
#%% onecycle linear anneal three phase
lrs, opt, sch = run(lambda o: S.OneCycleLR(o, max_lr=[0.2], epochs=2, steps_per_epoch=5, anneal_strategy="linear", three_phase=True, div_factor=10, final_div_factor=100), steps=9, lr=0.01, momentum=0.9)
print(lrs, opt.param_groups[0]["momentum"])
#%% onecycle with adam betas
lrs, opt, sch = run(lambda o: S.OneCycleLR(o, max_lr=0.01, total_steps=6, pct_start=0.5), steps=5, opt_cls=optim.Adam, lr=0.001)
print(lrs, opt.param_groups[0]["betas"])
#%% onecycle too many steps
lrs, opt, sch = run(lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=3), steps=2, lr=0.01)
try:
    sch.step()
    sch.step()
except ValueError as e:
    print(type(e).__name__, e)
#%% cosine annealing full precision
lrs, _, _ = run(lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001), steps=12, lr=0.1)
print(lrs)
#%% cosine warm restarts with T_mult
lrs, _, sch = run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01), steps=12, lr=0.1)
print(lrs, sch.T_cur, sch.T_i)
#%% warm restarts fractional epochs
m = model()
opt = optim.SGD(m.parameters(), lr=0.1)
sch = S.CosineAnnealingWarmRestarts(opt, T_0=3)
out = []
for epoch in range(2):
    for i in range(4):
        sch.step(epoch + i / 4)
        out.append(opt.param_groups[0]["lr"])
print(out)
#%% reduce on plateau modes
for kw in (dict(mode="min", patience=1), dict(mode="max", patience=0, factor=0.5, threshold=0.1, threshold_mode="abs"), dict(mode="min", patience=0, cooldown=2, min_lr=0.02)):
    vals = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8]
    lrs, opt, sch = run(lambda o: S.ReduceLROnPlateau(o, **kw), steps=10, metric=lambda i: vals[i], lr=0.1)
    print(kw, lrs, sch.num_bad_epochs, sch.best, sch.get_last_lr())
#%% plateau with eps and state dict
lrs, opt, sch = run(lambda o: S.ReduceLROnPlateau(o, patience=0, factor=0.1, eps=1e-3), steps=6, metric=lambda i: 1.0, lr=0.01)
print(lrs, sorted(k for k in sch.state_dict() if k not in ("_last_lr",)), sch.state_dict()["best"])
#%% sequential lr
lrs, _, sch = run(lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.9)], milestones=[3]), steps=8, lr=0.1)
print(lrs, sch.get_last_lr())
#%% sequential lr three schedulers
lrs, _, sch = run(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=2), S.StepLR(o, 2, 0.5), S.CosineAnnealingLR(o, 4)], milestones=[2, 5]), steps=10, lr=1.0)
print(lrs)
#%% chained scheduler
lrs, _, sch = run(lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)]), steps=6, lr=1.0)
print(lrs, sch.get_last_lr())
#%% cyclic lr modes
for mode in ("triangular", "triangular2", "exp_range"):
    lrs, opt, _ = run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode=mode, gamma=0.9), steps=10, lr=0.01, momentum=0.9)
    print(mode, lrs, opt.param_groups[0]["momentum"])
#%% cyclic lr asymmetric and no momentum cycling
lrs, opt, _ = run(lambda o: S.CyclicLR(o, base_lr=[0.001], max_lr=0.004, step_size_up=3, step_size_down=1, cycle_momentum=False), steps=9, lr=0.001)
print(lrs)
#%% polynomial linear constant multiplicative lambda
for mk in (lambda o: S.PolynomialLR(o, total_iters=4, power=2.0), lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.2, total_iters=4),
           lambda o: S.ConstantLR(o, factor=0.25, total_iters=3), lambda o: S.MultiplicativeLR(o, lambda e: 0.95), lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1)),
           lambda o: S.MultiStepLR(o, [2, 5, 5], gamma=0.3), lambda o: S.StepLR(o, 3, gamma=0.7), lambda o: S.ExponentialLR(o, 0.8)):
    lrs, _, sch = run(mk, steps=7, lr=0.1)
    print(type(sch).__name__, lrs)
#%% scheduler state dict round trip mid training
lrs, opt, sch = run(lambda o: S.StepLR(o, 2, gamma=0.5), steps=3, lr=1.0)
sd = sch.state_dict()
print(sorted(sd), sd["last_epoch"], sd["_last_lr"])
m = model()
o2 = optim.SGD(m.parameters(), lr=1.0)
s2 = S.StepLR(o2, 2, gamma=0.5)
s2.load_state_dict(sd)
o2.load_state_dict(opt.state_dict())
for _ in range(3):
    o2.step()
    s2.step()
print(o2.param_groups[0]["lr"], s2.last_epoch, s2.get_last_lr())
#%% param groups with different lr
m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
opt = optim.SGD([{"params": m[0].parameters()}, {"params": m[1].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
sch = S.LambdaLR(opt, [lambda e: 0.9 ** e, lambda e: 1.0 / (1 + e)])
for _ in range(3):
    opt.step()
    sch.step()
print(sch.get_last_lr(), [g["initial_lr"] for g in opt.param_groups], sch.base_lrs)
#%% lambda lr state dict with callable
sd = sch.state_dict()
print(sorted(sd), sd["lr_lambdas"])
#%% scheduler on optimizer without initial_lr
m = model()
opt = optim.SGD(m.parameters(), lr=0.1)
try:
    S.StepLR(opt, 2, last_epoch=3)
except KeyError as e:
    print(type(e).__name__, e)
#%% get_lr warning outside step
lrs, opt, sch = run(lambda o: S.StepLR(o, 2, gamma=0.5), steps=1, lr=1.0)
print(sch.get_lr())
#%% epoch argument deprecated
m = model()
opt = optim.SGD(m.parameters(), lr=0.1)
sch = S.StepLR(opt, 2, gamma=0.5)
opt.step()
sch.step(3)
print(opt.param_groups[0]["lr"], sch.last_epoch)
#%% swa lr
from torch.optim.swa_utils import SWALR, AveragedModel
lrs, _, sch = run(lambda o: SWALR(o, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos"), steps=5, lr=0.5)
print(lrs)
lrs, _, sch = run(lambda o: SWALR(o, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear"), steps=4, lr=0.5)
print(lrs)
#%% optimizer steps values (12 digits: torch's add(alpha=) is a fused multiply-add)
for cls, kw in ((optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)), (optim.Adam, dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                (optim.AdamW, dict(lr=0.01)), (optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)), (optim.Adagrad, dict(lr=0.1, lr_decay=0.01)),
                (optim.Adadelta, dict()), (optim.Adamax, dict()), (optim.NAdam, dict(momentum_decay=0.004)), (optim.RAdam, dict(decoupled_weight_decay=True, weight_decay=0.1)),
                (optim.ASGD, dict(lr=0.1)), (optim.Rprop, dict(lr=0.05)), (optim.Adam, dict(lr=0.01, maximize=True))):
    w = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt = cls([w], **kw)
    for i in range(4):
        opt.zero_grad()
        ((w ** 2).sum() + w[0] * i).backward()
        opt.step()
    print(cls.__name__, [round(v, 12) for v in w.tolist()])
