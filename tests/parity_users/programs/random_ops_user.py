import torch
#%% random tensor methods
torch.manual_seed(0)
print(torch.empty(5).random_(10), torch.empty(3, dtype=torch.int64).random_(), torch.empty(4).random_(2, 6), torch.empty(3, dtype=torch.int8).random_())
print(torch.empty(4).exponential_(2.0), torch.empty(4).geometric_(0.3), torch.empty(3).log_normal_(0.0, 0.5), torch.empty(3).cauchy_())
print(torch.empty(3, dtype=torch.float64).normal_(2, 3), torch.empty(3, dtype=torch.bfloat16).uniform_(-1, 1), torch.empty(18, dtype=torch.float16).normal_())
#%% bernoulli poisson multinomial normal
torch.manual_seed(1)
p = torch.tensor([0.1, 0.5, 0.9, 0.3])
print(torch.bernoulli(p), torch.bernoulli(p.double()), p.bernoulli(0.7), torch.empty(4).bernoulli_(p))
print(torch.poisson(torch.tensor([0.5, 3.0, 12.0, 40.0])), torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 6, replacement=True), torch.multinomial(torch.tensor([[0.2, 0.8, 0.0], [1.0, 1.0, 1.0]]), 2))
print(torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(2.0, 0.5, (2,)), torch.normal(torch.arange(3.0), 1.0), torch.normal(0.0, torch.tensor([1.0, 2.0])))
#%% generators
g = torch.Generator().manual_seed(7)
a = torch.rand(3, generator=g); s = g.get_state(); b = torch.randn(2, generator=g); g.set_state(s); c = torch.randn(2, generator=g)
print(a, torch.equal(b, c), g.initial_seed(), torch.randint(0, 5, (3,), generator=g), torch.randperm(5, generator=g))
torch.manual_seed(3); st = torch.get_rng_state(); x1 = torch.rand(2); torch.set_rng_state(st); print(torch.equal(x1, torch.rand(2)), st.shape, st.dtype)
with torch.random.fork_rng():
    torch.rand(100)
print(torch.rand(1))
#%% half types normal
torch.manual_seed(4)
print(torch.randn(20, dtype=torch.bfloat16), torch.rand(3, dtype=torch.float16), torch.randn(2, 3, dtype=torch.float64))
#%% dropout dtypes
torch.manual_seed(5)
import torch.nn.functional as F
print(F.dropout(torch.ones(6, dtype=torch.float64), 0.3), F.dropout(torch.ones(6, dtype=torch.bfloat16), 0.3), F.dropout(torch.ones(20), 0.1))
d = torch.nn.Dropout(0.5, inplace=True); t = torch.ones(6); d(t); print(t)
