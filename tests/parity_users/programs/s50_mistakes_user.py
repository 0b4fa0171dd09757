import torch
import torch.nn as nn
import torch.nn.functional as F


def show(f):
    try:
        r = f()
        print("ok", r if not isinstance(r, torch.Tensor) else (r.shape, r.dtype))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:200])

#%% shape mistakes a beginner makes with Linear and matmul
torch.manual_seed(0)
lin = nn.Linear(10, 4)
show(lambda: lin(torch.randn(3, 11)))
show(lambda: torch.randn(3, 4) @ torch.randn(3, 4))
show(lambda: torch.mm(torch.randn(3), torch.randn(3, 4)))
show(lambda: torch.randn(2, 3).view(4))
show(lambda: torch.randn(2, 3).t().view(6))
show(lambda: torch.cat([torch.randn(2, 3), torch.randn(3, 2)]))
show(lambda: torch.stack([torch.randn(2), torch.randn(3)]))

#%% loss-function target mistakes
x = torch.randn(4, 3)
show(lambda: F.cross_entropy(x, torch.tensor([0.0, 1.0, 2.0, 1.0])))
show(lambda: F.cross_entropy(x, torch.tensor([0, 1, 3, 1])))
show(lambda: F.nll_loss(x, torch.tensor([[0], [1], [2], [1]])))
show(lambda: F.mse_loss(x, torch.randn(4, 1)))
show(lambda: F.binary_cross_entropy(x, torch.rand(4, 3)))
show(lambda: F.binary_cross_entropy_with_logits(x, torch.randint(0, 2, (4, 3))))

#%% autograd mistakes
w = torch.randn(3, requires_grad=True)
show(lambda: w.add_(1))
y = (w * 2).sum()
y.backward()
show(lambda: y.backward())
show(lambda: torch.randn(3, requires_grad=True).mul(2).backward())
show(lambda: torch.autograd.grad((w * 3).sum(), [torch.randn(3, requires_grad=True)]))
a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
show(lambda: b.sum().backward())
show(lambda: torch.tensor([1, 2], requires_grad=True))
show(lambda: w.numpy())

#%% device, dtype and type mistakes
show(lambda: torch.randn(2, 2).to("cuda:0"))
show(lambda: torch.randn(2, 2, dtype=torch.float64) @ torch.randn(2, 2))
show(lambda: torch.randint(0, 5, (3,)).mean())
show(lambda: torch.zeros(3).index_select(0, torch.tensor([0.0])))
show(lambda: nn.Embedding(5, 2)(torch.tensor([1.0, 2.0])))
show(lambda: nn.Embedding(5, 2)(torch.tensor([1, 5])))
show(lambda: torch.tensor([1, 2]).item())

#%% module and optimizer construction mistakes
show(lambda: torch.optim.SGD([], lr=0.1))
show(lambda: torch.optim.Adam(nn.Linear(2, 2).parameters(), lr=-1))
show(lambda: nn.Conv2d(3, 8, 3)(torch.randn(1, 4, 8, 8)))
show(lambda: nn.BatchNorm1d(3)(torch.randn(1, 3)))
show(lambda: nn.LSTM(4, 5)(torch.randn(2, 3, 6)))
m = nn.Linear(2, 2)
show(lambda: m.load_state_dict({"weight": torch.zeros(2, 2)}))
show(lambda: m.load_state_dict({"weight": torch.zeros(3, 2), "bias": torch.zeros(2)}))
show(lambda: setattr(m, "weight", torch.zeros(2, 2)))
