import torch
import torch.distributions as D
def r(t, d=4):
    return torch.round(t, decimals=d) if isinstance(t, torch.Tensor) else t
#%% many dists
dists = [D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), D.Bernoulli(probs=torch.tensor([0.3, 0.9])), D.Categorical(logits=torch.tensor([[0.1, 0.2, 0.7], [1.0, 0.0, -1.0]])),
         D.Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.5])), D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 3.0])), D.Exponential(torch.tensor([0.5, 2.0])),
         D.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0])), D.Poisson(torch.tensor([1.5, 20.0])), D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])),
         D.Cauchy(torch.tensor([0.0]), torch.tensor([1.0])), D.LogNormal(torch.tensor([0.0]), torch.tensor([0.5])), D.Geometric(probs=torch.tensor([0.3])), D.Binomial(10, torch.tensor([0.3, 0.6])),
         D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])), D.MultivariateNormal(torch.zeros(2), torch.tensor([[2.0, 0.5], [0.5, 1.0]])), D.StudentT(torch.tensor([3.0])), D.Gumbel(torch.tensor([0.0]), torch.tensor([2.0])),
         D.HalfNormal(torch.tensor([1.0])), D.Chi2(torch.tensor([3.0])), D.VonMises(torch.tensor([0.0]), torch.tensor([2.0])), D.Weibull(torch.tensor([1.0]), torch.tensor([1.5])),
         D.OneHotCategorical(probs=torch.tensor([0.2, 0.8])), D.Multinomial(5, probs=torch.tensor([0.2, 0.3, 0.5])), D.RelaxedBernoulli(torch.tensor([0.5]), probs=torch.tensor([0.3])),
         D.ContinuousBernoulli(probs=torch.tensor([0.3])), D.FisherSnedecor(torch.tensor([3.0]), torch.tensor([5.0])), D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)),
         D.NegativeBinomial(torch.tensor([3.0]), probs=torch.tensor([0.4])), D.Kumaraswamy(torch.tensor([2.0]), torch.tensor([3.0])), D.Pareto(torch.tensor([1.0]), torch.tensor([2.0]))]
torch.manual_seed(0)
for d in dists:
    s = d.sample((2,))
    try:
        ent = r(d.entropy())
    except NotImplementedError:
        ent = "NI"
    try:
        mv = (r(d.mean), r(d.variance))
    except NotImplementedError:
        mv = "NI"
    print(type(d).__name__, d.batch_shape, d.event_shape, s.shape, r(s), r(d.log_prob(s)), ent, mv, d.has_rsample)
#%% reprs
print(D.Normal(torch.zeros(2), torch.ones(2)))
print(D.Categorical(probs=torch.tensor([0.5, 0.5])))
print(D.MultivariateNormal(torch.zeros(2), torch.eye(2)))
print(D.Independent(D.Normal(torch.zeros(2, 3), 1.0), 1))
#%% validation errors
for f in [lambda: D.Normal(0.0, -1.0), lambda: D.Bernoulli(probs=1.5), lambda: D.Categorical(probs=torch.tensor([-0.1, 1.1])), lambda: D.Normal(torch.zeros(2), torch.ones(2)).log_prob(torch.zeros(3)),
          lambda: D.Bernoulli(0.5).log_prob(torch.tensor(0.5)), lambda: D.Bernoulli(probs=0.2, logits=0.1), lambda: D.Uniform(1.0, 0.0), lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]]))]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% rsample grads
torch.manual_seed(1)
mu = torch.tensor([0.5], requires_grad=True); sd = torch.tensor([2.0], requires_grad=True)
x = D.Normal(mu, sd).rsample((4,))
x.sum().backward(); print(r(x.squeeze()), mu.grad, r(sd.grad))
a = torch.tensor([2.0], requires_grad=True)
g = D.Gamma(a, 1.0).rsample((3,)); g.sum().backward(); print(r(g.squeeze()), r(a.grad))
#%% kl
print(r(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0))), r(D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.6))), r(D.kl_divergence(D.Dirichlet(torch.ones(3)), D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])))))
try:
    D.kl_divergence(D.Normal(0.0, 1.0), D.Beta(1.0, 1.0))
except NotImplementedError as e:
    print("NI", e)
#%% transforms
base = D.Normal(torch.zeros(2), torch.ones(2))
td = D.TransformedDistribution(base, [D.transforms.AffineTransform(1.0, 2.0), D.transforms.ExpTransform()])
torch.manual_seed(2)
s = td.sample((2,)); print(r(s), r(td.log_prob(s)))
t = D.transforms.SigmoidTransform()
print(r(t(torch.tensor([0.0, 2.0]))), r(t.inv(torch.tensor([0.5]))), r(t.log_abs_det_jacobian(torch.tensor([0.0]), t(torch.tensor([0.0])))))
print(D.biject_to(D.constraints.positive)(torch.tensor([0.0])), D.transform_to(D.constraints.simplex)(torch.zeros(2)))
print(D.constraints.positive.check(torch.tensor([-1.0, 1.0])), D.constraints.interval(0, 1))
#%% mixture
torch.manual_seed(3)
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])), D.Normal(torch.tensor([-1.0, 1.0]), torch.tensor([0.5, 0.5])))
s = mix.sample((3,)); print(r(s), r(mix.log_prob(s)), r(mix.mean), r(mix.variance))
#%% enumerate and expand
b = D.Bernoulli(torch.tensor([0.2, 0.7]))
print(b.enumerate_support(), b.expand((3, 2)).batch_shape, D.Categorical(torch.ones(3)).enumerate_support(expand=False))
print(r(D.Normal(0.0, 1.0).cdf(torch.tensor([0.0, 1.0]))), r(D.Normal(0.0, 1.0).icdf(torch.tensor([0.975]))), r(D.Exponential(2.0).cdf(torch.tensor(1.0))))
