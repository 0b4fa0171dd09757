import torch


def show(f):
    try:
        out = f()
        print(out, out.dtype if isinstance(out, torch.Tensor) else '')
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% out arguments dtype and resize
a = torch.tensor([1., 2., 3.])
for f in (lambda: torch.add(a, 1, out=torch.empty(3, dtype=torch.float64)), lambda: torch.add(a, 1, out=torch.empty(3, dtype=torch.int64)), lambda: torch.add(a, 1, out=torch.empty(5)), lambda: torch.add(a, 1, out=torch.empty(0)), lambda: torch.mul(a.long(), 2, out=torch.empty(3)), lambda: torch.sum(a, 0, out=torch.empty(1)), lambda: torch.sum(a, 0, out=torch.empty((), dtype=torch.int64)), lambda: torch.exp(a.long(), out=torch.empty(3, dtype=torch.int64)), lambda: torch.eq(a, 2, out=torch.empty(3)), lambda: torch.argmax(a, out=torch.empty((), dtype=torch.int32)), lambda: torch.matmul(a, a, out=torch.empty(())), lambda: torch.cat([a, a], out=torch.empty(2, 3)), lambda: torch.stack([a, a], out=torch.empty(6)), lambda: torch.max(a.view(1, 3), 1, out=(torch.empty(1), torch.empty(1, dtype=torch.int64))), lambda: torch.sort(a, out=(torch.empty(3), torch.empty(3))), lambda: torch.where(a > 1, a, 0., out=torch.empty(3, dtype=torch.float64)), lambda: torch.clamp(a, 0, 2, out=torch.empty(3, dtype=torch.float16)), lambda: torch.neg(a, out=a), lambda: torch.arange(3, out=torch.empty(3, dtype=torch.int32))):
    show(f)
#%% out with requires grad and overlap
x = torch.ones(3, requires_grad=True)
show(lambda: torch.mul(x, 2, out=torch.empty(3)))
show(lambda: torch.add(torch.ones(3), 1, out=x))
with torch.no_grad():
    show(lambda: torch.add(torch.ones(3), 1, out=x))
y = torch.arange(6.)

show(lambda: torch.exp(y.expand(2, 6), out=torch.empty(2, 6)).shape)
z = torch.zeros(2, 3)
#%% inplace on views and expanded
b = torch.zeros(3)
e = b.expand(2, 3)
show(lambda: e.add_(1))
show(lambda: b.unsqueeze(0).expand(2, 3).mul_(2))
c = torch.arange(6.).view(2, 3)
c.t()[0].fill_(-1)
print(c)
c[:, 1].mul_(10)
c.diagonal().zero_()
print(c)
v = c.view(-1)
v[::2] = 7
print(c)
d = torch.zeros(4)
d[[0, 0]] += 1
d.index_add_(0, torch.tensor([1, 1]), torch.ones(2))
print(d)
f = torch.arange(4.)
f[1:] = f[:-1].clone()
g = torch.arange(4.)
g[1:] = g[:-1].clone()
print(f, g)
show(lambda: torch.zeros(3).unsqueeze(1).expand(3, 2).copy_(torch.ones(3, 2)))
h = torch.arange(4.).view(2, 2)
h[:] = h.t()
print(h)
#%% in-place dtype mismatches
for f in (lambda: torch.zeros(2).add_(torch.ones(2, dtype=torch.float64)), lambda: torch.zeros(2, dtype=torch.float16).add_(torch.ones(2)), lambda: torch.zeros(2).copy_(torch.tensor([1 + 1j, 2])), lambda: torch.zeros(2, dtype=torch.int64).copy_(torch.tensor([1.7, -1.7])), lambda: torch.zeros(2, dtype=torch.bool).copy_(torch.tensor([0.1, 0.])), lambda: torch.zeros(2).mul_(torch.tensor(2, dtype=torch.int64)), lambda: torch.zeros(2, dtype=torch.int32).add_(torch.tensor([1, 2])), lambda: torch.zeros(2, dtype=torch.int32).add_(torch.tensor(2.)), lambda: torch.zeros(2).masked_fill_(torch.tensor([1, 0]), 1.), lambda: torch.zeros(2).masked_scatter_(torch.tensor([True, False]), torch.tensor([5., 6.])), lambda: torch.zeros(2).index_copy_(0, torch.tensor([0]), torch.tensor([1.], dtype=torch.float64)), lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.tensor([1.], dtype=torch.float64)), lambda: torch.zeros(2).sigmoid_().dtype, lambda: torch.zeros(2, dtype=torch.int64).sqrt_(), lambda: torch.zeros(2, dtype=torch.int64).sigmoid_(), lambda: torch.ones(2, dtype=torch.int64).div_(2), lambda: torch.ones(2, dtype=torch.int64).div_(2, rounding_mode='floor'), lambda: torch.ones(2, dtype=torch.int64).pow_(0.5), lambda: torch.ones(2, dtype=torch.int64).pow_(2), lambda: torch.ones(2).lerp_(torch.zeros(2), torch.tensor(0.5, dtype=torch.float64))):
    show(f)
#%% setitem and copy_ from overlapping memory
def trial(f):
    show(f)
for f in (lambda: (lambda g: (g.__setitem__(slice(1, None), g[:-1]), g)[1])(torch.arange(4.)), lambda: (lambda g: (g.__setitem__(slice(None), g), g)[1])(torch.arange(4.)), lambda: (lambda g: (g.__setitem__((slice(None), 0), g[:, 1]), g)[1])(torch.arange(6.).view(2, 3)), lambda: (lambda g: (g.__setitem__(0, g[1]), g)[1])(torch.arange(6.).view(2, 3)), lambda: (lambda g: (g.__setitem__(slice(None, 2), g[1:3]), g)[1])(torch.arange(4.)), lambda: (lambda g: (g.__setitem__(slice(None, None, 2), g[1::2]), g)[1])(torch.arange(6.)), lambda: (lambda g: (g[1:].copy_(g[:-1]), g)[1])(torch.arange(4.)), lambda: (lambda g: (g.__setitem__(slice(1, None), g[:2]), g)[1])(torch.arange(6.).view(3, 2)), lambda: (lambda g: (g.__setitem__(slice(0, 2), g[0:2].flip(0)), g)[1])(torch.arange(4.)), lambda: (lambda g: (g.__setitem__((0, slice(1, None)), g[0, :3]), g)[1])(torch.arange(8.).view(2, 4)), lambda: (lambda g: (g[:2].copy_(g[2:]), g)[1])(torch.arange(4))):
    trial(f)
