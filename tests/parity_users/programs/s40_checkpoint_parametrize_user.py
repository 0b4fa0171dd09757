import torch
import torch.nn as nn
from torch.nn.utils import parametrize
#%% activation checkpointing gives the same grads
torch.manual_seed(0)
from torch.utils.checkpoint import checkpoint
layer = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(3, 4, requires_grad=True)
checkpoint(layer, x, use_reentrant=False).sum().backward()
g1 = x.grad.clone(); x.grad = None
layer(x).sum().backward()
print(torch.allclose(g1, x.grad))
#%% weight_norm / spectral_norm parametrizations
torch.manual_seed(0)
lin = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
print(sorted(n for n, _ in lin.named_parameters()), type(lin.parametrizations).__name__)
print(torch.allclose(lin.weight.norm(dim=1, keepdim=True), lin.parametrizations.weight.original0))
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 4))
sn(torch.randn(2, 4))
print(sorted(n for n, _ in sn.named_buffers()), parametrize.is_parametrized(sn), parametrize.is_parametrized(sn, "bias"))
#%% custom parametrization and removal
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
m = nn.Linear(3, 3)
parametrize.register_parametrization(m, "weight", Sym())
print(torch.equal(m.weight, m.weight.T), m)
parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)
print(torch.equal(m.weight, m.weight.T), type(m.weight).__name__, parametrize.is_parametrized(m))
try:
    parametrize.remove_parametrizations(m, "weight")
except ValueError as e:
    print(str(e))
