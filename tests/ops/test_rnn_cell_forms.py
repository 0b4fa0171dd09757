"""torch's functional recurrent cells (``torch.lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``,
``rnn_relu_cell``) against torch: values, gradients (random cotangents, second order), the
fused LSTM step, and every argument check with torch's class, message and order."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops.rnn_ops import LSTMStep
from tests.oracle import check_op, same

H = 5
CELLS = [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)]


def _arr(*shape, seed=[0]):
    seed[0] += 1
    return np.random.default_rng(seed[0]).uniform(-1, 1, shape)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", ["both", "none", "ih"])
def test_lstm_cell_values_and_gradients(dtype, bias):
    b = {"both": (_arr(20), _arr(20)), "none": (None, None), "ih": (_arr(20), None)}[bias]
    arrays = [_arr(3, 4), _arr(3, H), _arr(3, H), _arr(20, 4), _arr(20, H)]
    arrays += [a for a in b if a is not None]

    def fn(t, x, h, c, wi, wh, *bs):
        bs = bs + (None,) * (2 - len(bs))
        return t.lstm_cell(x, (h, c), wi, wh, *bs)
    check_op(fn, arrays, dtype=dtype)


def test_lstm_cell_is_one_node_on_plain_arrays(device):
    """On NumPy arrays one ``LSTMStep`` node; on CUDA the products and the gate kernel."""
    args = [numtorch.tensor(_arr(*s), dtype=numtorch.float32, requires_grad=True)
            for s in ((3, 4), (3, H), (3, H), (20, 4), (20, H), (20,), (20,))]
    h, c = numtorch.lstm_cell(args[0], args[1:3], *args[3:])
    assert isinstance(h.grad_fn, LSTMStep) == (device == "cpu")
    assert h.dtype is numtorch.float32


def test_lstm_cell_composite_forms():
    """A 2-D bias and a float64 cell state with float32 products (torch promotes) take the
    composed path."""
    x, h, c, wi, wh = _arr(3, 4), _arr(3, H), _arr(3, H), _arr(20, 4), _arr(20, H)
    check_op(lambda t, x, h, c, wi, wh, b: t.lstm_cell(x, (h, c), wi, wh, b, None),
             [x, h, c, wi, wh, _arr(1, 20)])
    check_op(lambda t, x, h, c, wi, wh: t.lstm_cell(x.float(), (h.float(), c), wi.float(),
                                                    wh.float()),
             [x, h, c, wi, wh], second_order=False, atol=1e-5, rtol=1e-5)


def _cases(G):
    R = lambda *s: _arr(*s).astype(np.float32)  # noqa: E731
    hx = (lambda b, n: (R(b, n), R(b, n))) if G == 4 else (lambda b, n: R(b, n))
    base = dict(x=R(3, 4), hx=hx(3, H), wi=R(G * H, 4), wh=R(G * H, H), bi=R(G * H),
                bh=R(G * H))
    changes = {
        "1-D input": dict(x=R(4)), "3-D input": dict(x=R(1, 3, 4)),
        "1-D states": dict(hx=(R(H), R(H)) if G == 4 else R(H)),
        "input width": dict(wi=R(G * H, 3)), "batch": dict(hx=hx(2, H)),
        "hidden": dict(hx=hx(3, H + 1)), "bias_ih": dict(bi=R(G * H + 1)),
        "both biases": dict(bi=R(G * H + 1), bh=R(G * H + 2)),
        "w_ih rows": dict(wi=R(G * H + 1, 4)), "w_hh rows": dict(wh=R(G * H + 1, H)),
        "w_hh cols": dict(wh=R(G * H, H + 1)), "1-D w_ih": dict(wi=R(G * H * 4)),
        "input and weights": dict(x=R(3, 3), wi=R(G * H + 1, 4)),
        "states and weights": dict(hx=hx(2, H), wh=R(G * H + 1, H)),
        "float64 input": dict(x=R(3, 4).astype(np.float64)),
        "float64 input, no bias": dict(x=R(3, 4).astype(np.float64), bi=None, bh=None),
        "float64 state, no bias": dict(hx=(R(3, H).astype(np.float64), R(3, H)) if G == 4
                                       else R(3, H).astype(np.float64), bi=None, bh=None),
        "float64 input and bias_ih": dict(x=R(3, 4).astype(np.float64),
                                          bi=R(G * H).astype(np.float64)),
        "integer input": dict(x=np.ones((3, 4), np.int64)),
        "empty batch": dict(x=R(0, 4), hx=hx(0, H)),
    }
    if G == 4:
        changes["one state"] = dict(hx=(R(3, H),))
        changes["one state, bad input"] = dict(hx=(R(3, H),), x=R(3, 3))
        changes["cell batch"] = dict(hx=(R(3, H), R(2, H)))
        changes["cell width"] = dict(hx=(R(3, H), R(3, H + 1)))
    return {k: {**base, **v} for k, v in changes.items()}


@pytest.mark.parametrize("name,G", CELLS)
def test_cell_argument_checks_match_torch(name, G):
    for label, a in _cases(G).items():
        def fn(lib, a=a):
            t = lambda v: None if v is None else lib.tensor(v)  # noqa: E731
            hx = tuple(t(s) for s in a["hx"]) if isinstance(a["hx"], tuple) else t(a["hx"])
            return getattr(lib, name)(t(a["x"]), hx, t(a["wi"]), t(a["wh"]), t(a["bi"]),
                                      t(a["bh"]))
        try:
            same(fn, rtol=1e-5, atol=1e-5)
        except AssertionError as e:
            raise AssertionError(f"{name}, {label}: {e}") from None
