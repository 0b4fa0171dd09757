import torch
import torch.nn as nn
from torch.func import vmap, grad, jacrev, jacfwd, hessian, functional_call, grad_and_value, vjp, jvp, stack_module_state
#%% vmap over a module with functional_call per-sample grads
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(5, 3)
t = torch.tensor([0, 1, 1, 0, 1])
def loss_fn(p, xi, ti):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return nn.functional.cross_entropy(out, ti.unsqueeze(0))
g = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, t)
print({k: tuple(v.shape) for k, v in g.items()})
manual = torch.autograd.grad(loss_fn(dict(model.named_parameters()), x[2], t[2]), list(model.parameters()))
print(torch.allclose(g["0.weight"][2], manual[0], atol=1e-6), torch.allclose(g["2.bias"][2], manual[3], atol=1e-6))
#%% hessian and jacobians of small functions
def f(x):
    return (x ** 3).sum() + x[0] * x[1]
x = torch.tensor([1.0, 2.0, 3.0])
print(hessian(f)(x))
print(jacrev(jacrev(f))(x).equal(jacfwd(jacrev(f))(x)))
def g2(x, y):
    return torch.stack([x * y, x + y, x.sin() * y])
print(jacrev(g2, argnums=(0, 1))(torch.tensor(0.5), torch.tensor(2.0)))
print(jacfwd(lambda v: v.exp() * v.sum())(torch.tensor([0.0, 1.0])))
#%% grad with has_aux and grad_and_value
def loss(w, x):
    pred = x @ w
    return pred.pow(2).mean(), pred
w = torch.tensor([1.0, -1.0])
xx = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
gw, aux = grad(loss, has_aux=True)(w, xx)
print(gw, aux)
(gv, (val, aux2)) = grad_and_value(loss, has_aux=True)(w, xx)
print(gv, val, aux2)
print(grad(lambda a, b: (a * b).sum(), argnums=1)(torch.ones(2), torch.tensor([2.0, 3.0])))
#%% vjp and jvp values
out, fn = vjp(lambda x: x.sin() * 2, torch.tensor([0.0, 1.0]))
print(out, fn(torch.ones(2)))
print(jvp(lambda x: x ** 2, (torch.tensor([3.0]),), (torch.tensor([1.0]),)))
o, jv = jvp(lambda a, b: a * b, (torch.tensor(2.0), torch.tensor(3.0)), (torch.tensor(1.0), torch.tensor(0.0)))
print(o, jv)
#%% vmap in_dims out_dims nesting and errors
def dot(a, b):
    return (a * b).sum()
A = torch.arange(6.0).view(2, 3)
B = torch.arange(3.0)
print(vmap(dot, in_dims=(0, None))(A, B))
print(vmap(vmap(dot, in_dims=(0, None)), in_dims=(None, 0))(A, A))
print(vmap(lambda v: v * 2, in_dims=1, out_dims=1)(A))
print(vmap(lambda v: (v, v.sum()), out_dims=(0, None) if False else 0)(A))
try:
    vmap(dot)(A, torch.ones(3, 3))
except ValueError as e:
    print(e)
try:
    vmap(dot, in_dims=(2, 0))(A, A)
except ValueError as e:
    print(e)
try:
    vmap(lambda v: v.item())(A)
except RuntimeError as e:
    print(str(e)[:100])
#%% vmap randomness modes
torch.manual_seed(0)
try:
    vmap(lambda v: v + torch.rand(1))(torch.zeros(3))
except RuntimeError as e:
    print(str(e)[:90])
torch.manual_seed(0)
r_same = vmap(lambda v: v + torch.rand(()), randomness="same")(torch.zeros(3))
print(r_same[0] == r_same[1], r_same[1] == r_same[2])
torch.manual_seed(0)
r_diff = vmap(lambda v: v + torch.rand(()), randomness="different")(torch.zeros(3))
print(len(set(r_diff.tolist())))
#%% stack_module_state ensemble
torch.manual_seed(1)
models = [nn.Linear(2, 1) for _ in range(3)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)
base = models[0]
def call(p, b, x):
    return functional_call(base, (p, b), (x,))
xin = torch.ones(4, 2)
ens = vmap(call, in_dims=(0, 0, None))(params, buffers, xin)
print(ens.shape, torch.allclose(ens[1], models[1](xin)))
#%% jacrev over module parameters
torch.manual_seed(2)
lin = nn.Linear(2, 2)
p = dict(lin.named_parameters())
jac = jacrev(lambda pp, x: functional_call(lin, pp, (x,)))(p, torch.tensor([1.0, 2.0]))
print({k: tuple(v.shape) for k, v in jac.items()}, jac["bias"])
#%% func grad on non-scalar and requires_grad interplay
try:
    grad(lambda x: x * 2)(torch.ones(2))
except RuntimeError as e:
    print(e)
x = torch.ones(2, requires_grad=True)
gx = grad(lambda v: (v ** 2).sum())(x)
print(gx, gx.requires_grad)
try:
    grad(lambda v: v.sum())(torch.tensor([1, 2]))
except RuntimeError as e:
    print(e)
#%% torch.autograd.functional api
from torch.autograd.functional import jacobian, hessian as ahess, vjp as avjp, jvp as ajvp, hvp, vhp
f3 = lambda x: torch.stack([x[0] ** 2 * x[1], x[1].exp()])
x = torch.tensor([1.0, 0.5])
print(jacobian(f3, x))
print(jacobian(f3, x, vectorize=True, strategy="forward-mode"))
print(ahess(lambda v: (v ** 3).sum(), x))
print(avjp(f3, x, torch.tensor([1.0, 1.0])))
print(ajvp(f3, x, torch.tensor([1.0, 0.0])))
print(hvp(lambda v: (v ** 3).sum(), x, torch.ones(2)))
print(vhp(lambda v: (v ** 3).sum(), x, torch.ones(2)))
