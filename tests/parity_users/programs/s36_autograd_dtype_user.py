import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% complex autograd basics
z = torch.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
y = (z * z.conj()).real.sum()
y.backward()
print(z.grad)
z.grad = None
(z.abs() ** 2).sum().backward()
print(z.grad)
z.grad = None
torch.angle(z).sum().backward()
print(z.grad)
z.grad = None
(z.exp() * 2).real.sum().backward()
print(r(z.grad.real), r(z.grad.imag))
show(lambda: (z * 2).sum().backward())
w = torch.randn(2, dtype=torch.cfloat, requires_grad=True)
print(w.dtype, (w.real + w.imag).dtype)
x = torch.tensor([1., 2.], requires_grad=True)
c = torch.complex(x, x * 2)
c.abs().sum().backward()
print(r(x.grad))
x.grad = None
torch.view_as_complex(torch.stack([x, -x], -1)).angle().sum().backward()
print(r(x.grad))
x.grad = None
torch.polar(x, x).imag.sum().backward()
print(r(x.grad))
#%% complex grad helpers
z = torch.tensor([3 + 4j], requires_grad=True)
y = z.abs()
g, = torch.autograd.grad(y, z, create_graph=True)
print(g)
zc = torch.tensor([3 + 4j, 0j, -1 + 0.5j], requires_grad=True)
g2, = torch.autograd.grad((zc.abs() * torch.tensor([1., 2., 3.])).sum(), zc, create_graph=True)
h2, = torch.autograd.grad((g2 * torch.tensor([1 + 2j, 1, 2 - 1j])).real.sum(), zc)
print(g2, r(h2.real, 3), r(h2.imag, 3))
zz = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
out = (zz ** 2).sum()
show(lambda: torch.autograd.grad(out, zz))
print(torch.autograd.grad(out, zz, grad_outputs=torch.tensor(1 + 0j)))
print(torch.autograd.grad(out.abs(), zz))
a = torch.tensor([1 + 1j], requires_grad=True)
b = torch.view_as_real(a)
(b * torch.tensor([[1., 2.]])).sum().backward()
print(a.grad)
r2 = torch.tensor([2.0], requires_grad=True)
(r2 * (1 + 1j)).abs().sum().backward()
print(r(r2.grad))
#%% promotion with 0-d and python scalars
i8 = torch.tensor([1, 2], dtype=torch.int8)
f16 = torch.tensor([1., 2.], dtype=torch.float16)
print((i8 + 1000).dtype, (i8 + 1000), (i8 * 2.5).dtype, (i8 + torch.tensor(1000)).dtype)
print((i8 + torch.tensor(1.5)).dtype, (f16 + torch.tensor(1.5, dtype=torch.float64)).dtype)
print((f16 + torch.tensor([1.5], dtype=torch.float64)).dtype, (i8 + True).dtype, (torch.tensor([True]) + True).dtype)
print((torch.tensor(2) + torch.tensor([1.], dtype=torch.bfloat16)).dtype, (torch.tensor(2.) * torch.tensor([1], dtype=torch.uint8)).dtype)
print((torch.tensor([1, 2]) / 2).dtype, (torch.tensor([1, 2]) // 2).dtype, (torch.tensor([5, 7]) // -2), (torch.tensor([5., -7.]) % 3))
print((torch.tensor([1 + 1j], dtype=torch.complex64) * torch.tensor(2., dtype=torch.float64)).dtype)
print((torch.tensor([1.], dtype=torch.bfloat16) + 1j).dtype, (torch.tensor([1]) + 1j).dtype)
print(torch.result_type(torch.tensor([1], dtype=torch.int32), 2.5), torch.result_type(2, 3.0), torch.promote_types(torch.uint8, torch.int8))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16), torch.can_cast(torch.complex64, torch.float64))
print(torch.tensor([250], dtype=torch.uint8) + 10, torch.tensor([-3], dtype=torch.int8).abs(), torch.tensor([-128], dtype=torch.int8).abs())
print((torch.tensor([3]) ** 2).dtype, (torch.tensor([3]) ** 2.0).dtype, (2 ** torch.tensor([3])).dtype, (2.0 ** torch.tensor([3])).dtype)
show(lambda: torch.tensor([2]) ** -1)
print(torch.tensor([2.]) ** torch.tensor(-1), (torch.tensor([4]) ** torch.tensor(0.5)).dtype)
#%% in-place promotion errors
x = torch.tensor([1, 2])
show(lambda: x.add_(1.5))
show(lambda: x.mul_(torch.tensor(2.)))
show(lambda: x.div_(2))
print(x.clone().floor_divide_(torch.tensor(2)), x.clone().add_(torch.tensor(1, dtype=torch.int64)))
y = torch.tensor([1., 2.], dtype=torch.float16)
y.add_(torch.tensor([1.], dtype=torch.float64))
print(y.dtype, y)
show(lambda: torch.tensor([True]).add_(1))
show(lambda: torch.tensor([1.]).add_(1j))
b = torch.tensor([1, 2], dtype=torch.uint8)
b.sub_(3)
print(b)
show(lambda: torch.add(torch.tensor([1]), torch.tensor([2.]), out=torch.empty(1, dtype=torch.long)))
print(torch.add(torch.tensor([1]), torch.tensor([2]), out=torch.empty(1)).dtype)
#%% version counter and views
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = a * 1
v = b[1:]
e = v.exp()
v.mul_(2)
show(lambda: e.sum().backward())
print(b._version, v._version, b.grad_fn.name() if hasattr(b.grad_fn, 'name') else b.grad_fn)
a2 = torch.tensor([1., 2., 3.], requires_grad=True)
b2 = a2.clone()
v2 = b2.view(3)
v2.add_(1)
print(b2.grad_fn.name(), v2.grad_fn.name())
b2.sum().backward()
print(a2.grad)
with torch.no_grad():
    c = a2 * 2
vv = c[:2]
vv.zero_()
print(c, c.requires_grad)
x = torch.ones(3, requires_grad=True)
show(lambda: x[0].add_(1))
show(lambda: x.view(3).add_(1))
d = x.detach()
d[0] = 5
print(x, x._version)
leaf = torch.zeros(2, requires_grad=True)
with torch.no_grad():
    leaf[0] = 1
print(leaf, leaf.is_leaf, leaf.grad_fn)
#%% views created in no_grad and unbind
base = torch.ones(4, requires_grad=True)
y = base * 2
with torch.no_grad():
    w = y[:2]
show(lambda: w.mul_(3))
parts = (base * 1).unbind(0)
show(lambda: parts[0].add_(1))
sp = (base * 1).split(2)
show(lambda: sp[0].mul_(2))
ch = (base * 1).chunk(2)
show(lambda: ch[1].add_(1))
t = (base * 1)
u = t.unsqueeze(0)
u.mul_(2)
t.sum().backward()
print(base.grad)
m = torch.ones(2, 2, requires_grad=True) * 1
d = m.diagonal()
d.fill_(5)
print(m, m.grad_fn.name())
z = torch.tensor([1., 2.], requires_grad=True)
s = z.sigmoid()
s.add_(1)
show(lambda: s.sum().backward())
#%% saved tensor hooks and retained
x = torch.tensor([1., 2.], requires_grad=True)
y = x.pow(3)
print(y.grad_fn.name(), [type(f).__name__ for f, _ in y.grad_fn.next_functions])
packs = []
def pack(t):
    packs.append(tuple(t.shape))
    return t
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 1):
    z = (x * x).sum()
z.backward()
print(packs, x.grad)
x.grad = None
y = x.exp()
y.sum().backward()
show(lambda: y.sum().backward())
with torch.autograd.graph.save_on_cpu():
    q = (x.sin() * 2).sum()
q.backward()
print(r(x.grad))
