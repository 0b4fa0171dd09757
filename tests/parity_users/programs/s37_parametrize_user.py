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
import torch.nn.utils.parametrize as P
from torch.nn.utils import parametrizations as PZ
#%% custom parametrization with right_inverse and caching
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu()
torch.manual_seed(0)
lin = nn.Linear(3, 3)
P.register_parametrization(lin, 'weight', Sym())
print(P.is_parametrized(lin), P.is_parametrized(lin, 'bias'), type(lin).__name__, list(dict(lin.named_parameters()).keys()))
print(torch.equal(lin.weight, lin.weight.T), r(lin.weight))
lin.weight = torch.eye(3) * 2
print(r(lin.parametrizations.weight.original))
with P.cached():
    a = lin.weight
    b = lin.weight
    print(a is b)
print(lin.weight is lin.weight)
lin(torch.ones(1, 3)).sum().backward()
print(r(lin.parametrizations.weight.original.grad))
P.remove_parametrizations(lin, 'weight', leave_parametrized=True)
print(type(lin).__name__, list(dict(lin.named_parameters()).keys()), r(lin.weight))
show(lambda: P.remove_parametrizations(lin, 'weight'))
#%% chained parametrizations and state_dict
class Scale(nn.Module):
    def __init__(self, s):
        super().__init__(); self.s = s
    def forward(self, X):
        return X * self.s
m = nn.Linear(2, 2)
with torch.no_grad():
    m.weight.copy_(torch.tensor([[1., 2.], [3., 4.]]))
P.register_parametrization(m, 'weight', Scale(2.))
P.register_parametrization(m, 'weight', Scale(10.))
print(m.weight, len(m.parametrizations.weight))
print(sorted(m.state_dict().keys()))
m2 = nn.Linear(2, 2)
P.register_parametrization(m2, 'weight', Scale(2.))
P.register_parametrization(m2, 'weight', Scale(10.))
m2.load_state_dict(m.state_dict())
print(torch.equal(m2.weight, m.weight))
P.remove_parametrizations(m, 'weight', leave_parametrized=False)
print(m.weight)
class NoInv(nn.Module):
    def forward(self, X):
        return X.abs()
q = nn.Linear(2, 2)
P.register_parametrization(q, 'weight', NoInv())
show(lambda: setattr(q, 'weight', torch.ones(2, 2)))
show(lambda: P.register_parametrization(q, 'nope', NoInv()))
#%% built-in parametrizations
torch.manual_seed(0)
o = PZ.orthogonal(nn.Linear(4, 4))
W = o.weight
print(r(W @ W.T, 3), o.parametrizations.weight.original.shape)
torch.manual_seed(0)
o2 = PZ.orthogonal(nn.Linear(3, 5), orthogonal_map='cayley')
print(r(o2.weight.T @ o2.weight, 3))
torch.manual_seed(0)
wn = PZ.weight_norm(nn.Linear(3, 2))
print(sorted(n for n, _ in wn.named_parameters()), r(wn.parametrizations.weight.original0), r(wn.weight))
torch.manual_seed(0)
sn = PZ.spectral_norm(nn.Linear(4, 3))
sn.train()
for _ in range(3):
    sn(torch.ones(1, 4))
print(r(torch.linalg.matrix_norm(sn.weight, 2), 3), sorted(k for k in sn.state_dict().keys()))
sn.eval()
print(r(torch.linalg.matrix_norm(sn.weight, 2), 3))
