"""Session 48: numtorchvision.io encoders and decode_image refuse what torchvision's compiled
encoders refuse, with their exception class and message. torchvision's image extension does
not load next to the CPU torch wheel here, so the expected messages are torchvision 0.28's
C++ checks (encode_png.cpp / encode_jpeg.cpp / decode_image.cpp)."""

import numpy as np
import pytest

import numtorch
from numtorchvision import io as nio


def _image(channels, dtype=numtorch.uint8):
    arr = np.random.default_rng(0).integers(0, 256, (channels, 6, 7), dtype=np.uint8)
    return numtorch.from_numpy(arr).to(dtype)


@pytest.mark.parametrize("encode", ["encode_png", "encode_jpeg"])
@pytest.mark.parametrize("case, message", [
    ("float", "Input tensor dtype should be uint8"),
    ("4d", "Input data should be a 3-dimensional tensor"),
    ("2ch", "The number of channels should be 1 or 3, got: 2"),
    ("4ch", "The number of channels should be 1 or 3, got: 4"),
])
def test_encoders_refuse_as_torchvision(encode, case, message):
    image = {"float": _image(3, numtorch.float32), "4d": _image(3).unsqueeze(0),
             "2ch": _image(2), "4ch": _image(4)}[case]
    with pytest.raises(RuntimeError) as info:
        getattr(nio, encode)(image)
    # (session 50: after torchvision's 'function, source file:line, ' prefix)
    assert str(info.value).startswith(f"{encode}, ") and str(info.value).endswith(
        f"{encode}.cpp:{_LINES[encode][case]}, {message}")


_LINES = {"encode_png": {"float": 121, "4d": 125, "2ch": 134, "4ch": 134},
          "encode_jpeg": {"float": 70, "4d": 74, "2ch": 83, "4ch": 83}}


def test_png_compression_level_message():
    with pytest.raises(RuntimeError) as info:
        nio.encode_png(_image(3), compression_level=10)
    assert str(info.value).endswith("encode_png.cpp:112, Compression level should be between 0 "
                                    "and 9")


@pytest.mark.parametrize("channels", [1, 3])
def test_png_round_trip_of_the_allowed_kinds(channels):
    image = _image(channels)
    assert numtorch.equal(nio.decode_png(nio.encode_png(image)), image)


def test_decode_image_of_unknown_bytes():
    with pytest.raises(RuntimeError) as info:
        nio.decode_image(numtorch.tensor([1, 2, 3, 4, 5], dtype=numtorch.uint8))
    # (session 50: torchvision's C++ check puts the function, source file and line first)
    assert str(info.value).startswith("decode_image, ")
    assert (":45, Unsupported image file. Only jpeg, png, webp and gif are currently "
            "supported.") in str(info.value)
