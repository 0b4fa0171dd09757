import torch
from torch.utils.data import DataLoader, TensorDataset, Dataset, SequentialSampler, RandomSampler, BatchSampler, SubsetRandomSampler, WeightedRandomSampler, random_split, ConcatDataset, Subset
#%% batching, drop_last, len
ds = TensorDataset(torch.arange(10.0).unsqueeze(1), torch.arange(10))
dl = DataLoader(ds, batch_size=4)
print(len(dl), [tuple(x.shape) for x, _ in dl], len(DataLoader(ds, batch_size=4, drop_last=True)))
print(next(iter(dl)))
#%% samplers
g = torch.Generator().manual_seed(0)
print(list(SequentialSampler(range(4))), list(RandomSampler(range(5), generator=g)), list(BatchSampler(range(7), 3, drop_last=False)))
print(list(SubsetRandomSampler([1, 3, 5], generator=torch.Generator().manual_seed(1))), list(WeightedRandomSampler([0.1, 0.9, 0.0], 5, generator=torch.Generator().manual_seed(2))))
dl = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 3, True))
print([y.tolist() for _, y in dl])
dl = DataLoader(ds, batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(3))
print([y.tolist() for _, y in dl])
#%% custom collate and dict samples
class D(Dataset):
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return {"x": torch.full((2,), float(i)), "id": i, "name": f"s{i}", "pair": (i, i * 2.0)}
print(next(iter(DataLoader(D(), batch_size=3))))
print(next(iter(DataLoader(D(), batch_size=2, collate_fn=lambda b: [s["id"] for s in b]))))
print(next(iter(DataLoader(D(), batch_size=None))))
#%% splits, concat, subset and errors
a, b = random_split(range(10), [7, 3], generator=torch.Generator().manual_seed(0))
print(list(a), list(b), len(ConcatDataset([ds, ds])), Subset(ds, [2, 4])[1])
print([len(s) for s in random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))])
try:
    random_split(range(10), [5, 6])
except ValueError as e:
    print(e)
try:
    DataLoader(ds, batch_size=2, shuffle=True, sampler=SequentialSampler(ds))
except ValueError as e:
    print(e)
try:
    TensorDataset(torch.ones(3), torch.ones(4))
except AssertionError as e:
    print("AssertionError", e)
