import torch
from torch.utils.data import Dataset, DataLoader, TensorDataset, random_split, Subset, ConcatDataset, WeightedRandomSampler
#%% map-style dataset with a transform and a custom collate
class Squares(Dataset):
    def __init__(self, n, transform=None):
        self.n, self.transform = n, transform
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        x = torch.tensor([i, i * i], dtype=torch.float32)
        return (self.transform(x) if self.transform else x), i % 3
ds = Squares(10, transform=lambda x: x / 10)
dl = DataLoader(ds, batch_size=4, shuffle=False)
for xb, yb in dl:
    print(xb.shape, yb, yb.dtype)
print(len(dl), len(DataLoader(ds, batch_size=4, drop_last=True)))
def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)
print(next(iter(DataLoader(ds, batch_size=3, collate_fn=collate))))
#%% random_split and subsets with a generator
g = torch.Generator().manual_seed(42)
a, b = random_split(TensorDataset(torch.arange(10)), [7, 3], generator=g)
print(len(a), len(b), sorted(int(x[0]) for x in b))
print(type(a).__name__, a.indices if hasattr(a, "indices") else None)
c, d = random_split(range(10), [0.5, 0.5], generator=torch.Generator().manual_seed(0))
print(list(c), list(d))
s = Subset(TensorDataset(torch.arange(5) * 2), [4, 0])
print([t[0].item() for t in s])
#%% concat and shuffled loader with seed
cat = ConcatDataset([TensorDataset(torch.zeros(2)), TensorDataset(torch.ones(3))])
print(len(cat), cat.cumulative_sizes, cat[3])
torch.manual_seed(0)
print([b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(6)), batch_size=2, shuffle=True)])
print([b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(6)), batch_size=2, shuffle=True,
                                         generator=torch.Generator().manual_seed(5))])
#%% weighted sampler and dict batches
torch.manual_seed(0)
w = WeightedRandomSampler([0.1, 0.0, 0.9], num_samples=6, replacement=True)
print(list(w))
class D(Dataset):
    def __len__(self): return 3
    def __getitem__(self, i): return {"x": torch.full((2,), float(i)), "name": f"s{i}", "k": i}
print(next(iter(DataLoader(D(), batch_size=3))))
