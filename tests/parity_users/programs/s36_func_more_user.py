import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import vmap, grad, jacrev, jacfwd, jvp, vjp, hessian, functional_call, linearize


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% argnums has_aux chunk
f = lambda x, y: ((x * y).sin().sum(), {'aux': x.cos()})
x = torch.tensor([0.5, 1.0])
y = torch.tensor([2.0, -1.0])
g, aux = grad(f, argnums=(0, 1), has_aux=True)(x, y)
print(r(g[0]), r(g[1]), r(aux['aux']))
J, aux = jacrev(lambda a: (a ** 2, a.sum()), has_aux=True)(x)
print(J, aux)
print(jacrev(lambda a, b: a * b, argnums=1)(x, y))
print(jacrev(lambda a: a.outer(a), chunk_size=1)(x).shape)
Jf = jacfwd(lambda a, b: (a * b).sum(0), argnums=(0, 1))(torch.ones(2, 2), torch.ones(2, 2))
print([j.shape for j in Jf])
out, jv, aux = jvp(lambda a: (a.exp(), a.sum()), (x,), (torch.ones(2),), has_aux=True)
print(r(out), r(jv), aux)
out, fn, aux = vjp(lambda a: (a ** 3, a.mean()), x, has_aux=True)
print(fn(torch.ones(2)), aux)
show(lambda: grad(lambda a: (a.sum(), 1))(x))
show(lambda: grad(lambda a: a.sum(), argnums=2)(x))
show(lambda: grad(lambda a: a.sum(), argnums=(0, 0))(x))
#%% nested transforms
h = hessian(lambda a: (a ** 3).sum() + a.prod())(torch.tensor([1., 2., 3.]))
print(h, jacfwd(torch.prod)(torch.tensor([1., 2., 3.])))
gg = grad(grad(lambda a: a.sin()))(torch.tensor(0.5))
print(r(gg))
per = vmap(grad(lambda a, b: (a * b).sum()), in_dims=(0, None))(torch.ones(3, 2), torch.tensor([2., 3.]))
print(per)
nested = vmap(vmap(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(None, 0))(torch.ones(2, 3), torch.arange(12.).reshape(4, 3))
print(nested.shape, nested[:, 0])
print(vmap(jacrev(lambda a: a ** 2))(torch.tensor([[1., 2.], [3., 4.]])))
print(jacfwd(jacrev(lambda a: (a ** 4).sum()))(torch.tensor([1., 2.])))
#%% vmap details
print(vmap(lambda a: a * 2, out_dims=1)(torch.arange(6.).reshape(2, 3)).shape)
print(vmap(lambda a: (a, a.sum()), out_dims=(0, None) if False else 0)(torch.ones(2, 3))[1])
show(lambda: vmap(lambda a: (a, a.sum()), out_dims=(0, None))(torch.ones(2, 3)))
print(vmap(lambda d: d['a'] + d['b'])({'a': torch.ones(2, 3), 'b': torch.arange(3.)}) if False else vmap(lambda d: d['a'] + d['b'], in_dims=({'a': 0, 'b': None},))({'a': torch.ones(2, 3), 'b': torch.arange(3.)}))
print(vmap(torch.sum, in_dims=1)(torch.arange(6.).reshape(2, 3)), vmap(lambda a: a.sum(), in_dims=-1)(torch.arange(6.).reshape(2, 3)))
print(vmap(F.linear, in_dims=(0, 0, None))(torch.ones(4, 2, 3), torch.ones(4, 5, 3), torch.zeros(5)).shape)
print(vmap(lambda a: F.conv1d(a.unsqueeze(0), torch.ones(1, 1, 2)).squeeze(0))(torch.arange(8.).reshape(2, 1, 4)))
def inplace(a):
    b = a.clone()
    b.mul_(2)
    return b
print(vmap(inplace)(torch.ones(2, 2)))
show(lambda: vmap(lambda a: torch.ones(2).add_(a))(torch.ones(3, 2)))
show(lambda: vmap(lambda a: a, in_dims=(0, 1))(torch.ones(2)))
show(lambda: vmap(lambda a: a, in_dims=2)(torch.ones(2)))
show(lambda: vmap(lambda a: a)(torch.ones(0)))
show(lambda: vmap(lambda a: a, out_dims=3)(torch.ones(2)))
print(vmap(lambda a, n: a * n, in_dims=(0, None))(torch.ones(2), 3))
print(vmap(torch.outer)(torch.ones(2, 3), torch.ones(2, 2)).shape)
print(vmap(lambda a: a.item() if False else a.max())(torch.tensor([[1, 5], [7, 2]])))
#%% functional_call ensembles
torch.manual_seed(0)
models = [nn.Linear(3, 2) for _ in range(4)]
params, buffers = torch.func.stack_module_state(models)
base = nn.Linear(3, 2).to('meta')
def call(p, b, x):
    return functional_call(base, (p, b), (x,))
x = torch.randn(5, 3)
out = vmap(call, in_dims=(0, 0, None))(params, buffers, x)
print(out.shape, torch.allclose(out[2], models[2](x), atol=1e-6))
bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
sd = dict(bn.named_parameters())
sd.update(dict(bn.named_buffers()))
out = functional_call(bn, sd, (x,))
print(out.shape, r(sd['1.running_mean']), int(sd['1.num_batches_tracked']))
tied = nn.Module()
tied.a = nn.Linear(2, 2, bias=False)
tied.b = tied.a
print(r(functional_call(tied, {'a.weight': torch.eye(2)}, (torch.ones(1, 2),), tie_weights=True) if False else torch.zeros(1)))
