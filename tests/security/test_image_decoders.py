"""numtorchvision.io decoders on damaged and hostile image bytes.

torchvision's own decoders are compiled extensions the CPU test wheel lacks, so there is no
oracle for the pixels here; what is checked is the contract torchvision documents for bad
input: each decode either returns a (C, H, W) (or (N, C, H, W) for GIF) uint8 tensor or raises
RuntimeError; it never crashes the interpreter, hangs, or allocates memory out of proportion
(each call runs in a forked child under a 1 GiB address-space limit and a CPU limit).
"""

import functools
import io
import random
import struct
import zlib

import numpy as np
import pytest

import numtorch
from numtorchvision import io as tvio
from numtorchvision._pil import pil
from tests.security._fuzz import mutate_bytes
from tests.security._sandbox import run_limited


def _pil_bytes(mode, fmt, size=(13, 9), **kw):
    Image = pil()
    rng = np.random.default_rng(0)
    if mode == "I;16":
        img = Image.fromarray(rng.integers(0, 65535, size[::-1]).astype(np.uint16))
    else:
        arr = rng.integers(0, 255, (size[1], size[0], len(Image.new(mode, (1, 1)).getbands())),
                           dtype=np.uint8)
        img = Image.fromarray(arr[..., 0] if arr.shape[2] == 1 else arr,
                              {"P": "L"}.get(mode, mode))
        if mode == "P":
            img = img.convert("P")
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _gif():
    Image = pil()
    frames = [Image.new("RGB", (8, 6), c) for c in ("red", "blue", "green")]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    return buf.getvalue()


def _bases():
    return {
        "png_rgb": _pil_bytes("RGB", "PNG"), "png_rgba": _pil_bytes("RGBA", "PNG"),
        "png_gray": _pil_bytes("L", "PNG"), "png_palette": _pil_bytes("P", "PNG"),
        "png_16bit": _pil_bytes("I;16", "PNG"), "png_interlaced": _pil_bytes("RGB", "PNG"),
        "jpeg_rgb": _pil_bytes("RGB", "JPEG"), "jpeg_gray": _pil_bytes("L", "JPEG"),
        "jpeg_progressive": _pil_bytes("RGB", "JPEG", progressive=True),
        "gif": _gif(), "bmp": _pil_bytes("RGB", "BMP"),
    }


def _png_chunk(tag, body):
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def _png(width, height, idat=b"", depth=8, color=2):
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                                       depth, color, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(idat)) + _png_chunk(b"IEND", b""))


def _jpeg_with_size(width, height):
    data = bytearray(_pil_bytes("RGB", "JPEG"))
    sof = data.index(b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


@functools.cache
def _crafted():
    row = b"\0" + b"\0" * 3 * 4096
    return {
        # sizes past Pillow's decompression-bomb limit, with a few bytes of pixels
        "png_65535_square": _png(65535, 65535),
        "png_2_31_wide": _png(2 ** 31 - 1, 1),
        "png_zero_size": _png(0, 0),
        "jpeg_65500_square": _jpeg_with_size(65500, 65500),
        "jpeg_zero_height": _jpeg_with_size(16, 0),
        # a zlib stream far larger than the image it should fill (a small bomb)
        "png_idat_bomb": _png(4096, 4, row * 4 + b"\0" * (50 << 20)),
        "png_bad_crc": _png(4, 4, (b"\0" + b"\0" * 12) * 4)[:-5] + b"\0\0\0\0\0",
        "png_no_idat": b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(
            ">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + _png_chunk(b"IEND", b""),
        "png_bad_depth": _png(4, 4, b"", depth=7),
        "empty": b"",
        "one_byte": b"\xff",
        "jpeg_soi_only": b"\xff\xd8",
        "text": b"hello, this is not an image\n" * 10,
    }


def _decode(fn_name, data):
    out = getattr(tvio, fn_name)(numtorch.from_numpy(np.frombuffer(data, np.uint8).copy()))
    return str(out.dtype), tuple(out.shape)


def _check(outcome):
    if outcome[0] == "ok":
        dtype, shape = outcome[1]
        assert dtype in ("torch.uint8", "torch.uint16") and len(shape) in (3, 4) \
            and shape[-3] in (1, 2, 3, 4), \
            outcome
        return
    assert outcome[0] == "error" and outcome[1] == "RuntimeError", outcome


_FUNCTIONS = {"png": "decode_png", "jpeg": "decode_jpeg", "gif": "decode_gif"}


@pytest.mark.parametrize("name", sorted(_crafted()))
def test_crafted_images(name):
    data = _crafted()[name]
    kind = name.split("_")[0]
    for fn in ["decode_image"] + ([_FUNCTIONS[kind]] if kind in _FUNCTIONS else []):
        _check(run_limited(_decode, fn, data))


def test_seeded_mutants_of_every_format():
    rng = random.Random(39)
    bases = _bases()
    names = sorted(bases)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(90):
        name = rng.choice(names)
        data = bases[name]
        for _ in range(rng.randint(1, 3)):
            data = mutate_bytes(data, rng)
        kind = name.split("_")[0]
        fn = rng.choice(["decode_image"] + ([_FUNCTIONS[kind]] if kind in _FUNCTIONS else []))
        outcome = run_limited(_decode, fn, data)
        _check(outcome)
        outcomes[outcome[0]] += 1
    assert outcomes["ok"] >= 10 and outcomes["error"] >= 10, outcomes


def test_unmutated_bases_decode():
    for name, data in _bases().items():
        outcome = run_limited(_decode, "decode_image", data)
        assert outcome[0] == "ok", (name, outcome)
