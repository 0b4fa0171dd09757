import torch
#%% in-place on a slice updates the base
x = torch.zeros(3, 4)
row = x[1]
row += 1
x[:, 2].mul_(0).add_(5)
print(x, row._version, x._version, row._base is x)
#%% in-place on a view of a leaf that needs grad
w = torch.ones(3, requires_grad=True)
try:
    w[0].mul_(2)
except RuntimeError as e:
    print(str(e))
y = w * 1
y[1:].mul_(3)
y.sum().backward()
print(w.grad, type(y.grad_fn).__name__)
#%% saved tensor modified in-place errors at backward
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
c = b * 2
b.add_(1)
try:
    c.sum().backward()
    print(a.grad)
except RuntimeError as e:
    print(str(e)[:160])
d = a.exp()
e = d.sum()
d.add_(1)
try:
    e.backward()
except RuntimeError as err:
    print(str(err)[:160])
#%% transpose/view/reshape sharing and contiguity
m = torch.arange(12.).view(3, 4)
t = m.t()
print(t.is_contiguous(), t.stride(), m.view(-1).data_ptr() == m.data_ptr())
try:
    t.view(12)
except RuntimeError as e:
    print(str(e))
r = t.reshape(12)
r[0] = 100
print(m[0, 0], t.contiguous().stride(), m.unsqueeze(1).stride(), m[:, ::2].stride())
#%% unfold, narrow, expand and write through
z = torch.arange(6.)
u = z.unfold(0, 3, 2)
print(u, u.stride())
n = z.narrow(0, 1, 3)
n.fill_(-1)
print(z)
e = torch.ones(1, 3).expand(2, 3)
try:
    e.add_(1)
except RuntimeError as err:
    print(str(err)[:120])
print(e.clone().add_(1))
