"""Session 48: rotated bounding boxes (XYWHR, CXCYWHR, XYXYXYXY) in tv_tensors and the v2
functionals and transforms, compared with torchvision 0.28 at test time.

float64 boxes agree to ~1e-12; float32 boxes only to a few ulps of the coordinates, because
torch's float32 sin/cos/atan2/sqrt are not NumPy's (the rotated clamp can magnify an ulp, so
the float32 cases use well-conditioned boxes)."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (conftest imported it with register_fake patched)
from torchvision import tv_tensors as tv_tt
from torchvision.transforms import v2 as tvT
from torchvision.transforms.v2 import functional as tvF

import numtorch
from numtorchvision import tv_tensors as nt_tt
from numtorchvision.transforms import v2 as ntT
from numtorchvision.transforms.v2 import functional as ntF

from ._v2_helpers import assert_same

_FORMATS = ("XYWHR", "CXCYWHR", "XYXYXYXY")
_CANVAS = (80, 100)


def _cxcywhr(n=10, seed=0):
    """Boxes around and across an 80 x 100 canvas, at assorted angles (0, quarter turns,
    180 and in between)."""
    g = np.random.default_rng(seed)
    angles = g.choice([0.0, 90.0, -90.0, 180.0, 30.0, -45.0, 12.5, 200.0, 359.0, 60.0, 135.7],
                      n)
    return np.stack([g.uniform(-20, 120, n), g.uniform(-20, 100, n), g.uniform(1, 60, n),
                     g.uniform(1, 40, n), angles], 1)


def _libs():
    return (torch, tv_tt, tvF, tvT), (numtorch, nt_tt, ntF, ntT)


def _boxes(lib, fmt, mode="soft", dtype="float64", data=None):
    mod, tt, F, _ = lib
    t = mod.from_numpy(_cxcywhr() if data is None else data).to(getattr(mod, dtype))
    t = F.convert_bounding_box_format(t, old_format="CXCYWHR", new_format=fmt)
    return tt.BoundingBoxes(t, format=fmt, canvas_size=_CANVAS, clamping_mode=mode)


def _both(fn):
    outs = []
    for lib in _libs():
        try:
            outs.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (compared by class and message)
            outs.append(e)
    return outs[1], outs[0]


_OPS = {
    "convert_xywhr": lambda b, F: F.convert_bounding_box_format(b, new_format="XYWHR"),
    "convert_cxcywhr": lambda b, F: F.convert_bounding_box_format(b, new_format="CXCYWHR"),
    "convert_corners": lambda b, F: F.convert_bounding_box_format(b, new_format="XYXYXYXY"),
    "clamp": lambda b, F: F.clamp_bounding_boxes(b),
    "clamp_hard": lambda b, F: F.clamp_bounding_boxes(b, clamping_mode="hard"),
    "clamp_none": lambda b, F: F.clamp_bounding_boxes(b, clamping_mode=None),
    "hflip": lambda b, F: F.horizontal_flip(b),
    "vflip": lambda b, F: F.vertical_flip(b),
    "resize": lambda b, F: F.resize(b, [50, 70]),
    "resize_short": lambda b, F: F.resize(b, 40),
    "crop": lambda b, F: F.crop(b, 10, 5, 50, 60),
    "center_crop": lambda b, F: F.center_crop(b, [50, 60]),
    "resized_crop": lambda b, F: F.resized_crop(b, 10, 5, 50, 60, [30, 40]),
    "pad": lambda b, F: F.pad(b, [3, 4, 5, 6]),
    "affine": lambda b, F: F.affine(b, angle=20.0, translate=[5, -3], scale=1.2,
                                    shear=[10.0, 5.0]),
    "rotate": lambda b, F: F.rotate(b, 33.0),
    "rotate_expand": lambda b, F: F.rotate(b, 33.0, expand=True),
    "rotate_center": lambda b, F: F.rotate(b, -70.0, center=[10, 20]),
    "perspective": lambda b, F: F.perspective(
        b, [[0, 0], [99, 0], [99, 79], [0, 79]], [[5, 3], [90, 0], [99, 70], [2, 79]]),
    "sanitize": lambda b, F: F.sanitize_bounding_boxes(b, min_size=2.0),
}


@pytest.mark.parametrize("mode", ["soft", "hard"])
@pytest.mark.parametrize("fmt", _FORMATS)
@pytest.mark.parametrize("op", list(_OPS))
def test_functional_float64_matches(op, fmt, mode):
    ours, theirs = _both(lambda lib: _OPS[op](_boxes(lib, fmt, mode), lib[2]))
    assert_same(ours, theirs, atol=1e-9)


# boxes inside the canvas or crossing one side at a moderate angle
_TAME = np.array([[50.0, 40.0, 30.0, 20.0, 30.0], [20.0, 30.0, 16.0, 10.0, -20.0],
                  [70.0, 60.0, 24.0, 12.0, 75.0], [95.0, 10.0, 20.0, 18.0, 15.0],
                  [40.0, 75.0, 30.0, 8.0, 100.0]])


@pytest.mark.parametrize("fmt", _FORMATS)
@pytest.mark.parametrize("op", ["convert_xywhr", "convert_corners", "clamp", "hflip", "vflip",
                                "resize", "crop", "pad", "affine", "rotate_expand"])
def test_functional_float32_close(op, fmt):
    ours, theirs = _both(lambda lib: _OPS[op](_boxes(lib, fmt, "soft", "float32", _TAME),
                                              lib[2]))
    assert_same(ours, theirs, atol=2e-3)


@pytest.mark.parametrize("op", ["resize", "affine", "crop", "pad", "hflip"])
def test_unclamped_boxes_match(op):
    ours, theirs = _both(lambda lib: _OPS[op](_boxes(lib, "XYWHR", None), lib[2]))
    assert_same(ours, theirs, atol=1e-9)


@pytest.mark.parametrize("fmt", _FORMATS)
def test_elastic_moves_the_centre_only(fmt):
    g = np.random.default_rng(1)
    disp = g.uniform(-0.05, 0.05, (1, 80, 100, 2))

    def run(lib):
        mod, _, F, _ = lib
        return F.elastic(_boxes(lib, fmt), mod.from_numpy(disp.copy()))
    ours, theirs = _both(run)
    assert_same(ours, theirs, atol=1e-9)


@pytest.mark.parametrize("fmt", _FORMATS)
def test_pure_tensor_kernels_match(fmt):
    def run(lib):
        mod, tt, F, _ = lib
        t = mod.from_numpy(_cxcywhr()).double()
        t = F.convert_bounding_box_format(t, old_format="CXCYWHR", new_format=fmt)
        fmt_ = tt.BoundingBoxFormat[fmt]  # torchvision's crop kernel compares enums only
        return [F.clamp_bounding_boxes(t, format=fmt_, canvas_size=_CANVAS,
                                       clamping_mode="hard"),
                F.horizontal_flip_bounding_boxes(t, format=fmt_, canvas_size=_CANVAS),
                F.resize_bounding_boxes(t, canvas_size=_CANVAS, size=[40, 40],
                                        format=fmt_)[0],
                F.crop_bounding_boxes(t, fmt_, 3, 4, 30, 30)[0],
                F.sanitize_bounding_boxes(t, format=fmt_, canvas_size=_CANVAS)[1]]
    ours, theirs = _both(run)
    assert_same(ours, theirs, atol=1e-9)


@pytest.mark.parametrize("case", ["rotated_to_axis", "axis_to_rotated", "int_rotated",
                                  "is_rotated", "enum", "single_box"])
def test_metadata_and_errors_match(case):
    def run(lib):
        mod, tt, F, _ = lib
        if case == "rotated_to_axis":
            return F.convert_bounding_box_format(_boxes(lib, "XYWHR"), new_format="XYXY")
        if case == "axis_to_rotated":
            b = tt.BoundingBoxes(mod.tensor([[1.0, 2.0, 5.0, 6.0]]), format="XYXY",
                                 canvas_size=(9, 9))
            return F.convert_bounding_box_format(b, new_format="cxcywhr")
        if case == "int_rotated":
            return tt.BoundingBoxes(mod.tensor([[1, 2, 3, 4, 5]]), format="XYWHR",
                                    canvas_size=(9, 9))
        if case == "is_rotated":
            return [tt.is_rotated_bounding_format(f) for f in
                    ("XYWHR", "xywhr", tt.BoundingBoxFormat.XYXYXYXY, "XYXY")]
        if case == "enum":
            return [m.value for m in tt.BoundingBoxFormat]
        b = tt.BoundingBoxes(mod.tensor([1.0, 2.0, 3.0, 4.0, 30.0]), format="xywhr",
                             canvas_size=(9, 9))
        return [b, b.format.value, F.get_size(b)]
    ours, theirs = _both(run)
    assert_same(ours, theirs, atol=1e-6)


_TRANSFORMS = {
    "RandomHorizontalFlip": lambda T: T.RandomHorizontalFlip(p=1.0),
    "RandomVerticalFlip": lambda T: T.RandomVerticalFlip(p=1.0),
    "RandomRotation": lambda T: T.RandomRotation(40),
    "RandomRotation_expand": lambda T: T.RandomRotation(40, expand=True),
    "RandomAffine": lambda T: T.RandomAffine(25, translate=(0.1, 0.1), scale=(0.8, 1.2),
                                             shear=10),
    "RandomResizedCrop": lambda T: T.RandomResizedCrop((40, 50), antialias=True),
    "RandomCrop": lambda T: T.RandomCrop((50, 60), padding=4),
    "Resize": lambda T: T.Resize(60),
    "RandomPerspective": lambda T: T.RandomPerspective(0.4, p=1.0),
    "RandomZoomOut": lambda T: T.RandomZoomOut(p=1.0),
    "CenterCrop": lambda T: T.CenterCrop(50),
    "Pad": lambda T: T.Pad(3),
    "ClampBoundingBoxes": lambda T: T.ClampBoundingBoxes(),
    "ConvertBoundingBoxFormat": lambda T: T.ConvertBoundingBoxFormat("XYXYXYXY"),
    "RandomIoUCrop": lambda T: T.RandomIoUCrop(),
}


@pytest.mark.parametrize("fmt", _FORMATS)
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_transforms_on_a_detection_sample_match(name, fmt):
    """A (image, target) detection sample through a seeded pipeline ending in
    SanitizeBoundingBoxes, as a training script writes it."""
    image = np.random.default_rng(2).integers(0, 256, (3, 80, 100), dtype=np.uint8)
    labels = np.arange(10)

    def run(lib):
        mod, tt, _, T = lib
        pipeline = T.Compose([_TRANSFORMS[name](T), T.SanitizeBoundingBoxes()])
        mod.manual_seed(5)
        sample = (tt.Image(mod.from_numpy(image.copy())),
                  {"boxes": _boxes(lib, fmt), "labels": mod.from_numpy(labels.copy())})
        return pipeline(sample)
    ours, theirs = _both(run)
    assert_same(ours, theirs, atol=1e-6)


@pytest.mark.parametrize("old, new", [("CXCYWHR", "XYWHR"), ("XYWHR", "CXCYWHR"),
                                      ("XYWHR", "XYXYXYXY"), ("XYXYXYXY", "CXCYWHR"),
                                      ("XYXYXYXY", "XYWHR")])
def test_inplace_conversion_changes_the_input_as_torchvision(old, new):
    def run(lib):
        mod, tt, F, _ = lib
        width = 8 if old == "XYXYXYXY" else 5
        data = mod.arange(1.0, width + 1).reshape(1, width) * 3
        boxes = tt.BoundingBoxes(data.clone(), format=old, canvas_size=(50, 50))
        out = F.convert_bounding_box_format(boxes, new_format=new, inplace=True)
        plain = data.clone()
        F.convert_bounding_box_format(plain, old_format=old, new_format=new, inplace=True)
        return [out, boxes, plain]
    ours, theirs = _both(run)
    assert_same(ours, theirs, atol=1e-5)


def test_float32_atan2_rounds_as_torch():
    """Box angles come from atan2: NumPy's float32 arctan2 missed torch's value by an ulp
    here (a 180-degree box came back as -180 after a resize)."""
    y = np.array([-1.9073486e-06, 1e-6, -0.5, 3.0], dtype=np.float32)
    x = np.array([-17.825279, -1.0, -2.5, 0.25], dtype=np.float32)
    ours = numtorch.atan2(numtorch.from_numpy(y), numtorch.from_numpy(x)).numpy()
    theirs = torch.atan2(torch.from_numpy(y), torch.from_numpy(x)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def _axis_boxes(n=12, seed=3):
    g = np.random.default_rng(seed)
    return np.stack([g.uniform(0, 40, n), g.uniform(0, 40, n), g.uniform(1, 25, n),
                     g.uniform(1, 25, n)], 1)


@pytest.mark.parametrize("angle", [0.0, 90.0, 37.0, -120.0])
@pytest.mark.parametrize("fmt", ["cxcywhr", "xywhr", "xyxyxyxy"])
def test_rotated_box_iou_equals_torchvisions_axis_aligned_iou(angle, fmt):
    """torchvision's rotated IoU is a compiled kernel that does not load here; turning a whole
    scene (centres and boxes) by one angle keeps every IoU, so torchvision's axis-aligned
    ``box_iou`` of the unturned scene is the oracle. A quarter turn swaps width and height."""
    from numtorchvision import ops as nops
    from torchvision import ops as tops

    cxcywh = _axis_boxes()
    expected = tops.box_iou(torch.from_numpy(cxcywh), torch.from_numpy(cxcywh),
                            fmt="cxcywh").numpy()
    rad = np.deg2rad(angle)
    # counter-clockwise on screen (y down)
    turn = np.array([[np.cos(rad), np.sin(rad)], [-np.sin(rad), np.cos(rad)]])
    turned = np.concatenate([cxcywh[:, :2] @ turn.T, cxcywh[:, 2:], np.full((12, 1), angle)], 1)
    boxes = numtorch.from_numpy(turned)
    if fmt != "cxcywhr":
        boxes = nops.box_convert(boxes, "cxcywhr", fmt)
    ours = nops.box_iou(boxes, boxes, fmt=fmt)
    assert ours.dtype == numtorch.float32 and tuple(ours.shape) == (12, 12)
    np.testing.assert_allclose(ours.numpy(), expected, atol=1e-6)


def test_rotated_box_iou_of_crossing_boxes_by_sampling():
    from numtorchvision import ops as nops
    b1, b2 = np.array([10.0, 10, 8, 4, 30]), np.array([12.0, 11, 6, 6, -20])
    ours = nops.box_iou(numtorch.from_numpy(b1[None]), numtorch.from_numpy(b2[None]),
                        fmt="cxcywhr").item()
    pts = np.random.default_rng(0).uniform(0, 25, (400_000, 2))

    def inside(b):
        t = np.deg2rad(b[4])
        d = pts - b[:2]
        along_w = d @ np.array([np.cos(t), -np.sin(t)])
        along_h = d @ np.array([np.sin(t), np.cos(t)])
        return (np.abs(along_w) <= b[2] / 2) & (np.abs(along_h) <= b[3] / 2)
    i1, i2 = inside(b1), inside(b2)
    assert abs(ours - (i1 & i2).sum() / (i1 | i2).sum()) < 5e-3


def test_rotated_box_iou_edge_cases():
    from numtorchvision import ops as nops
    from torchvision import ops as tops
    assert tuple(nops.box_iou(numtorch.zeros(0, 5), numtorch.zeros(3, 5),
                              fmt="cxcywhr").shape) == (0, 3)
    flat = nops.box_iou(numtorch.tensor([[1.0, 1, 0, 3, 0]]),
                        numtorch.tensor([[1.0, 1, 2, 3, 0]]), fmt="cxcywhr")
    assert flat.item() == 0.0
    ours, theirs = [], []
    for mod, ops_ in ((numtorch, nops), (torch, tops)):
        try:
            ops_.box_iou(mod.zeros(2, 5), mod.zeros(2, 5), fmt="xyzr")
        except ValueError as e:
            (ours if mod is numtorch else theirs).append(str(e))
    assert ours == theirs and ours
