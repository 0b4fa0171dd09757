import torch
from torch import distributions as D


def show(f):
    try:
        out = f()
        if isinstance(out, torch.Tensor) and out.is_floating_point():
            out = out.round(decimals=4) + 0.0
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% validation errors users hit
show(lambda: D.Normal(0., -1.))
show(lambda: D.Normal(torch.zeros(2), torch.tensor([1., 0.])))
show(lambda: D.Bernoulli(1.5))
show(lambda: D.Bernoulli(probs=0.3, logits=0.1))
show(lambda: D.Categorical(torch.tensor([0.5, -0.1])))
show(lambda: D.Categorical(probs=torch.tensor([[0.2, 0.8]])).log_prob(torch.tensor([2])))
show(lambda: D.Normal(0., 1.).log_prob(torch.tensor([0.5, 1.0])))
show(lambda: D.Exponential(1.).log_prob(torch.tensor(-1.)))
show(lambda: D.Beta(1., 1.).log_prob(torch.tensor(1.5)))
show(lambda: D.Poisson(2.).log_prob(torch.tensor(1.5)))
show(lambda: D.Uniform(0., 1.).log_prob(torch.tensor(2.)))
show(lambda: D.Uniform(1., 0.))
show(lambda: D.Uniform(0., 1., validate_args=False).log_prob(torch.tensor(2.)))
show(lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1., 2.], [2., 1.]])))
show(lambda: D.MultivariateNormal(torch.zeros(2)))
show(lambda: D.Dirichlet(torch.tensor([1., -1.])))
show(lambda: D.Binomial(5, 0.5).log_prob(torch.tensor(6.)))
show(lambda: D.Gamma(0., 1.))
show(lambda: D.OneHotCategorical(torch.tensor([0.3, 0.7])).sample().dtype)
#%% shapes and properties
n = D.Normal(torch.zeros(3, 2), torch.ones(3, 2))
print(n.batch_shape, n.event_shape, n.sample().shape, n.sample((4,)).shape)
ind = D.Independent(n, 1)
print(ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(3, 2)))
print(D.Categorical(logits=torch.zeros(2, 4)).batch_shape, D.Categorical(logits=torch.zeros(2, 4)).probs)
print(D.Categorical(probs=torch.tensor([1., 3.])).probs, D.Categorical(probs=torch.tensor([1., 3.])).logits)
print(D.Bernoulli(logits=torch.tensor([0., 2.])).probs, D.Bernoulli(probs=torch.tensor([0.25])).logits)
print(D.Normal(1., 2.).cdf(torch.tensor(1.)), D.Normal(1., 2.).icdf(torch.tensor(0.975)))
print(D.Normal(1., 2.).variance, D.Exponential(2.).mean, D.Gamma(2., 3.).variance, D.Beta(2., 2.).mode)
print(D.Categorical(torch.tensor([0.1, 0.9])).entropy(), D.Categorical(torch.tensor([0.1, 0.9])).enumerate_support())
print(D.Normal(0., 1.).has_rsample, D.Categorical(torch.ones(2)).has_rsample, D.Normal(0., 1.).support, D.Beta(1., 1.).support)
print(repr(D.Normal(0., 1.)), repr(D.Categorical(torch.ones(3))), repr(D.Independent(n, 1)))
print(D.Normal(torch.tensor([0.]), 1.).expand([3]).batch_shape)
lp = D.Normal(0., 1.).log_prob(torch.tensor([[0.], [1.]]))
print(lp, lp.shape)
mix = D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])), D.Normal(torch.tensor([-1., 1.]), torch.tensor([0.5, 0.5])))
print(mix.log_prob(torch.tensor([0., 1.])), mix.mean, mix.variance)
td = D.TransformedDistribution(D.Normal(0., 1.), [D.transforms.ExpTransform()])
print(td.log_prob(torch.tensor(2.)), D.LogNormal(0., 1.).log_prob(torch.tensor(2.)))
print(D.kl_divergence(D.Categorical(torch.tensor([0.5, 0.5])), D.Categorical(torch.tensor([0.9, 0.1]))))
print(D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.6)), D.kl_divergence(D.Exponential(1.), D.Exponential(2.)))
show(lambda: D.kl_divergence(D.Normal(0., 1.), D.Exponential(1.)))
#%% reinforce style training
torch.manual_seed(0)
policy = torch.nn.Linear(4, 2)
opt = torch.optim.Adam(policy.parameters(), lr=0.01)
for ep in range(5):
    logits = policy(torch.randn(8, 4))
    m = D.Categorical(logits=logits)
    a = m.sample()
    reward = (a == 1).float()
    loss = -(m.log_prob(a) * (reward - reward.mean())).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(ep, a.tolist(), f"{loss.item():.4f}", f"{m.entropy().mean().item():.4f}")
