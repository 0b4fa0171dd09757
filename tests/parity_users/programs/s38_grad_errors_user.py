import torch
import torch.nn as nn
import torch.nn.functional as F


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% backward twice and leaf inplace
x = torch.ones(3, requires_grad=True)
y = (x * x).sum()
y.backward()
show(lambda: y.backward())
z = (x.exp()).sum()
z.backward(retain_graph=True)
z.backward()
print(x.grad)
show(lambda: x.add_(1))
show(lambda: x.zero_())
show(lambda: x[0].fill_(2))
with torch.no_grad():
    x.add_(1)
print(x, x.requires_grad, x.is_leaf)
show(lambda: torch.ones(2).backward())
show(lambda: torch.ones(2, requires_grad=True).mul(2).backward())
show(lambda: torch.ones(2, requires_grad=True).sum().backward(torch.ones(2)))
show(lambda: torch.tensor([1, 2], requires_grad=True))
show(lambda: torch.ones(2, dtype=torch.long).requires_grad_())
show(lambda: torch.autograd.grad(x.sum(), torch.ones(2, requires_grad=True)))
show(lambda: torch.autograd.grad((x * 2).sum(), x, allow_unused=True))
w = torch.ones(2, requires_grad=True)
h = w * 2
show(lambda: h.grad)
h.retain_grad()
(h * h).sum().backward()
print(h.grad, w.grad)
#%% inplace that breaks the graph
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
b.mul_(2)
show(lambda: b.sum().backward())
a2 = torch.tensor([1.0, 2.0], requires_grad=True)
c = a2 * 3
d = c.exp()
c.add_(1)
show(lambda: d.sum().backward())
e = a2.clone()
e[0] = 5
e.sum().backward()
print(a2.grad, e.grad_fn.name())
v = torch.ones(2, 3, requires_grad=True).clone()
vv = v[0]
vv.mul_(2)
print(v.grad_fn.name(), vv.grad_fn.name())
l = nn.Linear(2, 2)
show(lambda: l.weight.mul_(2))
show(lambda: F.relu(l.weight, inplace=True))
print(l.weight.detach().mul_(0).sum(), l.weight.abs().sum() > 0)
#%% no_grad vs inference_mode
m = nn.Linear(3, 1)
x = torch.ones(2, 3)
with torch.no_grad():
    y = m(x)
print(y.requires_grad, y.grad_fn, torch.is_grad_enabled())
with torch.inference_mode():
    y2 = m(x)
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y2.is_inference())
print(y2.requires_grad, y2.is_inference(), x.is_inference())
show(lambda: m(y2.expand(2, 3)).sum().backward())
show(lambda: y2.add_(1))
show(lambda: (y2 * torch.ones(1, requires_grad=True)).sum().backward())
y3 = y2.clone()
print(y3.is_inference())
with torch.inference_mode(False):
    print(torch.is_inference_mode_enabled())
@torch.no_grad()
def f(t):
    return t * 2
print(f(torch.ones(1, requires_grad=True)).requires_grad)
@torch.inference_mode()
def g(t):
    return t * 2
print(g(torch.ones(1, requires_grad=True)).is_inference())
with torch.set_grad_enabled(False):
    print((torch.ones(1, requires_grad=True) * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.enable_grad():
    print(torch.is_grad_enabled())
with torch.no_grad():
    with torch.enable_grad():
        print((torch.ones(1, requires_grad=True) * 2).requires_grad)
#%% views and contiguity
t = torch.arange(6.).view(2, 3).t()
print(t.is_contiguous(), t.stride(), t.contiguous().stride())
show(lambda: t.view(6))
show(lambda: t.view(-1, 2))
print(t.reshape(6), t.flatten(), t.contiguous().view(3, 2).shape)
show(lambda: torch.arange(6).view(4, 2))
show(lambda: torch.arange(6).view(2, -1, -1))
show(lambda: torch.arange(6).reshape(5))
show(lambda: torch.arange(6.)[::2].view(3))
show(lambda: torch.arange(12.).view(3, 4)[:, 1:3].view(6))
show(lambda: torch.arange(12.).view(3, 4)[1:3].view(8).sum())
show(lambda: torch.ones(2, 3).T.view(3, 2).shape)
show(lambda: torch.ones(2, 3).expand(2, 2, 3).view(12))
show(lambda: torch.ones(2, 1).expand(2, 3).view(6))
show(lambda: torch.ones(2, 3).mT.is_contiguous())
show(lambda: torch.ones(1, 3).t().is_contiguous())
#%% shape errors in models
show(lambda: nn.Linear(10, 5)(torch.ones(3, 7)))
show(lambda: nn.Linear(10, 5)(torch.ones(10, dtype=torch.float64)))
show(lambda: nn.Linear(10, 5)(torch.ones(10, dtype=torch.long)))
show(lambda: nn.Linear(10, 5).double()(torch.ones(10)))
show(lambda: torch.ones(2, 3).mm(torch.ones(3, 2, dtype=torch.float64)))
show(lambda: torch.ones(2, 3) @ torch.ones(3, 2).long())
show(lambda: torch.ones(2, 3, dtype=torch.int32) @ torch.ones(3, 2, dtype=torch.int32))
show(lambda: torch.matmul(torch.ones(2, 3, 4), torch.ones(5, 3)))
show(lambda: torch.matmul(torch.ones(4), torch.ones(2, 4, 3)).shape)
show(lambda: torch.matmul(torch.ones(2, 1, 3, 4), torch.ones(5, 4, 2)).shape)
show(lambda: torch.matmul(torch.ones(2, 3, 4), torch.ones(3, 4, 2)))
show(lambda: nn.Conv2d(1, 2, 3)(torch.ones(1, 1, 2, 2)))
show(lambda: nn.MaxPool2d(3)(torch.ones(1, 1, 2, 2)))
show(lambda: nn.LSTM(3, 4)(torch.ones(5, 2, 3, 1)))
show(lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(6, 2))(torch.ones(1, 4)))
show(lambda: F.softmax(torch.ones(2, 3), dim=2))
show(lambda: torch.ones(3).dot(torch.ones(3, dtype=torch.float64)))
show(lambda: torch.ones(3).dot(torch.ones(4)))
show(lambda: torch.ones(2, 2).dot(torch.ones(2, 2)))
show(lambda: torch.outer(torch.ones(2), torch.ones(2, 1)))
