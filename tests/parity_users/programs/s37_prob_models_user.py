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
import torch.distributions as D
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp
#%% a tiny VAE step
torch.manual_seed(0)
enc = nn.Linear(4, 4); dec = nn.Linear(2, 4)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
x = torch.rand(8, 4)
for step in range(5):
    h = enc(x)
    mu, logvar = h[:, :2], h[:, 2:]
    q = D.Normal(mu, (0.5 * logvar).exp())
    z = q.rsample()
    recon = torch.sigmoid(dec(z))
    rec = F.binary_cross_entropy(recon, x, reduction='sum')
    kl = D.kl_divergence(q, D.Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum()
    loss = rec + kl
    opt.zero_grad(); loss.backward(); opt.step()
    print(step, f'{rec.item():.4f} {kl.item():.4f}')
print(r(q.entropy().mean()), r(q.log_prob(z).sum()), D.Independent(q, 1).event_shape)
#%% policy gradient with categorical
torch.manual_seed(1)
pol = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4))
opt = torch.optim.SGD(pol.parameters(), lr=0.1)
for ep in range(4):
    s = torch.randn(6, 3)
    dist = D.Categorical(logits=pol(s))
    a = dist.sample()
    ret = (a == 2).float() - 0.5
    loss = -(dist.log_prob(a) * ret).mean() - 0.01 * dist.entropy().mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(ep, a.tolist(), f'{loss.item():.5f}')
print(r(dist.probs[0]), dist.sample((2,)).shape, r(D.Categorical(probs=torch.tensor([0.1, 0.9])).perplexity()))
#%% autograd.functional
f = lambda a, b: (a * b.sin()).sum(0)
a = torch.tensor([[1., 2.], [3., 4.]]); b = torch.tensor([[0.5, -1.], [2., 0.1]])
J = jacobian(f, (a, b))
print([tuple(j.shape) for j in J], r(J[1][0]))
print(r(jacobian(f, (a, b), vectorize=True, strategy='forward-mode')[0][1]))
H = hessian(lambda v: (v ** 3).sum() + v.prod(), torch.tensor([1., 2., 3.]))
print(H)
print(r(hessian(lambda u, v: (u * v).pow(2).sum(), (torch.tensor([1., 2.]), torch.tensor([3., -1.])))[0][1]))
print([r(t) for t in vjp(lambda v: v.exp().cumsum(0), torch.tensor([0., 1.]), torch.tensor([1., 1.]))])
print([r(t) for t in jvp(lambda v: v.exp().cumsum(0), torch.tensor([0., 1.]), torch.tensor([1., 1.]))])
print([r(t) for t in hvp(lambda v: v.pow(4).sum(), torch.tensor([1., 2.]), torch.tensor([1., 0.]))])
show(lambda: jacobian(lambda v: v.detach(), torch.ones(2), strict=True))
show(lambda: jacobian(lambda v: 3, torch.ones(2)))
print(jacobian(lambda v: torch.ones(2), torch.ones(2)))
show(lambda: hessian(lambda v: v, torch.ones(2)))
