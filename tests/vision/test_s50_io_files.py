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


# -- the decoders' checks of their input tensor (common.cpp's validate_encoded_data, and
# decode_image.cpp's own checks and signature lengths), read from the shipped image.so

_DECODERS = ["decode_jpeg", "decode_png", "decode_gif", "decode_webp"]


@pytest.mark.parametrize("name", _DECODERS)
@pytest.mark.parametrize("data, text", [
    (np.zeros(0, np.uint8), (":22, Input tensor must be 1-dimensional and non-empty, got 1 "
                             "dims  and 0 numels.")),
    (np.zeros((2, 3), np.uint8), (":22, Input tensor must be 1-dimensional and non-empty, got 2 "
                                  "dims  and 6 numels.")),
    (np.zeros(5, np.int32), ":18, Input tensor must have uint8 data type, got int"),
    (np.zeros(5, np.float32), ":18, Input tensor must have uint8 data type, got float"),
])
def test_decoder_input_checks(name, data, text):
    with pytest.raises(RuntimeError) as info:
        getattr(nio, name)(numtorch.from_numpy(data))
    assert str(info.value).startswith("validate_encoded_data, ")
    assert str(info.value).endswith("common.cpp" + text)


@pytest.mark.parametrize("name", _DECODERS + ["decode_image"])
def test_decoders_refuse_a_strided_tensor(tmp_path, name):
    from PIL import Image

    Image.new("RGB", (3, 2)).save(tmp_path / "a.png")
    data = nio.read_file(tmp_path / "a.png")
    strided = numtorch.stack([data, data], 1).reshape(-1)[::2]  # the same bytes, strided
    assert not strided.is_contiguous() and numtorch.equal(strided, data)
    with pytest.raises(RuntimeError, match=r"common\.cpp:16, Input tensor must be contiguous\.$"):
        getattr(nio, name)(strided)


@pytest.mark.parametrize("data, text", [
    (np.zeros(0, np.uint8), ":20, Expected a non empty 1-dimensional tensor"),
    (np.zeros(5, np.int64), ":18, Expected a torch.uint8 tensor"),
    (np.zeros(2, np.uint8), ":30, Unsupported image file."),
    (np.zeros(3, np.uint8), ":36, Unsupported image file."),
    (np.zeros(5, np.uint8), ":45, Unsupported image file."),
    (np.zeros(14, np.uint8), ":54, Unsupported image file."),
    (np.zeros(40, np.uint8), ":60, Unsupported image file."),
])
def test_decode_image_checks(data, text):
    with pytest.raises(RuntimeError) as info:
        nio.decode_image(numtorch.from_numpy(data))
    assert str(info.value).startswith("decode_image, ")
    assert "decode_image.cpp" + text in str(info.value)


def _jpeg_bytes():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (32, 40, 3), dtype=np.uint8)
                    ).save(buf, "JPEG", quality=90)
    return buf.getvalue()


@pytest.mark.parametrize("keep", [-2, 0.5, 300, 100, 1])
@pytest.mark.parametrize("name", ["decode_jpeg", "decode_image"])
def test_truncated_jpeg(name, keep):
    # torchvision's input source stops libjpeg with this text when the bytes run out (even
    # when only the end-of-image marker is missing)
    data = _jpeg_bytes()
    cut = data[:int(len(data) * keep) if isinstance(keep, float) else keep]
    if name == "decode_image" and len(cut) < 3:
        pytest.skip("decode_image refuses it before (signature length)")
    with pytest.raises(RuntimeError, match=r"^decode_jpeg, .*decode_jpeg\.cpp:167, Image is "
                                           r"incomplete or truncated$"):
        getattr(nio, name)(numtorch.from_numpy(np.frombuffer(cut, np.uint8).copy()))


def test_not_a_jpeg():
    with pytest.raises(RuntimeError, match=r"decode_jpeg\.cpp:167, Not a JPEG file: starts with "
                                           r"0x89 0x50$"):
        nio.decode_jpeg(numtorch.from_numpy(np.frombuffer(b"\x89PNG\r\n\x1a\n", np.uint8).copy()))


def _png_bytes():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (5, 4), (1, 2, 3)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("name", ["decode_png", "decode_image"])
def test_png_refusals(name):
    good = _png_bytes()
    cases = [(good[:40], ":59, Internal error."),  # libpng's error while reading
             (good[:8] + good[8:30], ":59, Internal error.")]
    if name == "decode_png":  # (decode_image refuses these as unsupported first)
        cases += [(good[:7], ":61, Content is too small for png!"),
                  (b"\x89PNG\r\n\x1a\x00" + good[8:], ":63, Content is not png!")]
    for data, text in cases:
        with pytest.raises(RuntimeError) as info:
            getattr(nio, name)(numtorch.from_numpy(np.frombuffer(data, np.uint8).copy()))
        assert str(info.value).startswith("decode_png, ")
        assert str(info.value).endswith("decode_png.cpp" + text)
