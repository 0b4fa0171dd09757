import collections
import torch
from torch.utils.data import (DataLoader, TensorDataset, Dataset, random_split, Subset, ConcatDataset,
                              SubsetRandomSampler, WeightedRandomSampler, BatchSampler, SequentialSampler,
                              RandomSampler, default_collate)

Point = collections.namedtuple('Point', ['x', 'y'])


class DictDS(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {'a': torch.tensor([i, i + 1.]), 'b': i, 'c': 'n%d' % i, 'p': Point(i, float(i)), 'l': [i, torch.tensor(i)]}
#%% collate dict namedtuple
b = next(iter(DataLoader(DictDS(), batch_size=3)))
print(sorted(b.keys()), b['a'], b['b'], b['c'], b['p'], type(b['p']).__name__, b['l'])
print(default_collate([(1, 2.0, True), (3, 4.0, False)]))
print(default_collate([Point(torch.zeros(2), 1), Point(torch.ones(2), 2)]))
print(default_collate([[1, 2], [3, 4]]), default_collate([b'x', b'y']), default_collate([None, None]) if False else '')
try:
    default_collate([[1, 2], [3]])
except Exception as e:
    print(type(e).__name__, e)
try:
    default_collate([torch.zeros(2), torch.zeros(3)])
except Exception as e:
    print(type(e).__name__, e)
try:
    default_collate([object(), object()])
except Exception as e:
    print(type(e).__name__, str(e)[:120])
import numpy as np
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([np.float64(1.5), np.float64(2.)]), default_collate([np.int32(1)]))
#%% random_split fractions generator
g = torch.Generator().manual_seed(42)
parts = random_split(range(10), [0.5, 0.3, 0.2], generator=g)
print([list(p) for p in parts], [len(p) for p in parts])
parts = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print([list(p) for p in parts])
parts = random_split(range(11), [0.33, 0.33, 0.34], generator=torch.Generator().manual_seed(2))
print([len(p) for p in parts])
for bad in ([3, 3], [0.5, 0.6], [-1, 11]):
    try:
        random_split(range(10), bad)
    except Exception as e:
        print(type(e).__name__, e)
torch.manual_seed(0)
print([list(p) for p in random_split(range(6), [4, 2])])
#%% samplers
torch.manual_seed(0)
print(list(RandomSampler(range(6))), list(RandomSampler(range(4), replacement=True, num_samples=6)), list(RandomSampler(range(4), num_samples=9)))
g = torch.Generator().manual_seed(3)
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=g)))
print(list(WeightedRandomSampler([0.1, 0.0, 0.9, 0.5], 6, generator=torch.Generator().manual_seed(0))))
print(list(WeightedRandomSampler([0.1, 0.0, 0.9, 0.5], 3, replacement=False, generator=torch.Generator().manual_seed(0))))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), len(BatchSampler(range(7), 3, True)), len(BatchSampler(range(7), 3, False)))
for f in (lambda: RandomSampler(range(3), num_samples=0), lambda: WeightedRandomSampler([1., 2.], 0), lambda: WeightedRandomSampler([1., 2.], 3, replacement=False), lambda: BatchSampler(range(3), 0, False), lambda: BatchSampler(range(3), 2, 'x'), lambda: RandomSampler(range(3), replacement=1), lambda: WeightedRandomSampler([[1., 2.]], 2)):
    try:
        s = f()
        print(list(s))
    except Exception as e:
        print(type(e).__name__, e)
#%% dataloader shuffle generator and drop_last
ds = TensorDataset(torch.arange(10).float(), torch.arange(10) % 3)
dl = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5), drop_last=True)
print(len(dl), [b[1].tolist() for b in dl])
torch.manual_seed(7)
print([b[0].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True)])
dl = DataLoader(ds, batch_size=None)
print(len(dl), next(iter(dl)))
dl = DataLoader(ds, batch_sampler=[[0, 1], [5, 9, 2]])
print([b[0].tolist() for b in dl], len(dl))
for f in (lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2), lambda: DataLoader(ds, shuffle=True, sampler=[0, 1]), lambda: DataLoader(ds, batch_size=None, drop_last=True), lambda: DataLoader(ds, num_workers=-1), lambda: DataLoader(ds, prefetch_factor=2), lambda: DataLoader(ds, persistent_workers=True)):
    try:
        f()
        print('ok')
    except Exception as e:
        print(type(e).__name__, e)
#%% subset concat tensordataset
ds = TensorDataset(torch.arange(6), torch.arange(6) * 10)
sub = Subset(ds, [5, 0, 3])
print(len(sub), sub[0], sub[[0, 2]] if hasattr(sub, '__getitems__') else '', sub.indices)
cat = ConcatDataset([sub, ds])
print(len(cat), cat[3], cat[-1], cat.cumulative_sizes)
try:
    cat[9]
except Exception as e:
    print(type(e).__name__, e)
try:
    cat[-10]
except Exception as e:
    print(type(e).__name__, e)
try:
    TensorDataset(torch.arange(3), torch.arange(4))
except Exception as e:
    print(type(e).__name__, e)
print((ds + sub).cumulative_sizes, ds[torch.tensor(2)])
try:
    ConcatDataset([])
except Exception as e:
    print(type(e).__name__, e)
#%% collate_fn custom and pin memory and worker info
from torch.utils.data import get_worker_info
print(get_worker_info())
dl = DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: sum(b))
print(list(dl))
dl = DataLoader([{'x': 1}, {'x': 2}, {'x': 3}], batch_size=2)
print(list(dl))
dl = DataLoader([(torch.tensor(1.), 'a'), (torch.tensor(2.), 'b')], batch_size=2)
print(list(dl))
print(list(DataLoader([[1, 2], [3, 4]], batch_size=2)), list(DataLoader([1.5, 2.5], batch_size=2))[0].dtype, list(DataLoader([True, False], batch_size=2)))
