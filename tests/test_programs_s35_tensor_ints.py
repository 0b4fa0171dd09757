"""torch.tensor(list of ints, dtype=...) as minGPT's adder dataset calls it once per sample: the
int64 values skip the overflow scan only where every int64 fits the target, and narrower
targets still raise torch's overflow error."""

import pytest
import torch

import numtorch

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


def _outcome(lib, values, dtype_name):
    try:
        t = lib.tensor(values, dtype=getattr(lib, dtype_name))
    except (RuntimeError, OverflowError, ValueError) as e:
        return type(e).__name__, str(e).splitlines()[0]
    return str(t.dtype), t.tolist()


@pytest.mark.parametrize("dtype_name", INT_DTYPES)
@pytest.mark.parametrize("values", [
    [0, 1, 2, -1, 9],
    [127, -128],
    [128],
    [-129],
    [255],
    [40000],
    [-70000, 3],
    [2**31 - 1],
    [2**31],
    [-(2**31) - 1],
    [2**62, -(2**62)],
    [[1, 2], [3, -4]],
])
def test_tensor_int_list_matches_torch(values, dtype_name):
    assert _outcome(numtorch, values, dtype_name) == _outcome(torch, values, dtype_name)


@pytest.mark.parametrize("dtype_name", ["int64", "int32"])
def test_tensor_int_list_then_masked_write(dtype_name):
    # the adder's __getitem__: x, y from one digit list, then y's prompt masked with -1
    dix = [0, 4, 1, 3, 5, 5, 1]
    out = []
    for lib in (torch, numtorch):
        y = lib.tensor(dix[1:], dtype=getattr(lib, dtype_name))
        y[:3] = -1
        out.append((str(y.dtype).split(".")[-1], y.tolist()))
    assert out[0] == out[1]
