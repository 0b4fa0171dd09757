import torch
from torch.utils.data import Dataset, DataLoader, TensorDataset, Subset, ConcatDataset, default_collate
import numpy as np


class Rescale:
    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample['image'], sample['landmarks']
        return {'image': image * self.output_size, 'landmarks': landmarks + 1}


class ToTensor:
    def __call__(self, sample):
        image, landmarks = sample['image'], sample['landmarks']
        image = image.transpose((2, 0, 1))
        return {'image': torch.from_numpy(image), 'landmarks': torch.from_numpy(landmarks)}


class FaceLandmarksDataset(Dataset):
    def __init__(self, n, transform=None):
        rng = np.random.RandomState(0)
        self.images = rng.rand(n, 4, 4, 3).astype(np.float32)
        self.landmarks = rng.rand(n, 2, 2)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        sample = {'image': self.images[idx], 'landmarks': self.landmarks[idx]}
        if self.transform:
            sample = self.transform(sample)
        return sample
#%% custom dataset with transforms
class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, s):
        for t in self.ts:
            s = t(s)
        return s


ds = FaceLandmarksDataset(6, transform=Compose([Rescale(2), ToTensor()]))
s = ds[torch.tensor(1)]
print(s['image'].shape, s['image'].dtype, s['landmarks'].dtype, s['landmarks'].shape)
dl = DataLoader(ds, batch_size=4, shuffle=False, num_workers=0)
for i, batch in enumerate(dl):
    print(i, batch['image'].size(), batch['landmarks'].size(), batch['landmarks'].dtype)
print(len(dl), len(ds))
dl = DataLoader(ds, batch_size=4, drop_last=True)
print(len(dl), [b['image'].shape for b in dl])
#%% collate of mixed things
print(default_collate([1, 2, 3]), default_collate([1.5, 2.5]), default_collate([True, False]))
print(default_collate([(1, 'a'), (2, 'b')]))
print(default_collate([{'x': np.float64(1.0), 'y': np.array([1, 2])}, {'x': np.float64(2.0), 'y': np.array([3, 4])}]))
print(default_collate([torch.ones(2, dtype=torch.int8), torch.zeros(2, dtype=torch.int8)]))
print(default_collate([np.int32(3), np.int32(4)]))
print(default_collate([[1, 2], [3, 4]]))
try:
    default_collate([torch.ones(2), torch.ones(3)])
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
try:
    default_collate([object(), object()])
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0].split(" at 0x")[0])
try:
    default_collate([[1, 2], [3]])
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
print(DataLoader([np.array([1, 2]), np.array([3, 4])], batch_size=2).__iter__().__next__())
#%% tensor datasets, subsets, samplers
X = torch.arange(20.).view(10, 2)
Y = torch.arange(10)
td = TensorDataset(X, Y)
print(td[3], len(td), td[torch.tensor([1, 2])])
try:
    TensorDataset(X, Y[:5])
except Exception as e:
    print(type(e).__name__, e)
sub = Subset(td, [0, 5, 9])
print(len(sub), sub[1], sub[-1])
cd = ConcatDataset([sub, td])
print(len(cd), cd[3], cd.cumulative_sizes)
bl = list(DataLoader(td, batch_size=3, sampler=torch.utils.data.SequentialSampler(td)))
print(len(bl), bl[-1])
torch.manual_seed(0)
print(list(torch.utils.data.RandomSampler(range(5))), list(torch.utils.data.RandomSampler(range(5), replacement=True, num_samples=3)))
print(list(torch.utils.data.BatchSampler(range(7), 3, False)), list(torch.utils.data.BatchSampler(range(7), 3, True)))
torch.manual_seed(0)
print(list(torch.utils.data.WeightedRandomSampler([0.1, 0.9, 0.0], 5)))
print(list(torch.utils.data.SubsetRandomSampler([4, 7, 9], generator=torch.Generator().manual_seed(2))))
dl = DataLoader(td, batch_size=None)
print(next(iter(dl)))
dl = DataLoader(td, batch_size=4, collate_fn=lambda b: len(b))
print(list(dl))
try:
    DataLoader(td, batch_size=4, shuffle=True, sampler=torch.utils.data.SequentialSampler(td))
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(td, batch_size=0)
except Exception as e:
    print(type(e).__name__, e)
#%% iterable dataset
class Counter(torch.utils.data.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


dl = DataLoader(Counter(7), batch_size=3)
print(list(dl))
try:
    len(dl)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(Counter(3), shuffle=True)
except Exception as e:
    print(type(e).__name__, e)
print(list(torch.utils.data.ChainDataset([Counter(2), Counter(3)])))
