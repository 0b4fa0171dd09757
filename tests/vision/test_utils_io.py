"""utils (make_grid, save_image, draw_*) against torchvision, and io through Pillow.

torchvision.io's decoders are compiled ops that do not load with the CPU torch wheel, so io
is checked against Pillow's own decoding and torchvision's documented layout instead.
"""

import io as pyio
import warnings

import numpy as np
import pytest
import torchvision.utils as TU
from PIL import Image

import numtorch
import numtorchvision.io as nio
import numtorchvision.utils as U

from ._helpers import assert_same_image, pair, rgb_image


def _batch(shape=(5, 3, 6, 7), seed=0):
    return pair(np.random.default_rng(seed).random(shape).astype(np.float32) * 2 - 0.5)


@pytest.mark.parametrize("kwargs", [{}, {"nrow": 2, "padding": 1, "pad_value": 0.3},
                                    {"normalize": True}, {"normalize": True, "scale_each": True},
                                    {"normalize": True, "value_range": (0.0, 1.0)},
                                    {"padding": 0, "nrow": 5}, {"nrow": 10}])
def test_make_grid(kwargs):
    x, y = _batch()
    assert_same_image(U.make_grid(x, **kwargs), TU.make_grid(y, **kwargs), atol=1e-6)


def test_make_grid_shapes_and_lists():
    for shape in [(6, 7), (1, 6, 7), (3, 6, 7), (4, 1, 6, 7), (1, 3, 6, 7)]:
        x, y = _batch(shape)
        assert_same_image(U.make_grid(x), TU.make_grid(y), atol=1e-6)
    x, y = _batch((3, 3, 4, 4))
    assert_same_image(U.make_grid(list(x)), TU.make_grid(list(y)), atol=1e-6)
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        U.make_grid([x[0], 3])
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        U.make_grid(x, normalize=True, value_range=[0, 1])
    with pytest.warns(FutureWarning, match="value_range"):  # the 0.x keyword
        old = U.make_grid(x, normalize=True, range=(0.0, 2.0))
    assert_same_image(old, TU.make_grid(y, normalize=True, value_range=(0.0, 2.0)), atol=1e-6)


@pytest.mark.parametrize("fmt", ["png", "bmp", "tiff", "jpeg", "gif", "webp", "ppm"])
def test_save_image_formats(tmp_path, fmt):
    x, y = _batch((4, 3, 9, 10))
    U.save_image(x, tmp_path / f"a.{fmt}", nrow=2)
    TU.save_image(y, tmp_path / f"b.{fmt}", nrow=2)
    a, b = Image.open(tmp_path / f"a.{fmt}"), Image.open(tmp_path / f"b.{fmt}")
    assert a.format == b.format
    assert_same_image(a.convert("RGB"), b.convert("RGB"))
    buf_a, buf_b = pyio.BytesIO(), pyio.BytesIO()
    U.save_image(x[0], buf_a, format="PNG")
    TU.save_image(y[0], buf_b, format="PNG")
    assert buf_a.getvalue() == buf_b.getvalue()


def test_draw_bounding_boxes():
    img = np.asarray(rgb_image(40, 50)).transpose(2, 0, 1).copy()
    x, y = pair(img)
    boxes = np.array([[2, 3, 20, 25], [10, 12, 45, 38], [0, 0, 49, 39]], np.float32)
    bx, by = pair(boxes)
    cases = [{}, {"labels": ["cat", "dog", "x"], "width": 2},
             {"colors": ["red", (0, 255, 10), "#00ff00"], "fill": True},
             {"colors": "blue", "labels": ["a", "b", "c"], "fill_labels": True},
             {"label_colors": "white", "labels": ["a", "b", "c"]}]
    for kw in cases:
        assert_same_image(U.draw_bounding_boxes(x, bx, **kw), TU.draw_bounding_boxes(y, by, **kw))
    xf, yf = pair(img.astype(np.float32) / 255)
    assert_same_image(U.draw_bounding_boxes(xf, bx, colors="red"),
                      TU.draw_bounding_boxes(yf, by, colors="red"))
    xg, yg = pair(img[:1].copy())
    assert_same_image(U.draw_bounding_boxes(xg, bx), TU.draw_bounding_boxes(yg, by))
    rot = np.array([[5, 5, 30, 10, 25, 30, 2, 25]], np.float32)
    assert_same_image(U.draw_bounding_boxes(x, pair(rot)[0]),
                      TU.draw_bounding_boxes(y, pair(rot)[1]))
    with pytest.raises(ValueError, match="xmin, ymin, xmax, ymax"):
        U.draw_bounding_boxes(x, numtorch.tensor([[5.0, 5, 2, 9]]))
    with pytest.raises(ValueError, match="Number of boxes"):
        U.draw_bounding_boxes(x, bx, labels=["a"])
    with pytest.raises(ValueError, match="Pass individual images"):
        U.draw_bounding_boxes(x[None], bx)
    with pytest.warns(UserWarning, match="No box was drawn"):
        U.draw_bounding_boxes(x, numtorch.zeros(0, 4))


def test_draw_segmentation_masks():
    img = np.asarray(rgb_image(20, 24)).transpose(2, 0, 1).copy()
    rng = np.random.default_rng(1)
    masks = rng.random((3, 20, 24)) > 0.6
    x, y = pair(img)
    mx, my = pair(masks)
    for kw in [{}, {"alpha": 0.3, "colors": ["red", "green", (1, 2, 3)]}, {"colors": "blue"}]:
        assert_same_image(U.draw_segmentation_masks(x, mx, **kw),
                          TU.draw_segmentation_masks(y, my, **kw))
    xf, yf = pair(img.astype(np.float32) / 255)
    assert_same_image(U.draw_segmentation_masks(xf, mx[0]), TU.draw_segmentation_masks(yf, my[0]),
                      atol=1e-6)
    with pytest.raises(ValueError, match="dtype bool"):
        U.draw_segmentation_masks(x, mx.to(numtorch.uint8))
    with pytest.raises(ValueError, match="same height and width"):
        U.draw_segmentation_masks(x, mx[:, :5])
    with pytest.raises(ValueError, match="RGB"):
        U.draw_segmentation_masks(x[:1], mx)


def test_draw_keypoints_and_flow():
    img = np.asarray(rgb_image(30, 30)).transpose(2, 0, 1).copy()
    x, y = pair(img)
    kp = np.array([[[5, 5], [20, 8], [15, 25]], [[2, 28], [28, 2], [14, 14]]], np.float32)
    vis = np.array([[True, True, False], [True, True, True]])
    kx, ky = pair(kp)
    vx, vy = pair(vis)
    kw = {"connectivity": [(0, 1), (1, 2)], "colors": "red", "radius": 3, "width": 2}
    assert_same_image(U.draw_keypoints(x, kx, **kw), TU.draw_keypoints(y, ky, **kw))
    assert_same_image(U.draw_keypoints(x, kx, visibility=vx, **kw),
                      TU.draw_keypoints(y, ky, visibility=vy, **kw))
    flow = np.random.default_rng(2).standard_normal((2, 2, 12, 13)).astype(np.float32)
    fx, fy = pair(flow)
    assert_same_image(U.flow_to_image(fx), TU.flow_to_image(fy), atol=1, frac=0.01)
    assert_same_image(U.flow_to_image(fx[0]), TU.flow_to_image(fy[0]), atol=1, frac=0.01)


def _encode(img, fmt, **kw):
    buf = pyio.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _bytes_tensor(data):
    return numtorch.from_numpy(np.frombuffer(data, np.uint8).copy())


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA", "P"])
def test_png_decode_exact(tmp_path, mode):
    img = rgb_image(11, 13).convert(mode)
    data = _encode(img, "PNG")
    (tmp_path / "x.png").write_bytes(data)
    out = nio.read_image(tmp_path / "x.png")
    ref = np.asarray(img)  # a palette image gives its indices, as torchvision's libpng read
    ref = ref[:, :, None] if ref.ndim == 2 else ref
    assert out.dtype == numtorch.uint8
    np.testing.assert_array_equal(out.numpy(), ref.transpose(2, 0, 1))
    colour = np.asarray(img.convert("RGBA")).astype(np.int64)
    r, g, b, a = np.moveaxis(colour, -1, 0)
    # libpng's rgb_to_gray with torchvision's weights (0.2989, 0.587), truncated
    grey = np.where((r == g) & (g == b), r, (9794 * r + 19234 * g + 3740 * b) >> 15)
    for read_mode, want in [("GRAY", [grey]), ("RGB", [r, g, b]), ("RGB_ALPHA", [r, g, b, a]),
                            (nio.ImageReadMode.GRAY_ALPHA, [grey, a])]:
        got = nio.decode_png(_bytes_tensor(data), mode=read_mode).numpy()
        np.testing.assert_array_equal(got, np.stack(want).astype(np.uint8))


def test_jpeg_roundtrip_and_decode(tmp_path):
    yy, xx = np.mgrid[0:32, 0:40]
    smooth = np.stack([xx * 6, yy * 7, (xx + yy) * 3], axis=-1).astype(np.uint8)
    img = Image.fromarray(smooth)
    x = numtorch.from_numpy(np.asarray(img).transpose(2, 0, 1).copy())
    nio.write_jpeg(x, tmp_path / "a.jpg", quality=90)
    # same encoder as Pillow's own save at that quality
    assert (tmp_path / "a.jpg").read_bytes() == _encode(img, "JPEG", quality=90)
    dec = nio.read_image(tmp_path / "a.jpg")
    ref = np.asarray(Image.open(tmp_path / "a.jpg"))
    np.testing.assert_array_equal(dec.numpy(), ref.transpose(2, 0, 1))
    # lossy, but close to the original
    assert np.abs(dec.numpy().astype(int) - x.numpy()).mean() < 8
    gray = nio.decode_jpeg(nio.read_file(tmp_path / "a.jpg"), mode="GRAY")
    assert tuple(gray.shape) == (1, 32, 40)
    assert len(nio.decode_jpeg([nio.read_file(tmp_path / "a.jpg")] * 2)) == 2
    encoded = nio.encode_jpeg([x, x])
    assert len(encoded) == 2 and encoded[0].dtype == numtorch.uint8 and encoded[0].dim() == 1
    with pytest.raises(ValueError, match="between 1 and 100"):
        nio.encode_jpeg(x, quality=0)
    with pytest.raises(RuntimeError, match="channels"):
        nio.encode_jpeg(x[:2])


def test_png_roundtrip_and_files(tmp_path):
    for c in (1, 3):  # torchvision's encoder takes grey and RGB only
        x = numtorch.from_numpy(np.random.default_rng(c).integers(0, 256, (c, 9, 8)).astype(
            np.uint8))
        nio.write_png(x, tmp_path / f"{c}.png", compression_level=9)
        np.testing.assert_array_equal(nio.read_image(tmp_path / f"{c}.png").numpy(), x.numpy())
        np.testing.assert_array_equal(nio.decode_image(str(tmp_path / f"{c}.png")).numpy(),
                                      x.numpy())
    data = nio.read_file(tmp_path / "3.png")
    assert data.dtype == numtorch.uint8 and data.dim() == 1
    nio.write_file(tmp_path / "copy.png", data)
    assert (tmp_path / "copy.png").read_bytes() == (tmp_path / "3.png").read_bytes()
    with pytest.raises(RuntimeError, match="uint8"):
        nio.encode_png(x.float())
    with pytest.raises(RuntimeError, match="Unsupported image file"):
        nio.decode_image(numtorch.tensor([1, 2, 3], dtype=numtorch.uint8))
    with pytest.raises(RuntimeError, match="Content is not png!$"):  # torchvision's text
        nio.decode_png(nio.encode_jpeg(x[:3]))


def test_exif_orientation_gif_webp():
    img = rgb_image(10, 16)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise on display
    data = _bytes_tensor(_encode(img, "JPEG", exif=exif, quality=95))
    assert tuple(nio.decode_jpeg(data).shape) == (3, 10, 16)
    assert tuple(nio.decode_jpeg(data, apply_exif_orientation=True).shape) == (3, 16, 10)
    frames = [rgb_image(8, 9, seed=s) for s in range(3)]
    buf = pyio.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    gif = nio.decode_gif(_bytes_tensor(buf.getvalue()))
    assert tuple(gif.shape) == (3, 3, 8, 9)
    webp = nio.decode_webp(_bytes_tensor(_encode(img, "WEBP", lossless=True)))
    np.testing.assert_array_equal(webp.numpy(), np.asarray(img).transpose(2, 0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nio.ImageReadMode.RGBA is nio.ImageReadMode.RGB_ALPHA


def test_avif_and_heic():
    from PIL import features

    img = rgb_image(8, 10)
    if features.check("avif"):
        out = nio.decode_avif(_bytes_tensor(_encode(img, "AVIF", quality=100)))
        assert tuple(out.shape) == (3, 8, 10) and out.dtype == numtorch.uint8
    Image.init()
    if "HEIF" not in Image.OPEN:
        with pytest.raises(RuntimeError, match="decode_heic: this Pillow build cannot read HEIF"):
            nio.decode_heic(_bytes_tensor(b"\x00" * 16))
