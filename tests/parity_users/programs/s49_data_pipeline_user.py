import collections
import torch
from torch.utils.data import (DataLoader, Dataset, TensorDataset, ConcatDataset, Subset,
                              random_split, WeightedRandomSampler, SubsetRandomSampler,
                              BatchSampler, SequentialSampler, RandomSampler, IterableDataset)
from torch.utils.data.dataloader import default_collate

Point = collections.namedtuple("Point", "x y")


class Words(Dataset):
    def __init__(self):
        self.words = ["a", "bb", "ccc", "dd", "e", "fff", "gggg"]

    def __len__(self):
        return len(self.words)

    def __getitem__(self, i):
        w = self.words[i]
        return {"text": w, "ids": torch.tensor([ord(c) - 96 for c in w]), "len": len(w)}


def pad_collate(batch):
    ids = torch.nn.utils.rnn.pad_sequence([b["ids"] for b in batch], batch_first=True, padding_value=0)
    return ids, torch.tensor([b["len"] for b in batch]), [b["text"] for b in batch]

#%% custom collate with padding and shuffling with a generator
dl = DataLoader(Words(), batch_size=3, shuffle=True, collate_fn=pad_collate,
                generator=torch.Generator().manual_seed(1))
for ids, lens, texts in dl:
    print(ids.tolist(), lens, texts)
print(len(dl))

#%% default_collate of nested structures
batch = [{"a": torch.tensor([1., 2.]), "b": 3, "c": "x", "d": (1.5, [2, 3]), "p": Point(1, 2.)}
         for _ in range(2)]
out = default_collate(batch)
print(out["a"], out["b"], out["c"], out["d"], out["p"], type(out["p"]).__name__)
print(out["b"].dtype, out["d"][0].dtype)
try:
    default_collate([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print(type(e).__name__, str(e)[:60])

#%% random_split with fractions and a generator, Subset indices
ds = TensorDataset(torch.arange(10.).unsqueeze(1), torch.arange(10) % 3)
a, b, c = random_split(ds, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print(len(a), len(b), len(c), a.indices, b.indices, c.indices)
x, y = a[0]
print(x, y)
try:
    random_split(ds, [5, 4])
except ValueError as e:
    print(e)
print(Subset(ds, [9, 0])[1])

#%% weighted sampler for class imbalance
labels = torch.tensor([0] * 8 + [1] * 2)
counts = torch.bincount(labels)
weights = 1.0 / counts[labels].float()
sampler = WeightedRandomSampler(weights, num_samples=12, replacement=True,
                                generator=torch.Generator().manual_seed(0))
idx = list(sampler)
print(idx, torch.bincount(labels[idx]))
dl = DataLoader(TensorDataset(torch.arange(10), labels), batch_size=4, sampler=sampler)
print([b[1].tolist() for b in dl])

#%% samplers: subset random, batch sampler, drop_last
g = torch.Generator().manual_seed(3)
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=g)))
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print(list(BatchSampler(RandomSampler(range(7), generator=torch.Generator().manual_seed(4)), 3, True)))
dl = DataLoader(range(10), batch_size=4, drop_last=True)
print(len(dl), [b.tolist() for b in dl])
print(list(RandomSampler(range(5), replacement=True, num_samples=8, generator=torch.Generator().manual_seed(2))))

#%% concat datasets and iterable datasets
d1 = TensorDataset(torch.zeros(3, 2))
d2 = TensorDataset(torch.ones(2, 2))
cd = ConcatDataset([d1, d2])
print(len(cd), cd.cumulative_sizes, cd[3], cd[-1])


class Counter(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


dl = DataLoader(Counter(7), batch_size=3)
print([b.tolist() for b in dl])
try:
    DataLoader(Counter(3), shuffle=True)
except ValueError as e:
    print(e)
chained = Counter(2) + Counter(3)
print(type(chained).__name__, list(chained))

#%% a dataset of tensors with transforms and dataloader over numpy arrays
import numpy as np


class Arrays(Dataset):
    def __init__(self):
        self.x = np.arange(12, dtype=np.float32).reshape(6, 2)
        self.y = np.array([0, 1, 0, 1, 1, 0])

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] / 10, self.y[i]


for xb, yb in DataLoader(Arrays(), batch_size=4):
    print(xb, xb.dtype, yb, yb.dtype)
for xb in DataLoader(np.arange(5.0), batch_size=2):
    print(xb, xb.dtype)

#%% errors users hit with loaders
try:
    DataLoader(range(4), batch_size=2, sampler=SequentialSampler(range(4)), shuffle=True)
except ValueError as e:
    print(e)
try:
    DataLoader(range(4), batch_sampler=BatchSampler(SequentialSampler(range(4)), 2, False), batch_size=3)
except ValueError as e:
    print(e)
try:
    DataLoader(range(4), num_workers=-1)
except ValueError as e:
    print(e)
try:
    list(DataLoader([torch.ones(2), torch.ones(3)], batch_size=2))
except RuntimeError as e:
    print(str(e).split("\n")[0])
