import torch
import io
import collections
from torch.utils.data import DataLoader, TensorDataset, Dataset, random_split, Subset, ConcatDataset, WeightedRandomSampler, BatchSampler, SequentialSampler, RandomSampler
#%% loader basics
ds = TensorDataset(torch.arange(10.0), torch.arange(10) % 3)
dl = DataLoader(ds, batch_size=4, shuffle=False, drop_last=False)
print(len(dl), [b[0].tolist() for b in dl], next(iter(dl))[1].dtype)
torch.manual_seed(0)
print([b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True)])
print(list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=True)), len(RandomSampler(range(5), num_samples=3)))
g = torch.Generator().manual_seed(1)
print(list(WeightedRandomSampler([0.1, 0.9, 0.0], 5, generator=g)), list(RandomSampler(range(4), generator=torch.Generator().manual_seed(2))))
#%% random split
a, b = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(42))
print(list(a), list(b), len(a), type(a).__name__)
c, d = random_split(range(5), [2, 3], generator=torch.Generator().manual_seed(0))
print(list(c), list(d))
#%% random split bad
random_split(range(10), [3, 3])
#%% collate
Point = collections.namedtuple("Point", ["x", "y"])
class DS(Dataset):
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return {"a": i, "b": torch.ones(2) * i, "c": Point(i, float(i)), "s": "s%d" % i, "t": (i, [i, i])}
batch = next(iter(DataLoader(DS(), batch_size=3)))
print(batch)
print(type(batch["c"]).__name__, batch["a"].dtype, batch["c"].y.dtype)
print(torch.utils.data.default_collate([torch.tensor(1), torch.tensor(2)]), torch.utils.data.default_collate([1.5, 2.5]).dtype)
#%% collate mismatch
torch.utils.data.default_collate([torch.ones(2), torch.ones(3)])
#%% save load
buf = io.BytesIO()
obj = {"t": torch.arange(6).view(2, 3)[:, 1:], "list": [torch.tensor(1.5), 3, "x"], "tuple": (torch.ones(2, dtype=torch.bfloat16),), "od": collections.OrderedDict(a=torch.zeros(1, dtype=torch.complex64)), "none": None, "dtype": torch.float16, "size": torch.Size([2, 3]), "dev": torch.device("cpu")}
torch.save(obj, buf)
buf.seek(0)
out = torch.load(buf)
print(out, out["t"].is_contiguous(), out["t"].stride())
#%% save shared storage
buf = io.BytesIO()
x = torch.arange(6.0)
torch.save([x, x[2:]], buf)
buf.seek(0)
a, b = torch.load(buf)
a[3] = 100
print(b, b.storage_offset())
#%% weights only rejects
class Foo:
    pass
buf = io.BytesIO()
torch.save({"foo": Foo()}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
buf.seek(0)
print(type(torch.load(buf, weights_only=False)["foo"]).__name__)
#%% load garbage (the class only: numtorch words the message its own way)
for data in [b"not a checkpoint at all", b"PK\x03\x04junk", b"\x80\x02K\x05."]:
    try:
        torch.load(io.BytesIO(data))
    except Exception as e:
        print(type(e).__name__)
#%% load empty
torch.load(io.BytesIO(b""))
#%% module state round trip
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
buf = io.BytesIO()
torch.save(m.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
print(list(sd.keys()), type(sd).__name__, sd["1.num_batches_tracked"])
