"""Session 50: decode_gif composes frames as torchvision 0.28's giflib decoder does.
torchvision's image extension does not load next to the CPU torch wheel here, so the expected
frames are built in the test from what was written (indices, palette, background index,
transparent index, disposal field): a transparent pixel shows the global palette's
background colour on the first frame (not palette[transparent] as Pillow shows it), and on a
later frame the previous frame when that frame's own disposal field is 0, 1 or 3, the
background colour when it is 2 (read from the 0.28 binary's compare of the field)."""

import io

import numpy as np
import pytest
from PIL import Image

import numtorch
from numtorchvision import io as nio

_PAL = np.array([[10, 20, 30], [200, 100, 50], [0, 255, 0], [1, 2, 3]], np.uint8)


def _tensor(data):
    return numtorch.from_numpy(np.frombuffer(data, np.uint8).copy())


def _frame(indices):
    img = Image.fromarray(np.asarray(indices, np.uint8), "P")
    img.putpalette(list(_PAL.ravel()) + [0] * (252 * 3))
    return img


def _frames(n, h=3, w=4):
    return [(np.arange(h * w).reshape(h, w) + k) % 4 for k in range(n)]


def _expected(frames, background, transparency, disposal):
    out, prev = [], None
    for i, idx in enumerate(frames):
        canvas = (prev.copy() if i > 0 and disposal != 2
                  else np.broadcast_to(_PAL[background], idx.shape + (3,)).copy())
        keep = idx != (-1 if transparency is None else transparency)
        canvas[keep] = _PAL[idx[keep]]
        out.append(canvas)
        prev = canvas
    return np.stack(out).transpose(0, 3, 1, 2)


@pytest.mark.parametrize("background", [0, 2])
@pytest.mark.parametrize("transparency", [None, 0, 3])
def test_still_gif_transparent_pixels_show_the_background(background, transparency):
    idx = _frames(1)[0]
    kw = {"background": background}
    if transparency is not None:
        kw["transparency"] = transparency
    buf = io.BytesIO()
    _frame(idx).save(buf, "GIF", **kw)
    got = nio.decode_gif(_tensor(buf.getvalue()))
    assert got.dtype == numtorch.uint8 and tuple(got.shape) == (3, 3, 4)
    np.testing.assert_array_equal(got.numpy(), _expected([idx], background, transparency, 0)[0])
    # torchvision's decoder gives a channels-last (hence non-contiguous 3-D) tensor
    assert not got.is_contiguous()


@pytest.mark.parametrize("disposal", [0, 1, 2, 3])
@pytest.mark.parametrize("transparency", [None, 0])
def test_animated_gif_disposal_and_transparency(disposal, transparency):
    frames = _frames(3)
    kw = {} if transparency is None else {"transparency": transparency}
    buf = io.BytesIO()
    imgs = [_frame(f) for f in frames]
    imgs[0].save(buf, "GIF", save_all=True, append_images=imgs[1:], disposal=disposal,
                 background=2, optimize=False, **kw)
    got = nio.decode_gif(_tensor(buf.getvalue()))
    assert tuple(got.shape) == (3, 3, 3, 4)
    np.testing.assert_array_equal(got.numpy(), _expected(frames, 2, transparency, disposal))


def test_decode_image_and_read_image_of_a_transparent_gif(tmp_path):
    idx = _frames(1)[0]
    path = tmp_path / "t.gif"
    _frame(idx).save(path, "GIF", transparency=1, background=3)
    want = _expected([idx], 3, 1, 0)[0]
    np.testing.assert_array_equal(nio.read_image(str(path)).numpy(), want)
    np.testing.assert_array_equal(nio.decode_image(nio.read_file(str(path))).numpy(), want)


def _parts(idx):
    """(header with global palette, image block) of a one-frame GIF Pillow writes."""
    buf = io.BytesIO()
    _frame(idx).save(buf, "GIF", optimize=False)
    data = buf.getvalue()
    head = 13 + 3 * (2 << (data[10] & 7))
    assert data[head] == 0x2C and data[-1] == 0x3B
    return data[:head], data[head:-1]


def _gcb(disposal, transparent=None):
    flags = (disposal << 2) | (transparent is not None)
    return bytes([0x21, 0xF9, 4, flags, 0, 0, transparent or 0, 0])


@pytest.mark.parametrize("disposal", [0, 1, 2, 3])
def test_smaller_later_frame_is_drawn_at_its_offset(disposal):
    # a 3x2 second frame at (left 2, top 1) of a 6x5 canvas; the rest of the canvas comes
    # from the first frame unless the second frame's own disposal field is 2
    first = np.arange(30).reshape(5, 6) % 4
    small = np.array([[1, 2, 0], [2, 1, 2]])
    head, block0 = _parts(first)
    head = head[:11] + bytes([3]) + head[12:]  # background index 3
    _, block1 = _parts(small)
    block1 = block1[:1] + bytes([2, 0, 1, 0]) + block1[5:]  # left 2, top 1
    data = head + _gcb(0) + block0 + _gcb(disposal, 0) + block1 + b"\x3b"
    got = nio.decode_gif(_tensor(data)).numpy()
    np.testing.assert_array_equal(got[0], _PAL[first].transpose(2, 0, 1))
    want = _PAL[first] if disposal != 2 else np.broadcast_to(_PAL[3], (5, 6, 3)).copy()
    region = want[1:3, 2:5]
    region[small != 0] = _PAL[small[small != 0]]
    np.testing.assert_array_equal(got[1], want.transpose(2, 0, 1))


def test_frame_past_the_canvas_is_clipped():
    first = np.zeros((4, 4), np.uint8)
    small = np.array([[1, 2, 3], [3, 2, 1]])
    head, block0 = _parts(first)
    _, block1 = _parts(small)
    block1 = block1[:1] + bytes([2, 0, 3, 0]) + block1[5:]  # left 2, top 3: half outside
    got = nio.decode_gif(_tensor(head + block0 + _gcb(1) + block1 + b"\x3b")).numpy()
    want = _PAL[first].copy()
    want[3:, 2:] = _PAL[small[:1, :2]]
    np.testing.assert_array_equal(got[1], want.transpose(2, 0, 1))


@pytest.mark.parametrize("data, code", [
    (b"GIF8", "decode_gif.cpp:68, DGifOpenFileName() failed - 102"),
    (b"hello world, not a gif", ":68, DGifOpenFileName() failed - 103"),
    (b"GIF89a" + bytes(20), ":76, DGifSlurp() failed - 107"),
])
def test_bad_bytes_raise_runtime_error(data, code):
    # torchvision's checks: function, source file and line, then giflib's error code
    with pytest.raises(RuntimeError) as info:
        nio.decode_gif(_tensor(data))
    assert str(info.value).startswith("decode_gif, ") and str(info.value).endswith(code)


def test_decode_image_checks_the_six_byte_gif_signature():
    # torchvision 0.28's decode_image compares "GIF87a"/"GIF89a" (read from the shipped
    # image.so): "GIF8xa..." is not a GIF there
    with pytest.raises(RuntimeError, match="Unsupported image file"):
        nio.decode_image(_tensor(b"GIF8xa" + bytes(30)))


def test_graphic_control_block_of_another_length_is_ignored():
    # giflib takes a frame's first graphic control block, and only a 4-byte one: a 5-byte
    # block leaves the frame without a transparent index (so index 0 is drawn)
    idx = _frames(1)[0]
    head, block = _parts(idx)
    head = head[:11] + bytes([2]) + head[12:]  # background index 2 (not palette[0])
    odd = bytes([0x21, 0xF9, 5, 1, 0, 0, 0, 0, 0])  # transparent flag, index 0, 5 bytes
    got = nio.decode_gif(_tensor(head + odd + _gcb(0, 1) + block + b"\x3b")).numpy()
    np.testing.assert_array_equal(got, _expected([idx], 2, None, 0)[0])
