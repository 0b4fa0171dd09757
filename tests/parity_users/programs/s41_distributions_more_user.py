import torch
from torch import distributions as D
#%% reprs of distributions
print(D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), D.Bernoulli(probs=torch.tensor(0.25)), D.Categorical(probs=torch.tensor([0.5, 0.5])))
print(D.Uniform(0.0, 1.0), D.Beta(torch.tensor(1.0), torch.tensor(2.0)), D.Dirichlet(torch.ones(3)), D.OneHotCategorical(logits=torch.zeros(2)))
#%% sample shapes with batch and event dims
torch.manual_seed(0)
d = D.Dirichlet(torch.ones(2, 3))
print(d.batch_shape, d.event_shape, d.sample((4,)).shape, d.log_prob(torch.full((2, 3), 1 / 3)))
c = D.Categorical(logits=torch.zeros(2, 5))
print(c.sample((3,)).shape, c.probs, c.entropy(), c.enumerate_support().shape)
mn = D.Multinomial(10, probs=torch.tensor([0.2, 0.8]))
print(mn.sample().sum(), mn.log_prob(torch.tensor([2.0, 8.0])), D.Binomial(5, torch.tensor(0.5)).log_prob(torch.tensor(2.0)))
#%% transformed distributions and cdf/icdf
ln = D.LogNormal(0.0, 1.0)
print(ln.log_prob(torch.tensor(1.0)), ln.mean, D.Normal(0.0, 1.0).cdf(torch.tensor(0.0)), D.Normal(0.0, 1.0).icdf(torch.tensor(0.975)))
td = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])
print(td.log_prob(torch.tensor(2.0)), D.Normal(0.0, 1.0).log_prob(torch.tensor([0.0, 1.0, 2.0])))
try:
    D.Normal(0.0, 1.0).log_prob(torch.tensor([1.0]) if False else "x")
except Exception as e:
    print(type(e).__name__, str(e)[:100])
