"""Half-precision activations whose torch kernels round in a particular way (found by
experiment, see ops/_smooth_activation.py): float16 GELU (erf by the five-term Abramowitz &
Stegun form, in float32), float16 sigmoid backward (a float16 rounding after each step) and
float16/bfloat16 logsigmoid backward (exp(-|x|) rounded to the input's dtype). The values
must equal torch's bit for bit, on every float16 value where the input alone decides."""

import numpy as np
import pytest
import torch

import numtorch

pytest.importorskip("ml_dtypes")

_ALL_F16 = np.arange(65536, dtype=np.uint16).view(np.float16)
_ALL_F16 = _ALL_F16[np.isfinite(_ALL_F16)].astype(np.float32)


def _grads(name, dtype, x, g):
    out = []
    for lib in (numtorch, torch):
        a = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        y = getattr(lib.nn.functional, name)(a)
        y.backward(lib.tensor(g).to(getattr(lib, dtype)))
        out.append((y.detach().float().numpy(), a.grad.float().numpy()))
    return out


def _differ(a, b):
    return np.mean(~((a == b) | (np.isnan(a) & np.isnan(b))))


def test_float16_gelu_forward_every_value():
    (ours, _), (theirs, _) = _grads("gelu", "float16", _ALL_F16, np.ones_like(_ALL_F16))
    assert _differ(ours, theirs) == 0


@pytest.mark.parametrize("name,dtype,allowed", [
    ("gelu", "float16", 5e-4),  # NumPy's float32 exp differs from torch's in an ulp or so
    ("sigmoid", "float16", 0.0),
    ("logsigmoid", "float16", 0.0),
    ("logsigmoid", "bfloat16", 0.0),
    ("tanh", "float16", 0.0),
    ("tanh", "bfloat16", 0.0),
])
def test_half_backward_rounds_like_torch(name, dtype, allowed):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(50000) * 4).astype(np.float32)
    g = rng.standard_normal(50000).astype(np.float32)
    (y0, g0), (y1, g1) = _grads(name, dtype, x, g)
    assert _differ(y0, y1) <= 5e-4
    assert _differ(g0, g1) <= allowed, _differ(g0, g1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logsigmoid_backward_op_against_torch(dtype):
    from tests.oracle import check_op

    check_op(lambda t, x: t.nn.functional.logsigmoid(x), [(4, 7)], low=-30, high=30,
             dtype=dtype)
