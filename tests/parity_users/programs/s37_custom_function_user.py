import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if not (t.is_floating_point() or t.is_complex()):
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable
#%% custom function with setup_context
class Cube(Function):
    @staticmethod
    def forward(x, k):
        return x ** 3 * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None
x = torch.tensor([1., 2., -1.], dtype=torch.float64, requires_grad=True)
y = Cube.apply(x, 2.0)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad)
print(gradcheck(lambda a: Cube.apply(a, 2.0), (x,)))
print(torch.func.grad(lambda a: Cube.apply(a, 1.0).sum())(x.detach()))
#%% needs_input_grad, mark_non_differentiable, dirty
class Split(Function):
    @staticmethod
    def forward(ctx, a, b):
        print('needs', ctx.needs_input_grad)
        idx = a.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(a)
        return a * b, idx
    @staticmethod
    def backward(ctx, g, gidx):
        print('gidx', gidx)
        return g * 2, None
a = torch.tensor([1., 3., 2.], requires_grad=True)
out, idx = Split.apply(a, torch.tensor(2.))
print(idx, idx.requires_grad, out.requires_grad)
out.sum().backward()
print(a.grad)
class AddOne(Function):
    @staticmethod
    def forward(ctx, a):
        a.add_(1)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g
leaf = torch.ones(2, requires_grad=True)
show(lambda: AddOne.apply(leaf))
b = leaf.clone()
o = AddOne.apply(b)
print(o is b, o.grad_fn.__class__.__name__, b._version)
class Forgot(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        return a
    @staticmethod
    def backward(ctx, g):
        return g
show(lambda: Forgot.apply(leaf.clone()).sum().backward())
#%% wrong number of grads and once_differentiable
class Bad(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.ones(2, requires_grad=True)
show(lambda: Bad.apply(a, a).sum().backward())
class Bad2(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)
show(lambda: Bad2.apply(a).sum().backward())
class Once(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.exp()
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a.exp()
z = torch.tensor([0.5, 1.0], requires_grad=True)
gz, = torch.autograd.grad(Once.apply(z).sum(), z, create_graph=True)
print(r(gz), gz.requires_grad, type(gz.grad_fn).__name__)
show(lambda: gz.sum().backward())
#%% gradcheck failures
class Wrong(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 3
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
show(lambda: gradcheck(Wrong.apply, (x,), raise_exception=False))
try:
    gradcheck(Wrong.apply, (x,))
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
print(gradcheck(torch.sin, (x,)), gradgradcheck(torch.sin, (x,)))
show(lambda: gradcheck(torch.sin, (x.float().detach().requires_grad_(),)))
print(gradcheck(lambda a, b: (a * b).sum(), (x, torch.randn(3, dtype=torch.float64, requires_grad=True))))
#%% functions under torch.func transforms
from torch.func import vmap, jacrev, grad as fgrad
class Sq(Function):
    @staticmethod
    def forward(x):
        return x * x
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
class SqV(Sq):
    generate_vmap_rule = True
class Old(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1., -2., 3.])
print(fgrad(lambda v: Sq.apply(v).sum())(x))
show(lambda: vmap(Sq.apply)(x))
print(vmap(SqV.apply)(x), jacrev(SqV.apply)(x))
show(lambda: fgrad(lambda v: Old.apply(v).sum())(x))
print(Old.apply(x.requires_grad_()).sum().grad_fn.name(), 'vmap' in dir(Function), Function.generate_vmap_rule)
