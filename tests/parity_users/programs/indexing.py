import torch
#%% basic
x = torch.arange(24).reshape(2, 3, 4)
print(x[0], x[:, 1], x[..., -1], x[None, 0, :, None].shape, x[1, ::2, 1::2], x[:, [0, 2]], x[[0, 1], [1, 2]])
print(x[x > 20], x[torch.tensor([True, False])].shape, x[:, torch.tensor([0, 2]), 1:3].shape)
print(x[[[0], [1]], :, [0, 1]].shape, x[0, [0, 1]][:, 0], x[:, None, [1, 2], None].shape)
#%% out of range
x = torch.arange(5)
x[5]
#%% out of range adv
x = torch.arange(5)
x[torch.tensor([1, 7])]
#%% setitem broadcast
x = torch.zeros(3, 4)
x[1] = torch.tensor([1.0, 2, 3, 4])
x[:, 0] = 9
x[x > 3] = -1
x[[0, 2], [1, 3]] = torch.tensor([5.0, 6.0])
x[..., 2] += 1
print(x)
#%% setitem dup indices
x = torch.zeros(5)
x[torch.tensor([0, 0, 1])] = torch.tensor([1.0, 2.0, 3.0])
print(x)
x.index_put_((torch.tensor([0, 0]),), torch.tensor([1.0, 2.0]), accumulate=True)
print(x)
#%% setitem shape mismatch
x = torch.zeros(3, 4)
x[0] = torch.ones(3)
#%% setitem dtype
x = torch.zeros(3, dtype=torch.int64)
x[0] = 2.7
x[1] = True
print(x)
#%% bool mask setitem
x = torch.arange(6.0).reshape(2, 3)
m = torch.tensor([[True, False, True], [False, True, False]])
x[m] = torch.tensor([10.0, 20.0, 30.0])
print(x)
x[torch.tensor([True, False])] = 0
print(x)
#%% index grads
x = torch.arange(6.0, requires_grad=True)
y = x[[0, 0, 2]] * torch.tensor([1.0, 2.0, 3.0])
y.sum().backward()
print(x.grad)
#%% gather scatter
x = torch.tensor([[1, 2], [3, 4]])
print(torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]])), x.scatter(0, torch.tensor([[1, 0]]), 9))
print(torch.zeros(3).scatter_add(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0])))
print(torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]), reduce="amax", include_self=False))
print(torch.zeros(2, 2).index_add(0, torch.tensor([1, 1]), torch.ones(2, 2)), x.index_select(1, torch.tensor([1])))
print(torch.take(x, torch.tensor([3, 0])), x.masked_fill(x > 2, -1), torch.where(x > 2, x, 0), torch.where(x > 2))
#%% gather bad
torch.gather(torch.zeros(2, 2), 1, torch.tensor([[2]]))
#%% gather dtype
torch.gather(torch.zeros(2, 2), 1, torch.tensor([[0]], dtype=torch.int32))
#%% index float
torch.arange(3)[torch.tensor([0.0])]
#%% nonzero
x = torch.tensor([[0, 1], [2, 0]])
print(x.nonzero(), torch.nonzero(x, as_tuple=True), torch.argwhere(x), x.count_nonzero(), x.count_nonzero(dim=0))
#%% negative step
torch.arange(5)[::-1]
#%% masked_select, put
x = torch.arange(6).reshape(2, 3)
print(x.masked_select(x % 2 == 0), x.put(torch.tensor([0, 5]), torch.tensor([-1, -2])), x.index_fill(1, torch.tensor([0]), 7))
print(x.unfold(1, 2, 1), x.flip(0), x.roll(1, 1), x.roll(1), x.diagonal(), x.T, x.mT.shape)
