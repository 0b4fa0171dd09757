import torch
import torch.nn as nn
import torch.nn.functional as F
#%% shape mistakes in layers
torch.manual_seed(0)
for f in [lambda: nn.Linear(4, 2)(torch.ones(3, 5)), lambda: nn.Conv2d(3, 8, 3)(torch.ones(1, 4, 8, 8)),
          lambda: nn.Conv2d(3, 8, 3)(torch.ones(3, 8, 8, 8, 1)), lambda: nn.Conv2d(3, 8, 5)(torch.ones(1, 3, 2, 2)),
          lambda: nn.BatchNorm1d(4)(torch.ones(3, 5)), lambda: nn.BatchNorm1d(4)(torch.ones(1, 4)),
          lambda: nn.BatchNorm2d(3)(torch.ones(2, 3, 4)), lambda: nn.Embedding(5, 2)(torch.tensor([5])),
          lambda: nn.Embedding(5, 2)(torch.tensor([1.0])), lambda: nn.LayerNorm(4)(torch.ones(2, 3)),
          lambda: nn.MaxPool2d(3)(torch.ones(1, 1, 2, 2)), lambda: nn.Flatten()(torch.tensor(1.)),
          lambda: nn.LSTM(3, 4, batch_first=True)(torch.ones(2, 5, 4)), lambda: nn.GroupNorm(3, 4)(torch.ones(2, 4)),
          lambda: nn.MultiheadAttention(6, 4), lambda: nn.Linear(2, 2)(torch.ones(2, 2, dtype=torch.float64)),
          lambda: nn.Linear(2, 2)(torch.ones(2, 2, dtype=torch.int64))]:
    try:
        print(f().shape)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% loss mistakes
logits = torch.randn(3, 4)
for f in [lambda: F.cross_entropy(logits, torch.tensor([1., 2., 3.])), lambda: F.cross_entropy(logits, torch.tensor([1, 2])),
          lambda: F.cross_entropy(logits, torch.tensor([1, 2, 4])), lambda: F.cross_entropy(logits, torch.tensor([[1], [2], [3]])),
          lambda: F.nll_loss(logits, torch.tensor([0, 1, 2], dtype=torch.int32)), lambda: F.mse_loss(logits, torch.ones(3, 1)),
          lambda: F.mse_loss(logits, torch.ones(2, 4)), lambda: F.binary_cross_entropy(torch.sigmoid(logits), torch.ones(3, 4, dtype=torch.int64)),
          lambda: F.binary_cross_entropy(logits, torch.ones(3, 4)), lambda: F.binary_cross_entropy_with_logits(logits, torch.ones(3)),
          lambda: nn.CrossEntropyLoss()(logits, torch.tensor(1)), lambda: F.cross_entropy(logits[0], torch.tensor(1)),
          lambda: F.l1_loss(logits, torch.ones(4)), lambda: F.kl_div(logits, logits, reduction="mean"),
          lambda: F.cross_entropy(logits, torch.tensor([1, -100, 2])), lambda: F.cross_entropy(logits, torch.tensor([-1, 0, 2]))]:
    try:
        r = f()
        print(r.shape, r.dtype)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% tensor operation mistakes
a, b = torch.ones(2, 3), torch.ones(4, 3)
for f in [lambda: a + b, lambda: a @ b, lambda: torch.mm(a, b), lambda: torch.cat([a, torch.ones(2, 2)]),
          lambda: torch.stack([a, b]), lambda: a.view(4, 2).view(3, 3), lambda: a.reshape(5), lambda: a.t().view(-1),
          lambda: torch.matmul(torch.ones(3), torch.ones(4)), lambda: a[2], lambda: a[:, 3], lambda: a[0, 0, 0],
          lambda: a.sum(dim=2), lambda: a.expand(3, 3), lambda: a.squeeze(3), lambda: a.transpose(0, 2),
          lambda: torch.bmm(a, a), lambda: torch.ones(2).dot(torch.ones(3)), lambda: torch.ones(2, dtype=torch.int64).mean(),
          lambda: torch.ones(2) + "a", lambda: a.item(), lambda: int(a), lambda: bool(a), lambda: a.view(2, -1, -1),
          lambda: torch.zeros(2)[torch.tensor([2])], lambda: torch.arange(0, 5, 0), lambda: torch.randn(-1)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% autograd mistakes
x = torch.ones(2, requires_grad=True)
y = (x * 2)
for f in [lambda: y.backward(), lambda: torch.ones(2).backward(), lambda: torch.autograd.grad(y.sum(), torch.ones(2)),
          lambda: y.sum().backward() or y.sum().backward(), lambda: x.numpy(), lambda: torch.ones(2, dtype=torch.int64, requires_grad=True),
          lambda: torch.autograd.grad(x.sum() * 0 + 1, [x, torch.ones(1, requires_grad=True)]),
          lambda: y.backward(torch.ones(3)), lambda: x.detach().requires_grad_().grad_fn, lambda: (x ** 2).sum().backward(create_graph=True) or x.grad]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% dataset mistakes
from torch.utils.data import TensorDataset, DataLoader
try:
    TensorDataset(torch.ones(3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    next(iter(DataLoader([{"a": 1}, {"b": 2}], batch_size=2)))
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(TensorDataset(torch.ones(3)), batch_size=-1)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(TensorDataset(torch.ones(3)), batch_size=2.5)
except Exception as e:
    print(type(e).__name__, e)
