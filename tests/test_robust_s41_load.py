"""torch.serialization.skip_data, map_location callables and allowed classes' own errors,
against torch 2.13.

skip_data (numtorch lacked it): saves leave every storage record as blank space of its size
(readable, CRC 0, so bytes written there later load), loads build tensors with the file's
geometry without reading their bytes, the legacy format is refused, and the setting belongs
to one thread and is restored on leaving nested contexts. A callable ``map_location`` gets a
real untyped storage of the bytes read, as in torch (``len`` counts bytes, ``clone``), and a
storage it returns is what the tensors get. An exception raised by the ``__setstate__`` of a
class allowed with ``safe_globals`` reaches the caller as raised.
"""

import io
import threading
import warnings
import zipfile

import pytest
import torch

import numtorch
from tests.test_serialization_security import _outcome, _wrap


def _state(lib):
    return {"w": lib.arange(6.0).reshape(2, 3), "t": lib.arange(10)[2:8:2],
            "h": lib.ones(3, dtype=lib.float16), "n": 4}


def _geometry(obj):
    return {k: (tuple(v.shape), str(v.dtype), v.stride(), v.storage_offset())
            if hasattr(v, "stride") else v for k, v in obj.items()}


def _values(obj):
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in obj.items()}


def _saved(lib, skip, legacy=False):
    buf = io.BytesIO()
    if skip:
        with lib.serialization.skip_data():
            lib.save(_state(lib), buf, _use_new_zipfile_serialization=not legacy)
    else:
        lib.save(_state(lib), buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


@pytest.mark.parametrize("writer", ["torch", "numtorch"])
@pytest.mark.parametrize("reader", ["torch", "numtorch"])
def test_skip_data_save_writes_blank_records(writer, reader):
    data = _saved(torch if writer == "torch" else numtorch, skip=True)
    lib = torch if reader == "torch" else numtorch
    got = lib.load(io.BytesIO(data))
    want = torch.load(io.BytesIO(_saved(torch, skip=True)))
    assert _geometry(got) == _geometry(want)
    assert _values(got) == _values(want)  # blank space reads as zeros
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        records = [i for i in zf.infolist() if "/data/" in i.filename]
        assert records and all(i.CRC == 0 for i in records)


def test_skip_data_blank_space_takes_bytes_written_later():
    filled = []
    for lib in (torch, numtorch):
        data = bytearray(_saved(lib, skip=True))
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
            for info in zf.infolist():
                if "/data/" not in info.filename:
                    continue
                head = bytes(data[info.header_offset:info.header_offset + 30])
                start = (info.header_offset + 30 + int.from_bytes(head[26:28], "little")
                         + int.from_bytes(head[28:30], "little"))
                data[start:start + info.file_size] = bytes(range(1, info.file_size + 1))
        filled.append([_values(reader.load(io.BytesIO(bytes(data))))
                       for reader in (torch, numtorch)])
    assert filled[0][0] == filled[0][1] == filled[1][0] == filled[1][1]


@pytest.mark.parametrize("legacy", [False, True])
def test_skip_data_load_keeps_the_geometry(legacy):
    data = _saved(torch, skip=False, legacy=legacy)
    got = []
    for lib in (torch, numtorch):
        with lib.serialization.skip_data():
            got.append(_geometry(lib.load(io.BytesIO(data))))
    assert got[0] == got[1]


def test_skip_data_refuses_the_legacy_format():
    want, got = [], []
    for lib, out in ((torch, want), (numtorch, got)):
        with lib.serialization.skip_data(), pytest.raises(RuntimeError) as e:
            lib.save([lib.ones(2)], io.BytesIO(), _use_new_zipfile_serialization=False)
        out.append(str(e.value))
    assert got == want


def test_skip_data_is_per_thread_and_nests():
    seen = {}
    for lib in (torch, numtorch):
        data = _saved(lib, skip=False)
        runs = []

        def load(lib=lib, data=data, runs=runs):
            runs.append(_values(lib.load(io.BytesIO(data))))

        ctx = lib.serialization.skip_data(materialize_fake_tensors=False)
        with ctx as entered:
            with lib.serialization.skip_data():
                pass
            th = threading.Thread(target=load)  # another thread reads the bytes
            th.start()
            th.join()
            inner = _geometry(lib.load(io.BytesIO(data)))  # still skipping after the inner
        load()  # and reading again once left
        seen[lib.__name__] = (entered, ctx.materialize_fake_tensors, inner, runs)
    assert seen["numtorch"] == seen["torch"]
    assert seen["torch"][3][0] == seen["torch"][3][1] == _values(_state(torch))


def _probe(lib, replace):
    seen = []

    def where(storage, location):
        seen.append((type(storage).__name__, len(storage), storage.nbytes(), location,
                     storage.tolist()[:8], storage.clone().tolist() == storage.tolist()))
        return lib.UntypedStorage(24).fill_(1) if replace else storage

    buf = io.BytesIO()
    lib.save({"a": lib.arange(3.0), "b": lib.arange(3)}, buf)
    buf.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = lib.load(buf, map_location=where)
    return seen, _values(out)


@pytest.mark.parametrize("replace", [False, True])
def test_map_location_callable_gets_and_returns_storages(replace):
    assert _probe(numtorch, replace) == _probe(torch, replace)


class _Refuses:
    def __setstate__(self, state):
        raise ValueError(f"refusing the state {state!r}")


def test_allowed_class_setstate_error_reaches_the_caller():
    name = f"{__name__}\n_Refuses\n".encode()
    pkl = b"\x80\x02c" + name + b")\x81}X\x01\x00\x00\x00qK\x01sb."
    want, got = [], []
    for lib, out in ((torch, want), (numtorch, got)):
        with lib.serialization.safe_globals([_Refuses]):
            out.append(_outcome(lib, _wrap(pkl)))
    assert got == want
    assert want[0][0] is ValueError


_SCANNED = {
    "opcode_outside_weights_only": b"\x80\x02cos\nsystem\n0cbuiltins\neval\n.",
    "stack_global": b"\x80\x04\x8c\x02os\x8c\x06system\x93.",
    "inst": b"(X\x04\x00\x00\x00echoios\nsystem\n.",
    "truncated": b"\x80\x02X\x05\x00\x00\x00ab",
    "no_stop": b"\x80\x02N",
    "missing_memo": b"\x80\x02h\x05.",
    "stack_underflow": b"\x80\x02a.",
    "globals_listed": b"\x80\x02cos\nsystem\nctorch\nTensor\n\x86.",
}


@pytest.mark.parametrize("case", sorted(_SCANNED))
def test_unsafe_globals_scan_of_malformed_pickles(case):
    data = _wrap(_SCANNED[case])
    outcomes = []
    for lib in (torch, numtorch):
        try:
            outcomes.append(lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
        except Exception as e:  # noqa: BLE001 - the class and text are compared
            outcomes.append((type(e), str(e)))
    assert outcomes[1] == outcomes[0]
