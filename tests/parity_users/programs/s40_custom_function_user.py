import torch
#%% custom autograd function with save_for_backward and ctx attributes
class ScaledExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = torch.exp(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y
    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = ScaledExp.apply(x, 2.0)
y.sum().backward()
print(y, x.grad, type(y.grad_fn).__name__)
print(torch.autograd.gradcheck(lambda t: ScaledExp.apply(t, 3.0), (torch.randn(3, dtype=torch.double, requires_grad=True),)))
#%% function returning two outputs, one non-differentiable
class SortWithIdx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return v, i
    @staticmethod
    def backward(ctx, gv, gi):
        (i,) = ctx.saved_tensors
        out = torch.zeros_like(gv)
        out.scatter_(0, i, gv)
        return out
x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = SortWithIdx.apply(x)
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(v, i, i.requires_grad, x.grad)
#%% once_differentiable and wrong number of grads
from torch.autograd.function import once_differentiable
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor([1.5], requires_grad=True)
Sq.apply(x).backward()
print(x.grad)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    Bad.apply(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
#%% setup_context style and vmap-free usage
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x
a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([5.0], requires_grad=True)
Mul.apply(a, b).backward()
print(a.grad, b.grad)
