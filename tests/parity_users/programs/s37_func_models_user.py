import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
from torch.func import vmap, grad, jacrev, jacfwd, hessian, functional_call, grad_and_value, vjp
#%% per-sample gradients of a model
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(4, 3); y = torch.randn(4, 1)
def loss_fn(p, xi, yi):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return F.mse_loss(out, yi.unsqueeze(0))
psg = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
print({k: tuple(v.shape) for k, v in psg.items()})
print(r(psg['2.weight']))
full = torch.autograd.grad(F.mse_loss(model(x), y), model.parameters())
print(r(psg['0.bias'].mean(0) - full[1]).abs().max() < 1e-6)
gv = grad_and_value(loss_fn)(params, x[0], y[0])
print(r(gv[1]), r(gv[0]['2.bias']))
#%% jacobians and hessians of models
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(2, 3), nn.Softplus(), nn.Linear(3, 2))
x = torch.randn(2)
print(r(jacrev(net)(x)), r(jacfwd(net)(x)))
print(r(vmap(jacrev(net))(torch.randn(3, 2))).shape)
f = lambda v: net(v).pow(2).sum()
print(r(hessian(f)(x)))
pj = jacrev(lambda p: functional_call(net, p, (x,)))({k: v.detach() for k, v in net.named_parameters()})
print({k: tuple(v.shape) for k, v in pj.items()})
out, fn = vjp(net, x)
print(r(fn(torch.tensor([1., -1.]))[0]))
#%% vmap odds
print(vmap(torch.dot)(torch.ones(3, 2), torch.arange(6.).reshape(3, 2)))
print(vmap(lambda a: a.sum(0), in_dims=1)(torch.arange(6.).reshape(2, 3)))
print(vmap(lambda a, b: a * b, in_dims=(0, None))(torch.ones(2, 3), torch.tensor([1., 2., 3.])))
print(vmap(lambda a: (a, a * 2), out_dims=(0, 1))(torch.ones(2, 3))[1].shape)
print(vmap(vmap(lambda a: a.max()))(torch.arange(6.).reshape(2, 3, 1)))
show(lambda: vmap(lambda a: a.item())(torch.ones(2)))
show(lambda: vmap(torch.sum, in_dims=1)(torch.ones(2)))
show(lambda: vmap(lambda a, b: a + b)(torch.ones(2), torch.ones(3)))
print(vmap(lambda d: d['a'] + d['b'])({'a': torch.ones(2, 2), 'b': torch.arange(2.)}) if False else vmap(lambda d: d['a'] + d['b'], in_dims=({'a': 0, 'b': None},))({'a': torch.ones(2, 2), 'b': torch.arange(2.)}))
print(vmap(F.linear, in_dims=(0, None))(torch.ones(3, 2), torch.eye(2)))
torch.manual_seed(3)
print(vmap(lambda a: F.dropout(a, 0.5), randomness='same')(torch.ones(2, 4)).shape)
show(lambda: vmap(lambda a: F.dropout(a, 0.5))(torch.ones(2, 4)))
