import torch
from torch.func import vmap, grad, jacrev, jacfwd, hessian, grad_and_value
#%% grad, grad_and_value, argnums
f = lambda x, y: (x ** 2 * y).sum()
x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
print(grad(f)(x, y), grad(f, argnums=1)(x, y), grad(f, argnums=(0, 1))(x, y))
print(grad_and_value(f)(x, y))
#%% jacrev/jacfwd/hessian
g = lambda t: torch.stack([t[0] * t[1], t[0].sin(), t[1] ** 3])
print(jacrev(g)(x), jacfwd(g)(x))
print(hessian(lambda t: (t ** 3).sum())(x), hessian(lambda t: t[0] * t[1])(x))
#%% vmap with in_dims/out_dims and nesting
print(vmap(lambda a: a * 2, out_dims=1)(torch.arange(6.0).reshape(2, 3)))
print(vmap(vmap(torch.dot))(torch.ones(2, 3, 4), torch.ones(2, 3, 4)))
print(vmap(grad(lambda t: (t ** 2).sum()))(torch.arange(6.0).reshape(3, 2)))
print(vmap(lambda a, b: a + b, in_dims=(0, 1))(torch.zeros(2, 3), torch.ones(3, 2)))
#%% errors
try:
    vmap(lambda a: a)(torch.tensor(1.0))
except ValueError as e:
    print(e)
try:
    grad(lambda t: t.sum())(torch.tensor([1, 2]))
except RuntimeError as e:
    print(e)
try:
    vmap(lambda a: a.sum(), in_dims=2)(torch.ones(2, 3))
except ValueError as e:
    print(e)
try:
    vmap(lambda a: a.item())(torch.ones(2))
except RuntimeError as e:
    print(str(e)[:120])
