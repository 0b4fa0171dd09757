"""Checkpoint round trips with real torch running in a separate Python process.

numtorch saves and loads here without torch in the picture; one child process (the same
interpreter, so the same venv) runs real torch: it loads numtorch's files (zip, zip64 and the
legacy pre-1.6 format) with ``torch.load(weights_only=True)``, saves its own with ``torch.save``
(zip and legacy), and reports what it
saw as JSON plus ``.npy`` dumps of every tensor's values. Both sides build their checkpoint
with the same ``_build`` function (numtorch mirrors torch's API), and both describe what they
saved or loaded with the same ``_skeleton`` function, so the checks compare like with like:
container types and keys, scalars, and per tensor its dtype, shape, strides, storage offset,
requires_grad, Parameter-ness, identity, storage sharing and exact bytes.
"""

import collections
import inspect
import io
import json
import os
import pickle
import stat
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import numtorch
from numtorch._serialization import _write

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
          "float64", "complex64", "complex128"]


def _build(lib):
    """The checkpoint both sides save: ``lib`` is numtorch or torch."""
    rng = np.random.default_rng(1234)

    def from_np(a):
        return lib.from_numpy(np.ascontiguousarray(a))

    by_dtype = {}
    for name in DTYPES:
        dt = np.dtype(name)
        if dt == np.bool_:
            a = rng.random((3, 4)) < 0.5
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            a = rng.integers(info.min, info.max, size=(3, 4), dtype=dt, endpoint=True)
            a[0, :2] = info.min, info.max
        elif dt.kind == "f":
            a = rng.standard_normal((3, 4)).astype(dt)
            a[0] = [np.nan, np.inf, -np.inf, -0.0]
            a[1, 0] = np.finfo(dt).smallest_subnormal
        else:
            a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dt)
            a[0, 0] = complex(np.nan, 1.0)
            a[0, 1] = complex(-np.inf, -0.0)
        by_dtype[name] = from_np(a)
    base = from_np(np.arange(24, dtype=np.float64)).reshape(4, 6)
    fortran = lib.from_numpy(np.asfortranarray(rng.standard_normal((3, 4))))
    lone = from_np(rng.standard_normal(10).astype(np.float32))
    model = lib.nn.Linear(4, 3)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    x = from_np(rng.standard_normal((5, 4)).astype(np.float32))
    for _ in range(2):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
    shared = from_np(np.array([1, 2, 3], dtype=np.int64))
    return {
        "dtypes": by_dtype,
        "noncontig": {
            "t": from_np(rng.standard_normal((5, 6)).astype(np.float32)).t(),
            "step": from_np(rng.standard_normal((4, 8)).astype(np.float32))[::2, 1::3],
            "offset": lone[3:7],
            "scalar": from_np(np.array(3.5)),
            "empty": lib.zeros(0, 3),
            "fortran": fortran,
        },
        "views": {"rows": base[1:3], "cols": base[:, 1::2], "t": base.t(),
                  "flat": base.view(-1)[5:]},
        "param": lib.nn.Parameter(from_np(rng.standard_normal((3, 2)).astype(np.float32))),
        "frozen": lib.nn.Parameter(from_np(np.ones(2, dtype=np.float32)),
                                   requires_grad=False),
        "leaf": from_np(np.array([0.5, -1.0], dtype=np.float32)).requires_grad_(),
        "nested": collections.OrderedDict([
            ("list", [shared, (shared, 3, "s", None), {"deep": [by_dtype["int8"], 2.5]}]),
            ("tuple", (1.5, float("nan"), True, -0.0, float("-inf"))),
            ("int_keys", {1: "one", 2: from_np(np.array([7], dtype=np.int32))}),
            ("text", "h\u00e9llo"), ("big", 2 ** 62), ("neg", -3), ("none", None),
        ]),
        "model": model.state_dict(),
        "optim": opt.state_dict(),
    }


def _skeleton(obj, tensor_type, param_type, dump_dir):
    """A JSON-able picture of ``obj``; each tensor's values go to ``dump_dir/<index>.npy``."""
    tensors, first_index = [], {}

    def describe(t):
        index = len(tensors)
        arr = t.detach().numpy()
        np.save(os.path.join(dump_dir, f"{index}.npy"), arr)
        # size-0 storages all share address 0 in torch, so they take no part in sharing
        numel = 1
        for n in t.shape:
            numel *= int(n)
        ptr = int(t.untyped_storage().data_ptr()) if numel else None
        tensors.append({"dtype": str(t.dtype), "shape": [int(n) for n in t.shape],
                        "stride": [int(s) for s in t.stride()],
                        "offset": int(t.storage_offset()),
                        "requires_grad": bool(t.requires_grad),
                        "param": isinstance(t, param_type), "storage": ptr,
                        "same_as": first_index.setdefault(id(t), index)})
        return {"tensor": index}

    def walk(o):
        if isinstance(o, tensor_type):
            return describe(o)
        if isinstance(o, collections.OrderedDict):
            return {"odict": [[k, walk(v)] for k, v in o.items()]}
        if isinstance(o, dict):
            return {"dict": [[k, walk(v)] for k, v in o.items()]}
        if isinstance(o, tuple):
            return {"tuple": [walk(v) for v in o]}
        if isinstance(o, list):
            return {"list": [walk(v) for v in o]}
        if isinstance(o, float):
            return {"float": repr(o)}  # repr keeps nan, inf and -0.0 apart
        if o is None or isinstance(o, (bool, int, str)):
            return {type(o).__name__: o}
        return {"other": type(o).__qualname__}

    tree = walk(obj)
    # storage addresses differ between processes: keep only which tensors share one
    owner = {}
    for i, t in enumerate(tensors):
        ptr = t.pop("storage")
        t["shares_with"] = None if ptr is None else owner.setdefault(ptr, i)
    return {"tree": tree, "tensors": tensors, "dir": dump_dir}


_CHILD = """
import collections, json, os, sys
import numpy as np
import torch

cfg = json.loads(sys.argv[1])
DTYPES = cfg["dtypes"]
{helpers}
report = {{}}
obj = _build(torch)
torch.save(obj, cfg["torch_file"])
torch.save(obj, cfg["torch_legacy_file"], _use_new_zipfile_serialization=False)
report["torch_saved"] = _skeleton(obj, torch.Tensor, torch.nn.Parameter, cfg["torch_dump"])
for name, (path, dump) in cfg["numtorch_files"].items():
    loaded = torch.load(path, weights_only=True)
    report[name] = _skeleton(loaded, torch.Tensor, torch.nn.Parameter, dump)
print(json.dumps(report))
"""


def _dump_dir(root, name):
    path = os.path.join(root, name)
    os.makedirs(path)
    return path


@pytest.fixture(scope="module")
def trip(tmp_path_factory):
    """Saves by numtorch and by torch (in a child process), and what the other side loaded."""
    root = str(tmp_path_factory.mktemp("trip"))
    ours = _build(numtorch)
    plain = os.path.join(root, "numtorch.pt")
    numtorch.save(ours, plain)
    # the same checkpoint with zip64 fields forced on every record and the end record
    forced = os.path.join(root, "numtorch_zip64.pt")
    saved = (_write._ZIP64_LIMIT, _write._COUNT_LIMIT)
    try:
        _write._ZIP64_LIMIT, _write._COUNT_LIMIT = 100, 3
        numtorch.save(ours, forced)
    finally:
        _write._ZIP64_LIMIT, _write._COUNT_LIMIT = saved
    # and in the legacy (pre-1.6) format
    legacy = os.path.join(root, "numtorch_legacy.pt")
    numtorch.save(ours, legacy, _use_new_zipfile_serialization=False)
    expected = _skeleton(ours, numtorch.Tensor, numtorch.nn.Parameter,
                         _dump_dir(root, "numtorch_saved"))
    cfg = {"dtypes": DTYPES, "torch_file": os.path.join(root, "torch.pt"),
           "torch_legacy_file": os.path.join(root, "torch_legacy.pt"),
           "torch_dump": _dump_dir(root, "torch_saved"),
           "numtorch_files": {"plain": [plain, _dump_dir(root, "plain")],
                              "zip64": [forced, _dump_dir(root, "zip64")],
                              "legacy": [legacy, _dump_dir(root, "legacy")]}}
    helpers = "\n".join(textwrap.dedent(inspect.getsource(f)) for f in (_build, _skeleton))
    script = _CHILD.format(helpers=helpers)
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(cfg)], capture_output=True,
                          text=True, timeout=300, cwd=root)
    assert proc.returncode == 0, f"torch child failed:\n{proc.stderr[-4000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    loaded = numtorch.load(cfg["torch_file"])
    report["numtorch_loaded"] = _skeleton(loaded, numtorch.Tensor, numtorch.nn.Parameter,
                                          _dump_dir(root, "numtorch_loaded"))
    for name, path in (("numtorch_loaded_legacy", cfg["torch_legacy_file"]),
                       ("numtorch_own_legacy", legacy)):
        report[name] = _skeleton(numtorch.load(path), numtorch.Tensor, numtorch.nn.Parameter,
                                 _dump_dir(root, name))
    report["numtorch_saved"] = expected
    return report


def _subtree(tree, key):
    """The entry ``key`` of the top-level dict in a skeleton."""
    (kind, pairs), = tree.items()
    assert kind == "dict"
    return dict((k, v) for k, v in pairs)[key]


def _tensor_ids(node):
    if isinstance(node, dict):
        if set(node) == {"tensor"}:
            return [node["tensor"]]
        return [i for v in node.values() for i in _tensor_ids(v)]
    if isinstance(node, list):
        return [i for v in node for i in _tensor_ids(v)]
    return []


def _compare(saved, loaded, key):
    """Assert that ``loaded`` (one side's picture) matches ``saved`` under entry ``key``."""
    want, got = _subtree(saved["tree"], key), _subtree(loaded["tree"], key)
    assert got == want, f"{key}: structure differs"
    ids = _tensor_ids(want)
    assert ids, f"{key}: no tensors to compare"
    for i in ids:
        a, b = saved["tensors"][i], loaded["tensors"][i]
        assert b == a, f"{key}: tensor {i} metadata differs"
        x = np.load(os.path.join(saved["dir"], f"{i}.npy"))
        y = np.load(os.path.join(loaded["dir"], f"{i}.npy"))
        assert y.dtype == x.dtype and y.shape == x.shape, f"{key}: tensor {i}"
        # bytes, not values: NaN payloads, -0.0 and subnormals must survive exactly
        assert np.ascontiguousarray(y).tobytes() == np.ascontiguousarray(x).tobytes(), \
            f"{key}: tensor {i} values differ"


DIRECTIONS = [("torch_saved", "numtorch_loaded"), ("numtorch_saved", "plain"),
              ("numtorch_saved", "zip64"), ("numtorch_saved", "legacy"),
              ("torch_saved", "numtorch_loaded_legacy"),
              ("numtorch_saved", "numtorch_own_legacy")]
ENTRIES = ["noncontig", "views", "param", "frozen", "leaf", "nested", "model", "optim"]


@pytest.mark.parametrize("direction", DIRECTIONS, ids=lambda d: f"{d[0]}->{d[1]}")
@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype(trip, direction, name):
    saved, loaded = trip[direction[0]], trip[direction[1]]
    want = dict(_subtree(saved["tree"], "dtypes")["dict"])[name]
    got = dict(_subtree(loaded["tree"], "dtypes")["dict"])[name]
    i = want["tensor"]
    assert got == want
    assert loaded["tensors"][i] == saved["tensors"][i]
    assert saved["tensors"][i]["dtype"] == f"torch.{name}"
    x = np.load(os.path.join(saved["dir"], f"{i}.npy"))
    y = np.load(os.path.join(loaded["dir"], f"{i}.npy"))
    assert y.dtype == x.dtype == np.dtype(name)
    assert y.tobytes() == x.tobytes()


@pytest.mark.parametrize("direction", DIRECTIONS, ids=lambda d: f"{d[0]}->{d[1]}")
@pytest.mark.parametrize("key", ENTRIES)
def test_entries(trip, direction, key):
    _compare(trip[direction[0]], trip[direction[1]], key)


@pytest.mark.parametrize("side", ["torch_saved", "numtorch_saved"])
def test_fixture_covers_sharing_and_parameters(trip, side):
    """The checkpoint really holds what the other tests claim to check."""
    tensors = trip[side]["tensors"]
    views = _tensor_ids(_subtree(trip[side]["tree"], "views"))
    assert len(views) == 4
    assert {tensors[i]["shares_with"] for i in views} == {views[0]}
    assert not any(tensors[i]["stride"] == [6, 1] for i in views[1:])
    noncontig = _tensor_ids(_subtree(trip[side]["tree"], "noncontig"))
    assert tensors[noncontig[0]]["stride"] == [1, 6]
    assert tensors[noncontig[2]]["offset"] == 3
    param = _tensor_ids(_subtree(trip[side]["tree"], "param"))[0]
    assert tensors[param]["param"] and tensors[param]["requires_grad"]
    nested = _tensor_ids(_subtree(trip[side]["tree"], "nested"))
    assert tensors[nested[1]]["same_as"] == nested[0]  # one tensor object listed twice
    state = _subtree(trip[side]["tree"], "optim")["dict"][0]
    assert state[0] == "state" and len(_tensor_ids(state[1])) == 6  # 2 params x 3 buffers


# -- the writer itself (no torch needed) ---------------------------------------------------
class _WriteOnly:
    """A file object that can only be appended to (no tell, no seek)."""

    def __init__(self):
        self.chunks = []

    def write(self, data):
        self.chunks.append(bytes(data))
        return len(data)


def test_save_to_unseekable_stream():
    big = numtorch.arange(300_000, dtype=numtorch.float32)  # above the helper-thread size
    obj = {"big": big, "view": big[10:20], "small": numtorch.ones(3)}
    sink = _WriteOnly()
    numtorch.save(obj, sink)
    out = numtorch.load(io.BytesIO(b"".join(sink.chunks)))
    assert np.array_equal(out["big"].numpy(), big.numpy())
    assert out["view"].storage_offset() == 10
    assert out["view"].untyped_storage().data_ptr() == out["big"].untyped_storage().data_ptr()
    assert np.array_equal(out["small"].numpy(), np.ones(3, np.float32))


def test_bad_crc_is_detected(tmp_path):
    path = tmp_path / "c.pt"
    numtorch.save({"w": numtorch.arange(100_000, dtype=numtorch.float64)}, path)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None  # every record's CRC-32 matches its bytes
        info = zf.getinfo("c/data/0")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    raw = bytearray(path.read_bytes())
    raw[start + 5] ^= 0xFF
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        assert zf.testzip() == "c/data/0"


def test_scalar_view_of_a_gapped_buffer():
    """A 0-d view whose memory owner is not one contiguous block is saved as a copy."""
    owner = np.ndarray((2, 3), dtype=np.float32, buffer=bytearray(range(64)), strides=(16, 4))
    t = numtorch.from_numpy(owner)
    out = numtorch.load(io.BytesIO(_saved_bytes({"s": t[1, 2], "m": t})))
    assert out["s"].shape == () and out["s"].item() == owner[1, 2]
    assert out["m"].stride() == (3, 1) and np.array_equal(out["m"].numpy(), owner)


def _saved_bytes(obj):
    buf = io.BytesIO()
    numtorch.save(obj, buf)
    return buf.getvalue()


def _pure_python_pickle(obj, protocol=2):
    buf = io.BytesIO()
    _write._Pickler(buf, protocol).dump(obj)
    return buf.getvalue()


def test_c_pickler_matches_pure_python_pickler():
    obj = _build(numtorch)
    tagged = numtorch.ones(2)
    tagged.note = "kept"
    param = numtorch.nn.Parameter(numtorch.zeros(3))
    param.tag = 7
    obj["extra"] = {"dtypes": [numtorch.float32, numtorch.int64, numtorch.float32],
                    "device": numtorch.device("cpu"), "size": numtorch.Size([2, 3]),
                    "tagged": tagged, "param": param}
    fast, _ = _write._pickle(obj, 2)
    assert b"numtorch" not in fast  # every alias was swapped for torch's name
    assert fast == _pure_python_pickle(obj)


def test_alias_bytes_in_user_strings_fall_back_to_pure_python():
    alias = "cnumtorch._dtype\nfloat32\n"
    obj = {"text": alias, "raw": alias.encode(), "dtype": numtorch.float32}
    data, _ = _write._pickle(obj, 2)
    assert data == _pure_python_pickle(obj)
    assert pickle.loads(data.replace(b"ctorch\nfloat32\n", b"cbuiltins\nfloat\n")) == {
        "text": alias, "raw": alias.encode(), "dtype": float}


def test_dtype_not_importable_falls_back_to_pure_python(monkeypatch):
    from numtorch import _dtype

    monkeypatch.delattr(_dtype, "int16")  # the C pickler could not verify the alias
    obj = {"dt": numtorch.int16, "w": numtorch.ones(2)}
    data, _ = _write._pickle(obj, 2)
    assert data == _pure_python_pickle(obj) and b"ctorch\nint16\n" in data


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    obj = {"w": numtorch.arange(6.0).view(2, 3), "dt": numtorch.int16}
    buf = io.BytesIO()
    numtorch.save(obj, buf, pickle_protocol=protocol)
    out = numtorch.load(io.BytesIO(buf.getvalue()), weights_only=protocol < 4)
    assert out["dt"] is numtorch.int16 and out["w"].tolist() == obj["w"].tolist()
    if protocol >= 4:  # torch's weights-only reader refuses protocol 4's FRAME opcode
        with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 149"):
            numtorch.load(io.BytesIO(buf.getvalue()))


def test_forced_zip64_archive_is_valid(monkeypatch):
    monkeypatch.setattr(_write, "_ZIP64_LIMIT", 100)
    monkeypatch.setattr(_write, "_COUNT_LIMIT", 3)
    big = numtorch.arange(400_000, dtype=numtorch.int32)
    data = _saved_bytes({"big": big, "small": numtorch.ones(2)})
    assert b"PK\x06\x06" in data[-200:]  # the zip64 end record
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        assert zf.getinfo("archive/data/0").file_size == big.numel() * 4
    out = numtorch.load(io.BytesIO(data))
    assert np.array_equal(out["big"].numpy(), big.numpy())


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_save_through_symlink_writes_its_target(tmp_path):
    target = tmp_path / "ckpt_1.pt"
    numtorch.save(numtorch.ones(2), target)
    link = tmp_path / "latest.pt"
    link.symlink_to(target.name)
    numtorch.save(numtorch.zeros(3), link)
    assert link.is_symlink() and numtorch.load(target).tolist() == [0.0] * 3


@pytest.mark.parametrize("env, synced", [(None, False), ("0", False), ("1", True)])
def test_fsync_is_opt_in(env, synced, tmp_path, monkeypatch):
    calls = []
    real = getattr(os, "fdatasync", os.fsync)
    monkeypatch.setattr(os, "fdatasync" if hasattr(os, "fdatasync") else "fsync",
                        lambda fd: calls.append(fd) or real(fd))
    if env is None:
        monkeypatch.delenv("NUMTORCH_SAVE_FSYNC", raising=False)
    else:
        monkeypatch.setenv("NUMTORCH_SAVE_FSYNC", env)
    numtorch.save({"a": numtorch.ones(4)}, tmp_path / "f.pt")
    assert bool(calls) == synced
    assert numtorch.load(tmp_path / "f.pt")["a"].tolist() == [1.0] * 4


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_saved_file_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    fresh = tmp_path / "fresh.pt"
    numtorch.save(numtorch.ones(1), fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    fresh.chmod(0o640)
    numtorch.save(numtorch.zeros(1), fresh)  # replacing a file keeps its permissions
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    assert numtorch.load(fresh).tolist() == [0.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.pt"]
