import torch
#%% gather for picking class scores
torch.manual_seed(0)
scores = torch.randn(4, 3)
labels = torch.tensor([2, 0, 1, 1])
picked = scores.gather(1, labels.unsqueeze(1)).squeeze(1)
print(torch.allclose(picked, scores[torch.arange(4), labels]), picked.shape)
#%% scatter_add for bincount-like sums and scatter_reduce
src = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
index = torch.tensor([0, 1, 0, 2, 1])
print(torch.zeros(3).scatter_add(0, index, src))
print(torch.zeros(3).scatter_reduce(0, index, src, reduce="amax", include_self=False))
print(torch.ones(3).scatter_reduce(0, index, src, reduce="prod"))
print(torch.zeros(3).scatter_reduce(0, index, src, reduce="mean", include_self=False))
print(torch.zeros(2, 4).scatter_(1, torch.tensor([[1], [3]]), 1.0))
print(torch.zeros(2, 4).scatter(1, torch.tensor([[0, 1], [2, 3]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]]), reduce="add"))
#%% one-hot by scatter versus F.one_hot
import torch.nn.functional as F
lab = torch.tensor([0, 2, 1])
oh = torch.zeros(3, 4).scatter_(1, lab[:, None], 1)
print(torch.equal(oh.long(), F.one_hot(lab, 4)), F.one_hot(lab).dtype, F.one_hot(lab).shape)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except RuntimeError as e:
    print(str(e))
#%% gather gradient and errors
x = torch.arange(6.0, requires_grad=True)
x.view(2, 3).gather(1, torch.tensor([[0, 0], [2, 1]])).sum().backward()
print(x.grad)
try:
    torch.zeros(2, 3).gather(1, torch.tensor([[3]]))
except RuntimeError as e:
    print(str(e))
try:
    torch.zeros(2, 3).gather(1, torch.tensor([[0.0]]))
except RuntimeError as e:
    print(str(e))
#%% bincount, histc, unique with counts
v = torch.tensor([1, 3, 3, 0, 1, 3])
print(torch.bincount(v), torch.bincount(v, weights=torch.ones(6) * 0.5, minlength=6))
print(torch.unique(v, return_counts=True, return_inverse=True), torch.histc(v.float(), bins=4, min=0, max=3))
