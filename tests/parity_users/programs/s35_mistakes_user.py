import torch
from torch import nn
import torch.nn.functional as F


def show(f):
    try:
        out = f()
        print(out if not isinstance(out, torch.Tensor) else (out.shape, out.dtype))
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% common shape and dtype mistakes
lin = nn.Linear(4, 2)
for f in (lambda: lin(torch.ones(3)), lambda: lin(torch.ones(2, 3)), lambda: lin(torch.ones(2, 4, dtype=torch.float64)), lambda: lin(torch.ones(2, 4, dtype=torch.int64)), lambda: nn.Conv2d(3, 4, 3)(torch.ones(3, 8, 8)).shape, lambda: nn.Conv2d(3, 4, 3)(torch.ones(8, 8)), lambda: nn.Conv2d(3, 4, 3)(torch.ones(1, 3, 8, 8, dtype=torch.float64)), lambda: nn.BatchNorm2d(3)(torch.ones(2, 3)), lambda: nn.LSTM(4, 2)(torch.ones(3, 4)), lambda: nn.LSTM(4, 2)(torch.ones(3, 2, 5)), lambda: F.cross_entropy(torch.ones(3, 4), torch.ones(3, 4, dtype=torch.long)), lambda: F.cross_entropy(torch.ones(3, 4), torch.tensor([1, 2, 3], dtype=torch.int32)), lambda: F.mse_loss(torch.ones(3), torch.ones(3, dtype=torch.long)), lambda: F.binary_cross_entropy(torch.full((3,), 0.5), torch.ones(3, dtype=torch.long)), lambda: F.nll_loss(torch.ones(3, 4), torch.ones(3)), lambda: nn.Embedding(5, 2)(torch.tensor([[1.5]])), lambda: torch.cat([torch.ones(2), torch.ones(2, 1)]), lambda: torch.stack([torch.ones(2), torch.ones(3)]), lambda: torch.ones(2, 3).view(3, 3), lambda: torch.ones(2, 3) + torch.ones(3, 2), lambda: torch.ones(2, 3).permute(0), lambda: torch.ones(2, 3).transpose(0, 2), lambda: torch.ones(2, 3).sum(2), lambda: torch.ones(2, 3)[2], lambda: torch.ones(2, 3).reshape(-1, 4), lambda: torch.ones(2, 3).squeeze(3), lambda: torch.ones(2, 3).expand(4, 3), lambda: torch.ones(2, 3).repeat(2), lambda: torch.ones(2).dot(torch.ones(2, 1)), lambda: torch.softmax(torch.ones(2, 3), dim=2), lambda: torch.gather(torch.ones(2, 3), 1, torch.tensor([[0, 5]])), lambda: torch.gather(torch.ones(2, 3), 1, torch.tensor([0, 1])), lambda: torch.ones(2, 3).masked_fill(torch.ones(2, 3), 0.)):
    show(f)
#%% module call mistakes
for f in (lambda: nn.Linear(4), lambda: nn.Linear(4, 2, True, 'cpu', torch.float64, 3), lambda: nn.Linear(4.0, 2), lambda: nn.Conv2d(3, 4), lambda: nn.Dropout(1.5), lambda: nn.Dropout(-0.1), lambda: nn.Softmax()(torch.ones(2, 3)).shape, lambda: nn.Sequential(nn.Linear(2, 2))(torch.ones(2), torch.ones(2)), lambda: nn.ReLU()(3), lambda: nn.MSELoss()(torch.ones(2), [1, 2]), lambda: nn.Module()(torch.ones(2)), lambda: nn.Linear(2, 2).weight.grad.shape, lambda: nn.Linear(2, 2).state_dict()['weight'].requires_grad, lambda: nn.Linear(2, 2).to('cuda')):
    show(f)
