import torch
#%% modifying a saved tensor in place
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
c = b * 2
b.add_(1)
try:
    c.sum().backward()
    (b * b).sum().backward()
except RuntimeError as e:
    print(e)
x = torch.ones(3, requires_grad=True)
y = x.sigmoid()
y.mul_(2)
try:
    y.sum().backward()
except RuntimeError as e:
    print(e)
#%% version counter and in-place on leaf
t = torch.zeros(3)
print(t._version)
t.add_(1); t[0] = 5; t.mul_(2)
print(t._version, t)
leaf = torch.ones(2, requires_grad=True)
try:
    leaf.add_(1)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    leaf.add_(1)
print(leaf, leaf._version)
#%% views share version counters
base = torch.arange(6.0)
v = base.view(2, 3)
v[0, 0] = 10
print(base._version, v._version, base)
w = torch.ones(4, requires_grad=True).clone()
u = w[:2]
u.mul_(3)
print(w, w.grad_fn, u.grad_fn)
#%% in-place on a view of a leaf and detach
p = torch.ones(3, requires_grad=True)
try:
    p[0].mul_(2)
except RuntimeError as e:
    print(e)
d = p.detach()
d.zero_()
print(p, d, p._version)
q = torch.ones(2, requires_grad=True)
r = q * 1
r.exp_()
r.sum().backward()
print(q.grad)
