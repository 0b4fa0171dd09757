"""Session 51: constant padding of an integer tensor with a fill outside its dtype's range
(v1/v2 pad of a uint8 image with fill=-1 or 300, F.pad(value=256.0)): torch refuses it
('value cannot be converted to type uint8_t without overflow'); numtorch wrapped the value
around. Oracle: torch / torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as TF1

import numtorch
import numtorchvision.transforms.functional as NF1

_VALUES = [255.5, 256.0, -0.5, -1.0, 7.5, 127.5, 128.0, -128.5, 32767.5, 32768.0, 2.0 ** 31,
           float("nan"), float("inf"), 2, True, None]


def _outcome(fn):
    try:
        r = fn()
    except RuntimeError as e:
        return "RuntimeError", str(e)
    return "ok", str(np.asarray(r.numpy()).tolist())  # (str: NaN compares equal)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "bool", "float32"])
def test_constant_pad_fill_range(dtype):
    for v in _VALUES:
        want = _outcome(lambda v=v: torch.nn.functional.pad(
            torch.zeros(1, 2, dtype=getattr(torch, dtype)), [1, 0], value=v))
        got = _outcome(lambda v=v: numtorch.nn.functional.pad(
            numtorch.zeros(1, 2, dtype=getattr(numtorch, dtype)), [1, 0], value=v))
        assert got == want, v


@pytest.mark.parametrize("fill", [-1, 300, 255, 0])
def test_v1_pad_uint8_fill(fill):
    x = torch.randint(0, 256, (3, 4, 5), dtype=torch.uint8,
                      generator=torch.Generator().manual_seed(0))
    want = _outcome(lambda: TF1.pad(x, [1, 2], fill=fill))
    got = _outcome(lambda: NF1.pad(numtorch.from_numpy(x.numpy().copy()), [1, 2], fill=fill))
    assert got == want
