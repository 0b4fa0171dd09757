import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% version counter messages
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x.exp()
y[0] = 5
show(lambda: y.sum().backward())
x2 = torch.tensor([1., 2.], requires_grad=True)
z = x2 * 2
w = z.pow(2)
z.t_() if False else z.mul_(3)
show(lambda: w.sum().backward())
a = torch.tensor([1., 2.], requires_grad=True)
b = a.tanh()
c = b.view(2)
c.add_(1)
show(lambda: b.sum().backward())
print(b._version, c._version, b.grad_fn.name(), c.grad_fn.name())
p = torch.tensor([1., 2.], requires_grad=True)
q = p.sigmoid()
q.data.mul_(2)
q.sum().backward()
print(p.grad, q._version)
s = torch.tensor([1., 2.], requires_grad=True)
t = s.sqrt()
t.detach().zero_()
show(lambda: t.sum().backward())
#%% views of views in-place with grad
base = torch.zeros(2, 3, requires_grad=True)
m = base.clone()
m[0, 1:] = torch.tensor([4., 5.])
m[:, 0] *= 2
row = m[1]
row.add_(torch.arange(3.))
m.sum().backward()
print(m, base.grad, m.grad_fn.name())
src = torch.tensor([1., 2., 3., 4.], requires_grad=True)
buf = torch.zeros(4)
buf[::2] = src[:2] * 2
buf[1::2] = src[2:]
buf.sum().backward()
print(buf, src.grad, buf.grad_fn.name())
k = torch.ones(3, requires_grad=True)
v = k.clone().unsqueeze(0).expand(2, 3)
show(lambda: v.add_(1))
e = torch.ones(2, 2, requires_grad=True).clone()
d = e.diagonal()
d.mul_(torch.tensor([2., 3.]))
print(e, e.grad_fn.name())
#%% comparisons bitwise shifts promotion
i8 = torch.tensor([1, -2], dtype=torch.int8)
u8 = torch.tensor([3, 250], dtype=torch.uint8)
print(i8 < 1.5, (i8 == torch.tensor(1.)).dtype, torch.eq(u8, 250))
print(i8 & 3, (i8 | torch.tensor(4)).dtype, (u8 ^ torch.tensor([1], dtype=torch.int16)).dtype, (i8 & True).dtype)
show(lambda: torch.tensor([1.5]) & 1)
show(lambda: torch.tensor([True]) & 2.5)
print(u8 << 1, i8 >> 1, (u8 >> torch.tensor(1)).dtype, (torch.tensor([1]) << torch.tensor([70])))
print(torch.tensor([1, 2]) << 1.5 if False else 'skip', (torch.tensor([8.]) >> 1) if False else 'skip')
print(torch.maximum(i8, torch.tensor(0.5)).dtype, torch.fmax(torch.tensor([float('nan'), 1.]), torch.tensor([2., float('nan')])))
print(torch.minimum(torch.tensor([1, 5]), torch.tensor([3.])).dtype, torch.clamp(u8, max=torch.tensor(100)))
print(torch.isclose(torch.tensor([1., float('nan')]), torch.tensor([1.0000001, float('nan')]), equal_nan=True), torch.allclose(torch.tensor([1]), torch.tensor([1.])) if False else '')
show(lambda: torch.allclose(torch.tensor([1]), torch.tensor([1.])))
show(lambda: torch.isclose(torch.tensor([1]), torch.tensor([1.])))
print(torch.eq(torch.tensor([1 + 1j]), 1 + 1j), torch.ne(torch.tensor([1.]), torch.tensor(1, dtype=torch.int64)))
show(lambda: torch.tensor([1 + 1j]) < 1)
print(torch.logical_and(torch.tensor([1., 0.]), torch.tensor([2, 3])), torch.logical_xor(torch.tensor([1]), 0).dtype, torch.logical_not(torch.tensor([0.5, 0.])))
#%% out= with promotion and resizing
o = torch.empty(0)
torch.add(torch.tensor([1, 2]), 1.5, out=o)
print(o, o.dtype)
o2 = torch.empty(5)
torch.mul(torch.ones(2), 3, out=o2)
print(o2.shape)
o3 = torch.empty(2, dtype=torch.int64)
show(lambda: torch.div(torch.tensor([3, 4]), 2, out=o3))
print(torch.div(torch.tensor([3, 4]), 2, rounding_mode='floor', out=o3), o3)
o4 = torch.empty(2, dtype=torch.bool)
torch.gt(torch.tensor([1, 3]), 2, out=o4)
print(o4)
o5 = torch.empty(2, dtype=torch.float32)
torch.gt(torch.tensor([1, 3]), 2, out=o5)
print(o5)
o6 = torch.empty(2, dtype=torch.float64)
print(torch.sum(torch.tensor([[1, 2], [3, 4]]), 0, out=o6) if False else 'skip')
show(lambda: torch.sum(torch.tensor([[1, 2], [3, 4]]), 0, out=o6))
show(lambda: torch.exp(torch.tensor([1.]), out=torch.empty(1, dtype=torch.int32)))
show(lambda: torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2)))
