"""Helpers for the DatasetsA tests: build small datasets in the real on-disk formats and
compare numtorchvision's reading of them with torchvision's (every item, attributes,
errors)."""

import os
import pathlib

import numpy as np
import pytest
import torch
from PIL import Image

import numtorch

from ._helpers import assert_same_image


def same(x, y, where="item"):
    """Recursive equality of what two datasets return: PIL images by pixels, tensors by
    values and dtype (numtorch against torch), containers element-wise and by type."""
    if isinstance(y, Image.Image):
        assert_same_image(x, y)
    elif isinstance(y, torch.Tensor):
        assert isinstance(x, numtorch.Tensor), (where, type(x))
        assert str(x.dtype) == str(y.dtype) and tuple(x.shape) == tuple(y.shape), (
            where, x.dtype, y.dtype, x.shape, y.shape)
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=where)
    elif isinstance(y, np.ndarray):
        assert isinstance(x, np.ndarray) and x.dtype == y.dtype, (where, type(x))
        np.testing.assert_array_equal(x, y, err_msg=where)
    elif isinstance(y, (list, tuple)):
        assert type(x) is type(y) and len(x) == len(y), (where, type(x), type(y), x, y)
        for i, (u, v) in enumerate(zip(x, y)):
            same(u, v, f"{where}[{i}]")
    elif isinstance(y, dict):
        assert type(x) is type(y) and list(x) == list(y), (where, x, y)
        for k in y:
            same(x[k], y[k], f"{where}[{k!r}]")
    else:
        assert type(x) is type(y) and x == y, (where, x, y)


def same_dataset(a, b, attrs=(), repr_too=True):
    """Equal length, every item, the named attributes and (optionally) the repr."""
    assert len(a) == len(b), (len(a), len(b))
    assert len(b) > 0
    for i in range(len(b)):
        same(a[i], b[i], f"item {i}")
    for name in attrs:
        same(getattr(a, name), getattr(b, name), name)
    if repr_too:
        assert repr(a) == repr(b)


def same_error(make_a, make_b, prefix=True):
    """Both raise the same exception class; numtorchvision's message is torchvision's (or
    starts with it: ours may add which file is missing)."""
    with pytest.raises(Exception) as eb:
        make_b()
    with pytest.raises(type(eb.value)) as ea:
        make_a()
    got, want = str(ea.value), str(eb.value)
    assert got.startswith(want) if prefix else got == want, (got, want)
    return ea.value


def image(path, seed=0, size=(9, 11), mode="RGB"):
    """Write a small random image (format from the suffix) and return its path."""
    rng = np.random.default_rng(seed)
    shape = size if mode == "L" else (*size, len(mode))
    arr = rng.integers(0, 256, size=shape).astype(np.uint8)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr, mode).save(path)
    return path


def text(path, content):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def mat(path, **arrays):
    import scipy.io

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scipy.io.savemat(os.fspath(path), arrays)
    return path


def patch_md5(monkeypatch, classes, attr, value):
    """Set the class attribute ``attr`` to ``value`` on every class in ``classes``."""
    for cls in classes:
        monkeypatch.setattr(cls, attr, value)
