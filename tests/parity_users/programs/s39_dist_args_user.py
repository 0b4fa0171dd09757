import torch
D = torch.distributions


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0][:250])
#%% distributions arguments 0
torch.manual_seed(0)
run([
   lambda: D.Normal(0, 1), lambda: D.Normal(torch.zeros(2), 1).batch_shape, lambda: D.Normal(0, -1), lambda: D.Normal(0, 0), lambda: D.Categorical(torch.tensor([0.2, 0.8])),
   lambda: D.Categorical(logits=torch.zeros(3)).probs, lambda: D.Categorical(torch.tensor([0.5, 0.6])).probs, lambda: D.Categorical(torch.tensor([-0.5, 1.5])),
   lambda: D.Categorical(probs=torch.ones(2), logits=torch.ones(2)), lambda: D.Bernoulli(1.5), lambda: D.Bernoulli(logits=0.).mean, lambda: D.Uniform(1, 0),
])
#%% distributions arguments 1
torch.manual_seed(0)
run([
   lambda: D.Uniform(0, 1).log_prob(torch.tensor(2.)), lambda: D.Normal(0, 1).log_prob(torch.tensor([0., 1.])), lambda: D.Categorical(torch.ones(3)).log_prob(torch.tensor(3)),
   lambda: D.Beta(0.5, 0.5).mean, lambda: D.Dirichlet(torch.ones(3)).event_shape, lambda: D.MultivariateNormal(torch.zeros(2), torch.eye(2) * -1),
   lambda: D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2)).entropy(), lambda: D.Independent(D.Normal(torch.zeros(3), 1), 1), lambda: D.kl_divergence(D.Normal(0, 1), D.Normal(1, 2)),
])
#%% distributions arguments 2
torch.manual_seed(0)
run([
   lambda: D.kl_divergence(D.Normal(0, 1), D.Beta(1, 1)), lambda: D.Normal(0, 1).cdf(torch.tensor(0.)), lambda: D.Normal(0, 1).icdf(torch.tensor(0.975)), lambda: D.Poisson(-1),
   lambda: D.Binomial(5, 0.5).mean, lambda: D.Binomial(5, 1.5), lambda: D.OneHotCategorical(torch.ones(3)).sample().shape, lambda: D.Exponential(0), lambda: D.Gamma(1, 1).variance,
   lambda: D.Normal(0, 1).rsample((2, 3)).shape, lambda: D.Normal(0, 1).sample(2), lambda: D.Normal(0, 1).expand((3,)).batch_shape, lambda: D.Normal(0, 1).support, lambda: D.Categorical(torch.ones(2)).support,
])
#%% distributions arguments 3
torch.manual_seed(0)
run([
   lambda: D.Normal(torch.tensor([0.]), torch.tensor([1., 2.])).batch_shape, lambda: D.Normal(torch.zeros(2), torch.ones(3)), lambda: D.Laplace(0, 1).stddev, lambda: repr(D.TransformedDistribution(D.Normal(0, 1), [D.transforms.ExpTransform()])),
])
