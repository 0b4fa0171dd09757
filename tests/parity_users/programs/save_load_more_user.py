import torch
import io
import os
import tempfile
import numpy as np
from collections import OrderedDict, namedtuple


def roundtrip(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kw)
#%% views and offsets keep sharing
base = torch.arange(10.0)
obj = [base[2:5], base[4:], base.view(2, 5)[:, 1], base]
out = roundtrip(obj)
out[3][4] = -1
print(out[0], out[1][0], out[2], out[0].storage_offset(), out[2].stride(), out[0].untyped_storage().size())
#%% empty and odd shaped tensors and dtypes
objs = [torch.empty(0, 3), torch.zeros(2, 0, dtype=torch.int16), torch.tensor(5, dtype=torch.uint8), torch.ones(2, dtype=torch.bfloat16) / 3, torch.tensor([1 + 1j], dtype=torch.complex128), torch.tensor([True]), torch.ones(3).expand(2, 3), torch.ones(2, 3).t()]
for o in roundtrip(objs):
    print(o.dtype, o.shape, o.stride(), o.tolist())
#%% mmap and weights_only with numpy and containers
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ck.pt")
    torch.save({"w": torch.arange(4.0), "od": OrderedDict(a=torch.ones(1)), "t": (1, 2.5, "s", None, True), "sl": slice(1, 2), "r": range(3)}, path)
    ck = torch.load(path, mmap=True, weights_only=True)
    print(ck["w"], type(ck["od"]).__name__, ck["t"], ck["sl"], ck["r"])
    torch.save({"np": np.arange(3)}, path)
    try:
        torch.load(path, weights_only=True)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:90])
    print(torch.load(path, weights_only=False)["np"])
#%% map_location variants
buf = io.BytesIO()
torch.save({"a": torch.ones(2)}, buf)
for ml in ("cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s, None):
    buf.seek(0)
    print(type(ml).__name__, torch.load(buf, map_location=ml)["a"].device)
#%% namedtuple and custom class need weights_only false
Point = namedtuple("Point", "x y")
class Box:
    def __init__(self, v):
        self.v = v
buf = io.BytesIO()
torch.save({"p": Point(torch.ones(1), 2), "b": Box(torch.zeros(1))}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0][:100])
buf.seek(0)
o = torch.load(buf, weights_only=False)
print(o["p"], o["b"].v)
#%% parameters and requires grad survive
p = torch.nn.Parameter(torch.ones(2))
q = torch.ones(2, requires_grad=True)
o = roundtrip({"p": p, "q": q, "d": q.detach()})
print(type(o["p"]).__name__, o["p"].requires_grad, o["q"].requires_grad, o["q"].is_leaf, o["d"].requires_grad)
try:
    roundtrip(q * 2)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:100])
#%% state dict of whole model with buffers and load into fresh
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(), torch.nn.LazyLinear(3) if False else torch.nn.Linear(2 * 4 * 4, 3))
m(torch.randn(2, 1, 6, 6))
sd = roundtrip(m.state_dict())
m2 = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(), torch.nn.Linear(32, 3))
print(m2.load_state_dict(sd), torch.equal(m2[1].running_mean, m[1].running_mean), m2[1].num_batches_tracked, list(sd.keys())[:3], type(sd).__name__, sd._metadata[""] if hasattr(sd, "_metadata") else None)
#%% save to path twice and file like errors
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "x.pt")
    torch.save(torch.ones(1), path)
    torch.save(torch.zeros(1), path)
    print(torch.load(path), os.path.getsize(path) > 0)
    try:
        torch.load(os.path.join(d, "missing.pt"))
    except FileNotFoundError as e:
        print(type(e).__name__, e.errno)
    with open(path, "wb") as f:
        f.write(b"not a checkpoint")
    try:
        torch.load(path)
    except Exception as e:
        print(type(e).__name__)
