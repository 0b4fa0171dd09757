"""The whole-sequence LSTM primitive (ops/rnn_ops.LSTMSequence) against torch: outputs, final
states, gradients of every input (random cotangents) and second order, forwards and reversed,
with and without a packed-sequence mask; and double backward through nn.LSTM's parameters."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops.rnn_ops import lstm_sequence
from tests.oracle import check_op

MASK = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]], bool)[:, :, None]  # lengths 4,3,2


def _torch_reference(xs, h, c, w, mask, reverse):
    """The layer written with torch's own ops, step by step."""
    outs = [None] * xs.shape[0]
    order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    for t in order:
        i, f, g, o = (xs[t] + h @ w.t()).chunk(4, -1)
        cn = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        hn = torch.sigmoid(o) * torch.tanh(cn)
        if mask is not None:
            m = torch.from_numpy(mask[t])
            hn, cn = torch.where(m, hn, h), torch.where(m, cn, c)
        h, c = hn, cn
        outs[t] = h
    return torch.stack(outs, 0), h, c


def _fn(mask, reverse):
    def fn(t, xs, h, c, w):
        if t is numtorch:
            return lstm_sequence(xs, h, c, w, mask=mask, reverse=reverse)
        return _torch_reference(xs, h, c, w, mask, reverse)
    return fn


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
def test_matches_torch(reverse, masked, second_order):
    # first order alone runs the NumPy backward; with second order the composed one
    check_op(_fn(MASK if masked else None, reverse), [(4, 3, 8), (3, 2), (3, 2), (8, 2)],
             second_order=second_order)


@pytest.mark.parametrize("steps,batch", [(1, 1), (6, 2)])
def test_shapes_and_float32(steps, batch):
    check_op(_fn(None, False), [(steps, batch, 12), (batch, 3), (batch, 3), (12, 3)],
             dtype="float32", second_order=False)


def test_outputs_do_not_alias_saved_state():
    rng = np.random.default_rng(0)
    xs, h, c, w = (numtorch.from_numpy(rng.standard_normal(s)).requires_grad_()
                   for s in [(3, 2, 8), (2, 2), (2, 2), (8, 2)])
    out, hn, cn = lstm_sequence(xs, h, c, w)
    g1 = numtorch.autograd.grad(out.sum() + hn.sum(), [xs, w], retain_graph=True)
    with numtorch.no_grad():
        out.mul_(0)
        hn.mul_(0)
    g2 = numtorch.autograd.grad(out.sum() + hn.sum(), [xs, w])
    for a, b in zip(g1, g2):
        assert numtorch.equal(a, b)


@pytest.mark.parametrize("packed", [False, True])
def test_lstm_double_backward_through_parameters(packed):
    rng = np.random.default_rng(3)
    ref = torch.nn.LSTM(3, 4, bidirectional=True).double()
    state = {k: rng.uniform(-0.6, 0.6, tuple(v.shape)) for k, v in ref.state_dict().items()}
    x = rng.standard_normal((4, 3, 3))
    cot = rng.standard_normal((4, 3, 8))
    u = {k: rng.standard_normal(v.shape) for k, v in state.items()}
    results = []
    for t in (numtorch, torch):
        m = t.nn.LSTM(3, 4, bidirectional=True).double()
        m.load_state_dict({k: t.from_numpy(v.copy()) for k, v in state.items()})
        xt = t.from_numpy(x.copy()).requires_grad_()
        inp = xt
        if packed:
            inp = t.nn.utils.rnn.pack_padded_sequence(xt, [4, 3, 2])
        out, _ = m(inp)
        if packed:
            out = t.nn.utils.rnn.pad_packed_sequence(out)[0]
        names = [n for n, _ in m.named_parameters()]
        params = [p for _, p in m.named_parameters()]
        gs = t.autograd.grad((out * t.from_numpy(cot)).sum(), params, create_graph=True)
        total = sum((g * t.from_numpy(u[n])).sum() for n, g in zip(names, gs))
        second = t.autograd.grad(total, [xt] + params)
        results.append([g.detach().numpy() for g in list(gs) + list(second)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
