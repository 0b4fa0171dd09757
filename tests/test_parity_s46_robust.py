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


# -- 16-bit PNG images ---------------------------------------------------------------------
def _png_chunk(kind, body):
    import struct
    import zlib

    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _png16_bytes(levels, ctype, filters):
    """A 16-bit PNG of ``levels`` (H, W, C uint16), row y filtered with filters[y % 5]."""
    import struct
    import zlib

    import numpy as np

    h, w, c = levels.shape
    bpp = 2 * c
    raw = levels.astype(">u2").view(np.uint8).reshape(h, w * bpp).astype(np.int16)
    rows, prior = [], np.zeros(w * bpp, dtype=np.int16)
    for y in range(h):
        cur, kind = raw[y], filters[y % len(filters)]
        left = np.concatenate([np.zeros(bpp, np.int16), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int16), prior[:-bpp]])
        if kind == 0:
            pred = np.zeros_like(cur)
        elif kind == 1:
            pred = left
        elif kind == 2:
            pred = prior
        elif kind == 3:
            pred = (left + prior) >> 1
        else:
            p = left + prior - upleft
            pa, pb, pc = abs(p - left), abs(p - prior), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prior, upleft))
        rows.append(bytes([kind]) + ((cur - pred) & 0xFF).astype(np.uint8).tobytes())
        prior = cur
    head = struct.pack(">IIBBBBB", w, h, 16, ctype, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", head)
            + _png_chunk(b"IDAT", zlib.compress(b"".join(rows))) + _png_chunk(b"IEND", b""))


@pytest.mark.parametrize("ctype,channels", [(0, 1), (2, 3), (4, 2), (6, 4)])
def test_16_bit_png_levels_are_exact_uint16(ctype, channels):
    """torchvision (>= 0.21) decodes a 16-bit PNG to uint16 levels. numtorch went through
    Pillow, which keeps only the high byte of 16-bit RGB, grey+alpha and RGBA images (uint8,
    silently coarser values), and gave int32 for 16-bit grey ones."""
    import numpy as np

    import numtorchvision.io as nio

    rng = np.random.default_rng(ctype)
    levels = rng.integers(0, 65536, size=(7, 5, channels)).astype(np.uint16)
    levels[2] = levels[1]  # (runs of equal pixels, as real images have)
    data = _png16_bytes(levels, ctype, [0, 1, 2, 3, 4])
    t = numtorch.from_numpy(np.frombuffer(data, np.uint8).copy())
    for fn in (nio.decode_png, nio.decode_image):
        out = fn(t)
        assert out.dtype == numtorch.uint16
        np.testing.assert_array_equal(out.numpy(), levels.transpose(2, 0, 1))
    # the channel conversions libpng makes: alpha added opaque, grey repeated, alpha stripped
    rgba = nio.decode_png(t, mode=nio.ImageReadMode.RGB_ALPHA).numpy()
    assert rgba.shape == (4, 7, 5) and rgba.dtype == np.uint16
    if channels in (1, 2):
        assert (rgba[0] == levels[..., 0]).all() and (rgba[2] == levels[..., 0]).all()
    assert (rgba[3] == (levels[..., -1] if channels in (2, 4) else 65535)).all()
    assert nio.decode_png(t, mode=nio.ImageReadMode.GRAY).shape == (1, 7, 5)


def test_damaged_16_bit_pngs_are_runtime_errors():
    import zlib

    import numpy as np

    import numtorchvision.io as nio

    levels = np.arange(48, dtype=np.uint16).reshape(4, 4, 3) * 1000
    good = _png16_bytes(levels, 2, [4])
    idat = good.index(b"IDAT") - 4
    # (the image data complete and the IEND chunk cut off: decoded, libpng reads no further)
    out = nio.decode_png(numtorch.from_numpy(np.frombuffer(good[:-12], np.uint8).copy()))
    np.testing.assert_array_equal(out.numpy(), levels.transpose(2, 0, 1))
    cases = {"truncated": good[:idat + 20],
             "bad_crc": good[:idat + 9] + bytes([good[idat + 9] ^ 1]) + good[idat + 10:]}
    # (a header that claims more rows than the data holds)
    head = bytearray(good)
    head[20:24] = (9).to_bytes(4, "big")
    head[29:33] = (zlib.crc32(bytes(head[12:29])) & 0xFFFFFFFF).to_bytes(4, "big")
    cases["short_data"] = bytes(head)
    for name, data in cases.items():
        # (session 50: torchvision's text for any libpng error, after its prefix)
        with pytest.raises(RuntimeError, match=r"decode_png\.cpp:59, Internal error\.$"):
            nio.decode_png(numtorch.from_numpy(np.frombuffer(data, np.uint8).copy()))


@pytest.mark.parametrize("depth,ctype", [(8, 0), (8, 2), (16, 2), (1, 0)])
def test_png_with_fewer_rows_than_its_header_is_refused(depth, ctype):
    """libpng (torchvision) refuses image data that ends before the last row ('Not enough
    image data'); Pillow filled the missing rows with zeros, and numtorch returned them."""
    import struct
    import zlib

    import numpy as np

    import numtorchvision.io as nio

    row = 1 + (8 * {0: 1, 2: 3}[ctype] * depth + 7) // 8
    head = struct.pack(">IIBBBBB", 8, 8, depth, ctype, 0, 0, 0)
    for rows in (8, 3):
        data = (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", head)
                + _png_chunk(b"IDAT", zlib.compress((b"\x00" + b"\x07" * (row - 1)) * rows))
                + _png_chunk(b"IEND", b""))
        t = numtorch.from_numpy(np.frombuffer(data, np.uint8).copy())
        for fn in (nio.decode_png, nio.decode_image):
            if rows == 8:
                assert tuple(fn(t).shape) == ({0: 1, 2: 3}[ctype], 8, 8)
            else:
                with pytest.raises(RuntimeError, match=r"decode_png\.cpp:59, Internal error\.$"):
                    fn(t)


# -- MNIST raw files that hold more values than their header's shape ------------------------
def test_idx_file_longer_than_its_shape_is_refused(tmp_path):
    """torchvision views the values with the header's shape, which fails when the file holds
    more (RuntimeError); numtorch read the first values and dropped the rest silently."""
    import struct

    import numtorchvision

    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for split in ("train", "t10k"):
        (raw / f"{split}-images-idx3-ubyte").write_bytes(struct.pack(">iiii", 2051, 3, 2, 2)
                                                         + bytes(range(20)))
        (raw / f"{split}-labels-idx1-ubyte").write_bytes(struct.pack(">ii", 2049, 3)
                                                         + bytes([1, 2, 3]))
    with pytest.raises(RuntimeError, match=r"shape '\[3, 2, 2\]' is invalid for input of "
                                           r"size 20"):
        numtorchvision.datasets.MNIST(str(tmp_path), train=True, download=False)


# -- torch.load(mmap=True) maps the file ----------------------------------------------------
def _shared_write(lib, path):
    import mmap

    lib.save({"x": lib.arange(6.0).view(2, 3), "v": lib.arange(3)}, path)
    lib.serialization.set_default_mmap_options(mmap.MAP_SHARED)
    try:
        out = lib.load(path, mmap=True)
        out["x"][0, 1] = 77.0
        del out
    finally:
        lib.serialization.set_default_mmap_options(mmap.MAP_PRIVATE)
    private = lib.load(path, mmap=True)
    private["x"][1, 1] = -5.0  # (a private mapping: the file keeps its value)
    return lib.load(path)["x"].tolist(), private["x"].is_shared()


def test_mmap_shared_writes_reach_the_file(tmp_path):
    """With ``set_default_mmap_options(mmap.MAP_SHARED)`` torch's mmap load writes through to
    the checkpoint file; numtorch read the storages into memory, so the writes were lost."""
    assert _shared_write(numtorch, tmp_path / "n.pt") == _shared_write(torch, tmp_path / "t.pt")


def test_mmap_load_reads_no_storage_into_memory(tmp_path):
    import tracemalloc

    path = tmp_path / "big.pt"
    numtorch.save({"w": numtorch.arange(1 << 20, dtype=numtorch.float32)}, path)  # 4 MiB
    tracemalloc.start()
    try:
        out = numtorch.load(path, mmap=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
    assert out["w"][12345].item() == 12345.0
    assert out["w"].double().sum().item() == sum(range(1 << 20))
    assert torch.equal(torch.load(path, mmap=True)["w"], torch.from_numpy(out["w"].numpy()))


# -- **pickle_load_args ----------------------------------------------------------------------
@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("kw", ["foo", "encoding", "errors", "fix_imports", "buffers"])
def test_pickle_load_args_checked_as_torchs_unpicklers_check_them(kw, weights_only, legacy):
    """torch passes ``**pickle_load_args`` to its unpickler, which refuses keywords it does
    not take (TypeError); numtorch ignored every keyword."""
    value = {"foo": 1, "encoding": "latin1", "errors": "strict", "fix_imports": False,
             "buffers": None}[kw]

    def load(lib):
        buf = io.BytesIO()
        lib.save({"a": lib.ones(1)}, buf, _use_new_zipfile_serialization=not legacy)
        buf.seek(0)
        return lib.load(buf, weights_only=weights_only, **{kw: value})["a"].tolist()

    assert _outcome(lambda: load(numtorch)) == _outcome(lambda: load(torch))


# -- Tensor.set_ over a storage never views memory past its end ----------------------------
@pytest.mark.parametrize("geometry", [(2, (3,), (1,)), (-1, (2,), (1,)),
                                      (0, (2,), (-1,)), (0, (2, 2), (2,)), (3, (1,), (1,))])
def test_set_storage_geometry_stays_inside_the_storage(geometry):
    """numtorch's set_ took any size, stride and offset over a storage (as_strided): a view
    reading memory past the storage's end (a crash or other objects' bytes for large sizes),
    a negative offset read from the end, a negative stride went through. torch refuses the
    negative ones and grows its (resizable) storage to hold a larger view, as numtorch now
    does (s49; the grown elements are uninitialised: the storage's own four are compared)."""
    offset, size, stride = geometry

    def run(lib):
        t = lib.empty(0)
        s = lib.arange(4.0).untyped_storage()
        t.set_(s, offset, size, stride)
        kept = [v for k, v in enumerate(t.reshape(-1).tolist()) if offset + k < 4]
        return tuple(t.shape), t.storage_offset(), s.nbytes(), kept if stride == (1,) else None

    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


# -- BUILD of a tensor or parameter under weights_only ---------------------------------------
def _built(state, param=False):
    """A zip checkpoint whose pickle BUILDs ``state`` (pickle bytes) onto a rebuilt tensor."""
    import struct
    import zipfile

    def text(v):
        return b"X" + struct.pack("<I", len(v)) + v

    storage = (b"(" + text(b"storage") + b"ctorch\nFloatStorage\n" + text(b"0") + text(b"cpu")
               + b"K\x04tQ")
    od = b"ccollections\nOrderedDict\n)R"
    tensor = (b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"K\x00(K\x04t(K\x01t\x89"
              + od + b"tR")
    if param:
        tensor = b"ctorch._utils\n_rebuild_parameter\n(" + tensor + b"\x88" + od + b"tR"
    pkl = b"\x80\x02" + tensor + state.replace(b"STORAGE", storage) + b"b."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, rec in (("data.pkl", pkl), ("data/0", struct.pack("<4f", 1, 2, 3, 4)),
                          ("version", b"3\n")):
            zf.writestr(f"archive/{name}", rec)
    return buf.getvalue()


_BUILDS = {
    "attributes_dict": (b"}X\x0d\x00\x00\x00requires_grad\x88s", False),
    "class_to_parameter": (b"}X\x09\x00\x00\x00__class__ctorch.nn.parameter\nParameter\ns",
                           False),
    "legacy_set_view": (b"(STORAGEK\x01(K\x02t(K\x01tt", False),
    "legacy_set_past_the_end": (b"(STORAGEK\x03(K\x05t(K\x01tt", False),
    "none": (b"N", False),
    "parameter_triple": (b"(\x88ccollections\nOrderedDict\n)RNt", True),
    "parameter_bad_requires_grad": (b"(K\x01NNt", True),
    "parameter_dict": (b"}X\x03\x00\x00\x00fooK\x01s", True),
}


@pytest.mark.parametrize("case", sorted(_BUILDS))
def test_build_on_tensors_as_torchs_weights_only_unpickler(case):
    """torch's weights-only BUILD of a plain tensor is ``set_(*state)`` and of a Parameter
    ``Tensor.__setstate__``; numtorch set any attribute from a dict state (a crafted file
    could turn a tensor into a Parameter, give it a grad or hooks) and refused the legacy
    set_ tuple that torch loads."""
    state, param = _BUILDS[case]
    data = _built(state, param)

    def load(lib):
        t = lib.load(io.BytesIO(data))
        return type(t).__name__, t.tolist(), t.requires_grad, t.storage_offset()

    want = _outcome(lambda: load(torch))
    got = _outcome(lambda: load(numtorch))
    assert got[0] == want[0]
    if want[0] == "ok" or "set_()" not in want[1]:
        assert got == want
    else:  # (torch's parser adds a line per signature on why it did not match)
        assert got[1].split("\n")[0] == want[1].split("\n")[0]


# -- tensors of devices without storage (xla, maia, mtia) ------------------------------------
@pytest.mark.parametrize("where", ["cpu", "meta", "dict", "none", "callable"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_xla_tensor_checkpoints_load_where_map_location_says(where, requires_grad):
    """torch saves an xla/maia/mtia tensor as ``_rebuild_device_tensor_from_cpu_tensor``
    over its CPU values (allowed under weights_only); numtorch refused the global."""
    ml = {"cpu": "cpu", "meta": "meta", "dict": {"xla:0": "cpu"}, "none": None,
          "callable": lambda s, loc: s}[where]
    import zipfile

    rg = b"\x88" if requires_grad else b"\x89"
    data = _built(b"", False)  # a checkpoint with one float tensor over data/0

    src = zipfile.ZipFile(io.BytesIO(data))
    recs = {i.filename: src.read(i) for i in src.infolist()}
    pkl = recs["archive/data.pkl"]
    tensor = pkl[2:-2]  # (the rebuilt tensor's opcodes, without PROTO, BUILD and STOP)
    recs["archive/data.pkl"] = (b"\x80\x02ctorch._utils\n_rebuild_device_tensor_from_cpu_tensor"
                                b"\n(" + tensor + b"ctorch\nfloat64\nX\x05\x00\x00\x00xla:0"
                                + rg + b"tR.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, rec in recs.items():
            zf.writestr(name, rec)

    def load(lib):
        t = lib.load(io.BytesIO(buf.getvalue()), map_location=ml)
        return (str(t.device), str(t.dtype), t.requires_grad,
                t.tolist() if t.device.type == "cpu" else tuple(t.shape))

    want = _outcome(lambda: load(torch))
    got = _outcome(lambda: load(numtorch))
    if where == "none":  # no xla device here: both refuse (torch: NotImplementedError from
        assert want[0] != "ok" and got[0] != "ok"  # its XLA dispatch, numtorch: RuntimeError)
        return
    assert got == want


# -- torch.utils.data._utils.collate: default_collate_fn_map and the collate_*_fn functions ---
def _collate_uses(lib):
    from importlib import import_module

    mod = import_module(f"{lib.__name__}.utils.data._utils.collate")

    def floats(batch, *, collate_fn_map=None):
        return ("floats", len(batch))

    extended = dict(mod.default_collate_fn_map)
    extended[float] = floats
    out = [mod.collate([1.5, 2.5], collate_fn_map=extended),
           mod.collate([{"a": 1.5, "b": (1, 2)}] * 2, collate_fn_map=extended),
           mod.collate([lib.ones(1)] * 2, collate_fn_map={lib.Tensor: lambda b, **kw: len(b)}),
           mod.collate_tensor_fn([lib.ones(2), lib.zeros(2)]).tolist(),
           mod.collate_int_fn([True, False]).dtype.__repr__()]
    for batch, fn_map in (([1, 2], None), ([1, 2], {lib.Tensor: mod.collate_tensor_fn})):
        try:
            mod.collate(batch, collate_fn_map=fn_map)
        except TypeError as e:
            out.append(str(e))
    return out


def test_collate_fn_map_extension_as_in_torch():
    """torch documents extending default_collate through ``default_collate_fn_map`` (exact
    type first, then the first key the element is an instance of; no map: no leaf type);
    numtorch had no such table (ImportError)."""
    assert repr(_collate_uses(numtorch)) == repr(_collate_uses(torch))
