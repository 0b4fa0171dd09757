import torch
import torch.nn as nn
from torch.autograd import Function
#%% custom function with saved tensors and needs_input_grad
class MulAdd(Function):
    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y + k
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return g * y, g * x if ctx.needs_input_grad[1] else None, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0])
out = MulAdd.apply(x, y, 5.0)
print(out, out.grad_fn.__class__.__name__)
out.sum().backward()
print(x.grad)
#%% setup_context style and vmap-able function
class Square(Function):
    @staticmethod
    def forward(x):
        return x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor([3.0], requires_grad=True)
Square.apply(x).backward()
print(x.grad, torch.autograd.grad(Square.apply(torch.tensor([2.0], requires_grad=True)).sum(), [], allow_unused=True) if False else "ok")
#%% mark_dirty and mark_non_differentiable
class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
c = AddOneInplace.apply(b)
print(c, c is b, c.grad_fn.__class__.__name__)
c.sum().backward()
print(a.grad)
class ArgMaxF(Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        return x.max(), idx
    @staticmethod
    def backward(ctx, g, gi):
        return torch.ones(3) * g
m, i = ArgMaxF.apply(torch.tensor([1.0, 5.0, 2.0], requires_grad=True))
print(m.requires_grad, i.requires_grad, i)
#%% wrong number of grads error
class Bad(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y
    @staticmethod
    def backward(ctx, g):
        return g
try:
    Bad.apply(torch.ones(1, requires_grad=True), torch.ones(1)).backward()
except Exception as e:
    print(type(e).__name__, e)
class BadShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)
try:
    BadShape.apply(torch.ones(2, requires_grad=True)).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
#%% once_differentiable double backward error
from torch.autograd.function import once_differentiable
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g
x = torch.tensor(2.0, requires_grad=True)
(g,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
print(g, g.requires_grad)
try:
    g.backward()
except Exception as e:
    print(type(e).__name__, e)
#%% forward mode AD
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
    y = (d.sin() * d).sum()
    p, t = fwAD.unpack_dual(y)
print(p.round(decimals=4), t.round(decimals=4))
#%% higher order grads
x = torch.tensor(1.5, requires_grad=True)
y = x ** 4
g1, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g1, x, create_graph=True)
g3, = torch.autograd.grad(g2, x)
print(g1, g2, g3)
#%% grad with allow_unused and materialize
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
print(torch.autograd.grad(a * 3, [a, b], allow_unused=True))
print(torch.autograd.grad(a * 3, [a, b], allow_unused=True, materialize_grads=True))
try:
    torch.autograd.grad(a * 3, [a, b])
except Exception as e:
    print(type(e).__name__, e)
#%% retain_graph errors
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x.exp() * 2).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
z = (x.exp() * 2).sum()
z.backward()
try:
    z.backward()
except Exception as e:
    print(type(e).__name__, str(e)[:160])
#%% anomaly detection
with torch.autograd.detect_anomaly():
    x = torch.tensor([0.0], requires_grad=True)
    y = torch.sqrt(x) * 0
    try:
        y.backward()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
print(torch.is_anomaly_enabled())
#%% no_grad inference_mode enable_grad set_grad_enabled
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        z = x * 2
print(y.requires_grad, z.requires_grad)
with torch.inference_mode():
    w = x * 2
print(w.requires_grad, w.is_inference(), torch.is_inference_mode_enabled())
try:
    (w * x).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
torch.set_grad_enabled(False)
print((x * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
@torch.no_grad()
def f(t):
    return t * 3
print(f(x).requires_grad)
#%% saved tensor hooks
def pack(t):
    print("pack", tuple(t.shape))
    return t.clone()
def unpack(t):
    print("unpack", tuple(t.shape))
    return t
x = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * x).sum()
y.backward()
print(x.grad)
#%% checkpoint
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
torch.manual_seed(0)
lin = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
out = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
out.sum().backward()
print(x.grad.round(decimals=4), lin.weight.grad.round(decimals=4))
seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
x2 = torch.randn(4, 3, requires_grad=True)
checkpoint_sequential(seq, 2, x2, use_reentrant=False).sum().backward()
print(x2.grad.shape)
#%% grad_fn graph walking
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 2 + 1).sum()
fn = y.grad_fn
names = []
while fn is not None:
    names.append(fn.name())
    nxt = [f for f, _ in fn.next_functions if f is not None]
    fn = nxt[0] if nxt else None
print(names)
print(y.grad_fn.next_functions[0][0].next_functions)
#%% leaf and requires_grad errors
x = torch.ones(2, requires_grad=True)
try:
    x.requires_grad_(False) if False else (x * 2).requires_grad_(False)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.ones(2, dtype=torch.long, requires_grad=True)
except Exception as e:
    print(type(e).__name__, e)
y = x * 2
print(y.is_leaf, y.grad)
