import torch
#%% factories under manual_seed
torch.manual_seed(123)
print(torch.rand(3), torch.randn(2, 2), torch.randint(0, 10, (5,)), torch.randperm(6))
print(torch.randint(3, (2, 2), dtype=torch.int32), torch.rand(2, dtype=torch.float64), torch.randn(2, dtype=torch.float16))
print(torch.rand(2, dtype=torch.bfloat16), torch.randint_like(torch.zeros(3), 5), torch.randn_like(torch.zeros(2)), torch.rand_like(torch.zeros(2, dtype=torch.float64)))
#%% generator objects
g = torch.Generator().manual_seed(7)
a = torch.rand(3, generator=g)
state = g.get_state()
b = torch.rand(3, generator=g)
g.set_state(state)
print(a, torch.equal(b, torch.rand(3, generator=g)), g.initial_seed())
print(torch.randn(2, generator=torch.Generator().manual_seed(7)), torch.randperm(5, generator=torch.Generator().manual_seed(1)))
#%% in-place samplers
torch.manual_seed(0)
print(torch.empty(4).uniform_(-1, 1), torch.empty(3).normal_(2.0, 0.5), torch.empty(3).exponential_(2.0))
print(torch.empty(3).geometric_(0.3), torch.empty(3).log_normal_(0.0, 0.25), torch.empty(3).cauchy_(), torch.empty(5).random_(0, 4), torch.empty(3).bernoulli_(0.5))
print(torch.empty(3, dtype=torch.int64).random_(), torch.empty(2, dtype=torch.int8).random_(-5, 5))
#%% bernoulli multinomial normal poisson
torch.manual_seed(0)
p = torch.tensor([0.1, 0.5, 0.9])
print(torch.bernoulli(p), torch.bernoulli(torch.full((2, 3), 0.5)), torch.bernoulli(p, p=0.2) if False else torch.poisson(torch.tensor([1.0, 5.0, 20.0])))
print(torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 4, replacement=True), torch.multinomial(torch.tensor([[1.0, 0, 3], [0, 1, 1]]), 2))
print(torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(2.0, 3.0, (2,)), torch.normal(torch.tensor([1.0, 10.0]), 0.1))
#%% multinomial errors
for args in [(torch.tensor([0.0, 0.0]), 1), (torch.tensor([1.0, -1.0]), 1), (torch.tensor([1.0, 1.0]), 3), (torch.tensor([[[1.0]]]), 1)]:
    try:
        torch.multinomial(*args)
    except Exception as e:
        print(type(e).__name__, e)
#%% dropout with seed
torch.manual_seed(0)
x = torch.ones(2, 8)
print(torch.nn.functional.dropout(x, 0.5), torch.nn.Dropout(0.25)(x).sum(), torch.nn.functional.dropout1d(torch.ones(1, 3, 4), 0.5))
print(torch.nn.functional.dropout2d(torch.ones(1, 4, 2, 2), 0.5)[0, :, 0, 0], torch.nn.functional.alpha_dropout(x, 0.5, training=True)[0, :4])
print(torch.nn.functional.feature_alpha_dropout(torch.ones(1, 4, 2), 0.5, training=True)[0, :, 0])
#%% distributions sampling
torch.manual_seed(0)
D = torch.distributions
print(D.Normal(0.0, 1.0).sample((3,)), D.Uniform(0.0, 2.0).sample((2,)), D.Bernoulli(0.3).sample((4,)))
print(D.Categorical(torch.tensor([0.1, 0.2, 0.7])).sample((5,)), D.Exponential(2.0).sample((2,)), D.Poisson(3.0).sample((3,)))
print(D.Beta(2.0, 3.0).sample((2,)), D.Gamma(2.0, 1.0).sample((2,)), D.Dirichlet(torch.tensor([1.0, 2.0])).sample())
print(D.MultivariateNormal(torch.zeros(2), torch.eye(2)).sample((2,)), D.Laplace(0.0, 1.0).sample((2,)), D.Geometric(0.4).sample((3,)))
print(D.Binomial(10, torch.tensor(0.3)).sample((3,)), D.OneHotCategorical(torch.tensor([0.5, 0.5])).sample(), D.LogNormal(0.0, 0.5).sample())
#%% rsample gradients
torch.manual_seed(0)
mu = torch.tensor(1.0, requires_grad=True)
sd = torch.tensor(2.0, requires_grad=True)
s = D.Normal(mu, sd).rsample((4,)) if (D := torch.distributions) else None
s.sum().backward()
print(s.detach(), mu.grad, sd.grad)
#%% fork_rng and seed queries
torch.manual_seed(5)
with torch.random.fork_rng():
    torch.rand(10)
print(torch.rand(2), torch.initial_seed())
s = torch.get_rng_state()
x = torch.randn(2)
torch.set_rng_state(s)
print(torch.equal(x, torch.randn(2)), s.dtype, s.shape)
#%% random ops on tensors
torch.manual_seed(0)
x = torch.arange(10)
print(x[torch.randperm(10)], torch.rand(2, 3).argmax(1), torch.randn(100).mean().round(decimals=3), torch.rand(1000).std().round(decimals=2))
