import torch
import torch.distributions as D
#%% sample shapes with batch and event
d = D.Normal(torch.zeros(3), torch.ones(3))
print(d.sample().shape, d.sample((2,)).shape, d.sample((4, 5)).shape, d.batch_shape, d.event_shape)
mv = D.MultivariateNormal(torch.zeros(2, 3), torch.eye(3))
print(mv.sample((5,)).shape, mv.batch_shape, mv.event_shape, mv.log_prob(torch.zeros(2, 3)).shape)
ind = D.Independent(D.Normal(torch.zeros(4, 3), torch.ones(4, 3)), 1)
print(ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(4, 3)).shape, ind)
c = D.Categorical(logits=torch.zeros(2, 5))
print(c.sample((3,)).shape, c.sample().dtype, c.batch_shape, c.event_shape, c.param_shape)
oh = D.OneHotCategorical(probs=torch.tensor([0.2, 0.8]))
print(oh.sample((2,)).shape, oh.event_shape)
#%% seeded samples values
torch.manual_seed(3)
print(D.Normal(0.0, 1.0).sample((3,)))
print(D.Bernoulli(probs=0.3).sample((5,)))
print(D.Categorical(probs=torch.tensor([0.1, 0.2, 0.7])).sample((6,)))
print(D.Uniform(-1.0, 2.0).sample((3,)))
print(D.Exponential(2.0).sample((3,)))
print(D.Laplace(0.0, 1.0).sample((2,)))
print(D.Gumbel(0.0, 1.0).sample((2,)))
print(D.Cauchy(0.0, 1.0).sample((2,)))
print(D.LogNormal(0.0, 0.5).sample((2,)))
print(D.Geometric(probs=0.3).sample((4,)))
#%% seeded gamma family samples
torch.manual_seed(5)
print(D.Gamma(2.0, 3.0).sample((3,)))
print(D.Beta(2.0, 5.0).sample((3,)))
print(D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample((2,)))
print(D.Chi2(3.0).sample((2,)))
print(D.StudentT(4.0).sample((2,)))
print(D.Poisson(3.0).sample((5,)))
print(D.Binomial(10, probs=torch.tensor([0.2, 0.9])).sample((2,)))
#%% log_prob values
x = torch.tensor([0.5, 1.5, 3.0])
for d in [D.Normal(1.0, 2.0), D.Laplace(1.0, 2.0), D.Gamma(2.0, 1.5), D.Exponential(0.7), D.LogNormal(0.2, 0.9),
          D.Cauchy(0.0, 1.0), D.StudentT(3.0, 1.0, 2.0), D.HalfNormal(1.5), D.Chi2(2.5), D.Weibull(1.5, 2.0),
          D.Pareto(0.4, 2.0), D.Gumbel(1.0, 2.0), D.HalfCauchy(1.0), D.InverseGamma(2.0, 1.0) if hasattr(D, "InverseGamma") else D.Normal(0., 1.)]:
    print(type(d).__name__, d.log_prob(x))
#%% discrete log_prob
print(D.Poisson(torch.tensor([1.0, 4.0])).log_prob(torch.tensor([[0.0, 2.0], [3.0, 4.0]])))
print(D.Binomial(5, torch.tensor(0.3)).log_prob(torch.arange(6.0)))
print(D.NegativeBinomial(3, probs=torch.tensor(0.4)).log_prob(torch.arange(4.0)))
print(D.Geometric(torch.tensor(0.25)).log_prob(torch.arange(3.0)))
print(D.Categorical(logits=torch.tensor([1.0, 2.0, 3.0])).log_prob(torch.tensor([0, 2, 1])))
print(D.Multinomial(4, probs=torch.tensor([0.2, 0.3, 0.5])).log_prob(torch.tensor([1.0, 1.0, 2.0])))
print(D.Bernoulli(logits=torch.tensor([-1.0, 0.0, 2.0])).log_prob(torch.tensor([1.0, 0.0, 1.0])))
#%% entropy mean variance
for d in [D.Normal(1.0, 2.0), D.Uniform(0.0, 3.0), D.Exponential(2.0), D.Gamma(3.0, 2.0), D.Beta(2.0, 3.0),
          D.Laplace(0.0, 2.0), D.Bernoulli(0.3), D.Categorical(torch.tensor([0.2, 0.3, 0.5])), D.Geometric(0.3),
          D.Poisson(2.5), D.Dirichlet(torch.tensor([1.0, 2.0])), D.MultivariateNormal(torch.zeros(2), torch.tensor([[2.0, 0.5], [0.5, 1.0]]))]:
    try:
        ent = d.entropy()
    except NotImplementedError:
        ent = "n/a"
    print(type(d).__name__, d.mean, d.variance, ent)
#%% rsample gradients
torch.manual_seed(0)
mu = torch.tensor([0.5, -1.0], requires_grad=True)
sd = torch.tensor([1.0, 2.0], requires_grad=True)
z = D.Normal(mu, sd).rsample((4,))
(z ** 2).mean().backward()
print(mu.grad, sd.grad)
a = torch.tensor(2.0, requires_grad=True)
torch.manual_seed(1)
g = D.Gamma(a, torch.tensor(1.0)).rsample((3,))
g.sum().backward()
print(g, round(a.grad.item(), 3))  # torch's dx/da approximation vs numtorch's exact one (report)
try:
    D.Bernoulli(0.5).rsample()
except NotImplementedError as e:
    print("NotImplementedError", e)
print(D.Normal(0.0, 1.0).has_rsample, D.Categorical(torch.ones(2)).has_rsample, D.Beta(1.0, 1.0).has_rsample)
#%% relaxed and gumbel softmax rsample
torch.manual_seed(2)
logits = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
r = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=logits).rsample()
(r * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(r, logits.grad)
rb = D.RelaxedBernoulli(torch.tensor(0.3), probs=torch.tensor([0.2, 0.9])).rsample((2,))
print(rb)
#%% kl_divergence pairs
pairs = [(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)), (D.Bernoulli(0.3), D.Bernoulli(0.6)),
         (D.Categorical(torch.tensor([0.2, 0.8])), D.Categorical(torch.tensor([0.5, 0.5]))),
         (D.Gamma(2.0, 1.0), D.Gamma(3.0, 2.0)), (D.Beta(2.0, 2.0), D.Beta(1.0, 3.0)),
         (D.Exponential(1.0), D.Exponential(3.0)), (D.Uniform(0.0, 1.0), D.Uniform(-1.0, 2.0)),
         (D.Laplace(0.0, 1.0), D.Laplace(1.0, 1.0)), (D.Poisson(2.0), D.Poisson(3.0)),
         (D.Dirichlet(torch.tensor([1.0, 2.0])), D.Dirichlet(torch.tensor([2.0, 2.0]))),
         (D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.MultivariateNormal(torch.ones(2), 2 * torch.eye(2))),
         (D.Uniform(0.0, 1.0), D.Normal(0.0, 1.0)), (D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0)),
         (D.Independent(D.Normal(torch.zeros(3), 1.0), 1), D.Independent(D.Normal(torch.ones(3), 1.0), 1))]
for p, q in pairs:
    print(type(p).__name__, type(q).__name__, D.kl_divergence(p, q))
try:
    D.kl_divergence(D.Beta(1.0, 1.0), D.Poisson(1.0))
except NotImplementedError as e:
    print("NotImplementedError", e)
#%% register_kl custom
class MyNormal(D.Normal):
    pass
@D.register_kl(MyNormal, D.Normal)
def _kl(p, q):
    return torch.tensor(42.0)
print(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)), D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0)))
#%% validation errors
for make in [lambda: D.Normal(0.0, -1.0), lambda: D.Bernoulli(probs=1.5), lambda: D.Categorical(torch.tensor([-0.1, 1.0])),
             lambda: D.Normal(0.0, 1.0).log_prob(torch.tensor([[1.0], [2.0]])).shape,
             lambda: D.Bernoulli(0.5).log_prob(torch.tensor(0.5)), lambda: D.Beta(2.0, 2.0).log_prob(torch.tensor(1.5)),
             lambda: D.Categorical(torch.ones(3)).log_prob(torch.tensor(3)), lambda: D.Bernoulli(),
             lambda: D.Bernoulli(probs=0.3, logits=0.1), lambda: D.Uniform(1.0, 0.0)]:
    try:
        print(make())
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
#%% expand and batch broadcasting
d = D.Normal(torch.tensor([0.0, 1.0]), 1.0)
e = d.expand((3, 2))
print(e.batch_shape, e.sample().shape, e.log_prob(torch.zeros(3, 2)).shape, e.loc.shape)
try:
    d.expand((3,))
except (RuntimeError, ValueError) as err:
    print(type(err).__name__, err)
print(D.Normal(torch.zeros(2, 1), torch.ones(3)).batch_shape)
print(D.Bernoulli(torch.tensor([0.1, 0.9])).expand(torch.Size([4, 2])).sample().shape)
#%% transformed distributions
base = D.Normal(0.0, 1.0)
td = D.TransformedDistribution(base, [D.transforms.AffineTransform(1.0, 2.0), D.transforms.ExpTransform()])
x = torch.tensor([0.5, 2.0, 7.0])
print(td.log_prob(x), D.LogNormal(1.0, 2.0).log_prob(x))
sig = D.TransformedDistribution(D.Uniform(0.0, 1.0), [D.transforms.SigmoidTransform().inv])
print(sig.log_prob(torch.tensor([0.0, 1.0])))
t = D.transforms.StickBreakingTransform()
y = t(torch.tensor([0.1, -0.3]))
print(y, t.inv(y), t.log_abs_det_jacobian(torch.tensor([0.1, -0.3]), y))
print(D.transforms.TanhTransform()(torch.tensor(0.5)), D.transforms.PowerTransform(2.0).inv(torch.tensor(9.0)))
#%% constraints and support
print(D.Normal(0.0, 1.0).support, D.Gamma(1.0, 1.0).support, D.Beta(1.0, 1.0).support, D.Categorical(torch.ones(3)).support)
print(D.constraints.positive.check(torch.tensor([-1.0, 0.0, 1.0])), D.constraints.simplex.check(torch.tensor([0.3, 0.7])))
print(D.constraints.interval(0, 2).check(torch.tensor([0.0, 2.0, 2.1])), D.constraints.integer_interval(0, 3).check(torch.tensor([1.5, 3.0])))
print(D.biject_to(D.constraints.positive)(torch.tensor([0.0, 1.0])), D.transform_to(D.constraints.unit_interval)(torch.tensor(0.0)))
#%% reprs of distributions
print(D.Normal(torch.zeros(2), torch.ones(2)))
print(D.Categorical(probs=torch.tensor([0.25, 0.75])))
print(D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2)))
print(D.Bernoulli(logits=torch.tensor(0.0)), D.Gamma(1.0, 2.0), D.Beta(torch.tensor([1.0]), torch.tensor([2.0])))
print(D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), torch.ones(2))))
#%% mixture log_prob and sample
torch.manual_seed(4)
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])), D.Normal(torch.tensor([-2.0, 2.0]), torch.tensor([0.5, 1.0])))
print(mix.log_prob(torch.tensor([-2.0, 0.0, 2.0])), mix.sample((4,)), mix.mean, mix.variance)
gmm = D.MixtureSameFamily(D.Categorical(torch.ones(3)), D.Independent(D.Normal(torch.randn(3, 2), torch.ones(3, 2)), 1))
print(gmm.log_prob(torch.zeros(2)), gmm.batch_shape, gmm.event_shape, gmm.sample((2,)).shape)
#%% lowrank mvn and wishart-like
torch.manual_seed(6)
lr = D.LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.0], [0.5], [0.0]]), torch.ones(3))
print(lr.log_prob(torch.tensor([0.1, 0.2, 0.3])), lr.covariance_matrix, lr.entropy())
mvn = D.MultivariateNormal(torch.zeros(3), covariance_matrix=lr.covariance_matrix)
print(mvn.log_prob(torch.tensor([0.1, 0.2, 0.3])), mvn.precision_matrix + 0.0)  # LAPACK potri's -0. (report)
print(mvn.rsample((2,)))
#%% continuous bernoulli and von mises
cb = D.ContinuousBernoulli(probs=torch.tensor([0.2, 0.5, 0.8]))
print(cb.log_prob(torch.tensor([0.3, 0.3, 0.3])), cb.mean, cb.entropy())
vm = D.VonMises(torch.tensor(0.0), torch.tensor(2.0))
print(vm.log_prob(torch.tensor([0.0, 1.0, 3.0])), vm.mean, vm.variance)
torch.manual_seed(7)
print(vm.sample((3,)))
#%% cdf and icdf
n = D.Normal(1.0, 2.0)
print(n.cdf(torch.tensor([1.0, 3.0])), n.icdf(torch.tensor([0.5, 0.975])))
print(D.Exponential(2.0).cdf(torch.tensor(1.0)), D.Uniform(0.0, 4.0).icdf(torch.tensor(0.25)), D.Laplace(0.0, 1.0).cdf(torch.tensor(-1.0)))
print(D.Cauchy(0.0, 1.0).icdf(torch.tensor(0.75)), D.Gumbel(0.0, 1.0).cdf(torch.tensor(0.0)) if hasattr(D.Gumbel, "cdf") else None)
try:
    D.Gamma(1.0, 1.0).icdf(torch.tensor(0.5))
except NotImplementedError as e:
    print("NotImplementedError", e)
