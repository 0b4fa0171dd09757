import torch
#%% chained advanced indexing
x = torch.arange(24).view(4, 6)
print(x[[0, 3]][:, [1, 5]], x[[[0, 1], [2, 3]]], x[[[0, 1], [2, 3]]].shape)
print(x[torch.tensor([[0], [3]]), torch.tensor([[0, 5]])])
print(x[1][torch.tensor([True, False, True, False, True, False])])
#%% 0-d tensor indices and bool scalar
x = torch.arange(12).view(3, 4)
i = torch.tensor(2)
print(x[i], x[i, i], x[:, i], x[True].shape, x[False].shape, x[None, True, ..., None].shape)
print(x[torch.tensor(-1)], x[torch.tensor([2])].shape, x[i].shape)
#%% index with int32 and uint8 and int16 tensors
x = torch.arange(10) * 10
print(x[torch.tensor([1, 2], dtype=torch.int32)], x[torch.tensor([3], dtype=torch.int16)])
print(x[torch.tensor([1, 0, 1, 0, 0, 0, 0, 0, 0, 1], dtype=torch.bool)])
#%% uint8 mask deprecation
x = torch.arange(4)
m = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
print(x[m])
x[m] = 7
print(x)
#%% flip instead of negative step
x = torch.arange(10)
print(x.flip(0), x.flip(0)[::3], x.flip(-1)[1:-1:2], torch.flip(x.view(2, 5), [0, 1]))
print(x.view(2, 5).fliplr(), x.view(2, 5).flipud(), x.view(5, 2).rot90(), x.view(5, 2).rot90(-1, [0, 1]))
try:
    x[::-1]
except ValueError as e:
    print(type(e).__name__, e)
try:
    x[::0]
except ValueError as e:
    print(type(e).__name__, e)
#%% setitem broadcast rows and cols
x = torch.zeros(3, 4)
x[:] = torch.arange(4.0)
print(x)
x[:, 1:3] = torch.tensor([[10.0], [20.0], [30.0]])
print(x)
x[[0, 2]] = torch.tensor([-1.0, -2.0, -3.0, -4.0])
print(x)
x[1, [0, 3]] = 5
x[x == 5] = torch.tensor(6.0)
print(x)
#%% setitem with mask and tensor values
x = torch.arange(8.0)
m = x % 2 == 0
x[m] = torch.tensor([100.0, 200.0, 300.0, 400.0])
print(x)
try:
    x[m] = torch.tensor([1.0, 2.0])
except RuntimeError as e:
    print(type(e).__name__, e)
#%% setitem 2d mask broadcast value
x = torch.arange(12.0).view(3, 4)
x[x > 5] = 0
x[torch.tensor([True, False, True])] = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(x)
x[:, torch.tensor([True, False, False, True])] = torch.tensor([[7.0], [8.0], [9.0]])
print(x)
#%% index_put accumulate with broadcast
x = torch.zeros(3, 3)
x.index_put_((torch.tensor([0, 0, 1]), torch.tensor([1, 1, 2])), torch.tensor(1.0), accumulate=True)
print(x)
x.index_put_((torch.tensor([2]),), torch.tensor([5.0, 6.0, 7.0]), accumulate=True)
print(x)
#%% in-place augmented assignment with duplicate indices
x = torch.zeros(4)
idx = torch.tensor([0, 0, 1, 3, 3, 3])
x[idx] += 1
print(x)
y = torch.zeros(4)
y.index_add_(0, idx, torch.ones(6))
print(y)
#%% take_along_dim and gather
x = torch.tensor([[10, 30, 20], [60, 40, 50]])
idx = x.argsort(dim=1)
print(torch.take_along_dim(x, idx, dim=1), torch.take_along_dim(x, torch.tensor([[0]]), dim=None))
print(x.gather(1, torch.tensor([[2, 0], [1, 1]])), x.gather(0, torch.tensor([[1, 0, 1]])))
print(torch.take(x, torch.tensor([[0, 5], [3, 1]])))
#%% negative dims in index ops
x = torch.arange(12).view(3, 4)
print(x.index_select(-1, torch.tensor([3, 0])), x.narrow(-1, 1, 2), x.select(-2, 1), x.unbind(-1)[2])
print(torch.index_select(x, 0, torch.tensor([2, 2])), x.masked_select(x > 8))
#%% ellipsis in the middle
x = torch.arange(120).view(2, 3, 4, 5)
print(x[1, ..., 2].shape, x[..., 1, :].shape, x[0, ..., [1, 2], 3].shape, x[:, ..., None, 0].shape)
print(x[1, ..., 2][0])
try:
    x[..., 0, ...]
except IndexError as e:
    print(type(e).__name__, e)
#%% list of bools and list of lists
x = torch.arange(5)
print(x[[True, False, True, False, True]], x[[0, 1, True]], x[[[1, 2], [3, 4]]])
y = torch.arange(12).view(3, 4)
print(y[[[0, 1], [1, 2]]].shape, y[[0, 1], [1, 2]], y[[0, 1]][[1, 0]])
#%% index out of range messages
x = torch.arange(6).view(2, 3)
for f in (lambda: x[torch.tensor([3])], lambda: x[:, torch.tensor([-4])], lambda: x[5, 0], lambda: x[0, -4],
          lambda: x.index_select(0, torch.tensor([2])), lambda: x.gather(1, torch.tensor([[3]]))):
    try:
        print(f())
    except (IndexError, RuntimeError) as e:
        print(type(e).__name__, e)
#%% float and long index types wrong
x = torch.arange(6)
for idx in (torch.tensor([1.0]), torch.tensor([1], dtype=torch.float16), 1.0, [1.0, 2.0], torch.tensor([True, False])):
    try:
        print(x[idx])
    except (IndexError, TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
#%% slicing beyond bounds and empty
x = torch.arange(5)
print(x[3:1], x[10:20], x[-10:-8], x[4:100], x[:0].shape, x[5:].shape)
y = torch.empty(0, 3)
print(y[:, 1].shape, y[0:5].shape, y[torch.tensor([], dtype=torch.long)].shape)
#%% index autograd accumulates duplicates
w = torch.arange(4.0, requires_grad=True)
y = w[[0, 0, 2, 2, 2]] * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
y.sum().backward()
print(w.grad)
w.grad = None
w[w > 1].pow(2).sum().backward()
print(w.grad)
#%% setitem on a tensor requiring grad through clone
w = torch.ones(4, requires_grad=True)
v = w.clone()
v[1:3] = v[1:3] * 5
v[0] = 0
v.sum().backward()
print(v, w.grad)
#%% setitem with a tensor that requires grad
x = torch.zeros(3)
a = torch.tensor(2.0, requires_grad=True)
x[1] = a * 3
print(x, x.requires_grad, x.grad_fn.__class__.__name__)
x.sum().backward()
print(a.grad)
#%% nonzero and argwhere and where single arg
x = torch.tensor([[0, 1, 0], [2, 0, 3]])
print(x.nonzero(), x.nonzero(as_tuple=True), torch.argwhere(x), torch.where(x))
print(torch.nonzero(torch.tensor(5)), torch.nonzero(torch.tensor(0)).shape, torch.tensor(3).nonzero(as_tuple=True))
#%% masked_fill with broadcast mask and scatter reduce
x = torch.zeros(2, 3)
print(x.masked_fill(torch.tensor([True, False, True]), 1.5), x.masked_fill(torch.tensor([[True], [False]]), torch.tensor(-2.0)))
src = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
idx = torch.tensor([0, 1, 0, 1, 2])
for red in ("sum", "prod", "mean", "amax", "amin"):
    print(red, torch.zeros(3).scatter_reduce(0, idx, src, reduce=red), torch.zeros(3).scatter_reduce(0, idx, src, reduce=red, include_self=False))
#%% scatter with reduce argument and scatter_add
x = torch.ones(2, 4)
print(x.scatter(1, torch.tensor([[0, 1], [2, 3]]), 5.0), x.scatter(1, torch.tensor([[0, 0]]), torch.tensor([[3.0, 4.0]]), reduce="add"))
print(x.scatter(1, torch.tensor([[1, 1]]), torch.tensor([[3.0, 4.0]]), reduce="multiply"))
print(torch.zeros(3, dtype=torch.long).scatter_add(0, torch.tensor([0, 0, 2]), torch.tensor([1, 2, 3])))
