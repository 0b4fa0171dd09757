import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn
#%% swa averaged model over steps
torch.manual_seed(0)
m = nn.Linear(3, 2)
swa = AveragedModel(m)
print(swa)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for step in range(4):
    opt.zero_grad()
    m(torch.randn(5, 3)).pow(2).sum().backward()
    opt.step()
    swa.update_parameters(m)
    print(step, swa.n_averaged, [p.detach().round(decimals=5) for p in swa.module.parameters()])
print(sorted(swa.state_dict().keys()))
print(swa(torch.ones(1, 3)).detach().round(decimals=5))
#%% ema averaged model
torch.manual_seed(1)
m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
ema = AveragedModel(m, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
for step in range(3):
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.5)
    m(torch.randn(4, 2))
    ema.update_parameters(m)
    print(step, [t.round(decimals=5) for t in ema.module.state_dict().values()])
#%% custom avg_fn
m = nn.Linear(1, 1, bias=False)
with torch.no_grad():
    m.weight.fill_(1.0)
avg = AveragedModel(m, avg_fn=lambda a, p, n: a * 0.5 + p * 0.5)
for v in [3.0, 5.0, 9.0]:
    with torch.no_grad():
        m.weight.fill_(v)
    avg.update_parameters(m)
    print(avg.module.weight.item(), avg.n_averaged.item())
#%% swalr schedule
m = nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
for i in range(6):
    print(i, [round(g["lr"], 8) for g in opt.param_groups], [round(x, 8) for x in sched.get_last_lr()])
    opt.step()
    sched.step()
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = SWALR(opt, swa_lr=[0.2], anneal_epochs=2)
for i in range(4):
    opt.step(); sched.step()
    print(round(opt.param_groups[0]["lr"], 8))
for bad in [dict(swa_lr=0.1, anneal_strategy="exp"), dict(swa_lr=0.1, anneal_epochs=-1), dict(swa_lr=[0.1, 0.2])]:
    try:
        SWALR(torch.optim.SGD(m.parameters(), lr=1.0), **bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
#%% update_bn
torch.manual_seed(2)
m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.BatchNorm1d(4, momentum=0.3))
loader = [torch.randn(6, 3) * 2 + 1 for _ in range(3)]
update_bn(loader, m)
print(m[1].running_mean.round(decimals=4), m[1].running_var.round(decimals=4), m[1].num_batches_tracked, m[3].momentum)
print(m.training)
loader2 = [(torch.randn(4, 3), torch.zeros(4)) for _ in range(2)]
update_bn(loader2, m)
print(m[3].running_mean.round(decimals=4))
update_bn([], nn.Linear(1, 1))
#%% optimizer extras maximize foreach lr tensor
torch.manual_seed(3)
for name, kw in [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
                 ("Adam", dict(lr=torch.tensor(0.01, dtype=torch.float64), amsgrad=True, maximize=True)),
                 ("AdamW", dict(lr=0.01, foreach=True, weight_decay=0.1)),
                 ("Adamax", dict(lr=0.02, weight_decay=0.1)),
                 ("NAdam", dict(lr=0.01, momentum_decay=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
                 ("RAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.2)),
                 ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
                 ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5)),
                 ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.01)),
                 ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
                 ("ASGD", dict(lr=0.01, t0=2, lambd=0.01))]:
    w = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    opt = getattr(torch.optim, name)([w], **kw)
    for _ in range(5):
        opt.zero_grad()
        ((w - 0.5) ** 3).sum().backward()
        opt.step()
    print(name, [float(f"{v:.10g}") for v in w.tolist()], sorted(opt.state[w].keys()))
#%% optimizer reprs and zero_grad modes
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.Adam([w], lr=1e-3, betas=(0.8, 0.9))
print(opt)
print(torch.optim.SGD([{"params": [w]}, {"params": [torch.zeros(1, requires_grad=True)], "lr": 3}], lr=0.1))
w.grad = torch.ones(2)
opt.zero_grad(set_to_none=False)
print(w.grad)
opt.zero_grad()
print(w.grad)
#%% optimizer load_state_dict mismatches
a = torch.zeros(2, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([a, b])
a.grad = torch.ones(2); b.grad = torch.ones(3)
opt.step()
sd = opt.state_dict()
print(sd["param_groups"], sorted(sd["state"][0].keys()), sd["state"][0]["step"])
for params in [[a], [[a, b], [a]]]:
    try:
        o2 = torch.optim.Adam(params if not isinstance(params[0], list) else [{"params": p} for p in params])
        o2.load_state_dict(sd)
    except ValueError as e:
        print(e)
o3 = torch.optim.Adam([a, b], lr=5.0)
o3.load_state_dict(sd)
print(o3.param_groups[0]["lr"], o3.state[b]["exp_avg"])
#%% scheduler extras
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
scheds = [torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)]
for i in range(6):
    opt.step(); scheds[0].step()
    print(i, round(scheds[0].get_last_lr()[0], 8))
opt = torch.optim.SGD([w], lr=1.0)
s = torch.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.5 if e % 2 else 0.9)
for i in range(4):
    opt.step(); s.step()
print([round(g["lr"], 8) for g in opt.param_groups], s.state_dict().keys() if False else sorted(s.state_dict()))
opt = torch.optim.SGD([w], lr=1.0)
s = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=3)
print([round(s.get_last_lr()[0], 6) for _ in range(5) if (opt.step(), s.step()) or True])
for bad in [dict(start_factor=0), dict(end_factor=1.5)]:
    try:
        torch.optim.lr_scheduler.LinearLR(opt, **bad)
    except ValueError as e:
        print(e)
try:
    torch.optim.lr_scheduler.StepLR(object(), 2)
except TypeError as e:
    print(e)
#%% reduce on plateau modes
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.1, threshold_mode="abs", cooldown=1, min_lr=0.1)
for i, v in enumerate([1.0, 1.05, 1.08, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]):
    s.step(v)
    print(i, s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best)
for bad in [dict(mode="med"), dict(factor=1.0), dict(threshold_mode="x")]:
    try:
        torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **bad)
    except ValueError as e:
        print(e)
