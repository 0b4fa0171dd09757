import torch
import torch.nn as nn
import io
from collections import OrderedDict
def roundtrip(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kw)
#%% containers of tensors
obj = {"a": torch.arange(3), "b": [torch.ones(2, dtype=torch.float16), (torch.tensor(True), 3.5)], "c": OrderedDict(x=torch.zeros(1, 2))}
back = roundtrip(obj)
print(back, type(back["c"]).__name__)
#%% shared storage survives
x = torch.arange(6.0)
v = x[2:4]
a, b = roundtrip([x, v])
b[0] = 100
print(a, b, b.storage_offset(), b._base is None)
#%% dtypes and special values
ts = [torch.tensor([1.5], dtype=d) for d in (torch.float32, torch.float64, torch.bfloat16, torch.int8, torch.uint8, torch.int64, torch.complex64)]
print([t.dtype for t in roundtrip(ts)], roundtrip(torch.tensor([float("nan"), -0.0, float("inf")])))
#%% requires_grad and parameters
p = nn.Parameter(torch.ones(2))
t = torch.ones(2, requires_grad=True)
bp, bt = roundtrip([p, t])
print(type(bp).__name__, bp.requires_grad, bt.requires_grad, bt.is_leaf)
#%% state dict into a fresh model
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
m(torch.randn(4, 2))
sd = roundtrip(m.state_dict())
m2 = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
print(m2.load_state_dict(sd), torch.equal(m2[1].running_mean, m[1].running_mean), m2[1].num_batches_tracked)
#%% optimizer checkpoint resume
torch.manual_seed(0)
m = nn.Linear(2, 1)
opt = torch.optim.Adam(m.parameters(), lr=0.1)
m(torch.ones(1, 2)).sum().backward(); opt.step()
ck = roundtrip({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3})
m2 = nn.Linear(2, 1); opt2 = torch.optim.Adam(m2.parameters(), lr=0.1)
m2.load_state_dict(ck["model"]); opt2.load_state_dict(ck["opt"])
for mm, oo in ((m, opt), (m2, opt2)):
    oo.zero_grad(); mm(torch.ones(1, 2)).sum().backward(); oo.step()
print(torch.equal(m.weight, m2.weight), ck["epoch"], opt2.state_dict()["state"][0]["step"])
#%% weights_only refusals
class Custom:
    pass
buf = io.BytesIO()
torch.save({"x": Custom()}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:120])
buf.seek(0)
print(type(torch.load(buf, weights_only=False)["x"]).__name__)
#%% map_location and file paths
import tempfile, os
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "t.pt")
    torch.save(torch.ones(2), path)
    print(torch.load(path, map_location="cpu"), torch.load(path, map_location=torch.device("cpu")).device, torch.load(path, map_location=lambda s, loc: s))
    try:
        torch.load(os.path.join(d, "missing.pt"))
    except Exception as e:
        print(type(e).__name__)
#%% load errors
try:
    torch.load(io.BytesIO(b"not a checkpoint"))
except Exception as e:
    print(type(e).__name__, str(e)[:80])
try:
    torch.save(torch.ones(1), 5)
except Exception as e:
    print(type(e).__name__, str(e)[:80])
for f in [5, None]:
    try:
        torch.load(f)
    except Exception as e:
        print(type(e).__name__, e)
