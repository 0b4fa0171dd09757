import torch
#%% inplace version error
a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
b.sum().backward()
#%% inplace leaf
a = torch.ones(3, requires_grad=True)
a.add_(1)
#%% inplace view of leaf
a = torch.ones(3, requires_grad=True)
a[0] = 2
#%% inplace ok
a = torch.ones(3, requires_grad=True)
b = a * 2
b[1] = 0
b.exp_()
b.sum().backward()
print(a.grad, b.grad_fn is not None, b._version)
#%% exp saved
a = torch.ones(3, requires_grad=True)
b = a.exp()
b.add_(1)
b.sum().backward()
#%% backward twice
a = torch.ones(2, requires_grad=True)
y = (a * a).sum()
y.backward()
y.backward()
#%% backward non-scalar
a = torch.ones(2, requires_grad=True)
(a * 2).backward()
#%% grad api
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print(g, gg)
print(torch.autograd.grad((x * 2).sum(), [x], retain_graph=True))
#%% grad unused
x = torch.tensor([1.0], requires_grad=True)
z = torch.tensor([1.0], requires_grad=True)
print(torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True))
torch.autograd.grad((x * 2).sum(), [x, z])
#%% grad no requires
x = torch.tensor([1.0])
(x * 2).sum().backward()
#%% functional
from torch.autograd.functional import jacobian, hessian, vjp, jvp
f = lambda x: x ** 2 + x.sum()
x = torch.tensor([1.0, 2.0])
print(jacobian(f, x), hessian(lambda x: (x ** 3).sum(), x), vjp(f, x, torch.ones(2)), jvp(f, x, torch.ones(2)))
#%% hooks
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x.register_hook(lambda g: g * 10)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: print("y hook", g))
y.sum().backward()
print(x.grad, y.grad)
h.remove()
x.grad = None
(x * 3).sum().backward()
print(x.grad)
#%% no_grad inference
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn)
with torch.inference_mode():
    z = x * 2
print(z.requires_grad, z.is_inference())
@torch.no_grad()
def f(t):
    return t * 2
print(f(x).requires_grad, torch.is_grad_enabled())
with torch.enable_grad():
    print(torch.is_grad_enabled())
#%% inference tensor in autograd
with torch.inference_mode():
    z = torch.ones(2)
w = torch.ones(2, requires_grad=True)
(z * w).sum().backward()
print(w.grad)
z.add_(1)
#%% detach shares
a = torch.ones(3, requires_grad=True)
b = a.detach()
b[0] = 5
print(a, b.requires_grad, a.data, a.clone().grad_fn)
#%% custom function
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor([3.0], requires_grad=True)
y = Sq.apply(x)
y.backward()
print(y, x.grad, type(y.grad_fn).__name__)
#%% checkpoint
from torch.utils.checkpoint import checkpoint
lin = torch.nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
y.sum().backward()
print(x.grad.shape, lin.weight.grad.shape)
#%% requires_grad int
torch.tensor([1, 2], requires_grad=True)
#%% grad_fn names
x = torch.ones(2, requires_grad=True)
print((x + 1).grad_fn.name(), (x * x).sum().grad_fn.name(), x.view(2, 1).grad_fn.name())
#%% leaf grad warn
x = torch.ones(2, requires_grad=True)
y = x * 2
print(y.grad)
#%% anomaly
with torch.autograd.set_detect_anomaly(True):
    x = torch.tensor([0.0], requires_grad=True)
    y = torch.sqrt(x) * 0
    y.backward()
    print(x.grad)
