"""Signed zeros as torch: relu, clamp and the ELU family keep the input's -0. where torch
does. NumPy's maximum/minimum give their second operand on ties and clip with one bound runs
them, so numtorch orders the operands (and bounds) to keep torch's sign; CUDA's max/min order
+0. above -0. whatever the operands' order, so device arrays take a two-bound clip or a
selection instead (tests/cuda/standin follows CUDA's rule). A printed tensor shows the sign
(tensor([-0.]) against tensor([0.])). torch.maximum/minimum themselves are left as NumPy's:
torch's own tie rule differs between its vectorised body and its scalar tail."""

import pytest
import torch

import numtorch


def _signs(t):
    # the sign of every zero and where the NaNs are (expm1 may differ in the last bit)
    return [repr(v) if v == 0 or v != v else round(v, 5) for v in t.tolist()]


def _values(lib, n):
    base = [-0.0, 0.0, -1e-30, 2.5, -3.0, float("nan")]
    return lib.tensor((base * (n // len(base) + 1))[:n])


CASES = {
    "relu": lambda L, x: L.relu(x),
    "F.relu_inplace": lambda L, x: L.nn.functional.relu(x.clone(), inplace=True),
    "relu_": lambda L, x: x.clone().relu_(),
    "ReLU": lambda L, x: L.nn.ReLU()(x),
    "elu": lambda L, x: L.nn.functional.elu(x),
    "selu": lambda L, x: L.nn.functional.selu(x),
    "celu": lambda L, x: L.nn.functional.celu(x, 0.7),
    "elu_inplace": lambda L, x: L.nn.functional.elu(x.clone(), inplace=True),
    "clamp_min": lambda L, x: x.clamp(min=0),
    "clamp_max": lambda L, x: x.clamp(max=-0.0),
    "clamp_both": lambda L, x: x.clamp(0, 0),
    "clamp_min_": lambda L, x: x.clone().clamp_min_(0.0),
    "clamp_max_fn": lambda L, x: L.clamp_max(x, 0.0),
    "clip_min": lambda L, x: x.clip(min=0.0),
    "clamp_tensor_bounds": lambda L, x: L.clamp(x, min=L.zeros(()), max=L.ones(())),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, 0.0, 1.0),
    "relu6": lambda L, x: L.nn.functional.relu6(x),
    "leaky_relu_negative_slope": lambda L, x: L.nn.functional.leaky_relu(x, -0.5),
    "leaky_relu_steep": lambda L, x: L.nn.functional.leaky_relu(x, 2.0),
}


@pytest.mark.parametrize("n", [6, 70000])  # NumPy's scalar and vectorised loops
@pytest.mark.parametrize("name", sorted(CASES))
def test_signed_zeros_as_torch(name, n):
    got = [_signs(CASES[name](lib, _values(lib, n))[:6]) for lib in (numtorch, torch)]
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_printed_relu_of_negative_zero(dtype):
    outs = [str(lib.relu(-lib.zeros(2, dtype=getattr(lib, dtype), device="cpu")))
            .replace("numtorch", "torch")
            for lib in (numtorch, torch)]
    assert outs[0] == outs[1]
