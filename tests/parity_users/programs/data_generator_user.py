import torch
from torch.utils.data import (DataLoader, Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, ChainDataset,
                              StackDataset, RandomSampler, SequentialSampler, BatchSampler, WeightedRandomSampler,
                              SubsetRandomSampler, random_split, get_worker_info, default_collate, default_convert)
from torch.utils.data.distributed import DistributedSampler


class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"s{i}"}


def seed_worker(worker_id):
    import random
    info = get_worker_info()
    random.seed(info.seed % 2 ** 32)
#%% generator objects and state
g = torch.Generator().manual_seed(7)
print(g.initial_seed(), g.device, torch.rand(2, generator=g))
s = g.get_state()
a = torch.randn(3, generator=g)
g.set_state(s)
print(torch.equal(a, torch.randn(3, generator=g)), s.dtype, s.shape)
g2 = torch.Generator()
g2.set_state(g.get_state())
print(torch.equal(torch.randint(0, 100, (5,), generator=g), torch.randint(0, 100, (5,), generator=g2)))
print(torch.randperm(6, generator=torch.Generator().manual_seed(1)), torch.multinomial(torch.ones(5), 3, generator=torch.Generator().manual_seed(2)))
print(torch.normal(torch.zeros(3), 1.0, generator=torch.Generator().manual_seed(3)), torch.empty(3).uniform_(generator=torch.Generator().manual_seed(4)))
print(torch.bernoulli(torch.full((5,), 0.5), generator=torch.Generator().manual_seed(5)), torch.empty(4).exponential_(generator=torch.Generator().manual_seed(6)))
gs = torch.Generator().manual_seed(2 ** 63 - 1)
print(gs.initial_seed(), torch.rand(1, generator=gs))
try:
    torch.Generator().manual_seed(-1)
    print("neg ok")
except RuntimeError as e:
    print(e)
try:
    torch.rand(2, generator=torch.Generator(device="meta"))
except RuntimeError as e:
    print(type(e).__name__)
print(torch.Generator().seed() != torch.Generator().seed(), torch.default_generator.initial_seed())
#%% generator state error cases
g = torch.Generator()
for bad in [torch.zeros(3, dtype=torch.uint8), torch.zeros(5056), "x"]:
    try:
        g.set_state(bad)
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, str(e)[:100])
#%% samplers with generators across epochs
g = torch.Generator().manual_seed(0)
rs = RandomSampler(range(7), generator=g)
print(list(rs), list(rs))
rs2 = RandomSampler(range(5), replacement=True, num_samples=8, generator=torch.Generator().manual_seed(1))
print(list(rs2), len(rs2))
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(2))))
w = WeightedRandomSampler([0.1, 0.0, 5.0, 1.0], 6, generator=torch.Generator().manual_seed(3))
print(list(w), list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=torch.Generator().manual_seed(4))))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), list(BatchSampler(range(7), 3, drop_last=True)), len(BatchSampler(range(7), 3, True)))
for bad in [lambda: BatchSampler(range(3), 0, False), lambda: BatchSampler(range(3), 2, "no"), lambda: RandomSampler(range(3), num_samples=0),
            lambda: WeightedRandomSampler([1.0], 2, replacement=False), lambda: WeightedRandomSampler([[1.0]], 1), lambda: RandomSampler(range(3), replacement=1)]:
    try:
        r = bad()
        print("ok", list(r))
    except (ValueError, TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
#%% distributed sampler shards
ds = range(10)
for rank in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=True, seed=5)
    s.set_epoch(1)
    print(rank, list(s), len(s))
print([list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False, drop_last=True)) for r in range(3)])
try:
    DistributedSampler(ds, num_replicas=2, rank=2)
except ValueError as e:
    print(e)
#%% dataset combinators
a = TensorDataset(torch.arange(4.0), torch.arange(4) * 10)
b = TensorDataset(torch.arange(3.0) + 100, torch.arange(3))
c = ConcatDataset([a, b])
print(len(c), c[5], c[-1], c.cumulative_sizes)
try:
    c[7]
except IndexError as e:
    print(e)
try:
    c[-8]
except ValueError as e:
    print(e)
sd = StackDataset(a=a, b=torch.arange(4))
print(StackDataset(a, a)[1], sd[2], len(sd))
try:
    StackDataset(a, b)
except ValueError as e:
    print(e)
sub = Subset(a, [3, 0])
print(sub[0], len(sub), sub[[0, 1]] if hasattr(sub, "__getitems__") else None)
try:
    TensorDataset(torch.ones(2), torch.ones(3))
except (AssertionError, ValueError) as e:
    print(type(e).__name__, e)
parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print([list(p) for p in parts])
parts = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print([list(p) for p in parts])
try:
    random_split(range(5), [2, 2])
except ValueError as e:
    print(e)
#%% collate of nested structures
batch = [Squares(5)[i] for i in range(3)]
print(default_collate(batch))
print(default_collate([(1, 2.5, True), (3, 4.5, False)]))
print(default_collate([[torch.ones(2), "a"], [torch.zeros(2), "b"]]))
import numpy as np
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([np.float64(1.5), np.float64(2.5)]), default_convert(np.array([1.0])))
for bad in [[torch.ones(2), torch.ones(3)], [{"a": 1}, {"b": 2}], [[1, 2], [3]], [object(), object()]]:
    try:
        print(default_collate(bad))
    except (RuntimeError, TypeError, KeyError) as e:
        print(type(e).__name__, str(e).split(" at 0x")[0][:120])
#%% dataloader shuffle drop_last and len
dl = DataLoader(Squares(7), batch_size=3, shuffle=True, drop_last=True, generator=torch.Generator().manual_seed(0))
print(len(dl), [b["y"].tolist() for b in dl], [b["name"] for b in dl])
dl = DataLoader(range(5), batch_size=None, shuffle=False)
print(list(dl), len(dl))
dl = DataLoader(range(6), batch_size=4, collate_fn=lambda b: sum(b))
print(list(dl))
dl = DataLoader(range(6), batch_sampler=BatchSampler(range(6), 4, False))
print([x.tolist() for x in dl])
for bad in [dict(batch_size=2, batch_sampler=[[0]]), dict(shuffle=True, sampler=[0, 1]), dict(batch_size=None, drop_last=True),
            dict(num_workers=-1), dict(prefetch_factor=2), dict(persistent_workers=True), dict(timeout=-1), dict(batch_size=0)]:
    try:
        DataLoader(range(4), **bad)
        print("ok", bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
#%% workers seeds and persistent workers
class Rand(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([i, info.id, info.num_workers]), torch.rand(1)
torch.manual_seed(123)
dl = DataLoader(Rand(), batch_size=2, num_workers=2, worker_init_fn=seed_worker, persistent_workers=True)
e1 = [(x.tolist(), r.round(decimals=4).tolist()) for x, r in dl]
e2 = [(x.tolist(), r.round(decimals=4).tolist()) for x, r in dl]
print(e1)
print(e2 == e1, [x for x, _ in e2] == [x for x, _ in e1])
torch.manual_seed(123)
print([(x.tolist(), r.round(decimals=4).tolist()) for x, r in DataLoader(Rand(), batch_size=2, num_workers=2, generator=torch.Generator().manual_seed(9))])
print(get_worker_info())
#%% iterable dataset sharding in workers
class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))
print(sorted(x.item() for x in DataLoader(Stream(7), num_workers=2)))
print([b.tolist() for b in DataLoader(Stream(7), batch_size=2, num_workers=2)])
print([b.tolist() for b in DataLoader(Stream(5), batch_size=2, drop_last=True)])
try:
    DataLoader(Stream(3), shuffle=True)
except ValueError as e:
    print(e)
try:
    len(DataLoader(Stream(3)))
except TypeError as e:
    print(e)
print(list(ChainDataset([Stream(2), Stream(3)])))
