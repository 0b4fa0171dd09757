"""transforms.v2.functional against torchvision 0.28's: each functional on each input kind,
the box kernels on plain tensors, dtype conversion, and the errors."""

import numpy as np
import pytest
from torchvision.transforms import v2 as tv2  # noqa: F401  (conftest imported torchvision)

from ._v2_helpers import assert_same, build, libs

rng = np.random.default_rng(1)
U8 = rng.integers(0, 256, (3, 20, 26), dtype=np.uint8)
F32 = rng.random((3, 20, 26), dtype=np.float32)
MASK = rng.integers(0, 5, (1, 20, 26), dtype=np.uint8)
BOXES = np.array([[1.5, 2, 12, 18], [5, 6, 25, 19.5]], dtype=np.float32)

KINDS = {
    "image_u8": ("image", U8), "image_f32": ("image", F32), "pure_u8": ("pure", U8),
    "mask": ("mask", MASK), "mask2d": ("mask", MASK[0]), "video": ("video", U8[None]),
    "boxes_xyxy": ("boxes", BOXES, "XYXY", (20, 26)),
    "boxes_xywh": ("boxes", BOXES, "XYWH", (20, 26)),
    "boxes_cxcywh": ("boxes", BOXES, "CXCYWH", (20, 26)),
    "pil": ("pil", U8.transpose(1, 2, 0)),
    "keypoints": ("keypoints", np.array([[3, 4], [25.5, 19], [0, 7]], np.float32), (20, 26)),
}

GEOMETRY = {
    "resize": lambda F: (F.resize, {"size": [13, 31]}),
    "resize_nearest": lambda F: (F.resize, {"size": [30], "interpolation": F.InterpolationMode.NEAREST}),
    "resize_max_size": lambda F: (F.resize, {"size": 10, "max_size": 12}),
    "crop": lambda F: (F.crop, {"top": 3, "left": -2, "height": 12, "width": 20}),
    "center_crop": lambda F: (F.center_crop, {"output_size": [24, 10]}),
    "resized_crop": lambda F: (F.resized_crop, {"top": 2, "left": 4, "height": 10, "width": 15,
                                                  "size": [7, 9]}),
    "pad": lambda F: (F.pad, {"padding": [2, 1, 0, 3], "fill": 9}),
    "hflip": lambda F: (F.horizontal_flip, {}),
    "vflip": lambda F: (F.vertical_flip, {}),
    "affine": lambda F: (F.affine, {"angle": 15.0, "translate": [2, -3], "scale": 0.9,
                                        "shear": [4.0, 2.0]}),
    "affine_center": lambda F: (F.affine, {"angle": -25, "translate": [0, 0], "scale": 1.1, "shear": 0,
                                               "center": [3, 4]}),
    "rotate": lambda F: (F.rotate, {"angle": 33.0}),
    "rotate_expand": lambda F: (F.rotate, {"angle": -70.0, "expand": True}),
    "rotate_180": lambda F: (F.rotate, {"angle": 180}),
    "rotate_270_expand": lambda F: (F.rotate, {"angle": -90, "expand": True}),
}


def _apply(name, table, kind):
    outs = []
    for lib in libs():
        F = lib[1].functional
        fn, kwargs = table[name](F)
        try:
            outs.append(fn(build(KINDS[kind], lib), **kwargs))
        except Exception as e:
            outs.append(e)
    return outs[::-1]  # numtorch's, torch's


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(GEOMETRY))
def test_geometry_every_kind(name, kind):
    nt, tt = _apply(name, GEOMETRY, kind)
    # float32 point maths (matmul) may differ in the last bit
    assert_same(nt, tt, atol=1e-4 if "f32" in kind or "boxes" in kind or "keypoints" in kind
                else 0)


COLOR = {
    "brightness": lambda F: (F.adjust_brightness, {"brightness_factor": 1.3}),
    "contrast": lambda F: (F.adjust_contrast, {"contrast_factor": 0.6}),
    "saturation": lambda F: (F.adjust_saturation, {"saturation_factor": 1.7}),
    "hue": lambda F: (F.adjust_hue, {"hue_factor": -0.2}),
    "gamma": lambda F: (F.adjust_gamma, {"gamma": 0.7}),
    "sharpness": lambda F: (F.adjust_sharpness, {"sharpness_factor": 2.0}),
    "grayscale": lambda F: (F.rgb_to_grayscale, {"num_output_channels": 3}),
    "invert": lambda F: (F.invert, {}),
    "autocontrast": lambda F: (F.autocontrast, {}),
    "gaussian_blur": lambda F: (F.gaussian_blur, {"kernel_size": [5, 3], "sigma": [1.2, 0.7]}),
    "erase": lambda F: (F.erase, {"i": 2, "j": 3, "h": 5, "w": 4, "v": F.to_dtype(
        build(("pure", np.full((3, 1, 1), 7, np.uint8)), _LIB[0]), scale=False, dtype=_LIB[0][0].uint8)}),
}
_LIB = [None]


@pytest.mark.parametrize("kind", ["image_u8", "image_f32", "pure_u8", "video", "pil", "mask",
                                  "boxes_xyxy", "keypoints"])
@pytest.mark.parametrize("name", sorted(COLOR))
def test_color_and_misc(name, kind):
    if name == "erase" and kind == "pil":
        pytest.skip("torchvision 0.28 erases PIL images through a deprecation path")
    outs = []
    for lib in libs():
        _LIB[0] = lib
        F = lib[1].functional
        fn, kwargs = COLOR[name](F)
        try:
            outs.append(fn(build(KINDS[kind], lib), **kwargs))
        except Exception as e:
            outs.append(e)
    tt, nt = outs
    if isinstance(tt, TypeError) and "supports inputs of type" in str(tt):
        # the registry's message names the library's own classes
        assert isinstance(nt, TypeError) and "supports inputs of type" in str(nt)
        return
    assert_same(nt, tt, atol=1e-5)


@pytest.mark.parametrize("src,dst,scale", [
    ("uint8", "float32", True), ("uint8", "float64", True), ("float32", "uint8", True),
    ("float64", "uint8", True), ("uint8", "int32", True), ("int32", "uint8", True),
    ("int64", "int16", True), ("float32", "int64", True), ("uint8", "float32", False),
    ("float32", "float64", True), ("int16", "int8", True),
])
def test_to_dtype(src, dst, scale):
    arr = (rng.random((3, 4, 5)) * (1 if src.startswith("float") else 200)).astype(src)
    outs = []
    for lib in libs():
        mod, v2, _ = lib
        try:
            outs.append(v2.functional.to_dtype(build(("image", arr), lib),
                                               dtype=getattr(mod, dst), scale=scale))
        except Exception as e:
            outs.append(e)
    assert_same(*outs[::-1])


def test_normalize_and_its_errors():
    for spec, kw in [(("image", F32), {"mean": [0.4, 0.5, 0.6], "std": [0.2, 0.3, 0.1]}),
                     (("image", U8), {"mean": [0.4], "std": [0.2]}),
                     (("image", F32), {"mean": [0.4], "std": [0.0, 1, 1]}),
                     (("pure", F32[0]), {"mean": [0.4], "std": [0.3]})]:
        outs = []
        for lib in libs():
            try:
                outs.append(lib[1].functional.normalize(build(spec, lib), **kw))
            except Exception as e:
                outs.append(e)
        assert_same(*outs[::-1], atol=1e-6)


def test_box_kernels_on_plain_tensors():
    outs = []
    for lib in libs():
        mod, v2, T = lib
        F = v2.functional
        b = mod.from_numpy(BOXES.copy())
        outs.append([
            F.horizontal_flip_bounding_boxes(b, format=T.BoundingBoxFormat.XYWH,
                                             canvas_size=(20, 26)),
            F.resize_bounding_boxes(b, canvas_size=(20, 26), size=[10, 13])[0],
            F.crop_bounding_boxes(b, T.BoundingBoxFormat.XYXY, 2, 3, 10, 12)[0],
            F.pad_bounding_boxes(b, T.BoundingBoxFormat.CXCYWH, (20, 26), [1, 2])[0],
            F.convert_bounding_box_format(b, old_format="XYXY", new_format="CXCYWH"),
            F.convert_bounding_box_format(b.long(), old_format="CXCYWH", new_format="XYWH"),
            F.convert_bounding_box_format(b.long(), old_format="XYXY", new_format="CXCYWH"),
            F.clamp_bounding_boxes(b, format="XYWH", canvas_size=(15, 15),
                                   clamping_mode="soft"),
            F.sanitize_bounding_boxes(b, format="XYXY", canvas_size=(20, 24))[1],
            F.rotate_bounding_boxes(b, T.BoundingBoxFormat.XYXY, (20, 26), 40.0,
                                    expand=True)[0],
            F.affine_bounding_boxes(b, T.BoundingBoxFormat.XYXY, (20, 26), 10.0, [1, 2], 1.2,
                                    [3.0, 0.0]),
        ])
    assert_same(*outs[::-1], atol=1e-4)


@pytest.mark.parametrize("call", [
    lambda m, F, T, b: F.convert_bounding_box_format(b.as_subclass(m.Tensor), new_format="XYXY"),
    lambda m, F, T, b: F.convert_bounding_box_format(b, old_format="XYWH", new_format="XYXY"),
    lambda m, F, T, b: F.convert_bounding_box_format(b),
    lambda m, F, T, b: F.clamp_bounding_boxes(b.as_subclass(m.Tensor)),
    lambda m, F, T, b: F.clamp_bounding_boxes(b, format="XYXY"),
    lambda m, F, T, b: F.clamp_bounding_boxes(b, clamping_mode="tight"),
    lambda m, F, T, b: F.sanitize_bounding_boxes(b.as_subclass(m.Tensor)),
    lambda m, F, T, b: F.sanitize_bounding_boxes(b, format="XYXY"),
    lambda m, F, T, b: F.pad(b, [1], padding_mode="edge"),
    lambda m, F, T, b: F.resize(b, 5, max_size=4),
    lambda m, F, T, b: F.resize(m.zeros(3, 4, 4), [2, 2], interpolation="cubic"),
    lambda m, F, T, b: F.affine(b, angle=1, translate=[1], scale=1, shear=0),
    lambda m, F, T, b: F.affine(b, angle=1, translate=[1, 1], scale=-1, shear=0),
    lambda m, F, T, b: F.gaussian_blur(m.zeros(3, 4, 4), [2, 3]),
    lambda m, F, T, b: F.gaussian_blur(m.zeros(3, 4, 4), [3, 3], sigma=[-1.0]),
    lambda m, F, T, b: F.to_dtype(m.zeros(1, 2, 2), dtype=m.int32, scale=True),
    lambda m, F, T, b: F.rgb_to_grayscale(m.zeros(3, 2, 2), num_output_channels=2),
    lambda m, F, T, b: F.pad(T.Mask(m.zeros(2, 2)), [1], fill=[1, 2]),
    lambda m, F, T, b: F.to_image("not an image"),
])
def test_functional_errors(call):
    outs = []
    for lib in libs():
        mod, v2, T = lib
        b = build(KINDS["boxes_xyxy"], lib)
        try:
            outs.append(call(mod, v2.functional, T, b))
        except Exception as e:
            outs.append(e)
    tt, nt = outs
    assert isinstance(tt, Exception), tt
    assert type(nt) is type(tt) and str(nt) == str(tt), (nt, tt)


def test_unsupported_kind_and_register_kernel():
    from numtorchvision import tv_tensors as T
    from numtorchvision.transforms import v2

    with pytest.raises(TypeError, match="Functional F.normalize supports inputs of type"):
        v2.functional.normalize(T.Mask(np.zeros((1, 2, 2), np.float32)), [0.0], [1.0])

    class Heat(T.TVTensor):
        pass

    seen = []

    @v2.functional.register_kernel(v2.functional.horizontal_flip, Heat)
    def _flip_heat(inpt):
        seen.append(type(inpt).__name__)
        return T.wrap(inpt.as_subclass(v2.functional._utils.torch.Tensor).flip(-1) * 2,
                      like=inpt)

    h = __import__("numtorch").ones(2, 3).as_subclass(Heat)
    out = v2.RandomHorizontalFlip(p=1.0)({"h": h, "img": T.Image(np.zeros((1, 2, 3)))})
    assert type(out["h"]).__name__ == "Heat" and seen == ["Heat"]
    assert float(out["h"].sum()) == 12.0
    with pytest.raises(ValueError, match="builtin tv_tensor classes"):
        v2.functional.register_kernel(v2.functional.resize, T.Image)
    with pytest.raises(ValueError, match="Could not find functional"):
        v2.functional.register_kernel("no_such", Heat)


def test_sizes():
    outs = []
    for lib in libs():
        F = lib[1].functional
        outs.append([F.get_size(build(KINDS[k], lib)) for k in ("image_u8", "mask", "boxes_xyxy",
                                                                 "pil", "video")]
                    + [F.get_dimensions(build(KINDS["pil"], lib)),
                       F.get_num_channels(build(KINDS["image_u8"], lib)),
                       F.get_num_frames(build(KINDS["video"], lib))])
    assert outs[0] == outs[1]


def test_keypoint_kernels_and_errors():
    outs = []
    for lib in libs():
        mod, v2, T = lib
        F = v2.functional
        p = mod.from_numpy(np.array([[3, 4], [25.5, 19], [-1, 7], [30, 2]], np.float32))
        k = T.KeyPoints(p.clone(), canvas_size=(20, 26))
        res = [F.clamp_keypoints(p, canvas_size=(20, 26)), F.clamp_keypoints(k),
               F.sanitize_keypoints(k)[1], F.sanitize_keypoints(p.reshape(2, 2, 2),
                                                                 canvas_size=(20, 26))[1],
               F.perspective(k, [[0, 0], [25, 0], [25, 19], [0, 19]],
                             [[2, 1], [24, 3], [22, 18], [1, 17]]),
               F.elastic(k, mod.zeros(1, 20, 26, 2) + 0.05), F.to_dtype(k, mod.float64),
               F.get_size(k)]
        for bad in (lambda: F.clamp_keypoints(p), lambda: F.clamp_keypoints(k, canvas_size=(2, 2)),
                    lambda: F.sanitize_keypoints(p), lambda: F.pad(k, [1], padding_mode="edge"),
                    lambda: T.KeyPoints(mod.zeros(2, 3), canvas_size=(2, 2))):
            try:
                bad()
                res.append(None)
            except Exception as e:
                res.append(e)
        outs.append(res)
    assert_same(*outs[::-1], atol=1e-5)
