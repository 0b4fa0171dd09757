import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler as S
def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
def data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(16, 3, generator=g, dtype=torch.float64), torch.randn(16, 1, generator=g, dtype=torch.float64)
#%% every optimizer with two param groups
x, y = data()
specs = [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("Adam", dict(lr=0.01, amsgrad=True)),
         ("AdamW", dict(lr=0.01, weight_decay=0.1)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
         ("Adadelta", dict(lr=1.0)), ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
         ("Adamax", dict(lr=0.02)), ("NAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.01)),
         ("RAdam", dict(lr=0.01)), ("ASGD", dict(lr=0.01)), ("Rprop", dict(lr=0.01)), ("SGD", dict(lr=0.1, dampening=0.1, momentum=0.5, weight_decay=1e-3, maximize=True))]
for name, kw in specs:
    m = model()
    opt = getattr(optim, name)([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": kw["lr"] / 2}], **kw)
    for _ in range(5):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    print(name, f"{loss.item():.10f}", f"{m[2].bias.item():.10f}")
#%% add_param_group and defaults
m = model()
opt = optim.Adam(m[0].parameters(), lr=0.01, betas=(0.8, 0.9))
opt.add_param_group({"params": m[2].weight, "lr": 0.5})
print(len(opt.param_groups), sorted(opt.param_groups[1].keys()))
print(opt.param_groups[1]["betas"], opt.param_groups[1]["lr"])
try:
    opt.add_param_group({"params": m[0].weight})
except ValueError as e:
    print(e)
try:
    opt.add_param_group({"params": torch.ones(1)})
except ValueError as e:
    print(e)
try:
    opt.add_param_group({"params": {m[2].bias}})
except TypeError as e:
    print(e)
#%% state_dict round trip continues identically
x, y = data()
def run(opt_cls, steps, sd=None, **kw):
    m = model()
    opt = opt_cls(m.parameters(), **kw)
    if sd is not None:
        m.load_state_dict(sd[0])
        opt.load_state_dict(sd[1])
    for _ in range(steps):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        opt.step()
    return m, opt
for cls, kw in [(optim.Adam, dict(lr=0.01)), (optim.SGD, dict(lr=0.1, momentum=0.9)), (optim.RMSprop, dict(lr=0.01)), (optim.Adagrad, dict(lr=0.1))]:
    m1, _ = run(cls, 6, **kw)
    m2, o2 = run(cls, 3, **kw)
    import copy
    sd = (copy.deepcopy(m2.state_dict()), copy.deepcopy(o2.state_dict()))
    m3, o3 = run(cls, 3, sd, **kw)
    print(cls.__name__, torch.equal(m1[0].weight, m3[0].weight), sorted(o3.state_dict()["state"][0].keys()))
#%% optimizer state_dict structure
m = model()
opt = optim.SGD([{"params": m[0].parameters(), "lr": 0.1}, {"params": m[2].parameters()}], lr=0.01, momentum=0.9)
((m(torch.ones(1, 3, dtype=torch.float64))) ** 2).sum().backward()
opt.step()
sd = opt.state_dict()
print(sorted(sd["state"].keys()), [g["params"] for g in sd["param_groups"]])
print(sd["param_groups"][0])
print(type(sd["state"][0]["momentum_buffer"]).__name__)
opt2 = optim.SGD(model().parameters(), lr=0.5)
try:
    opt2.load_state_dict(sd)
except ValueError as e:
    print(e)
#%% schedulers print lr per epoch
def sched_run(make, n=8, metric=None):
    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    s = make(opt)
    lrs = []
    for ep in range(n):
        opt.step()
        if metric is None:
            s.step()
        else:
            s.step(metric[ep])
        lrs.append(round(opt.param_groups[0]["lr"], 8))
    return lrs, s.get_last_lr() if hasattr(s, "get_last_lr") else None
print(sched_run(lambda o: S.StepLR(o, 3, gamma=0.5)))
print(sched_run(lambda o: S.MultiStepLR(o, [2, 5], gamma=0.1)))
print(sched_run(lambda o: S.ExponentialLR(o, 0.9)))
print(sched_run(lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.01)))
print(sched_run(lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4)))
print(sched_run(lambda o: S.ConstantLR(o, factor=0.5, total_iters=3)))
print(sched_run(lambda o: S.PolynomialLR(o, total_iters=5, power=2.0)))
print(sched_run(lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1))))
print(sched_run(lambda o: S.MultiplicativeLR(o, lambda e: 0.95)))
print(sched_run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), n=10))
#%% chained sequential and onecycle
print(sched_run(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.8)], milestones=[3]), n=8))
print(sched_run(lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)]), n=6))
p = nn.Parameter(torch.zeros(1))
opt = optim.SGD([p], lr=0.1, momentum=0.9)
oc = S.OneCycleLR(opt, max_lr=1.0, total_steps=10)
vals = []
for _ in range(10):
    opt.step()
    vals.append((round(opt.param_groups[0]["lr"], 6), round(opt.param_groups[0]["momentum"], 6)))
    oc.step() if len(vals) < 10 else None
print(vals)
try:
    for _ in range(3):
        oc.step()
except ValueError as e:
    print(e)
print(sched_run(lambda o: S.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=4, anneal_strategy="linear", three_phase=True), n=7))
#%% cyclic lr modes
for mode in ("triangular", "triangular2", "exp_range"):
    print(mode, sched_run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode=mode, gamma=0.9), n=9)[0])
#%% reduce on plateau behaviour
print(sched_run(lambda o: S.ReduceLROnPlateau(o, patience=1, factor=0.5), n=8, metric=[1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]))
print(sched_run(lambda o: S.ReduceLROnPlateau(o, mode="max", patience=0, threshold=0.1, threshold_mode="abs", cooldown=1, min_lr=0.02), n=8, metric=[1, 1.05, 1.2, 1.25, 1.26, 1.27, 1.28, 1.29]))
p = nn.Parameter(torch.zeros(1))
opt = optim.SGD([p], lr=0.1)
r = S.ReduceLROnPlateau(opt)
print(r.state_dict().keys() if False else sorted(k for k in r.state_dict() if not k.startswith("_")))
try:
    S.ReduceLROnPlateau(opt, mode="bigger")
except ValueError as e:
    print(e)
try:
    S.ReduceLROnPlateau(opt, factor=1.5)
except ValueError as e:
    print(e)
#%% scheduler state dict and last_epoch resume
p = nn.Parameter(torch.zeros(1))
opt = optim.SGD([p], lr=1.0)
s = S.StepLR(opt, 2, 0.5)
for _ in range(3):
    opt.step(); s.step()
sd = s.state_dict()
print(sorted(sd), sd["last_epoch"], sd["_last_lr"])
opt2 = optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
s2 = S.StepLR(opt2, 2, 0.5)
s2.load_state_dict(sd)
opt2.step(); s2.step()
print(s2.get_last_lr(), opt2.param_groups[0]["lr"], s2.last_epoch)
try:
    S.StepLR(optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0), 2, last_epoch=5)
except KeyError as e:
    print("KeyError", e)
#%% lr as tensor and differentiable flags
p = nn.Parameter(torch.ones(2))
opt = optim.Adam([p], lr=torch.tensor(0.01))
p.grad = torch.ones(2)
opt.step()
print(p, opt.param_groups[0]["lr"])
try:
    optim.SGD([p], lr=-1)
except ValueError as e:
    print(e)
try:
    optim.Adam([p], betas=(1.0, 0.9))
except ValueError as e:
    print(e)
try:
    optim.SGD([], lr=0.1)
except ValueError as e:
    print(e)
print(optim.SGD([p], lr=0.1, momentum=0.9))
#%% sparse adam and lbfgs with line search
emb = nn.Embedding(5, 2, sparse=True)
torch.manual_seed(3)
nn.init.normal_(emb.weight)
sa = optim.SparseAdam(emb.parameters(), lr=0.1)
for _ in range(3):
    sa.zero_grad()
    emb(torch.tensor([0, 2, 2])).sum().backward()
    sa.step()
print(emb.weight)
xk = nn.Parameter(torch.tensor([1.5, -0.5], dtype=torch.float64))
lb = optim.LBFGS([xk], lr=1, line_search_fn="strong_wolfe", max_iter=20)
def closure():
    lb.zero_grad()
    f = (1 - xk[0]) ** 2 + 100 * (xk[1] - xk[0] ** 2) ** 2
    f.backward()
    return f
for _ in range(3):
    l = lb.step(closure)
print(xk.detach(), f"{l.item():.8f}", lb.state[xk]["n_iter"], lb.state[xk]["func_evals"])
