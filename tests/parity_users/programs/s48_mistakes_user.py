import torch
import torch.nn as nn
import torch.nn.functional as F
#%% linear shape mismatch
nn.Linear(4, 3)(torch.randn(2, 5))
#%% conv wrong channels
nn.Conv2d(3, 8, 3)(torch.randn(1, 4, 8, 8))
#%% conv 3d input to conv2d ok unbatched
print(nn.Conv2d(3, 2, 3)(torch.randn(3, 5, 5)).shape)
#%% conv too small
nn.Conv2d(1, 1, 5)(torch.randn(1, 1, 3, 3))
#%% long input to linear
nn.Linear(2, 2)(torch.tensor([[1, 2]]))
#%% double tensor into float model
nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64))
#%% cross entropy float target wrong shape
F.cross_entropy(torch.randn(3, 4), torch.randn(3))
#%% cross entropy target out of range
F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 7]))
#%% backward non scalar
x = torch.ones(3, requires_grad=True)
(x * 2).backward()
#%% backward twice
x = torch.ones(3, requires_grad=True)
y = (x * x).sum()
y.backward(); y.backward()
#%% inplace leaf
x = torch.ones(3, requires_grad=True)
x += 1
#%% inplace modified saved
x = torch.ones(3, requires_grad=True)
y = x.sigmoid()
z = y * 2
y.mul_(2)
z.sum().backward()
y.sum().backward()
#%% numpy of grad tensor
torch.ones(2, requires_grad=True).numpy()
#%% item of multi
torch.ones(2).item()
#%% view non contiguous
torch.randn(3, 4).t().view(12)
#%% cat mismatched
torch.cat([torch.ones(2, 3), torch.ones(3, 2)])
#%% stack mismatched
torch.stack([torch.ones(2), torch.ones(3)])
#%% matmul mismatch
torch.randn(2, 3) @ torch.randn(2, 3)
#%% mm 1d
torch.mm(torch.randn(3), torch.randn(3, 2))
#%% index out of range
torch.arange(5)[7]
#%% embedding out of range
nn.Embedding(5, 2)(torch.tensor([5]))
#%% embedding float index
nn.Embedding(5, 2)(torch.tensor([1.0]))
#%% reshape bad
torch.arange(6).reshape(4, -1)
#%% optimizer empty
torch.optim.SGD([], lr=0.1)
#%% optimizer no lr
torch.optim.SGD(nn.Linear(1, 1).parameters())
#%% optimizer negative lr
torch.optim.Adam(nn.Linear(1, 1).parameters(), lr=-1)
#%% load state dict mismatch
m = nn.Linear(2, 3)
m.load_state_dict(nn.Linear(3, 3).state_dict())
#%% load state dict missing
m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
m.load_state_dict({"0.weight": torch.zeros(3, 2)})
#%% batchnorm single value training
nn.BatchNorm1d(3)(torch.randn(1, 3))
#%% lstm wrong input dims
nn.LSTM(3, 4)(torch.randn(2, 3, 3, 1))
#%% lstm hidden wrong
nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4)))
#%% softmax no dim warns
print(F.softmax(torch.tensor([1.0, 2.0])))
#%% to device bad
torch.ones(2).to("gpu")
#%% cuda not available
torch.ones(2).cuda()
#%% tensor from ragged
torch.tensor([[1, 2], [3]])
#%% grad of int
torch.tensor([1, 2], requires_grad=True)
#%% add int inplace float
t = torch.tensor([1, 2]); t += 0.5
#%% bool sub
torch.tensor([True]) - torch.tensor([False])
#%% division by zero int
print(torch.tensor([1]) // torch.tensor([0]))
#%% module call missing arg
nn.Linear(2, 2)()
#%% sequential index
nn.Sequential(nn.ReLU())[3]
#%% parameter assignment wrong type
m = nn.Linear(2, 2); m.weight = torch.zeros(2, 2)
#%% register buffer bad name
m = nn.Module(); m.register_buffer("a.b", torch.zeros(1))
#%% module attr error
nn.Linear(2, 2).wieght
#%% zero grad on none
m = nn.Linear(2, 2); m.zero_grad(); print(m.weight.grad)
#%% dataloader bad batch
from torch.utils.data import DataLoader
DataLoader([1, 2, 3], batch_size=0)
#%% dataloader sampler shuffle
DataLoader([1, 2, 3], shuffle=True, sampler=[0, 1])
#%% expand bad
torch.ones(2, 3).expand(3, 3)
#%% gather bad index
torch.gather(torch.ones(2, 2), 1, torch.tensor([[0, 2]]))
#%% scatter dtype
torch.zeros(3).scatter_(0, torch.tensor([0]), torch.tensor([1]))
#%% where mismatch
torch.where(torch.tensor([True, False]), torch.ones(3), torch.zeros(3))
