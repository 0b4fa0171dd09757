import torch


def r(t, d=4):
    return t.round(decimals=d) + 0.0 if t.is_floating_point() else t
#%% in-place samplers dtypes
torch.manual_seed(0)
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
    x = torch.empty(5, dtype=dt)
    print(dt, r(x.uniform_(-1, 2)), r(x.normal_(1, 3)), r(x.exponential_(2.)), r(x.cauchy_()), r(x.log_normal_(0, 0.5)), x.geometric_(0.3), x.random_(0, 7), x.bernoulli_(0.4))
#%% integer random_
torch.manual_seed(1)
for dt in (torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool, torch.int16):
    x = torch.empty(6, dtype=dt)
    print(dt, x.random_(), x.random_(5), x.random_(-3, 3) if dt not in (torch.uint8, torch.bool) else x.random_(1, 2))
print(torch.empty(3, dtype=torch.float32).random_(), torch.empty(3, dtype=torch.float64).random_(2 ** 40))
print(torch.randint(-2 ** 40, 2 ** 40, (3,)), torch.randint(0, 2 ** 33, (2,), dtype=torch.int64), torch.randint(3, (4,), dtype=torch.uint8))
#%% multinomial
torch.manual_seed(2)
p = torch.tensor([0.1, 0.0, 0.5, 0.4])
print(torch.multinomial(p, 3), torch.multinomial(p, 6, replacement=True), torch.multinomial(p.repeat(2, 1), 2))
print(torch.multinomial(torch.tensor([1., 1., 1., 1., 1.]), 5), torch.multinomial(torch.ones(2, 100), 3, replacement=True))
for bad in (lambda: torch.multinomial(p, 4), lambda: torch.multinomial(torch.tensor([-1., 1.]), 1), lambda: torch.multinomial(torch.zeros(3), 1), lambda: torch.multinomial(p, 0), lambda: torch.multinomial(torch.tensor([float('inf'), 1.]), 1)):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
#%% distributions of tensors
torch.manual_seed(3)
print(r(torch.normal(torch.tensor([0., 10.]), torch.tensor([1., 0.1]))), r(torch.normal(2., torch.ones(3))), r(torch.normal(torch.zeros(2), 2.)), r(torch.normal(0., 1., size=(2,))))
print(torch.bernoulli(torch.tensor([0.1, 0.9, 0.5, 0.5])), torch.bernoulli(torch.full((3,), 0.5), p=0.2) if False else torch.bernoulli(torch.zeros(3), 0.7), torch.poisson(torch.tensor([0.5, 3., 50.])))
print(r(torch.rand(3, dtype=torch.float64)), r(torch.randn(3, dtype=torch.float16)), r(torch.randn(2, dtype=torch.complex64)), torch.randperm(10), torch.randperm(5, dtype=torch.float32))
print(r(torch.rand_like(torch.ones(2, dtype=torch.float64))), torch.randint_like(torch.ones(3), 5, 10), r(torch.randn_like(torch.ones(2), dtype=torch.bfloat16)))
#%% generators and state
g = torch.Generator().manual_seed(7)
a = torch.rand(3, generator=g)
st = g.get_state()
b = torch.rand(3, generator=g)
g.set_state(st)
c = torch.rand(3, generator=g)
print(r(a), torch.equal(b, c), g.initial_seed(), st.dtype, st.shape)
torch.manual_seed(5)
s = torch.get_rng_state()
x1 = torch.randn(4)
torch.set_rng_state(s)
print(torch.equal(x1, torch.randn(4)), torch.initial_seed())
with torch.random.fork_rng():
    torch.rand(100)
print(r(torch.rand(2)))
g2 = torch.Generator()
print(g2.initial_seed(), torch.Generator().manual_seed(2 ** 64 - 1).initial_seed())
try:
    torch.manual_seed(-1)
    print(torch.initial_seed())
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.Generator().manual_seed(2 ** 64)
except Exception as e:
    print(type(e).__name__, e)
#%% dropout family values
torch.manual_seed(6)
import torch.nn.functional as F
x = torch.ones(2, 6)
print(F.dropout(x, 0.5), F.dropout1d(torch.ones(2, 3, 4), 0.5)[:, :, 0], F.dropout2d(torch.ones(1, 4, 2, 2), 0.5)[0, :, 0, 0], r(F.alpha_dropout(x, 0.3)), r(F.feature_alpha_dropout(torch.ones(1, 3, 2), 0.4)))
print(F.dropout(x, 0.), F.dropout(x, 1.), F.dropout(x, 0.5, training=False).sum())
print(r(F.rrelu(torch.tensor([-1., -2., 3.]), training=True)), F.rrelu(torch.tensor([-1.]), training=False))
try:
    F.dropout(x, 1.5)
except Exception as e:
    print(type(e).__name__, e)
