import torch
#%% advanced index ordering
x = torch.arange(60).reshape(3, 4, 5)
print(x[[0, 2], :, [1, 3]].shape, x[:, [0, 1], [2, 3]].shape, x[[0], [1], :].shape, x[..., [0, 4]].shape)
print(x[None, 1, ..., None].shape, x[1, None, :, 2].shape, x[torch.tensor(1)].shape, x[torch.tensor([1])].shape)
print(x[[[0, 1], [2, 0]]].shape, x[[0, 1], [[1], [2]]].shape, x[:, torch.tensor([[0, 1]]), 0].shape)
print(x[1:, [True, False, True, False]].shape, x[torch.tensor([True, False, True])].shape)
print(x[x > 55], x[x.sum(-1) > 100].shape)
#%% errors
for f in [lambda: x[3], lambda: x[:, 4], lambda: x[[0, 3]], lambda: x[torch.tensor([0, 1.5])], lambda: x[::-1],
          lambda: x[torch.tensor([True, False])], lambda: x[0, 0, 0, 0], lambda: x["a"], lambda: x[[0, 1], [0, 1, 2]],
          lambda: x[torch.tensor([[True]])], lambda: x[1.0], lambda: x[:, :, 5:].shape, lambda: x[-4]]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% setitem forms
y = torch.zeros(3, 4)
y[0] = 1
y[:, 1] = torch.tensor([5., 6., 7.])
y[y > 5] = -1
y[[0, 2], [3, 3]] = torch.tensor([8., 9.])
y[1, ...] = torch.arange(4.)
y[torch.tensor([True, False, True]), 0] = 4
print(y)
try:
    y[0] = torch.ones(3)
except Exception as e:
    print(type(e).__name__, e)
try:
    y[:, 0] = torch.ones(2, 3)
except Exception as e:
    print(type(e).__name__, e)
z = torch.zeros(5, dtype=torch.int64)
z[[0, 0, 1]] = torch.tensor([1, 2, 3])
print(z)
z.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1, 1, 1]), accumulate=True)
print(z)
z[1:3] = 2.7
print(z)
b = torch.zeros(3, dtype=torch.bool)
b[1] = 5
print(b)
#%% uint8 masks, index_select, gather, take_along_dim
x = torch.arange(6.).reshape(2, 3)
m = torch.tensor([1, 0, 1], dtype=torch.uint8)
try:
    print(x[:, m])
except Exception as e:
    print(type(e).__name__, e)
print(x.index_select(1, torch.tensor([2, 0])), x.gather(1, torch.tensor([[2], [0]])))
print(torch.take_along_dim(x, torch.tensor([[1], [2]]), dim=1), torch.take(x, torch.tensor([5, 0])))
try:
    x.gather(1, torch.tensor([[3]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    x.index_select(1, torch.tensor([[0]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    x.gather(1, torch.tensor([[0]], dtype=torch.int32))
except Exception as e:
    print(type(e).__name__, e)
print(x.masked_select(x > 2), x.masked_fill(x > 2, -1), x.index_fill(1, torch.tensor([0]), 9))
print(torch.zeros(3).scatter_(0, torch.tensor([2, 0]), torch.tensor([5., 6.])), torch.zeros(3).scatter_add(0, torch.tensor([1, 1]), torch.ones(2)))
print(torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([2., 3., 4.]), reduce="amax", include_self=False))
print(torch.zeros(2, 2).index_add(0, torch.tensor([1, 1]), torch.ones(2, 2), alpha=2))
