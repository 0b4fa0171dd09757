import io
import collections
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, default_collate, Subset, random_split, ConcatDataset
from torch.utils.data import SequentialSampler, RandomSampler, BatchSampler, WeightedRandomSampler, SubsetRandomSampler
def roundtrip(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kw)
#%% save odd containers
Point = collections.namedtuple("Point", "x y")
obj = {"t": torch.arange(3), "tup": (torch.ones(1), 2), "nested": [{"a": torch.zeros(2, dtype=torch.float16)}],
       "od": collections.OrderedDict(b=torch.tensor(True)), "none": None, "s": {1, 2}, "size": torch.Size([2, 3]),
       "dtype": torch.bfloat16, "dev": torch.device("cpu"), "cplx": torch.tensor([1j]), "big": 2 ** 70, "pt": Point(torch.tensor(1), 2)}
back = roundtrip(obj, weights_only=False)
for k in obj:
    print(k, type(back[k]).__name__, back[k])
#%% weights_only refusals and allowed globals
try:
    roundtrip({"pt": Point(1, 2)})
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0][:90])
print(roundtrip({"a": torch.ones(1), "b": [1, 2.5, "x", None, (True,)], "d": torch.float64, "s": torch.Size([1])}))
with torch.serialization.safe_globals([Point]):
    print(roundtrip({"pt": Point(1, 2)}))
#%% shared storage and views preserved
base = torch.arange(6.0)
v = base[2:4]
w = base.view(2, 3)
a, b, c = roundtrip([base, v, w])
a[2] = 100
print(b, c, b.storage_offset(), c.is_contiguous(), b._base is None)
x = torch.arange(10)[::2]
y = roundtrip(x)
print(y, y.stride(), y.untyped_storage().nbytes())
#%% parameters modules and grads
lin = torch.nn.Linear(2, 1)
lin.weight.grad = torch.ones(1, 2)
p = roundtrip(lin.weight)
print(type(p).__name__, p.requires_grad, p.grad)
m = roundtrip(lin, weights_only=False)
print(m, m.weight.grad)
t = torch.ones(2, requires_grad=True) * 2
try:
    roundtrip(t)
    print("saved non-leaf")
except RuntimeError as e:
    print(e)
#%% map_location and mmap load from file
import tempfile, os
d = tempfile.mkdtemp()
path = os.path.join(d, "x.pt")
torch.save({"w": torch.arange(4.0)}, path)
print(torch.load(path, map_location="cpu"), torch.load(path, map_location=lambda s, loc: s)["w"].device)
print(torch.load(path, mmap=True)["w"])
torch.save(torch.ones(2), path, _use_new_zipfile_serialization=False)
print(torch.load(path))
try:
    torch.load(os.path.join(d, "missing.pt"))
except FileNotFoundError as e:
    print("FileNotFoundError", e.errno)
#%% collate dicts namedtuples and numbers
batch = [{"x": torch.tensor([1.0, 2.0]), "y": 1, "name": "a", "p": Point(1.5, torch.tensor(1))},
         {"x": torch.tensor([3.0, 4.0]), "y": 2, "name": "b", "p": Point(2.5, torch.tensor(2))}]
out = default_collate(batch)
print(out["x"], out["y"], out["name"], out["p"], type(out["p"]).__name__)
print(default_collate([(1, 2.0, True), (3, 4.0, False)]))
import numpy as np
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([np.float64(1.5), np.float64(2.5)]))
try:
    default_collate([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print(e)
try:
    default_collate([object(), object()])
except TypeError as e:
    print(str(e)[:80])
try:
    default_collate([{"a": 1}, {"b": 2}])
except Exception as e:
    print(type(e).__name__, e)
#%% samplers with generator and two epochs
g = torch.Generator().manual_seed(3)
rs = RandomSampler(range(7), generator=g)
print(list(rs), list(rs))
print(list(RandomSampler(range(5), replacement=True, num_samples=8, generator=torch.Generator().manual_seed(1))))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), list(BatchSampler(range(7), 3, True)))
print(list(WeightedRandomSampler([0.1, 0.0, 5.0, 1.0], 6, generator=torch.Generator().manual_seed(2))))
print(list(WeightedRandomSampler([1, 1, 1], 3, replacement=False, generator=torch.Generator().manual_seed(2))))
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(4))))
try:
    WeightedRandomSampler([1.0, 2.0], 5, replacement=False)
    list(WeightedRandomSampler([1.0, 2.0], 5, replacement=False))
except RuntimeError as e:
    print(e)
try:
    RandomSampler(range(3), num_samples=0)
except ValueError as e:
    print(e)
#%% dataloader shuffle seeded with dict dataset and drop_last
class D(Dataset):
    def __len__(self):
        return 7
    def __getitem__(self, i):
        return {"idx": i, "v": torch.full((2,), float(i)), "pt": Point(i, -i)}
torch.manual_seed(5)
dl = DataLoader(D(), batch_size=3, shuffle=True, drop_last=True)
for b in dl:
    print(b["idx"], b["v"][:, 0], b["pt"])
print(len(dl))
dl2 = DataLoader(D(), batch_size=None, shuffle=False)
print(next(iter(dl2)))
dl3 = DataLoader(D(), batch_size=2, collate_fn=lambda items: [it["idx"] for it in items])
print(list(dl3))
#%% random_split subsets and concat
g = torch.Generator().manual_seed(6)
a, b = random_split(range(10), [0.7, 0.3], generator=g)
print(list(a), list(b), len(a), type(a).__name__)
a2, b2, c2 = random_split(TensorDataset(torch.arange(5)), [2, 2, 1], generator=torch.Generator().manual_seed(0))
print([x[0].item() for x in a2], b2.indices, c2.indices)
try:
    random_split(range(5), [3, 3])
except ValueError as e:
    print(e)
cat = ConcatDataset([range(3), TensorDataset(torch.tensor([7, 8]))])
print(len(cat), cat[2], cat[3], cat.cumulative_sizes, Subset(range(10), [9, 1])[0])
#%% manual_seed reproducibility of random functions
torch.manual_seed(123)
print(torch.randn(3), torch.rand(2), torch.randint(0, 10, (5,)), torch.randperm(6))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 5, replacement=True), torch.multinomial(torch.tensor([1.0, 1.0, 1.0, 1.0]), 3))
print(torch.empty(3).normal_(2.0, 0.5), torch.empty(3).uniform_(-1, 1), torch.empty(4).bernoulli_(0.3), torch.empty(2).exponential_(2.0))
print(torch.empty(3).random_(0, 100), torch.empty(2).cauchy_(), torch.empty(2).log_normal_(), torch.empty(3, dtype=torch.int64).geometric_(0.4))
print(torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(1.0, 2.0, size=(2,)), torch.poisson(torch.tensor([1.0, 5.0])))
print(torch.randn(2, dtype=torch.float64), torch.rand(2, dtype=torch.float16), torch.randn(2, dtype=torch.complex64), torch.randint(-3, 3, (3,), dtype=torch.int8))
print(torch.randperm(20, dtype=torch.int32)[:5], torch.randint_like(torch.zeros(3), 5), torch.rand_like(torch.zeros(2, dtype=torch.float64)), torch.randn_like(torch.zeros(2)))
#%% generators are independent and states round trip
g1 = torch.Generator().manual_seed(9)
g2 = torch.Generator().manual_seed(9)
print(torch.randn(2, generator=g1).equal(torch.randn(2, generator=g2)), g1.initial_seed())
state = g1.get_state()
a = torch.rand(3, generator=g1)
g1.set_state(state)
print(a.equal(torch.rand(3, generator=g1)), state.dtype, state.shape)
torch.manual_seed(1)
s = torch.get_rng_state()
r1 = torch.randn(2)
torch.set_rng_state(s)
print(r1.equal(torch.randn(2)), torch.initial_seed())
with torch.random.fork_rng():
    torch.randn(5)
print(torch.randn(1))
print(torch.randint(3, (2, 2), generator=torch.Generator().manual_seed(0)), torch.rand(2, generator=torch.Generator().manual_seed(2**40)))
#%% dropout and shuffles under seeds
torch.manual_seed(7)
print(torch.nn.functional.dropout(torch.ones(8), 0.5), torch.nn.functional.dropout2d(torch.ones(1, 4, 1, 1), 0.5).flatten())
print(torch.nn.functional.alpha_dropout(torch.ones(4), 0.5, training=True))
print(torch.nn.functional.gumbel_softmax(torch.zeros(4), tau=1.0), torch.nn.functional.gumbel_softmax(torch.zeros(4), hard=True))
print(torch.bernoulli(torch.full((5,), 0.5)), torch.rand(1).item())
print(torch.nn.functional.rrelu(torch.full((4,), -1.0), training=True))
