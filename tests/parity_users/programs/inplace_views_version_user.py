import torch
#%% modify a leaf that requires grad
w = torch.ones(3, requires_grad=True)
try:
    w += 1
except RuntimeError as e:
    print(e)
try:
    w[0] = 5
except RuntimeError as e:
    print(e)
with torch.no_grad():
    w[0] = 5
    w.mul_(2)
print(w, w.grad_fn, w._version)
#%% view of leaf modified in place
w = torch.ones(4, requires_grad=True)
v = w[:2]
try:
    v.add_(1)
except RuntimeError as e:
    print(e)
print(v.grad_fn, v._base is w)
#%% saved tensor modified then backward
a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
c = b * 2
b.add_(1)
try:
    c.sum().backward()
    print("ok", a.grad)
except RuntimeError as e:
    print(e)
d = a.sigmoid()
e2 = d.exp()
d.mul_(3)
try:
    e2.sum().backward()
except RuntimeError as e:
    print(e)
#%% version counter shared by views
x = torch.zeros(4)
v = x[1:3]
t = x.view(2, 2)
print(x._version, v._version, t._version)
v.fill_(1)
print(x._version, v._version, t._version)
x.add_(1)
print(x._version, v._version, t._version, x)
y = x.detach()
y.zero_()
print(x._version, y._version, x)
#%% in-place on view of non-leaf rebase grad_fn
a = torch.randn(4, requires_grad=True)
b = a * 1
v = b[1:3]
v.mul_(10)
print(b.grad_fn.name(), v.grad_fn.name())
b.sum().backward()
print(a.grad)
#%% unbind outputs modified in place
a = torch.randn(2, 3, requires_grad=True)
b = a.clone()
x, y = b.unbind(0)
try:
    x.mul_(2)
except RuntimeError as e:
    print(e)
p, q = b.split(1)
try:
    p.mul_(2)
except RuntimeError as e:
    print(e)
c = b.chunk(3, dim=1)
try:
    c[0].add_(1)
except RuntimeError as e:
    print(e)
#%% in-place on view inside no_grad then use
a = torch.randn(3, requires_grad=True)
b = a * 2
with torch.no_grad():
    v = b[:2]
try:
    v.add_(1)
except RuntimeError as e:
    print(e)
print(v.requires_grad)
#%% detach view modified changes original
a = torch.arange(6.0, requires_grad=True)
b = a * 1
d = b.detach()
d[0] = 100
print(b)
try:
    (b * b).sum().backward()
    print(a.grad)
except RuntimeError as e:
    print(e)
#%% in-place relu after exp
x = torch.randn(5, requires_grad=True)
y = x.exp()
y.relu_()
try:
    y.sum().backward()
    print(x.grad is not None)
except RuntimeError as e:
    print(e)
x2 = torch.randn(5, requires_grad=True)
y2 = torch.tanh(x2)
y2.add_(0)
try:
    y2.sum().backward()
except RuntimeError as e:
    print(e)
#%% out= into tensor requiring grad
a = torch.randn(3, requires_grad=True)
out = torch.empty(3)
torch.add(a.detach(), 1, out=out)
print(out)
try:
    torch.add(a, 1, out=torch.empty(3))
except RuntimeError as e:
    print(e)
try:
    torch.add(torch.ones(3), 1, out=a)
except RuntimeError as e:
    print(e)
#%% set_ and data assignment
a = torch.ones(3, requires_grad=True)
a.data = torch.zeros(5)
print(a, a.shape, a.requires_grad)
b = torch.ones(2)
b.set_(torch.arange(4.0))
print(b, b._version)
try:
    a.data = [1, 2]
except TypeError as e:
    print(e)
#%% view + inplace with expand
a = torch.zeros(3)
e = a.expand(2, 3)
try:
    e.add_(1)
except RuntimeError as e2:
    print(e2)
b = torch.zeros(1, 3)
try:
    b.expand(2, 3).copy_(torch.ones(2, 3))
    print(b)
except RuntimeError as e2:
    print(e2)
#%% transpose view inplace grads
a = torch.randn(2, 3, requires_grad=True)
b = a.clone()
bt = b.t()
bt[0].mul_(5)
b.pow(2).sum().backward()
print(torch.allclose(a.grad[:, 0], 50 * a[:, 0].detach()), torch.allclose(a.grad[:, 1], 2 * a[:, 1].detach()))
print(bt.grad_fn.name())
#%% diagonal and as_strided inplace
a = torch.zeros(3, 3)
a.diagonal().fill_(2)
a.diagonal(1).add_(7)
print(a)
s = torch.zeros(6)
s.as_strided((2, 2), (1, 2)).add_(1)
print(s)
#%% retain graph and in-place grad modification
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
y.backward(retain_graph=True)
x.grad.mul_(0)
y.backward()
print(x.grad)
x.grad.zero_()
print(x.grad, x.grad._version)
#%% saved_tensors_hooks and version mismatch message
x = torch.ones(3, requires_grad=True)
y = x * 1
z = y.pow(2)
y[0] = 7
try:
    z.sum().backward()
except RuntimeError as e:
    print(str(e).split(", which")[0])  # torch names CopySlices here (left in the report)
    print("version" in str(e))
#%% inference mode tensors in-place
with torch.inference_mode():
    t = torch.ones(3)
print(t.is_inference())
try:
    t.add_(1)
except RuntimeError as e:
    print(e)
w = torch.ones(3, requires_grad=True)
try:
    (w * t).sum().backward()
    print(w.grad)
except RuntimeError as e:
    print(e)
#%% resize_ on tensor needing grad
a = torch.ones(3, requires_grad=True)
try:
    a.resize_(5)
except RuntimeError as e:
    print(e)
b = torch.arange(4.0)
b.resize_(2, 2)
print(b)
b.resize_(1)
print(b, b.storage().size() if hasattr(b, "storage") else None)
