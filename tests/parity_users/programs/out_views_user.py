import torch
#%% out= arguments with right and wrong shapes
out = torch.empty(3)
torch.add(torch.ones(3), 2, out=out)
print(out)
o2 = torch.empty(0)
torch.mul(torch.ones(2, 2), 3, out=o2)
print(o2, o2.shape)
o3 = torch.empty(5)
torch.sub(torch.ones(2), 1, out=o3)
print(o3.shape)
o4 = torch.empty(2, dtype=torch.int64)
try:
    torch.add(torch.ones(2), 1.5, out=o4)
except RuntimeError as e:
    print(type(e).__name__, e)
o5 = torch.empty(2, dtype=torch.float64)
torch.add(torch.ones(2), 1, out=o5)
print(o5)
#%% out for reductions and sort
x = torch.tensor([[3.0, 1.0], [2.0, 4.0]])
v, i = torch.empty(2), torch.empty(2, dtype=torch.long)
torch.max(x, 1, out=(v, i))
print(v, i)
sv, si = torch.empty(0), torch.empty(0, dtype=torch.long)
torch.sort(x, 0, out=(sv, si))
print(sv, si)
m = torch.empty(1)
torch.mean(x, 0, out=m)
print(m)
torch.matmul(x, x, out=(mm := torch.empty(2, 2)))
print(mm, torch.cat([x, x], out=torch.empty(4, 2)).shape)
#%% out aliasing input
x = torch.arange(4.0)
torch.add(x, x, out=x)
print(x)
torch.cumsum(x, 0, out=x)
print(x)
y = torch.arange(4.0)
torch.mul(y[:2], 10, out=y[2:])
print(y)
#%% inplace on overlapping views
x = torch.arange(6.0)
x[1:] += x[:-1].clone()
print(x)
z = torch.arange(6.0)
z[1:].copy_(z[:-1].clone())
print(z)
e = torch.zeros(1).expand(3)
try:
    e.add_(1)
except RuntimeError as err:
    print(type(err).__name__, err)
#%% views share storage through ops
base = torch.zeros(2, 3)
v = base.view(6)
t = base.t()
d = base.diagonal()
u = base.unsqueeze(0)
n = base.narrow(1, 1, 2)
v[0] = 1
t[2, 1] = 2
d += 3
u[0, 0, 2] = 4
n.mul_(2)
print(base, base._version, v._version, n._base is base, t.is_contiguous())
#%% view ops that copy and those that do not
x = torch.arange(6.0).view(2, 3)
for name, y in (("reshape", x.reshape(3, 2)), ("t_reshape", x.t().reshape(6)), ("flatten", x.flatten()), ("contig", x.contiguous()), ("t_contig", x.t().contiguous()),
                ("expand", x[:1].expand(3, 3)), ("repeat", x.repeat(1, 1)), ("squeeze", x.squeeze()), ("unflatten", x.unflatten(1, (3, 1))), ("mT", x.mT), ("real", x.real), ("detach", x.detach()), ("unbind", x.unbind(0)[1]), ("split", x.split(1)[0]), ("movedim", x.movedim(0, 1))):
    print(name, y.data_ptr() == x.data_ptr() or y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), y._base is x)
#%% complex views (is_conj left out: numtorch documents that conj() is not a lazy view)
c = torch.tensor([1 + 2j, 3 - 4j])
r = torch.view_as_real(c)
r[0, 1] = 9
print(c, r.shape, torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]])), c.real, c.imag, c.conj(), c.conj().resolve_conj().is_conj(), c.abs(), c.angle())
c.imag.zero_()
print(c)
#%% storage sharing with numpy and from_numpy writes
import numpy as np
a = np.arange(4, dtype=np.float32)
t = torch.from_numpy(a)
t += 1
a[0] = 100
print(t, a, torch.as_tensor(a).data_ptr() == t.data_ptr(), torch.tensor(a).data_ptr() == t.data_ptr())
nt = t.numpy()
nt[1] = -1
print(t)
#%% clone and detach semantics with grad
w = torch.ones(2, requires_grad=True)
c = w.clone()
d = w.detach()
d[0] = 5
print(w, c, c.requires_grad, c.grad_fn.name(), d.requires_grad)
c.sum().backward()
print(w.grad)
