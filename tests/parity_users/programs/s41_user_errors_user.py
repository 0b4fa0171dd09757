import torch
import torch.nn.functional as F
#%% cross_entropy with wrong target dtype/shape
logits = torch.randn(4, 3)
for tgt in (torch.tensor([0, 1, 2, 1], dtype=torch.int32), torch.tensor([0.0, 1.0, 2.0, 1.0]), torch.tensor([0, 1, 3, 1]), torch.tensor([[0], [1], [2], [1]])):
    try:
        print(F.cross_entropy(logits, tgt))
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
try:
    F.nll_loss(logits, torch.tensor([0, 1]))
except ValueError as e:
    print(e)
#%% Linear shape mismatch and wrong dtype input
lin = torch.nn.Linear(3, 2)
try:
    lin(torch.ones(4, 5))
except RuntimeError as e:
    print(e)
try:
    lin(torch.ones(4, 3, dtype=torch.float64))
except RuntimeError as e:
    print(e)
try:
    lin(torch.ones(4, 3, dtype=torch.int64))
except RuntimeError as e:
    print(e)
try:
    torch.nn.Conv2d(3, 4, 3)(torch.ones(1, 4, 8, 8))
except RuntimeError as e:
    print(e)
#%% losses with mismatched shapes
try:
    F.mse_loss(torch.ones(3), torch.ones(4))
except RuntimeError as e:
    print(e)
print(F.mse_loss(torch.ones(3, 1), torch.zeros(3)))
try:
    F.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([0.0, 1.0]))
except RuntimeError as e:
    print(e)
try:
    F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(3))
except ValueError as e:
    print(e)
#%% misc frequent errors
try:
    torch.ones(2, 3).view(4)
except RuntimeError as e:
    print(e)
try:
    torch.ones(2, 3).t().view(6)
except RuntimeError as e:
    print(e)
try:
    torch.ones(2) + torch.ones(3)
except RuntimeError as e:
    print(e)
try:
    torch.cat([torch.ones(2, 3), torch.ones(2, 4)])
except RuntimeError as e:
    print(e)
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1.0, 2.0]).item()
except RuntimeError as e:
    print(e)
try:
    torch.ones(3).backward()
except RuntimeError as e:
    print(e)
