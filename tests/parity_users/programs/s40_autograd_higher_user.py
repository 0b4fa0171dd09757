import torch
#%% gradient of gradient with create_graph
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True)
(gg,) = torch.autograd.grad(g, x)
print(g, gg, g.requires_grad)
#%% grad with allow_unused, retain_graph errors, grad_outputs
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
out = (a * 2).sum()
print(torch.autograd.grad(out, [a, b], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(out, [a, b], allow_unused=True, materialize_grads=True))
try:
    torch.autograd.grad(out, a)
except RuntimeError as e:
    print(str(e)[:200])
z = a * a
print(torch.autograd.grad(z, a, grad_outputs=torch.tensor([1.0, 0.5])))
try:
    torch.autograd.grad(z, a)
except RuntimeError as e:
    print(str(e))
try:
    torch.autograd.grad((b * 2).sum(), a)
except RuntimeError as e:
    print(str(e))
#%% no_grad, inference_mode, set_grad_enabled, enable_grad inside no_grad
w = torch.ones(2, requires_grad=True)
with torch.no_grad():
    p = w * 2
    with torch.enable_grad():
        q = w * 2
print(p.requires_grad, q.requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    r = w * 2
print(r.requires_grad, r.is_inference(), torch.is_inference_mode_enabled())
try:
    (r * w).sum().backward()
except RuntimeError as e:
    print(str(e)[:200])
with torch.set_grad_enabled(False):
    print((w * 1).requires_grad)
@torch.no_grad()
def f(t):
    return t * 3
print(f(w).requires_grad)
#%% jacobian and hessian helpers
from torch.autograd.functional import jacobian, hessian, vjp, jvp
def fn(t):
    return torch.stack([t[0] * t[1], t[0] ** 2])
print(jacobian(fn, torch.tensor([1.0, 2.0])), hessian(lambda t: (t ** 3).sum(), torch.tensor([1.0, 2.0])))
print(vjp(fn, torch.tensor([1.0, 2.0]), torch.ones(2)), jvp(fn, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))
#%% detach, requires_grad_ on non-leaf, backward twice
c = torch.ones(2, requires_grad=True)
d = c * 2
try:
    d.requires_grad_(False)
except RuntimeError as e:
    print(str(e))
e = d.sum()
e.backward(retain_graph=True)
e.backward()
print(c.grad, d.is_leaf, d.detach().is_leaf, d.grad_fn.next_functions[0][0].__class__.__name__)
try:
    d.sum().backward(torch.ones(2))
except RuntimeError as err:
    print(str(err))
