"""Hostile checkpoints not covered by test_serialization_security.py, against real torch.load.

A pickle that names a code-running global by any opcode (GLOBAL, STACK_GLOBAL, INST, OBJ,
NEWOBJ_EX) is refused before anything runs; storage references that point outside the
archive, at missing records or past their storage are RuntimeErrors; truncated archives,
mmap on truncated files, a data.pkl shorter than its header says and 100,000-deep containers
behave as torch's loader does (same class; deep containers load, without recursion).
"""

import io
import pickle
import struct
import sys
import tracemalloc
import warnings
import zipfile

import pytest
import torch

import numtorch

from tests.test_serialization_security import _zip  # the archive builder

WO_FAILED = "Weights only load failed"


def _wrap(pkl, compression=zipfile.ZIP_STORED):
    return _zip([("archive/data.pkl", pkl), ("archive/version", b"3\n")], compression)


def _enc(v):
    return pickle.dumps(v, protocol=2)[2:-1]


def _outcome(lib, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", lib.load(io.BytesIO(data), **kw)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e), str(e)


# -- 1. no opcode reaches a code-running global -------------------------------------------
def _attacks(marker):
    touch = _enc(f"touch {marker}")
    code = _enc(f"open({str(marker)!r}, 'w')")
    return {
        "global_os_system": b"\x80\x02cos\nsystem\n(" + touch + b"tR.",
        "global_posix_system": b"\x80\x02cposix\nsystem\n(" + touch + b"tR.",
        "stack_global_exec": b"\x80\x04" + _enc("builtins") + _enc("exec") + b"\x93("
                             + code + b"tR.",
        "stack_global_eval": b"\x80\x04" + _enc("builtins") + _enc("eval") + b"\x93("
                             + code + b"tR.",
        "getattr_gadget": b"\x80\x02cbuiltins\ngetattr\n(cos\n\nX\x06\x00\x00\x00systemtR("
                          + touch + b"tR.",
        "inst_os_system": b"(S'touch " + str(marker).encode() + b"'\nios\nsystem\n.",
        "obj_os_system": b"\x80\x02(cos\nsystem\n" + touch + b"o.",
        "newobj_ex_object": b"\x80\x04cbuiltins\nobject\n)}\x92.",
        "newobj_ex_tensor": b"\x80\x04ctorch\nTensor\n)}\x92.",
        "dotted_global": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2.__globals__\n.",
        "stack_global_dotted": b"\x80\x04" + _enc("torch") + _enc(
            "_utils._rebuild_tensor_v2.__globals__") + b"\x93.",
        "torch_load_reduce": b"\x80\x02ctorch\nload\n(" + _enc("/etc/passwd") + b"tR.",
        "numpy_load_reduce": b"\x80\x02cnumpy\nload\n(" + _enc("/etc/passwd") + b"tR.",
        "build_class_attr": b"\x80\x02ccollections\nOrderedDict\n)R}X\x09\x00\x00\x00"
                            b"__class__cos\nsystem\nsb.",
        "text_persid": b"\x80\x02Pstorage\n.",
        "binpersid_not_storage": b"\x80\x02X\x03\x00\x00\x00abcQ.",
    }


_ATTACK_NAMES = sorted(_attacks("x"))


@pytest.mark.parametrize("name", _ATTACK_NAMES)
def test_code_running_globals_refused_by_every_opcode(name, tmp_path):
    marker = tmp_path / "ran"
    data = _wrap(_attacks(marker)[name])
    want = _outcome(torch, data, weights_only=True)
    assert want[0] is pickle.UnpicklingError and not marker.exists()
    with pytest.raises(pickle.UnpicklingError) as info:
        numtorch.load(io.BytesIO(data))
    assert str(info.value).startswith(WO_FAILED)
    # torch's two wordings: a global outside the allow-list, or a refused opcode/module
    assert ("two options" in str(info.value)) == ("two options" in want[1])
    assert not marker.exists()


# -- 2. storage references: outside the archive, missing, the wrong type ---------------------
def _tensor_pickle(size, stride, offset=0, numel=4, key="0", cls=b"torch\nFloatStorage",
                   location="cpu"):
    ints = lambda xs: b"(" + b"".join(_enc(x) for x in xs) + b"t"
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + _enc("storage") + b"c" + cls
            + b"\n" + _enc(key) + _enc(location) + _enc(numel) + b"tQ" + _enc(offset)
            + ints(size) + ints(stride) + b"\x89ccollections\nOrderedDict\n)RtR.")


def _with_storage(pkl, nbytes=16):
    return _zip([("archive/data.pkl", pkl), ("archive/data/0", b"\0" * nbytes),
                 ("archive/version", b"3\n")])


_REFS = {
    "key_traversal": ({"key": "../../etc/passwd"}, RuntimeError, "data/../../etc/passwd"),
    "key_absolute": ({"key": "/etc/passwd"}, RuntimeError, "data//etc/passwd: file not found"),
    "key_missing": ({"key": "7"}, RuntimeError, "data/7: file not found"),
    "unknown_storage_type": ({"cls": b"torch\nEvilStorage"}, pickle.UnpicklingError,
                             "EvilStorage"),
    "os_as_storage_type": ({"cls": b"os\nsystem"}, pickle.UnpicklingError, WO_FAILED),
    "offset_past_end": ({"offset": 3}, RuntimeError, "storage that is not resizable"),
    "offset_negative": ({"offset": -1}, RuntimeError, "Tensor: invalid storage offset -1"),
    "offset_huge": ({"offset": 2 ** 62}, RuntimeError, "Storage size calculation overflowed"),
    "offset_large": ({"offset": 2 ** 60}, RuntimeError, "storage that is not resizable"),
    "stride_past_end": ({"size": [2, 2], "stride": [3, 1]}, RuntimeError,
                        "storage that is not resizable"),
    "numel_beyond_record": ({"numel": 2 ** 30}, RuntimeError, "expected size (4294967296 bytes"),
    "bad_device_index": ({"location": "cuda:99999999999"}, RuntimeError,
                         "Could not parse device index"),
    "unknown_device": ({"location": "xla:0"}, RuntimeError, "xla"),
}


@pytest.mark.parametrize("case", sorted(_REFS))
@pytest.mark.parametrize("weights_only", [True, False])
def test_storage_references_checked(case, weights_only):
    kw, cls, words = _REFS[case]
    kw = {"size": [2], "stride": [1], **kw}
    data = _with_storage(_tensor_pickle(kw.pop("size"), kw.pop("stride"), **kw))
    want = _outcome(torch, data, weights_only=weights_only)
    if weights_only or cls is RuntimeError:
        assert want[0] is cls, want
    got = _outcome(numtorch, data, weights_only=weights_only)
    if not weights_only and cls is pickle.UnpicklingError:
        # a full load imports the class; torch fails on it in its own ways
        assert got[0] in (AttributeError, RuntimeError, pickle.UnpicklingError, TypeError), got
        return
    assert got[0] is cls, got
    assert words in got[1], got


def test_missing_storage_record_is_a_runtime_error():
    data = _zip([("archive/data.pkl", _tensor_pickle([2], [1])), ("archive/version", b"3\n")])
    assert _outcome(torch, data)[0] is RuntimeError
    with pytest.raises(RuntimeError, match="data/0: file not found"):
        numtorch.load(io.BytesIO(data))


# -- 3. truncated archives, mmap on them, a data.pkl shorter than its header ---------------
def _saved():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(100.0)}, buf)
    return buf.getvalue()


@pytest.mark.parametrize("keep", [0.0, 0.01, 0.5, -22, -1], ids=lambda k: f"keep{k}")
@pytest.mark.parametrize("mmap", [False, True])
def test_truncated_archive(keep, mmap, tmp_path):
    full = _saved()
    cut = full[:int(len(full) * keep)] if isinstance(keep, float) else full[:keep]
    path = tmp_path / "cut.pt"
    path.write_bytes(cut)
    outcomes = []
    for lib in (torch, numtorch):
        try:
            lib.load(str(path), mmap=mmap)
            outcomes.append(("ok", ""))
        except Exception as e:  # noqa: BLE001 - compared below
            outcomes.append((type(e), str(e)))
    (want, want_msg), (got, got_msg) = outcomes
    assert got is want, outcomes
    if want is RuntimeError:
        assert got_msg == want_msg


def test_mmap_of_a_short_storage_record_is_refused(tmp_path):
    # torch maps past the record into the next one and returns whatever bytes it finds;
    # numtorch refuses the file instead of returning silently wrong values
    full = _saved()
    src = zipfile.ZipFile(io.BytesIO(full))
    recs = [(i.filename, src.read(i)) for i in src.infolist()]
    path = tmp_path / "short.pt"
    path.write_bytes(_zip([(n, d[:8] if n.endswith("data/0") else d) for n, d in recs]))
    for mmap in (False, True):
        with pytest.raises(RuntimeError, match=r"record size \(8 bytes\) does not match expected size \(400 bytes"):
            numtorch.load(str(path), mmap=mmap)


@pytest.mark.parametrize("content", ["legacy", "empty", "text", "zip"])
@pytest.mark.parametrize("by_path", [True, False])
def test_mmap_needs_a_zip_checkpoint_by_path(content, by_path, tmp_path):
    buf = io.BytesIO()
    if content in ("legacy", "zip"):
        torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=content == "zip")
    elif content == "text":
        buf.write(b"hello world")
    path = tmp_path / "c.pt"
    path.write_bytes(buf.getvalue())
    outcomes = []
    for lib in (torch, numtorch):
        try:
            out = lib.load(str(path) if by_path else io.BytesIO(buf.getvalue()), mmap=True)
            outcomes.append(("ok", out["w"].tolist()))
        except Exception as e:  # noqa: BLE001 - compared below
            outcomes.append((type(e), str(e)))
    assert outcomes[1] == outcomes[0]


def test_data_pkl_shorter_than_its_header_says():
    data = bytearray(_wrap(pickle.dumps([1, 2], protocol=2), zipfile.ZIP_DEFLATED))
    entry = data.index(b"PK\x01\x02")
    assert data[entry + 46:entry + 62] == b"archive/data.pkl"
    data[entry + 24:entry + 28] = struct.pack("<I", 2 ** 32 - 1)  # uncompressed size
    assert _outcome(torch, bytes(data))[0] is RuntimeError
    for weights_only in (True, False):
        with pytest.raises(RuntimeError, match="data.pkl: unexpected decompressed size"):
            numtorch.load(io.BytesIO(bytes(data)), weights_only=weights_only)


# -- 4. deep nesting and long strings load as in torch (no recursion) -----------------------
def _deep(n, kind):
    if kind == "list":
        return b"\x80\x02" + b"]" * n + b"a" * (n - 1) + b"."
    if kind == "tuple":
        return b"\x80\x02N" + b"\x85" * n + b"."
    return b"\x80\x02}" + b"K\x01}" * (n - 1) + b"s" * (n - 1) + b"."


def _depth(x):
    d = 0
    while isinstance(x, (list, tuple, dict)) and x:
        x = x[1] if isinstance(x, dict) else x[0]
        d += 1
    return d


@pytest.mark.parametrize("kind", ["list", "tuple", "dict"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_100000_deep_containers_load(kind, weights_only):
    data = _wrap(_deep(100_000, kind))
    want = _depth(torch.load(io.BytesIO(data), weights_only=weights_only))
    assert want >= 99_999
    assert _depth(numtorch.load(io.BytesIO(data), weights_only=weights_only)) == want


def test_deep_list_around_a_tensor_with_map_location():
    buf = io.BytesIO()
    torch.save(torch.arange(3.0), buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    recs = [(i.filename, src.read(i)) for i in src.infolist()]
    pkl = next(d for n, d in recs if n.endswith("data.pkl"))
    deep = b"\x80\x02" + b"]" * 10_000 + pkl[2:-1] + b"a" * 10_000 + b"."
    data = _zip([(n, deep if n.endswith("data.pkl") else d) for n, d in recs])
    for map_location in (None, "cpu", lambda s, loc: s):
        x = numtorch.load(io.BytesIO(data), map_location=map_location)
        assert _depth(x) == 10_000
        for _ in range(10_000):
            x = x[0]
        assert x.tolist() == [0.0, 1.0, 2.0]


def test_deep_structure_save_is_a_recursion_error_as_in_torch():
    x = y = []
    for _ in range(5000):
        y.append([])
        y = y[0]
    for lib in (torch, numtorch):
        with pytest.raises(RecursionError):
            lib.save(x, io.BytesIO())


def test_long_string_round_trips():
    buf = io.BytesIO()
    torch.save({"s": "x" * (16 << 20)}, buf)
    assert numtorch.load(io.BytesIO(buf.getvalue()))["s"] == "x" * (16 << 20)


def test_a_refused_module_is_never_imported():
    # the refusal comes before the global is resolved: a module with import-time side
    # effects (``this`` prints the Zen of Python) is not imported to be refused
    sys.modules.pop("this", None)
    data = _wrap(b"\x80\x02cthis\nrot13\n.")
    for weights_only in (None, True):
        with pytest.raises(pickle.UnpicklingError, match=WO_FAILED):
            numtorch.load(io.BytesIO(data), weights_only=weights_only)
    assert "this" not in sys.modules


def test_stored_record_claiming_more_than_the_file_holds():
    # a 3 GiB storage claimed by a tiny file (the zip directory and the pickle agree):
    # refused before the array is allocated, as torch refuses the archive
    n = 3 << 30
    data = bytearray(_zip([("archive/data.pkl", _tensor_pickle([2], [1], numel=n // 4)),
                           ("archive/data/0", b"\0" * 16), ("archive/version", b"3\n")]))
    entry = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)
    assert data[entry + 46:entry + 60] == b"archive/data/0"
    data[entry + 20:entry + 28] = struct.pack("<II", n, n)  # compressed and full size
    assert _outcome(torch, bytes(data))[0] is RuntimeError
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="claims 3221225472 bytes, more than the file"):
            numtorch.load(io.BytesIO(bytes(data)))
        assert tracemalloc.get_traced_memory()[1] < 1 << 24
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("index", [5, -1, 3])
def test_sparse_indices_outside_the_size_are_refused(index):
    # torch loads these unchecked unless invariant checks are on (then it raises what
    # numtorch raises always): the index would be dropped, or wrap around in NumPy
    t = torch.sparse_coo_tensor(torch.tensor([[0, index]]), torch.tensor([1.0, 2.0]), (3,),
                                check_invariants=False)
    buf = io.BytesIO()
    torch.save(t, buf)
    with torch.sparse.check_sparse_tensor_invariants(), pytest.raises(RuntimeError) as want:
        torch.load(io.BytesIO(buf.getvalue()))
    with pytest.raises(RuntimeError) as got:
        numtorch.load(io.BytesIO(buf.getvalue()))
    assert str(got.value) == str(want.value)


def test_valid_sparse_checkpoint_still_loads():
    t = torch.sparse_coo_tensor(torch.tensor([[0, 2, 2]]), torch.tensor([1.0, 2.0, 3.0]), (3,))
    buf = io.BytesIO()
    torch.save(t, buf)
    got = numtorch.load(io.BytesIO(buf.getvalue()))
    assert got.to_dense().tolist() == t.to_dense().tolist() == [1.0, 0.0, 5.0]


@pytest.mark.parametrize("member", ["data.pkl", "version", "byteorder", "data/0"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_damaged_member_header_is_a_runtime_error(member, weights_only):
    # an unknown compression method in one central directory entry: zipfile's
    # NotImplementedError (or, for a shifted header, its ValueError) is a corrupt file, and
    # must not pass through as if a checkpoint's own class had raised it
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3.0)}, buf)
    data = bytearray(buf.getvalue())
    pos = 0
    while True:
        pos = data.index(b"PK\x01\x02", pos + 4)
        name_len = struct.unpack("<H", data[pos + 28:pos + 30])[0]
        if data[pos + 46:pos + 46 + name_len].decode().endswith("/" + member):
            break
    data[pos + 10:pos + 12] = struct.pack("<H", 99)  # compression method
    assert _outcome(torch, bytes(data), weights_only=weights_only)[0] is RuntimeError
    with pytest.raises(RuntimeError, match="corrupt"):
        numtorch.load(io.BytesIO(bytes(data)), weights_only=weights_only)


@pytest.mark.parametrize("cut", [4, 10, 30])
@pytest.mark.parametrize("weights_only", [True, False])
def test_shortened_local_header_is_a_runtime_error(cut, weights_only):
    # bytes missing from data.pkl's local header: zipfile seeks before the file's start
    # (ValueError, which passed through with weights_only=False)
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3.0)}, buf)
    data = buf.getvalue()
    at = data.index(b"archive/data.pkl") + len(b"archive/data.pkl") + 4
    data = data[:at] + data[at + cut:]
    assert _outcome(torch, data, weights_only=weights_only)[0] is RuntimeError
    with pytest.raises(RuntimeError, match="corrupt"):
        numtorch.load(io.BytesIO(data), weights_only=weights_only)
