import torch
import torch.nn as nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])


def run(opt_cls, steps=5, closure=False, dtype=torch.float32, **kw):
    torch.manual_seed(0)
    w = nn.Parameter(torch.tensor([1.5, -2.0, 0.5], dtype=dtype))
    b = nn.Parameter(torch.tensor([0.3], dtype=dtype))
    opt = opt_cls([w, b], **kw)
    x = torch.tensor([[1., 2., 3.], [0.5, -1., 2.]], dtype=dtype)
    y = torch.tensor([1., -1.], dtype=dtype)
    def cl():
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean() + 0.1 * w.abs().sum()
        loss.backward()
        return loss
    for _ in range(steps):
        if closure:
            opt.step(cl)
        else:
            cl()
            opt.step()
    return r(w), r(b)
#%% many optimizers with options
# float64: the L1 kink makes float32 L-BFGS runs drift apart in the last digits (torch's float32
# dot products sum in an order of their own), and a line search cut short by max_eval amplifies it
print(run(torch.optim.LBFGS, closure=True, lr=0.5, history_size=3, max_iter=4, dtype=torch.float64))
print(run(torch.optim.LBFGS, closure=True, lr=1, line_search_fn='strong_wolfe', dtype=torch.float64))
print(run(torch.optim.Rprop, lr=0.1, etas=(0.4, 1.3), step_sizes=(1e-3, 1)))
print(run(torch.optim.ASGD, lr=0.05, t0=2, lambd=1e-3))
print(run(torch.optim.NAdam, lr=0.05, momentum_decay=3e-3, decoupled_weight_decay=True, weight_decay=0.1))
print(run(torch.optim.RAdam, lr=0.05, decoupled_weight_decay=True, weight_decay=0.1, steps=8))
print(run(torch.optim.Adagrad, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.01))
print(run(torch.optim.Adamax, lr=0.1, maximize=True))
print(run(torch.optim.Adadelta, lr=1.0, rho=0.8, weight_decay=0.1))
print(run(torch.optim.SGD, lr=0.05, momentum=0.9, dampening=0.1, nesterov=False, weight_decay=1e-2))
print(run(torch.optim.SGD, lr=0.05, momentum=0.9, nesterov=True, maximize=True))
print(run(torch.optim.Adam, lr=0.05, amsgrad=True, betas=(0.8, 0.9), foreach=False))
print(run(torch.optim.AdamW, lr=torch.tensor(0.05), weight_decay=0.5))
print(run(torch.optim.RMSprop, lr=0.01, centered=True, momentum=0.5, alpha=0.9))
print(run(torch.optim.Adafactor, lr=0.05) if hasattr(torch.optim, 'Adafactor') else 'x')
#%% optimizer errors
p = [nn.Parameter(torch.ones(1))]
show(lambda: torch.optim.SGD(p, lr=-1))
show(lambda: torch.optim.SGD(p, lr=0.1, momentum=-0.1))
show(lambda: torch.optim.SGD(p, lr=0.1, nesterov=True))
show(lambda: torch.optim.Adam(p, betas=(1.0, 0.9)))
show(lambda: torch.optim.Adam(p, eps=-1))
show(lambda: torch.optim.Adam(p, weight_decay=-0.1))
show(lambda: torch.optim.Adam([]))
show(lambda: torch.optim.Adam(torch.ones(2)))
show(lambda: torch.optim.Adam([torch.ones(2)]))
show(lambda: torch.optim.Adam([{'params': p}, {'params': p}]))
show(lambda: torch.optim.Rprop(p, etas=(1.5, 1.2)))
show(lambda: torch.optim.RMSprop(p, alpha=-1))
show(lambda: torch.optim.Adagrad(p, lr_decay=-1))
show(lambda: torch.optim.LBFGS(p, line_search_fn='bogus').step(lambda: torch.tensor(1.)))
show(lambda: torch.optim.SGD(p, lr=0.1).step(lambda: 3))
show(lambda: torch.optim.LBFGS([{'params': p}, {'params': [nn.Parameter(torch.ones(1))]}]))
show(lambda: torch.optim.Adam(p, lr=torch.tensor([0.1, 0.2])))
#%% sparse adam and state dict roundtrip
emb = nn.Embedding(4, 2, sparse=True)
torch.manual_seed(1)
nn.init.normal_(emb.weight)
opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    emb(torch.tensor([1, 3, 1])).pow(2).sum().backward()
    opt.step()
print(r(emb.weight))
show(lambda: torch.optim.SparseAdam([nn.Parameter(torch.ones(2))]).step() or 'ok')
w = nn.Parameter(torch.ones(2))
w.grad = torch.ones(2)
sa = torch.optim.SparseAdam([w])
show(lambda: sa.step())
torch.manual_seed(2)
m = nn.Linear(2, 1)
o1 = torch.optim.Adam(m.parameters(), lr=0.1)
m(torch.ones(1, 2)).sum().backward()
o1.step()
sd = o1.state_dict()
o2 = torch.optim.Adam(m.parameters(), lr=0.5)
o2.load_state_dict(sd)
print(o2.param_groups[0]['lr'], o2.state[m.weight]['step'], sorted(o2.state[m.weight].keys()))
show(lambda: torch.optim.Adam([nn.Parameter(torch.ones(1))]).load_state_dict(sd))
show(lambda: torch.optim.SGD(m.parameters()).load_state_dict({'state': {}, 'param_groups': [{'params': [0, 1, 2]}]}))
