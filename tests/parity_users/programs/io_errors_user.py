import io
import collections
import torch
import torch.nn as nn
#%% save load odd objects
buf = io.BytesIO()
obj = {"t": torch.arange(6).view(2, 3)[:, 1], "s": "hi", "n": None, "l": [1, 2.5, (3, "x")], "od": collections.OrderedDict(a=torch.ones(1)),
       "dt": torch.float16, "dev": torch.device("cpu"), "size": torch.Size([2, 3]), "b": b"raw", "set": {1, 2}, "c": 1 + 2j, "big": 2 ** 70,
       "half": torch.tensor([1.5], dtype=torch.float16), "bf": torch.tensor([1.5], dtype=torch.bfloat16), "bool": torch.tensor([True]), "cplx": torch.tensor([1j])}
torch.save(obj, buf)
buf.seek(0)
back = torch.load(buf)
for k in obj:
    print(k, type(back[k]).__name__, back[k])
#%% save shared views and storage
base = torch.arange(10.0)
buf = io.BytesIO()
torch.save([base, base[2:5], base.view(2, 5)], buf)
buf.seek(0)
a, b, c = torch.load(buf)
b[0] = 100
print(a, c, b.storage_offset(), c.stride(), a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
#%% save params and modules
m = nn.Linear(2, 2)
buf = io.BytesIO()
torch.save({"p": m.weight, "sd": m.state_dict(), "g": torch.ones(2, requires_grad=True)}, buf)
buf.seek(0)
r = torch.load(buf)
print(type(r["p"]).__name__, r["p"].requires_grad, type(r["sd"]).__name__, r["g"].requires_grad, r["g"].grad_fn)
buf = io.BytesIO()
torch.save(m, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e)[:24])
buf.seek(0)
print(type(torch.load(buf, weights_only=False)).__name__)
#%% load map_location and errors
buf = io.BytesIO()
torch.save(torch.ones(2), buf)
buf.seek(0)
print(torch.load(buf, map_location="cpu"), end=" ")
buf.seek(0)
print(torch.load(buf, map_location=lambda s, loc: s), end=" ")
buf.seek(0)
print(torch.load(buf, map_location=torch.device("cpu")))
for f in (lambda: torch.load("/nonexistent/file.pt"), lambda: torch.save(torch.ones(1), "/nonexistent/dir/x.pt"), lambda: torch.load(io.BytesIO(b"")), lambda: torch.load(io.BytesIO(b"garbage!"))):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, str(e)[:200])
#%% default collate nested
from torch.utils.data import DataLoader, TensorDataset, default_collate
Point = collections.namedtuple("Point", "x y")
batch = [{"a": torch.tensor([1.0, 2.0]), "b": (1, "s", Point(1.5, torch.tensor(2))), "c": [True, 3], "d": None if False else 7.5} for _ in range(3)]
out = default_collate(batch)
print(out)
print(default_collate([(1, 2.0), (3, 4.0)]), default_collate([[torch.ones(2), 1]] * 2), default_collate(["a", "b"]), default_collate([torch.tensor(1), torch.tensor(2)]))
import numpy as np
print(default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])]), default_collate([np.float64(1.5), np.float64(2.5)]), default_collate([np.int32(1), np.int32(2)]).dtype)
for f in (lambda: default_collate([torch.ones(2), torch.ones(3)]), lambda: default_collate([object(), object()]), lambda: default_collate([{"a": 1}, {"b": 2}]), lambda: default_collate([(1, 2), (1,)])):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).replace("0x", "")[:150])
#%% dataloader variants
ds = TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))
print([tuple(t.shape for t in b) for b in DataLoader(ds, batch_size=2)], [len(b[0]) for b in DataLoader(ds, batch_size=2, drop_last=True)], len(DataLoader(ds, batch_size=3)))
print(list(DataLoader(ds, batch_size=None))[0], list(DataLoader(ds, batch_size=2, collate_fn=lambda b: len(b))))
torch.manual_seed(0)
print([b[1].tolist() for b in DataLoader(ds, batch_size=2, shuffle=True)])
try:
    DataLoader(ds, batch_size=2, shuffle=True, sampler=range(5))
except Exception as e:
    print(type(e).__name__, e)
try:
    TensorDataset(torch.ones(3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
#%% shape mismatch errors
a, b = torch.ones(2, 3), torch.ones(4, 5)
for f in (lambda: a @ b, lambda: torch.mm(a, torch.ones(2)), lambda: torch.matmul(torch.ones(3), torch.ones(4)), lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)),
          lambda: torch.cat([a, b]), lambda: torch.cat([a, torch.ones(2, 3, 1)]), lambda: torch.stack([a, b]), lambda: a.view(4), lambda: a.t().view(6), lambda: a.reshape(5),
          lambda: a + b, lambda: a.expand(3, 3), lambda: torch.cat([]), lambda: a.view(-1, -1), lambda: a.permute(0), lambda: a.transpose(0, 2), lambda: a.squeeze(3), lambda: torch.ones(2, 3).mv(torch.ones(2))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% dtype mistakes
for f in (lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64)), lambda: nn.Embedding(3, 2)(torch.tensor([0.0, 1.0])), lambda: torch.ones(2, dtype=torch.int64) @ torch.ones(2),
          lambda: nn.Linear(2, 2)(torch.tensor([[1, 2]])), lambda: torch.ones(2).mean(dtype=torch.int64), lambda: torch.tensor([1, 2]).float().long().mean(),
          lambda: torch.zeros(2, dtype=torch.float32).index_select(0, torch.tensor([0], dtype=torch.int32)), lambda: torch.ones(2).to("cuda"), lambda: torch.device("gpu"), lambda: torch.ones(2, device="cpu:1"), lambda: torch.device("cuda:x")):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e)[:200])
#%% module call mistakes
for f in (lambda: nn.Linear(3, 2)(torch.ones(2, 2)), lambda: nn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5)), lambda: nn.Conv2d(3, 4, 3)(torch.ones(3, 2, 2)), lambda: nn.BatchNorm1d(3)(torch.ones(1, 3)),
          lambda: nn.LSTM(3, 4)(torch.ones(5, 2, 2)), lambda: nn.Linear(2, 2)(), lambda: nn.Sequential(nn.Linear(2, 2))[3], lambda: nn.LayerNorm(4)(torch.ones(2, 3)), lambda: nn.MaxPool2d(3)(torch.ones(1, 1, 2, 2)),
          lambda: nn.Embedding(3, 2)(torch.tensor([3])), lambda: nn.Conv1d(2, 2, 3, padding="same", stride=2)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e)[:200])
#%% autograd mistakes
x = torch.ones(2, requires_grad=True)
y = x * 2
for f in (lambda: y.backward(), lambda: torch.ones(2).backward(), lambda: x.numpy(), lambda: (x * 2).sum().backward() or (x * 2).sum().backward() or x.grad, lambda: torch.autograd.grad(y.sum(), x) and torch.autograd.grad(y.sum(), x),
          lambda: torch.autograd.grad((x * 2).sum(), torch.ones(2, requires_grad=True)), lambda: x.grad.zero_() if x.grad is not None else None, lambda: torch.tensor([1, 2], requires_grad=True), lambda: x.item()):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e)[:200])
