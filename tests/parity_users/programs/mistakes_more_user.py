import torch
import torch.nn as nn
import torch.nn.functional as F


def attempt(f):
    try:
        r = f()
        print("ok", r.shape if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(type(e).__name__, e)
#%% matmul shape mistakes
a, b = torch.ones(2, 3), torch.ones(2, 3)
for f in (lambda: a @ b, lambda: torch.mm(a, b), lambda: torch.bmm(a, b), lambda: torch.mv(a, torch.ones(2)), lambda: torch.dot(torch.ones(2), torch.ones(3)),
          lambda: torch.matmul(torch.ones(2, 2, 3), torch.ones(3, 2, 4)), lambda: torch.ones(3) @ torch.ones(4), lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)),
          lambda: torch.outer(torch.ones(2, 1), torch.ones(2)), lambda: torch.addmm(torch.ones(3), a, b.t()), lambda: torch.baddbmm(torch.ones(2, 2, 2), torch.ones(2, 2, 3), torch.ones(2, 2, 2)),
          lambda: torch.tensor(2.0) @ torch.ones(2), lambda: torch.ones(2).mm(torch.ones(2, 2))):
    attempt(f)
#%% dtype mistakes in ops
for f in (lambda: torch.ones(2) @ torch.ones(2, dtype=torch.float64), lambda: torch.ones(2, dtype=torch.int64) @ torch.ones(2), lambda: torch.ones(2, 2).mm(torch.ones(2, 2, dtype=torch.int32)),
          lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.int64)), lambda: nn.Conv1d(1, 1, 1)(torch.ones(1, 1, 3, dtype=torch.float64)), lambda: torch.arange(3).mean(),
          lambda: torch.arange(3).std(), lambda: torch.arange(4).view(2, 2).inverse(), lambda: torch.randn(3, dtype=torch.float16).erfinv() if False else None,
          lambda: F.softmax(torch.arange(3), 0), lambda: torch.sigmoid(torch.tensor([1, 2])), lambda: torch.exp(torch.tensor([1, 2])).dtype, lambda: torch.sqrt(torch.tensor([4])).dtype,
          lambda: torch.zeros(2).index_fill_(0, torch.tensor([0.0]), 1), lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.tensor([1])), lambda: torch.zeros(3, dtype=torch.long).index_add_(0, torch.tensor([0]), torch.tensor([1.5]))):
    attempt(f)
#%% wrong index types
x = torch.arange(6.0)
for f in (lambda: x.gather(0, torch.tensor([0.0])), lambda: x.index_select(0, torch.tensor([1], dtype=torch.int32)), lambda: x.index_select(0, torch.tensor([[1]])), lambda: x[torch.tensor([[0, 1]], dtype=torch.long)],
          lambda: torch.take(x, torch.tensor([1.0])), lambda: x.scatter(0, torch.tensor([1], dtype=torch.int32), 1.0), lambda: nn.Embedding(5, 2)(torch.tensor([1], dtype=torch.int32)),
          lambda: nn.Embedding(5, 2)(torch.tensor([1.0])), lambda: F.one_hot(torch.tensor([1.0])), lambda: F.one_hot(torch.tensor([3]), 2), lambda: F.one_hot(torch.tensor([-1]))):
    attempt(f)
#%% broadcasting mistakes
for f in (lambda: torch.ones(2, 3) + torch.ones(3, 2), lambda: torch.ones(2, 3).add_(torch.ones(2, 1, 3)), lambda: torch.ones(4).view(2, 2).expand(3, 2), lambda: torch.ones(2, 3).expand(2, 3, 4),
          lambda: torch.ones(3).expand(-1, 3), lambda: torch.ones(1, 3).expand(-1, 3, 2) if False else torch.ones(1, 3).expand(4, -1), lambda: torch.where(torch.ones(2, dtype=torch.bool), torch.ones(3), 0),
          lambda: torch.ones(2, 3).copy_(torch.ones(3, 2)), lambda: torch.ones(2, 3).masked_fill_(torch.ones(3, dtype=torch.bool), 0), lambda: torch.broadcast_shapes((2, 3), (3, 2)), lambda: torch.ones(2).mul_(torch.ones(2, 2))):
    attempt(f)
#%% module misuse
for f in (lambda: nn.Linear(2, 3)(torch.ones(3)), lambda: nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 2, 2)), lambda: nn.Conv2d(1, 1, 3, padding=1)(torch.ones(1, 1, 2)), lambda: nn.LSTM(2, 3)(torch.ones(4, 1, 2), torch.zeros(1, 1, 3)),
          lambda: nn.LSTM(2, 3)(torch.ones(4, 1, 2), (torch.zeros(2, 1, 3), torch.zeros(1, 1, 3))), lambda: nn.GRU(2, 3, batch_first=True)(torch.ones(1, 4, 3)), lambda: nn.Sequential(nn.Linear(2, 2))(torch.ones(2), torch.ones(2)),
          lambda: nn.Linear(2, 2).forward(), lambda: nn.Module()(torch.ones(1)), lambda: nn.Softmax()(torch.ones(2, 2)), lambda: nn.MultiheadAttention(5, 2), lambda: nn.Conv2d(3, 4, 3, groups=2),
          lambda: nn.BatchNorm2d(3)(torch.ones(2, 3, 4)), lambda: nn.Dropout(1.5), lambda: nn.Linear(2, 2).to("cuda:0") if False else nn.Linear(-1, 2), lambda: nn.Embedding(3, 2, padding_idx=5)):
    attempt(f)
#%% autograd misuse
w = torch.ones(2, requires_grad=True)
for f in (lambda: (w * 2).backward(), lambda: w.backward(torch.ones(3)), lambda: torch.autograd.grad(w.sum(), torch.ones(2)), lambda: torch.autograd.grad((w * 2).sum(), w, grad_outputs=torch.ones(2)),
          lambda: w.numpy(), lambda: w.view(2, 1).resize_(3), lambda: w.data.requires_grad, lambda: torch.autograd.grad([w.sum(), w.sum()], w, grad_outputs=[torch.tensor(1.0)]),
          lambda: torch.ones(2).requires_grad_().add_(1), lambda: (w.detach() * 2).sum().backward(), lambda: w.grad.zero_(), lambda: torch.autograd.backward(w.sum(), grad_tensors=torch.ones(2))):
    attempt(f)
#%% optimizer misuse
p = nn.Parameter(torch.ones(2))
for f in (lambda: torch.optim.SGD(p, lr=0.1), lambda: torch.optim.SGD([p], lr=-1), lambda: torch.optim.SGD([p], momentum=-0.5, lr=0.1), lambda: torch.optim.SGD([p], lr=0.1, nesterov=True),
          lambda: torch.optim.Adam([p], betas=(1.0, 0.9)), lambda: torch.optim.Adam([p], eps=-1), lambda: torch.optim.Adam([], lr=0.1), lambda: torch.optim.SGD([p, p], lr=0.1),
          lambda: torch.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1), lambda: torch.optim.Adam([torch.ones(2)], lr=0.1).step(), lambda: torch.optim.SGD([p], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
          lambda: torch.optim.AdamW([p], weight_decay=-1), lambda: torch.optim.RMSprop([p], alpha=-1), lambda: torch.optim.SGD([{"params": p, "lr": 0.1}])):
    attempt(f)
#%% data loader misuse
from torch.utils.data import DataLoader, TensorDataset
for f in (lambda: TensorDataset(torch.ones(3), torch.ones(4)), lambda: list(DataLoader([1, 2], batch_size=0)), lambda: list(DataLoader([torch.ones(2), torch.ones(3)], batch_size=2)),
          lambda: list(DataLoader([{"a": 1}, {"b": 2}], batch_size=2)), lambda: list(DataLoader([object()], batch_size=1)), lambda: len(DataLoader(iter([1, 2]))), lambda: DataLoader(TensorDataset(torch.ones(2)), batch_size=-1)):
    attempt(f)
#%% reshape view mistakes
x = torch.arange(12)
for f in (lambda: x.view(5, -1), lambda: x.reshape(2, 2, 2), lambda: x.view(3, 4).t().view(12), lambda: x.view(-1, 0), lambda: x.permute(1), lambda: x.view(3, 4).permute(0, 0),
          lambda: x.view(3, 4).transpose(0, 2), lambda: x.flatten(1), lambda: x.squeeze(2), lambda: x.unflatten(0, (5, -1)), lambda: x.view(3, 4).narrow(1, 3, 2), lambda: x.view(2, 6).split(4, dim=2),
          lambda: x.chunk(0), lambda: x.unfold(0, 20, 1), lambda: x.movedim(0, 3)):
    attempt(f)
#%% creation mistakes
for f in (lambda: torch.tensor([[1, 2], [3]]), lambda: torch.tensor([1, "a"]), lambda: torch.tensor(None), lambda: torch.tensor([None]), lambda: torch.ones(2, dtype="float32"), lambda: torch.zeros((2, -3)),
          lambda: torch.arange(0, 10, 0), lambda: torch.arange(10, 0), lambda: torch.linspace(0, 1, -1), lambda: torch.randint(5, 2, (3,)), lambda: torch.eye(-1), lambda: torch.empty(2, 3, dtype=torch.float32, device="meta").tolist(),
          lambda: torch.full((2,), 1.5, dtype=torch.int64), lambda: torch.tensor([1.5], dtype=torch.bool), lambda: torch.randn(2, dtype=torch.int64)):
    attempt(f)
try:
    torch.rand(2, 2, generator=1)
except TypeError as e:
    print(type(e).__name__)  # (torch's argument-parser listing is not reproduced)
