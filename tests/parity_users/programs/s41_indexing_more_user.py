import torch
#%% take, gather, masked_select, nonzero
x = torch.arange(12).view(3, 4)
print(torch.take(x, torch.tensor([0, 5, 11])), x.gather(1, torch.tensor([[0], [2], [3]])), x.masked_select(x > 8), x.nonzero()[:3], torch.nonzero(x > 9, as_tuple=True))
print(torch.where(x > 5), x.argwhere()[-1], x[x.sum(1) > 10], x.index_select(1, torch.tensor([3, 0])))
#%% gather/scatter errors
try:
    x.gather(1, torch.tensor([[4]]))
except RuntimeError as e:
    print(e)
try:
    x.gather(1, torch.tensor([[0.0]]))
except RuntimeError as e:
    print(e)
try:
    torch.zeros(3).scatter_(0, torch.tensor([5]), 1.0)
except RuntimeError as e:
    print(e)
#%% setitem with broadcasting and ellipsis
y = torch.zeros(2, 3, 4)
y[..., 0] = 1
y[:, 1] = torch.arange(4.0)
y[1, :, -1] = torch.tensor([7.0, 8.0, 9.0])
print(y)
try:
    y[0] = torch.ones(2, 4)
except RuntimeError as e:
    print(e)
z = torch.arange(5)
z[[0, 0, 1]] = torch.tensor([10, 20, 30])
print(z, z[torch.tensor([], dtype=torch.long)], z[None, :, None].shape)
