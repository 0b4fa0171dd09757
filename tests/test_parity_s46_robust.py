"""Session 46 (robust): checkpoint loading, saving and data loading against real torch 2.13.

Each test runs the same user program with torch and with numtorch and compares what comes
out: values, exception class and message.
"""

import io
import signal
import warnings

import pytest
import torch

import numtorch


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            return type(e), str(e)


# -- map_location callables that return something other than an untyped storage ---------
_RETURNS = {
    "float_of_bytes": lambda lib: lambda s, loc: s.float(),
    "byte_storage": lambda lib: lambda s, loc: s.byte(),
    "typed_storage": lambda lib: lambda s, loc: lib.arange(6.0).storage(),
    "string": lambda lib: lambda s, loc: "cpu",
    "device": lambda lib: lambda s, loc: lib.device("cpu"),
    "tensor": lambda lib: lambda s, loc: lib.zeros(6),
    "number": lambda lib: lambda s, loc: 3,
    "none": lambda lib: lambda s, loc: None,
    "same": lambda lib: lambda s, loc: s,
    "untyped_of_other_values": lambda lib: lambda s, loc: lib.arange(6.0).untyped_storage(),
}


def _map_load(lib, kind):
    buf = io.BytesIO()
    lib.save({"a": lib.arange(6.0).view(2, 3)[:, 1:] + 1}, buf)
    buf.seek(0)
    return lib.load(buf, map_location=_RETURNS[kind](lib))["a"].tolist()


@pytest.mark.parametrize("kind", sorted(_RETURNS))
def test_map_location_callable_results_as_torch_takes_them(kind):
    """``s.float()`` converts each byte to a float: torch refuses the typed storage it gets
    back (numtorch put the converted values' bytes under the tensors, silently wrong)."""
    want = _outcome(lambda: _map_load(torch, kind))
    assert _outcome(lambda: _map_load(numtorch, kind)) == want


# -- legacy checkpoints saved one after another into one stream ---------------------------
def _sequential_legacy(lib, path=None):
    kw = {"_use_new_zipfile_serialization": False}
    buf = io.BytesIO()
    lib.save(lib.arange(2), buf, **kw)
    lib.save({"x": lib.arange(3.0)}, buf, **kw)
    lib.save([5, lib.ones(1)], buf, **kw)
    buf.write(b"tail")
    buf.seek(0)
    out = [repr(lib.load(buf)) for _ in range(3)]
    return out, buf.read()


def test_legacy_checkpoints_load_one_after_another():
    """torch leaves the stream after a legacy checkpoint's storages, so the next checkpoint
    saved to the same file loads next (numtorch stopped after the pickle: the next load
    raised 'Invalid magic number')."""
    assert _outcome(lambda: _sequential_legacy(numtorch)) == \
        _outcome(lambda: _sequential_legacy(torch))


# -- a broadcast (stride 0) tensor of 2**36 elements prints without materialising -----------
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "complex64", "int32"])
def test_printing_a_huge_broadcast_tensor_allocates_nothing(dtype):
    """``print(torch.ones(1).expand(2**36))``: torch shows the summary; numtorch cast every
    element to float64 first (a MemoryError of 512 GiB). A checkpoint can hold such a view
    (size 2**40, stride 0), so printing what was loaded failed too."""
    def show(lib):
        return repr(lib.ones(1, dtype=getattr(lib, dtype)).expand(2**36))

    assert _outcome(lambda: show(numtorch)) == _outcome(lambda: show(torch))


def test_crafted_stride_zero_checkpoint_loads_and_prints():
    import pickle
    import struct
    import zipfile

    def text(v):
        return b"X" + struct.pack("<I", len(v)) + v

    storage = (b"(" + text(b"storage") + b"ctorch\nFloatStorage\n" + text(b"0") + text(b"cpu")
               + b"K\x04tQ")
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"K\x00("
           + pickle.dumps(2**40, 2)[2:-1] + b"t(K\x00t\x89ccollections\nOrderedDict\n)RtR.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, rec in (("data.pkl", pkl), ("data/0", struct.pack("<4f", 1, 2, 3, 4)),
                          ("version", b"3\n")):
            zf.writestr(f"archive/{name}", rec)

    def load(lib):
        t = lib.load(io.BytesIO(buf.getvalue()))
        return tuple(t.shape), t.stride(), repr(t)

    want = _outcome(lambda: load(torch))
    assert want[0] == "ok"
    assert _outcome(lambda: load(numtorch)) == want


# -- uint16/32/64 in the legacy format ----------------------------------------------------
def _legacy_bytes(lib, dtype):
    x = lib.tensor([1, 2, 70, 3], dtype=getattr(lib, dtype))
    buf = io.BytesIO()
    lib.save({"x": x, "v": x[1:]}, buf, _use_new_zipfile_serialization=False)
    return buf.getvalue()


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_legacy_unsigned_checkpoints_load_back(dtype):
    """These dtypes have no typed storage, so their reference names an UntypedStorage that
    counts bytes; numtorch's legacy writer put the element count before the bytes, and its
    own load refused the file ('storage has wrong byte size'). torch writes the byte count
    (and itself fails to load such a file: numtorch reads both)."""
    want = torch.load(io.BytesIO(_zip_bytes(torch, dtype)))
    for data in (_legacy_bytes(numtorch, dtype), _legacy_bytes(torch, dtype)):
        for weights_only in (True, False):
            got = numtorch.load(io.BytesIO(data), weights_only=weights_only)
            assert repr(got) == repr(want)
            assert got["v"].untyped_storage().data_ptr() == got["x"].untyped_storage().data_ptr()


def _zip_bytes(lib, dtype):
    x = lib.tensor([1, 2, 70, 3], dtype=getattr(lib, dtype))
    buf = io.BytesIO()
    lib.save({"x": x, "v": x[1:]}, buf)
    return buf.getvalue()


# -- DataLoader -----------------------------------------------------------------------------
def _first_batch(lib, **kw):
    return next(iter(lib.utils.data.DataLoader(list(range(6)), batch_size=2, **kw))).tolist()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # torch's __del__
def test_prefetch_factor_zero_with_workers_is_refused_not_a_hang():
    """``prefetch_factor=0`` with workers: torch's iterator refuses it (AssertionError);
    numtorch's asked the workers for no batch and waited for one forever."""
    kw = {"num_workers": 1, "prefetch_factor": 0}
    want = _outcome(lambda: _first_batch(torch, **kw))
    assert want[0] is AssertionError

    def hung(*_):
        raise TimeoutError("the loader waited for a batch never asked for")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        assert _outcome(lambda: _first_batch(numtorch, **kw)) == want
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# -- default_collate / default_convert of NumPy data ---------------------------------------
def _np_batches(tmp_path):
    import numpy as np

    mm = np.memmap(tmp_path / "mm.bin", dtype=np.float32, mode="w+", shape=(3,))
    mm[:] = [1.5, 2.5, 3.5]
    return {
        "datetime": [np.array([1], dtype="datetime64[D]")] * 2,
        "big_endian": [np.arange(3, dtype=">f4")] * 2,
        "negative_strides": [np.arange(3.0)[::-1]] * 2,
        "longdouble": [np.arange(2, dtype=np.longdouble)] * 2,
        "memmap": [mm, mm],
        "float32_then_int64": [np.arange(2, dtype=np.float32), np.arange(2, dtype=np.int64)],
        "int64_then_float32": [np.arange(2, dtype=np.int64), np.arange(2, dtype=np.float32)],
        "scalars_float32_int64": [np.float32(1.5), np.int64(2)],
        "scalar_then_int": [np.float32(1.5), 2],
        "datetime_scalars": [np.datetime64(1, "D")] * 2,
        "ragged": [np.arange(2.0), np.arange(3.0)],
    }


def _batched(lib, batch, fn):
    out = getattr(lib.utils.data, fn)(batch)
    if isinstance(out, list):
        return [(x.dtype, x.tolist()) if isinstance(x, lib.Tensor) else repr(x) for x in out]
    return str(out.dtype), out.tolist()


@pytest.mark.parametrize("fn", ["default_collate", "default_convert"])
@pytest.mark.parametrize("case", ["datetime", "big_endian", "negative_strides", "longdouble",
                                  "memmap", "float32_then_int64", "int64_then_float32",
                                  "scalars_float32_int64", "scalar_then_int",
                                  "datetime_scalars", "ragged"])
def test_numpy_batches_convert_as_torch_converts_them(tmp_path, case, fn):
    """torch makes each array a tensor with as_tensor (its dtype, byte-order and stride
    refusals) and stacks them with its type promotion. numtorch stacked the arrays with
    NumPy: float32 with int64 became float64, big-endian and negative-stride arrays went
    through, datetime64/longdouble made tensors that failed later (KeyError), and np.memmap
    batches made tensors that failed on first use (AttributeError 'get')."""
    batch = _np_batches(tmp_path)[case]
    want = _outcome(lambda: _batched(torch, batch, fn))
    got = _outcome(lambda: _batched(numtorch, batch, fn))
    assert str(got) == str(want)


def test_memmap_slices_become_tensors_over_the_file(tmp_path):
    """``torch.as_tensor(np.memmap(...))`` (and torch.tensor/asarray) works in torch;
    numtorch kept the memmap subclass as the tensor's array, which failed on first use."""
    import numpy as np

    def run(lib):
        mm = np.memmap(tmp_path / f"{lib.__name__}.bin", dtype=np.float32, mode="w+", shape=(4,))
        mm[:] = [1, 2, 3, 4]
        out = []
        for fn in (lib.as_tensor, lib.tensor, lib.asarray, lib.from_numpy):
            t = fn(mm[1:3])
            out.append(((t * 2).tolist(), t.sum().item()))
            t[0] = 9
            out.append(float(mm[1]))
            mm[1] = 2
        return out

    assert run(numtorch) == run(torch)


# -- torch.multiprocessing.spawn with another start method ---------------------------------
def _noop(rank):
    pass


def test_spawn_with_another_start_method_warns_in_torchs_words():
    def warned(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            lib.multiprocessing.spawn(_noop, nprocs=0, start_method="fork")
        return [(w.category, str(w.message)) for w in seen]

    assert warned(numtorch) == warned(torch)
