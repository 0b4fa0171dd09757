import torch
from torch import nn, optim


def r(t, d=5):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])


def train(cls, steps=5, **kw):
    torch.manual_seed(0)
    p = nn.Parameter(torch.randn(4))
    q = nn.Parameter(torch.randn(2, 2))
    o = cls([p, q], **kw)
    for i in range(steps):
        o.zero_grad()
        loss = (p ** 2).sum() + (q.sin() * torch.arange(4.).view(2, 2)).sum() + p[0] * q[1, 1]
        loss.backward()
        o.step()
    print(cls.__name__, kw, r(p), r(q[0]))
    return o
#%% less common optimizers
train(optim.NAdam, lr=0.1, momentum_decay=0.01)
train(optim.NAdam, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1)
train(optim.RAdam, lr=0.1, steps=8)
train(optim.RAdam, lr=0.1, decoupled_weight_decay=True, weight_decay=0.2, steps=8)
train(optim.Adamax, lr=0.2, weight_decay=0.1)
train(optim.ASGD, lr=0.1, t0=2, lambd=0.1)
train(optim.Rprop, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))
train(optim.Rprop, lr=0.05, maximize=True)
train(optim.Adadelta, lr=1.0, rho=0.8, weight_decay=0.1)
train(optim.Adagrad, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5)
train(optim.RMSprop, lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)
train(optim.SGD, lr=0.1, momentum=0.9, nesterov=True, dampening=0.0, maximize=True)
train(optim.SGD, lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.01)
train(optim.Adam, lr=0.1, amsgrad=True, maximize=True, weight_decay=0.1)
train(optim.AdamW, lr=0.1, amsgrad=True, betas=(0.5, 0.6))
train(optim.Adafactor, lr=0.1) if hasattr(optim, 'Adafactor') else None
train(optim.Adafactor, lr=0.1, beta2_decay=-0.5, weight_decay=0.1, maximize=True) if hasattr(optim, 'Adafactor') else None
#%% lbfgs
torch.manual_seed(1)
x = nn.Parameter(torch.tensor([-1.5, 2.0]))
o = optim.LBFGS([x], lr=1, max_iter=10, history_size=3, line_search_fn='strong_wolfe')
def closure():
    o.zero_grad()
    l = (1 - x[0]) ** 2 + 10 * (x[1] - x[0] ** 2) ** 2
    l.backward()
    return l
for _ in range(3):
    l = o.step(closure)
print(r(x, 4), r(l, 4), o.state[x]['func_evals'], o.state[x]['n_iter'])
x2 = nn.Parameter(torch.tensor([-1.5, 2.0]))
o2 = optim.LBFGS([x2], lr=0.5, max_iter=5)
def closure2():
    o2.zero_grad()
    l = (1 - x2[0]) ** 2 + 10 * (x2[1] - x2[0] ** 2) ** 2
    l.backward()
    return l
for _ in range(3):
    l = o2.step(closure2)
print(r(x2, 4), r(l, 4), o2.state[x2]['func_evals'])
show(lambda: optim.LBFGS([x], line_search_fn='armijo'))
show(lambda: optim.LBFGS([x, x2]).step())
#%% optimizer errors
p = nn.Parameter(torch.zeros(2))
for f in (lambda: optim.Adam([p], lr=-1), lambda: optim.Adam([p], betas=(1.0, 0.9)), lambda: optim.Adam([p], eps=-1), lambda: optim.SGD([p], momentum=-0.1), lambda: optim.SGD([p], lr=0.1, nesterov=True), lambda: optim.RMSprop([p], alpha=-1), lambda: optim.Adagrad([p], lr_decay=-1), lambda: optim.SGD([], lr=0.1), lambda: optim.SGD(p, lr=0.1), lambda: optim.SGD([{'params': [p]}, {'params': [p]}], lr=0.1), lambda: optim.Adam([p], weight_decay=-1), lambda: optim.Rprop([p], etas=(1.2, 0.5)), lambda: optim.NAdam([p], momentum_decay=-1), lambda: optim.SGD([torch.zeros(2)], lr=0.1).step() or 'ok', lambda: optim.SGD([p.detach() * 1], lr=0.1), lambda: optim.SGD([{'params': p, 'lr': 0.1}, {'lr': 0.2}])):
    show(f)
#%% param groups add and state dict
torch.manual_seed(2)
a = nn.Parameter(torch.randn(2))
b = nn.Parameter(torch.randn(3))
o = optim.Adam([a], lr=0.1, betas=(0.8, 0.9))
o.add_param_group({'params': b, 'lr': 0.01})
(a.sum() + b.sum()).backward()
o.step()
sd = o.state_dict()
print(sd['param_groups'][1]['betas'], sd['param_groups'][1]['lr'], sd['param_groups'][1]['params'], sorted(sd['state'][1].keys()), sd['state'][0]['step'])
show(lambda: o.add_param_group({'params': a}))
show(lambda: o.add_param_group({'params': [nn.Parameter(torch.zeros(1))], 'lr': 0.1, 'bogus': 1}))
print(o.param_groups[-1].get('bogus'))
o2 = optim.Adam([nn.Parameter(torch.zeros(2))], lr=0.5)
show(lambda: o2.load_state_dict(sd))
o3 = optim.Adam([nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(3))], lr=0.5)
show(lambda: o3.load_state_dict(sd))
o4 = optim.Adam([nn.Parameter(torch.zeros(2))], lr=0.5)
o4.add_param_group({'params': nn.Parameter(torch.zeros(3))})
o4.add_param_group({'params': nn.Parameter(torch.zeros(1))})
show(lambda: o4.load_state_dict(sd))
#%% zero_grad set_to_none and grads of None
p = nn.Parameter(torch.ones(2))
o = optim.SGD([p], lr=0.1, momentum=0.9)
o.step()
print(p, o.state[p])
p.grad = torch.ones(2)
o.zero_grad(set_to_none=False)
print(p.grad)
o.zero_grad()
print(p.grad)
p.grad = torch.tensor([1., float('nan')])
o.step()
print(p)
#%% clip grad
torch.manual_seed(3)
m = nn.Linear(3, 2)
m(torch.randn(4, 3)).pow(2).sum().backward()
tot = nn.utils.clip_grad_norm_(m.parameters(), 0.5, norm_type=3.0)
print(r(tot), r(m.weight.grad))
print(r(nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type='inf')))
nn.utils.clip_grad_value_(m.parameters(), 0.01)
print(m.bias.grad)
print(nn.utils.clip_grad_norm_([], 1.0), nn.utils.get_total_norm([torch.tensor([3., 4.]), torch.tensor([12.])]))
m.bias.grad = torch.tensor([float('inf'), 1.])
show(lambda: nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True))
print(nn.utils.clip_grad_norm_(m.parameters(), 1.0), m.weight.grad[0])
p = nn.Parameter(torch.ones(2))
print(nn.utils.clip_grad_norm_(p, 1.0), nn.utils.clip_grad_norm_([p], 1.0, norm_type=0))
