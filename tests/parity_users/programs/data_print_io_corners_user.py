import torch
import io
from torch.utils.data import DataLoader, TensorDataset, Dataset, Subset, SubsetRandomSampler, WeightedRandomSampler, BatchSampler, SequentialSampler, RandomSampler
from torch.utils.data.distributed import DistributedSampler
#%% loader with subset random sampler and generator
ds = TensorDataset(torch.arange(10), torch.arange(10) * 2)
g = torch.Generator().manual_seed(3)
dl = DataLoader(ds, batch_size=3, sampler=SubsetRandomSampler([0, 2, 4, 6, 8], generator=g))
print([b[0].tolist() for b in dl], [b[0].tolist() for b in dl])
#%% weighted sampler without replacement
g = torch.Generator().manual_seed(0)
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 3, replacement=False, generator=g)), list(WeightedRandomSampler([1, 1, 1], 5, generator=g)))
#%% random sampler replacement and num_samples
g = torch.Generator().manual_seed(1)
print(list(RandomSampler(range(5), generator=g)), list(RandomSampler(range(5), replacement=True, num_samples=8, generator=g)), list(RandomSampler(range(3), num_samples=7, generator=g)))
#%% shuffle under manual seed without generator
torch.manual_seed(7)
print([b.tolist() for b in DataLoader(torch.arange(8), batch_size=4, shuffle=True)], torch.rand(1))
#%% distributed sampler
for rank in range(3):
    s = DistributedSampler(range(10), num_replicas=3, rank=rank, shuffle=False)
    print(rank, list(s), len(s))
s = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=True, seed=5, drop_last=True)
s.set_epoch(2)
print(list(s), len(s))
#%% batch sampler and sampler args conflicts
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), list(BatchSampler(range(7), 3, True)), len(BatchSampler(range(7), 3, False)))
for f in (lambda: DataLoader(ds, sampler=[0, 1], shuffle=True), lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2), lambda: DataLoader(ds, batch_size=None, drop_last=True),
          lambda: DataLoader(ds, num_workers=-1), lambda: DataLoader(ds, persistent_workers=True), lambda: DataLoader(ds, prefetch_factor=2), lambda: BatchSampler(range(3), 0, False)):
    try:
        f()
        print("ok")
    except ValueError as e:
        print(type(e).__name__, e)
#%% collate of dict of lists and strings
class D(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return {"x": torch.tensor([i, i + 1.0]), "name": f"n{i}", "meta": (i, float(i)), "lst": [i, -i]}
for b in DataLoader(D(), batch_size=3):
    print(b)
#%% batch_size None and default_convert
import numpy as np
print(list(DataLoader([np.array([1, 2]), np.array([3, 4])], batch_size=None)), list(DataLoader([(1, 2.0), (3, 4.0)], batch_size=None)))
from torch.utils.data import default_collate, default_convert
print(default_collate([np.float64(1.5), np.float64(2.5)]), default_convert({"a": np.arange(2)}), default_collate([True, False]), default_collate([[1, 2], [3, 4]]))
#%% subset of subset and random split generator
g = torch.Generator().manual_seed(42)
a, b = torch.utils.data.random_split(range(10), [0.7, 0.3], generator=g)
print(list(a), list(b), list(Subset(a, [0, 2])), len(a), a.indices)
#%% print options sci mode and precision
x = torch.tensor([1e-5, 1.0, 12345.678])
print(x)
torch.set_printoptions(sci_mode=False)
print(x)
torch.set_printoptions(precision=2, sci_mode=True)
print(x, torch.tensor([0.5]))
torch.set_printoptions(precision=6, linewidth=40)
print(torch.arange(12.0) / 7)
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(20), torch.arange(20.0).view(4, 5))
torch.set_printoptions(profile="default")
print(torch.arange(20.0).view(4, 5) / 3)
#%% print options full profile and short
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456789, 2.0]), torch.arange(2000)[:3])
torch.set_printoptions(profile="full")
print(torch.arange(1001)[-3:].shape, str(torch.arange(1001)).count(",") > 900)
torch.set_printoptions(profile="default")
print(torch.arange(1001))
#%% printing mixed magnitudes and dtypes
for t in (torch.tensor([1e10, 1.0]), torch.tensor([1e-10, 1.0]), torch.tensor([123456789.0]), torch.tensor([0.1, 100000.0]), torch.tensor([1.0, float("nan"), -float("inf")]),
          torch.tensor([1e20], dtype=torch.float64), torch.tensor([1.5e-7], dtype=torch.float16), torch.tensor([2**53], dtype=torch.int64), torch.tensor([-0.0, 0.0]), torch.tensor([[1e-3, 1e3]]), torch.tensor([9.99995])):
    print(t)
#%% torch save load nested objects
buf = io.BytesIO()
x = torch.arange(6.0)
obj = {"a": [x, x[2:], (x.view(2, 3), {"n": 3, "s": "str", "none": None})], "b": torch.tensor(1, dtype=torch.int8), "c": {1: torch.ones(1, dtype=torch.bool)}, "f": 1.5, "size": torch.Size([2, 3]), "dt": torch.float16}
torch.save(obj, buf)
buf.seek(0)
o = torch.load(buf)
print(o)
o["a"][1][0] = 100
print(o["a"][0], o["a"][2][0], type(o["size"]).__name__, o["dt"])
#%% save load module and optimizer with weights only
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
opt = torch.optim.Adam(m.parameters(), lr=0.1)
m(torch.randn(4, 2)).sum().backward()
opt.step()
buf = io.BytesIO()
torch.save({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print(list(ck["model"]), ck["opt"]["param_groups"], sorted(ck["opt"]["state"][0]), ck["opt"]["state"][0]["step"], ck["epoch"])
buf.seek(0)
try:
    torch.save(m, buf2 := io.BytesIO())
    buf2.seek(0)
    torch.load(buf2)
except Exception as e:
    print(type(e).__name__, str(e)[:120])
#%% einsum variants
a = torch.arange(6.0).view(2, 3)
b = torch.arange(12.0).view(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij->", a), torch.einsum("ii->i", torch.eye(3) * 2), torch.einsum("i,j->ij", a[0], a[1]), torch.einsum("bij,bjk->bik", a[None], b[None]).shape)
print(torch.einsum("...ij->...ji", torch.zeros(2, 3, 4)).shape, torch.einsum("ij,ij->i", a, a), torch.einsum(a, [0, 1], b, [1, 2], [0, 2]), torch.einsum("i i", torch.eye(2)) if False else None, torch.einsum("ab,ab", a, a))
for eq in ("ij,jk->il", "ij,jk", "ij->jj", "ijk,jk->i"):
    try:
        print(torch.einsum(eq, a, b).shape)
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
#%% linalg everyday (LAPACK's last bits differ: eigenvalues rounded)
A = torch.tensor([[4.0, 1.0], [2.0, 3.0]])
print(torch.linalg.inv(A), torch.linalg.det(A), torch.linalg.solve(A, torch.tensor([1.0, 2.0])), torch.linalg.norm(A), torch.linalg.norm(A, ord=2), torch.linalg.matrix_rank(A), torch.linalg.eigvals(A).real.round(decimals=4))
print(torch.linalg.vector_norm(A, ord=float("inf"), dim=1), torch.linalg.matrix_norm(A, "nuc"), torch.linalg.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]])), torch.linalg.cond(A), torch.linalg.slogdet(A), torch.linalg.matrix_exp(torch.zeros(2, 2)))
#%% fft everyday (round trips rounded: pocketfft's last bits differ)
x = torch.tensor([1.0, 2.0, 0.0, -1.0, 3.0])
print(torch.fft.fft(x), torch.fft.rfft(x, n=8), (torch.fft.irfft(torch.fft.rfft(x), n=5).round(decimals=4) + 0.0), torch.fft.fftshift(torch.fft.fftfreq(5)), torch.fft.rfftfreq(6, d=0.5), torch.fft.ifft(torch.fft.fft(x)).real.round(decimals=4))
print(torch.fft.fft2(torch.arange(6.0).view(2, 3)), torch.fft.fft(x, norm="ortho").abs())
#%% random with manual seed
torch.manual_seed(123)
print(torch.rand(3), torch.randn(2, dtype=torch.float64), torch.randint(0, 10, (4,)), torch.randperm(6), torch.normal(0.0, 1.0, (2,)), torch.multinomial(torch.tensor([0.1, 0.5, 0.4]), 4, replacement=True), torch.bernoulli(torch.full((4,), 0.5)))
print(torch.empty(3).uniform_(-1, 1), torch.empty(2).normal_(5, 0.1), torch.empty(3).exponential_(), torch.empty(3).geometric_(0.3), torch.empty(2).log_normal_(), torch.empty(3).cauchy_(), torch.empty(4).random_(0, 3), torch.poisson(torch.tensor([1.0, 10.0])))
#%% random state save restore
torch.manual_seed(0)
s = torch.get_rng_state()
a = torch.randn(3)
torch.set_rng_state(s)
print(torch.equal(a, torch.randn(3)), torch.initial_seed())
g = torch.Generator().manual_seed(9)
st = g.get_state()
x1 = torch.rand(2, generator=g)
g.set_state(st)
print(torch.equal(x1, torch.rand(2, generator=g)), torch.randn(2, generator=torch.Generator().manual_seed(9)))
