import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if not (t.is_floating_point() or t.is_complex()):
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
import torch.distributions as D
from torch.distributions import constraints
#%% seeded sampling and log_prob
torch.manual_seed(3)
for d in [D.Normal(0., 2.), D.Laplace(1., 0.5), D.Gamma(2., 3.), D.Beta(2., 5.), D.Exponential(1.5),
          D.Poisson(4.), D.Bernoulli(0.3), D.Categorical(torch.tensor([0.2, 0.5, 0.3])), D.Geometric(0.25),
          D.Binomial(10, 0.4), D.Uniform(-1., 3.), D.LogNormal(0., 0.5), D.StudentT(3.), D.Cauchy(0., 1.),
          D.Gumbel(0., 1.), D.HalfNormal(1.), D.Chi2(3.), D.Dirichlet(torch.tensor([1., 2., 3.]))]:
    s = d.sample((2,))
    print(type(d).__name__, r(s), r(d.log_prob(s)), s.dtype)
#%% entropy, mean, variance
for d in [D.Normal(torch.tensor([0., 1.]), torch.tensor([1., 3.])), D.Gamma(torch.tensor([2.]), 3.),
          D.Beta(2., 5.), D.Exponential(1.5), D.Bernoulli(probs=torch.tensor([0.3, 0.9])),
          D.Categorical(logits=torch.tensor([[1., 2., 0.], [0., 0., 0.]])), D.Geometric(0.25),
          D.Uniform(-1., 3.), D.Laplace(0., 2.), D.Dirichlet(torch.tensor([1., 2., 3.])), D.OneHotCategorical(torch.tensor([0.1, 0.9]))]:
    out = []
    for attr in ['mean', 'variance', 'stddev', 'entropy', 'mode']:
        try:
            v = getattr(d, attr)
            v = v() if callable(v) else v
            out.append(r(v))
        except Exception as e:
            out.append(type(e).__name__)
    print(type(d).__name__, d.batch_shape, d.event_shape, out)
#%% rsample gradients
mu = torch.tensor([0.5, -1.0], requires_grad=True)
sd = torch.tensor([1.0, 2.0], requires_grad=True)
torch.manual_seed(5)
s = D.Normal(mu, sd).rsample((3,))
(s ** 2).mean().backward()
print(r(mu.grad), r(sd.grad))
c = torch.tensor([2.0, 3.0], requires_grad=True)
torch.manual_seed(5)
g = D.Gamma(c, 1.0).rsample()
g.sum().backward()
print(r(g), r(c.grad))
a = torch.tensor([1.5, 2.5, 0.7], requires_grad=True)
torch.manual_seed(5)
dd = D.Dirichlet(a).rsample()
(dd * torch.tensor([1., 2., 3.])).sum().backward()
print(r(dd), r(a.grad))
show(lambda: D.Bernoulli(0.5).rsample())
print(D.Normal(0., 1.).has_rsample, D.Poisson(1.).has_rsample, D.Beta(1., 1.).has_rsample)
#%% kl divergence and register_kl
pairs = [(D.Normal(0., 1.), D.Normal(1., 2.)), (D.Bernoulli(0.2), D.Bernoulli(0.7)), (D.Categorical(torch.tensor([0.2, 0.8])), D.Categorical(torch.tensor([0.5, 0.5]))),
         (D.Exponential(1.), D.Gamma(2., 1.)), (D.Uniform(0., 1.), D.Normal(0., 1.)), (D.Beta(2., 3.), D.Beta(1., 1.)),
         (D.Poisson(2.), D.Poisson(3.)), (D.Laplace(0., 1.), D.Laplace(1., 2.)), (D.Normal(0., 1.), D.Uniform(0., 1.))]
for p, q in pairs:
    try:
        print(type(p).__name__, type(q).__name__, r(D.kl_divergence(p, q)))
    except NotImplementedError as e:
        print('NotImplementedError', type(p).__name__, type(q).__name__)
class MyDist(D.Normal):
    pass
@D.register_kl(MyDist, MyDist)
def _kl_my(p, q):
    return torch.tensor(42.)
print(D.kl_divergence(MyDist(0., 1.), MyDist(0., 1.)), r(D.kl_divergence(MyDist(0., 1.), D.Normal(1., 1.))))
mvn1 = D.MultivariateNormal(torch.zeros(2), torch.tensor([[2., 0.5], [0.5, 1.]]))
mvn2 = D.MultivariateNormal(torch.ones(2), scale_tril=torch.tensor([[1., 0.], [0.3, 0.8]]))
print(r(D.kl_divergence(mvn1, mvn2)), r(mvn1.entropy()), r(mvn1.log_prob(torch.tensor([0.5, -0.2]))))
ind = D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
print(ind.batch_shape, ind.event_shape, r(D.kl_divergence(ind, D.Independent(D.Normal(torch.ones(2, 3), 2 * torch.ones(2, 3)), 1))))
#%% validation and support errors
show(lambda: D.Normal(0., -1.))
show(lambda: D.Bernoulli(1.5))
show(lambda: D.Categorical(torch.tensor([-0.1, 1.1])))
show(lambda: D.Normal(0., 1.).log_prob(torch.tensor([1.0])) )
show(lambda: D.Exponential(1.).log_prob(torch.tensor(-1.)))
show(lambda: D.Poisson(2.).log_prob(torch.tensor(1.5)))
show(lambda: D.Normal(0., 1., validate_args=False).scale)
show(lambda: D.Beta(2., 3.).log_prob(torch.tensor(1.5)))
show(lambda: D.Categorical(torch.tensor([0.2, 0.8])).log_prob(torch.tensor(2)))
print(D.Normal(0., 1.).support, D.Gamma(1., 1.).support, D.Categorical(torch.tensor([0.5, 0.5])).support, D.Beta(1., 1.).arg_constraints)
