import torch
from torch import distributions as D


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0 if isinstance(t, torch.Tensor) else round(t, d)
torch.manual_seed(0)
#%% more families log_prob entropy mean var
x = torch.tensor([0.3, 1.2])
for d in (D.Weibull(torch.tensor(1.5), torch.tensor(2.)), D.Pareto(torch.tensor(0.2), torch.tensor(3.)), D.Kumaraswamy(torch.tensor(2.), torch.tensor(3.)), D.ContinuousBernoulli(probs=torch.tensor(0.3)), D.HalfCauchy(torch.tensor(1.)), D.FisherSnedecor(torch.tensor(3.), torch.tensor(5.)), D.VonMises(torch.tensor(0.5), torch.tensor(2.)), D.LogisticNormal(torch.zeros(1), torch.ones(1)) if False else D.Gumbel(0.5, 2.)):
    xs = x.clamp(max=0.9) if type(d).__name__ in ('Kumaraswamy', 'ContinuousBernoulli') else x + (0.5 if type(d).__name__ == 'Pareto' else 0)
    out = [type(d).__name__, r(d.log_prob(xs))]
    for attr in ('mean', 'variance', 'entropy'):
        try:
            v = getattr(d, attr)
            out.append(r(v() if callable(v) else v))
        except Exception as e:
            out.append(type(e).__name__)
    print(*out)
#%% discrete families
for d, v in ((D.NegativeBinomial(torch.tensor(3.), probs=torch.tensor(0.4)), torch.tensor([0., 2., 5.])), (D.Multinomial(5, probs=torch.tensor([0.2, 0.3, 0.5])), torch.tensor([1., 2., 2.])), (D.Geometric(probs=torch.tensor(0.25)), torch.tensor([0., 3.])), (D.Binomial(torch.tensor([3., 5.]), logits=torch.tensor([0., 1.])), torch.tensor([1., 4.]))):
    print(type(d).__name__, r(d.log_prob(v)), r(d.mean), r(d.variance), d.sample((2,)).shape)
#%% wishart and lkj
w = D.Wishart(df=torch.tensor(4.), covariance_matrix=torch.eye(2))
print(w.batch_shape, w.event_shape, r(w.log_prob(torch.eye(2) * 2)), r(w.mean), r(w.entropy()), w.sample((3,)).shape)
l = D.LKJCholesky(3, concentration=torch.tensor(2.))
s = l.sample()
print(s.shape, r(l.log_prob(torch.eye(3))), torch.allclose(torch.tril(s), s))
#%% transforms compose and inverse
T = D.transforms
t = T.ComposeTransform([T.AffineTransform(0., 2.), T.ExpTransform()])
x = torch.tensor([0.1, -0.3])
y = t(x)
print(r(y), r(t.inv(y)), r(t.log_abs_det_jacobian(x, y)))
sb = T.StickBreakingTransform()
z = sb(torch.tensor([0.5, -1.]))
print(r(z), r(z.sum()), r(sb.inv(z)), r(sb.log_abs_det_jacobian(torch.tensor([0.5, -1.]), z)))
sm = T.SoftmaxTransform()
print(r(sm(torch.tensor([1., 2., 3.]))), T.TanhTransform()(torch.tensor([0.5])), r(T.PowerTransform(torch.tensor(2.))(torch.tensor([3.]))))
print(t, T.ExpTransform().inv, T.identity_transform if hasattr(T, 'identity_transform') else '')
#%% constraints
C = D.constraints
print(C.positive.check(torch.tensor([1., -1., 0.])), C.unit_interval.check(torch.tensor([0., 1., 1.5])), C.simplex.check(torch.tensor([0.3, 0.7])), C.interval(0, 2).check(torch.tensor(2.)), C.integer_interval(0, 3).check(torch.tensor([1., 1.5])), C.lower_cholesky.check(torch.eye(2)), C.positive_definite.check(torch.eye(2)))
print(C.positive, C.real, C.interval(0, 1), C.greater_than(2.), C.boolean, D.Normal(0., 1.).support, D.Beta(1., 1.).arg_constraints)
#%% biject_to and transform_to
x = torch.tensor([-1., 0., 2.])
print(r(D.biject_to(C.positive)(x)), r(D.transform_to(C.unit_interval)(x)), r(D.biject_to(C.interval(-1., 1.))(x)), r(D.transform_to(C.simplex)(x)))
#%% kl more pairs
pairs = [(D.Exponential(torch.tensor(2.)), D.Exponential(torch.tensor(0.5))), (D.Gamma(torch.tensor(2.), torch.tensor(1.)), D.Gamma(torch.tensor(3.), torch.tensor(2.))), (D.Uniform(0., 1.), D.Uniform(-1., 2.)), (D.Uniform(0., 1.), D.Normal(0., 1.)), (D.Poisson(torch.tensor(2.)), D.Poisson(torch.tensor(3.))), (D.Geometric(probs=torch.tensor(0.3)), D.Geometric(probs=torch.tensor(0.5))), (D.Laplace(0., 1.), D.Laplace(1., 2.)), (D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.MultivariateNormal(torch.ones(2), 2 * torch.eye(2))), (D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1), D.Independent(D.Normal(torch.ones(3), torch.ones(3)), 1)), (D.Normal(0., 1.), D.Laplace(0., 1.)), (D.Beta(torch.tensor(2.), torch.tensor(2.)), D.Uniform(0., 1.))]
for p, q in pairs:
    try:
        print(type(p).__name__, type(q).__name__, r(D.kl_divergence(p, q)))
    except Exception as e:
        print(type(p).__name__, type(q).__name__, type(e).__name__, str(e)[:80])
#%% sample shapes with batch broadcasting
d = D.Normal(torch.zeros(3, 1), torch.ones(1, 4))
print(d.batch_shape, d.sample((2,)).shape, d.log_prob(torch.zeros(4)).shape, d.expand((5, 3, 4)).batch_shape)
try:
    d.log_prob(torch.zeros(2, 2))
except Exception as e:
    print(type(e).__name__, str(e)[:120])
c = D.Categorical(logits=torch.zeros(2, 3, 4))
print(c.batch_shape, c.sample((5,)).shape, c.log_prob(torch.zeros(2, 3, dtype=torch.long)).shape, c.enumerate_support(expand=False).shape, c.enumerate_support().shape)
#%% score function and rsample check
p = torch.tensor([0.2, 0.8], requires_grad=True)
c = D.Categorical(probs=p)
torch.manual_seed(3)
s = c.sample((10,))
(c.log_prob(s).sum()).backward()
print(s, r(p.grad))
print(D.Normal(0., 1.).has_rsample, D.Categorical(probs=p).has_rsample, D.Gamma(1., 1.).has_rsample, D.Beta(1., 1.).has_rsample, D.Dirichlet(torch.ones(2)).has_rsample, D.Bernoulli(0.5).has_enumerate_support)
#%% cdf icdf families
for d in (D.Exponential(torch.tensor(2.)), D.Laplace(0., 1.), D.Cauchy(0., 1.), D.Uniform(0., 2.), D.HalfNormal(1.), D.Gumbel(0., 1.) if False else D.Normal(1., 2.)):
    q = torch.tensor([0.1, 0.5, 0.9])
    try:
        print(type(d).__name__, r(d.icdf(q)), r(d.cdf(d.icdf(q))))
    except Exception as e:
        print(type(d).__name__, type(e).__name__, e)
