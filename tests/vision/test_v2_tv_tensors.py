"""tv_tensors against torchvision 0.28's: construction, what operations return (plain tensors
by default, the kind for clone/to/detach/requires_grad_, everything under
set_return_type("TVTensor")), metadata, wrap, repr, deepcopy and errors."""

import copy

import numpy as np
import pytest
import torch
from torchvision import tv_tensors as tvt

import numtorch
from numtorchvision import tv_tensors as ntvt

ARR = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
BOX = np.array([[1, 2, 5, 7], [0, 0, 3, 3]], dtype=np.float32)


def _both(fn):
    """fn(torch_module, tv_tensors) in each library, (numtorch's, torch's) result or
    exception."""
    out = []
    for mod, T in ((numtorch, ntvt), (torch, tvt)):
        try:
            out.append(fn(mod, T))
        except Exception as e:
            out.append(e)
    return out


def _kind(x):
    return type(x).__name__


def _same_error(a, b):
    assert isinstance(b, Exception) and type(a) is type(b) and str(a) == str(b), (a, b)


def _image(mod, T):
    return T.Image(mod.from_numpy(ARR.copy()))


def _boxes(mod, T, fmt="XYWH"):
    return T.BoundingBoxes(mod.from_numpy(BOX.copy()), format=fmt, canvas_size=(10, 12))


OPS = {
    "add": lambda x, m: x + 1,
    "radd": lambda x, m: 1 + x,
    "mul_tensor": lambda x, m: x * m.ones(1),
    "function": lambda x, m: m.add(x, 1),
    "index": lambda x, m: x[0],
    "flip": lambda x, m: x.flip(-1),
    "reshape": lambda x, m: x.reshape(-1),
    "float": lambda x, m: x.float(),
    "inplace": lambda x, m: x.add_(1),
    "clone": lambda x, m: x.clone(),
    "to_dtype": lambda x, m: x.to(m.float64),
    "detach": lambda x, m: x.detach(),
    "requires_grad_": lambda x, m: x.requires_grad_(True),
    "stack": lambda x, m: m.stack([x, x]),
    "sum": lambda x, m: x.sum(),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("make", ["image", "boxes", "mask", "video", "keypoints"])
def test_result_kinds(op, make):
    def fn(mod, T):
        if make == "image":
            x = _image(mod, T)
        elif make == "boxes":
            x = _boxes(mod, T)
        elif make == "keypoints":
            x = T.KeyPoints(mod.from_numpy(ARR.copy()).reshape(-1, 3, 2), canvas_size=(4, 5))
        elif make == "mask":
            x = T.Mask(mod.from_numpy(ARR.copy()))
        else:
            x = T.Video(mod.from_numpy(ARR.copy()).reshape(1, 2, 3, 4))
        return OPS[op](x, mod)

    a, b = _both(fn)
    assert _kind(a) == _kind(b), (op, _kind(a), _kind(b))
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    if _kind(b) == "BoundingBoxes":
        assert (a.format.value, a.canvas_size) == (b.format.value, b.canvas_size)
    if _kind(b) == "KeyPoints":
        assert a.canvas_size == b.canvas_size


@pytest.mark.parametrize("op", ["add", "function", "index", "stack", "sum", "inplace",
                                "float"])
def test_set_return_type_tvtensor(op):
    def fn(mod, T):
        x = _boxes(mod, T, "CXCYWH")
        with T.set_return_type("TVTensor"):
            y = OPS[op](x, mod)
        z = OPS[op](x.clone(), mod)  # back to the default
        return y, z

    (a, az), (b, bz) = _both(fn)
    assert _kind(a) == _kind(b) and _kind(az) == _kind(bz), (_kind(a), _kind(b))
    if _kind(b) == "BoundingBoxes":
        assert (a.format.value, a.canvas_size) == (b.format.value, b.canvas_size)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_set_return_type_global_and_errors():
    for mod, T in ((numtorch, ntvt), (torch, tvt)):
        T.set_return_type("tvtensor")
        try:
            assert _kind(_image(mod, T) * 2) == "Image"
        finally:
            T.set_return_type("Tensor")
        assert _kind(_image(mod, T) * 2) == "Tensor"
    _same_error(*_both(lambda mod, T: T.set_return_type("image")))


def test_repr():
    def fn(mod, T):
        return [repr(_image(mod, T).to(mod.uint8)), repr(_boxes(mod, T)),
                repr(T.Mask(mod.from_numpy(ARR.copy()) > 5)),
                repr(T.Video(mod.zeros(1, 1, 1, 2, dtype=mod.float64))),
                repr(T.BoundingBoxFormat.XYXY), str(T.BoundingBoxFormat.CXCYWH),
                repr(T.KeyPoints([[1, 2], [3, 4]], canvas_size=(5, 6))),
                repr(T.KeyPoints([1.5, 2], canvas_size=(5, 6)))]

    a, b = _both(fn)
    assert a == b


def test_construction_and_metadata():
    def fn(mod, T):
        img2d = T.Image(mod.ones(3, 4))
        one_box = T.BoundingBoxes([1, 2, 3, 4], format=T.BoundingBoxFormat.XYXY,
                                  canvas_size=(5, 6), dtype=mod.float64)
        rg = T.Image(mod.ones(1, 2, 2), requires_grad=True)
        hard = T.BoundingBoxes([[1, 2, 3, 4]], format="xywh", canvas_size=(5, 6),
                               clamping_mode="hard")
        return (tuple(img2d.shape), tuple(one_box.shape), str(one_box.dtype), one_box.format.value,
                one_box.canvas_size, rg.requires_grad, hard.clamping_mode, hard.format.value,
                one_box.clamping_mode)

    a, b = _both(fn)
    assert a == b


@pytest.mark.parametrize("bad", [
    lambda mod, T: T.Image(mod.ones(3)),
    lambda mod, T: T.BoundingBoxes(mod.ones(1, 1, 4), format="XYXY", canvas_size=(2, 2)),
    lambda mod, T: T.BoundingBoxes(mod.ones(1, 4), format="XYXY", canvas_size=(2, 2),
                                   clamping_mode="medium"),
    lambda mod, T: T.Video(mod.ones(2, 3, 4)),
])
def test_construction_errors(bad):
    _same_error(*_both(bad))


def test_wrap_and_deepcopy():
    def fn(mod, T):
        boxes = _boxes(mod, T)
        w = T.wrap(mod.zeros(1, 4), like=boxes, canvas_size=(3, 3))
        wi = T.wrap(mod.zeros(1, 2, 2), like=_image(mod, T))
        boxes.requires_grad_(True)
        d = copy.deepcopy(boxes)
        return (_kind(w), w.format.value, w.canvas_size, _kind(wi), _kind(d), d.format.value,
                d.requires_grad, d.grad_fn is None, d.canvas_size)

    a, b = _both(fn)
    assert a == b


def test_as_subclass_and_pure_tensor_passthrough():
    def fn(mod, T):
        img = _image(mod, T)
        plain = img.as_subclass(mod.Tensor)
        back = plain.as_subclass(T.Image)
        # a plain tensor's .to(image) stays plain
        other = mod.zeros(2).to(img)
        return _kind(plain), _kind(back), _kind(other), str(other.dtype)

    a, b = _both(fn)
    assert a == b


def test_gradients_flow_through_tvtensor():
    def fn(mod, T):
        x = mod.from_numpy(ARR.copy()).requires_grad_(True)
        img = T.Image(x)
        (img * img).sum().backward()
        return x.grad.numpy()

    a, b = _both(fn)
    np.testing.assert_array_equal(a, b)


def test_custom_tvtensor_subclass():
    def fn(mod, T):
        class Heatmap(T.TVTensor):
            pass

        h = mod.ones(2, 2).as_subclass(Heatmap)
        return _kind(h + 1), _kind(h.clone()), _kind(h.detach())

    a, b = _both(fn)
    assert a == b
