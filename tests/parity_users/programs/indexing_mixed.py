import torch
#%% advanced then basic
x = torch.arange(60).view(3, 4, 5)
print(x[[0, 2], :, 1], x[:, [1, 3], 2:4].shape, x[1:, [0, 1]].shape, x[[0, 1], [1, 2]].shape)
print(x[:, [0, 2], [1, 3]], x[[0], :, [0, 1]].shape, x[..., [0, 4]].shape, x[None, [1, 2]].shape)
#%% separated advanced indices move first
x = torch.arange(120).view(2, 3, 4, 5)
print(x[[0, 1], :, [1, 2]].shape, x[:, [0], :, [1]].shape, x[[[0]], 1:, [[1, 2]]].shape, x[0, :, [1, 2], 0].shape)
print(x[:, 1, :, [0, 1]].shape, x[1, :, :, [2]].shape, x[[1], 2, [3]].shape)
#%% broadcasting index arrays
x = torch.arange(12).view(3, 4)
r = torch.tensor([[0], [2]])
c = torch.tensor([1, 3])
print(x[r, c], x[r, :].shape, x[torch.tensor([[True, False, True, False]] * 3)])
print(x[torch.tensor([True, False, True])], x[:, torch.tensor([False, True, True, False])], x[x > 5])
#%% bool masks mixed with ints
x = torch.arange(24).view(2, 3, 4)
m = torch.tensor([True, False, True])
print(x[:, m].shape, x[0, m], x[1, m, 1:3], x[:, m, [0, 3]].shape)
print(x[torch.tensor(True)].shape, x[torch.tensor(False)].shape, x[..., torch.tensor([True, False, False, True])])
#%% None and ellipsis
x = torch.arange(6).view(2, 3)
print(x[None].shape, x[..., None].shape, x[:, None, :].shape, x[None, ..., None].shape, x[1, None].shape, x[..., 1].shape)
print(x[None, [0, 1]].shape, x[[1, 0], None].shape, x[:, None, [2, 0]].shape)
#%% negative and tensor scalars
x = torch.arange(10)
print(x[-1], x[torch.tensor(3)], x[torch.tensor([-1, -2])], x[-3:], x[:-7], x[torch.tensor([[1, 2], [3, 4]])])
print(x[2:8:2], x[8:2], x[::4], x[100:], x[-100:2])
#%% setitem advanced with broadcasting
x = torch.zeros(3, 4)
x[[0, 2], 1:3] = torch.tensor([5.0, 6.0])
x[:, [0]] = torch.tensor([[1.0], [2.0], [3.0]])
x[torch.tensor([False, True, False])] = 9
print(x)
x[x > 4] = -1
x[..., -1] = torch.arange(3.0)
print(x)
#%% setitem duplicates and index_put accumulate
x = torch.zeros(5)
x[torch.tensor([0, 0, 2])] = torch.tensor([1.0, 2.0, 3.0])
print(x)
y = torch.zeros(5)
y.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(y, torch.zeros(2, 2).index_put((torch.tensor([0, 1]), torch.tensor([1, 1])), torch.tensor(7.0)))
#%% setitem dtype casts
x = torch.zeros(3, dtype=torch.int64)
x[0] = 2.7
x[1:] = torch.tensor([1.9, -1.9])
print(x)
b = torch.zeros(3, dtype=torch.bool)
b[1] = 5
print(b)
f = torch.zeros(2)
f[0] = True
f[1] = torch.tensor(3, dtype=torch.int64)
print(f, f.dtype)
#%% index errors
x = torch.arange(6).view(2, 3)
for f in (lambda: x[2], lambda: x[:, 3], lambda: x[0, 0, 0], lambda: x[torch.tensor([0, 5])], lambda: x[torch.tensor([True, False, True])], lambda: x[1.5], lambda: x["a"]):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
#%% setitem shape errors
x = torch.zeros(2, 3)
for v in (torch.ones(2), torch.ones(4, 3), torch.ones(1, 2, 3, 1)):
    try:
        x[:] = v
        print("ok", x.shape)
    except Exception as e:
        print(type(e).__name__, e)
try:
    x[[0, 1]] = torch.ones(3, 3)
except Exception as e:
    print(type(e).__name__, e)
#%% gather scatter user style
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
idx = torch.tensor([[2, 0], [1, 1]])
print(x.gather(1, idx), torch.zeros(2, 3).scatter(1, idx, 1.0), torch.zeros(2, 3).scatter_add(1, idx, torch.ones(2, 2)))
print(torch.zeros(2, 3).scatter_reduce(1, idx, torch.tensor([[2.0, 3.0], [4.0, 5.0]]), reduce="amax", include_self=False))
print(torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1.0, 2.0, 3.0]), reduce="mean"))
try:
    x.gather(1, torch.tensor([[3]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    x.gather(1, torch.tensor([[0.0]]))
except Exception as e:
    print(type(e).__name__, e)
#%% index_select take masked_select
x = torch.arange(12.0).view(3, 4)
print(x.index_select(1, torch.tensor([3, 0])), x.take(torch.tensor([0, 11, 5])), x.masked_select(x.remainder(3) == 0))
print(torch.take_along_dim(x, torch.tensor([[0], [1], [2]]), dim=1), x.narrow(1, 1, 2), x.index_select(0, torch.tensor([], dtype=torch.long)))
try:
    x.index_select(0, torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
#%% index with autograd
w = torch.arange(6.0, requires_grad=True)
y = w[torch.tensor([0, 0, 3])].sum() + w[w > 2].pow(2).sum() + w[1:4:2].sum()
y.backward()
print(w.grad)
v = torch.zeros(4, requires_grad=True)
z = v.clone()
z[torch.tensor([1, 1])] = torch.tensor([3.0, 4.0])
z[2] = v[0] * 5
z.sum().backward()
print(v.grad)
#%% index with numpy and lists
import numpy as np
x = torch.arange(10)
print(x[np.array([1, 2])], x[[True] * 5 + [False] * 5], x[np.int64(3)], x[[1]], x[(1,)], x[np.array(True)].shape)
print(x[range(2, 5)], x[slice(1, 3)], x[[[0, 1], [2, 3]]])
#%% index_add_ index_copy_ index_fill_
x = torch.zeros(3, 2)
x.index_add_(0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=2)
print(x, torch.zeros(3).index_copy(0, torch.tensor([2, 0]), torch.tensor([5.0, 6.0])), torch.ones(2, 3).index_fill(1, torch.tensor([0, 2]), -1))
try:
    torch.zeros(3).index_add_(0, torch.tensor([0]), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
#%% masked fill and where setitem
x = torch.arange(6.0).view(2, 3)
print(x.masked_fill(x > 2, float("-inf")), x.masked_fill(torch.tensor([True, False, True]), 0), x.masked_fill(x < 1, torch.tensor(9.0)))
try:
    x.masked_fill(x > 2, torch.tensor([1.0, 2.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    x.masked_fill(torch.tensor([1, 0, 1]), 0.0)
except Exception as e:
    print(type(e).__name__, e)
