import torch
#%% boolean masks
x = torch.arange(12).reshape(3, 4)
m = x % 3 == 0
print(x[m], x[m.any(1)], x[:, torch.tensor([True, False, True, False])])
x[x > 8] = -1
print(x, x[torch.tensor(True)].shape, x[torch.tensor(False)].shape)
try:
    x[torch.tensor([True, False])]
except IndexError as e:
    print(e)
#%% negative steps and out of range
y = torch.arange(5)
try:
    y[::-1]
except ValueError as e:
    print(e)
print(y.flip(0), y[-2:], y[10:], y[-10:2])
try:
    y[5]
except IndexError as e:
    print(e)
try:
    y[torch.tensor([0, 7])]
except IndexError as e:
    print(e)
try:
    y[:, 0]
except IndexError as e:
    print(e)
#%% index_put_ with accumulate and duplicate indices
z = torch.zeros(5)
z.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
print(z)
z2 = torch.zeros(2, 3)
z2.index_put_((torch.tensor([0, 1]), torch.tensor([2, 2])), torch.tensor(7.0))
print(z2, z2.index_add(0, torch.tensor([1, 1]), torch.ones(2, 3)))
print(torch.zeros(3).index_fill_(0, torch.tensor([0, 2]), 4.0), torch.zeros(4).scatter_add_(0, torch.tensor([1, 1, 3]), torch.ones(3)))
#%% advanced indexing combos
a = torch.arange(24).reshape(2, 3, 4)
print(a[[0, 1], [1, 2]], a[:, [0, 2]].shape, a[..., [1, 3]].shape, a[[1], :, [0]].shape, a[None, 0, ..., -1])
print(a[torch.tensor([[0, 1], [1, 0]])].shape, a[0, torch.tensor([2, 0]), 1:3])
idx = torch.tensor([0, 2])
a[0, idx] = torch.tensor([[100, 101, 102, 103]])
print(a[0])
try:
    a[0, idx] = torch.ones(3, 4, dtype=torch.int64)
except RuntimeError as e:
    print(e)
try:
    a[torch.tensor([0.0])]
except IndexError as e:
    print(e)
