"""Session 51: datasets.utils.extract_archive / _decompress of a single compressed file into a
folder that does not exist: torchvision reports the output file's path (it opens the
compressed file, then the output); numtorchvision named its temporary '.unpacking-*' file.
Oracle: torchvision's datasets.utils at test time."""

import bz2
import gzip
import lzma

import pytest
from torchvision.datasets import utils as tv_utils

from numtorchvision.datasets import utils as nt_utils

_PACK = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("suffix", sorted(_PACK))
def test_decompress_into_a_missing_folder(tmp_path, suffix):
    src = tmp_path / f"y.txt{suffix}"
    src.write_bytes(_PACK[suffix](b"payload"))
    out = tmp_path / "missing"
    want = _raised(lambda: tv_utils.extract_archive(str(src), str(out)))
    got = _raised(lambda: nt_utils.extract_archive(str(src), str(out)))
    assert got == want
    assert want[0] is FileNotFoundError
    target = out / "other.txt"
    want = _raised(lambda: tv_utils._decompress(str(src), str(target)))
    got = _raised(lambda: nt_utils._decompress(str(src), str(target)))
    assert got == want
    assert list(tmp_path.iterdir()) == [src]


@pytest.mark.parametrize("suffix", sorted(_PACK))
def test_decompress_missing_source_reported_first(tmp_path, suffix):
    src = tmp_path / f"absent.txt{suffix}"
    target = tmp_path / "missing" / "x.txt"
    want = _raised(lambda: tv_utils._decompress(str(src), str(target)))
    got = _raised(lambda: nt_utils._decompress(str(src), str(target)))
    assert got == want


@pytest.mark.parametrize("suffix", sorted(_PACK))
def test_decompress_round_trip(tmp_path, suffix):
    src = tmp_path / f"y.txt{suffix}"
    src.write_bytes(_PACK[suffix](b"payload"))
    got = nt_utils.extract_archive(str(src), str(tmp_path))
    assert isinstance(got, str) and got.endswith("y.txt")
    assert (tmp_path / "y.txt").read_bytes() == b"payload"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, "y.txt"])
