"""Methods that take sizes or dims as ``*args`` also take them by keyword, as torch's do
(``x.flip(dims=[1])``, ``x.view(size=(3, 2))``, ``torch.permute(x, dims=(1, 0))``)."""

import numpy as np
import pytest
import torch

import numtorch

CASES = {
    "flip": lambda t, x: x.flip(dims=[1]),
    "torch.flip": lambda t, x: t.flip(x, dims=(1,)),
    "permute": lambda t, x: x.permute(dims=(1, 0)),
    "torch.permute": lambda t, x: t.permute(x, dims=(1, 0)),
    "reshape": lambda t, x: x.reshape(shape=(3, 2)),
    "torch.reshape": lambda t, x: t.reshape(x, shape=(3, 2)),
    "view": lambda t, x: x.view(size=(3, 2)),
    "view dtype": lambda t, x: x.view(dtype=t.int32),
    "expand": lambda t, x: x[:1].expand(size=(4, 3)),
    "repeat": lambda t, x: x.repeat(repeats=(2, 1)),
    "tile": lambda t, x: x.tile(dims=(2,)),
    "new_zeros": lambda t, x: x.new_zeros(size=(2,)),
    "new_ones": lambda t, x: x.new_ones(size=(2,), dtype=t.int64),
    "new_empty": lambda t, x: x.new_empty(size=(2, 1)).shape,
    "resize_": lambda t, x: x.clone().resize_(size=(6,)),
    "sum_to_size": lambda t, x: x.sum_to_size(size=(1, 3)),
}


def _as_np(v):
    return np.asarray(v.tolist()) if hasattr(v, "tolist") else np.asarray(tuple(v))


@pytest.mark.parametrize("name", CASES)
def test_size_keyword_matches_torch(name):
    fn = CASES[name]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = fn(numtorch, numtorch.from_numpy(a.copy()))
    want = fn(torch, torch.from_numpy(a.copy()))
    if hasattr(want, "dtype"):
        assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(_as_np(got), _as_np(want))


@pytest.mark.parametrize("call", [
    lambda t, x: x.flip(1, dims=[1]),
    lambda t, x: x.flip(axes=[1]),
    lambda t, x: x.view(shape=(3, 2)),
])
def test_bad_keywords_raise_type_error_as_torch(call):
    x = numtorch.ones(2, 3)
    with pytest.raises(TypeError):
        call(torch, torch.ones(2, 3))
    with pytest.raises(TypeError):
        call(numtorch, x)
