import torch
import torch.distributions as D
from torch.distributions import constraints, transforms as T


def r(t, n=4):
    return t.round(decimals=n).tolist() if isinstance(t, torch.Tensor) else round(t, n)

#%% a VAE-style reparameterised Normal: rsample gradients and KL to the prior
torch.manual_seed(0)
mu = torch.randn(3, 2, requires_grad=True)
logvar = torch.randn(3, 2, requires_grad=True)
q = D.Normal(mu, (0.5 * logvar).exp())
z = q.rsample()
kl = D.kl_divergence(q, D.Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum()
(z.sum() + kl).backward()
print(r(z), r(kl.item()), r(mu.grad), r(logvar.grad))
print(q.batch_shape, q.event_shape, r(q.log_prob(z).sum().item()), r(q.entropy()))

#%% Independent, MultivariateNormal and their shapes
torch.manual_seed(1)
ind = D.Independent(D.Normal(torch.zeros(4, 3), torch.ones(4, 3)), 1)
x = ind.sample((2,))
print(ind.batch_shape, ind.event_shape, x.shape, ind.log_prob(x).shape)
L = torch.tensor([[1.0, 0.0], [0.5, 2.0]])
mvn = D.MultivariateNormal(torch.tensor([1.0, -1.0]), scale_tril=L)
s = mvn.sample((3,))
print(r(s), r(mvn.log_prob(s)), r(mvn.covariance_matrix), r(mvn.entropy().item()))
print(r(D.kl_divergence(mvn, D.MultivariateNormal(torch.zeros(2), torch.eye(2))).item()))

#%% a policy-gradient Categorical: sample, log_prob, entropy bonus
torch.manual_seed(2)
logits = torch.randn(5, 4, requires_grad=True)
pi = D.Categorical(logits=logits)
a = pi.sample()
adv = torch.randn(5)
loss = -(pi.log_prob(a) * adv).mean() - 0.01 * pi.entropy().mean()
loss.backward()
print(a.tolist(), r(loss.item()), r(logits.grad))
print(r(pi.probs.sum(-1)), D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5])).sample((6,)).tolist())

#%% mixtures and transformed distributions
torch.manual_seed(3)
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])),
                          D.Normal(torch.tensor([-2.0, 1.0]), torch.tensor([0.5, 1.5])))
xs = mix.sample((5,))
print(r(xs), r(mix.log_prob(xs)), r(mix.mean.item()), r(mix.variance.item()))
lognorm = D.TransformedDistribution(D.Normal(0.0, 1.0), [T.ExpTransform()])
v = lognorm.sample((3,))
print(r(v), r(lognorm.log_prob(v)), r(D.LogNormal(0.0, 1.0).log_prob(v)))
tanh_n = D.TransformedDistribution(D.Normal(torch.zeros(2), torch.ones(2)), [T.TanhTransform(cache_size=1)])
u = tanh_n.rsample()
print(r(u), r(tanh_n.log_prob(u)))

#%% constraints, support checks and transform_to for unconstrained optimisation
print(constraints.positive.check(torch.tensor([1.0, -1.0, 0.0])).tolist())
t = D.transform_to(constraints.simplex)
y = t(torch.tensor([0.1, -0.3, 2.0]))
print(r(y), r(y.sum().item()), r(t.inv(y)))
t2 = D.transform_to(constraints.interval(-1.0, 3.0))
print(r(t2(torch.tensor([-5.0, 0.0, 5.0]))))
try:
    D.Normal(0.0, -1.0)
except ValueError as e:
    print(type(e).__name__, str(e)[:120])
try:
    D.Bernoulli(probs=torch.tensor([0.5])).log_prob(torch.tensor([2.0]))
except ValueError as e:
    print(type(e).__name__, str(e)[:120])

#%% discrete families: Poisson, Binomial, Geometric, Beta, Gamma, Dirichlet samples and moments
torch.manual_seed(4)
for d in (D.Poisson(torch.tensor([3.0])), D.Binomial(10, torch.tensor([0.3])),
          D.Geometric(torch.tensor([0.25])), D.Beta(torch.tensor([2.0]), torch.tensor([3.0])),
          D.Gamma(torch.tensor([2.0]), torch.tensor([0.5])),
          D.Dirichlet(torch.tensor([1.0, 2.0, 3.0]))):
    smp = d.sample((3,))
    print(type(d).__name__, r(smp.flatten()), r(d.mean.flatten()), r(d.log_prob(smp).flatten()))
