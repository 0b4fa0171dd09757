"""load_lua on Torch7 files written by tests/legacy/t7_writer.py (binary and ASCII),
cross-checked with the torchfile package on the binary files."""

import math

import numpy as np
import pytest
import torchfile

import numtorch
from numtorch.legacy import nn
from numtorch.utils.serialization import T7ReaderException, TorchObject, load_lua

from . import t7_writer as W

R = np.random.default_rng(5)


def roundtrip(tmp_path, obj, **kwargs):
    read_kwargs = {k: kwargs.pop(k) for k in ("list_heuristic", "int_heuristic",
                                              "unknown_classes") if k in kwargs}
    if kwargs.get("long_size") == 4:
        read_kwargs["long_size"] = 4
    path = tmp_path / ("a.t7" if not kwargs.get("ascii") else "b.t7")
    W.save(path, obj, **kwargs)
    return load_lua(str(path), **read_kwargs), path


def normal(obj):
    """Python values for comparing load_lua's result with torchfile's."""
    if isinstance(obj, numtorch.Tensor):
        return ("tensor", str(obj.numpy().dtype), obj.numpy().tolist())
    if isinstance(obj, np.ndarray):
        return ("tensor", str(obj.dtype), obj.tolist())
    if isinstance(obj, numtorch.storage.TypedStorage):
        return ("storage", obj.tolist())
    if isinstance(obj, bytes):
        return obj.decode()
    if isinstance(obj, dict):
        return {normal(k): normal(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [normal(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return "nan"
    return obj


def torchfile_normal(obj):
    if type(obj).__name__ == "TorchObject":
        return {"class": obj.torch_typename().decode(), **torchfile_normal(obj._obj)}
    if isinstance(obj, dict):
        return {normal(k): torchfile_normal(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [torchfile_normal(v) for v in obj]
    return normal(obj)


PLAIN = {
    "int": 7, "negative": -3.25, "big": 2.0 ** 60, "inf": math.inf, "ninf": -math.inf,
    "nan": math.nan, "text": "héllo", "empty": "", "yes": True, "no": False,
    "list": [1, 2.5, "three", [4, {"five": 5}]], 1.5: "float key", 10: "int key",
    "tensors": {k: W.Tensor.of((R.standard_normal((2, 3)) * 50).astype(v))
                for k, v in W.DTYPES.items()},
    "vector": np.arange(5, dtype=np.int64) - 2,
}


@pytest.mark.parametrize("ascii", [False, True], ids=["binary", "ascii"])
def test_plain_values_and_tensors(tmp_path, ascii):
    got, path = roundtrip(tmp_path, PLAIN, ascii=ascii)
    assert got["int"] == 7 and isinstance(got["int"], int)
    assert got["negative"] == -3.25 and got["big"] == 2 ** 60
    assert got["inf"] == math.inf and got["ninf"] == -math.inf and math.isnan(got["nan"])
    assert got["text"] == "héllo" and got["empty"] == "" and got["yes"] is True
    assert got["no"] is False
    assert got["list"] == [1, 2.5, "three", [4, {"five": 5}]]
    assert got[1.5] == "float key" and got[10] == "int key"
    for kind, dt in W.DTYPES.items():
        t = got["tensors"][kind]
        assert t.dtype == numtorch.from_numpy(np.zeros(1, dt)).dtype
        want = PLAIN["tensors"][kind].storage.values.reshape(2, 3)
        np.testing.assert_array_equal(t.numpy(), want)
    assert got["vector"].tolist() == [-2, -1, 0, 1, 2]
    if not ascii:  # torchfile has no HalfTensor reader
        plain = dict(PLAIN, tensors={k: v for k, v in PLAIN["tensors"].items() if k != "Half"})
        got, path = roundtrip(tmp_path, plain)
        assert normal(got) == torchfile_normal(torchfile.load(str(path)))


def test_heuristics_off(tmp_path):
    got, _ = roundtrip(tmp_path, {"l": [1, 2]}, list_heuristic=False, int_heuristic=False)
    assert got == {"l": {1.0: 1.0, 2.0: 2.0}}
    assert all(isinstance(k, float) for k in got["l"])


@pytest.mark.parametrize("ascii", [False, True], ids=["binary", "ascii"])
def test_shared_storage_views_and_references(tmp_path, ascii):
    st = W.Storage("Double", np.arange(20.0))
    full = W.Tensor("Double", [4, 5], [5, 1], 1, st)
    cols = W.Tensor("Double", [2, 3], [1, 5], 7, st)  # transposed view from element 7
    bcast = W.Tensor("Double", [3, 2], [0, 1], 2, st)  # stride 0
    shared = {"x": 1}
    obj = {"full": full, "cols": cols, "bcast": bcast, "st": st, "a": shared, "b": shared,
           "again": full, "empty": W.Tensor("Float", [], [], 1, None),
           "zero": W.Tensor("Float", [0, 3], [3, 1], 1, W.Storage("Float", []))}
    got, path = roundtrip(tmp_path, obj, ascii=ascii)
    ref = np.arange(20.0)
    np.testing.assert_array_equal(got["cols"].numpy(), ref[6:][np.add.outer([0, 1], [0, 5, 10])])
    np.testing.assert_array_equal(got["bcast"].numpy(), [[1, 2]] * 3)
    assert got["a"] is got["b"] and got["again"] is got["full"]
    assert got["empty"].shape == (0,) and got["zero"].shape == (0, 3)
    got["full"][1, 1] = -1.0  # element 7 in Lua's numbering: shared by every view
    assert got["cols"][0, 0].item() == -1.0 and got["st"][6] == -1.0
    if not ascii:
        tf = torchfile.load(str(path))
        np.testing.assert_array_equal(tf[b"cols"], ref[6:][np.add.outer([0, 1], [0, 5, 10])])


def test_long_size_four_and_cuda_types(tmp_path):
    obj = {"l": np.array([[1, -2], [3, 2 ** 31 - 1]], dtype=np.int64),
           "c": W.Tensor("Float", [2], [1], 1, W.Storage("Float", [1.5, 2.5]), "Cuda"),
           "cd": W.Tensor("Double", [1], [1], 1, W.Storage("Double", [3.0]), "Cuda")}
    got, _ = roundtrip(tmp_path, obj, long_size=4)
    assert got["l"].dtype == numtorch.int64 and got["l"].tolist() == [[1, -2], [3, 2 ** 31 - 1]]
    assert got["c"].dtype == numtorch.float32 and got["c"].tolist() == [1.5, 2.5]
    assert got["cd"].dtype == numtorch.float64
    with pytest.raises(T7ReaderException):
        load_lua(str(tmp_path / "a.t7"))  # read as 8-byte longs it is garbage


def test_version_zero_files_and_file_objects(tmp_path):
    path = tmp_path / "v0.t7"
    W.save(path, {"t": np.ones(2, np.float32)}, version_strings=False)
    with open(path, "rb") as f:
        got = load_lua(f)
    assert got["t"].tolist() == [1.0, 1.0]


def _module(class_name, **fields):
    base = {"output": np.zeros(0, np.float32), "gradInput": np.zeros(0, np.float32),
            "train": True, "_type": "torch.FloatTensor"}
    base.update(fields)
    return W.Object(class_name, base)


def _lua_model():
    f32 = np.float32
    conv_w, conv_b = R.standard_normal((4, 2, 3, 3)).astype(f32), R.standard_normal(4).astype(f32)
    lin_w, lin_b = R.standard_normal((3, 16)).astype(f32), R.standard_normal(3).astype(f32)
    relu = _module("nn.ReLU", threshold=0, val=0, inplace=False)
    modules = [
        _module("nn.SpatialConvolution", nInputPlane=2, nOutputPlane=4, kW=3, kH=3, dW=1,
                dH=1, padding=1, weight=conv_w, bias=conv_b, gradWeight=np.zeros_like(conv_w),
                gradBias=np.zeros_like(conv_b)),
        _module("nn.SpatialBatchNormalization", eps=1e-5, momentum=0.1, affine=True,
                running_mean=np.full(4, 0.5, f32), running_std=np.full(4, 2.0, f32),
                weight=np.ones(4, f32), bias=np.zeros(4, f32), gradWeight=np.zeros(4, f32),
                gradBias=np.zeros(4, f32), train=False),
        relu,
        _module("cudnn.SpatialMaxPooling", kW=2, kH=2, dW=2, dH=2, padW=0, padH=0),
        _module("nn.View", size=W.Storage("Long", [16]), numElements=16),
        _module("nn.Linear", weight=lin_w, bias=lin_b, gradWeight=np.zeros_like(lin_w),
                gradBias=np.zeros_like(lin_b)),
        _module("cudnn.ReLU", inplace=False),
        _module("nn.LogSoftMax"),
    ]
    model = _module("nn.Sequential", modules=modules)
    crit = W.Object("nn.ClassNLLCriterion", {"sizeAverage": False, "output": 0,
                                             "gradInput": np.zeros(0, f32)})
    return {"model": model, "criterion": crit, "empty": _module("nn.Sequential", modules={}),
            "head": modules[5]}  # a second reference to the Linear module


@pytest.mark.parametrize("ascii", [False, True], ids=["binary", "ascii"])
def test_nn_modules_load_as_legacy_objects(tmp_path, ascii):
    got, path = roundtrip(tmp_path, _lua_model(), ascii=ascii)
    model, crit = got["model"], got["criterion"]
    assert isinstance(model, nn.Sequential) and len(model.modules) == 8
    conv, bn, _, pool, _, lin, relu2, _ = model.modules
    assert isinstance(conv, nn.SpatialConvolution) and (conv.padW, conv.padH) == (1, 1)
    assert isinstance(pool, nn.SpatialMaxPooling) and isinstance(relu2, nn.ReLU)
    assert got["head"] is lin
    np.testing.assert_allclose(bn.running_var.numpy(), np.full(4, 0.25 - 1e-5), rtol=1e-6)
    assert isinstance(crit, nn.ClassNLLCriterion) and crit.sizeAverage is False
    assert isinstance(got["empty"], nn.Sequential) and got["empty"].modules == []
    # the loaded model runs: same result as the same computation written with numtorch
    x = numtorch.randn(2, 2, 4, 4)
    out = model.forward(x)
    F = numtorch.nn.functional
    h = F.conv2d(x, conv.weight, conv.bias, padding=1)
    h = F.batch_norm(h, bn.running_mean, bn.running_var, bn.weight, bn.bias, False)
    h = F.max_pool2d(F.relu(h), 2).reshape(2, 16)
    want = F.log_softmax(F.relu(F.linear(h, lin.weight, lin.bias)), 1)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    loss = crit.forward(out, numtorch.tensor([1, 3]))
    assert abs(loss + out[0, 0].item() + out[1, 2].item()) < 1e-5
    model.backward(x, crit.backward(out, numtorch.tensor([1, 3])))
    assert float(lin.gradWeight.abs().sum()) > 0
    if not ascii:
        tf = torchfile.load(str(path))
        tf_lin = tf[b"model"]._obj[b"modules"][5]
        np.testing.assert_array_equal(tf_lin._obj[b"weight"], lin.weight.numpy())


def test_functions_and_unknown_classes(tmp_path):
    path = tmp_path / "f.t7"
    W.save(path, {"f": W.Function()})
    with pytest.raises(T7ReaderException, match="Lua function"):
        load_lua(str(path))
    W.save(path, W.Object("image.Thing", {"a": 1}))
    with pytest.raises(T7ReaderException, match="unknown_classes=True"):
        load_lua(str(path))
    got = load_lua(str(path), unknown_classes=True)
    assert isinstance(got, TorchObject) and got.typename == "image.Thing" and got.a == 1


def test_cycles_load(tmp_path):
    table = {"name": "loop"}
    table["self"] = table
    got, _ = roundtrip(tmp_path, table)
    assert got["self"] is got


def _int(v):
    return int(v).to_bytes(4, "little", signed=True)


def _long(v):
    return int(v).to_bytes(8, "little", signed=True)


MALFORMED = {
    "huge string": _int(2) + _int(2 ** 31 - 1) + b"abc",
    "negative string": _int(2) + _int(-5),
    "huge table": _int(3) + _int(1) + _int(2 ** 31 - 1) + _int(0),
    "huge storage": (_int(4) + _int(1) + _int(3) + b"V 1" + _int(18) + b"torch.FloatStorage"
                     + _long(2 ** 62) + b"\0" * 16),
    "tensor past its storage": (
        _int(4) + _int(1) + _int(3) + b"V 1" + _int(17) + b"torch.FloatTensor" + _int(1)
        + _long(5) + _long(1) + _long(1) + _int(4) + _int(2) + _int(3) + b"V 1" + _int(18)
        + b"torch.FloatStorage" + _long(2) + b"\0" * 8),
    "negative size": (_int(4) + _int(1) + _int(3) + b"V 1" + _int(17) + b"torch.FloatTensor"
                      + _int(1) + _long(-5) + _long(1) + _long(1) + _int(0)),
    "huge dims": _int(4) + _int(1) + _int(3) + b"V 1" + _int(17) + b"torch.FloatTensor"
    + _int(2 ** 30),
    "unknown type": _int(42),
    "ascii value out of range": b"4\n1\n3\nV 1\n18\ntorch.ShortStorage\n2\n1 1000000\n",
    "ascii text where a number belongs": b"3\n1\nmany\n",
    "empty file": b"",
    # table i holds {[0] = table i+1}, 3000 levels deep
    "deep nesting": b"".join(_int(3) + _int(i + 1) + _int(1) + _int(1) + bytes(8)
                             for i in range(3000)),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_files_raise(tmp_path, name):
    path = tmp_path / "bad.t7"
    path.write_bytes(MALFORMED[name])
    with pytest.raises(T7ReaderException):
        load_lua(str(path))


def test_every_truncation_and_random_corruption_raise_cleanly(tmp_path):
    data = W.dumps(_lua_model())
    ascii_data = W.dumps(PLAIN, ascii=True)
    for blob in (data, ascii_data):
        for cut in range(0, len(blob) - 1, 7):
            with pytest.raises(T7ReaderException):
                load_lua(_Bytes(blob[:cut]))
    rng = np.random.default_rng(0)
    for source in (data, ascii_data):
        for _ in range(150):
            blob = bytearray(source)
            for pos in rng.integers(0, len(blob), 3):
                blob[pos] = rng.integers(0, 256)
            try:
                load_lua(_Bytes(bytes(blob)), unknown_classes=True)
            except T7ReaderException:
                pass


class _Bytes:
    def __init__(self, data):
        self.data = data

    def read(self):
        return self.data
