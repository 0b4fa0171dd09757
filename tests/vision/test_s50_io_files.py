"""Session 50: torchvision 0.28's read_file/write_file (C++, read from the shipped image.so:
the checks, their order and texts) raise RuntimeError for a missing or empty file and for a
file that cannot be opened for writing, with the function, source file and line first;
numtorchvision raised FileNotFoundError and read an empty file as an empty tensor."""

import os

import numpy as np
import pytest

import numtorch
from numtorchvision import io as nio

_SRC = "read_write_file.cpp"


def test_read_file_of_a_missing_file(tmp_path):
    path = str(tmp_path / "missing.png")
    for fn in (nio.read_file, nio.read_image, nio.decode_image):
        with pytest.raises(RuntimeError) as info:
            fn(path)
        assert str(info.value).startswith("read_file, ")
        assert f"{_SRC}:52, [Errno 2] {os.strerror(2)}: '{path}'" in str(info.value)
        assert not isinstance(info.value, OSError)


def test_read_file_of_an_empty_file(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    for fn in (nio.read_file, nio.read_image):
        with pytest.raises(RuntimeError, match=f"{_SRC}:57, Expected a non empty file$"):
            fn(path)


def test_read_and_write_round_trip(tmp_path):
    data = numtorch.from_numpy(np.arange(7, dtype=np.uint8))
    nio.write_file(tmp_path / "x.bin", data)
    assert (tmp_path / "x.bin").read_bytes() == bytes(range(7))
    np.testing.assert_array_equal(nio.read_file(tmp_path / "x.bin").numpy(), np.arange(7))


@pytest.mark.parametrize("data, text", [
    (np.zeros(3, np.int32), ":90, Input tensor dtype should be uint8"),
    (np.zeros((2, 3), np.uint8), ":94, Input data should be a 1-dimensional tensor"),
])
def test_write_file_checks(tmp_path, data, text):
    with pytest.raises(RuntimeError, match=f"^write_file, .*{_SRC}{text}$"):
        nio.write_file(tmp_path / "y.bin", numtorch.from_numpy(data))
    assert not (tmp_path / "y.bin").exists()


def test_write_file_into_a_missing_folder(tmp_path):
    with pytest.raises(RuntimeError, match=f"{_SRC}:106, Error opening output file$"):
        nio.write_file(tmp_path / "nope" / "y.bin", numtorch.zeros(3, dtype=numtorch.uint8))
