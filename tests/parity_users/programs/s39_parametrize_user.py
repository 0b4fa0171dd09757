import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils import parametrizations as PZ
#%% orthogonal
torch.manual_seed(0)
l = PZ.orthogonal(nn.Linear(3, 3))
print(l)
print(list(l.state_dict().keys()))
w = l.weight
print(torch.allclose(w @ w.T, torch.eye(3), atol=1e-5), w.shape)
print(P.is_parametrized(l), P.is_parametrized(l, "bias"), P.is_parametrized(l, "weight"))
print(type(l).__name__, type(l).__bases__[0].__name__)
print([k for k, _ in l.named_parameters()])
#%% weight_norm parametrization
torch.manual_seed(0)
l = PZ.weight_norm(nn.Linear(4, 2))
print(l)
print(list(l.state_dict().keys()))
print(l.parametrizations.weight.original0.shape, l.parametrizations.weight.original1.shape)
x = torch.randn(3, 4)
l(x).sum().backward()
print(l.parametrizations.weight.original0.grad.shape)
P.remove_parametrizations(l, "weight")
print(l, list(l.state_dict().keys()))
#%% old weight_norm and spectral_norm hooks
torch.manual_seed(0)
l = nn.utils.weight_norm(nn.Linear(4, 2), dim=0)
print(list(l.state_dict().keys()), l.weight_g.shape, l.weight_v.shape)
nn.utils.remove_weight_norm(l)
print(list(l.state_dict().keys()))
torch.manual_seed(0)
s = nn.utils.spectral_norm(nn.Linear(4, 3))
print(list(s.state_dict().keys()))
print(s.weight_u.shape, s.weight_v.shape)
#%% spectral_norm parametrization
torch.manual_seed(0)
s = PZ.spectral_norm(nn.Linear(5, 4))
print(s)
print(list(s.state_dict().keys()))
s.eval()
print(torch.linalg.matrix_norm(s.weight, 2).item() < 1.01)
#%% custom parametrization, right_inverse, unsafe, cached
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu()
torch.manual_seed(0)
l = nn.Linear(3, 3)
P.register_parametrization(l, "weight", Sym())
print(l)
print(torch.equal(l.weight, l.weight.T))
l.weight = torch.eye(3) * 2
print(l.parametrizations.weight.original)
with P.cached():
    a = l.weight
    b = l.weight
    print(a is b)
print(l.weight is l.weight)
try:
    P.register_parametrization(nn.Linear(2, 2), "nope", Sym())
except Exception as e:
    print(type(e).__name__, e)
class Bad(nn.Module):
    def forward(self, X):
        return X[0]
try:
    P.register_parametrization(nn.Linear(2, 2), "weight", Bad())
except Exception as e:
    print(type(e).__name__, str(e)[:200])
P.register_parametrization(l, "weight", Sym())
print(len(l.parametrizations.weight))
P.remove_parametrizations(l, "weight", leave_parametrized=False)
print(l.weight)
try:
    P.remove_parametrizations(l, "weight")
except Exception as e:
    print(type(e).__name__, e)
