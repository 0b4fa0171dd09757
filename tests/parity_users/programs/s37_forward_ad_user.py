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
import torch.autograd.forward_ad as fwAD
#%% dual numbers through ops
x = torch.tensor([0.5, 1.0, 2.0])
t = torch.tensor([1.0, -1.0, 0.5])
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    for name, f in [('sin', torch.sin), ('exp', torch.exp), ('sq', lambda v: v * v), ('tanh', torch.tanh),
                    ('sum', lambda v: v.sum()), ('cumsum', lambda v: v.cumsum(0)), ('sig', torch.sigmoid),
                    ('norm', lambda v: v.norm()), ('softmax', lambda v: v.softmax(0)), ('max', lambda v: v.max()),
                    ('pow3', lambda v: v ** 3), ('log1p', torch.log1p), ('div', lambda v: 1 / v)]:
        y = f(d)
        p, tg = fwAD.unpack_dual(y)
        print(name, r(p), r(tg))
    print(fwAD.unpack_dual(x).tangent)
#%% dual with modules
torch.manual_seed(1)
lin = nn.Linear(3, 2)
x = torch.randn(4, 3)
v = torch.randn(4, 3)
with fwAD.dual_level():
    y = lin(fwAD.make_dual(x, v))
    print(r(fwAD.unpack_dual(y).tangent))
    y2 = F.relu(fwAD.make_dual(x, v)).sum(1)
    print(r(fwAD.unpack_dual(y2).tangent))
    z = fwAD.make_dual(x, v)
    print(r(fwAD.unpack_dual(z.view(2, 6)).tangent), r(fwAD.unpack_dual(z.t()).tangent).shape)
    print(r(fwAD.unpack_dual(z[1:3, ::2]).tangent))
    print(r(fwAD.unpack_dual(torch.cat([z, x])).tangent).sum())
print(r(lin.weight @ v.t()).t())
#%% errors
show(lambda: fwAD.make_dual(torch.ones(2), torch.ones(2)))
with fwAD.dual_level():
    show(lambda: fwAD.make_dual(torch.ones(2), torch.ones(3)))
    show(lambda: fwAD.make_dual(torch.ones(2), torch.ones(2, dtype=torch.float64)))
    d = fwAD.make_dual(torch.ones(2), torch.ones(2))
    print(type(fwAD.unpack_dual(d)).__name__, fwAD.unpack_dual(d)._fields)
    print(fwAD.unpack_dual(torch.ones(2)).tangent)
#%% jvp vs functional
from torch.func import jvp
f = lambda a: (a.sin() * a.cos()).sum()
x = torch.tensor([0.3, 0.7])
print([r(o) for o in jvp(f, (x,), (torch.ones(2),))])
print([r(o) for o in torch.autograd.functional.jvp(f, x, torch.ones(2))])
print([r(o) for o in torch.autograd.functional.vjp(lambda a: a ** 2, x, torch.tensor([1., 2.]))])
print(r(torch.autograd.functional.hvp(f, x, torch.ones(2))[1]))
print(r(torch.autograd.functional.vhp(f, x, torch.ones(2))[1]))
