import torch
import numpy as np
import collections
from torch.utils.data import default_collate, default_convert, DataLoader
#%% numpy arrays and scalars
print(default_collate([np.array([1, 2]), np.array([3, 4])]))
print(default_collate([np.float32(1.5), np.float32(2.5)]))
print(default_collate([np.int64(3), np.int64(4)]))
print(default_collate([np.array(1.0), np.array(2.0)]))
print(default_collate([np.bool_(True), np.bool_(False)]))
print(default_collate([1.5, 2]), default_collate([1, 2]), default_collate([True, False]))
print(default_collate([np.array([1, 2], dtype=np.uint8), np.array([3, 4], dtype=np.uint8)]).dtype)
print(default_collate([np.array([1, 2], dtype=np.float16)]).dtype)
#%% strings, bytes, None errors
print(default_collate(["a", "b"]), default_collate([b"x", b"y"]))
for batch in [[None, None], [object(), object()], [np.array(["a", "b"]), np.array(["c", "d"])],
              [np.array([object()])], [{1, 2}, {3}], [1, "a"]]:
    try:
        print(default_collate(batch))
    except Exception as e:
        print(type(e).__name__, e)
#%% shape mismatches and mixed types
for batch in [[torch.ones(2), torch.ones(3)], [np.ones(2), np.ones(3)], [[1, 2], [3]], [torch.ones(2), np.ones(2)],
              [{"a": 1}, {"b": 2}], [(1, 2), (3, 4, 5)]]:
    try:
        print(default_collate(batch))
    except Exception as e:
        print(type(e).__name__, str(e).replace("\n", " | ")[:200])
#%% nested structures
P = collections.namedtuple("P", ["img", "label"])
print(default_collate([P(np.zeros((1, 2)), 0), P(np.ones((1, 2)), 1)]))
print(default_collate([{"x": [1, 2], "y": {"z": np.float64(1.0)}}, {"x": [3, 4], "y": {"z": np.float64(2.0)}}]))
print(default_collate([[torch.tensor(1), "s"], [torch.tensor(2), "t"]]))
print(default_collate([(torch.zeros(2, dtype=torch.int16),), (torch.ones(2, dtype=torch.int16),)]))
print(type(default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])).__name__)
print(default_collate([torch.tensor(True), torch.tensor(False)]))
print(default_collate([]) if False else "skip empty")
try:
    default_collate([])
except Exception as e:
    print(type(e).__name__, e)
#%% default_convert
print(default_convert(np.array([1, 2])), default_convert(np.float64(2.0)), default_convert("s"))
print(default_convert([np.array([1]), (np.array([2.5]),)]))
print(default_convert({"a": np.zeros(2, dtype=np.int32)}))
print(default_convert(np.array(["a"])))
print(default_convert(3))
dl = DataLoader([np.array([1, 2]), np.array([3, 4])], batch_size=None)
print(list(dl))
#%% custom collate_fn with padding
def pad_collate(batch):
    seqs = [torch.tensor(s) for s in batch]
    lens = torch.tensor([len(s) for s in seqs])
    return torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1), lens
dl = DataLoader([[1, 2, 3], [4], [5, 6]], batch_size=3, collate_fn=pad_collate)
x, l = next(iter(dl))
print(x, l)
try:
    next(iter(DataLoader([[1, 2, 3], [4]], batch_size=2)))
except Exception as e:
    print(type(e).__name__, e)
