"""Dataset file readers on damaged headers, against torchvision 0.28's readers.

The optical-flow ``.flo`` reader takes its width and height from the file: torchvision hands
them to NumPy, which allocates what they ask for (a 100000 x 100000 header on a 76-byte file
asked for 75 GiB) or takes -1 as "infer this size". numtorchvision checks them against the
file first and raises torchvision's ValueError.
"""

import struct

import pytest
import torchvision.datasets._optical_flow as tv_flow

from numtorchvision.datasets import _dense_io
from tests.security._sandbox import run_limited


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
