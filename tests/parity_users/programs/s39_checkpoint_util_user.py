import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
#%% checkpoint without use_reentrant
torch.manual_seed(0)
lin = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
y = checkpoint(lin, x)
y.sum().backward()
print(x.grad.shape, lin.weight.grad.abs().sum() > 0)
#%% checkpoint use_reentrant False / True gradients equal plain
torch.manual_seed(0)
seq = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 3, requires_grad=True)
plain = torch.autograd.grad(seq(x).sum(), [x] + list(seq.parameters()))
for reentrant in [False, True]:
    out = checkpoint(seq, x, use_reentrant=reentrant)
    try:
        g = torch.autograd.grad(out.sum(), [x] + list(seq.parameters()))
        print(reentrant, all(torch.allclose(a, b) for a, b in zip(plain, g)), out.grad_fn is not None)
    except Exception as e:
        print(type(e).__name__, e)
    x.grad = None
    seq.zero_grad()
    checkpoint(seq, x, use_reentrant=reentrant).sum().backward()
    print(torch.allclose(x.grad, plain[0]), torch.allclose(seq[0].weight.grad, plain[1]))
#%% checkpoint_sequential and kwargs
torch.manual_seed(0)
seq = nn.Sequential(*[nn.Linear(3, 3) for _ in range(4)])
x = torch.randn(2, 3, requires_grad=True)
out = checkpoint_sequential(seq, 2, x, use_reentrant=False)
out.sum().backward()
print(out.shape, x.grad.shape)
def f(a, scale=1.0):
    return a * scale
print(checkpoint(f, torch.ones(2, requires_grad=True), scale=3.0, use_reentrant=False))
try:
    checkpoint(f, torch.ones(2, requires_grad=True), scale=3.0, use_reentrant=True)
except Exception as e:
    print(type(e).__name__, e)
#%% reentrant with no input requiring grad warns
lin = nn.Linear(2, 2)
out = checkpoint(lin, torch.ones(1, 2), use_reentrant=True)
print(out.requires_grad)
out = checkpoint(lin, torch.ones(1, 2), use_reentrant=False)
print(out.requires_grad)
