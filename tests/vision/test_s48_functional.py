"""Session 48: corners of the v1 and v2 functionals on tensors (bfloat16 normalize, empty
batches through the grid-sampling kernels), compared with torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (conftest imported it with register_fake patched)
from torchvision import tv_tensors as tv_tt
from torchvision.transforms import functional as tvF1
from torchvision.transforms.v2 import functional as tvF2

import numtorch
from numtorchvision import tv_tensors as nt_tt
from numtorchvision.transforms import functional as ntF1
from numtorchvision.transforms.v2 import functional as ntF2

from ._v2_helpers import assert_same


def _both(fn):
    outs = []
    for mod, F1, F2 in ((torch, tvF1, tvF2), (numtorch, ntF1, ntF2)):
        try:
            outs.append(fn(mod, F1, F2))
        except Exception as e:  # noqa: BLE001  (compared by class and message)
            outs.append(e)
    return outs[1], outs[0]


def _image(mod, shape, dtype):
    arr = np.random.default_rng(0).random(shape).astype(np.float32)
    t = mod.from_numpy(arr)
    return (t * 255).to(mod.uint8) if dtype == "uint8" else t.to(getattr(mod, dtype))


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_bfloat16_normalize(api):
    def run(mod, F1, F2):
        F = F1 if api == "v1" else F2
        return F.normalize(_image(mod, (2, 3, 5, 6), "bfloat16"), [0.1, 0.2, 0.3],
                           [0.5, 0.6, 0.7]).float()
    ours, theirs = _both(run)
    assert_same(ours, theirs)


_GRID_OPS = {
    "rotate": lambda F, x: F.rotate(x, 23.0, fill=[0.5] * 3),
    "rotate_expand": lambda F, x: F.rotate(x, 23.0, expand=True),
    "affine": lambda F, x: F.affine(x, 10.0, [1, -2], 0.9, [3.0, 4.0], fill=1),
    "perspective": lambda F, x: F.perspective(x, [[0, 0], [10, 0], [10, 8], [0, 8]],
                                              [[1, 0], [9, 1], [10, 7], [0, 8]]),
    "equalize": lambda F, x: F.equalize(x),
}


@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("op", list(_GRID_OPS))
def test_empty_batch(op, api):
    """v2 gives an empty batch back (with the output's size); v1 raises torch's errors."""
    def run(mod, F1, F2):
        x = mod.zeros(0, 3, 9, 11, dtype=mod.uint8)
        return _GRID_OPS[op](F1 if api == "v1" else F2, x)
    ours, theirs = _both(run)
    assert_same(ours, theirs)


def test_empty_batch_elastic_v2():
    def run(mod, F1, F2):
        return F2.elastic(mod.zeros(0, 3, 9, 11), mod.zeros(1, 9, 11, 2))
    ours, theirs = _both(run)
    assert_same(ours, theirs)


_HALF_OPS = {
    "rotate_expand": lambda F, x, bil: F.rotate(x, -41.0, expand=True, **bil),
    "rotate_fill": lambda F, x, bil: F.rotate(x, 23.0, fill=[0.5] * 3, **bil),
    "affine": lambda F, x, bil: F.affine(x, 10.0, [1, -2], 0.9, [3.0, 4.0], fill=1, **bil),
    "perspective": lambda F, x, bil: F.perspective(
        x, [[0, 0], [22, 0], [22, 16], [0, 16]], [[1, 0], [20, 1], [22, 15], [0, 16]], **bil),
}


@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", list(_HALF_OPS))
def test_half_precision_geometry(op, dtype, mode, api):
    """torch builds the sampling grid in the image's dtype: nearest sampling picks the same
    pixels (a float32 grid picked neighbours in ~1% of a bfloat16 rotation), bilinear values
    agree to an ulp of the dtype (grid_sample's own half rounding)."""
    def run(mod, F1, F2):
        F = F1 if api == "v1" else F2
        interp = getattr(F1.InterpolationMode, mode.upper())
        x = _image(mod, (2, 3, 17, 23), dtype)
        return _HALF_OPS[op](F, x, {"interpolation": interp}).float()
    ours, theirs = _both(run)
    ulp = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    assert_same(ours, theirs, atol=0.0 if mode == "nearest" else 1.01 * ulp)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_v2_elastic_half_precision(dtype, mode):
    """v2 elastic works on float16 CPU images in float32 (a float16 grid picked other pixels:
    values off by up to 0.87); bfloat16 keeps its own grid."""
    disp = np.random.default_rng(4).normal(0, 0.05, (1, 17, 23, 2)).astype(np.float32)

    def run(mod, F1, F2):
        interp = getattr(F1.InterpolationMode, mode.upper())
        return F2.elastic(_image(mod, (2, 3, 17, 23), dtype), mod.from_numpy(disp.copy()),
                          interpolation=interp).float()
    ours, theirs = _both(run)
    exact = dtype != "bfloat16" or mode == "nearest"
    assert_same(ours, theirs, atol=0.0 if exact else 1.01 * 2.0 ** -7)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["affine", "rotate_expand"])
def test_half_precision_axis_aligned_boxes(op, dtype):
    """torch's half/bfloat16 product of the corner points sums in float32 and rounds once
    (term-by-term rounding moved corners by up to 0.5)."""
    g = np.random.default_rng(0)
    xy = g.uniform(0, 60, (20, 2))
    data = np.concatenate([xy, xy + g.uniform(1, 30, (20, 2))], 1)

    def run(mod, F1, F2):
        tt = tv_tt if mod is torch else nt_tt
        boxes = tt.BoundingBoxes(mod.from_numpy(data.copy()).to(getattr(mod, dtype)),
                                 format="XYXY", canvas_size=(70, 80))
        if op == "affine":
            return F2.affine(boxes, 20.0, [3, -2], 1.1, [5.0, 2.0]).float()
        return F2.rotate(boxes, 33.0, expand=True).float()
    ours, theirs = _both(run)
    assert_same(ours, theirs)


@pytest.mark.parametrize("kind", ["boxes", "keypoints"])
@pytest.mark.parametrize("call", [
    {"angle": -0.1123, "translate": [4, -5], "scale": 0.9264, "shear": [-1.9258, 0.0]},
    {"angle": 13.7, "translate": [3, -2], "scale": 1.13, "shear": [7.1, -3.3],
     "center": [10.5, 20.25]},
    {"angle": 33.0, "translate": [0, 0], "scale": 1.0, "shear": [0.0, 0.0]},
])
def test_float64_affine_of_points_is_exact(kind, call):
    """v2 builds its affine matrix with its own order of operations (the translation column
    differs from v1's by an ulp): float64 boxes and keypoints now agree to the bit."""
    g = np.random.default_rng(5)
    xy = g.uniform(0, 60, (12, 2))
    data = np.concatenate([xy, xy + g.uniform(1, 30, (12, 2))], 1)

    def run(mod, F1, F2):
        tt = tv_tt if mod is torch else nt_tt
        t = mod.from_numpy(data.copy())
        inpt = (tt.BoundingBoxes(t, format="XYXY", canvas_size=(70, 80)) if kind == "boxes"
                else tt.KeyPoints(t.reshape(-1, 2), canvas_size=(70, 80)))
        return F2.affine(inpt, **call)
    ours, theirs = _both(run)
    assert_same(ours, theirs)


@pytest.mark.parametrize("name, kernel", [("roi_align", "roi_align_forward_kernel"),
                                          ("roi_pool", "roi_pool_forward_kernel"),
                                          ("ps_roi_align", "ps_roi_align_forward_kernel"),
                                          ("ps_roi_pool", "ps_roi_pool_forward_kernel")])
def test_roi_ops_dtype_mismatch_message(name, kernel):
    """torchvision's compiled RoI kernels do not load here; the expected text is their
    argument check's (at::checkAllSameType with legacy type names)."""
    from numtorchvision import ops as nops
    x = numtorch.zeros(1, 4, 5, 5)
    with pytest.raises(RuntimeError) as info:
        getattr(nops, name)(x, numtorch.zeros(1, 5, dtype=numtorch.float64), 2)
    assert str(info.value) == (
        "Expected tensor for argument #1 'input' to have the same type as tensor for argument "
        "#2 'rois'; but type torch.FloatTensor does not equal torch.DoubleTensor (while "
        f"checking arguments for {kernel})")
