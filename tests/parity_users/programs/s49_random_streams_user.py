import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal, Bernoulli, Beta, Dirichlet, Gamma, Uniform, MultivariateNormal

#%% sampling text with temperature, top-k and multinomial
torch.manual_seed(11)
logits = torch.randn(2, 10)
for temp in (0.5, 1.0, 2.0):
    p = F.softmax(logits / temp, dim=-1)
    print(temp, torch.multinomial(p, 1).squeeze(1).tolist(), torch.multinomial(p, 4, replacement=True).tolist())
v, i = torch.topk(logits, 3)
masked = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
print(torch.multinomial(F.softmax(masked, -1), num_samples=5, replacement=True))
print(torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 2))

#%% distributions sample, rsample and log_prob with a seed
torch.manual_seed(12)
print(Categorical(logits=torch.tensor([0.1, 2.0, -1.0])).sample((6,)))
n = Normal(torch.zeros(2), torch.ones(2))
s = n.rsample((3,))
print(s, n.log_prob(s).sum())
print(Bernoulli(probs=torch.tensor([0.3, 0.7])).sample((4,)))
print(Beta(torch.tensor(2.0), torch.tensor(3.0)).sample((3,)))
print(Gamma(torch.tensor([1.5]), torch.tensor([2.0])).sample((2,)))
print(Dirichlet(torch.ones(3)).sample())
print(Uniform(-1.0, 1.0).sample((3,)))
mvn = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 0.5], [0.5, 2.0]]))
print(mvn.sample((2,)), mvn.entropy())

#%% random ops with explicit generators interleaved
g1 = torch.Generator().manual_seed(1)
g2 = torch.Generator().manual_seed(2)
print(torch.rand(3, generator=g1), torch.randn(2, generator=g2), torch.rand(1, generator=g1))
print(torch.randint(0, 100, (5,), generator=g2), torch.randperm(6, generator=g1))
print(torch.empty(4).uniform_(-2, 2, generator=g2), torch.empty(3).exponential_(generator=g1))
print(torch.empty(3).geometric_(0.3, generator=g2), torch.empty(2).log_normal_(generator=g1))
print(torch.empty(5, dtype=torch.long).random_(0, 10, generator=g2), torch.empty(3).cauchy_(generator=g1))
print(torch.normal(torch.zeros(3), torch.arange(1., 4.), generator=g2))
print(torch.bernoulli(torch.full((6,), 0.5), generator=g1))
print(torch.poisson(torch.tensor([1.0, 5.0, 20.0]), generator=g2))

#%% dropout and random data in a training step repeat under the same seed
def step(seed):
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(6, 4)
    y = torch.randint(0, 2, (6,))
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    return round(loss.item(), 5), round(m[0].weight.grad.sum().item(), 5)


print(step(0) == step(0), step(0), step(1))

#%% fork_rng, get/set state and initial_seed
torch.manual_seed(21)
state = torch.get_rng_state()
a = torch.rand(2)
with torch.random.fork_rng():
    torch.manual_seed(0)
    inner = torch.rand(2)
b = torch.rand(2)
torch.set_rng_state(state)
print(torch.equal(a, torch.rand(2)), torch.equal(b, torch.rand(2)), inner, torch.initial_seed())
g = torch.Generator()
print(g.initial_seed() == 67280421310721, g.seed() == g.initial_seed())
g.set_state(torch.Generator().manual_seed(5).get_state())
print(torch.rand(1, generator=g), torch.rand(1, generator=torch.Generator().manual_seed(5)))

#%% random dtype variants
torch.manual_seed(31)
print(torch.rand(3, dtype=torch.float64), torch.randn(2, dtype=torch.float16), torch.rand(2, dtype=torch.bfloat16))
print(torch.randint(-5, 5, (4,), dtype=torch.int8), torch.randint(2, (3,), dtype=torch.bool))
print(torch.randn(2, dtype=torch.complex64))
print(torch.rand_like(torch.ones(2, 2)), torch.randint_like(torch.ones(3), 10), torch.randn_like(torch.ones(2, dtype=torch.float64)))

#%% weight init is reproducible and matches a manual seed
torch.manual_seed(41)
lin = nn.Linear(3, 2)
conv = nn.Conv2d(1, 2, 2)
emb = nn.Embedding(4, 2)
print(lin.weight, conv.bias, emb.weight[0])
w = torch.empty(2, 3)
nn.init.xavier_normal_(w); print(w)
nn.init.kaiming_uniform_(w, a=0.1, mode="fan_out", nonlinearity="leaky_relu"); print(w)
nn.init.trunc_normal_(w, std=0.5, a=-0.5, b=0.5); print(w)
nn.init.orthogonal_(w); print(w)
nn.init.sparse_(w, sparsity=0.5); print(w)
