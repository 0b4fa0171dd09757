import collections

import torch
from torch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)

#%% dataloader tensors dataset
ds = TensorDataset(torch.arange(10.).reshape(5, 2), torch.arange(5))
for x, y in DataLoader(ds, batch_size=2):
    print(x.shape, y)
print(len(DataLoader(ds, batch_size=2)), len(DataLoader(ds, batch_size=2, drop_last=True)))
#%% collate dicts and namedtuples
Point = collections.namedtuple('Point', ['x', 'y'])
class DS(Dataset):
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return {'a': torch.tensor([i, i]), 'b': i * 0.5, 'p': Point(i, torch.tensor(float(i))), 's': f"s{i}", 'l': [i, i + 1]}
b = next(iter(DataLoader(DS(), batch_size=3)))
print(b['a'], b['b'], b['b'].dtype, b['p'], type(b['p']).__name__, b['s'], b['l'])
#%% default_collate numpy and ints
import numpy as np

print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([1, 2, 3]), default_collate([True, False]), default_collate([(1, 'a'), (2, 'b')]))
try:
    default_collate([torch.zeros(2), torch.zeros(3)])
except Exception as e:
    print(type(e).__name__, e)
try:
    default_collate([{'a': 1}, {'b': 2}])
except Exception as e:
    print(type(e).__name__, e)
#%% random split fractions
g = torch.Generator().manual_seed(0)
parts = random_split(range(10), [0.5, 0.3, 0.2], generator=g)
print([len(p) for p in parts], [list(p) for p in parts])
parts = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print([len(p) for p in parts], [list(p) for p in parts])
try:
    random_split(range(10), [3, 3])
except Exception as e:
    print(type(e).__name__, e)
try:
    random_split(range(10), [0.5, 0.6])
except Exception as e:
    print(type(e).__name__, e)
#%% samplers
g = torch.Generator().manual_seed(3)
print(list(RandomSampler(range(5), generator=g)), list(SequentialSampler('abc')))
print(list(BatchSampler(range(7), batch_size=3, drop_last=False)), list(BatchSampler(range(7), 3, True)))
print(list(WeightedRandomSampler([0.1, 0.9, 0.0], 5, generator=torch.Generator().manual_seed(0))))
print(sorted(SubsetRandomSampler([3, 5, 9], generator=torch.Generator().manual_seed(0))))
print(len(RandomSampler(range(5), replacement=True, num_samples=8)))
#%% shuffle reproducible with seed
torch.manual_seed(0)
dl = DataLoader(range(8), batch_size=3, shuffle=True)
print([b.tolist() for b in dl])
dl = DataLoader(range(8), batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(5))
print([b.tolist() for b in dl])
#%% sampler and shuffle conflict
try:
    DataLoader(range(4), sampler=SequentialSampler(range(4)), shuffle=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(range(4), batch_sampler=BatchSampler(range(4), 2, False), batch_size=3)
except Exception as e:
    print(type(e).__name__, e)
#%% custom collate_fn and batch_size None
dl = DataLoader(range(4), batch_size=None)
print([x for x in dl])
dl = DataLoader(['ab', 'c', 'def'], batch_size=2, collate_fn=lambda b: sorted(b, key=len))
print(list(dl))
#%% subset concat
ds = TensorDataset(torch.arange(6))
sub = Subset(ds, [0, 2, 4])
cat = ConcatDataset([sub, TensorDataset(torch.arange(10, 12))])
print(len(cat), cat[3], cat[-1], [cat[i][0].item() for i in range(len(cat))])
try:
    TensorDataset(torch.zeros(3), torch.zeros(4))
except Exception as e:
    print(type(e).__name__, e)
#%% iterable dataset
from torch.utils.data import IterableDataset


class It(IterableDataset):
    def __iter__(self):
        return iter(range(5))
print([b.tolist() for b in DataLoader(It(), batch_size=2)])
try:
    DataLoader(It(), shuffle=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    len(DataLoader(It(), batch_size=2))
except Exception as e:
    print(type(e).__name__, e)
#%% pin and dtype of collated floats
b = default_collate([1.5, 2.5])
print(b.dtype, default_collate([torch.tensor(1, dtype=torch.int8), torch.tensor(2, dtype=torch.int8)]).dtype, default_collate([np.float32(1.0), np.float32(2)]).dtype)
#%% distributed sampler
from torch.utils.data.distributed import DistributedSampler

s = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
print(list(s), len(s))
s = DistributedSampler(range(10), num_replicas=3, rank=2, shuffle=True, seed=1, drop_last=True)
s.set_epoch(2)
print(list(s), len(s))
