import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
def r(t, d=4):
    if isinstance(t, tuple):
        return tuple(r(x, d) for x in t)
    return torch.round(t, decimals=d) if isinstance(t, torch.Tensor) else t
#%% functional api
f = lambda x: (x ** 2).sin()
x = torch.tensor([0.5, 1.0, 1.5])
print(r(jacobian(f, x)), r(hessian(lambda x: (x ** 3).sum(), x)))
print(r(vjp(f, x, torch.ones(3))), r(jvp(f, x, torch.ones(3))), r(hvp(lambda x: (x ** 3).sum(), x, torch.ones(3))), r(vhp(lambda x: (x ** 3).sum(), x, torch.ones(3))))
print(r(jacobian(lambda a, b: a * b, (x, x))))
print(jacobian(f, x, create_graph=True).requires_grad)
#%% functional errors
try:
    vjp(f, x, torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    hessian(lambda x: x ** 2, x)
except Exception as e:
    print(type(e).__name__, e)
try:
    jacobian(lambda x: x.detach(), x, strict=True)
except Exception as e:
    print(type(e).__name__, e)
#%% forward ad basics
with fwAD.dual_level():
    p = torch.tensor([1.0, 2.0]); t = torch.tensor([0.5, -1.0])
    d = fwAD.make_dual(p, t)
    out = (d.exp() * d).sum()
    print(r(fwAD.unpack_dual(out).tangent), fwAD.unpack_dual(d).primal is p)
    y = torch.nn.functional.linear(d.unsqueeze(0), torch.eye(2) * 3)
    print(fwAD.unpack_dual(y).tangent, fwAD.unpack_dual(y.relu()).tangent)
#%% forward ad custom jvp
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return x ** 2
    @staticmethod
    def jvp(ctx, tx):
        x, = ctx.saved_tensors
        return 2 * x * tx
    @staticmethod
    def backward(ctx, g):
        return g
with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([3.0]), torch.tensor([1.0]))
    print(fwAD.unpack_dual(Sq.apply(d)).tangent)
class NoJ(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g
with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([3.0]), torch.tensor([1.0]))
    try:
        NoJ.apply(d)
    except Exception as e:
        print(type(e).__name__, e)
#%% forward ad errors
try:
    fwAD.make_dual(torch.ones(2), torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
with fwAD.dual_level():
    try:
        fwAD.make_dual(torch.ones(2), torch.ones(2, dtype=torch.int64))
    except Exception as e:
        print(type(e).__name__, e)
#%% double backward
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g.sum(), x)
print(g, g2, g.grad_fn is not None)
z = torch.tanh(x).sum()
gz, = torch.autograd.grad(z, x, create_graph=True)
print(r(torch.autograd.grad(gz.sum(), x)[0]))
#%% retain grad and inputs
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2; h.retain_grad()
out = (h ** 2).sum(); out.backward(inputs=[h])
print(h.grad, x.grad, h.retains_grad)
w = torch.ones(2, requires_grad=True)
(w * 3).sum().backward(); (w * 3).sum().backward(); print(w.grad)
#%% saved tensor hooks
packed = []
def pack(t):
    packed.append(tuple(t.shape)); return t
def unpack(t):
    return t
x = torch.ones(2, 3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * x).sin().sum()
y.backward()
print(packed, x.grad.shape)
with torch.autograd.graph.save_on_cpu():
    y = (x.exp() * 2).sum()
y.backward(); print(r(x.grad[0]))
#%% anomaly detection nan
x = torch.tensor([0.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = torch.sqrt(x) * 0
    try:
        y.backward()
        print(x.grad)
    except RuntimeError as e:
        print(str(e).split("\n")[0])
#%% grad_fn graph walk
x = torch.ones(2, requires_grad=True)
y = (x * 2 + 1).exp().sum()
fn = y.grad_fn
names = []
while fn is not None:
    names.append(type(fn).__name__)
    fn = fn.next_functions[0][0] if fn.next_functions else None
print(names, y.grad_fn.next_functions[0][1])
print(x.grad_fn, (x * 2).grad_fn.next_functions)
