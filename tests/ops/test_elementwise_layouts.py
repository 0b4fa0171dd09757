"""Elementwise results laid out as torch's: like their operands (channels-last, transposed and
permuted inputs), on every device. NumPy's ufuncs keep their operands' layout; CuPy's allocate
row-major whatever the operands (an H200 run gave row-major relu and batch norm outputs of
channels-last images), so on a device numtorch lays such results out itself."""

import numpy as np
import pytest
import torch

import numtorch


def _inputs(lib):
    g = np.random.default_rng(0)
    img = lib.from_numpy(g.standard_normal((2, 3, 4, 5))).to(
        memory_format=lib.channels_last)
    mat = lib.from_numpy(g.standard_normal((4, 6))).t()
    cube = lib.from_numpy(g.standard_normal((2, 3, 4))).permute(2, 0, 1)
    return {"channels_last": img, "transposed": mat, "permuted": cube}


def F(lib):
    return lib.nn.functional


OPS = {
    "neg": lambda L, x: -x,
    "abs": lambda L, x: x.abs(),
    "exp": lambda L, x: x.exp(),
    "log1p_abs": lambda L, x: x.abs().log1p(),
    "sqrt_abs": lambda L, x: L.sqrt(x.abs()),
    "tanh": lambda L, x: x.tanh(),
    "sigmoid": lambda L, x: x.sigmoid(),
    "erf": lambda L, x: L.erf(x),
    "floor": lambda L, x: x.floor(),
    "sign": lambda L, x: x.sign(),
    "frac": lambda L, x: x.frac(),
    "pow_2": lambda L, x: x ** 2,
    "pow_2_5": lambda L, x: x.abs() ** 2.5,
    "div_scalar": lambda L, x: x / 3,
    "add_scalar": lambda L, x: x + 1,
    "relu": lambda L, x: F(L).relu(x),
    "leaky_relu": lambda L, x: F(L).leaky_relu(x, 0.1),
    "elu": lambda L, x: F(L).elu(x),
    "gelu": lambda L, x: F(L).gelu(x),
    "silu": lambda L, x: F(L).silu(x),
    "softplus": lambda L, x: F(L).softplus(x),
    "hardtanh": lambda L, x: F(L).hardtanh(x),
    "clamp": lambda L, x: x.clamp(-0.5, 0.5),
    "nan_to_num": lambda L, x: x.nan_to_num(),
    "i0e": lambda L, x: L.special.i0e(x),
    "logit": lambda L, x: L.logit(x.sigmoid()),
    "isnan": lambda L, x: x.isnan(),
    "signbit": lambda L, x: x.signbit(),
    "logical_not": lambda L, x: L.logical_not(x > 0),
    "where": lambda L, x: L.where(x > 0, x, 0.0),
    "float32": lambda L, x: x.float(),
}


@pytest.mark.parametrize("layout", ["channels_last", "transposed", "permuted"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_elementwise_results_keep_the_operands_layout_as_torch(name, layout):
    res = []
    for lib in (numtorch, torch):
        x = _inputs(lib)[layout]
        y = OPS[name](lib, x)
        res.append((y.stride(), y.is_contiguous(), y.dtype, y.cpu().numpy()))
    (sn, cn, dn, vn), (st, ct, dt, vt) = res
    assert (sn, cn) == (st, ct), (name, layout, sn, st)
    assert str(dn) == str(dt)
    np.testing.assert_allclose(vn, vt, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name", ["exp", "tanh", "relu", "gelu", "sigmoid", "pow_2"])
def test_gradients_of_channels_last_inputs_keep_their_layout(name):
    res = []
    for lib in (numtorch, torch):
        x = _inputs(lib)["channels_last"].requires_grad_()
        y = OPS[name](lib, x)
        g = lib.from_numpy(np.random.default_rng(1).standard_normal((2, 3, 4, 5)))
        y.backward(g.to(memory_format=lib.channels_last))
        res.append((y.stride(), x.grad.stride(), x.grad.cpu().numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-6, atol=1e-12)
