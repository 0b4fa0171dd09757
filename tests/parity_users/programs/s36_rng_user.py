import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% generator api
g = torch.Generator()
print(type(g.manual_seed(5)).__name__, g.initial_seed(), g.device)
st = g.get_state()
a = torch.rand(3, generator=g)
g.set_state(st)
b = torch.rand(3, generator=g)
print(torch.equal(a, b), st.dtype, st.shape)
show(lambda: g.set_state(torch.zeros(3, dtype=torch.uint8)))
show(lambda: g.set_state([1, 2]))
print(type(torch.manual_seed(3)).__name__, torch.initial_seed())
s0 = torch.get_rng_state()
x1 = torch.randn(2)
torch.set_rng_state(s0)
print(torch.equal(x1, torch.randn(2)))
with torch.random.fork_rng():
    torch.manual_seed(100)
    inner = torch.rand(1)
after = torch.rand(1)
torch.set_rng_state(s0)
torch.randn(2)
print(torch.equal(after, torch.rand(1)))
show(lambda: type(torch.manual_seed(-1)).__name__)
show(lambda: torch.manual_seed(2 ** 64))
show(lambda: torch.manual_seed('a'))
print(torch.Generator().manual_seed(2 ** 63).initial_seed())
#%% sampling functions
g = torch.Generator().manual_seed(7)
print(torch.randint(3, 10, (2, 3), generator=g), torch.randint(5, (2,), generator=g).dtype, torch.randint(0, 2, (2,), dtype=torch.bool, generator=g))
print(torch.randperm(6, generator=g), torch.randperm(4, dtype=torch.float32, generator=g))
print(r(torch.normal(torch.tensor([0., 10.]), torch.tensor([1., 0.1]), generator=g)), r(torch.normal(2., 3., (2,), generator=g)))
print(r(torch.normal(torch.zeros(2, 1), 1., generator=g)), r(torch.normal(0., torch.ones(3), generator=g)))
show(lambda: torch.normal(torch.zeros(2), -torch.ones(2)))
show(lambda: torch.normal(torch.zeros(2), torch.ones(3)))
print(torch.poisson(torch.tensor([0., 1., 50.]), generator=g), torch.bernoulli(torch.tensor([0., 1., 0.5]), generator=g))
print(torch.bernoulli(torch.zeros(3), p=0.7, generator=g) if False else torch.zeros(3).bernoulli_(0.7, generator=g))
show(lambda: torch.bernoulli(torch.tensor([1.5])))
print(torch.multinomial(torch.tensor([0.1, 0., 0.9]), 4, replacement=True, generator=g), torch.multinomial(torch.tensor([[1., 1., 0.], [0., 0., 1.]]), 1, generator=g))
show(lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3))
show(lambda: torch.multinomial(torch.tensor([0., 0.]), 1))
show(lambda: torch.multinomial(torch.tensor([-1., 2.]), 1))
show(lambda: torch.multinomial(torch.tensor([1., 2.]), 0))
show(lambda: torch.multinomial(torch.tensor(1.), 1))
print(torch.multinomial(torch.tensor([1., 0., 1.]), 2, generator=g), torch.multinomial(torch.tensor([float('inf'), 1.]), 1) if False else '')
#%% in-place fills and dtypes
g = torch.Generator().manual_seed(9)
print(torch.empty(3).uniform_(2, 3, generator=g), torch.empty(2, dtype=torch.float64).normal_(5, 0.1, generator=g))
print(torch.empty(3, dtype=torch.int32).random_(0, 5, generator=g), torch.empty(3, dtype=torch.uint8).random_(generator=g))
print(torch.empty(2).exponential_(2., generator=g), torch.empty(3).geometric_(0.5, generator=g), torch.empty(2).cauchy_(generator=g), torch.empty(2).log_normal_(generator=g))
show(lambda: torch.empty(2).uniform_(3, 2))
show(lambda: torch.empty(2, dtype=torch.int64).uniform_())
show(lambda: torch.empty(2).normal_(0, -1))
show(lambda: torch.empty(2).exponential_(-1))
show(lambda: torch.empty(2).geometric_(0))
show(lambda: torch.empty(2, dtype=torch.int8).random_(0, 300))
show(lambda: torch.empty(2, dtype=torch.bool).random_(0, 3))
print(torch.empty(3, dtype=torch.bool).random_(generator=g), torch.empty(2, dtype=torch.float16).random_(0, 10, generator=g))
print(torch.rand(2, dtype=torch.float64, generator=g).dtype, torch.randn(2, 2, generator=g).dtype, torch.rand((), generator=g).shape)
show(lambda: torch.rand(2, dtype=torch.int32))
show(lambda: torch.randn(2, dtype=torch.bool))
print(torch.randn(2, dtype=torch.complex64, generator=g))
