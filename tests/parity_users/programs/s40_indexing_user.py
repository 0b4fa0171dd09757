import torch
#%% advanced indexing: gather rows by index tensors and masks
torch.manual_seed(0)
x = torch.arange(20).view(4, 5)
print(x[[0, 2, 3], [1, 1, 4]], x[torch.tensor([[0], [3]]), torch.tensor([1, 2])])
print(x[x % 3 == 0], x[:, torch.tensor([True, False, True, False, True])])
print(x[1:, [0, -1]], x[..., 2], x[None, 1, ::2].shape)
#%% index assignment with duplicates and accumulate
y = torch.zeros(5)
idx = torch.tensor([0, 1, 1, 3])
y.index_put_((idx,), torch.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)
print(y)
z = torch.zeros(3, 3)
z[torch.tensor([0, 2]), torch.tensor([1, 2])] = torch.tensor([7.0, 8.0])
z[1] = 5
z[:, 0] += torch.tensor([1.0, 2.0, 3.0])
print(z)
#%% index errors
try:
    x[torch.tensor([5])]
except IndexError as e:
    print("IndexError", e)
try:
    x[torch.tensor([True, False])]
except IndexError as e:
    print("IndexError", e)
try:
    x[0, 0, 0]
except IndexError as e:
    print("IndexError", e)
#%% index_select, masked_fill, take, nonzero
w = torch.arange(12.).view(3, 4)
print(w.index_select(1, torch.tensor([3, 0])), w.masked_fill(w > 6, -1.0))
print(torch.take(w, torch.tensor([0, 11, 5])), (w > 8).nonzero(), (w > 8).nonzero(as_tuple=True))
print(torch.argwhere(w == 5), w[w.argmax() // 4])
