import io
import os
import pickle
import re
import tempfile
import zipfile
import torch


def first(e, n=3):
    """The exception class and its first lines, pids and paths masked."""
    text = "\n".join(str(e).splitlines()[:n])
    text = re.sub(r"pid\(?s?\)? [0-9, ]+", "pid N", text)
    text = re.sub(r"/tmp/[^ :']+", "PATH", text)
    return f"{type(e).__name__}: {text}"


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def zip_of(records, name="archive"):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in records.items():
            z.writestr(f"{name}/{k}", v)
    return buf.getvalue()
#%% evil pickle via weights_only default
buf = io.BytesIO()
torch.save({"w": torch.ones(2), "x": Evil()}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(first(e, 8))
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except pickle.UnpicklingError as e:
    print("unpickling error", "os.system" in str(e) or "posix.system" in str(e))
#%% evil raw pickle file not a zip
raw = pickle.dumps(Evil(), protocol=2)
f = io.BytesIO(raw)
try:
    torch.load(f)
except Exception as e:
    print(first(e, 8))
f = io.BytesIO(pickle.dumps({"a": 1, "b": [1.5, "x"]}, protocol=2))
try:
    print(torch.load(f))
except Exception as e:
    print(first(e))
#%% garbage and empty files
for data in [b"", b"\x00" * 10, b"PK\x03\x04garbage", b"not a checkpoint at all" * 3]:
    try:
        torch.load(io.BytesIO(data))
    except Exception as e:
        print(first(e, 2))
#%% truncated checkpoint like a killed writer
buf = io.BytesIO()
torch.save({"w": torch.arange(1000.0)}, buf)
data = buf.getvalue()
for cut in [len(data) // 2, 60, 10]:  # (torch's reader fails in a seek when only the end records are cut)
    try:
        torch.load(io.BytesIO(data[:cut]))
    except Exception as e:
        print(cut > 0, first(e, 1))
#%% zip without data pkl
try:
    torch.load(io.BytesIO(zip_of({"version": b"3\n"})))
except Exception as e:
    print(first(e, 2))
#%% zip with pickle referring to missing storage
buf = io.BytesIO()
torch.save(torch.ones(3), buf)
z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
names = z.namelist()
print([n.split("/", 1)[1] for n in names])
recs = {n.split("/", 1)[1]: z.read(n) for n in names if not n.endswith("data/0")}
try:
    torch.load(io.BytesIO(zip_of(recs)))
except Exception as e:
    print(first(e, 1))
recs = {n.split("/", 1)[1]: z.read(n) for n in names}
recs["data/0"] = recs["data/0"][:4]
try:
    print(torch.load(io.BytesIO(zip_of(recs))))
except Exception as e:
    print(first(e, 1))
#%% evil global inside a zip checkpoint weights_only
class Box:
    def __init__(self, v):
        self.v = v
import sys
sys.modules["__main__"].Box = Box  # picklable by reference, as a script's class is
buf = io.BytesIO()
torch.save({"box": Box(torch.zeros(1))}, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except pickle.UnpicklingError as e:
    lines = str(e).splitlines()
    print(len(lines) > 3, [l for l in lines if "GLOBAL" in l])
buf.seek(0)
print(type(torch.load(buf, weights_only=False)["box"]).__name__)
buf.seek(0)
with torch.serialization.safe_globals([Box]):
    print(type(torch.load(buf)["box"]).__name__)
print(Box in torch.serialization.get_safe_globals())
#%% weights_only allowed odd values
import collections
obj = {"od": collections.OrderedDict(a=torch.tensor(1)), "t": (1, 2.5, None, True, "s", b"b"), "dt": torch.float16,
       "size": torch.Size([2, 3]), "dev": torch.device("cpu"), "slice": slice(1, 2), "c": 1 + 2j, "set": {1, 2}}
buf = io.BytesIO()
torch.save(obj, buf)
buf.seek(0)
try:
    print(torch.load(buf, weights_only=True))
except Exception as e:
    print(first(e, 4), [l for l in str(e).splitlines() if "GLOBAL" in l])
#%% file paths errors
d = tempfile.mkdtemp()
for path in [os.path.join(d, "missing.pt"), d]:
    try:
        torch.load(path)
    except Exception as e:
        print(type(e).__name__, e.errno if hasattr(e, "errno") else None)
try:
    torch.save(torch.ones(1), os.path.join(d, "nodir", "x.pt"))
except Exception as e:
    print(first(e, 1))
p = os.path.join(d, "ok.pt")
torch.save([torch.ones(2)], p)
print(torch.load(p, map_location="cpu"), torch.load(p, mmap=True))
try:
    with open(p, "rb") as fh:
        torch.load(io.BytesIO(fh.read()), mmap=True)
except Exception as e:
    print(first(e, 1))
#%% killed dataloader worker
import signal
class Killer(torch.utils.data.Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        if i == 0:  # (killed before any batch: which sent batches arrive first is racy)
            os.kill(os.getpid(), signal.SIGKILL)
        return i
# plain lists: a tensor batch is passed by file descriptor, and torch then fails racily
loader = torch.utils.data.DataLoader(Killer(), batch_size=2, num_workers=1, collate_fn=list)
got = []
try:
    for b in loader:
        got.append(b)
except RuntimeError as e:
    print(first(e, 1))
print(got)
#%% worker raising exception
class Raiser(torch.utils.data.Dataset):
    def __len__(self):
        return 6
    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"bad index {i}")
        return i
loader = torch.utils.data.DataLoader(Raiser(), batch_size=2, num_workers=2)
try:
    print([b.tolist() for b in loader])
except KeyError as e:
    print(first(e, 2))
loader = torch.utils.data.DataLoader(Raiser(), batch_size=2, num_workers=0)
try:
    print([b.tolist() for b in loader])
except KeyError as e:
    print(first(e, 2))
#%% worker exits cleanly with sys exit
class Exiter(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        if i == 0:
            os._exit(3)
        return i
try:
    print([b for b in torch.utils.data.DataLoader(Exiter(), batch_size=1, num_workers=1, collate_fn=list)])
except RuntimeError as e:
    print(first(e, 1))
