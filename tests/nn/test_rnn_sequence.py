"""The whole-sequence recurrent primitives (ops/rnn_sequence: LSTM, GRU, Elman RNN) against
torch: outputs, final states, gradients of every input (random cotangents; first order alone
runs the NumPy backward, with second order the composed one), forwards and reversed, with and
without a packed-sequence mask; and double backward through the layers' parameters."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops.rnn_sequence import gru_sequence, lstm_sequence, rnn_sequence
from tests.oracle import check_op

MASK = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0]], bool)[:, :, None]  # lengths 4,3,2


def _torch_loop(xs, h, c, mask, reverse, step):
    """A layer written with torch's own ops, step by step."""
    outs = [None] * xs.shape[0]
    order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    for t in order:
        hn, cn = step(xs[t], h, c)
        if mask is not None:
            m = torch.from_numpy(mask[t])
            hn = torch.where(m, hn, h)
            cn = None if c is None else torch.where(m, cn, c)
        h, c = hn, cn
        outs[t] = h
    return torch.stack(outs, 0), h, c


def _lstm_step(w):
    def step(x, h, c):
        i, f, g, o = (x + h @ w.t()).chunk(4, -1)
        cn = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(cn), cn
    return step


def _gru_step(w, b):
    def step(x, h, c):
        gh = h @ w.t() if b is None else h @ w.t() + b
        xr, xz, xn = x.chunk(3, -1)
        hr, hz, hn = gh.chunk(3, -1)
        r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h, None
    return step


def _nt_mask(mask):
    return None if mask is None else numtorch.from_numpy(mask)


def _fn(mask, reverse, bias=True, proj=False):
    def fn(t, x, h, c, w_ih, w, *rest):
        b = rest[0] if bias else None
        w_hr = rest[-1] if proj else None
        if t is numtorch:
            return lstm_sequence(x, h, c, w_ih, w, b, w_hr, mask=_nt_mask(mask), reverse=reverse)
        xs = x @ w_ih.t() if b is None else x @ w_ih.t() + b
        step = _lstm_step(w)
        if proj:
            def step(x, h, c, inner=step):
                hn, cn = inner(x, h, c)
                return hn @ w_hr.t(), cn
        return _torch_loop(xs, h, c, mask, reverse, step)
    return fn


def _lstm_shapes(steps, batch, feat, hidden, bias=True, proj=0):
    p = proj or hidden
    return ([(steps, batch, feat), (batch, p), (batch, hidden), (4 * hidden, feat),
             (4 * hidden, p)] + ([(4 * hidden,)] if bias else [])
            + ([(proj, hidden)] if proj else []))


def _gru_fn(mask, reverse, bias):
    def fn(t, xs, h, w, *b):
        b = b[0] if bias else None
        if t is numtorch:
            return gru_sequence(xs, h, w, b, mask=_nt_mask(mask), reverse=reverse)
        return _torch_loop(xs, h, None, mask, reverse, _gru_step(w, b))[:2]
    return fn


def _rnn_fn(mask, reverse, act):
    def fn(t, xs, h, w):
        if t is numtorch:
            return rnn_sequence(xs, h, w, act, mask=_nt_mask(mask), reverse=reverse)
        f = torch.tanh if act == "tanh" else torch.relu
        return _torch_loop(xs, h, None, mask, reverse,
                           lambda x, h, c: (f(x + h @ w.t()), None))[:2]
    return fn


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("feat,hidden", [(5, 2), (2, 4)])  # input projected apart / inline
def test_matches_torch(reverse, masked, second_order, feat, hidden):
    # first order alone runs the NumPy backward; with second order the composed one
    check_op(_fn(MASK if masked else None, reverse), _lstm_shapes(4, 3, feat, hidden),
             second_order=second_order)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("feat", [1, 5])  # input inline in the recurrent GEMM / projected apart
def test_lstm_projection_matches_torch(reverse, masked, second_order, bias, feat):
    check_op(_fn(MASK if masked else None, reverse, bias=bias, proj=True),
             _lstm_shapes(4, 3, feat, 4, bias=bias, proj=3), second_order=second_order)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("feat,hidden", [(5, 2), (2, 4)])
def test_lstm_without_bias(reverse, feat, hidden):
    check_op(_fn(None, reverse, bias=False), _lstm_shapes(4, 3, feat, hidden, bias=False),
             second_order=False)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_gru_matches_torch(reverse, masked, second_order, bias):
    shapes = [(4, 3, 6), (3, 2), (6, 2)] + ([(6,)] if bias else [])
    check_op(_gru_fn(MASK if masked else None, reverse, bias), shapes,
             second_order=second_order)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_rnn_matches_torch(reverse, masked, second_order, act):
    check_op(_rnn_fn(MASK if masked else None, reverse, act), [(4, 3, 2), (3, 2), (2, 2)],
             second_order=second_order)


@pytest.mark.parametrize("steps,batch", [(1, 1), (6, 2)])
def test_shapes_and_float32(steps, batch):
    check_op(_fn(None, False), _lstm_shapes(steps, batch, 4, 3), dtype="float32",
             second_order=False)
    check_op(_gru_fn(None, True, True), [(steps, batch, 9), (batch, 3), (9, 3), (9,)],
             dtype="float32", second_order=False)
    check_op(_rnn_fn(None, False, "tanh"), [(steps, batch, 3), (batch, 3), (3, 3)],
             dtype="float32", second_order=False)


def test_outputs_do_not_alias_saved_state():
    rng = np.random.default_rng(0)
    xs, h, c, w_ih, w = (numtorch.from_numpy(rng.standard_normal(s)).requires_grad_()
                         for s in _lstm_shapes(3, 2, 4, 2, bias=False))
    out, hn, cn = lstm_sequence(xs, h, c, w_ih, w)
    g1 = numtorch.autograd.grad(out.sum() + hn.sum(), [xs, w], retain_graph=True)
    with numtorch.no_grad():
        out.mul_(0)
        hn.mul_(0)
    g2 = numtorch.autograd.grad(out.sum() + hn.sum(), [xs, w])
    for a, b in zip(g1, g2):
        assert numtorch.equal(a, b)


def _layer(t, kind):
    if kind == "LSTM_proj":
        return t.nn.LSTM(3, 4, proj_size=2, bidirectional=True).double()
    return getattr(t.nn, kind)(3, 4, bidirectional=True).double()


@pytest.mark.parametrize("kind", ["LSTM", "LSTM_proj", "GRU", "RNN"])
@pytest.mark.parametrize("packed", [False, True])
def test_double_backward_through_parameters(kind, packed):
    rng = np.random.default_rng(3)
    ref = _layer(torch, kind)
    state = {k: rng.uniform(-0.6, 0.6, tuple(v.shape)) for k, v in ref.state_dict().items()}
    x = rng.standard_normal((4, 3, 3))
    cot = rng.standard_normal((4, 3, 4 if kind == "LSTM_proj" else 8))
    u = {k: rng.standard_normal(v.shape) for k, v in state.items()}
    results = []
    for t in (numtorch, torch):
        m = _layer(t, kind)
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


@pytest.mark.parametrize("reduce", ["sum", "mean", "last_step"])
@pytest.mark.parametrize("batch_first,bidirectional", [(False, True), (True, False)])
def test_lstm_gradients_of_broadcast_and_strided_output_gradients(reduce, batch_first,
                                                                  bidirectional):
    """``out.sum()``/``out.mean()`` send a broadcast gradient (kept as a view by the backward)
    and a batch-first layout a strided one; gradients equal torch's."""
    rng = np.random.default_rng(7)
    x0 = rng.standard_normal((3, 5, 4) if batch_first else (5, 3, 4)).astype(np.float32)
    got = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        m = lib.nn.LSTM(4, 6, batch_first=batch_first, bidirectional=bidirectional)
        if lib is numtorch:
            with numtorch.no_grad():
                for p, q in zip(m.parameters(), got[0][1]):
                    p.copy_(numtorch.tensor(q))
        x = lib.tensor(x0, requires_grad=True)
        out = m(x)[0]
        loss = {"sum": out.sum(), "mean": out.mean(),
                "last_step": (out[:, -1] if batch_first else out[-1]).sum()}[reduce]
        loss.backward()
        got.append(([x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()],
                    [p.detach().numpy() for p in m.parameters()]))
    for a, b in zip(got[1][0], got[0][0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
