import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split, Subset, ConcatDataset, WeightedRandomSampler, BatchSampler, SequentialSampler, RandomSampler
#%% random_split fractions
ds = TensorDataset(torch.arange(10))
a, b, c = random_split(ds, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print(len(a), len(b), len(c), [int(x[0]) for x in a])
#%% random_split bad
try:
    random_split(ds, [3, 3])
except Exception as e:
    print(type(e).__name__, e)
#%% random_split fractions uneven
a, b = random_split(range(7), [0.5, 0.5])
print(len(a), len(b))
#%% concat subset
cd = ConcatDataset([TensorDataset(torch.zeros(3)), TensorDataset(torch.ones(2))])
print(len(cd), cd[3], cd.cumulative_sizes, Subset(cd, [0, 4])[1])
#%% batch sampler
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)))
print(len(BatchSampler(range(10), 4, False)))
#%% weighted sampler
g = torch.Generator().manual_seed(0)
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 6, replacement=True, generator=g)))
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 3, replacement=False, generator=g)))
#%% weighted sampler bad
try:
    WeightedRandomSampler([0.1, -1.0], 2)
except Exception as e:
    print(type(e).__name__, e)
#%% random sampler num_samples
g = torch.Generator().manual_seed(3)
print(list(RandomSampler(range(5), num_samples=8, generator=g)), list(RandomSampler(range(5), replacement=True, num_samples=4, generator=g)))
#%% collate nested
from collections import namedtuple
P = namedtuple("P", "x y")
data = [{"a": torch.tensor([1, 2]), "b": P(1.5, "s"), "c": [3, (4, 5)]} for _ in range(3)]
batch = next(iter(DataLoader(data, batch_size=3)))
print(batch)
#%% collate numpy strings
import numpy as np
dl = DataLoader([(np.float32(1.0), np.array([1, 2]), "x") for _ in range(2)], batch_size=2)
print(next(iter(dl)))
#%% collate mismatched
try:
    next(iter(DataLoader([torch.zeros(2), torch.zeros(3)], batch_size=2)))
except Exception as e:
    print(type(e).__name__, e)
#%% dataloader len
dl = DataLoader(range(10), batch_size=3, drop_last=True)
print(len(dl), [b.tolist() for b in dl])
dl = DataLoader(range(10), batch_size=None)
print(len(dl), next(iter(dl)))
#%% dataloader bad args
for kw in [dict(batch_size=0), dict(shuffle=True, sampler=SequentialSampler(range(3))), dict(batch_sampler=BatchSampler(range(3), 2, False), batch_size=2), dict(num_workers=-1), dict(timeout=-1)]:
    try:
        DataLoader(range(3), **kw)
        print("ok", kw)
    except Exception as e:
        print(type(e).__name__, e)
#%% schedulers onecycle
m = nn.Linear(2, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
lrs = []
for _ in range(10):
    opt.step(); s.step(); lrs.append(round(s.get_last_lr()[0], 6))
print(lrs, round(opt.param_groups[0]["momentum"], 6))
#%% schedulers cosine restarts
opt = torch.optim.SGD(m.parameters(), lr=0.1)
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
lrs = []
for i in range(10):
    opt.step(); s.step(); lrs.append(round(s.get_last_lr()[0], 6))
print(lrs)
#%% plateau
opt = torch.optim.SGD(m.parameters(), lr=0.1)
s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
for loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]:
    s.step(loss); print(opt.param_groups[0]["lr"], end=" ")
print(s.get_last_lr())
#%% chained sequential
opt = torch.optim.SGD(m.parameters(), lr=1.0)
s1 = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
s2 = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
s = torch.optim.lr_scheduler.SequentialLR(opt, [s1, s2], milestones=[3])
lrs = []
for i in range(6):
    opt.step(); s.step(); lrs.append(round(opt.param_groups[0]["lr"], 6))
print(lrs)
#%% lambda + state dict
opt = torch.optim.SGD(m.parameters(), lr=1.0)
s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
opt.step(); s.step(); opt.step(); s.step()
print(sorted(s.state_dict().keys()), s.last_epoch, s.get_last_lr())
#%% pad pack
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence
seqs = [torch.tensor([1., 2., 3.]), torch.tensor([4.]), torch.tensor([5., 6.])]
p = pad_sequence(seqs, batch_first=True, padding_value=-1)
print(p)
print(pad_sequence(seqs, padding_side="left", batch_first=True))
packed = pack_padded_sequence(p.unsqueeze(-1), torch.tensor([3, 1, 2]), batch_first=True, enforce_sorted=False)
print(packed.data.squeeze(-1), packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
out, lens = pad_packed_sequence(packed, batch_first=True, total_length=4)
print(out.squeeze(-1), lens)
print(pack_sequence(seqs, enforce_sorted=False).batch_sizes)
#%% pack errors
try:
    pack_padded_sequence(p.unsqueeze(-1), torch.tensor([3, 1, 2]), batch_first=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    pack_padded_sequence(p.unsqueeze(-1), torch.tensor([3, 0, 2]), batch_first=True, enforce_sorted=False)
except Exception as e:
    print(type(e).__name__, e)
#%% lstm packed
torch.manual_seed(0)
lstm = nn.LSTM(1, 2, batch_first=True)
o, (h, c) = lstm(packed)
print(type(o).__name__, h.shape, torch.round(h, decimals=4))
#%% einsum etc
a = torch.arange(6.).reshape(2, 3); b = torch.arange(12.).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ii", torch.eye(3)), torch.einsum("i,j", torch.ones(2), torch.arange(3.)))
print(torch.tensordot(a, b, dims=1).shape, torch.tensordot(a, b, dims=([1], [0])).sum())
print(torch.kron(torch.eye(2), torch.ones(2, 2)))
print(torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])))
print(torch.combinations(torch.tensor([1, 2, 3]), r=2), torch.combinations(torch.tensor([1, 2, 3]), with_replacement=True).shape)
#%% einsum errors
for eq, ops in [("ij,jk->ik", (a, a)), ("ij->k", (a,)), ("ij", (a, b))]:
    try:
        torch.einsum(eq, *ops)
    except Exception as e:
        print(type(e).__name__, e)
#%% meshgrid
x, y = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
print(x, y)
x, y = torch.meshgrid(torch.arange(2), torch.arange(3))
print(x.shape)
#%% split chunk errors
t = torch.arange(10)
print([s.tolist() for s in t.split([3, 7])], [s.tolist() for s in t.chunk(3)], [s.tolist() for s in t.tensor_split(3)], [s.tolist() for s in t.tensor_split([2, 5])])
try:
    t.split([3, 3])
except Exception as e:
    print(type(e).__name__, e)
try:
    t.chunk(0)
except Exception as e:
    print(type(e).__name__, e)
#%% unflatten movedim
t = torch.arange(24).reshape(2, 12)
print(t.unflatten(1, (3, -1)).shape, t.unflatten(1, (3, 4)).movedim(0, -1).shape, torch.movedim(t.reshape(2, 3, 4), (0, 1), (2, 0)).shape)
try:
    t.unflatten(1, (5, -1))
except Exception as e:
    print(type(e).__name__, e)
#%% one_hot
print(F.one_hot(torch.tensor([0, 2, 1]), 4), F.one_hot(torch.tensor([[1], [0]])).shape)
for bad in [torch.tensor([0, 5]), torch.tensor([-1]), torch.tensor([0.5])]:
    try:
        F.one_hot(bad, 3)
    except Exception as e:
        print(type(e).__name__, e)
#%% embedding bag
eb = nn.EmbeddingBag(10, 3, mode="mean")
torch.manual_seed(0); nn.init.normal_(eb.weight)
print(torch.round(eb(torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2])), decimals=4))
eb2 = nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)
print(eb2(torch.tensor([[1, 0], [0, 0]])).shape)
