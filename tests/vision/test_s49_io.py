"""Session 49: numtorchvision.io decoders in the channel layouts torchvision's libpng/libjpeg
decoders give. torchvision's image extension does not load next to the CPU torch wheel here,
so the expected values are built from the decoders' documented rules in NumPy: a palette PNG
read UNCHANGED gives its indices (one channel); grey from colour is libpng's rgb_to_gray with
torchvision's weights (0.2989, 0.587 -> 9794/19234/3740 in 1/32768ths; 8-bit truncated, 16-bit
rounded); tRNS only becomes alpha where a palette is expanded; a JPEG read as GRAY is
libjpeg's luma plane (Pillow's YCbCr draft gives the same plane)."""

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

import numtorch
from numtorchvision import io as nio

_RGB = (np.random.default_rng(0).random((6, 9, 3)) * 255).astype(np.uint8)


def _tensor(data):
    return numtorch.from_numpy(np.frombuffer(data, np.uint8).copy())


def _png(img, **kw):
    buf = io.BytesIO()
    img.save(buf, "PNG", **kw)
    return buf.getvalue()


def _grey8(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return np.where((r == g) & (g == b), r, (9794 * r + 19234 * g + 3740 * b) >> 15)


def _palette():
    return Image.fromarray(_RGB).quantize(7)


@pytest.mark.parametrize("reader", ["read_image", "decode_image", "decode_png"])
def test_palette_png_unchanged_gives_indices(tmp_path, reader):
    img = _palette()
    data = _png(img)
    path = tmp_path / "mask.png"
    path.write_bytes(data)
    out = (nio.read_image(str(path)) if reader == "read_image"
           else getattr(nio, reader)(_tensor(data)))
    assert out.dtype == numtorch.uint8 and tuple(out.shape) == (1, 6, 9)
    np.testing.assert_array_equal(out.numpy()[0], np.asarray(img))


def test_palette_png_modes():
    img = _palette()
    colour = np.asarray(img.convert("RGB"))
    data = _tensor(_png(img))
    np.testing.assert_array_equal(nio.decode_png(data, mode="RGB").numpy(),
                                  colour.transpose(2, 0, 1))
    np.testing.assert_array_equal(nio.decode_png(data, mode=nio.ImageReadMode.GRAY).numpy()[0],
                                  _grey8(colour))
    rgba = nio.decode_png(data, mode=nio.ImageReadMode.RGB_ALPHA).numpy()
    assert rgba.shape == (4, 6, 9) and (rgba[3] == 255).all()


def test_palette_png_transparency_becomes_alpha():
    img = _palette()
    data = _tensor(_png(img, transparency=3))
    alpha = np.where(np.asarray(img) == 3, 0, 255)
    rgba = nio.decode_png(data, mode="RGBA").numpy()
    np.testing.assert_array_equal(rgba[3], alpha)
    ga = nio.decode_png(data, mode=nio.ImageReadMode.GRAY_ALPHA).numpy()
    np.testing.assert_array_equal(ga[0], _grey8(np.asarray(img.convert("RGB"))))
    np.testing.assert_array_equal(ga[1], alpha)
    assert tuple(nio.decode_png(data).shape) == (1, 6, 9)


@pytest.mark.parametrize("pil_mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("read_mode", ["GRAY", "GRAY_ALPHA"])
def test_colour_png_to_grey_is_libpngs_mix(pil_mode, read_mode):
    img = Image.fromarray(_RGB).convert(pil_mode)
    out = nio.decode_image(_tensor(_png(img)), mode=getattr(nio.ImageReadMode, read_mode))
    arr = np.asarray(img)
    want = [_grey8(arr)]
    if read_mode == "GRAY_ALPHA":
        want.append(arr[..., 3] if pil_mode == "RGBA" else np.full(arr.shape[:2], 255))
    np.testing.assert_array_equal(out.numpy(), np.stack(want))
    # Pillow's own grey (rounded ITU-R 601 mix) is another image
    assert (np.asarray(img.convert("L")) != want[0]).any()


@pytest.mark.parametrize("pil_mode", ["L", "RGB"])
def test_colour_key_transparency_is_not_alpha(pil_mode):
    """A tRNS colour key on a grey or RGB PNG is not expanded: RGB_ALPHA is opaque."""
    img = Image.fromarray(_RGB).convert(pil_mode)
    key = int(np.asarray(img)[0, 0]) if pil_mode == "L" else tuple(_RGB[0, 0].tolist())
    data = _tensor(_png(img, transparency=key))
    rgba = nio.decode_png(data, mode=nio.ImageReadMode.RGB_ALPHA).numpy()
    assert (rgba[3] == 255).all()
    ga = nio.decode_png(data, mode=nio.ImageReadMode.GRAY_ALPHA).numpy()
    assert (ga[1] == 255).all()


def _png16_rgb(levels):
    """A 16-bit RGB PNG of the (H, W, 3) uint16 ``levels``."""
    h, w, _ = levels.shape

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    rows = b"".join(b"\x00" + levels[y].astype(">u2").tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_png16_grey_weights():
    levels = np.array([[[0, 65535, 0], [65535, 0, 0], [0, 0, 65535], [1234, 40000, 777]]],
                      dtype=np.uint16)
    out = nio.decode_png(_tensor(_png16_rgb(levels)), mode="GRAY").numpy()
    r, g, b = (levels[..., i].astype(np.int64) for i in range(3))
    want = (9794 * r + 19234 * g + 3740 * b + 16384) >> 15
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out[0], want)
    np.testing.assert_array_equal(nio.decode_png(_tensor(_png16_rgb(levels))).numpy(),
                                  levels.transpose(2, 0, 1))


@pytest.mark.parametrize("subsampling", [0, 2])
def test_jpeg_gray_is_libjpegs_luma(tmp_path, subsampling):
    buf = io.BytesIO()
    Image.fromarray(_RGB).save(buf, "JPEG", quality=85, subsampling=subsampling)
    data = buf.getvalue()
    ycc = Image.open(io.BytesIO(data))
    ycc.draft("YCbCr", ycc.size)
    luma = np.asarray(ycc)[..., 0]
    path = tmp_path / "x.jpg"
    path.write_bytes(data)
    for out in (nio.decode_jpeg(_tensor(data), mode=nio.ImageReadMode.GRAY),
                nio.decode_image(_tensor(data), mode="GRAY"),
                nio.read_image(str(path), mode=nio.ImageReadMode.GRAY)):
        assert tuple(out.shape) == (1, 6, 9)
        np.testing.assert_array_equal(out.numpy()[0], luma)
    rgb = nio.decode_jpeg(_tensor(data)).numpy()
    np.testing.assert_array_equal(rgb, np.asarray(Image.open(io.BytesIO(data))).transpose(2, 0, 1))


def test_grey_png_modes_unchanged():
    img = Image.fromarray(_RGB[..., 0])
    data = _tensor(_png(img))
    grey = np.asarray(img)
    np.testing.assert_array_equal(nio.decode_png(data).numpy()[0], grey)
    np.testing.assert_array_equal(nio.decode_png(data, mode="RGB").numpy(), np.stack([grey] * 3))
    la = _tensor(_png(img.convert("LA")))
    np.testing.assert_array_equal(nio.decode_png(la, mode="GRAY").numpy()[0], grey)
    np.testing.assert_array_equal(nio.decode_png(la, mode="RGBA").numpy()[:3],
                                  np.stack([grey] * 3))


@pytest.mark.parametrize("mode", ["GRAY_ALPHA", "RGB_ALPHA", "RGBA"])
def test_jpeg_alpha_modes_are_refused(tmp_path, mode):
    buf = io.BytesIO()
    Image.fromarray(_RGB).save(buf, "JPEG")
    data = _tensor(buf.getvalue())
    path = tmp_path / "x.jpg"
    path.write_bytes(buf.getvalue())
    # (session 50: after torchvision's 'decode_jpeg, <source>:<line>, ' prefix)
    msg = r"^decode_jpeg, .*decode_jpeg\.cpp:208, The provided mode is not supported for JPEG files$"
    for call in (lambda: nio.decode_jpeg(data, mode=mode),
                 lambda: nio.decode_image(data, mode=getattr(nio.ImageReadMode, mode)),
                 lambda: nio.read_image(str(path), mode=mode)):
        with pytest.raises(RuntimeError, match=msg):
            call()


def test_cmyk_jpeg_unchanged_keeps_the_stored_channels():
    """UNCHANGED gives libjpeg's four stored samples (Pillow reads them inverted, rawmode
    CMYK;I); RGB and GRAY use the CMYK -> RGB mix torchvision shares with Pillow."""
    cmyk = (np.random.default_rng(3).random((6, 9, 4)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(cmyk, "CMYK").save(buf, "JPEG", quality=95)
    stored = Image.open(io.BytesIO(buf.getvalue()))
    stored.tile = [tile._replace(args=("CMYK", "")) for tile in stored.tile]
    stored = np.asarray(stored)
    data = _tensor(buf.getvalue())
    for out in (nio.decode_jpeg(data), nio.decode_image(data)):
        assert out.dtype == numtorch.uint8 and tuple(out.shape) == (4, 6, 9)
        np.testing.assert_array_equal(out.numpy(), stored.transpose(2, 0, 1))
    pil = Image.open(io.BytesIO(buf.getvalue()))
    np.testing.assert_array_equal(nio.decode_jpeg(data, mode="RGB").numpy(),
                                  np.asarray(pil.convert("RGB")).transpose(2, 0, 1))
    np.testing.assert_array_equal(nio.decode_jpeg(data, mode="GRAY").numpy()[0],
                                  np.asarray(pil.convert("RGB").convert("L")))


def _gif(frames):
    buf = io.BytesIO()
    imgs = [Image.fromarray(f).convert("P") for f in frames]
    imgs[0].save(buf, "GIF", save_all=True, append_images=imgs[1:])
    return buf.getvalue()


@pytest.mark.parametrize("mode", ["UNCHANGED", "GRAY", "RGB_ALPHA"])
def test_decode_image_of_a_gif_is_decode_gif(tmp_path, mode):
    rng = np.random.default_rng(4)
    data = _gif([(rng.random((5, 6, 3)) * 255).astype(np.uint8) for _ in range(3)])
    path = tmp_path / "a.gif"
    path.write_bytes(data)
    want = nio.decode_gif(_tensor(data))
    assert tuple(want.shape) == (3, 3, 5, 6)
    for out in (nio.decode_image(_tensor(data), mode=mode), nio.read_image(str(path), mode=mode),
                nio.decode_image(str(path), mode=mode)):
        np.testing.assert_array_equal(out.numpy(), want.numpy())


@pytest.mark.parametrize("alpha", [False, True])
def test_webp_modes_are_rgb_or_rgba(alpha):
    arr = (np.random.default_rng(5).random((5, 6, 4)) * 255).astype(np.uint8)
    img = Image.fromarray(arr).convert("RGBA" if alpha else "RGB")
    buf = io.BytesIO()
    img.save(buf, "WEBP", lossless=True)
    data = _tensor(buf.getvalue())
    decoded = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA"))
    own = 4 if alpha else 3
    for mode, channels in [("UNCHANGED", own), ("GRAY", own), ("GRAY_ALPHA", own), ("RGB", 3),
                           ("RGB_ALPHA", 4)]:
        for out in (nio.decode_webp(data, mode=mode), nio.decode_image(data, mode=mode)):
            assert tuple(out.shape) == (channels, 5, 6)
            np.testing.assert_array_equal(out.numpy(), decoded[..., :channels].transpose(2, 0, 1))


def test_animated_webp_is_refused():
    frames = [Image.fromarray(np.full((4, 4, 3), v, np.uint8)) for v in (0, 200)]
    buf = io.BytesIO()
    frames[0].save(buf, "WEBP", save_all=True, append_images=frames[1:], lossless=True)
    for fn in (nio.decode_webp, nio.decode_image):
        # (session 50: after torchvision's 'decode_webp, <source>:<line>, ' prefix)
        with pytest.raises(RuntimeError, match=r"^decode_webp, .*decode_webp\.cpp:33, Animated "
                                               r"webp files are not supported\.$"):
            fn(_tensor(buf.getvalue()))
