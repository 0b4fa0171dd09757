import torch
import torch.nn as nn
def r(t, d=5):
    return t.detach().round(decimals=d) + 0.0
def train(opt_cls, steps=3, **kw):
    torch.manual_seed(0)
    m = nn.Linear(3, 1)
    opt = opt_cls(m.parameters(), **kw)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return r(m.weight), r(loss)
#%% optimizers converge the same
for cls, kw in [(torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)), (torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
                (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1)), (torch.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)),
                (torch.optim.Adagrad, dict(lr=0.1, lr_decay=0.01)), (torch.optim.Adadelta, dict(lr=1.0)), (torch.optim.Adamax, dict(lr=0.01)),
                (torch.optim.NAdam, dict(lr=0.01)), (torch.optim.RAdam, dict(lr=0.01)), (torch.optim.ASGD, dict(lr=0.01)), (torch.optim.Rprop, dict(lr=0.01))]:
    print(cls.__name__, *train(cls, **kw))
#%% LBFGS closure
torch.manual_seed(0)
w = torch.randn(2, requires_grad=True)
opt = torch.optim.LBFGS([w], lr=0.5, max_iter=5)
def closure():
    opt.zero_grad()
    loss = ((w - torch.tensor([1.0, -2.0])) ** 2).sum()
    loss.backward()
    return loss
for _ in range(3):
    l = opt.step(closure)
print(r(w), r(l))
#%% param groups and state_dict
m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
opt = torch.optim.SGD([{"params": m[0].parameters()}, {"params": m[1].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
m(torch.ones(1, 2)).sum().backward()
opt.step()
sd = opt.state_dict()
print([g["lr"] for g in sd["param_groups"]], sd["param_groups"][0]["params"], sorted(sd["state"].keys()), sorted(sd["state"][0].keys()))
opt2 = torch.optim.SGD(m.parameters(), lr=1.0)
try:
    opt2.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
opt.add_param_group({"params": [nn.Parameter(torch.ones(1))], "lr": 0.01})
print(len(opt.param_groups), opt.param_groups[2]["momentum"])
print(opt)
#%% schedulers
def lrs(sched_fn, n=6, **okw):
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0, **okw)
    s = sched_fn(opt)
    out = []
    for _ in range(n):
        opt.step()
        s.step()
        out.append(round(opt.param_groups[0]["lr"], 6))
    return out
S = torch.optim.lr_scheduler
print(lrs(lambda o: S.StepLR(o, 2, gamma=0.5)), lrs(lambda o: S.MultiStepLR(o, [1, 4], 0.1)))
print(lrs(lambda o: S.ExponentialLR(o, 0.9)), lrs(lambda o: S.CosineAnnealingLR(o, 4, eta_min=0.1)))
print(lrs(lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1))), lrs(lambda o: S.LinearLR(o, 0.25, 1.0, 3)), lrs(lambda o: S.ConstantLR(o, 0.5, 2)))
print(lrs(lambda o: S.OneCycleLR(o, 1.0, total_steps=7)), lrs(lambda o: S.CyclicLR(o, 0.1, 1.0, step_size_up=2), momentum=0.9))
print(lrs(lambda o: S.CosineAnnealingWarmRestarts(o, 2, 2)), lrs(lambda o: S.PolynomialLR(o, 4, 2.0)), lrs(lambda o: S.MultiplicativeLR(o, lambda e: 0.9)))
print(lrs(lambda o: S.SequentialLR(o, [S.ConstantLR(o, 0.1, 2), S.ExponentialLR(o, 0.5)], milestones=[2])))
print(lrs(lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, 3), S.ExponentialLR(o, 0.9)])))
#%% reduce on plateau
p = nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([p], lr=1.0)
s = S.ReduceLROnPlateau(opt, patience=1, factor=0.5, threshold=0.01)
out = []
for loss in [1.0, 0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.5]:
    s.step(loss)
    out.append(opt.param_groups[0]["lr"])
print(out, s.get_last_lr(), s.num_bad_epochs)
#%% scheduler warnings and state
p = nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([p], lr=1.0)
s = S.StepLR(opt, 1, 0.5)
s.step()
print(s.get_last_lr(), s.last_epoch, sorted(s.state_dict().keys()))
#%% optimizer errors
p = nn.Parameter(torch.ones(1))
for cls, kw in [(torch.optim.Adam, dict(lr=-1)), (torch.optim.Adam, dict(eps=-1)), (torch.optim.Adam, dict(weight_decay=-1)), (torch.optim.RMSprop, dict(alpha=-1)),
                (torch.optim.SGD, dict(lr=0.1, momentum=-1)), (torch.optim.Adagrad, dict(lr_decay=-1)), (torch.optim.SGD, dict())]:
    try:
        cls([p], **kw)
        print("ok", cls.__name__)
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.optim.SGD([torch.ones(1)], lr=0.1)
except Exception as e:
    print(type(e).__name__, e)
#%% zero_grad and grad accumulation
torch.manual_seed(0)
m = nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(2):
    m(torch.ones(1, 2)).sum().backward()
print(m.weight.grad, m.bias.grad)
opt.zero_grad()
print(m.weight.grad)
#%% swa utils
from torch.optim.swa_utils import AveragedModel, SWALR
torch.manual_seed(0)
m = nn.Linear(2, 1)
swa = AveragedModel(m)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2)
for _ in range(3):
    opt.zero_grad(); m(torch.ones(1, 2)).sum().backward(); opt.step(); swa.update_parameters(m); sched.step()
print(r(swa.module.weight), swa.n_averaged, opt.param_groups[0]["lr"])
