"""Session 48 (Distributed area): checkpoints and data loading, compared with real torch.

Every expectation is real torch's answer for the same input at test time.
"""

import io
import pickle
import warnings
import zipfile

import pytest
import torch

import numtorch


def _enc(v):
    return pickle.dumps(v, protocol=2)[2:-1]


def _ints(xs):
    return b"(" + b"".join(_enc(x) for x in xs) + b"t"


_ITEMSIZE = {b"FloatStorage": 4, b"ByteStorage": 1, b"DoubleStorage": 8}


def _tensor_file(size, stride, offset=0, numel=6, cls=b"FloatStorage"):
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + _enc("storage") + b"ctorch\n"
           + cls + b"\n" + _enc("0") + _enc("cpu") + _enc(numel) + b"tQ" + _enc(offset)
           + _ints(size) + _ints(stride) + b"\x89ccollections\nOrderedDict\n)RtR.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr("archive/byteorder", b"little")
        zf.writestr("archive/data/0", b"\1" * numel * _ITEMSIZE[cls])
        zf.writestr("archive/version", b"3\n")
    return buf.getvalue()


def _summary(t):
    values = t.flatten().tolist() if t.numel() < 100 else t[:3].tolist()
    return tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype), values


def _outcome(lib, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = lib.load(io.BytesIO(data), **kw)
        except Exception as e:  # noqa: BLE001 - class and message are compared
            return type(e).__name__, str(e)
    return "ok", _summary(t)


# (size, stride, offset, storage class): views whose byte extent overflows int64 are torch's
# "Storage size calculation overflowed" (counted with the offset and the element size); views
# that fit int64 but pass the record's end cannot grow the file's storage
_GEOMETRY = {
    "stride_overflows": ((2, 2), (2 ** 62, 1), 0, b"FloatStorage"),
    "stride_overflows_by_itemsize": ((2, 2), (2 ** 61, 1), 0, b"FloatStorage"),
    "stride_fits_int64": ((2, 2), (2 ** 60, 1), 0, b"FloatStorage"),
    "stride_fits_for_bytes": ((2, 2), (2 ** 61, 1), 0, b"ByteStorage"),
    "offset_overflows": ((2,), (1,), 2 ** 61 - 2, b"FloatStorage"),
    "offset_just_fits": ((2,), (1,), 2 ** 61 - 3, b"FloatStorage"),
    "offset_and_stride": ((2,), (2 ** 61,), 5, b"FloatStorage"),
    "max_stride": ((3,), (2 ** 63 - 1,), 0, b"DoubleStorage"),
    "big_numel_small_extent": ((2 ** 40, 2 ** 22), (1, 1), 0, b"FloatStorage"),
    "negative_stride": ((3,), (-1,), 3, b"FloatStorage"),
    "size_past_record": ((7,), (1,), 0, b"FloatStorage"),
    "zero_stride_big": ((2 ** 40,), (0,), 0, b"FloatStorage"),
    "fits": ((2, 3), (1, 2), 0, b"FloatStorage"),
}


@pytest.mark.parametrize("mmap", [False, True])
@pytest.mark.parametrize("case", sorted(_GEOMETRY))
def test_crafted_tensor_geometry_refused_like_torch(case, mmap, tmp_path):
    size, stride, offset, cls = _GEOMETRY[case]
    data = _tensor_file(size, stride, offset, cls=cls)
    kw = {}
    if mmap:  # mmap loads need a path
        path = tmp_path / "x.pt"
        path.write_bytes(data)
        kw["mmap"] = True
    for weights_only in (True, False):
        got = _outcome_path(numtorch, data, kw, tmp_path, weights_only)
        want = _outcome_path(torch, data, kw, tmp_path, weights_only)
        assert got == want


def _outcome_path(lib, data, kw, tmp_path, weights_only):
    if not kw:
        return _outcome(lib, data, weights_only=weights_only)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = lib.load(tmp_path / "x.pt", weights_only=weights_only, **kw)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    return "ok", _summary(t)


def test_refused_rebuild_names_the_function_without_its_address():
    """A rebuild the loader cannot make names the function, not its repr with an address."""
    data = _tensor_file((0, 2 ** 62), (2 ** 62, 1))  # torch loads it; NumPy cannot shape it
    got = _outcome(numtorch, data)
    if got[0] == "ok":
        assert got[1:] == _outcome(torch, data)[1:]
        return
    assert got[0] == "RuntimeError"
    assert "_rebuild_tensor_v2" in got[1] and " at 0x" not in got[1]


# -- data loading ---------------------------------------------------------------------------
def _loader_outcome(lib, **kw):
    try:
        return "ok", [b.tolist() for b in lib.utils.data.DataLoader(range(4), batch_size=2, **kw)]
    except Exception as e:  # noqa: BLE001 - class and message are compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("timeout", [0, 0.5, 3])
def test_timeout_without_workers_as_torch(timeout):
    """torch refuses a timeout when no worker process would be waited for (at iter())."""
    assert _loader_outcome(numtorch, timeout=timeout) == _loader_outcome(torch, timeout=timeout)


# -- load options ---------------------------------------------------------------------------
def _mmap_with_block(lib, path):
    import mmap

    ser = lib.serialization
    before = ser.get_default_mmap_options()
    with ser.set_default_mmap_options(mmap.MAP_SHARED) as entered:
        inside = ser.get_default_mmap_options()
        t = lib.load(path, mmap=True)
        t.mul_(2)  # MAP_SHARED: the write reaches the file
    del t
    after = ser.get_default_mmap_options()
    called = ser.set_default_mmap_options(mmap.MAP_PRIVATE)  # the plain-call form
    return (entered, inside == mmap.MAP_SHARED, after == before, type(called).__name__,
            lib.load(path).tolist())


def test_set_default_mmap_options_is_a_context_manager_as_in_torch(tmp_path):
    """torch 2.13's set_default_mmap_options is a class: it sets the flags when called and
    puts the previous ones back when its ``with`` block ends (numtorch's returned None)."""
    got, want = [], []
    for lib, out in ((numtorch, got), (torch, want)):
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save(lib.arange(3.0), path)
        out.append(_mmap_with_block(lib, path))
    assert got == want


def _module_names(lib):
    ser = lib.serialization
    b = io.BytesIO()
    lib.save({"a": lib.arange(3.0)}, b)
    b.seek(2)
    mid = (ser._is_zipfile(b), b.tell())
    b.seek(0)
    legacy = io.BytesIO()
    lib.save(1, legacy, _use_new_zipfile_serialization=False)
    legacy.seek(0)
    st = lib.UntypedStorage(4)
    restored = []
    for ml in (None, "cpu", {"cpu": "cpu"}, lib.device("cpu"), lambda s, loc: None,
               lambda s, loc: s):
        r = ser._get_restore_location(ml)(st, "cpu")
        restored.append((type(r).__name__, str(r.device), r.nbytes()))
    return [ser.MAP_PRIVATE, ser.MAP_SHARED, ser.IS_WINDOWS, ser.LONG_SIZE, ser.INT_SIZE,
            ser.SHORT_SIZE, ser.STORAGE_KEY_SEPARATOR, ser.UNSAFE_MESSAGE, mid,
            (ser._is_zipfile(b), b.tell()), ser._is_zipfile(legacy),
            ser.normalize_storage_type(lib.FloatStorage).__name__,
            ser._default_to_weights_only(None), ser._default_to_weights_only(pickle), restored]


def test_serialization_module_names_as_torch():
    """torch.serialization's constants and helpers that checkpoint tools import (MAP_SHARED,
    _is_zipfile, _get_restore_location, normalize_storage_type, ...) were missing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's TypedStorage deprecation
        assert _module_names(numtorch) == _module_names(torch)


# -- storages ---------------------------------------------------------------------------------
def _set_and_list(storage, index, value):
    storage[index] = value
    return storage.tolist()


_STORAGE_CASES = {
    "meta_device": lambda L: (str(L.UntypedStorage(4, device="meta").device),
                              L.UntypedStorage(4, device="meta").nbytes()),
    "typed_meta_device": lambda L: str(L.TypedStorage(2, dtype=L.float32,
                                                      device="meta").device),
    "unknown_device": lambda L: L.UntypedStorage(4, device="foo"),
    "negative_size": lambda L: L.UntypedStorage(-1),
    "typed_negative_size": lambda L: L.FloatStorage(-2),
    "float_size": lambda L: L.UntypedStorage(2.5),
    "bytes_wrap": lambda L: L.UntypedStorage([1, 2, 300, -1]).tolist(),
    "typed_overflow": lambda L: L.ByteStorage([300]),
    "fill_wraps": lambda L: L.UntypedStorage(3).fill_(300).tolist(),
    "from_buffer_uint8": lambda L: L.UntypedStorage.from_buffer(b"\x01\x02",
                                                                dtype=L.uint8).tolist(),
    "from_buffer_needs_order": lambda L: L.UntypedStorage.from_buffer(b"\0\0\x80?",
                                                                      dtype=L.float32),
    "from_buffer_big": lambda L: L.UntypedStorage.from_buffer(
        b"\x3f\x80\x00\x00", byte_order="big", dtype=L.float32).tolist(),
    "from_buffer_little_int16": lambda L: L.UntypedStorage.from_buffer(
        b"\x01\x02\x03\x04", byte_order="little", dtype=L.int16).tolist(),
    "from_buffer_no_dtype": lambda L: L.UntypedStorage.from_buffer(b"ab"),
    "typed_from_buffer_count": lambda L: L.FloatStorage.from_buffer(b"\0" * 12, "little",
                                                                    count=5),
    "typed_from_buffer_order": lambda L: L.FloatStorage.from_buffer(b"\0" * 4, "middle"),
    "resize_negative": lambda L: L.UntypedStorage(2).resize_(-1),
    "getitem_past_end": lambda L: L.UntypedStorage([1, 2])[5],
    "getitem_negative": lambda L: L.UntypedStorage([1, 2])[-1],
    "typed_getitem_past_end": lambda L: L.FloatStorage(2)[3],
    "setitem_past_end": lambda L: L.UntypedStorage([1, 2]).__setitem__(5, 1),
    "setitem_wraps": lambda L: _set_and_list(L.UntypedStorage([1, 2]), 0, 257),
    "slice": lambda L: L.UntypedStorage([1, 2, 3, 4])[1:3].tolist(),
    "slice_step": lambda L: L.UntypedStorage([1, 2, 3, 4])[::2],
    "copy_size": lambda L: L.UntypedStorage(2).copy_(L.UntypedStorage(3)),
}


def _storage_outcome(lib, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's TypedStorage deprecation
        try:
            return "ok", _STORAGE_CASES[case](lib)
        except Exception as e:  # noqa: BLE001 - class and message are compared
            return type(e).__name__, str(e)


@pytest.mark.parametrize("case", sorted(_STORAGE_CASES))
def test_storage_construction_and_indexing_as_torch(case):
    """Storage corners: a device argument was ignored (meta/unknown devices gave CPU
    storages), raw-byte values did not wrap modulo 256, UntypedStorage.from_buffer took no
    dtype/byte_order, and sizes/indices past the ends raised NumPy's errors."""
    assert _storage_outcome(numtorch, case) == _storage_outcome(torch, case)


def test_bad_sharing_strategy_words_as_torch():
    """The refused strategy in torch's words (the set of names, whatever its order)."""
    def outcome(lib):
        try:
            lib.multiprocessing.set_sharing_strategy("bogus")
        except AssertionError as e:
            head, _, names = str(e).partition("expected one of ")
            return head, sorted(names.strip("{}").replace("'", "").split(", "))
        return None

    assert outcome(numtorch) == outcome(torch)


@pytest.mark.parametrize("tail", ["/", "/nodir/", "/file/", "//"])
def test_save_to_a_path_without_file_name_as_torch(tmp_path, tail):
    """A destination ending in '/' is torch's 'invalid file name' (before the parent check)."""
    (tmp_path / "file").write_bytes(b"x")

    def outcome(lib):
        try:
            lib.save(1, str(tmp_path) + tail)
        except RuntimeError as e:
            return str(e).replace(str(tmp_path), "D")
        return "saved"

    assert outcome(numtorch) == outcome(torch)


@pytest.mark.parametrize("mode", ["w", "rb"])
def test_save_into_a_wrong_mode_file_as_torch(tmp_path, mode):
    """A text file: torch's TypeError names the memoryview it writes; a file opened for
    reading: io.UnsupportedOperation unwrapped (numtorch wrapped it in a RuntimeError)."""
    path = tmp_path / "x.pt"
    path.write_bytes(b"")

    def outcome(lib):
        with open(path, mode) as f:
            try:
                lib.save(lib.ones(2), f)
            except Exception as e:  # noqa: BLE001 - class and message are compared
                return type(e).__name__, str(e)
        return "saved"

    assert outcome(numtorch) == outcome(torch)
