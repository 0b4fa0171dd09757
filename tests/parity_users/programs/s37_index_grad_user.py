import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% fancy assignment then backward
w = torch.arange(12., requires_grad=True)
x = w.reshape(3, 4) * 1.0
y = x.clone()
y[[0, 2], [1, 3]] = torch.tensor([100., 200.])
y[1] = y[1] * 2
y[:, 0] += 5
m = y > 50
y[m] = 0.5
(y * torch.arange(12.).reshape(3, 4)).sum().backward()
print(y, r(w.grad))
a = torch.zeros(5, requires_grad=True)
b = a.clone()
b[torch.tensor([0, 0, 3])] = torch.tensor([1., 2., 3.], requires_grad=True) * 2
print(b, b.grad_fn.name())
src = torch.tensor([1., 2., 3.], requires_grad=True)
c = torch.zeros(5).index_put((torch.tensor([0, 0, 3]),), src, accumulate=True)
c.pow(2).sum().backward()
print(c, src.grad)
#%% gather, scatter, take_along_dim grads
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
idx = torch.tensor([[0, 1, 1, 0], [2, 0, 1, 2]])
g = x.gather(0, idx)
s = torch.zeros(3, 4).scatter(0, idx, g * 2)
sa = torch.zeros(3, 4).scatter_add(0, idx, g)
t = torch.take_along_dim(x, x.argsort(dim=1), dim=1)
(g.sum() + s.pow(2).sum() + (sa * torch.arange(12.).reshape(3, 4)).sum() + (t * torch.arange(4.)).sum()).backward()
print(r(x.grad))
x.grad = None
v, i = x.max(dim=1)
tk = x.topk(2, dim=1).values
(v.sum() + tk.pow(2).sum() + x[x > 0].sum() + x.masked_select(x < -0.5).pow(3).sum()).backward()
print(i, r(x.grad))
x.grad = None
sel = x[torch.tensor([2, 2, 0])][:, torch.tensor([True, False, True, False])]
sel.sum().backward()
print(sel.shape, x.grad)
#%% index with negative, ellipsis, None, and errors
t = torch.arange(24).reshape(2, 3, 4)
print(t[..., -1], t[None, :, 1].shape, t[1, ..., None].shape, t[:, [0, -1]][..., [1, 2]].shape, t[[1, 0], :, [3, 2]])
print(t[torch.tensor([[1], [0]]), torch.tensor([0, 2])].shape, t[:, torch.tensor([True, False, True])].shape, t[torch.tensor(1)].shape, t[1:, ::2, ::-1 if False else 3])
show(lambda: t[:, ::-1])
show(lambda: t[torch.tensor([True, False])].shape)
show(lambda: t[torch.tensor([True, False, True])])
show(lambda: t[[0, 2]])
show(lambda: t[0, 0, 0, 0])
show(lambda: t[1.5])
t2 = t.clone()
t2[0, :, [0, 1]] = torch.tensor([[-1], [-2], [-3]])
print(t2[0])
show(lambda: t2.__setitem__((0, slice(None), [0, 1]), torch.tensor([1, 2, 3])))
t3 = torch.zeros(4)
t3[torch.tensor([1, 1, 1])] += 1
print(t3)
t3.index_add_(0, torch.tensor([1, 1, 1]), torch.ones(3))
print(t3, torch.zeros(3).index_fill_(0, torch.tensor([0, 2]), -1), torch.zeros(2, 2).masked_fill(torch.tensor([[True, False], [False, True]]), 7))
