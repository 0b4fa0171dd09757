import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
from torch.utils.data import DataLoader, TensorDataset, random_split, Subset, ConcatDataset, WeightedRandomSampler, RandomSampler, SequentialSampler, BatchSampler, Dataset, IterableDataset
#%% seeded loaders
ds = TensorDataset(torch.arange(10.), torch.arange(10) % 3)
g = torch.Generator().manual_seed(42)
print([b[1].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g)])
g = torch.Generator().manual_seed(42)
print([b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g, drop_last=True)])
torch.manual_seed(7)
print([b[0].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True)])
a, b = random_split(ds, [0.7, 0.3], generator=torch.Generator().manual_seed(1))
print(len(a), len(b), a.indices, b.indices)
a, b, c = random_split(range(10), [5, 3, 2], generator=torch.Generator().manual_seed(2))
print(list(a), list(b), list(c))
show(lambda: random_split(range(10), [5, 3]))
print(list(WeightedRandomSampler([0.1, 0.9, 0.0, 0.5], 6, generator=torch.Generator().manual_seed(3))))
print(list(WeightedRandomSampler([1., 1., 1.], 4, replacement=False if False else True, generator=torch.Generator().manual_seed(3))))
print(list(RandomSampler(range(6), generator=torch.Generator().manual_seed(4))), list(RandomSampler(range(4), replacement=True, num_samples=6, generator=torch.Generator().manual_seed(4))))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), len(BatchSampler(range(7), 3, True)))
#%% datasets and collate
class Sq(Dataset):
    def __len__(self): return 5
    def __getitem__(self, i): return {'x': torch.tensor([i, i * i], dtype=torch.float32), 'y': i % 2, 'name': f'n{i}'}
dl = DataLoader(Sq(), batch_size=2)
for batch in dl:
    print(batch['x'].tolist(), batch['y'], batch['name'])
print(len(dl), len(ConcatDataset([Sq(), Sq()])), Subset(Sq(), [4, 0])[0]['name'])
class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(5))
print([b.tolist() for b in DataLoader(Stream(), batch_size=2)])
print(next(iter(DataLoader([(1, 2.5), (3, 4.5)], batch_size=2))))
print(next(iter(DataLoader([torch.ones(2), torch.zeros(2)], batch_size=2, collate_fn=lambda b: torch.stack(b).sum()))))
show(lambda: next(iter(DataLoader([torch.ones(2), torch.zeros(3)], batch_size=2))))
show(lambda: DataLoader(Stream(), shuffle=True))
print(next(iter(DataLoader(ds, batch_size=None)))[0], next(iter(DataLoader([1, 2, 3], batch_size=2)))[0].dtype)
#%% generator state in models
g1 = torch.Generator().manual_seed(0)
w1 = torch.empty(2, 3)
nn.init.kaiming_uniform_(w1, generator=g1)
st = g1.get_state()
x = torch.randn(3, generator=g1)
g1.set_state(st)
print(r(w1), torch.equal(x, torch.randn(3, generator=g1)))
torch.manual_seed(0)
d = nn.Dropout(0.5)
print(d(torch.ones(8)))
torch.manual_seed(0)
print(F.dropout(torch.ones(8), 0.5), F.dropout(torch.ones(2, 4), 0.25, training=False))
torch.manual_seed(0)
print(torch.randint(0, 10, (5,)), torch.randperm(5), torch.rand(2).tolist(), torch.randn(1).item())
torch.manual_seed(0)
print(torch.normal(0., 1., (3,)), torch.multinomial(torch.ones(5), 3), torch.bernoulli(torch.full((4,), 0.5)))
torch.manual_seed(0)
print(r(nn.Linear(2, 2).weight), r(nn.Conv1d(1, 1, 3).weight), r(nn.Embedding(2, 2).weight))
