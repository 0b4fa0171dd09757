import copy
import io
import pickle
import numpy as np
import torch
import torch.nn as nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% copy deepcopy pickle
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
print(copy.deepcopy(x), copy.copy(x).requires_grad)
show(lambda: copy.deepcopy(y))
p = pickle.loads(pickle.dumps(x))
print(p, p.requires_grad, p.is_leaf)
show(lambda: type(pickle.dumps(y)).__name__)
buf = io.BytesIO()
torch.save({'a': x, 'b': [x, x]}, buf)
buf.seek(0)
d = torch.load(buf)
print(d['b'][0] is d['b'][1], d['a'].requires_grad)
v = torch.arange(6.).view(2, 3)[:, 1]
buf = io.BytesIO()
torch.save(v, buf)
buf.seek(0)
w = torch.load(buf)
print(w, w.stride(), w.storage_offset(), len(w.untyped_storage()))
P = nn.Parameter(torch.ones(2))
print(type(copy.deepcopy(P)).__name__, type(pickle.loads(pickle.dumps(P))).__name__)
#%% numpy interop
t = torch.tensor([1., 2.], requires_grad=True)
show(lambda: t.numpy())
print(t.numpy(force=True), t.detach().numpy().dtype, np.asarray(t.detach()).dtype)
a = torch.arange(4)
n = a.numpy()
n[0] = 100
print(a)
print(torch.tensor([1, 2]) + np.array([3, 4]) if False else 'skip')
print(type(np.float32(2.0) * torch.tensor([1.])).__name__, (np.float64(2.) * torch.tensor([1.])).dtype)
print((torch.tensor([1.]) * np.float64(2.)).dtype, (torch.tensor([1]) + np.int64(2)).dtype)
print(torch.tensor(np.array([1, 2], dtype=np.uint16)).dtype if hasattr(torch, 'uint16') else 'x')
print(torch.from_numpy(np.zeros((2, 3))[:, ::2]).stride(), torch.as_tensor(np.array([True])).dtype)
show(lambda: torch.from_numpy(np.zeros(3, dtype=np.float32)[::-1]))
#%% storage and data ptrs
base = torch.arange(6.)
v = base[2:]
print(v.storage_offset(), v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(), v.data_ptr() - base.data_ptr())
print(v.is_contiguous(), base.view(2, 3).t().is_contiguous(), base.view(2, 3).t().contiguous().stride())
s = torch.empty(0)
s.set_(base.untyped_storage(), 1, (2, 2), (1, 2))
print(s, s.is_set_to(base))
print(base.untyped_storage().nbytes(), base.untyped_storage().size(), base.element_size())
r2 = torch.arange(4.)
r2.resize_(2, 3)
print(r2.shape, r2[0])
print(torch.empty(2, 3).as_strided((3, 2), (1, 3)).shape, torch.arange(9.).as_strided((2, 2), (3, 1), 1))
show(lambda: torch.arange(4.).as_strided((3, 3), (2, 2)))
print(torch.arange(6).view(2, 3).unfold(1, 2, 1), torch.arange(8.).unfold(0, 3, 2))
#%% apply_ map_ and misc methods
t = torch.tensor([1., 2., 3.])
t.apply_(lambda v: v * 10)
print(t)
t.map_(torch.tensor([1., 1., 1.]), lambda a, b: a + b)
print(t)
print(t.tolist(), t.new_tensor(3).shape, t.clone(memory_format=torch.preserve_format).stride())
show(lambda: torch.tensor([1.], requires_grad=True).apply_(lambda v: v))
x4 = torch.randn(2, 3, 4, 5)
cl = x4.to(memory_format=torch.channels_last)
print(cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last), (cl + 1).stride(), torch.empty_like(cl).stride())
print(cl.contiguous().stride(), x4.contiguous(memory_format=torch.channels_last).stride())
show(lambda: torch.randn(2, 3).contiguous(memory_format=torch.channels_last))
print(torch.zeros(2, 2).fill_diagonal_(5), torch.zeros(3, 2).fill_diagonal_(1, wrap=True), torch.zeros(5, 2).fill_diagonal_(1, wrap=True))
show(lambda: torch.zeros(2, 3, 4).fill_diagonal_(1))
print(torch.tensor([3, 1, 2]).sort().values.is_contiguous(), torch.tensor([[1, 2], [3, 4]]).T.flatten())
#%% hashing equality and bool context
a = torch.tensor([1, 2])
print(a in [a], {a: 1}[a], hash(a) == id(a) if False else 'skip')
show(lambda: a == [1, 2])
show(lambda: a in [torch.tensor([1, 2])])
show(lambda: torch.tensor([1, 2]) in [torch.tensor([3, 4])])
show(lambda: 2 in torch.tensor([1, 2]))
show(lambda: 5 in torch.tensor([1, 2]))
show(lambda: torch.tensor([1, 2]) in torch.tensor([[1, 2]]))
show(lambda: 'a' in torch.tensor([1]))
print(len(torch.zeros(3, 2)), list(torch.arange(3)), [int(v) for v in torch.tensor([[1, 2]])[0]])
show(lambda: len(torch.tensor(1.)))
show(lambda: iter(torch.tensor(1.)))
print(torch.tensor([1, 2]).__index__() if False else 'skip', [10, 20, 30][torch.tensor(1)], range(5)[torch.tensor(2)])
show(lambda: [1, 2][torch.tensor([1])])
show(lambda: [1, 2][torch.tensor(1.)])
print(max(torch.tensor([3, 7, 5])), sorted(torch.tensor([3, 1, 2])), sum(torch.tensor([1., 2.])))
print(divmod(torch.tensor([7]), 2), abs(torch.tensor(-3)), round(torch.tensor(2.567), 1) if False else 'skip', -torch.tensor([True]) if False else 'skip')
show(lambda: -torch.tensor([True]))
show(lambda: ~torch.tensor([1.5]))
print(~torch.tensor([True, False]), ~torch.tensor([5]), torch.tensor([6]) >> 1, torch.tensor([3]) << torch.tensor([2]))
show(lambda: torch.tensor([1.5]) >> 1)
print(math_floor := __import__('math').floor(torch.tensor(2.7)), __import__('math').ceil(torch.tensor(2.1)), __import__('math').isclose(torch.tensor(1.0), 1.0))
