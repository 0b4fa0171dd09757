import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% shapes users get wrong
lin = nn.Linear(4, 3)
show(lambda: lin(torch.ones(2, 5)))
show(lambda: lin(torch.ones(4)).shape)
show(lambda: torch.ones(2, 3) @ torch.ones(2, 3))
show(lambda: torch.mm(torch.ones(2, 3), torch.ones(4)))
show(lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5)))
show(lambda: torch.matmul(torch.ones(3), torch.ones(4)))
show(lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]))
show(lambda: torch.cat([torch.ones(2, 3), torch.ones(3)]))
show(lambda: torch.stack([torch.ones(2), torch.ones(3)]))
show(lambda: torch.cat([]))
show(lambda: torch.ones(2, 3) + torch.ones(3, 2))
show(lambda: torch.ones(6).view(4, -1))
show(lambda: torch.ones(2, 3).t().view(6))
show(lambda: torch.ones(2, 3).reshape(-1, -1))
show(lambda: torch.ones(2, 3).expand(4, 3))
show(lambda: torch.ones(2, 3).permute(0))
show(lambda: torch.ones(2, 3).transpose(0, 2))
show(lambda: torch.ones(2, 3).sum(dim=3))
show(lambda: torch.ones(2, 3)[2])
show(lambda: torch.ones(2, 3)[:, :, 0])
show(lambda: nn.Conv2d(3, 8, 3)(torch.ones(1, 4, 8, 8)))
show(lambda: nn.Conv2d(3, 8, 3)(torch.ones(3, 2, 2)))
show(lambda: nn.BatchNorm1d(4)(torch.ones(2, 5)))
show(lambda: nn.Embedding(5, 2)(torch.tensor([5])))
show(lambda: nn.Embedding(5, 2)(torch.tensor([1.0])))
show(lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3])))
show(lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0., 1.])))
show(lambda: F.mse_loss(torch.ones(2, 3), torch.ones(3, 2)))
show(lambda: F.nll_loss(torch.ones(2, 3), torch.tensor([[0, 1]])))
#%% dtype mistakes
show(lambda: torch.ones(3)[torch.tensor([0.])])
show(lambda: torch.ones(3)[torch.tensor([1, 0], dtype=torch.int8)])
show(lambda: torch.ones(3).index_select(0, torch.tensor([0.])))
show(lambda: torch.gather(torch.ones(2, 2), 1, torch.tensor([[0]], dtype=torch.int32)))
show(lambda: torch.ones(2, 2, dtype=torch.int64) @ torch.ones(2, 2))
show(lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64)))
show(lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.int64)))
show(lambda: torch.ones(2, dtype=torch.int64).mean())
show(lambda: torch.ones(2).long().requires_grad_())
show(lambda: torch.zeros(2, dtype=torch.int32, requires_grad=True))
show(lambda: F.softmax(torch.ones(3, dtype=torch.int64), 0))
show(lambda: torch.ones(2).add_(torch.ones(2, dtype=torch.float64)))
show(lambda: torch.ones(2, dtype=torch.int32).add_(1.5))
show(lambda: torch.ones(2).bool() - torch.ones(2).bool())
show(lambda: ~torch.ones(2))
show(lambda: torch.arange(3) / 0)
show(lambda: torch.arange(3) // 0)
#%% autograd mistakes
x = torch.ones(2, requires_grad=True)
y = (x * x).sum()
y.backward()
show(lambda: y.backward())
show(lambda: (x * 2).backward())
show(lambda: torch.ones(2).sum().backward())
show(lambda: x.numpy())
show(lambda: x.add_(1))
w = torch.ones(2, requires_grad=True)
z = w.exp()
z.add_(1)
show(lambda: z.sum().backward())
print(w.grad)
q = torch.ones(2, requires_grad=True)
s = q.sigmoid()
s.mul_(2)
show(lambda: s.sum().backward())
show(lambda: torch.autograd.grad(x.sum(), [x, torch.ones(1)]))
show(lambda: torch.autograd.grad((x * 2).sum(), x, grad_outputs=torch.ones(2)))
a = torch.ones(2, requires_grad=True)
b = a * 3
show(lambda: torch.autograd.grad(b.sum(), torch.ones(2, requires_grad=True)))
show(lambda: print(torch.autograd.grad(b.sum(), torch.ones(2, requires_grad=True), allow_unused=True)))
print(x.grad, x.is_leaf, (x * 2).is_leaf, (x * 2).grad)
