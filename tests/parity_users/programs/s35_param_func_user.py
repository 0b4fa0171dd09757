import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils import parametrizations as P


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e)[:400])
#%% weight_norm parametrization
torch.manual_seed(0)
lin = nn.Linear(3, 2)
w0 = lin.weight.detach().clone()
P.weight_norm(lin)
print(sorted(n for n, _ in lin.named_parameters()), r(lin.parametrizations.weight.original0), lin.parametrizations.weight.original1.shape)
print(torch.allclose(lin.weight, w0), type(lin).__name__, parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, 'bias'))
lin(torch.ones(1, 3)).sum().backward()
print(r(lin.parametrizations.weight.original0.grad), r(lin.parametrizations.weight.original1.grad))
c = nn.Conv1d(2, 4, 3)
P.weight_norm(c, dim=None)
print(c.parametrizations.weight.original0.shape, list(c.state_dict().keys()))
parametrize.remove_parametrizations(c, 'weight')
print(list(c.state_dict().keys()), type(c.weight).__name__)
#%% old weight_norm and spectral_norm
torch.manual_seed(1)
lin = nn.Linear(4, 3)
from torch.nn.utils import weight_norm, remove_weight_norm, spectral_norm
weight_norm(lin, dim=1)
print(lin.weight_g.shape, lin.weight_v.shape, sorted(lin.state_dict().keys()))
remove_weight_norm(lin)
show(lambda: remove_weight_norm(lin))
lin = nn.Linear(4, 3)
spectral_norm(lin, n_power_iterations=3)
print(sorted(lin.state_dict().keys()), lin.weight_u.shape, lin.weight_v.shape)
lin.eval()
print(r(torch.linalg.matrix_norm(lin.weight, 2), 3))
show(lambda: spectral_norm(lin))
#%% spectral_norm parametrization
torch.manual_seed(2)
lin = nn.Linear(5, 4)
P.spectral_norm(lin, n_power_iterations=5)
print(sorted(lin.state_dict().keys()))
for _ in range(10):
    lin(torch.randn(2, 5))
lin.eval()
print(r(torch.linalg.matrix_norm(lin.weight, 2), 2), lin.parametrizations.weight[0]._u.shape)
c = nn.ConvTranspose2d(2, 3, 3)
P.spectral_norm(c)
print(c.parametrizations.weight[0]._u.shape, c.parametrizations.weight[0].dim)
#%% orthogonal parametrization
torch.manual_seed(3)
lin = nn.Linear(3, 5)
P.orthogonal(lin)
w = lin.weight
print(w.shape, r(w.T @ w, 3), sorted(n for n, _ in lin.named_parameters()))
lin2 = nn.Linear(4, 4, bias=False)
P.orthogonal(lin2, orthogonal_map='cayley')
print(r(lin2.weight @ lin2.weight.T, 3))
lin3 = nn.Linear(4, 4, bias=False)
P.orthogonal(lin3, orthogonal_map='householder')
print(r(lin3.weight @ lin3.weight.T, 3))
show(lambda: P.orthogonal(nn.Linear(3, 3), orthogonal_map='qr'))
with torch.no_grad():
    q, _ = torch.linalg.qr(torch.randn(4, 4))
    lin2.weight = q
print(r(lin2.weight - q, 3).abs().max())
#%% custom parametrization
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu()
lin = nn.Linear(3, 3)
parametrize.register_parametrization(lin, 'weight', Sym())
print(torch.equal(lin.weight, lin.weight.T))
with parametrize.cached():
    a = lin.weight
    b = lin.weight
    print(a is b)
print(lin.weight is lin.weight)
lin.weight = torch.arange(9.).view(3, 3)
print(lin.parametrizations.weight.original)
parametrize.remove_parametrizations(lin, 'weight', leave_parametrized=False)
print(lin.weight)
class Bad(nn.Module):
    def forward(self, X):
        return X[:2]
show(lambda: parametrize.register_parametrization(nn.Linear(3, 3), 'weight', Bad()))
show(lambda: parametrize.remove_parametrizations(nn.Linear(3, 3), 'weight'))
show(lambda: parametrize.register_parametrization(nn.Linear(3, 3), 'nope', Sym()))
#%% torch.func grad vmap
from torch.func import grad, vmap, jacrev, jacfwd, hessian, grad_and_value, functional_call
f = lambda x: (x.sin() * x).sum()
x = torch.tensor([0.5, 1.0, 2.0])
print(r(grad(f)(x)), r(vmap(grad(f))(torch.stack([x, 2 * x]))))
g = lambda x, y: (x * y ** 2).sum()
print(r(grad(g, argnums=(0, 1))(x, x + 1)[1]), r(grad_and_value(g)(x, x)[1]))
print(r(jacrev(torch.sin)(x)), r(jacfwd(lambda x: x ** 3)(x)), r(hessian(f)(x)))
print(vmap(torch.dot)(torch.ones(2, 3), torch.ones(2, 3)), vmap(lambda a, b: a * b, in_dims=(0, None))(torch.arange(6.).view(3, 2), torch.tensor([1., 10.])))
print(vmap(lambda a: a.sum(0), in_dims=1, out_dims=1)(torch.arange(24.).view(2, 3, 4)).shape)
show(lambda: vmap(torch.dot)(torch.ones(2, 3), torch.ones(3, 3)))
show(lambda: grad(lambda x: x * 2)(x))
show(lambda: grad(f)(torch.tensor([1, 2])))
def aux(x):
    return (x ** 2).sum(), {'m': x.mean()}
print(grad(aux, has_aux=True)(x))
#%% functional_call and jacrev on module
torch.manual_seed(4)
m = nn.Linear(3, 2)
params = {k: v.detach() for k, v in m.named_parameters()}
x = torch.randn(4, 3)
def loss(p, x):
    return functional_call(m, p, (x,)).pow(2).sum()
gr = grad(loss)(params, x)
print(sorted(gr), r(gr['bias']))
per = vmap(grad(loss), in_dims=(None, 0))(params, x.unsqueeze(1))
print(per['weight'].shape, r(per['bias'].sum(0) - gr['bias']).abs().max())
j = jacrev(lambda p: functional_call(m, p, (x,)))(params)
print(j['weight'].shape, j['bias'].shape)
print(r(functional_call(m, {'bias': torch.zeros(2)}, x) - x @ m.weight.T).abs().max())
show(lambda: functional_call(m, {'bias2': torch.zeros(2)}, x, strict=True))
#%% vmap randomness and chunk
show(lambda: vmap(lambda t: torch.rand(2) + t)(torch.ones(3, 2)))
print(vmap(lambda t: torch.rand(2) * 0 + t, randomness='same')(torch.ones(3, 2)).shape)
print(vmap(lambda t: t.sum(), chunk_size=2)(torch.arange(10.).view(5, 2)))
print(vmap(lambda t: (t, t * 2), out_dims=(0, 1))(torch.ones(3, 2))[1].shape)
show(lambda: vmap(lambda t: t.item())(torch.ones(3)))
show(lambda: vmap(lambda t: t, in_dims=2)(torch.ones(3)))
