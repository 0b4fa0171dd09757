import torch, io, os, tempfile
import torch.nn as nn
d = tempfile.mkdtemp()
#%% save load basics
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
p = os.path.join(d, "m.pt")
torch.save(m.state_dict(), p)
sd = torch.load(p)
print(list(sd.keys()), sd["1.num_batches_tracked"], type(sd).__name__)
sd2 = torch.load(p, map_location="cpu", weights_only=True, mmap=True)
print(torch.equal(sd2["0.weight"], m[0].weight), sd2["0.weight"].requires_grad)
#%% shared storage and views
x = torch.arange(10.)
obj = {"a": x, "b": x[2:5], "c": x.view(2, 5)}
buf = io.BytesIO(); torch.save(obj, buf); buf.seek(0)
o = torch.load(buf)
o["a"][3] = 100.0
print(o["b"], o["c"][0], o["b"].storage_offset())
#%% load whole model weights_only errors
buf = io.BytesIO(); torch.save(m, buf); buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
buf.seek(0)
m2 = torch.load(buf, weights_only=False)
print(type(m2).__name__, m2)
#%% safe globals
class Cfg:
    def __init__(self): self.lr = 0.1
buf = io.BytesIO(); torch.save({"cfg": Cfg(), "w": torch.ones(1)}, buf); buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0][:150])
buf.seek(0)
with torch.serialization.safe_globals([Cfg]):
    print(torch.load(buf)["cfg"].lr)
print(torch.serialization.get_safe_globals()[:0])
#%% odd objects
import collections
buf = io.BytesIO()
obj = {"od": collections.OrderedDict(a=torch.tensor(1)), "t": (1, 2.5, "s", None, True), "set": {1, 2}, "bytes": b"x", "dtype": torch.float16, "size": torch.Size([2, 3]), "dev": torch.device("cpu"), "big": 2**70, "c": 1 + 2j, "slice": slice(1, 2)}
torch.save(obj, buf); buf.seek(0)
try:
    o = torch.load(buf); print(o)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0][:150])
buf.seek(0); print(torch.load(buf, weights_only=False)["slice"])
#%% dtypes roundtrip
buf = io.BytesIO()
ts = {str(dt): torch.ones(2, dtype=dt) for dt in [torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.bool, torch.complex64, torch.int16, torch.float64]}
torch.save(ts, buf); buf.seek(0)
print({k: (v.dtype, v.tolist()) for k, v in torch.load(buf).items()})
#%% optimizer checkpoint resume
torch.manual_seed(0)
m = nn.Linear(2, 1); opt = torch.optim.Adam(m.parameters(), lr=0.1)
m(torch.ones(1, 2)).sum().backward(); opt.step()
ck = {"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3}
buf = io.BytesIO(); torch.save(ck, buf); buf.seek(0)
ck2 = torch.load(buf)
m3 = nn.Linear(2, 1); opt3 = torch.optim.Adam(m3.parameters(), lr=0.5)
m3.load_state_dict(ck2["model"]); opt3.load_state_dict(ck2["opt"])
print(opt3.param_groups[0]["lr"], opt3.state[m3.weight]["step"], ck2["epoch"])
#%% legacy format and pickle protocol
buf = io.BytesIO(); torch.save(torch.arange(3), buf, _use_new_zipfile_serialization=False); buf.seek(0)
print(torch.load(buf))
buf = io.BytesIO(); torch.save([torch.ones(1)], buf, pickle_protocol=4); buf.seek(0); print(torch.load(buf))
#%% load errors
for src in [os.path.join(d, "missing.pt"), io.BytesIO(b"")]:
    try:
        torch.load(src)
    except Exception as e:
        print(type(e).__name__, str(e)[:120].replace(d, "D"))
#%% map_location variants
buf = io.BytesIO(); torch.save({"w": torch.ones(2)}, buf)
for ml in ["cpu", torch.device("cpu"), lambda s, loc: s, {"cpu": "cpu"}]:
    buf.seek(0); print(torch.load(buf, map_location=ml)["w"].device)
buf.seek(0)
try:
    torch.load(buf, map_location="cuda:0")
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0][:160])
