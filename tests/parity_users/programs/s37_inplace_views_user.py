import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% in-place on views of non-leaves
a = torch.tensor([1., 2., 3., 4.], requires_grad=True)
b = a * 2
v = b[1:3]
v.mul_(10)
print(b, b.grad_fn.name(), v.grad_fn.name())
b.sum().backward()
print(a.grad)
a.grad = None
c = a.clone()
c.view(2, 2)[0].zero_()
c.t_() if False else None
(c * c).sum().backward()
print(c, a.grad)
a.grad = None
d = a.clone()
u = d.unbind(0)
show(lambda: u[0].mul_(2))
e = a.clone()
e.diagonal() if False else None
e.unsqueeze(0).squeeze_(0) if False else None
f = e.view(2, 2).transpose(0, 1)
f[0].add_(100)
print(e, e.grad_fn.name())
#%% leaf views and detach
leaf = torch.ones(3, requires_grad=True)
show(lambda: leaf[0].mul_(2))
with torch.no_grad():
    leaf[0] = 5
print(leaf, leaf.is_leaf, leaf.grad_fn)
vv = leaf.view(3)
show(lambda: vv.add_(1))
det = leaf.detach()
det[1] = 9
print(leaf, leaf._version, det._version)
show(lambda: (leaf * 2).detach().requires_grad_().sum().backward())
z = torch.ones(2, requires_grad=True)
y = z.exp()
yd = y.detach()
yd.zero_()
show(lambda: y.sum().backward())
print(z.grad)
#%% version counters and saved tensors
def show(f):  # numtorch names the op that made the saved tensor, torch its current grad_fn (see report)
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split(', which is output')[0][:200])
x = torch.ones(3, requires_grad=True)
y = x * 2
w = y.sin()
y.add_(1)
show(lambda: w.sum().backward())
x2 = torch.ones(3, requires_grad=True)
h = x2 + 0
h2 = h.relu()
h.mul_(3)
show(lambda: h2.sum().backward())
p = torch.ones(2, requires_grad=True)
q = p * 1
r1 = q ** 2
print(q._version, r1._version)
q[0] = 4
print(q._version)
show(lambda: r1.sum().backward())
t = torch.ones(2, 3)
print(t._version, t[0]._version)
t[0].fill_(2)
print(t._version, t.t()._version)
