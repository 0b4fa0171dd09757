"""transforms.v2.JPEG and functional.jpeg against torchvision 0.28: quality argument checks
(classes and messages), the random quality draw, PIL outputs pixel for pixel, tensors
(torchvision's tensor kernel needs its compiled image extension, which does not load
here, so tensor results are compared with torchvision's PIL path on the same pixels, both
being libjpeg at default settings), batches, videos and pass-through of other kinds."""

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision import tv_tensors as ttv
from torchvision.transforms import v2 as T2
from torchvision.transforms.v2 import functional as TF

import numtorch
from numtorchvision import tv_tensors as ntv
from numtorchvision.transforms import v2 as N2
from numtorchvision.transforms.v2 import functional as NF


def _pil(seed, size=(21, 30), mode="RGB"):
    rs = np.random.RandomState(seed)
    # smooth content plus noise: realistic blocks for the encoder
    yy, xx = np.mgrid[0:size[0], 0:size[1]]
    base = (np.sin(xx / 4.0)[..., None] * 60 + yy[..., None] * 3 + 90
            + rs.randint(0, 40, size + (3,)))
    img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
    return img if mode == "RGB" else img.convert(mode)


def _chw(img):
    a = np.asarray(img)
    return a[None] if a.ndim == 2 else a.transpose(2, 0, 1)


@pytest.mark.parametrize("quality", [0, 101, (5, 3), (0, 10), 1.5, "a", (1, 2, 3), [1.5, 3],
                                     [3, 3.0], "ab", None, True, [0, 0]])
def test_quality_checks_match_torchvision(quality):
    with pytest.raises(Exception) as theirs:
        T2.JPEG(quality)
    with pytest.raises(Exception) as ours:
        N2.JPEG(quality)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("quality", [50, [10, 50], (1, 100), (True, 5)])
def test_accepted_quality_and_repr(quality):
    t, n = T2.JPEG(quality), N2.JPEG(quality)
    assert repr(n) == repr(t) and n.quality == t.quality


def test_random_quality_draw_order():
    t, n = T2.JPEG((10, 90)), N2.JPEG((10, 90))
    torch.manual_seed(5)
    theirs = [t.make_params([])["quality"] for _ in range(20)]
    numtorch.manual_seed(5)
    ours = [n.make_params([])["quality"] for _ in range(20)]
    assert ours == theirs


@pytest.mark.parametrize("mode", ["RGB", "L"])
@pytest.mark.parametrize("quality", [1, 30, 75, 100])
def test_pil_pixels_equal_torchvisions(mode, quality):
    img = _pil(quality, mode=mode)
    t, n = TF.jpeg(img, quality), NF.jpeg(img, quality)
    assert isinstance(n, Image.Image) and n.mode == t.mode == mode and n.size == t.size
    np.testing.assert_array_equal(np.asarray(n), np.asarray(t))
    assert not np.array_equal(np.asarray(n), np.asarray(img)) or quality == 100


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_tensor_pixels_equal_torchvisions_pil_path(mode):
    imgs = [_pil(s, mode=mode) for s in range(3)]
    expected = np.stack([_chw(TF.jpeg(im, 40)) for im in imgs])
    batch = numtorch.tensor(np.stack([_chw(im) for im in imgs]))
    out = NF.jpeg(batch, 40)
    assert out.dtype == numtorch.uint8 and tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)
    # a single image and a video with two leading dimensions: the same per-image result
    np.testing.assert_array_equal(NF.jpeg(batch[1], 40).numpy(), expected[1])
    video = batch.reshape((1,) + tuple(batch.shape))
    np.testing.assert_array_equal(NF.jpeg_video(video, 40).numpy()[0], expected)


def test_transform_on_a_sample_keeps_kinds_and_passes_others_through():
    img = _pil(7)
    arr = _chw(img)
    boxes = [[0, 0, 4, 5]]
    mask = np.zeros((21, 30), dtype=np.uint8)
    ours = N2.JPEG(60)({"img": ntv.Image(numtorch.tensor(arr)), "pil": img,
                        "mask": ntv.Mask(numtorch.tensor(mask)),
                        "boxes": ntv.BoundingBoxes(boxes, format="XYXY", canvas_size=(21, 30)),
                        "label": 3})
    theirs_pil = T2.JPEG(60)({"pil": img})["pil"]
    assert type(ours["img"]) is ntv.Image
    np.testing.assert_array_equal(ours["img"].numpy(), _chw(theirs_pil))
    np.testing.assert_array_equal(np.asarray(ours["pil"]), np.asarray(theirs_pil))
    assert type(ours["mask"]) is ntv.Mask and ours["mask"].numpy().sum() == 0
    assert ours["boxes"].tolist() == boxes and ours["label"] == 3
    # torchvision passes a Mask and boxes through as well
    tmask = ttv.Mask(torch.ones(21, 30))
    assert T2.JPEG(60)({"m": tmask})["m"] is tmask


def test_random_quality_transform_equals_torchvisions_with_the_same_seed():
    img = _pil(11)
    torch.manual_seed(3)
    theirs = [np.asarray(T2.JPEG((5, 95))(img)) for _ in range(4)]
    numtorch.manual_seed(3)
    ours = [np.asarray(N2.JPEG((5, 95))(img)) for _ in range(4)]
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_empty_batch_and_bad_tensors():
    empty = numtorch.zeros((0, 3, 4, 5), dtype=numtorch.uint8)
    assert tuple(NF.jpeg(empty, 50).shape) == (0, 3, 4, 5)
    with pytest.raises(RuntimeError, match="uint8"):
        NF.jpeg(numtorch.zeros((3, 4, 5)), 50)
    with pytest.raises(RuntimeError, match="channels"):
        NF.jpeg(numtorch.zeros((4, 4, 5), dtype=numtorch.uint8), 50)
    with pytest.raises(ValueError, match="between 1 and 100"):
        NF.jpeg(numtorch.zeros((3, 4, 5), dtype=numtorch.uint8), 0)
    with pytest.raises(OSError, match="RGBA"):
        TF.jpeg(_pil(1).convert("RGBA"), 50)
    with pytest.raises(OSError, match="RGBA"):
        NF.jpeg(_pil(1).convert("RGBA"), 50)
