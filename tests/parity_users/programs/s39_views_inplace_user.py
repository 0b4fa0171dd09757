import torch
#%% in-place through views updates the base
x = torch.arange(12.).reshape(3, 4)
r = x[1]
r += 100
c = x[:, 2]
c.mul_(-1)
x.t()[0].zero_()
print(x)
d = x.diagonal()
d.fill_(7)
print(x, d._base is x, x.view(-1)._base is x)
u = x.unsqueeze(0)
u[0, 0, 0] = -5
print(x[0, 0], u.is_contiguous(), x.t().is_contiguous())
#%% version counter and saved tensors
a = torch.ones(3, requires_grad=True)
b = a * 2
y = b.exp()
b.add_(1)
try:
    y.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e).split("Hint")[0])
print(b._version)
a2 = torch.ones(3, requires_grad=True).clone()
v = a2[:2]
v.mul_(3)
print(a2.grad_fn.name(), v.grad_fn.name())
a2.sum().backward()
#%% leaf views and no_grad
w = torch.ones(3, requires_grad=True)
try:
    w[0] = 5
except Exception as e:
    print(type(e).__name__, e)
with torch.no_grad():
    w[0] = 5
    w.mul_(2)
print(w, w.is_leaf, w.grad_fn)
vw = w.view(3)
try:
    with torch.no_grad():
        vv = w[:2]
    vv.mul_(2)
except Exception as e:
    print(type(e).__name__, str(e)[:150])
#%% expand / broadcast writes
e = torch.zeros(1, 3).expand(2, 3)
try:
    e.add_(1)
except Exception as e2:
    print(type(e2).__name__, e2)
z = torch.zeros(3)
try:
    z.add_(torch.ones(2, 3))
except Exception as ex:
    print(type(ex).__name__, ex)
i = torch.zeros(3, dtype=torch.int64)
try:
    i.add_(1.5)
except Exception as ex:
    print(type(ex).__name__, ex)
i += 2
print(i)
try:
    i /= 2
except Exception as ex:
    print(type(ex).__name__, ex)
f = torch.zeros(3)
f += torch.tensor([1, 2, 3])
print(f)
bb = torch.tensor([True, False])
try:
    bb += 1
except Exception as ex:
    print(type(ex).__name__, ex)
#%% overlapping copies and out=
x = torch.arange(6.)
x[1:] = x[:-1].clone()
print(x)
x = torch.arange(6.)
try:
    x[1:].copy_(x[:-1])
except Exception as ex:
    print(type(ex).__name__, ex)
out = torch.empty(2)
torch.add(torch.ones(3), 1, out=out)
print(out)
o = torch.empty(3, dtype=torch.int64)
try:
    torch.mul(torch.ones(3), 2, out=o)
except Exception as ex:
    print(type(ex).__name__, ex)
#%% views of different kinds
x = torch.arange(24).reshape(2, 3, 4)
print(x.permute(2, 0, 1).is_contiguous(), x.transpose(0, 2).stride(), x.narrow(1, 1, 2).storage_offset())
try:
    x.permute(2, 0, 1).view(-1)
except Exception as ex:
    print(type(ex).__name__, ex)
print(x.permute(2, 0, 1).reshape(-1)[:5], x.unflatten(2, (2, 2)).shape, x.flatten(1).shape)
s = x.select(2, 1)
s.zero_()
print(x[0])
print(x.movedim(0, -1).shape, x.swapaxes(1, 2).shape, x.mT.shape)
print(x.unfold(2, 2, 1).shape, x.as_strided((2, 2), (1, 2)).tolist())
print(x.split(1, dim=1)[1].shape, [t.shape for t in x.chunk(3, dim=2)], x.unbind(1)[0].shape)
