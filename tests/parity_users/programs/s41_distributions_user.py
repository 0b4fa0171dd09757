import torch
from torch import distributions as D
#%% sample shapes and batch/event shapes
torch.manual_seed(0)
n = D.Normal(torch.zeros(3), torch.ones(3))
print(n.sample().shape, n.sample((2,)).shape, n.batch_shape, n.event_shape, n)
mvn = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
print(mvn.sample((4,)).shape, mvn.batch_shape, mvn.event_shape, mvn.log_prob(torch.zeros(2)))
ind = D.Independent(n, 1)
print(ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(3)))
#%% log_prob, entropy, mean, variance
for d in (D.Normal(1.0, 2.0), D.Bernoulli(0.3), D.Categorical(torch.tensor([0.2, 0.3, 0.5])), D.Exponential(2.0),
          D.Uniform(0.0, 4.0), D.Beta(2.0, 3.0), D.Gamma(2.0, 1.0), D.Poisson(3.0), D.Laplace(0.0, 1.0)):
    v = d.sample()
    print(type(d).__name__, d.log_prob(torch.tensor(1.0)) if not isinstance(d, D.Categorical) else d.log_prob(torch.tensor(1)), d.entropy() if not isinstance(d, D.Poisson) else "-", d.mean, d.variance)
#%% kl divergences
print(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)), D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.5)))
print(D.kl_divergence(D.Categorical(probs=torch.tensor([0.5, 0.5])), D.Categorical(probs=torch.tensor([0.9, 0.1]))))
try:
    D.kl_divergence(D.Normal(0.0, 1.0), D.Beta(1.0, 1.0))
except NotImplementedError as e:
    print("NotImplementedError", e)
#%% validation errors and rsample
try:
    D.Normal(0.0, -1.0)
except ValueError as e:
    print(e)
try:
    D.Bernoulli(1.5)
except ValueError as e:
    print(e)
mu = torch.tensor(0.5, requires_grad=True)
s = D.Normal(mu, 1.0).rsample((3,))
s.sum().backward()
print(mu.grad, D.Normal(0., 1.).has_rsample, D.Categorical(logits=torch.zeros(3)).has_rsample)
try:
    D.Categorical(logits=torch.zeros(3)).rsample()
except NotImplementedError as e:
    print(type(e).__name__, e)
