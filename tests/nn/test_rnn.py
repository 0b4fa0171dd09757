"""Recurrent layers against torch: RNN/LSTM/GRU (layers, directions, layouts, unbatched,
initial states, packed input, dropout, projections), the cells, and the pack/pad utilities."""

import math

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises, load_torch_state, same

KINDS = ["RNN", "RNN_relu", "LSTM", "GRU"]


def _make(kind, *args, **kw):
    def make(t):
        if kind == "RNN_relu":
            return t.nn.RNN(*args, nonlinearity="relu", **kw)
        return getattr(t.nn, kind)(*args, **kw)
    return make


def _lib(x):
    return numtorch if isinstance(x, numtorch.Tensor) else torch


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_layers_match_torch(kind, layers, bidirectional, batch_first):
    make = _make(kind, 4, 5, layers, batch_first=batch_first, bidirectional=bidirectional)
    check_module(make, [(3, 2, 4)], dtype="float64")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_unbatched_and_float32(kind, bidirectional):
    make = _make(kind, 4, 5, 2, bidirectional=bidirectional)
    check_module(make, [(6, 4)], dtype="float32")
    check_module(make, [(3, 2, 4)], dtype="float32", seed=3)


@pytest.mark.parametrize("kind", ["RNN", "GRU"])
@pytest.mark.parametrize("batched", [False, True])
def test_initial_state(kind, batched):
    make = _make(kind, 4, 5, 2, bidirectional=True, batch_first=True)
    shapes = [(2, 3, 4), (4, 2, 5)] if batched else [(3, 4), (4, 5)]
    check_module(make, shapes, dtype="float64")


@pytest.mark.parametrize("proj", [0, 3])
@pytest.mark.parametrize("batched", [False, True])
def test_lstm_initial_state_and_projection(proj, batched):
    make = _make("LSTM", 4, 5, 2, bidirectional=True, proj_size=proj)
    h = proj or 5
    shapes = [(3, 2, 4), (4, 2, h), (4, 2, 5)] if batched else [(3, 4), (4, h), (4, 5)]
    check_module(make, shapes, dtype="float64", forward=lambda m, x, h0, c0: m(x, (h0, c0)))
    check_module(make, shapes[:1], dtype="float64")


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_no_bias(kind):
    check_module(_make(kind, 4, 5, 2, bias=False), [(3, 2, 4)], dtype="float64")


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_eval_and_full_dropout(kind):
    # eval: dropout is off; p=1 in training zeroes the layer-2 input deterministically
    check_module(_make(kind, 4, 5, 2, dropout=0.5), [(3, 2, 4)], dtype="float64", train=False)
    check_module(_make(kind, 4, 5, 2, dropout=1.0), [(3, 2, 4)], dtype="float64", train=True)


def test_dropout_training_changes_output():
    m = numtorch.nn.GRU(4, 6, 2, dropout=0.5)
    x = numtorch.randn(5, 3, 4)
    m.eval()
    ref = m(x)[0]
    m.train()
    assert not numtorch.allclose(m(x)[0], ref)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_second_order(kind):
    rng = np.random.default_rng(1)
    th = _make(kind, 3, 4, 1, bidirectional=True)(torch).double()
    state = {k: rng.uniform(-0.5, 0.5, tuple(v.shape)) for k, v in th.state_dict().items()}

    def fn(t, x):
        m = _make(kind, 3, 4, 1, bidirectional=True)(t).double()
        m.load_state_dict({k: t.from_numpy(v.copy()) for k, v in state.items()})
        for p in m.parameters():
            p.requires_grad_(False)
        out, h = m(x)
        return out, (h[0] if kind == "LSTM" else h)
    check_op(fn, [(3, 2, 3)])


@pytest.mark.parametrize("shape", [(1, 3), (4, 2, 3)])
def test_unbind_steps(shape):
    from numtorch.ops.rnn_ops import unbind_steps
    check_op(lambda t, x: unbind_steps(x) if t is numtorch else x.unbind(0), [shape])


def _packed_forward(lengths, enforce_sorted, with_state=False):
    def forward(m, x, *h):
        lib = _lib(x)
        ru = lib.nn.utils.rnn
        p = ru.pack_padded_sequence(x, lengths, batch_first=m.batch_first,
                                    enforce_sorted=enforce_sorted)
        if with_state:
            out, hn = m(p, h[0] if len(h) == 1 else tuple(h))
        else:
            out, hn = m(p)
        padded, lens = ru.pad_packed_sequence(out, batch_first=m.batch_first)
        return out, padded, lens, hn
    return forward


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("sorted_", [True, False])
def test_packed_input(kind, bidirectional, sorted_):
    lengths = [5, 3, 2] if sorted_ else [3, 5, 2]
    make = _make(kind, 4, 5, 2, bidirectional=bidirectional, batch_first=not sorted_)
    shape = (5, 3, 4) if sorted_ else (3, 5, 4)
    check_module(make, [shape], dtype="float64", forward=_packed_forward(lengths, sorted_))


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_packed_input_with_state(kind):
    make = _make(kind, 4, 5, 1, bidirectional=True)
    shapes = [(4, 3, 4), (2, 3, 5)] + ([(2, 3, 5)] if kind == "LSTM" else [])
    check_module(make, shapes, dtype="float64",
                 forward=_packed_forward([2, 4, 1], False, with_state=True))


def test_lstm_projection_packed():
    make = _make("LSTM", 4, 6, 2, proj_size=2, bidirectional=True)
    check_module(make, [(4, 3, 4)], dtype="float64", forward=_packed_forward([4, 4, 1], True))


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_cells(kind, batched, bias):
    make = _make(kind, 4, 5, bias=bias)
    x = (3, 4) if batched else (4,)
    h = (3, 5) if batched else (5,)
    check_module(make, [x], dtype="float64")
    if kind == "LSTMCell":
        check_module(make, [x, h, h], dtype="float64", forward=lambda m, a, b, c: m(a, (b, c)))
    else:
        check_module(make, [x, h], dtype="float64")


def test_relu_cell():
    check_module(lambda t: t.nn.RNNCell(4, 5, nonlinearity="relu"), [(3, 4), (3, 5)],
                 dtype="float64")


@pytest.mark.parametrize("make", [
    lambda t: t.nn.LSTM(4, 5, 2, bidirectional=True, proj_size=3),
    lambda t: t.nn.GRU(3, 4, 3, bias=False, batch_first=True),
    lambda t: t.nn.RNN(3, 4, nonlinearity="relu", dropout=0.2, num_layers=2),
    lambda t: t.nn.LSTMCell(3, 4), lambda t: t.nn.RNNCell(3, 4, nonlinearity="relu"),
])
def test_parameters_init_and_repr(make):
    th, nt = make(torch), make(numtorch)
    assert repr(nt) == repr(th)
    th_shapes = {k: tuple(v.shape) for k, v in th.state_dict().items()}
    nt_shapes = {k: tuple(v.shape) for k, v in nt.state_dict().items()}
    assert list(nt_shapes) == list(th_shapes) and nt_shapes == th_shapes
    bound = 1 / math.sqrt(th.hidden_size)
    vals = np.concatenate([p.detach().numpy().ravel() for p in nt.parameters()])
    assert np.abs(vals).max() <= bound and np.abs(vals).max() > 0.8 * bound
    assert abs(vals.mean()) < 0.3 * bound
    if hasattr(th, "_flat_weights_names"):
        assert nt._flat_weights_names == th._flat_weights_names
        assert nt._all_weights == th._all_weights
        nt.flatten_parameters()


@pytest.mark.parametrize("fn, arrays", [
    (lambda t, x: t.nn.LSTM(4, 5)(x), [np.zeros((3, 2, 5), np.float32)]),
    (lambda t, x: t.nn.GRU(4, 5, batch_first=True)(x), [np.zeros((2, 5), np.float32)]),
    (lambda t, x: t.nn.RNN(4, 5)(x), [np.zeros((1, 3, 2, 4), np.float32)]),
    (lambda t, x, h: t.nn.RNN(4, 5)(x, h),
     [np.zeros((3, 2, 4), np.float32), np.zeros((2, 2, 5), np.float32)]),
    (lambda t, x, h: t.nn.GRU(4, 5, bidirectional=True)(x, h),
     [np.zeros((3, 2, 4), np.float32), np.zeros((2, 3, 5), np.float32)]),
    (lambda t, x, h: t.nn.RNN(4, 5)(x, h),
     [np.zeros((3, 2, 4), np.float32), np.zeros((2, 5), np.float32)]),
    (lambda t, x, h: t.nn.RNN(4, 5)(x, h),
     [np.zeros((3, 4), np.float32), np.zeros((1, 2, 5), np.float32)]),
    (lambda t, x, h, c: t.nn.LSTM(4, 5, 2)(x, (h, c)),
     [np.zeros((3, 2, 4), np.float32), np.zeros((1, 2, 5), np.float32),
      np.zeros((2, 2, 5), np.float32)]),
    (lambda t, x, h, c: t.nn.LSTM(4, 5, 2)(x, (h, c)),
     [np.zeros((3, 2, 4), np.float32), np.zeros((2, 2, 5), np.float32),
      np.zeros((2, 3, 5), np.float32)]),
    (lambda t, x: t.nn.RNNCell(4, 5)(x), [np.zeros((3, 5), np.float32)]),
    (lambda t, x: t.nn.GRUCell(4, 5)(x), [np.zeros((1, 3, 4), np.float32)]),
    (lambda t, x, h: t.nn.GRUCell(4, 5)(x, h),
     [np.zeros((3, 4), np.float32), np.zeros((2, 5), np.float32)]),
    (lambda t, x, h, c: t.nn.LSTMCell(4, 5)(x, (h, c)),
     [np.zeros((3, 4), np.float32), np.zeros((3, 5), np.float32),
      np.zeros((2, 5), np.float32)]),
    (lambda t, x: t.nn.RNNCell(4, 5, nonlinearity="x")(x), [np.zeros((3, 4), np.float32)]),
    (lambda t, x, h: t.nn.RNNCell(4, 5)(x, h),
     [np.zeros((4,), np.float32), np.zeros((2, 5), np.float32)]),
    (lambda t, x, h: t.nn.RNNCell(4, 5)(x, h),
     [np.zeros((3, 4), np.float32), np.zeros((5,), np.float32)]),
    (lambda t, x, h: t.nn.RNNCell(4, 5)(x, h),
     [np.zeros((3, 4), np.float32), np.zeros((3, 6), np.float32)]),
])
def test_bad_input(fn, arrays):
    nt_exc, th_exc = check_raises(fn, arrays)
    assert str(nt_exc) == str(th_exc)


@pytest.mark.parametrize("fn", [
    lambda t: t.nn.RNN(4, 5, nonlinearity="sigmoid"),
    lambda t: t.nn.LSTM(4, 5, dropout=1.5),
    lambda t: t.nn.GRU(4, 0),
    lambda t: t.nn.LSTM(4, 5, proj_size=5),
    lambda t: t.nn.LSTM(4, 5, num_layers=0),
    lambda t: t.nn.LSTM(4, 5, proj_size=-1),
])
def test_bad_constructor(fn):
    nt_exc, th_exc = check_raises(fn)
    assert str(nt_exc) == str(th_exc)


def test_dropout_single_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        numtorch.nn.LSTM(4, 5, dropout=0.3)


# ---------------------------------------------------------------- pack / pad utilities

@pytest.mark.parametrize("lengths", [[4, 2, 2, 1], [1, 4, 3, 2], [3, 3, 3, 3]])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_roundtrip(lengths, batch_first):
    x = np.random.default_rng(0).standard_normal((4, 4, 3))
    srt = lengths == sorted(lengths, reverse=True)

    def fn(t):
        ru = t.nn.utils.rnn
        p = ru.pack_padded_sequence(t.from_numpy(x.copy()), t.tensor(lengths),
                                    batch_first=batch_first, enforce_sorted=srt)
        assert isinstance(p, tuple) and type(p).__name__ == "PackedSequence"
        padded = ru.pad_packed_sequence(p, batch_first=batch_first, padding_value=-2.0,
                                        total_length=6)
        # torch's unpad_sequence transposes its argument in place: use a copy
        return (tuple(p), padded, ru.unpack_sequence(p),
                ru.unpad_sequence(padded[0].clone(), padded[1], batch_first=batch_first))

    same(fn)


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_and_pack_sequence(side, batch_first):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((n, 2)) for n in (2, 5, 3)]

    def fn(t):
        seqs = [t.from_numpy(a.copy()) for a in arrays]
        ru = t.nn.utils.rnn
        return (ru.pad_sequence(seqs, batch_first, 7.0, side),
                tuple(ru.pack_sequence(seqs, enforce_sorted=False)))

    same(fn)


def test_pack_gradient():
    def fn(t, x):
        ru = t.nn.utils.rnn
        p = ru.pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False)
        return ru.pad_packed_sequence(p, padding_value=1.5)[0] * 2
    check_op(fn, [(3, 3, 2)])


@pytest.mark.parametrize("fn", [
    lambda t, x: t.nn.utils.rnn.pack_padded_sequence(x, [2, 3]),
    lambda t, x: t.nn.utils.rnn.pack_padded_sequence(x, [3, 0]),
    lambda t, x: t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_padded_sequence(x, [3, 2]), total_length=2),
])
def test_pack_errors(fn):
    nt_exc, th_exc = check_raises(fn, [np.zeros((3, 2, 4), np.float32)])
    assert str(nt_exc) == str(th_exc)


def test_packed_sequence_methods():
    p = numtorch.nn.utils.rnn.pack_sequence([numtorch.ones(3, 2), numtorch.ones(2, 2)])
    assert p.double().data.dtype == numtorch.float64
    assert p.float().data.dtype == numtorch.float32
    assert not p.is_cuda and p.sorted_indices is None and p.unsorted_indices is None


def test_state_dict_load_and_outputs():
    th = torch.nn.LSTM(3, 4, 2, bidirectional=True)
    nt = numtorch.nn.LSTM(3, 4, 2, bidirectional=True)
    load_torch_state(nt, th)
    x = np.random.default_rng(5).standard_normal((5, 2, 3)).astype(np.float32)
    (o1, (h1, c1)), (o2, (h2, c2)) = nt(numtorch.from_numpy(x)), th(torch.from_numpy(x))
    for a, b in ((o1, o2), (h1, h2), (c1, c2)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
