import torch

#%% bool mask get and set
x = torch.arange(12).reshape(3, 4)
m = x % 3 == 0
print(x[m], x[m].shape)
x[m] = -1
print(x)
x[x < 0] = torch.tensor(99)
print(x)
#%% row mask
x = torch.arange(12.).reshape(3, 4)
print(x[torch.tensor([True, False, True])])
x[torch.tensor([False, True, False])] = torch.tensor([1., 2., 3., 4.])
print(x)
#%% mask wrong shape
x = torch.zeros(3, 4)
try:
    x[torch.tensor([True, False])]
except Exception as e:
    print(type(e).__name__, e)
#%% negative step
x = torch.arange(5)
try:
    x[::-1]
except Exception as e:
    print(type(e).__name__, e)
print(x.flip(0), x[-3:], x[-100:100])
#%% index with float tensor
x = torch.arange(5)
try:
    x[torch.tensor([1.0, 2.0])]
except Exception as e:
    print(type(e).__name__, e)
#%% index out of range
x = torch.arange(5)
try:
    x[torch.tensor([5])]
except Exception as e:
    print(type(e).__name__, e)
try:
    x[7]
except Exception as e:
    print(type(e).__name__, e)
#%% advanced mixed
x = torch.arange(24).reshape(2, 3, 4)
print(x[:, [0, 2], 1])
print(x[[0, 1], :, [1, 3]].shape, x[[0, 1], :, [1, 3]])
print(x[..., [0, -1]].shape, x[None, 1, ..., 2])
print(x[1, [[0, 1], [2, 0]]].shape)
#%% setitem broadcasting
x = torch.zeros(3, 4)
x[:, 1] = torch.tensor([1., 2., 3.])
x[0] = 5
x[1:, 2:] = torch.tensor([[7.], [8.]])
print(x)
try:
    x[:, 0] = torch.ones(4)
except Exception as e:
    print(type(e).__name__, e)
#%% setitem dtype cast
x = torch.zeros(3, dtype=torch.int64)
x[0] = 2.7
x[1:] = torch.tensor([1.9, -1.9])
print(x)
#%% index_put accumulate
x = torch.zeros(5)
idx = torch.tensor([0, 1, 1, 3])
x.index_put_((idx,), torch.tensor([1., 2., 3., 4.]), accumulate=True)
print(x)
x[idx] += 1
print(x)
#%% gather scatter
src = torch.arange(1., 7.).reshape(2, 3)
idx = torch.tensor([[0, 2], [1, 0]])
print(torch.gather(src, 1, idx))
out = torch.zeros(2, 4).scatter_(1, idx, src[:, :2])
print(out)
print(torch.zeros(3).scatter_add(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.])))
print(torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]), reduce='amax', include_self=False))
#%% gather errors
try:
    torch.gather(torch.zeros(2, 3), 1, torch.tensor([[0, 3]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.gather(torch.zeros(2, 3), 1, torch.tensor([[0.0]]))
except Exception as e:
    print(type(e).__name__, e)
#%% index_select masked_select take
x = torch.arange(12).reshape(3, 4)
print(torch.index_select(x, 1, torch.tensor([3, 0])), torch.masked_select(x, x > 8), torch.take(x, torch.tensor([0, -1, 5])))
print(x.index_fill(0, torch.tensor([1]), -5), x.masked_fill(x > 9, 0))
#%% nonzero where argwhere
x = torch.tensor([[0, 1], [2, 0]])
print(torch.nonzero(x), torch.nonzero(x, as_tuple=True), torch.argwhere(x), torch.where(x > 0))
print(torch.where(x > 0, x, -1.5))
#%% index with list of bools
x = torch.arange(4)
print(x[[True, False, True, True]])
print(x[torch.tensor([], dtype=torch.long)], x[[]])
#%% slicing with step assignment
x = torch.zeros(6)
x[::2] = torch.arange(3.)
x[1::2] += 10
print(x)
#%% index tensor uint8
x = torch.arange(4)
print(x[torch.tensor([1, 0, 1, 0], dtype=torch.uint8).bool()])
#%% ellipsis and None mixtures
x = torch.randn(2, 3, 4)
print(x[..., None].shape, x[None, ..., None, :].shape, x[:, None, 1].shape, x[0, ..., 0].shape)
try:
    x[..., ...]
except Exception as e:
    print(type(e).__name__, e)
try:
    x[0, 0, 0, 0]
except Exception as e:
    print(type(e).__name__, e)
#%% tensor index on grad
w = torch.randn(5, 3, requires_grad=True)
idx = torch.tensor([0, 2, 2])
w[idx].sum().backward()
print(w.grad)
