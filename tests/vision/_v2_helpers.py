"""Running the same v2 pipeline on the same sample under torchvision and numtorchvision."""

import numpy as np
import torch
import torchvision  # noqa: F401  (conftest.py imported it with the register_fake shim)
from PIL import Image as PILImage

import numtorch


def libs():
    from torchvision import tv_tensors as tvt
    from torchvision.transforms import v2 as tv2

    from numtorchvision import tv_tensors as ntvt
    from numtorchvision.transforms import v2 as ntv2
    return (torch, tv2, tvt), (numtorch, ntv2, ntvt)


def build(spec, lib):
    """A sample from a spec: ("image", arr) / ("pure", arr) / ("mask", arr) / ("video", arr) /
    ("boxes", arr, fmt, (h, w)) / ("pil", arr) / ("label", arr) / other values as they are;
    containers recurse."""
    torch_mod, _, tvt = lib
    if isinstance(spec, dict):
        return {k: build(v, lib) for k, v in spec.items()}
    if isinstance(spec, list):
        return [build(v, lib) for v in spec]
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        kind, arr = spec[0], np.ascontiguousarray(spec[1])
        t = torch_mod.from_numpy(arr.copy())
        if kind == "image":
            return tvt.Image(t)
        if kind == "video":
            return tvt.Video(t)
        if kind == "mask":
            return tvt.Mask(t)
        if kind == "boxes":
            return tvt.BoundingBoxes(t, format=spec[2], canvas_size=spec[3])
        if kind == "keypoints":
            return tvt.KeyPoints(t, canvas_size=spec[2])
        if kind == "pil":
            return PILImage.fromarray(arr)
        return t  # "pure", "label"
    if isinstance(spec, tuple):
        return tuple(build(v, lib) for v in spec)
    return spec


def assert_same(a, b, atol=0.0, path="out"):
    """Same structure, kinds, dtypes, shapes, values and box metadata (or the same exception
    class and message)."""
    if isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b), (path, a, b)
        return
    if isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), path
        for k in b:
            assert_same(a[k], b[k], atol, f"{path}[{k!r}]")
        return
    if isinstance(b, (list, tuple)):
        assert type(a).__name__ == type(b).__name__ and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, atol, f"{path}[{i}]")
        return
    if isinstance(b, PILImage.Image):
        assert isinstance(a, PILImage.Image), (path, type(a))
        assert a.mode == b.mode and a.size == b.size, path
        np.testing.assert_allclose(np.asarray(a, dtype=np.float64),
                                   np.asarray(b, dtype=np.float64), atol=atol, err_msg=path)
        return
    if isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor), (path, type(a))
        assert type(a).__name__ == type(b).__name__, (path, type(a), type(b))
        assert str(a.dtype) == str(b.dtype), (path, a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape), (path, a.shape, b.shape)
        if type(b).__name__ == "KeyPoints":
            assert tuple(a.canvas_size) == tuple(b.canvas_size), (path, a.canvas_size,
                                                                  b.canvas_size)
        if type(b).__name__ == "BoundingBoxes":
            assert a.format.value == b.format.value, path
            assert tuple(a.canvas_size) == tuple(b.canvas_size), (path, a.canvas_size,
                                                                  b.canvas_size)
        np.testing.assert_allclose(a.detach().numpy().astype(np.float64),
                                   b.detach().numpy().astype(np.float64), atol=atol,
                                   rtol=0, err_msg=path)
        return
    assert a == b, (path, a, b)


def run_both(make, spec, seed=0, calls=1):
    """``make(v2, tv_tensors, torch_module)`` built in both libraries and called ``calls``
    times on the sample after ``manual_seed(seed)``; the outputs of both."""
    outs = []
    for lib in libs():
        torch_mod, v2, tvt = lib
        transform = make(v2, tvt, torch_mod)
        torch_mod.manual_seed(seed)
        results = []
        for _ in range(calls):
            try:
                results.append(transform(build(spec, lib)))
            except Exception as e:  # compared as torch's class and message
                results.append(e)
                break
        outs.append(results)
    return outs[1], outs[0]  # numtorch, torch


