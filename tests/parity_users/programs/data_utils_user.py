import torch
from torch.utils.data import (DataLoader, Dataset, TensorDataset, Subset, ConcatDataset, random_split,
    SequentialSampler, RandomSampler, BatchSampler, WeightedRandomSampler, SubsetRandomSampler,
    IterableDataset, default_collate, StackDataset, ChainDataset)
from collections import namedtuple
from dataclasses import dataclass
#%% tensor dataset and loader
ds = TensorDataset(torch.arange(10.0).reshape(5, 2), torch.arange(5))
print(len(ds), ds[1])
for xb, yb in DataLoader(ds, batch_size=2):
    print(xb.tolist(), yb.tolist())
#%% drop_last and len
dl = DataLoader(range(10), batch_size=3, drop_last=True)
print(len(dl), [b.tolist() for b in dl])
print(len(DataLoader(range(10), batch_size=3)))
#%% shuffle with generator
g = torch.Generator().manual_seed(42)
print([b.tolist() for b in DataLoader(range(8), batch_size=4, shuffle=True, generator=g)])
#%% tensor dataset size mismatch
try:
    TensorDataset(torch.zeros(3), torch.zeros(4))
except Exception as e:
    print(type(e).__name__, e)
#%% random_split lengths and fractions
g = torch.Generator().manual_seed(0)
a, b = random_split(range(10), [7, 3], generator=g)
print(type(a).__name__, list(a), list(b))
parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
print([len(p) for p in parts], [list(p) for p in parts])
parts = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print([len(p) for p in parts])
#%% random_split bad lengths
try:
    random_split(range(10), [3, 3])
except Exception as e:
    print(type(e).__name__, e)
try:
    random_split(range(10), [0.5, 0.6])
except Exception as e:
    print(type(e).__name__, e)
#%% subset and concat
s = Subset(list("abcdef"), [5, 0, 2])
print(len(s), s[0], list(s), s[[0, 1]] if hasattr(s, "__getitems__") else None)
c = ConcatDataset([range(3), list("xy")])
print(len(c), c[3], c[-1], c.cumulative_sizes)
try:
    c[10]
except Exception as e:
    print(type(e).__name__, e)
#%% stack and chain dataset
sd = StackDataset(range(3), list("abc"))
print(len(sd), sd[1])
sd2 = StackDataset(x=range(2), y=[10, 20])
print(sd2[1])
class It(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(range(self.n))
print(list(ChainDataset([It(2), It(3)])))
#%% samplers
print(list(SequentialSampler(range(4))))
print(list(RandomSampler(range(5), generator=torch.Generator().manual_seed(3))))
print(list(RandomSampler(range(3), replacement=True, num_samples=6, generator=torch.Generator().manual_seed(3))))
print(list(BatchSampler(range(7), batch_size=3, drop_last=False)), len(BatchSampler(range(7), 3, True)))
print(list(SubsetRandomSampler([10, 20, 30], generator=torch.Generator().manual_seed(0))))
print(list(WeightedRandomSampler([0.1, 0.9, 0.0], 5, generator=torch.Generator().manual_seed(0))))
#%% sampler errors
try:
    BatchSampler(range(3), batch_size=0, drop_last=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    RandomSampler(range(3), num_samples=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(range(3), sampler=SequentialSampler(range(3)), shuffle=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(range(3), batch_sampler=BatchSampler(range(3), 2, False), batch_size=2)
except Exception as e:
    print(type(e).__name__, e)
#%% collate dicts and nested
batch = [{"x": torch.tensor([1.0, 2.0]), "y": 1, "meta": {"id": "a", "w": 0.5}},
         {"x": torch.tensor([3.0, 4.0]), "y": 2, "meta": {"id": "b", "w": 1.5}}]
out = default_collate(batch)
print(out)
print(out["y"].dtype, out["meta"]["w"].dtype)
#%% collate namedtuple and tuple
P = namedtuple("P", ["a", "b"])
out = default_collate([P(torch.ones(2), 3), P(torch.zeros(2), 4)])
print(type(out).__name__, out)
print(default_collate([(1, "x"), (2, "y")]))
print(default_collate([[1.0, 2.0], [3.0, 4.0]]))
#%% collate numpy and bools
import numpy as np
print(default_collate([np.array([1, 2]), np.array([3, 4])]))
print(default_collate([True, False]), default_collate([np.float32(1.5), np.float32(2.5)]))
print(default_collate([b"ab", b"cd"]))
#%% collate mismatched sizes
try:
    default_collate([torch.ones(2), torch.ones(3)])
except Exception as e:
    print(type(e).__name__, e)
try:
    default_collate([[1, 2], [3]])
except Exception as e:
    print(type(e).__name__, e)
#%% collate dataclass fails
@dataclass
class Item:
    x: torch.Tensor
try:
    default_collate([Item(torch.ones(1)), Item(torch.ones(1))])
except Exception as e:
    print(type(e).__name__, str(e)[:150])
#%% custom collate_fn and loader over dict dataset
class DS(Dataset):
    def __len__(self):
        return 5
    def __getitem__(self, i):
        return {"seq": torch.arange(i + 1), "label": i % 2}
def pad(batch):
    seqs = [b["seq"] for b in batch]
    return torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True), torch.tensor([b["label"] for b in batch])
for s, l in DataLoader(DS(), batch_size=2, collate_fn=pad):
    print(s.tolist(), l.tolist())
#%% loader without batching
print([x for x in DataLoader(range(3), batch_size=None)])
print(next(iter(DataLoader(DS(), batch_size=None))))
#%% iterable dataset in loader
print([b.tolist() for b in DataLoader(It(5), batch_size=2)])
try:
    DataLoader(It(3), shuffle=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    len(DataLoader(It(3)))
except Exception as e:
    print(type(e).__name__, e)
#%% dataset getitem index error ends iteration
class Short(Dataset):
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError
        return i
print(list(iter(Short())) if hasattr(Short, "__iter__") else "no iter")
print([b.tolist() for b in DataLoader(Short(), batch_size=2, sampler=range(3))])
#%% dataset add
ds = TensorDataset(torch.arange(2)) + TensorDataset(torch.arange(3))
print(type(ds).__name__, len(ds), ds[4])
#%% get_worker_info in main process
from torch.utils.data import get_worker_info
print(get_worker_info())
