import torch
import torch.distributions as D


def show(d, value=None, n=(2,)):
    print(type(d).__name__, tuple(d.batch_shape), tuple(d.event_shape))
    s = d.sample(n)
    print(" sample", tuple(s.shape), s.dtype)
    v = s if value is None else value
    lp = d.log_prob(v)
    print(" log_prob", tuple(lp.shape), lp.round(decimals=4))
    try:
        print(" entropy", d.entropy().round(decimals=4))
    except NotImplementedError as e:
        print(" entropy NotImplementedError", e)
#%% normal broadcast loc scale value
d = D.Normal(torch.zeros(3, 1), torch.tensor([1.0, 2.0]))
show(d)
print(d.log_prob(torch.tensor(0.5)).shape, d.log_prob(torch.zeros(4, 1, 1)).shape)
try:
    d.log_prob(torch.zeros(4, 3))
except (ValueError, RuntimeError) as e:
    print(type(e).__name__, e)
print(d.cdf(torch.tensor([[0.5], [1.0], [-1.0]])).round(decimals=4))
print(d.expand((5, 3, 2)).batch_shape, d.mean.shape, d.stddev)
#%% python scalars and tensors mixed
for d in [D.Normal(0.0, torch.tensor([1.0, 2.0])), D.Uniform(torch.tensor([0.0, 1.0]), 3.0),
          D.Gamma(torch.tensor([[1.0], [2.0]]), torch.tensor([1.0, 3.0, 0.5])), D.Beta(2.0, torch.ones(2, 2)),
          D.Laplace(torch.tensor(0.0), 2.0), D.Exponential(torch.tensor([0.5, 1.0, 2.0])), D.Cauchy(0.0, 1.0)]:
    show(d)
print(D.Normal(0.0, 1.0).batch_shape, D.Normal(0.0, 1.0).sample().dtype, D.Normal(0, 1).mean)
#%% discrete broadcast
for d in [D.Bernoulli(probs=torch.tensor([[0.2], [0.7]]) * torch.ones(2, 3)), D.Binomial(torch.tensor([[5.0], [10.0]]), torch.tensor([0.1, 0.5, 0.9])),
          D.Geometric(probs=torch.tensor([0.3, 0.6])), D.Poisson(torch.tensor([[1.0, 4.0]])), D.NegativeBinomial(torch.tensor([3.0, 4.0]), logits=torch.tensor(0.2))]:
    show(d, n=(3,))
c = D.Categorical(logits=torch.randn(2, 3, 4))
show(c)
print(c.log_prob(torch.tensor([0, 3, 1])).shape, c.enumerate_support().shape, c.enumerate_support(expand=False).shape)
print(D.Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support().tolist())
#%% multivariate broadcasting
loc = torch.zeros(4, 1, 3)
cov = torch.eye(3) * torch.tensor([1.0, 2.0]).view(2, 1, 1)
mvn = D.MultivariateNormal(loc, covariance_matrix=cov)
show(mvn)
print(mvn.log_prob(torch.zeros(3)).shape, mvn.scale_tril.shape, mvn.covariance_matrix.shape)
try:
    D.MultivariateNormal(torch.zeros(3), covariance_matrix=torch.eye(2))
except (ValueError, RuntimeError) as e:
    print(type(e).__name__, e)
try:
    D.MultivariateNormal(torch.zeros(()), torch.eye(1))
except ValueError as e:
    print(e)
m = D.Multinomial(10, probs=torch.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]))
show(m)
dir_ = D.Dirichlet(torch.tensor([[1.0, 2.0, 3.0]]).expand(2, 3))
show(dir_)
print(D.OneHotCategorical(logits=torch.zeros(2, 4)).sample((2,)).shape)
#%% independent and transformed
base = D.Normal(torch.zeros(2, 3), torch.ones(2, 3))
ind = D.Independent(base, 1)
show(ind)
print(ind)
try:
    D.Independent(base, 3)
except ValueError as e:
    print(e)
t = D.TransformedDistribution(base, [D.transforms.ExpTransform(), D.transforms.AffineTransform(1.0, torch.tensor([2.0, 3.0, 4.0]))])
show(t)
print(t.cdf(torch.tensor(2.5)).round(decimals=4), t.icdf(torch.tensor(0.3)).round(decimals=4))
ln = D.LogNormal(torch.tensor([0.0, 1.0]), 0.5)
print(ln.mean.round(decimals=4), ln.variance.round(decimals=4), ln.entropy().round(decimals=4), ln.support)
st = D.TransformedDistribution(D.Normal(torch.zeros(3), 1.0), D.transforms.StickBreakingTransform())
print(st.event_shape, st.sample((2,)).sum(-1).round(decimals=4), st.log_prob(torch.tensor([0.2, 0.3, 0.1, 0.4])).round(decimals=4))
#%% kl across broadcast shapes
p = D.Normal(torch.zeros(3, 1), torch.ones(1, 2))
q = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([[2.0], [1.0], [0.5]]))
print(D.kl_divergence(p, q).round(decimals=4))
# (torch's Bernoulli kl fails with an IndexError when the probs shapes differ: a torch defect)
print(D.kl_divergence(D.Bernoulli(torch.tensor([[0.2, 0.5]])), D.Bernoulli(torch.tensor([[0.3, 0.9]]))).round(decimals=4))
print(D.kl_divergence(D.Categorical(logits=torch.zeros(2, 3)), D.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))).round(decimals=4))
print(D.kl_divergence(D.Gamma(torch.tensor([1.0, 2.0]), 1.0), D.Gamma(2.0, torch.tensor([[1.0], [3.0]]))).round(decimals=4))
a = D.MultivariateNormal(torch.zeros(2, 3), torch.eye(3))
b = D.MultivariateNormal(torch.ones(3), torch.eye(3) * 2)
print(D.kl_divergence(a, b).round(decimals=4))
print(D.kl_divergence(D.Independent(D.Normal(torch.zeros(2, 3), 1.0), 1), D.Independent(D.Normal(torch.ones(3), 2.0), 1)).round(decimals=4))
print(D.kl_divergence(D.Uniform(0.0, torch.tensor([1.0, 2.0])), D.Uniform(-1.0, 3.0)).round(decimals=4), D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(0.0, 1.0)))
try:
    D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))
except NotImplementedError as e:
    print(type(e).__name__, e)
try:
    D.kl_divergence(D.Normal(torch.zeros(2), 1.0), D.Normal(torch.zeros(3), 1.0))
except RuntimeError as e:
    print(e)
#%% validation errors per shape
for make in [lambda: D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, -1.0])),
             lambda: D.Bernoulli(probs=torch.tensor([0.5, 1.5])),
             lambda: D.Categorical(probs=torch.tensor([[0.5, -0.5]])),
             lambda: D.Binomial(torch.tensor([2.5]), torch.tensor([0.5])),
             lambda: D.Bernoulli(probs=0.5, logits=0.0),
             lambda: D.Categorical(torch.tensor(0.5)),
             lambda: D.Normal(torch.zeros(2), 1.0).log_prob(torch.tensor([1.0, float("nan")])),
             lambda: D.Poisson(torch.tensor([1.0])).log_prob(torch.tensor([1.5])),
             lambda: D.Dirichlet(torch.tensor([1.0, 2.0])).log_prob(torch.tensor([0.5, 0.6])),
             lambda: D.Uniform(torch.tensor([1.0]), torch.tensor([0.0])),
             lambda: D.Beta(torch.tensor([1.0]), torch.tensor([1.0])).log_prob(torch.tensor([1.5]))]:
    try:
        r = make()
        print("ok", r)
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, str(e)[:200])
#%% rsample gradients through broadcast
loc = torch.tensor([0.5, -0.5], requires_grad=True)
scale = torch.tensor([[1.0], [2.0]], requires_grad=True)
d = D.Normal(loc, scale)
x = d.rsample((3,))
print(x.shape)
(x ** 2).sum().backward()
print(loc.grad.round(decimals=4), scale.grad.round(decimals=4))
conc = torch.tensor([1.5, 3.0], requires_grad=True)
e = D.Exponential(conc).rsample((4,))
e.sum().backward()
print(conc.grad.round(decimals=4))
p = torch.tensor([0.2, 0.7], requires_grad=True)
rb = D.RelaxedBernoulli(torch.tensor(0.5), probs=p).rsample((2,))
rb.sum().backward()
print(rb.round(decimals=4), p.grad.round(decimals=4))
logits = torch.zeros(2, 3, requires_grad=True)
rc = D.RelaxedOneHotCategorical(torch.tensor(1.0), logits=logits).rsample()
(rc * torch.arange(3.0)).sum().backward()
print(rc.round(decimals=4), logits.grad.round(decimals=4))
try:
    D.Bernoulli(p).rsample()
except NotImplementedError as e:
    print(e)
print(D.Bernoulli(p).has_rsample, D.Normal(0.0, 1.0).has_rsample, D.Gamma(1.0, 1.0).has_rsample, D.Binomial(3, p).has_enumerate_support)
#%% mixture same family broadcast
mix = D.Categorical(torch.tensor([[0.3, 0.7], [0.5, 0.5]]))
comp = D.Normal(torch.tensor([[-1.0, 1.0], [0.0, 2.0]]), torch.tensor([[1.0, 0.5], [1.0, 1.0]]))
gmm = D.MixtureSameFamily(mix, comp)
show(gmm, n=(3,))
print(gmm.mean.round(decimals=4), gmm.variance.round(decimals=4), gmm.cdf(torch.tensor(0.0)).round(decimals=4))
comp2 = D.Independent(D.Normal(torch.zeros(2, 2, 3), torch.ones(2, 2, 3)), 1)
gmm2 = D.MixtureSameFamily(mix, comp2)
print(gmm2.batch_shape, gmm2.event_shape, gmm2.log_prob(torch.zeros(4, 1, 3)).shape)
try:
    D.MixtureSameFamily(D.Categorical(torch.ones(3)), comp)
except ValueError as e:
    print(e)
#%% distributions reprs and properties
# (no Kumaraswamy: torch's mode is nan for every concentration, a torch defect)
for d in [D.Normal(torch.zeros(2), 1.0), D.Categorical(probs=torch.ones(3) / 3), D.Binomial(5, torch.tensor([0.2, 0.4])),
          D.Gamma(torch.tensor(2.0), torch.tensor(3.0)), D.MultivariateNormal(torch.zeros(2), torch.eye(2)),
          D.StudentT(torch.tensor([3.0, 5.0])), D.Chi2(torch.tensor(4.0)), D.Weibull(1.0, torch.tensor([1.5])), D.Gumbel(0.0, 2.0),
          D.HalfNormal(torch.tensor([1.0, 2.0])), D.HalfCauchy(1.0), D.Pareto(1.0, torch.tensor(3.0)), D.Uniform(0.0, 3.0),
          D.FisherSnedecor(torch.tensor(5.0), torch.tensor(6.0)), D.LogisticNormal(torch.zeros(2), 1.0), D.ContinuousBernoulli(torch.tensor([0.3]))]:
    vals = []
    for attr in ["mean", "mode", "variance"]:
        try:
            vals.append(getattr(d, attr).round(decimals=4))
        except NotImplementedError as e:
            vals.append("NIE")
    print(d, d.support, vals)
