import torch
import numpy as np
from torch.utils.data import (DataLoader, Dataset, TensorDataset, Subset, ChainDataset, IterableDataset,
                              SubsetRandomSampler, RandomSampler, SequentialSampler, BatchSampler,
                              random_split, default_collate, ConcatDataset)


class Sq(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return i * i


class Stream(IterableDataset):
    def __init__(self, a, b):
        self.a, self.b = a, b
    def __iter__(self):
        return iter(range(self.a, self.b))
#%% sampler / batch_sampler conflicts
ds = Sq(10)
bs = BatchSampler(SequentialSampler(ds), 3, False)
for kw in [dict(batch_sampler=bs, batch_size=2), dict(batch_sampler=bs, shuffle=True),
           dict(batch_sampler=bs, drop_last=True), dict(batch_sampler=bs, sampler=SequentialSampler(ds)),
           dict(sampler=SequentialSampler(ds), shuffle=True), dict(batch_size=None, drop_last=True),
           dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
           dict(shuffle=True, batch_size=0)]:
    try:
        dl = DataLoader(ds, **kw)
        print("ok", len(dl))
    except Exception as e:
        print(type(e).__name__, e)
print(list(DataLoader(ds, batch_sampler=bs)))
#%% drop_last and len
for n, b, d in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 3, True), (0, 3, False)]:
    dl = DataLoader(Sq(n), batch_size=b, drop_last=d)
    print(n, b, d, len(dl), [x.tolist() for x in dl])
print(len(BatchSampler(range(10), 4, True)), list(BatchSampler(range(10), 4, False)))
for bad in [dict(batch_size=0, drop_last=False), dict(batch_size=2, drop_last=1), dict(batch_size=True, drop_last=False)]:
    try:
        BatchSampler(range(3), **bad)
    except Exception as e:
        print(type(e).__name__, e)
#%% ChainDataset and iterable loaders
ch = ChainDataset([Stream(0, 3), Stream(10, 12)])
print(list(ch), len(ch) if False else "no len")
print([b.tolist() for b in DataLoader(ch, batch_size=2)])
print([b.tolist() for b in DataLoader(ch, batch_size=2, drop_last=True)])
try:
    len(ch)
except Exception as e:
    print(type(e).__name__, e)
try:
    list(ChainDataset([Sq(3)]))
except Exception as e:
    print(type(e).__name__, e)
for kw in [dict(shuffle=True), dict(sampler=[0, 1]), dict(sampler=SequentialSampler(range(3))), dict(batch_sampler=[[0, 1]])]:
    try:
        DataLoader(Stream(0, 3), **kw)
    except Exception as e:
        print(type(e).__name__, e)
print(list(Stream(0, 2) + Stream(5, 6)))
try:
    len(DataLoader(Stream(0, 5), batch_size=2))
except Exception as e:
    print(type(e).__name__, e)
#%% SubsetRandomSampler / RandomSampler with generators
g = torch.Generator().manual_seed(3)
print(list(SubsetRandomSampler([5, 6, 7, 8, 9], generator=g)))
print(list(SubsetRandomSampler([5, 6, 7, 8, 9], generator=g)))
print(len(SubsetRandomSampler(range(4))))
g = torch.Generator().manual_seed(7)
print(list(RandomSampler(range(6), generator=g)), list(RandomSampler(range(6), num_samples=9, generator=g)))
print(list(RandomSampler(range(3), replacement=True, num_samples=5, generator=torch.Generator().manual_seed(0))))
for bad in [dict(replacement=1), dict(num_samples=0), dict(num_samples=2.5)]:
    try:
        RandomSampler(range(3), **bad)
    except Exception as e:
        print(type(e).__name__, e)
torch.manual_seed(5)
print(list(RandomSampler(range(5))))
dl = DataLoader(Sq(6), batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(1))
print([b.tolist() for b in dl], [b.tolist() for b in dl])
#%% worker_init_fn with num_workers=0, sampler iteration order
calls = []
dl = DataLoader(Sq(4), batch_size=2, worker_init_fn=lambda wid: calls.append(wid))
print([b.tolist() for b in dl], calls)
print(torch.utils.data.get_worker_info())
dl = DataLoader(Sq(5), sampler=[4, 0, 2], batch_size=2)
print([b.tolist() for b in dl], len(dl))
dl = DataLoader(Sq(5), batch_size=None)
print([x for x in dl][:3], type(next(iter(dl))).__name__)
dl = DataLoader(Sq(5), batch_size=None, collate_fn=lambda x: x)
print(next(iter(dl)))
#%% Subset of Subset, random_split with generator
base = TensorDataset(torch.arange(10) * 10, torch.arange(10))
s1 = Subset(base, [9, 7, 5, 3, 1])
s2 = Subset(s1, [0, 2])
print(len(s2), s2[1], s2[-1], s2.dataset is s1, s2.indices)
print(s1[[0, 1]] if hasattr(s1, "__getitems__") else "no getitems")
print([x.tolist() for x in next(iter(DataLoader(s2, batch_size=2)))])
g = torch.Generator().manual_seed(42)
a, b, c = random_split(base, [5, 3, 2], generator=g)
print(a.indices, b.indices, c.indices)
a, b = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(0))
print(len(a), len(b), list(a), list(b))
for bad in [[3, 3], [0.5, 0.6], [-1, 11]]:
    try:
        random_split(range(10), bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    s1[7]
except Exception as e:
    print(type(e).__name__, e)
cd = ConcatDataset([s1, Sq(3)])
print(len(cd), cd[5], cd[-1], cd.cumulative_sizes)
try:
    cd[8]
except Exception as e:
    print(type(e).__name__, e)
try:
    cd[-9]
except Exception as e:
    print(type(e).__name__, e)
try:
    ConcatDataset([])
except Exception as e:
    print(type(e).__name__, e)
#%% printing datasets, samplers and loaders
ds = TensorDataset(torch.ones(2))
print(str(ds).split(" at ")[0], str(SequentialSampler(ds)).split(" at ")[0], str(DataLoader(ds)).split(" at ")[0])
print(str(Sq(3)).split(" at ")[0], str(BatchSampler(range(3), 2, False)).split(" at ")[0])
print(str(torch.optim.lr_scheduler.StepLR(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))]), 1)).split(" at ")[0])
