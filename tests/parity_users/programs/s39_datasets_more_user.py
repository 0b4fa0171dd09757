import torch
from torch.utils.data import (TensorDataset, IterableDataset, StackDataset, DataLoader, SequentialSampler,
                              WeightedRandomSampler, BatchSampler, Subset, ConcatDataset, ChainDataset, random_split)


class L(IterableDataset):
    def __init__(s, n):
        s.n = n

    def __iter__(s):
        return iter(range(s.n))

    def __len__(s):
        return 3


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, str(f()).split(' at 0x')[0])
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% datasets and loaders 0
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: td[1:3], lambda: td[torch.tensor([0, 2])], lambda: td[-1], lambda: len(td), lambda: td.tensors[0].shape, lambda: td[10],
   lambda: StackDataset(td, td)[0], lambda: StackDataset(a=td, b=range(6))[1], lambda: len(StackDataset(td, range(5))), lambda: StackDataset(),
   lambda: StackDataset(td, a=td), lambda: StackDataset(td, td).__getitems__([0, 1]),
])
#%% datasets and loaders 1
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: list(DataLoader(L(5), batch_size=2)), lambda: len(DataLoader(L(5), batch_size=2)), lambda: len(DataLoader(L(5))),
   lambda: next(iter(DataLoader(td, batch_size=3, pin_memory=True)))[0], lambda: list(DataLoader(range(5), batch_size=2, sampler=SequentialSampler(range(5)))),
   lambda: next(iter(DataLoader([{"a": torch.ones(2), "b": 1}] * 3, batch_size=3))), lambda: list(DataLoader(td, batch_size=4, drop_last=True)),
])
#%% datasets and loaders 2
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: DataLoader(td).batch_size, lambda: DataLoader(td, batch_size=None).batch_size, lambda: DataLoader(td).drop_last, lambda: type(DataLoader(td).sampler).__name__,
   lambda: type(DataLoader(td, shuffle=True).sampler).__name__, lambda: type(DataLoader(td).batch_sampler).__name__, lambda: DataLoader(td).num_workers, lambda: DataLoader(td).dataset is td,
   lambda: DataLoader(td, multiprocessing_context="spawn"), lambda: DataLoader(td, collate_fn=3), lambda: list(DataLoader(td, batch_size=2, collate_fn=lambda b: len(b))),
])
#%% datasets and loaders 3
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: iter(DataLoader(td))._num_yielded if False else next(iter(DataLoader(td, batch_size=2))), lambda: list(DataLoader([1, 2, 3], batch_size=2)), lambda: list(DataLoader([[1, 2], [3, 4]], batch_size=2)),
   lambda: list(DataLoader(["a", "b", "c"], batch_size=2)), lambda: list(DataLoader([(1, "a"), (2, "b")], batch_size=2)), lambda: list(DataLoader([1.5, 2.5], batch_size=2))[0].dtype,
   lambda: random_split(range(5), [2, 2]), lambda: [len(s) for s in random_split(range(5), [0.4, 0.4, 0.2])], lambda: [len(s) for s in random_split(range(7), [0.33, 0.33, 0.34])],
])
#%% datasets and loaders 4
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: SequentialSampler(range(3)), lambda: len(WeightedRandomSampler([1, 1], 5)), lambda: WeightedRandomSampler([1, -1], 2), lambda: WeightedRandomSampler([[1, 1]], 2),
   lambda: WeightedRandomSampler([1, 1], 0), lambda: list(WeightedRandomSampler([0, 1], 3, replacement=True)), lambda: list(WeightedRandomSampler([0, 1, 1], 3, replacement=False)),
   lambda: BatchSampler(range(3), 2, False)[0] if False else len(BatchSampler(range(3), 2, False)), lambda: Subset(td, [1])[0], lambda: len(ConcatDataset([td, td])),
])
#%% datasets and loaders 5
td = TensorDataset(torch.arange(6), torch.arange(6) * 10)
run([
   lambda: ConcatDataset([td, L(3)]), lambda: len(ChainDataset([L(2), L(3)])), lambda: td + td, lambda: (td + td)[7],
])
#%% multiprocessing_context and StackDataset batches
import multiprocessing as mp
for ctx in ['spawn', 'bogus', 3]:
  for nw in [0, 1]:
    try: DataLoader([1], num_workers=nw, multiprocessing_context=ctx); print(ctx, nw, 'ok')
    except Exception as e: print(ctx, nw, type(e).__name__, e)
td = TensorDataset(torch.arange(4))
print(StackDataset(a=td, b=range(4)).__getitems__([1, 3]), next(iter(DataLoader(StackDataset(a=td, b=range(4)), batch_size=2))))
class G(torch.utils.data.Dataset):
    def __len__(s): return 4
    def __getitem__(s, i): return i
    def __getitems__(s, idx): return [0]
try: StackDataset(td, G()).__getitems__([1, 2])
except Exception as e: print(type(e).__name__, e)
