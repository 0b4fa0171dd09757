import torch
import torch.nn as nn
from torch.func import vmap, grad, grad_and_value, jacrev, jacfwd, hessian, functional_call, stack_module_state, vjp, jvp
def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% vmap simple
x = torch.arange(6.0).reshape(2, 3)
print(vmap(torch.sum)(x), vmap(lambda v: v * 2)(x))
print(vmap(torch.dot)(x, x))
#%% vmap in_dims out_dims
a = torch.arange(6.0).reshape(3, 2)
b = torch.tensor([1.0, 10.0])
print(vmap(lambda u, v: u * v, in_dims=(1, None))(a, b))
print(vmap(lambda u: u + 1, in_dims=1, out_dims=1)(a))
#%% vmap nested
x = torch.arange(12.0).reshape(2, 3, 2)
print(vmap(vmap(torch.sum))(x))
print(vmap(lambda m: m @ m.T)(x).shape)
#%% vmap randomness error
try:
    vmap(lambda t: torch.rand(2) + t)(torch.ones(3, 2))
except Exception as e:
    print(type(e).__name__, str(e)[:150])
#%% vmap size mismatch
try:
    vmap(torch.add)(torch.ones(3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, str(e)[:200])
#%% vmap chunk_size and tuples
def f(x):
    return x.sin(), x.cos().sum()
s, c = vmap(f, chunk_size=2)(torch.zeros(5, 3))
print(s.shape, c)
#%% grad
f = lambda x: (x ** 3).sum()
x = torch.tensor([1.0, 2.0])
print(grad(f)(x), grad(grad(lambda t: (t ** 3)))(torch.tensor(2.0)))
#%% grad argnums has_aux
def loss(w, b, x):
    y = (x * w).sum() + b
    return y ** 2, y
g, aux = grad(loss, argnums=(0, 1), has_aux=True)(torch.tensor([1.0, 2.0]), torch.tensor(0.5), torch.tensor([3.0, 4.0]))
print(g, aux)
gv = grad_and_value(lambda t: t.pow(2).sum())(torch.tensor([1.0, -3.0]))
print(gv)
#%% grad non scalar error
try:
    grad(lambda t: t * 2)(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
#%% jacrev jacfwd
f = lambda x: torch.stack([x[0] * x[1], x[0].sin(), x[1] ** 2])
x = torch.tensor([1.0, 2.0])
print(r(jacrev(f)(x)))
print(r(jacfwd(f)(x)))
print(r(hessian(lambda t: (t ** 3).sum() + t[0] * t[1])(x)))
#%% jacrev argnums
f = lambda a, b: a * b.sum()
J = jacrev(f, argnums=(0, 1))(torch.ones(2), torch.arange(3.0))
print([j.shape for j in J], J[1])
#%% vmap of grad per sample
w = torch.tensor([1.0, -1.0])
xs = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
per = vmap(grad(lambda w, x: (w @ x) ** 2), in_dims=(None, 0))(w, xs)
print(per)
#%% vjp jvp
out, fn = vjp(torch.sin, torch.tensor([0.0, 1.0]))
print(r(out), r(fn(torch.ones(2))[0]))
o, t = jvp(lambda x: x ** 2, (torch.tensor([3.0]),), (torch.tensor([1.0]),))
print(o, t)
#%% functional_call
m = nn.Linear(2, 1)
params = {"weight": torch.tensor([[1.0, 2.0]]), "bias": torch.tensor([0.5])}
print(functional_call(m, params, (torch.tensor([[1.0, 1.0]]),)))
print(m.weight.shape, torch.equal(m.weight, params["weight"]))
#%% functional_call with buffers and strict
bn = nn.BatchNorm1d(2)
state = {**dict(bn.named_parameters()), **dict(bn.named_buffers())}
state["running_mean"] = torch.ones(2)
bn.eval()
print(functional_call(bn, state, torch.tensor([[1.0, 3.0]])))
try:
    functional_call(m, {"weight": torch.ones(1, 2)}, (torch.ones(1, 2),), strict=True)
except Exception as e:
    print(type(e).__name__, str(e)[:200])
#%% grad of functional_call
m = nn.Linear(3, 1)
params = {k: v.detach() for k, v in m.named_parameters()}
def loss(p, x):
    return functional_call(m, p, (x,)).pow(2).sum()
g = grad(loss)(params, torch.ones(2, 3))
print(sorted(g), g["weight"].shape, g["bias"].shape)
#%% stack_module_state ensemble
torch.manual_seed(0)
models = [nn.Linear(3, 2) for _ in range(4)]
params, buffers = stack_module_state(models)
print({k: v.shape for k, v in params.items()}, buffers)
base = models[0]
def run(p, b, x):
    return functional_call(base, (p, b), (x,))
x = torch.randn(5, 3)
out = vmap(run, in_dims=(0, 0, None))(params, buffers, x)
print(out.shape, torch.allclose(out[2], models[2](x)))
#%% torch.func.jacrev on module params
m = nn.Linear(2, 2)
p = dict(m.named_parameters())
J = jacrev(lambda p, x: functional_call(m, p, (x,)))(p, torch.ones(2))
print({k: v.shape for k, v in J.items()})
#%% vmap over dict and out tuple
d = {"a": torch.ones(3, 2), "b": torch.arange(3.0)}
print(vmap(lambda dd: dd["a"].sum() + dd["b"])(d))
#%% autograd.functional
from torch.autograd.functional import jacobian, hessian as H, vjp as avjp, hvp
f = lambda x: x.pow(2).sum()
x = torch.tensor([1.0, 2.0])
print(jacobian(lambda t: t * 3, x), H(f, x))
print(avjp(lambda t: t * 2, x, torch.ones(2)), hvp(f, x, torch.ones(2)))
