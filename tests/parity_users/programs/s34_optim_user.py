import torch
from torch import nn, optim


def r(t, d=6):
    return [round(v, d) for v in t.detach().flatten().tolist()]
def run(make, steps=3, **kw):
    torch.manual_seed(0)
    w = nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    o = make([w], **kw)
    for i in range(steps):
        o.zero_grad()
        loss = (w ** 2 * torch.tensor([1., 2., 3.])).sum() + w.prod()
        loss.backward()
        o.step()
    return r(w)
#%% sgd variants
print(run(optim.SGD, lr=0.1), run(optim.SGD, lr=0.1, momentum=0.9, nesterov=True), run(optim.SGD, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01), run(optim.SGD, lr=0.1, maximize=True))
try:
    optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1, nesterov=True)
except Exception as e:
    print(type(e).__name__, e)
#%% adam family
print(run(optim.Adam, lr=0.1), run(optim.Adam, lr=0.1, amsgrad=True), run(optim.AdamW, lr=0.1, weight_decay=0.1), run(optim.Adam, lr=0.1, weight_decay=0.1, maximize=True))
print(run(optim.NAdam, lr=0.1), run(optim.NAdam, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1), run(optim.RAdam, lr=0.1, steps=7), run(optim.Adamax, lr=0.1), run(optim.Adagrad, lr=0.1, lr_decay=0.01), run(optim.Adadelta, lr=1.0))
#%% others
print(run(optim.RMSprop, lr=0.01), run(optim.RMSprop, lr=0.01, centered=True, momentum=0.5), run(optim.Rprop, lr=0.1), run(optim.ASGD, lr=0.1), run(optim.SparseAdam if False else optim.Adam, lr=0.01, betas=(0.5, 0.6)))
#%% lbfgs
torch.manual_seed(0)
w = nn.Parameter(torch.tensor([1.5, -0.5]))
o = optim.LBFGS([w], lr=1, max_iter=20, line_search_fn='strong_wolfe')
def closure():
    o.zero_grad()
    loss = (w[0] - 1) ** 2 + 10 * (w[1] - w[0] ** 2) ** 2
    loss.backward()
    return loss
for _ in range(3):
    l = o.step(closure)
print(r(w, 4), round(l.item(), 6))
#%% optimizer errors
for f in (lambda: optim.Adam([nn.Parameter(torch.ones(1))], lr=-1), lambda: optim.Adam([nn.Parameter(torch.ones(1))], betas=(1.0, 0.9)), lambda: optim.SGD([], lr=0.1), lambda: optim.SGD(nn.Parameter(torch.ones(1)), lr=0.1), lambda: optim.SGD([torch.ones(1)], lr=0.1), lambda: optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1, momentum=-1), lambda: optim.Adam([{'params': [nn.Parameter(torch.ones(1))]}, {'params': []}])):
    try:
        f()
        print('ok')
    except Exception as e:
        print(type(e).__name__, e)
#%% duplicate params warning and add_param_group
p = nn.Parameter(torch.ones(1))
import warnings

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    try:
        o = optim.SGD([p, p], lr=0.1)
    except Exception as e:
        print(type(e).__name__, e)
    print([str(x.message)[:100] for x in w])
o = optim.SGD([p], lr=0.1)
try:
    o.add_param_group({'params': [p]})
except Exception as e:
    print(type(e).__name__, e)
o.add_param_group({'params': [nn.Parameter(torch.zeros(2))], 'lr': 0.5})
print(len(o.param_groups), o.param_groups[1]['lr'], o.param_groups[1]['momentum'])
#%% zero_grad set_to_none
p = nn.Parameter(torch.ones(2))
o = optim.SGD([p], lr=0.1)
p.sum().backward()
o.zero_grad(set_to_none=False)
print(p.grad)
o.zero_grad()
print(p.grad)
#%% optimizer repr
p = nn.Parameter(torch.ones(2))
print(optim.Adam([p], lr=1e-3))
print(optim.SGD([p], lr=0.1, momentum=0.9))
#%% lr as tensor
p = nn.Parameter(torch.ones(2))
o = optim.Adam([p], lr=torch.tensor(0.01))
p.sum().backward()
o.step()
print(r(p), o.param_groups[0]['lr'])
#%% grad clipping utils
m = nn.Linear(3, 2)
with torch.no_grad():
    m.weight.fill_(1.)
    m.bias.fill_(1.)
m(torch.ones(1, 3) * 10).sum().backward()
n = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
print(round(n.item(), 4), r(m.weight.grad, 4))
nn.utils.clip_grad_value_(m.parameters(), 0.1)
print(r(m.bias.grad, 4))
print(round(nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type='inf').item(), 4))
v = nn.utils.parameters_to_vector(m.parameters())
print(v.shape)
nn.utils.vector_to_parameters(torch.zeros(8), m.parameters())
print(m.bias)
