"""Crafted checkpoints for what the checkpoint fuzzer (``fuzz_main.py``) found, against torch.

Each case is a file torch 2.13 loads or refuses in a particular way that numtorch did not
match: CRC-less archives, a header offset before the file's start, storage references that
disagree on their element count, pickles with leftovers on the stack at STOP, REDUCE and
NEWOBJ of things that are no allowed callables, storage classes from any module, version
records with trailing bytes, legacy storages whose count disagrees with the pickle, and empty
tensors with strides and offsets of their own.
"""

import collections
import io
import pickle
import struct
import warnings

import pytest
import torch

import numtorch
from tests.test_serialization_security import _with_storage, _wrap, _zip


def _outcome(lib, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", lib.load(io.BytesIO(data), **kw)
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            return type(e), str(e)


def _same(data, **kw):
    """numtorch's outcome equals torch's: the values loaded, or the class and message."""
    want, got = _outcome(torch, data, **kw), _outcome(numtorch, data, **kw)
    assert got[0] == want[0], (want, got)
    if want[0] == "ok":
        assert repr(got[1]) == repr(want[1])
    else:
        assert got[1] == want[1]
    return got


def _enc(v):
    return pickle.dumps(v, protocol=2)[2:-1]


def test_archive_written_without_crc32s_loads(tmp_path):
    torch.serialization.set_crc32_options(False)
    try:
        buf = io.BytesIO()
        torch.save({"w": torch.arange(5.0), "n": 3}, buf)
    finally:
        torch.serialization.set_crc32_options(True)
    _same(buf.getvalue())


def test_bad_crc32_is_still_refused():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(5.0)}, buf)
    data = bytearray(buf.getvalue())
    pos = data.index(b"PK\x01\x02") + 16  # data.pkl's CRC in the central directory
    data[pos] ^= 1
    with pytest.raises(RuntimeError, match="Bad CRC-32"):
        numtorch.load(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("weights_only", [True, False])
def test_central_directory_offset_past_its_place(weights_only):
    buf = io.BytesIO()
    torch.save({"w": torch.arange(5.0)}, buf)
    data = bytearray(buf.getvalue())
    end = data.rindex(b"PK\x05\x06")
    zip64 = data.rfind(b"PK\x06\x06")
    if zip64 >= 0:  # the zip64 end record holds the offset zipfile reads
        pos, fmt = zip64 + 48, "<Q"
    else:
        pos, fmt = end + 16, "<I"
    (offset,) = struct.unpack_from(fmt, data, pos)
    struct.pack_into(fmt, data, pos, offset + 100)  # every member header 100 bytes early
    want = _outcome(torch, bytes(data), weights_only=weights_only)
    got = _outcome(numtorch, bytes(data), weights_only=weights_only)
    assert want[0] is RuntimeError
    assert got[0] is RuntimeError, got  # (was an OSError from a negative seek)


def _two_refs(numel2):
    """Two tensors on storage 0: the second reference claims ``numel2`` elements."""
    def ref(numel):
        return (b"(" + _enc("storage") + b"ctorch\nFloatStorage\n" + _enc("0") + _enc("cpu")
                + _enc(numel) + b"tQ")

    def tensor(numel, offset):
        return (b"ctorch._utils\n_rebuild_tensor_v2\n(" + ref(numel) + _enc(offset)
                + b"K\x02\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtR")

    return _with_storage(b"\x80\x02](" + tensor(4, 0) + tensor(numel2, 2) + b"e.")


@pytest.mark.parametrize("numel2", [4, 0, 99, -1, 2 ** 40, "x"])
def test_later_storage_references_are_not_recounted(numel2):
    got = _same(_two_refs(numel2), weights_only=True)
    assert got[0] == "ok"
    assert got[1][1].untyped_storage().data_ptr() == got[1][0].untyped_storage().data_ptr()


@pytest.mark.parametrize("payload", [
    b"\x80\x02K\x01K\x02.",  # two values on the stack: the top one is the result
    b"\x80\x02K\x01(K\x02.",  # STOP inside an open MARK with a value above it
    b"\x80\x02(.",  # STOP inside an open MARK with nothing above it
    b"\x80\x02K\x01(.",
    b"\x80\x02.",  # STOP on an empty stack
])
@pytest.mark.parametrize("weights_only", [True, False])
def test_stop_takes_the_top_of_the_stack(payload, weights_only):
    _same(_wrap(payload), weights_only=weights_only)


@pytest.mark.parametrize("payload", [
    b"\x80\x02}(tR.",  # REDUCE of a dict
    b"\x80\x02K\x01)R.",  # REDUCE of an int
    b"\x80\x02})\x81.",  # NEWOBJ of a dict
    b"\x80\x02ccollections\nOrderedDict\nK\x01R.",  # arguments that are no tuple
    b"\x80\x02ccollections\nOrderedDict\nK\x01\x81.",
    b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nK\x01R.",
    b"\x80\x02ccollections\nOrderedDict\n]R.",  # a list of arguments: unpacked as torch does
    b"\x80\x02ctorch\nfloat32\n)\x81.",  # NEWOBJ of an allowed object that is no class
])
def test_calls_of_what_is_no_allowed_callable(payload):
    _same(_wrap(payload), weights_only=True)


@pytest.mark.parametrize("name", [b"foo\nFloatStorage", b"torch.cuda\nFloatStorage",
                                  b"torch.cuda\nHalfStorage", b"foo\nUntypedStorage"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_storage_classes_named_from_any_module(name, weights_only):
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + _enc("storage") + b"c" + name
           + b"\n" + _enc("0") + _enc("cpu") + b"K\x02tQK\x00K\x02\x85K\x01\x85\x89"
           b"ccollections\nOrderedDict\n)RtR.")
    want = _outcome(torch, _with_storage(pkl, 8), weights_only=weights_only)
    got = _outcome(numtorch, _with_storage(pkl, 8), weights_only=weights_only)
    assert got[0] == want[0], (want, got)
    if want[0] == "ok":
        assert str(got[1].dtype) == str(want[1].dtype) and got[1].tolist() == want[1].tolist()


def _torch_records():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3.0)}, buf)
    import zipfile
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    return [(i.filename, zf.read(i)) for i in zf.infolist()]


@pytest.mark.parametrize("version", [b"3J", b"+3", b"3\r\n", b"10x", b"-3", b"0x3", b"",
                                     b"abc"])
def test_version_record_read_as_a_leading_integer(version):
    recs = [(n, version if n.endswith("/version") else d) for n, d in _torch_records()]
    want = _outcome(torch, _zip(recs))
    got = _outcome(numtorch, _zip(recs))
    assert got[0] == want[0], (want, got)
    if want[0] == "ok":
        assert got[1]["w"].tolist() == want[1]["w"].tolist()


def test_rebuild_with_torch_s_required_arguments():
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + _enc("storage")
           + b"ctorch\nFloatStorage\n" + _enc("0") + _enc("cpu") + b"K\x04tQK\x00K\x04\x85"
           b"K\x01\x85\x89tR.")  # requires_grad given, backward_hooks missing
    _same(_with_storage(pkl), weights_only=True)


def _legacy_with_count(count):
    buf = io.BytesIO()
    torch.save(torch.arange(4.0), buf, _use_new_zipfile_serialization=False)
    data = buf.getvalue()
    pos = len(data) - 16 - 8
    return data[:pos] + struct.pack("<q", count) + data[pos + 8:]


@pytest.mark.parametrize("count", [3, 5, -1, 2 ** 40])
def test_legacy_count_mismatch_in_torch_s_words(count):
    got = _same(_legacy_with_count(count), weights_only=True)
    assert got[0] is RuntimeError


@pytest.mark.parametrize("lib", ["torch", "numtorch"])
def test_empty_tensors_keep_their_strides_and_offset(lib):
    base = torch.arange(6.0)
    values = [base[4:4].as_strided((0, 2), (5, 1), 3), base[6:], torch.zeros(0, 3).t(),
              torch.zeros(3, 0)]
    buf = io.BytesIO()
    torch.save(values, buf)
    data = buf.getvalue()
    got = numtorch.load(io.BytesIO(data)) if lib == "numtorch" else torch.load(io.BytesIO(data))
    for g, w in zip(got, values):
        assert (tuple(g.shape), g.stride(), g.storage_offset()) == \
               (tuple(w.shape), w.stride(), w.storage_offset())


def test_deflated_record_marked_stored_is_refused_not_read_as_values():
    recs = _torch_records()
    data = bytearray(_zip(recs, compression=__import__("zipfile").ZIP_DEFLATED))
    pos = data.index(b"PK\x01\x02")
    while pos >= 0:  # every central directory entry: compression method 8 -> 0 (stored)
        struct.pack_into("<H", data, pos + 10, 0)
        pos = data.find(b"PK\x01\x02", pos + 4)
    assert _outcome(torch, bytes(data))[0] is RuntimeError
    got = _outcome(numtorch, bytes(data))
    assert got[0] is RuntimeError, got


@pytest.mark.parametrize("weights_only", [True, False])
def test_unknown_pickle_protocol(weights_only):
    """torch's weights-only unpickler only warns; a full load is pickle's ValueError."""
    _same(_wrap(b"\x80\x2fK\x01."), weights_only=weights_only)


@pytest.mark.parametrize("name", [b"os\nsystem", b"posix\nsystem", b"builtins\neval",
                                  b"builtins\ngetattr", b"numtorch\nload", b"torch\nload",
                                  b"torch._utils\n_rebuild_tensor_v2.__globals__"])
def test_refused_globals_in_a_legacy_file(name):
    """The legacy reader skims the pickle for its storages first: the skim refuses a global
    exactly where, and as, torch's one pass does."""
    buf = io.BytesIO()
    torch.save(collections.OrderedDict(w=torch.arange(3.0)), buf,
               _use_new_zipfile_serialization=False)
    data = buf.getvalue()
    assert data.count(b"ccollections\nOrderedDict\n") >= 1
    data = data.replace(b"ccollections\nOrderedDict\n", b"c" + name + b"\n", 1)
    got = _same(data, weights_only=True)
    assert got[0] is pickle.UnpicklingError


def _tar_checkpoint(path):
    import tarfile

    with tarfile.open(path, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for name in ("sys_info", "pickle", "storages", "tensors"):
            payload = pickle.dumps(0, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))


@pytest.mark.parametrize("weights_only", [True, False])
def test_pre_0_4_tar_checkpoint(weights_only, tmp_path):
    """torch refuses the tar format under weights_only in these words; numtorch, which does
    not read the format, says so instead of failing inside a pickle."""
    path = tmp_path / "old.pt"
    _tar_checkpoint(path)
    outcomes = []
    for lib in (torch, numtorch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                lib.load(path, weights_only=weights_only)
                outcomes.append(("ok", ""))
            except Exception as e:  # noqa: BLE001 - the class and text are compared
                outcomes.append((type(e), str(e)))
    want, got = outcomes
    if weights_only:
        assert got == want
    else:
        assert got[0] is RuntimeError and "tar format" in got[1]
    # the same bytes in a buffer are not looked at as a tar, by torch either
    assert _outcome(numtorch, path.read_bytes(), weights_only=weights_only)[0] == \
        _outcome(torch, path.read_bytes(), weights_only=weights_only)[0]


@pytest.mark.parametrize("name", [b"torch\nnn.parameter.Parameter",
                                  b"collections\nOrderedDict.fromkeys"])
def test_dotted_names_in_protocol_2_under_a_full_load(name):
    """pickle resolves dotted names only from protocol 4: a protocol-2 GLOBAL naming one is
    pickle's AttributeError, as in torch (numtorch resolved it)."""
    want = _outcome(torch, _wrap(b"\x80\x02c" + name + b"\n."), weights_only=False)
    got = _outcome(numtorch, _wrap(b"\x80\x02c" + name + b"\n."), weights_only=False)
    assert want[0] is got[0] is AttributeError, (want, got)
    assert got[1].split(" on ")[0] == want[1].split(" on ")[0]


def test_empty_storage_record_with_a_damaged_local_header_loads():
    buf = io.BytesIO()
    torch.save({"e": torch.zeros(0, 3), "w": torch.arange(3.0)}, buf)
    data = bytearray(buf.getvalue())
    zf = __import__("zipfile").ZipFile(io.BytesIO(bytes(data)))
    info = next(i for i in zf.infolist() if i.file_size == 0 and "/data/" in i.filename)
    data[info.header_offset] ^= 0xFF  # its local header signature: nothing of it is read
    got = _same(bytes(data), weights_only=True)
    assert got[0] == "ok"
