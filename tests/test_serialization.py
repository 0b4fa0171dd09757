"""numtorch.save / numtorch.load against real torch, in both directions, and safetensors."""

import collections
import io
import json
import os
import pathlib
import pickle
import re
import struct
import subprocess
import sys
import zipfile
import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch import serialization

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]


def _array(name, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    if name == "bool":
        return rng.random(shape) > 0.5
    if name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    if name.startswith("float"):
        return rng.standard_normal(shape).astype(name)
    info = np.iinfo(name)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(name)


def _same(nt_t, th_t):
    """A numtorch tensor equals a torch tensor: dtype, shape, values, strides."""
    assert str(nt_t.dtype) == str(th_t.dtype)
    assert tuple(nt_t.shape) == tuple(th_t.shape)
    assert nt_t.stride() == th_t.stride()
    np.testing.assert_array_equal(nt_t.detach().numpy(), th_t.detach().numpy())


def _save_bytes(obj, lib, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


# -- zip format, every dtype, all directions --------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
def test_dtype_round_trips(name):
    a = _array(name)
    nt_sd = collections.OrderedDict(x=numtorch.from_numpy(a.copy()), y=numtorch.from_numpy(
        a.copy())[1:, ::2])
    th_sd = collections.OrderedDict(x=torch.from_numpy(a.copy()), y=torch.from_numpy(
        a.copy())[1:, ::2])
    data = _save_bytes(nt_sd, numtorch)
    back = numtorch.load(io.BytesIO(data))
    by_torch = torch.load(io.BytesIO(data), weights_only=True)
    from_torch = numtorch.load(io.BytesIO(_save_bytes(th_sd, torch)))
    legacy = numtorch.load(io.BytesIO(_save_bytes(th_sd, torch,
                                                  _use_new_zipfile_serialization=False)))
    assert type(back) is collections.OrderedDict and list(back) == ["x", "y"]
    for k in th_sd:
        _same(back[k], th_sd[k])
        _same(nt_sd[k], by_torch[k])
        _same(from_torch[k], th_sd[k])
        _same(legacy[k], th_sd[k])
        assert by_torch[k].storage_offset() == th_sd[k].storage_offset()
        assert back[k].storage_offset() == th_sd[k].storage_offset()


def test_zip_layout_matches_torch():
    data = _save_bytes({"a": numtorch.ones(3)}, numtorch)
    ours = zipfile.ZipFile(io.BytesIO(data))
    theirs = zipfile.ZipFile(io.BytesIO(_save_bytes({"a": torch.ones(3)}, torch)))
    strip = [n.split("/", 1)[1] for n in ours.namelist()]
    assert strip == [n.split("/", 1)[1] for n in theirs.namelist()]
    for rec in ("byteorder", "version", ".format_version", ".storage_alignment"):
        assert ours.read("archive/" + rec) == theirs.read("archive/" + rec)
    assert ours.read("archive/data.pkl")[:2] == b"\x80\x02"  # pickle protocol 2
    for info in ours.infolist():  # each record's bytes start 64-byte aligned
        # (the padding field is in the local header only: torch's directory has none)
        name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
        start = info.header_offset + 30 + name_len + extra_len
        assert start % 64 == 0
    assert all(not info.extra for info in theirs.infolist() + ours.infolist())


def test_zip_archive_name_from_path(tmp_path):
    numtorch.save(numtorch.ones(2), tmp_path / "model.pt")
    assert zipfile.ZipFile(tmp_path / "model.pt").namelist()[0] == "model/data.pkl"


def test_memory_mapped_torch_load(tmp_path):
    numtorch.save({"w": numtorch.arange(10.0)}, tmp_path / "m.pt")
    out = torch.load(tmp_path / "m.pt", mmap=True, weights_only=True)
    assert torch.equal(out["w"], torch.arange(10.0))


# -- shared storages and views -----------------------------------------------------------
def test_views_share_memory_numtorch_to_both():
    base = numtorch.arange(24.0)
    sd = {"base": base, "mat": base[4:16].view(3, 4), "t": base[:12].view(3, 4).t(),
          "same": base}
    data = _save_bytes(sd, numtorch)
    assert len([n for n in zipfile.ZipFile(io.BytesIO(data)).namelist() if "/data/" in n]) == 1
    out = numtorch.load(io.BytesIO(data))
    th = torch.load(io.BytesIO(data), weights_only=True)
    for k in sd:
        _same(out[k], th[k])
        assert out[k].storage_offset() == sd[k].storage_offset() == th[k].storage_offset()
    assert out["same"] is out["base"]
    out["base"][5] = -1.0
    assert out["mat"][0, 1].item() == -1.0 and out["t"][1, 1].item() == -1.0
    ptr = th["base"].untyped_storage().data_ptr()
    assert all(th[k].untyped_storage().data_ptr() == ptr for k in th)


def test_views_share_memory_torch_to_numtorch():
    base = torch.arange(24.0)
    sd = {"base": base, "mat": base[4:16].view(3, 4), "t": base[:12].view(3, 4).t()}
    for kw in ({}, {"_use_new_zipfile_serialization": False}):
        out = numtorch.load(io.BytesIO(_save_bytes(sd, torch, **kw)))
        for k in sd:
            _same(out[k], sd[k])
            assert out[k].storage_offset() == sd[k].storage_offset()
        out["base"][4] = 100.0
        assert out["mat"][0, 0].item() == 100.0 and out["t"][0, 1].item() == 100.0
        again = zipfile.ZipFile(io.BytesIO(_save_bytes(out, numtorch))).namelist()
        assert len([n for n in again if "/data/" in n]) == 1  # re-saving keeps the sharing


# -- parameters, requires_grad, containers ------------------------------------------------
def test_parameter_and_requires_grad_both_ways():
    nt_sd = {"p": numtorch.nn.Parameter(numtorch.ones(2, 3)),
             "frozen": numtorch.nn.Parameter(numtorch.zeros(2), requires_grad=False),
             "g": numtorch.ones(2).requires_grad_()}
    th = torch.load(io.BytesIO(_save_bytes(nt_sd, numtorch)), weights_only=True)
    back = numtorch.load(io.BytesIO(_save_bytes(th, torch)))
    assert isinstance(th["p"], torch.nn.Parameter) and th["p"].requires_grad
    assert isinstance(th["frozen"], torch.nn.Parameter) and not th["frozen"].requires_grad
    assert th["g"].requires_grad and not isinstance(th["g"], torch.nn.Parameter)
    assert isinstance(back["p"], numtorch.nn.Parameter) and back["p"].requires_grad
    assert isinstance(back["frozen"], numtorch.nn.Parameter)
    assert not back["frozen"].requires_grad and back["g"].requires_grad


def _containers(lib):
    return {"ints": [1, -2, 3], "floats": (1.5, float("inf")), "s": "text", "b": b"\x00\xff",
            "none": None, "flag": True, "nested": {"a": [lib.ones(2), {"b": (lib.zeros(1),)}]},
            "size": lib.Size([2, 3]), "dtype": lib.float16, "device": lib.device("cpu"),
            "set": {1, 2}, "c": 1 + 2j,
            "repeats": [lib.float16, lib.int64, lib.float16, lib.device("cpu"),
                        lib.device("cpu"), lib.Size([1]), lib.Size([1])]}


def _equal(x, y):
    if isinstance(x, (numtorch.Tensor, torch.Tensor)):
        np.testing.assert_array_equal(np.asarray(x.detach().numpy()),
                                      np.asarray(y.detach().numpy()))
        assert str(x.dtype) == str(y.dtype)
    elif isinstance(x, dict):
        assert list(x) == list(y)
        for k in x:
            _equal(x[k], y[k])
    elif isinstance(x, (list, tuple)) and not isinstance(x, (torch.Size, numtorch.Size)):
        assert type(x) is type(y) and len(x) == len(y)
        for a, b in zip(x, y):
            _equal(a, b)
    else:
        assert str(x) == str(y) or x == y


def test_nested_containers_both_ways():
    nt_obj, th_obj = _containers(numtorch), _containers(torch)
    out = numtorch.load(io.BytesIO(_save_bytes(nt_obj, numtorch)))
    _equal(out, nt_obj)
    assert out["dtype"] is numtorch.float16 and isinstance(out["size"], numtorch.Size)
    th = torch.load(io.BytesIO(_save_bytes(nt_obj, numtorch)), weights_only=True)
    _equal(th, th_obj)
    assert th["dtype"] is torch.float16 and isinstance(th["size"], torch.Size)
    assert th["device"] == torch.device("cpu")
    _equal(numtorch.load(io.BytesIO(_save_bytes(th_obj, torch))), nt_obj)


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_optimizer_state_dict_round_trip(opt):
    kw = {"lr": 0.1, "momentum": 0.9} if opt == "SGD" else {"lr": 0.1}
    w0 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    states = {}
    for lib in (numtorch, torch):
        p = lib.nn.Parameter(lib.from_numpy(w0.copy()))
        o = getattr(lib.optim, opt)([p], **kw)
        for _ in range(2):
            o.zero_grad()
            (p * p).sum().backward()
            o.step()
        states[lib.__name__] = o.state_dict()
    nt_state = states["numtorch"]
    out = numtorch.load(io.BytesIO(_save_bytes(nt_state, numtorch)))
    _equal(out, nt_state)
    th = torch.load(io.BytesIO(_save_bytes(nt_state, numtorch)), weights_only=True)
    assert set(th["state"][0]) == set(states["torch"]["state"][0])
    _equal(th["param_groups"][0]["params"], states["torch"]["param_groups"][0]["params"])
    for k, v in states["torch"]["state"][0].items():
        np.testing.assert_allclose(th["state"][0][k].numpy(), v.numpy(), rtol=1e-5)
    p = numtorch.nn.Parameter(numtorch.from_numpy(w0.copy()))
    o = getattr(numtorch.optim, opt)([p], **kw)
    o.load_state_dict(numtorch.load(io.BytesIO(_save_bytes(states["torch"], torch))))
    assert o.state_dict()["param_groups"][0]["lr"] == 0.1


# bfloat16 loads as bfloat16 with ml_dtypes installed (the float32 fallback without it is
# tested in test_bfloat16.py)
_BF16_LOADS_AS = numtorch.bfloat16 if numtorch._dtype._BF16_AVAILABLE else numtorch.float32


def test_bfloat16_from_torch_loads_exactly():
    src = torch.tensor([1.5, -2.25, 3.0e38, 1e-3]).to(torch.bfloat16)
    for kw in ({}, {"_use_new_zipfile_serialization": False}):
        out = numtorch.load(io.BytesIO(_save_bytes({"h": src}, torch, **kw)))["h"]
        assert out.dtype is _BF16_LOADS_AS
        np.testing.assert_array_equal(out.float().numpy(), src.float().numpy())


# -- weights_only and safe globals ---------------------------------------------------------
class Point:
    """A plain class saved inside a checkpoint (needs an explicit allow in weights-only)."""

    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x


class Net(numtorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = numtorch.nn.Linear(3, 2)
        self.tag = "net"

    def forward(self, x):
        return self.fc(x).relu()


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch EVIL_MARKER_FILE",))


def _evil_zip():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps(_Evil(), protocol=2))
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["zip", "raw"])
def test_malicious_pickle_refused_without_running(kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = _evil_zip() if kind == "zip" else pickle.dumps(_Evil(), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL posix\.system whose module posix "
                                                     r"is blocked"):
        numtorch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(data), weights_only=True)  # the oracle refuses it too
    assert not (tmp_path / "EVIL_MARKER_FILE").exists()


def test_safe_globals_api():
    data = _save_bytes({"p": Point(3)}, numtorch)
    serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError, match="Point"):
        numtorch.load(io.BytesIO(data))
    with serialization.safe_globals([Point]):
        assert Point in serialization.get_safe_globals()
        assert numtorch.load(io.BytesIO(data)) == {"p": Point(3)}
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([Point])
    try:
        assert numtorch.load(io.BytesIO(data))["p"] == Point(3)
    finally:
        serialization.clear_safe_globals()
    assert numtorch.load(io.BytesIO(data), weights_only=False) == {"p": Point(3)}


def test_whole_module_with_weights_only_false(tmp_path):
    numtorch.manual_seed(0)
    net = Net()
    numtorch.save(net, tmp_path / "net.pt")
    with pytest.raises(pickle.UnpicklingError, match="Net"):
        numtorch.load(tmp_path / "net.pt")
    back = numtorch.load(tmp_path / "net.pt", weights_only=False)
    assert type(back) is Net and back.tag == "net"
    assert isinstance(back.fc.weight, numtorch.nn.Parameter)
    x = numtorch.randn(4, 3)
    np.testing.assert_array_equal(back(x).detach().numpy(), net(x).detach().numpy())
    assert back.state_dict().keys() == net.state_dict().keys()


# -- map_location ------------------------------------------------------------------------
def _cuda_checkpoint():
    """A numtorch checkpoint whose storage claims to live on cuda:0."""
    data = _save_bytes({"w": numtorch.arange(6.0).view(2, 3)}, numtorch)
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n in src.namelist():
            rec = src.read(n)
            if n.endswith("data.pkl"):
                rec = rec.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            zf.writestr(n, rec)
    return out.getvalue()


@pytest.mark.parametrize("where", [
    "cpu", "device", "dict", "callable_same", "callable_cpu", "callable_none",
    "callable_as_is"])
def test_map_location_forms(where):
    forms = {"cpu": "cpu", "device": numtorch.device("cpu"), "dict": {"cuda:0": "cpu"},
             "callable_same": lambda s, loc: s.cpu(), "callable_cpu": lambda s, loc: "cpu",
             "callable_none": lambda s, loc: None, "callable_as_is": lambda s, loc: s}
    th_forms = {"cpu": "cpu", "device": torch.device("cpu"), "dict": {"cuda:0": "cpu"},
                "callable_same": lambda s, loc: s.cpu(), "callable_cpu": lambda s, loc: s,
                "callable_none": lambda s, loc: s, "callable_as_is": lambda s, loc: s}
    data = _cuda_checkpoint()
    if where == "callable_cpu":  # a device name is no storage: torch refuses it (as numtorch)
        with pytest.raises(TypeError) as want:
            torch.load(io.BytesIO(data), map_location=forms[where])
        with pytest.raises(TypeError, match=re.escape(str(want.value))):
            numtorch.load(io.BytesIO(data), map_location=forms[where])
        return
    if where == "callable_none" and not numtorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            numtorch.load(io.BytesIO(data), map_location=forms[where])
        return
    out = numtorch.load(io.BytesIO(data), map_location=forms[where])
    th = torch.load(io.BytesIO(data), map_location=th_forms[where], weights_only=True)
    _same(out["w"], th["w"])
    assert out["w"].device.type == "cpu"


def test_map_location_none_restores_saved_device():
    data = _cuda_checkpoint()
    if numtorch.cuda.is_available():
        assert numtorch.load(io.BytesIO(data))["w"].device.type == "cuda"
        return
    with pytest.raises(RuntimeError, match="is_available"):
        numtorch.load(io.BytesIO(data))
    with pytest.raises(RuntimeError):  # torch on a CPU-only build refuses as well
        torch.load(io.BytesIO(data), weights_only=True)


def test_map_location_bad_type():
    with pytest.raises(TypeError) as want:  # torch calls any other map_location
        torch.load(io.BytesIO(_save_bytes(torch.ones(1), torch)), map_location=3)
    with pytest.raises(TypeError, match=re.escape(str(want.value))):
        numtorch.load(io.BytesIO(_save_bytes(numtorch.ones(1), numtorch)), map_location=3)


# -- files and failures ------------------------------------------------------------------
@pytest.mark.parametrize("form", ["str", "pathlib", "fileobj"])
def test_file_forms(form, tmp_path):
    path = tmp_path / "f.pt"
    obj = {"a": numtorch.arange(5)}
    if form == "fileobj":
        with open(path, "wb") as fh:
            numtorch.save(obj, fh)
        with open(path, "rb") as fh:
            out = numtorch.load(fh)
    else:
        target = str(path) if form == "str" else pathlib.Path(path)
        numtorch.save(obj, target)
        out = numtorch.load(target)
    _same(out["a"], torch.arange(5))


@pytest.mark.parametrize("nameless", [True, False])
def test_failed_save_leaves_existing_file_intact(tmp_path, monkeypatch, nameless):
    if not nameless:  # the named temporary file used where O_TMPFILE is missing
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    path = tmp_path / "ckpt.pt"
    numtorch.save({"v": numtorch.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        numtorch.save({"v": numtorch.zeros(3), "bad": lambda: 0}, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt"]  # no temp file left


def _good_bytes():
    return _save_bytes({"w": numtorch.arange(100.0), "n": [1, 2]}, numtorch)


@pytest.mark.parametrize("cut", [0, 3, 10, 200, -200, -22, -1])
def test_truncated_zip_raises(cut):
    data = _good_bytes()
    # an empty file (cut 0) fails as in torch, with EOFError
    with pytest.raises((RuntimeError, pickle.UnpicklingError) if cut else EOFError):
        numtorch.load(io.BytesIO(data[:cut]))


def _same_failure(data, weights_only=True):
    """numtorch.load fails on ``data`` with torch's exception class and message."""
    got = []
    for lib in (torch, numtorch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                lib.load(io.BytesIO(data), weights_only=weights_only)
        got.append((type(info.value).__name__, str(info.value)))
    assert got[1] == got[0]


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("cut", [2, 5, 20, 40, 120, 300, -50, -1])
def test_truncated_legacy_raises(cut, weights_only):
    data = _save_bytes({"w": torch.arange(50.0)}, torch, _use_new_zipfile_serialization=False)
    _same_failure(data[:cut], weights_only)


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("data", [b"\x00" * 16, b"hello world", b"x", b"\xff" * 40, b"\n",
                                  b"\x1f\x8b\x08\x00" + b"\x00" * 10, b'{"a": 1}', b".", b"(.",
                                  b"K", b"\x93NUMPY\x01\x00", b"PK\x03\x04garbage",
                                  b"PK\x03\x04" + b"\x00" * 40, pickle.dumps([1, 2], protocol=2),
                                  pickle.dumps([1, 2], protocol=4), pickle.dumps({"a": 1})[:-3],
                                  pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + b"\x00"],
                         ids=range(17))
def test_garbage_bytes_fail_as_in_torch(data, weights_only):
    _same_failure(data, weights_only)


def test_non_checkpoint_files_raise(tmp_path):
    _same_failure(b"hello, this is not a checkpoint at all")
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("readme.txt", "no data.pkl here")
    _same_failure(zbuf.getvalue())
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("archive/data.pkl", b"garbage")
    _same_failure(zbuf.getvalue())
    _same_failure(pickle.dumps(12345, protocol=2), weights_only=False)


def test_missing_storage_record_raises():
    src = zipfile.ZipFile(io.BytesIO(_good_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n in src.namelist():
            if "/data/" not in n:
                zf.writestr(n, src.read(n))
    with pytest.raises(RuntimeError, match="data/0"):
        numtorch.load(io.BytesIO(out.getvalue()))


def test_legacy_write_round_trip(tmp_path):
    # the pre-1.6 format, as torch writes it with _use_new_zipfile_serialization=False
    base = numtorch.arange(6.0)
    obj = {"w": base.view(2, 3), "col": base.view(2, 3)[:, 1], "n": [1, "x"]}
    data = _save_bytes(obj, numtorch, _use_new_zipfile_serialization=False)
    assert data[:2] == b"\x80\x02" and not data.startswith(b"PK")
    th_data = _save_bytes({"w": torch.arange(6.0).view(2, 3)}, torch,
                          _use_new_zipfile_serialization=False)
    assert data[:len(th_data) // 4].split(b"q")[0] == th_data.split(b"q")[0]  # same magic
    out = numtorch.load(io.BytesIO(data))
    assert out["n"] == [1, "x"] and out["col"].tolist() == [1.0, 4.0]
    out["w"][0, 1] = -1.0
    assert out["col"][0].item() == -1.0  # views share their storage again
    numtorch.save(obj, tmp_path / "l.pt", _use_new_zipfile_serialization=False)
    assert (tmp_path / "l.pt").read_bytes() == data


# -- safetensors -------------------------------------------------------------------------
@pytest.mark.parametrize("name", [d for d in DTYPES if d != "complex128"])
def test_safetensors_round_trip(name, tmp_path):
    tensors = {"a": numtorch.from_numpy(_array(name)),
               "b": numtorch.from_numpy(_array(name, (5,), 1))[::2]}
    path = tmp_path / "m.safetensors"
    serialization.save_safetensors(tensors, path, metadata={"format": "pt"})
    out, meta = serialization.load_safetensors(path, return_metadata=True)
    assert meta == {"format": "pt"}
    for k, t in tensors.items():
        np.testing.assert_array_equal(out[k].numpy(), t.numpy())
        assert out[k].dtype is t.dtype
    n = struct.unpack("<Q", path.read_bytes()[:8])[0]
    assert n % 8 == 0
    header = json.loads(path.read_bytes()[8:8 + n])
    assert header["__metadata__"] == {"format": "pt"}


def _hand_built(entries, meta=None):
    """A safetensors file assembled by hand from (name, code, shape, raw bytes) entries."""
    header, body = {}, b""
    for name, code, shape, raw in entries:
        header[name] = {"dtype": code, "shape": shape,
                        "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    if meta:
        header["__metadata__"] = meta
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + body


def test_safetensors_hand_built_header(tmp_path):
    f32 = np.array([[1.0, -2.5], [3.25, 0.0]], dtype="<f4")
    i64 = np.array([7, -9, 2**40], dtype="<i8")
    bf16 = torch.tensor([1.5, -0.125, 256.0]).to(torch.bfloat16)
    bf_raw = bf16.view(torch.int16).numpy().astype("<i2").tobytes()
    path = tmp_path / "h.safetensors"
    path.write_bytes(_hand_built([("w", "F32", [2, 2], f32.tobytes()),
                                  ("i", "I64", [3], i64.tobytes()),
                                  ("h", "BF16", [3], bf_raw),
                                  ("e", "F16", [0], b"")], {"k": "v"}))
    out = serialization.load_safetensors(path)
    np.testing.assert_array_equal(out["w"].numpy(), f32)
    np.testing.assert_array_equal(out["i"].numpy(), i64)
    assert out["h"].dtype is _BF16_LOADS_AS
    np.testing.assert_array_equal(out["h"].float().numpy(), bf16.float().numpy())
    assert tuple(out["e"].shape) == (0,) and out["e"].dtype is numtorch.float16


@pytest.mark.parametrize("bad", ["short", "length", "json", "offsets"])
def test_safetensors_corrupt(bad, tmp_path):
    good = _hand_built([("w", "F32", [2], np.ones(2, "<f4").tobytes())])
    data = {"short": good[:5], "length": struct.pack("<Q", 10**6) + good[8:],
            "json": struct.pack("<Q", 4) + b"{{{{",
            "offsets": _hand_built([("w", "F32", [3], np.ones(2, "<f4").tobytes())])}[bad]
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match="load_safetensors"):
        serialization.load_safetensors(path)


def test_safetensors_rejects_complex128_and_non_tensors(tmp_path):
    with pytest.raises(ValueError, match="complex128"):
        serialization.save_safetensors({"c": numtorch.zeros(2, dtype=numtorch.complex128)},
                                       tmp_path / "c.safetensors")
    with pytest.raises(TypeError, match="Tensor"):
        serialization.save_safetensors({"c": [1, 2]}, tmp_path / "c.safetensors")
    assert list(tmp_path.iterdir()) == []


# -- tensor attributes, torch-pickled modules ---------------------------------------------
def test_tensor_python_attributes_both_ways():
    t, p = numtorch.ones(2), numtorch.nn.Parameter(numtorch.zeros(3))
    t.note, p.tag = "hi", 3
    th = torch.load(io.BytesIO(_save_bytes([t, p], numtorch)), weights_only=True)
    assert th[0].note == "hi" and th[1].tag == 3 and isinstance(th[1], torch.nn.Parameter)
    back = numtorch.load(io.BytesIO(_save_bytes(th, torch)))
    assert back[0].note == "hi" and back[1].tag == 3
    assert isinstance(back[1], numtorch.nn.Parameter) and back[1].requires_grad


def test_torch_pickled_module_loads_as_numtorch_module():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    data = _save_bytes(model, torch)
    with pytest.raises(pickle.UnpicklingError, match="Sequential"):
        numtorch.load(io.BytesIO(data))
    ours = numtorch.load(io.BytesIO(data), weights_only=False)
    assert isinstance(ours, numtorch.nn.Sequential)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(ours(numtorch.from_numpy(x)).detach().numpy(),
                               model(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)


def test_unknown_torch_global_is_an_error_not_an_import():
    data = b"\x80\x02ctorch\nno_such_thing_here\nq\x00."
    with pytest.raises(pickle.UnpicklingError, match="no_such_thing_here"):
        numtorch.load(io.BytesIO(_wrap_zip(data)), weights_only=False)


def _wrap_zip(pkl):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


_KILLED_SAVE = r"""
import sys, time
import numtorch
from numtorch._serialization import _write

real_add = _write._ZipStream.add

def add(self, name, payload, crc):
    real_add(self, name, payload, crc)
    if "/data/" in name:  # some of the new checkpoint is on disk: stop here until killed
        print("writing", flush=True)
        time.sleep(60)

_write._ZipStream.add = add
numtorch.save({"v": numtorch.zeros(1 << 16), "w": numtorch.ones(1 << 16)}, sys.argv[1])
"""


def test_killed_save_leaves_existing_file_intact_and_no_stray_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    numtorch.save({"v": numtorch.arange(3.0)}, path)
    before = path.read_bytes()
    child = subprocess.Popen([sys.executable, "-c", _KILLED_SAVE, str(path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
    finally:
        child.kill()
        child.wait(30)
    assert path.read_bytes() == before
    assert numtorch.load(path)["v"].tolist() == [0.0, 1.0, 2.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt"]
