"""Checkpoint values numtorch read or wrote wrongly, both ways with torch 2.13.

Meta tensors (``torch._utils._rebuild_meta_tensor_no_storage``) were refused by numtorch.load
with and without weights_only and numtorch.save failed on them; a storage saved by itself
(``torch.save(t.storage())``) loaded as numtorch's internal ``(array, device)`` pair instead of
a storage, and numtorch.save wrote one that neither library could read. Crafted meta-tensor
calls (huge, negative or non-integer sizes) are refused as torch refuses them.
"""

import io
import pickle
import warnings

import pytest
import torch

import numtorch
from tests.test_serialization_security import _wrap


def _meta_objects(lib):
    return {
        "meta": lib.empty(2, 3, device="meta").t(),
        "meta_param": lib.nn.Parameter(lib.empty(4, device="meta", dtype=lib.float64)),
        "meta_grad": lib.empty(5, device="meta", requires_grad=True),
        "meta_state": lib.nn.Linear(2, 3, device="meta").state_dict(),
        "meta_int": lib.empty(2, dtype=lib.uint16, device="meta"),
    }


def _storage_objects(lib):
    t = lib.arange(4.0)
    return {
        "typed": lib.arange(3.0).storage(),
        "untyped": lib.arange(3.0).untyped_storage(),
        "legacy_class": lib.LongStorage([5, 6]),
        "with_its_tensors": [t.storage(), t[1:], t.storage()],
        "of_a_view": [t[2:].storage(), t[2:]],
    }


def _describe(obj):
    if isinstance(obj, dict):
        return {k: _describe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_describe(v) for v in obj]
    if hasattr(obj, "stride"):
        return (type(obj).__name__, tuple(obj.shape), str(obj.dtype), obj.stride(),
                str(obj.device), obj.requires_grad,
                None if obj.is_meta else obj.tolist())
    return (type(obj).__name__, repr(obj))


def _load(lib, data, weights_only):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.load(io.BytesIO(data), weights_only=weights_only)


def _saved(lib, obj, legacy=False):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["meta", "storage"])
@pytest.mark.parametrize("writer", ["torch", "numtorch"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_values_load_as_torch_loads_them(kind, writer, weights_only):
    make = _meta_objects if kind == "meta" else _storage_objects
    for legacy in (False, True):
        if legacy and kind == "meta":
            continue
        want_objs = make(torch)
        wlib = torch if writer == "torch" else numtorch
        objs = make(wlib)
        for name in objs:
            if legacy and name == "untyped" and writer == "torch":
                continue  # torch cannot read its own legacy file of an untyped storage
            data = _saved(wlib, objs[name], legacy)
            want = _describe(_load(torch, data, weights_only))
            got = _describe(_load(numtorch, data, weights_only))
            assert got == want, (name, legacy)
            assert want == _describe(want_objs[name]) or kind == "storage", name


def test_loaded_storage_shares_memory_with_its_tensors():
    data = _saved(torch, _storage_objects(torch)["with_its_tensors"])
    results = []
    for lib in (torch, numtorch):
        storage, view, again = _load(lib, data, True)
        storage[0] = 9.0
        storage[2] = 7.0
        results.append((view.tolist(), again[0], again is storage))
    assert results[1] == results[0]


_META = (b"\x80\x02ctorch._utils\n_rebuild_meta_tensor_no_storage\n(ctorch\nfloat32\n")


def _meta_call(size, stride, requires_grad=b"\x89"):
    enc = [pickle.dumps(v, protocol=2)[2:-1] for v in (size, stride)]
    return _wrap(_META + enc[0] + enc[1] + requires_grad + b"tR.")


@pytest.mark.parametrize("size,stride", [((2**40, 2**40), (2**40, 1)), ((-1,), (1,)),
                                         ((2, 3), (3,)), ((2**62, 4), (4, 1))])
def test_crafted_meta_tensors_refused_as_in_torch(size, stride):
    data = _meta_call(size, stride)
    for weights_only in (True, False):
        with pytest.raises(RuntimeError) as want:
            _load(torch, data, weights_only)
        with pytest.raises(RuntimeError) as got:
            _load(numtorch, data, weights_only)
        if "overflow" in str(want.value) or "negative dimension" in str(want.value):
            assert str(got.value) == str(want.value)


def test_crafted_meta_tensor_of_a_large_size_allocates_nothing():
    data = _meta_call((2**20, 2**20), (2**20, 1))
    t = _load(numtorch, data, True)
    want = _load(torch, data, True)
    assert (tuple(t.shape), t.is_meta) == (tuple(want.shape), want.is_meta)


def _v3_call(dtype, offset, size, stride):
    enc = [pickle.dumps(v, protocol=2)[2:-1] for v in ("0", "cpu", 4, offset, size, stride)]
    pid = b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\n" + b"".join(enc[:3]) + b"tQ"
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v3\n(" + pid + b"".join(enc[3:]) +
           b"\x89ccollections\nOrderedDict\n)Rctorch\n" + dtype + b"\ntR.")
    return _zip_with_record(pkl)


def _zip_with_record(pkl):
    from tests.test_serialization_security import _zip

    values = torch.tensor([1.5, -2.0, 3.25, 1e30]).numpy().tobytes()
    return _zip([("archive/data.pkl", pkl), ("archive/version", b"3\n"),
                 ("archive/data/0", values)])


@pytest.mark.parametrize("dtype,offset,size,stride", [
    (b"int16", 1, (3,), (2,)), (b"float64", 0, (2,), (1,)), (b"uint8", 3, (2, 2), (1, 4)),
    (b"int32", 4, (1,), (1,)), (b"float64", 1, (2,), (1,)), (b"float32", 0, (4,), (1,))])
def test_tensor_v3_reads_the_storage_bytes_as_its_dtype(dtype, offset, size, stride):
    from tests.test_serialization_security import _outcome

    data = _v3_call(dtype, offset, size, stride)
    want, got = _outcome(torch, data), _outcome(numtorch, data)
    if want[0] == "ok":
        assert got[0] == "ok", got
        assert (str(got[1].dtype), got[1].tolist()) == (str(want[1].dtype), want[1].tolist())
    else:
        assert got[0] == want[0], (want, got)
