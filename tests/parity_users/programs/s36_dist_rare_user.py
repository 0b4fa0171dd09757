import torch
import torch.distributions as D
import torch.distributions.transforms as T


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% rare transforms
x = torch.tensor([[0.3, -0.2, 1.0], [0.0, 0.5, -1.5]])
for t in [T.StickBreakingTransform(), T.SoftmaxTransform(), T.CorrCholeskyTransform(),
          T.ReshapeTransform((3,), (3, 1)), T.IndependentTransform(T.ExpTransform(), 1),
          T.CumulativeDistributionTransform(D.Normal(0., 1.)), T.SoftplusTransform(), T.AbsTransform(),
          T.LowerCholeskyTransform(), T.PositiveDefiniteTransform()]:
    try:
        inp = x if not isinstance(t, (T.LowerCholeskyTransform, T.PositiveDefiniteTransform)) else x[:, :2]
        y = t(inp)
        print(type(t).__name__, y.shape, r(y))
        try:
            print('  inv', r(t.inv(y)))
            print('  ladj', r(t.log_abs_det_jacobian(inp, y)))
        except Exception as e:
            print('  ', type(e).__name__, str(e)[:120])
        print('  ', t.domain, t.codomain, t.bijective, t.event_dim if hasattr(t, 'event_dim') else '')
    except Exception as e:
        print(type(t).__name__, type(e).__name__, str(e)[:200])
cat = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=1, lengths=[1, 2])
print(r(cat(x)), r(cat.log_abs_det_jacobian(x, cat(x))))
st = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0)
print(r(st(x)), r(st.inv(st(x))))
print(T.ExpTransform() == T.ExpTransform(), T.AffineTransform(1., 2.) == T.AffineTransform(1., 2.), T.ExpTransform().with_cache(1)._cache_size)
print(r(T.ExpTransform().forward_shape(torch.Size([2, 3])) and torch.tensor(1.)), T.ReshapeTransform((6,), (2, 3)).forward_shape((4, 6)), T.ReshapeTransform((6,), (2, 3)).inverse_shape((4, 2, 3)))
show(lambda: T.ReshapeTransform((6,), (2, 2)))
#%% rare distributions
torch.manual_seed(0)
cases = [
    D.LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.], [0.5], [0.]]), torch.ones(3)),
    D.ContinuousBernoulli(torch.tensor([0.2, 0.5, 0.8])),
    D.Kumaraswamy(torch.tensor(2.), torch.tensor(3.)),
    D.StudentT(torch.tensor(3.), torch.tensor(1.), torch.tensor(2.)),
    D.Chi2(torch.tensor([2., 5.])),
    D.HalfCauchy(torch.tensor(1.5)),
    D.HalfNormal(torch.tensor([1., 2.])),
    D.LogisticNormal(torch.zeros(2), torch.ones(2)),
    D.VonMises(torch.tensor(0.5), torch.tensor(2.)),
    D.Weibull(torch.tensor(1.5), torch.tensor(2.)),
    D.Pareto(torch.tensor(1.), torch.tensor(3.)),
    D.FisherSnedecor(torch.tensor(4.), torch.tensor(6.)),
    D.InverseGamma(torch.tensor(3.), torch.tensor(2.)),
    D.GeneralizedPareto(torch.tensor(0.), torch.tensor(1.), torch.tensor(0.2)),
    D.Laplace(torch.tensor(0.), torch.tensor(2.)),
    D.Cauchy(torch.tensor(0.), torch.tensor(1.)),
]
for d in cases:
    name = type(d).__name__
    torch.manual_seed(1)
    try:
        s = d.sample((2,))
        print(name, s.shape, r(d.log_prob(s)))
    except Exception as e:
        print(name, 'sample', type(e).__name__, str(e)[:100])
    for attr in ['mean', 'variance', 'mode', 'stddev']:
        if attr == 'mode' and name == 'Kumaraswamy':
            continue  # torch 2.13's Kumaraswamy mode is NaN where the mode exists (documented)
        try:
            print('  ', attr, r(getattr(d, attr)))
        except Exception as e:
            print('  ', attr, type(e).__name__, str(e).split("'")[-1][:100])
    for meth in ['entropy']:
        try:
            print('  ', meth, r(getattr(d, meth)()))
        except Exception as e:
            print('  ', meth, type(e).__name__, str(e)[:100])
#%% cdf icdf and support
n = D.Normal(torch.tensor(1.), torch.tensor(2.))
print(r(n.cdf(torch.tensor([0., 1., 3.]))), r(n.icdf(torch.tensor([0.1, 0.5]))))
for d in [D.Exponential(torch.tensor(2.)), D.Uniform(torch.tensor(0.), torch.tensor(4.)), D.Laplace(0., 1.), D.Cauchy(0., 1.), D.HalfNormal(1.), D.Gamma(2., 1.), D.Beta(2., 2.), D.Pareto(1., 2.)]:
    for m in ['cdf', 'icdf']:
        try:
            print(type(d).__name__, m, r(getattr(d, m)(torch.tensor([0.3, 1.5]) if m == 'cdf' else torch.tensor([0.25, 0.75]))))
        except Exception as e:
            print(type(d).__name__, m, type(e).__name__, str(e)[:100])
ln = D.LogNormal(torch.tensor(0.), torch.tensor(1.))
print(r(ln.cdf(torch.tensor([1., 2.]))), r(ln.icdf(torch.tensor([0.5]))))
print(D.Uniform(0., 1.).support, D.Categorical(torch.ones(3)).support, D.Dirichlet(torch.ones(2)).support, D.Binomial(5, 0.5).support)
print(D.MultivariateNormal(torch.zeros(2), torch.eye(2)).support, D.OneHotCategorical(torch.ones(3)).support, D.LKJCholesky(3).support)
print(D.Normal.arg_constraints, D.Binomial.arg_constraints)
print(r(D.Categorical(torch.tensor([0.5, 0.5])).perplexity()), r(D.Normal(0., 1.).perplexity()))
#%% expand and repr
n = D.Normal(torch.tensor([0., 1.]), torch.tensor([1., 2.]))
e = n.expand((3, 2))
print(e.batch_shape, e.loc.shape, repr(e))
print(repr(D.Categorical(probs=torch.tensor([0.25, 0.75]))), repr(D.Binomial(3, torch.tensor(0.5))))
print(repr(D.MultivariateNormal(torch.zeros(2), torch.eye(2))), repr(D.Independent(n, 1)))
show(lambda: n.expand((3, 3)))
b = D.Bernoulli(logits=torch.tensor([0., 2.]))
print(r(b.probs), r(b.logits), r(D.Bernoulli(probs=torch.tensor([0.25])).logits))
print(r(D.Categorical(logits=torch.tensor([1., 1., 2.])).logits), r(D.Categorical(probs=torch.tensor([2., 2., 4.])).probs))
lkj = D.LKJCholesky(3, concentration=2.)
L = torch.linalg.cholesky(torch.tensor([[1., 0.3, -0.2], [0.3, 1., 0.4], [-0.2, 0.4, 1.]]))
print(lkj.sample().shape, r(lkj.log_prob(L), 3), lkj.event_shape, lkj.batch_shape)
torch.manual_seed(4)
wi = D.Wishart(torch.tensor(4.), torch.eye(2))
S = wi.sample()
print(S.shape, r(wi.log_prob(S) - wi.log_prob(S), 3), r(wi.mean), r(wi.variance))
