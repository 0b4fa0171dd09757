import torch
#%% assign with broadcasting through advanced index
x = torch.zeros(3, 4)
x[[0, 2]] = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(x)
x[:, [1, 3]] = torch.tensor([[7.0], [8.0], [9.0]])
print(x)
x[torch.tensor([True, False, True])] = -1
print(x)
try:
    x[[0, 1]] = torch.ones(3, 4)
except RuntimeError as e:
    print(e)
#%% duplicate indices in setitem and index_put_
x = torch.zeros(5)
x[torch.tensor([1, 1, 3])] = torch.tensor([1.0, 2.0, 3.0])
print(x)
y = torch.zeros(5)
y.index_put_((torch.tensor([1, 1, 3]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(y)
z = torch.zeros(2, 3)
z.index_put_((torch.tensor([0, 0, 1]), torch.tensor([2, 2, 0])), torch.tensor(5.0), accumulate=True)
print(z)
#%% index_add with duplicates and alpha
x = torch.ones(4, 2)
x.index_add_(0, torch.tensor([0, 0, 3]), torch.arange(6.0).view(3, 2), alpha=0.5)
print(x)
print(torch.zeros(3, dtype=torch.int64).index_add(0, torch.tensor([2, 2]), torch.tensor([5, 6])))
try:
    x.index_add_(0, torch.tensor([0]), torch.ones(1, 3))
except RuntimeError as e:
    print(e)
try:
    x.index_add_(0, torch.tensor([[0]]), torch.ones(1, 2))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
#%% scatter_ and scatter_add_ with duplicates and reduce
src = torch.arange(1.0, 7.0).view(2, 3)
idx = torch.tensor([[0, 1, 0], [1, 1, 1]])
print(torch.zeros(2, 3).scatter_add_(0, idx, src))
print(torch.ones(2, 3).scatter_reduce(0, idx, src, reduce="prod"))
print(torch.zeros(2, 3).scatter_reduce(0, idx, src, reduce="amax", include_self=False))
print(torch.full((2, 3), 10.0).scatter_reduce(0, idx, src, reduce="mean"))
print(torch.full((2, 3), 10.0).scatter_reduce(0, idx, src, reduce="mean", include_self=False))
print(torch.zeros(3, dtype=torch.int64).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([3, 4, 5]), reduce="mean"))
try:
    torch.zeros(2, 3).scatter_reduce(0, idx, src, reduce="max")
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
#%% scatter with scalar value and index errors
x = torch.zeros(3, 3)
x.scatter_(1, torch.tensor([[0], [2], [1]]), 1.5)
print(x)
try:
    x.scatter_(1, torch.tensor([[3]]), 1.0)
except RuntimeError as e:
    print(e)
try:
    x.scatter_(1, torch.tensor([[0.0]]), 1.0)
except RuntimeError as e:
    print(e)
try:
    x.scatter_(1, torch.tensor([0]), torch.ones(1))
except RuntimeError as e:
    print(e)
#%% masked assignments
x = torch.arange(12.0).view(3, 4)
x[x > 5] = 0
print(x)
x[x == 0] = torch.tensor([9.0])
print(x)
m = torch.tensor([[True], [False], [True]])
x.masked_fill_(m, -2)
print(x)
y = torch.zeros(3, 4)
y.masked_scatter_(x > 3, torch.arange(100.0))
print(y)
try:
    x[x > 100] = torch.tensor([1.0, 2.0])
except RuntimeError as e:
    print(e)
#%% setitem with tensor of other dtype and python lists
x = torch.zeros(4, dtype=torch.int32)
x[1] = 2.7
x[[2, 3]] = torch.tensor([1.9, -1.9])
print(x)
b = torch.zeros(3, dtype=torch.bool)
b[0] = 5
b[1:] = torch.tensor([0.0, 0.1])
print(b)
h = torch.zeros(2, dtype=torch.float16)
h[0] = 1e5
h[1] = 1 / 3
print(h)
c = torch.zeros(2, dtype=torch.complex64)
c[0] = 1 + 2j
c[1] = 3
print(c)
try:
    x[0] = 1j
except (RuntimeError, TypeError) as e:
    print(type(e).__name__, e)
#%% combined slicing and fancy with None and ellipsis
x = torch.arange(24).view(2, 3, 4)
x[..., [0, 3]] = 0
print(x)
x[None, 1, :, [1, 2]] = torch.tensor([[100], [200]]).T
print(x[1])
print(x[:, [0, 2]][:, :, [1]].shape, x[[0], :, [1, 2]].shape, x[0, [0, 1], [1, 2]])
#%% nonadjacent advanced indices move to front
x = torch.zeros(2, 3, 4, 5)
print(x[:, [0, 1], :, [0, 1]].shape, x[:, [0, 1], [0, 1]].shape, x[[0], :, [1]].shape)
x[:, [0, 1], :, [0, 1]] = torch.arange(8.0).view(4, 2).T[:, None, :].expand(2, 2, 4) if False else 1.0
print(x.sum())
x[0, :, [1, 2], 0] = torch.tensor([5.0, 6.0, 7.0])
print(x[0, :, :, 0])
#%% gradients through index_put with duplicates
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
base = torch.zeros(4)
out = base.index_put((torch.tensor([0, 0, 2]),), w, accumulate=True)
(out * torch.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
print(out, w.grad)
w2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b2 = torch.zeros(4, requires_grad=True)
o2 = b2.clone()
o2[torch.tensor([1, 3, 3])] = w2
(o2 * torch.arange(4.0)).sum().backward()
print(b2.grad, w2.grad is not None)
#%% gather gradient with duplicates
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
g = x.gather(1, torch.tensor([[0, 0, 1], [1, 1, 1]]))
g.sum().backward()
print(g, x.grad)
try:
    x.gather(1, torch.tensor([[2]]))
except RuntimeError as e:
    print(e)
try:
    x.gather(0, torch.tensor([0, 1]))
except RuntimeError as e:
    print(e)
#%% take_along_dim and put_ accumulate
x = torch.tensor([[10, 30, 20], [60, 40, 50]])
i = x.argsort(dim=1)
print(torch.take_along_dim(x, i, dim=1), torch.take_along_dim(x, torch.tensor([[0]])))
y = torch.zeros(2, 3, dtype=torch.int64)
y.put_(torch.tensor([0, 0, 5, -1]), torch.tensor([1, 2, 3, 4]), accumulate=True)
print(y)
try:
    y.put_(torch.tensor([6]), torch.tensor([1]))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
#%% index with negative and out of range
x = torch.arange(5)
print(x[torch.tensor([-1, -5])], x[[-2]])
for bad in ([5], [-6], torch.tensor([7])):
    try:
        x[bad] = 0
    except IndexError as e:
        print(e)
try:
    x[torch.tensor([[0, 1]]), 0]
except IndexError as e:
    print(e)
#%% index_fill index_copy with dims
x = torch.zeros(3, 4)
x.index_fill_(1, torch.tensor([0, 3, 0]), 2.5)
print(x)
x.index_copy_(0, torch.tensor([2, 0]), torch.arange(8.0).view(2, 4))
print(x)
try:
    x.index_copy_(0, torch.tensor([0, 1]), torch.ones(3, 4))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
print(torch.zeros(2, 2).index_fill(0, torch.tensor(1), torch.tensor(7.0)))
