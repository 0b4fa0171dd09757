import torch
from torch import distributions as D


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% less common distributions log_prob entropy
x = torch.tensor([0.3, 1.2, 2.5])
for d in (D.Laplace(0.5, 2.0), D.Cauchy(0.0, 1.5), D.Gumbel(1.0, 2.0), D.HalfNormal(1.5), D.HalfCauchy(2.0), D.LogNormal(0.0, 0.5), D.StudentT(3.0, 0.5, 2.0), D.Weibull(1.5, 2.0), D.Pareto(0.2, 3.0), D.Chi2(3.0), D.Kumaraswamy(2.0, 3.0) if False else D.Gamma(2.0, 3.0), D.InverseGamma(2.0, 3.0), D.FisherSnedecor(3.0, 5.0), D.VonMises(0.5, 2.0), D.LogisticNormal(torch.zeros(2), torch.ones(2)) if False else D.Exponential(2.0)):
    name = type(d).__name__
    try:
        print(name, r(d.log_prob(x)), r(d.entropy()), r(d.mean), r(d.variance), d.support)
    except Exception as e:
        print(name, type(e).__name__, str(e)[:200])
#%% kumaraswamy logistic normal relaxed
k = D.Kumaraswamy(torch.tensor([2.0]), torch.tensor([3.0]))
print(r(k.log_prob(torch.tensor([0.3]))), r(k.mean), r(k.variance), r(k.entropy()))
ln = D.LogisticNormal(torch.zeros(2), torch.ones(2))
print(ln.event_shape, ln.sample().shape, r(ln.log_prob(torch.tensor([0.2, 0.3, 0.5]))))
rb = D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8]))
print(rb.sample((3,)).shape, r(rb.log_prob(torch.tensor([0.3, 0.6]))))
roc = D.RelaxedOneHotCategorical(torch.tensor(0.7), logits=torch.tensor([0., 1., 2.]))
print(roc.sample().shape, r(roc.log_prob(torch.tensor([0.2, 0.3, 0.5]))))
cb = D.ContinuousBernoulli(probs=torch.tensor([0.2, 0.5, 0.9]))
print(r(cb.log_prob(torch.tensor([0.3, 0.5, 0.1]))), r(cb.mean), r(cb.variance), r(cb.entropy()))
#%% discrete
g = D.Geometric(probs=torch.tensor([0.3, 0.9]))
print(r(g.log_prob(torch.tensor([2., 0.]))), r(g.mean), r(g.entropy()), r(g.variance))
nb = D.NegativeBinomial(total_count=3., probs=torch.tensor([0.4]))
print(r(nb.log_prob(torch.tensor([2.]))), r(nb.mean), r(nb.variance))
mn = D.Multinomial(5, probs=torch.tensor([0.2, 0.3, 0.5]))
print(r(mn.log_prob(torch.tensor([1., 1., 3.]))), mn.sample((2,)).shape, r(mn.mean), r(mn.variance))
show(lambda: mn.log_prob(torch.tensor([1., 1., 2.])))
show(lambda: mn.entropy())
oh = D.OneHotCategorical(probs=torch.tensor([0.2, 0.8]))
print(r(oh.log_prob(torch.tensor([0., 1.]))), oh.sample((3,)).shape, r(oh.entropy()), oh.enumerate_support())
bi = D.Binomial(total_count=torch.tensor([4., 6.]), logits=torch.tensor([0., 1.]))
print(r(bi.entropy()), bi.enumerate_support().shape if False else '', r(bi.log_prob(torch.tensor([4., 0.]))))
show(lambda: D.Binomial(total_count=torch.tensor([4., 6.]), probs=torch.tensor(0.5)).enumerate_support())
print(D.Binomial(3, probs=torch.tensor([0.5, 0.2])).enumerate_support())
#%% transformed distributions
from torch.distributions import transforms as T
base = D.Normal(torch.zeros(2), torch.ones(2))
td = D.TransformedDistribution(base, [T.AffineTransform(1.0, 2.0), T.ExpTransform()])
x = torch.tensor([0.5, 3.0])
print(r(td.log_prob(x)), td.sample((3,)).shape, td.event_shape, td.batch_shape)
st = D.TransformedDistribution(D.Normal(torch.zeros(3), 1.), [T.StickBreakingTransform()])
print(st.event_shape, r(st.log_prob(torch.tensor([0.1, 0.2, 0.3, 0.4]))))
for t in (T.SigmoidTransform(), T.TanhTransform(), T.SoftmaxTransform(), T.PowerTransform(2.0), T.AbsTransform(), T.SoftplusTransform()):
    y = t(torch.tensor([0.2, 0.7]))
    print(type(t).__name__, r(y), r(t.inv(y)), t.bijective, t.sign if t.bijective and type(t).__name__ != 'SoftmaxTransform' else '')
ct = T.ComposeTransform([T.AffineTransform(0., 3.), T.SigmoidTransform()])
print(r(ct.log_abs_det_jacobian(torch.tensor([0.1]), ct(torch.tensor([0.1])))), ct.inv, T.identity_transform)
print(r(T.CorrCholeskyTransform()(torch.tensor([0.1, 0.2, 0.3]))))
print(r(T.LowerCholeskyTransform()(torch.tensor([[1., 2.], [3., 4.]]))))
#%% mixture same family and lowrank
mix = D.Categorical(torch.tensor([0.3, 0.7]))
comp = D.Normal(torch.tensor([-1., 1.]), torch.tensor([0.5, 2.0]))
gmm = D.MixtureSameFamily(mix, comp)
print(r(gmm.log_prob(torch.tensor([0., 1.5]))), r(gmm.mean), r(gmm.variance), r(gmm.cdf(torch.tensor([0.]))), gmm.sample((4,)).shape)
lr = D.LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.], [0.5], [0.]]), torch.tensor([1., 2., 0.5]))
print(r(lr.log_prob(torch.tensor([0.1, -0.2, 0.3]))), r(lr.entropy()), r(lr.covariance_matrix), r(lr.variance))
mvn = D.MultivariateNormal(torch.zeros(2), precision_matrix=torch.tensor([[2., 0.3], [0.3, 1.]]))
print(r(mvn.covariance_matrix), r(mvn.log_prob(torch.tensor([1., 1.]))))
show(lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1., 2.], [2., 1.]])))
show(lambda: D.MultivariateNormal(torch.zeros(2)))
show(lambda: D.MultivariateNormal(torch.zeros(3), torch.eye(2)))
#%% kl more pairs
pairs = [(D.Laplace(0., 1.), D.Laplace(1., 2.)), (D.Gamma(2., 1.), D.Gamma(3., 2.)), (D.Exponential(1.), D.Exponential(3.)), (D.Poisson(2.), D.Poisson(3.)), (D.Geometric(0.3), D.Geometric(0.5)), (D.Uniform(0., 1.), D.Normal(0., 1.)), (D.Normal(0., 1.), D.Laplace(0., 1.)), (D.Beta(2., 2.), D.Uniform(0., 1.)), (D.Gumbel(0., 1.), D.Gumbel(1., 2.)), (D.Uniform(0., 2.), D.Uniform(0., 1.)), (D.Binomial(5, 0.3), D.Binomial(5, 0.5)), (D.HalfNormal(1.), D.HalfNormal(2.)), (D.OneHotCategorical(torch.tensor([.2, .8])), D.OneHotCategorical(torch.tensor([.5, .5]))), (D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.MultivariateNormal(torch.ones(2), 2 * torch.eye(2))), (D.Pareto(1., 2.), D.Pareto(1., 3.)), (D.ContinuousBernoulli(0.3), D.ContinuousBernoulli(0.6)), (D.Exponential(1.), D.Normal(0., 1.)), (D.Gamma(2., 1.), D.Normal(0., 1.)), (D.Beta(2., 3.), D.Normal(0., 1.)), (D.Laplace(0., 1.), D.Normal(1., 2.))]
for p, q in pairs:
    try:
        print(type(p).__name__, type(q).__name__, r(D.kl_divergence(p, q)))
    except Exception as e:
        print(type(e).__name__, str(e)[:100])
#%% expand and independent
n = D.Normal(torch.tensor(0.), torch.tensor(1.)).expand((2, 3))
print(n.batch_shape, n.sample().shape, n.log_prob(torch.zeros(3)).shape)
ind = D.Independent(D.Bernoulli(torch.full((2, 3), 0.5)), 2)
print(ind.batch_shape, ind.event_shape, r(ind.log_prob(torch.ones(2, 3))), r(ind.entropy()))
show(lambda: D.Independent(D.Normal(torch.zeros(2), 1.), 2))
show(lambda: D.Normal(torch.zeros(2), 1.).expand((3,)))
print(D.Categorical(logits=torch.zeros(2, 3)).expand((4, 2)).batch_shape)
print(D.Dirichlet(torch.ones(3)).expand((2,)).sample().shape)
print(repr(D.Normal(torch.zeros(2), 1.)), repr(D.Categorical(probs=torch.ones(2) / 2)), repr(ind))
#%% sampling reproducibility
torch.manual_seed(0)
print(r(D.Gamma(torch.tensor([0.5, 2.]), 1.).sample((2,))), r(D.Beta(2., 3.).sample((2,))), r(D.Dirichlet(torch.tensor([1., 2.])).sample()))
print(D.Poisson(torch.tensor([3., 100.])).sample((2,)), D.Binomial(10, torch.tensor([0.3])).sample((3,)).flatten())
print(r(D.StudentT(3.).sample((2,))), r(D.Chi2(2.).sample((2,))), r(D.VonMises(0., 1.).sample((2,))))
print(D.Geometric(0.3).sample((3,)), r(D.Laplace(0., 1.).sample((2,))), r(D.Cauchy(0., 1.).sample((2,))), D.Categorical(torch.tensor([0.2, 0.3, 0.5])).sample((5,)))
print(r(D.LKJCholesky(2, 0.5).sample()), r(D.Wishart(torch.tensor(5.), torch.eye(2)).log_prob(torch.eye(2) * 3)))
