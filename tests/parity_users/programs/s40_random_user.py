import torch
#%% seeded sampling reproducibility across functions
torch.manual_seed(123)
a = torch.rand(3), torch.randn(2), torch.randint(0, 10, (4,)), torch.randperm(5), torch.multinomial(torch.tensor([0.1, 0.6, 0.3]), 4, replacement=True)
torch.manual_seed(123)
b = torch.rand(3), torch.randn(2), torch.randint(0, 10, (4,)), torch.randperm(5), torch.multinomial(torch.tensor([0.1, 0.6, 0.3]), 4, replacement=True)
print(all(torch.equal(x, y) for x, y in zip(a, b)), a[2], a[3], a[4])
#%% generators, get/set_rng_state, fork_rng
g = torch.Generator().manual_seed(7)
print(torch.randint(0, 100, (3,), generator=g), g.initial_seed(), torch.randn(2, generator=torch.Generator().manual_seed(7)))
st = torch.get_rng_state()
u = torch.rand(2)
torch.set_rng_state(st)
print(torch.equal(u, torch.rand(2)), st.dtype, st.shape)
with torch.random.fork_rng():
    torch.rand(5)
v = torch.rand(1)
torch.set_rng_state(st); torch.rand(2)
print(torch.equal(v, torch.rand(1)))
#%% in-place random fills and bernoulli / dropout masks
torch.manual_seed(0)
print(torch.empty(3).uniform_(-1, 1), torch.empty(2).normal_(5, 0.1), torch.empty(4).bernoulli_(0.5), torch.empty(3).exponential_())
print(torch.bernoulli(torch.full((4,), 0.3)), torch.normal(torch.zeros(2), torch.ones(2)), torch.empty(3, dtype=torch.int64).random_(0, 5))
print(torch.nn.functional.dropout(torch.ones(6), 0.5), torch.rand(2, 2, dtype=torch.float64))
#%% errors of sampling
try:
    torch.multinomial(torch.tensor([0.0, 0.0]), 1)
except RuntimeError as e:
    print(str(e))
try:
    torch.multinomial(torch.tensor([1.0, 1.0]), 3)
except RuntimeError as e:
    print(str(e))
try:
    torch.randint(5, 2, (2,))
except RuntimeError as e:
    print(str(e))
