"""Dataset file readers on damaged headers, against torchvision 0.28's readers.

The optical-flow ``.flo`` reader takes its width and height from the file: torchvision hands
them to NumPy, which allocates what they ask for (a 100000 x 100000 header on a 76-byte file
asked for 75 GiB) or takes -1 as "infer this size". numtorchvision checks them against the
file first and raises torchvision's ValueError.
"""

import struct

import pytest
import torch

from tests.security._sandbox import run_limited

# torchvision's compiled ops do not load with the CPU torch wheel: import its pure-Python
# parts with register_fake briefly a no-op, as tests/vision/conftest.py does
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
try:
    import torchvision.datasets._optical_flow as tv_flow
finally:
    torch.library.register_fake = _register_fake

from numtorchvision.datasets import _dense_io


def _flo(path, w, h, payload):
    path.write_bytes(b"PIEH" + struct.pack("<ii", w, h) + payload)
    return str(path)


def _read(fn, path):
    return tuple(fn(path).shape)


@pytest.mark.parametrize("w, h, nbytes", [(2, 3, 48), (2, 3, 60), (0, 5, 0), (2, 3, 40)])
def test_flo_files_torchvision_reads(w, h, nbytes, tmp_path):
    path = _flo(tmp_path / "a.flo", w, h, b"\0" * nbytes)
    want = run_limited(_read, tv_flow._read_flo, path)
    got = run_limited(_read, _dense_io._read_flo, path)
    assert got == want


@pytest.mark.parametrize("w, h", [(100000, 100000), (2 ** 31 - 1, 2 ** 31 - 1), (-1, 3),
                                  (-1, -1), (3, -2)])
def test_flo_headers_that_lie_are_value_errors(w, h, tmp_path):
    path = _flo(tmp_path / "a.flo", w, h, b"\0" * 64)
    got = run_limited(_read, _dense_io._read_flo, path)
    assert got[:2] == ("error", "ValueError"), got
    want = run_limited(_read, tv_flow._read_flo, path)
    # torchvision: an allocation of the header's size, or a wrong shape read as valid
    assert want[0] in ("oom", "ok") or want[1] in ("ValueError", "MemoryError"), want


def test_flo_truncated_header(tmp_path):
    (tmp_path / "a.flo").write_bytes(b"PIEH\1\0")
    with pytest.raises(ValueError, match="truncated header"):
        _dense_io._read_flo(str(tmp_path / "a.flo"))


_PICKLES = {  # CIFAR-style batch pickles that claim more than they hold
    "binbytes8_2_60": b"\x80\x04\x8e" + struct.pack("<Q", 2 ** 60) + b"abc",
    "binbytes8_2_33": b"\x80\x04\x8e" + struct.pack("<Q", 2 ** 33) + b"abc",
    "binunicode8_2_33": b"\x80\x04\x8d" + struct.pack("<Q", 2 ** 33) + b"abc",
    "long4_2_31": b"\x80\x02\x8b" + struct.pack("<i", 2 ** 31 - 1) + b"abc",
    "array_2_40": b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n\x8a\x06\x00"
                  b"\x00\x00\x00\x00\x01\x85C\x01b\x87R.",
    "marks_200000": b"\x80\x02" + b"(" * 200000 + b".",
    "lists_200000": b"\x80\x02" + b"]" * 200000 + b".",
}


@pytest.mark.parametrize("name", sorted(_PICKLES))
def test_data_pickles_that_claim_too_much(name, tmp_path):
    from numtorchvision.datasets._safe_pickle import load_data_pickle

    path = tmp_path / "data_batch_1"
    path.write_bytes(_PICKLES[name])
    got = run_limited(load_data_pickle, str(path))
    assert got[0] == "ok" or got[:2] == ("error", "RuntimeError"), got
    if got[0] == "error":
        assert str(path) in got[2] and "download it again" in got[2]
