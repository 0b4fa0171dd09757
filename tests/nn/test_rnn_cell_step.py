"""nn.LSTMCell as one op (``ops.rnn_ops.lstm_step``) against torch: values and gradients in
float32 and float64, one input feature (the outer-product path), no bias, unbatched,
second order, and the composed fallback (other dtypes, autocast, ONNX recording)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops.rnn_ops import lstm_step
from tests.oracle import check_module, check_op, check_raises


def _cell(*args, **kw):
    return lambda t: t.nn.LSTMCell(*args, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("features", [1, 4])
@pytest.mark.parametrize("bias", [False, True])
def test_cell_matches_torch(dtype, features, bias):
    make = _cell(features, 5, bias=bias)
    check_module(make, [(3, features), (3, 5), (3, 5)], dtype=dtype,
                 forward=lambda m, x, h, c: m(x, (h, c)))


def test_cell_unbatched_and_zero_state():
    check_module(_cell(4, 5), [(4,)], dtype="float64")
    check_module(_cell(1, 3), [(6, 1)], dtype="float32")


def test_cell_loop_matches_torch():
    """Two stacked cells over time (time_sequence_prediction's shape of use)."""
    def forward(m, x):
        c1, c2 = m
        lib = numtorch if isinstance(x, numtorch.Tensor) else torch
        h = c = h2 = s2 = lib.zeros(x.shape[0], 3, dtype=x.dtype)
        outs = []
        for xt in x.split(1, dim=1):
            h, c = c1(xt, (h, c))
            h2, s2 = c2(h, (h2, s2))
            outs.append(h2)
        return lib.stack(outs, 1)
    check_module(lambda t: t.nn.ModuleList([t.nn.LSTMCell(1, 3), t.nn.LSTMCell(3, 3)]),
                 [(4, 6)], dtype="float64", forward=forward)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("features", [1, 3])
def test_step_second_order(bias, features):
    def fn(t, x, h, c, w_ih, w_hh, *b):
        if t is numtorch:
            return lstm_step(x, h, c, w_ih, w_hh, *b)
        return torch.lstm_cell(x, (h, c), w_ih, w_hh, *b)
    shapes = [(2, features), (2, 4), (2, 4), (16, features), (16, 4)]
    check_op(fn, shapes + ([(16,), (16,)] if bias else []), low=-1.0, high=1.0)


def test_step_gradients_of_some_inputs_only():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in [(2, 3), (2, 4), (2, 4), (16, 3), (16, 4),
                                               (16,), (16,)]]
    grads = {}
    for lib in (numtorch, torch):
        ts = [lib.tensor(a) for a in arrays]
        for k in (1, 4, 6):
            ts[k].requires_grad_(True)
        m = lib.nn.LSTMCell(3, 4).double()
        with lib.no_grad():
            for p, a in zip(m.parameters(), ts[3:]):
                p.copy_(a)
            m.weight_ih.requires_grad_(False)
            m.bias_ih.requires_grad_(False)
        h, c = m(ts[0], (ts[1], ts[2]))
        (h * 2 + c).sum().backward()
        grads[lib] = [ts[1].grad, m.weight_hh.grad, m.bias_hh.grad, m.weight_ih.grad]
    for a, b in zip(grads[numtorch][:3], grads[torch][:3]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert grads[numtorch][3] is None and grads[torch][3] is None


def test_cell_is_one_node_and_falls_back(device):
    cell = numtorch.nn.LSTMCell(3, 4)
    x = numtorch.randn(2, 3)
    h, c = cell(x)
    # on the CPU one node; on a GPU the composed ops (the gate math is one kernel there)
    assert (type(h.grad_fn).__name__ == type(c.grad_fn).__name__
            == "LSTMStepBackward0") == (device == "cpu")
    with numtorch.autocast("cpu", dtype=numtorch.bfloat16):  # casts the composed products
        h, _ = cell(x)
    assert "LSTMStep" not in type(h.grad_fn).__name__


@pytest.mark.parametrize("dtypes", [("float64", "float32", "float32"),
                                    ("float32", "float64", "float32")])
def test_cell_mixed_dtypes_error_as_torch(dtypes):
    def fn(t, x, h, c):
        return t.nn.LSTMCell(3, 4)(x, (h, c))
    shapes = [(2, 3), (2, 4), (2, 4)]
    nt_exc, th_exc = check_raises(fn, [np.zeros(s, d) for s, d in zip(shapes, dtypes)])
    assert str(nt_exc) == str(th_exc)
