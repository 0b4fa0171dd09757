import torch
import torch.nn as nn
#%% view after transpose and reshape copies
a = torch.arange(6.0).view(2, 3)
try:
    a.t().view(6)
except RuntimeError as e:
    print(e)
r = a.t().reshape(6)
r[0] = 100
print(a[0, 0], r._base is None, a.t().contiguous().view(6))
print(a.t().is_contiguous(), a.t().stride(), a.flatten()._base is a, a.t().flatten()._base is None)
#%% multi-output view modified in place
x = torch.randn(4, requires_grad=True)
y = x * 1
parts = y.split(2)
try:
    parts[0].mul_(2)
except RuntimeError as e:
    print(str(e)[:160])
with torch.no_grad():
    z = torch.ones(4)
    z.split(2)[0].mul_(2)
print(z)
#%% view created in no_grad then modified with grad
x = torch.ones(3, requires_grad=True)
y = x * 2
with torch.no_grad():
    v = y[:2]
try:
    v.add_(1)
except RuntimeError as e:
    print(str(e)[:120])
#%% unsqueeze squeeze expand as_strided views share memory
a = torch.zeros(2, 3)
for v in (a.unsqueeze(0), a[None], a.T, a.narrow(1, 1, 2), a.select(0, 1), a.unflatten(1, (3, 1)), a.movedim(0, 1), a.view(3, 2), a.expand(2, 2, 3)):
    print(v.shape, v.data_ptr() >= a.data_ptr(), v._base is a)
a.unsqueeze(0)[0, 1, 2] = 5
a.narrow(1, 0, 1).fill_(-1)
print(a)
#%% view dtype and view_as_real mutation
a = torch.tensor([1.0, -2.0])
b = a.view(torch.int32)
print(b)
b[0] = 0
print(a)
try:
    torch.ones(3).view(torch.int64)
except RuntimeError as e:
    print(e)
print(torch.ones(4, dtype=torch.float32).view(torch.float16).shape, torch.ones(2, dtype=torch.int16).view(torch.uint8))
#%% inplace ops returning self and chaining
a = torch.ones(3)
r = a.add_(1).mul_(2).clamp_(max=3.5)
print(r is a, a, a.sub_(torch.tensor([1.0, 2.0, 3.0])).abs_(), a.zero_().add_(torch.arange(3.0), alpha=2))
b = torch.tensor([3, 5])
print(b.div_(2, rounding_mode="floor"), b)
try:
    b.div_(2)
except RuntimeError as e:
    print(e)
#%% out= resizing warnings and errors
out = torch.empty(2)
torch.add(torch.ones(3), 1, out=out)
print(out)
out2 = torch.empty(0)
torch.mul(torch.ones(2, 2), 3, out=out2)
print(out2)
try:
    torch.add(torch.ones(3), 1, out=torch.empty(3, dtype=torch.int64))
except RuntimeError as e:
    print(e)
#%% nn parameter in-place misuse
lin = nn.Linear(2, 2)
try:
    lin.weight.add_(1)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    lin.weight.fill_(0.5)
    lin.bias.copy_(torch.tensor([1.0, 2.0]))
print(lin(torch.ones(1, 2)))
try:
    lin.weight = torch.ones(2, 2)
except TypeError as e:
    print(e)
lin.weight = nn.Parameter(torch.ones(2, 2) * 3)
print(lin.weight.sum(), lin.weight.requires_grad)
lin.weight.data.mul_(2)
print(lin.weight.sum(), lin.weight.grad_fn)
#%% setitem on tensor requiring grad via index and gradients
x = torch.ones(4, requires_grad=True)
y = x.clone()
y[1:3] = y[1:3] * 5
y[torch.tensor([0])] += 2
y.sum().backward()
print(y, y.grad_fn.name(), x.grad)
z = x.clone()
z[z > 0.5] = 0
z.sum().backward()
print(x.grad)
