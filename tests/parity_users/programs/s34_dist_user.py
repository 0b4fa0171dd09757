import torch
from torch import distributions as D


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
torch.manual_seed(0)
#%% normal sample shapes
n = D.Normal(torch.zeros(3), torch.ones(3))
print(n.sample().shape, n.sample((5,)).shape, n.sample((2, 4)).shape, n.batch_shape, n.event_shape)
print(r(n.log_prob(torch.tensor([0., 1., -1.]))), r(n.entropy()), r(n.cdf(torch.tensor(0.5))), r(n.icdf(torch.tensor([0.1, 0.5, 0.9]))))
#%% rsample grad
mu = torch.tensor([0.5, -1.0], requires_grad=True)
sig = torch.tensor([1.0, 2.0], requires_grad=True)
d = D.Normal(mu, sig)
torch.manual_seed(1)
x = d.rsample((4,))
(x ** 2).mean().backward()
print(r(mu.grad), r(sig.grad))
try:
    D.Categorical(logits=torch.zeros(3)).rsample()
except Exception as e:
    print(type(e).__name__, e)
#%% categorical
c = D.Categorical(probs=torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]))
print(c.batch_shape, c.event_shape, c.sample((3,)).shape, r(c.entropy()), r(c.log_prob(torch.tensor([2, 1]))), c.param_shape, r(c.logits))
print(c.enumerate_support().shape, r(c.mean) if False else c.support)
#%% independent and multivariate normal
mvn = D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[2., 0.5], [0.5, 1.]]))
print(mvn.batch_shape, mvn.event_shape, r(mvn.log_prob(torch.tensor([[0., 0.], [1., -1.]]))), r(mvn.entropy()), r(mvn.scale_tril))
ind = D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
print(ind.batch_shape, ind.event_shape, r(ind.log_prob(torch.zeros(2, 3))), r(ind.entropy()))
#%% kl divergences
p = D.Normal(torch.tensor([0., 1.]), torch.tensor([1., 2.]))
q = D.Normal(torch.tensor([1., 1.]), torch.tensor([1., 1.]))
print(r(D.kl_divergence(p, q)))
print(r(D.kl_divergence(D.Categorical(probs=torch.tensor([0.3, 0.7])), D.Categorical(probs=torch.tensor([0.5, 0.5])))))
print(r(D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.6))), r(D.kl_divergence(D.Beta(torch.tensor(2.), torch.tensor(3.)), D.Beta(torch.tensor(1.), torch.tensor(1.)))))
print(r(D.kl_divergence(D.Dirichlet(torch.tensor([1., 2.])), D.Dirichlet(torch.tensor([2., 2.])))), r(D.kl_divergence(D.Exponential(torch.tensor(2.)), D.Gamma(torch.tensor(1.), torch.tensor(1.)))))
try:
    D.kl_divergence(D.Normal(0., 1.), D.Categorical(probs=torch.tensor([0.5, 0.5])))
except Exception as e:
    print(type(e).__name__, e)
#%% validation errors
for f in (lambda: D.Normal(torch.tensor([0.]), torch.tensor([-1.])), lambda: D.Bernoulli(probs=torch.tensor(1.5)), lambda: D.Categorical(probs=torch.tensor([0.5, -0.1])), lambda: D.Normal(0., 1.).log_prob(torch.tensor([1, 2])), lambda: D.Bernoulli(0.5).log_prob(torch.tensor(0.5)), lambda: D.Bernoulli(probs=0.5, logits=0.)):
    try:
        f()
        print('ok')
    except Exception as e:
        print(type(e).__name__, str(e)[:200])
#%% bernoulli binomial poisson
b = D.Bernoulli(logits=torch.tensor([0., 2.]))
print(r(b.probs), r(b.entropy()), r(b.log_prob(torch.tensor([1., 0.]))), b.sample((2,)).shape, r(b.variance))
bi = D.Binomial(10, probs=torch.tensor([0.2, 0.5]))
print(r(bi.log_prob(torch.tensor([2., 5.]))), r(bi.mean), r(bi.variance), bi.sample().shape)
po = D.Poisson(torch.tensor([1., 4.]))
print(r(po.log_prob(torch.tensor([0., 3.]))), po.sample((3,)).shape)
#%% uniform beta gamma
u = D.Uniform(torch.tensor([0., 1.]), torch.tensor([2., 3.]))
print(r(u.log_prob(torch.tensor([1., 2.]))), r(u.entropy()), r(u.cdf(torch.tensor([0.5, 2.5]))), r(u.mean), r(u.stddev))
try:
    u.log_prob(torch.tensor([5., 2.]))
except Exception as e:
    print(type(e).__name__, str(e)[:150])
g = D.Gamma(torch.tensor([2.0]), torch.tensor([3.0]))
print(r(g.log_prob(torch.tensor([0.5]))), r(g.entropy()), r(g.mean), r(g.variance))
be = D.Beta(torch.tensor([2.0]), torch.tensor([5.0]))
print(r(be.log_prob(torch.tensor([0.3]))), r(be.entropy()), r(be.mean))
#%% transformed distribution
base = D.Normal(torch.zeros(2), torch.ones(2))
ln = D.TransformedDistribution(base, [D.transforms.ExpTransform()])
print(r(ln.log_prob(torch.tensor([1., 2.]))), r(D.LogNormal(torch.zeros(2), torch.ones(2)).log_prob(torch.tensor([1., 2.]))))
t = D.transforms.AffineTransform(loc=1., scale=2.)
print(t(torch.tensor([1.])), t.inv(torch.tensor([3.])), r(t.log_abs_det_jacobian(torch.tensor([0.]), torch.tensor([1.]))))
st = D.transforms.SigmoidTransform()
print(r(st(torch.tensor([0., 2.]))), r(st.inv(torch.tensor([0.5]))))
#%% onehot and relaxed
oh = D.OneHotCategorical(probs=torch.tensor([0.2, 0.8]))
print(oh.sample((3,)).shape, r(oh.log_prob(torch.tensor([0., 1.]))), r(oh.entropy()))
rel = D.RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.3, 0.7]))
s = rel.rsample((2,))
print(s.shape, r(s.sum(-1)))
#%% mixture same family
mix = D.Categorical(torch.tensor([0.3, 0.7]))
comp = D.Normal(torch.tensor([-1., 2.]), torch.tensor([0.5, 1.]))
gmm = D.MixtureSameFamily(mix, comp)
print(r(gmm.log_prob(torch.tensor([0., 1.5]))), r(gmm.mean), r(gmm.variance), gmm.sample((4,)).shape)
#%% distribution repr and expand
n = D.Normal(torch.zeros(2), torch.ones(2))
print(n, D.Categorical(probs=torch.tensor([0.5, 0.5])), D.Bernoulli(torch.tensor([0.3])))
e = n.expand((3, 2))
print(e.batch_shape, e.sample().shape)
print(D.Normal(0., 1.).sample().shape, D.Normal(0., 1.).batch_shape)
#%% laplace cauchy studentT
for d in (D.Laplace(0., 2.), D.Cauchy(1., 0.5), D.StudentT(3.), D.HalfNormal(1.), D.Gumbel(0., 1.), D.Exponential(2.), D.Geometric(0.3), D.Chi2(4.)):
    x = torch.tensor(0.7)
    print(type(d).__name__, r(d.log_prob(x)), r(d.entropy()) if type(d).__name__ != 'Geometric' else r(d.entropy()))
#%% distributions sample reproducible
torch.manual_seed(42)
print(r(D.Normal(0., 1.).sample((3,))), r(D.Uniform(0., 1.).sample((2,))), D.Bernoulli(0.5).sample((4,)), D.Categorical(logits=torch.zeros(4)).sample((5,)))
print(r(D.Gamma(2., 1.).sample((2,))), r(D.Beta(2., 2.).sample((2,))), D.Poisson(3.).sample((3,)))
#%% lowrank and wishart
lr = D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(3))
print(r(lr.log_prob(torch.zeros(3))), r(lr.entropy()), r(lr.covariance_matrix))
