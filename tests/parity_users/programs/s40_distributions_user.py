import torch
from torch import distributions as D
#%% log_prob, entropy, sample shapes
torch.manual_seed(0)
n = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n.log_prob(torch.tensor([0.5, 0.5])), n.entropy(), n.sample((3,)).shape, n.rsample().requires_grad)
print(n.batch_shape, n.event_shape, n.mean, n.stddev, n.variance)
c = D.Categorical(logits=torch.tensor([0.0, 1.0, 2.0]))
print(c.probs, c.log_prob(torch.tensor(2)), c.entropy(), c.sample((4,)).shape)
#%% kl divergence and independent
p = D.Normal(0.0, 1.0)
q = D.Normal(1.0, 2.0)
print(D.kl_divergence(p, q), D.kl_divergence(D.Categorical(probs=torch.tensor([0.5, 0.5])), D.Categorical(probs=torch.tensor([0.9, 0.1]))))
ind = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
print(ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(3)))
mvn = D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(mvn.log_prob(torch.tensor([1.0, -1.0])), mvn.entropy(), mvn.scale_tril)
#%% validation errors
try:
    D.Normal(0.0, -1.0)
except ValueError as e:
    print(str(e)[:200])
try:
    D.Categorical(probs=torch.tensor([0.5, 0.5])).log_prob(torch.tensor(3))
except ValueError as e:
    print(str(e)[:200])
try:
    D.Bernoulli(probs=torch.tensor(0.3)).log_prob(torch.tensor(0.5))
except ValueError as e:
    print(str(e)[:200])
#%% reparameterized gradient and other families
mu = torch.tensor(0.5, requires_grad=True)
dist = D.Normal(mu, 1.0)
torch.manual_seed(1)
dist.rsample((5,)).mean().backward()
print(mu.grad)
print(D.Bernoulli(logits=torch.tensor([0.0])).probs, D.Beta(2.0, 3.0).mean, D.Gamma(2.0, 1.0).variance, D.Poisson(3.0).log_prob(torch.tensor(2.0)))
print(D.Uniform(0.0, 2.0).cdf(torch.tensor(0.5)), D.Exponential(2.0).icdf(torch.tensor(0.5)), D.Laplace(0.0, 1.0).entropy())
print(n, c, D.Uniform(0.0, 2.0))
