import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t, d=5):
    return torch.round(t, decimals=d)
def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
def train(opt_fn, steps=3, **kw):
    m = model()
    opt = opt_fn(m.parameters(), **kw)
    x = torch.linspace(-1, 1, 15).reshape(5, 3)
    for _ in range(steps):
        opt.zero_grad()
        loss = m(x).pow(2).mean()
        loss.backward()
        opt.step()
    return r(m[0].weight[0]), opt
#%% optimizers flags
for name, kw in [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True)),
                 ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                 ("AdamW", dict(lr=0.01, betas=(0.8, 0.9), foreach=False)),
                 ("Adam", dict(lr=0.01, fused=True)),
                 ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
                 ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
                 ("Adadelta", dict(lr=1.0, rho=0.8)), ("Adamax", dict(lr=0.01)), ("NAdam", dict(lr=0.01, momentum_decay=0.004, decoupled_weight_decay=True, weight_decay=0.1)),
                 ("RAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)), ("ASGD", dict(lr=0.01)), ("Rprop", dict(lr=0.01, etas=(0.4, 1.3)))]:
    w, opt = train(getattr(torch.optim, name), **kw)
    print(name, w)
#%% optimizer repr
_, opt = train(torch.optim.AdamW, lr=0.01)
print(opt)
#%% optimizer state dict
_, opt = train(torch.optim.Adam, lr=0.01)
sd = opt.state_dict()
print(sorted(sd["state"][0].keys()), sd["state"][0]["step"], sd["param_groups"][0]["params"], sorted(sd["param_groups"][0].keys()))
#%% add_param_group and zero_grad
m = model()
opt = torch.optim.SGD(m[0].parameters(), lr=0.1)
opt.add_param_group({"params": m[2].parameters(), "lr": 0.01})
print(len(opt.param_groups), opt.param_groups[1]["lr"], opt.param_groups[1]["momentum"])
m(torch.ones(1, 3)).sum().backward()
opt.zero_grad(); print(m[0].weight.grad)
m(torch.ones(1, 3)).sum().backward()
opt.zero_grad(set_to_none=False); print(m[0].weight.grad.abs().sum())
#%% optimizer errors
m = model()
for f in [lambda: torch.optim.SGD(m.parameters(), lr=-1), lambda: torch.optim.Adam(m.parameters(), betas=(1.0, 0.9)), lambda: torch.optim.SGD(m.parameters(), lr=0.1, nesterov=True),
          lambda: torch.optim.SGD([m[0].weight, m[0].weight], lr=0.1), lambda: torch.optim.Adam(m.parameters(), lr=0.1, eps=-1),
          lambda: torch.optim.SGD(m.parameters()), lambda: torch.optim.Adam([{"params": m[0].parameters()}, {"params": m[0].parameters()}])]:
    try:
        f(); print("ok")
    except Exception as e:
        print(type(e).__name__, e)
#%% lbfgs
m = model()
opt = torch.optim.LBFGS(m.parameters(), lr=0.5, line_search_fn="strong_wolfe", max_iter=5)
x = torch.linspace(-1, 1, 15).reshape(5, 3)
def closure():
    opt.zero_grad()
    loss = (m(x) - 1).pow(2).mean()
    loss.backward()
    return loss
for _ in range(2):
    print(r(opt.step(closure), 6))
print(r(m[2].bias))
#%% grad scaler cpu
scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
m = model()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
loss = m(torch.ones(2, 3)).sum()
scaler.scale(loss).backward()
print(m[2].bias.grad)
scaler.unscale_(opt); print(m[2].bias.grad)
scaler.step(opt); scaler.update(); print(scaler.get_scale(), r(m[2].bias))
#%% grad scaler inf
scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=1)
m = model(); opt = torch.optim.SGD(m.parameters(), lr=0.1)
loss = m(torch.ones(2, 3)).sum() * float("inf")
scaler.scale(loss).backward(); b = m[2].bias.clone()
scaler.step(opt); scaler.update(); print(scaler.get_scale(), torch.equal(b, m[2].bias))
print(scaler.state_dict())
#%% cuda grad scaler warn
s = torch.cuda.amp.GradScaler()
print(s.is_enabled())
#%% clip grad
m = model()
m(torch.ones(2, 3)).sum().backward()
print(r(nn.utils.clip_grad_norm_(m.parameters(), 0.5)), r(nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type="inf")))
nn.utils.clip_grad_value_(m.parameters(), 0.01); print(m[0].weight.grad.abs().max())
print(r(nn.utils.get_total_norm([p.grad for p in m.parameters()])))
m[0].weight.grad[0, 0] = float("nan")
try:
    nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
print(nn.utils.clip_grad_norm_(m.parameters(), 1.0))
#%% params to vector
m = model()
v = nn.utils.parameters_to_vector(m.parameters()); print(v.shape)
nn.utils.vector_to_parameters(torch.zeros_like(v), m.parameters()); print(m[0].bias)
#%% checkpoint use_reentrant
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
m = model(); x = torch.ones(2, 3, requires_grad=True)
y = checkpoint(m, x, use_reentrant=False); y.sum().backward(); print(r(x.grad))
x.grad = None
y = checkpoint(m, x); y.sum().backward(); print(r(x.grad))
y = checkpoint_sequential(m, 2, x, use_reentrant=False); print(y.shape)
#%% module backward hooks
m = model()
got = []
m[0].register_full_backward_hook(lambda mod, gi, go: got.append((type(mod).__name__, [g.shape if g is not None else None for g in gi], [g.shape for g in go])))
m[2].register_full_backward_pre_hook(lambda mod, go: got.append(("pre", go[0].shape)))
m(torch.ones(2, 3)).sum().backward()
print(got)
#%% forward hooks with kwargs
m = nn.Linear(2, 2)
m.register_forward_pre_hook(lambda mod, args, kwargs: (args, kwargs), with_kwargs=True)
h = m.register_forward_hook(lambda mod, args, kwargs, out: out * 0, with_kwargs=True)
print(m(torch.ones(1, 2)))
h.remove(); print(m(torch.zeros(1, 2)).shape)
#%% state dict hooks
m = nn.Linear(2, 2)
m.register_state_dict_post_hook(lambda mod, sd, prefix, local: sd.__setitem__(prefix + "extra", torch.ones(1)))
print(list(m.state_dict().keys()))
m2 = nn.Linear(2, 2)
m2.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: sd.pop(prefix + "extra", None))
print(m2.load_state_dict(m.state_dict()))
#%% tensor hooks
x = torch.ones(3, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g * 10)
x.register_post_accumulate_grad_hook(lambda p: print("post", p.grad))
y.sum().backward()
try:
    torch.ones(2).register_hook(lambda g: g)
except Exception as e:
    print(type(e).__name__, e)
