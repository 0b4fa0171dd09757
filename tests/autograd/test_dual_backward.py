"""Ops with two backward paths agree: ``backward_arrays`` (raw arrays, the engine's choice when
no graph is built) and ``backward`` (numtorch ops, under ``create_graph``).

Every op class that declares ``backward_arrays`` must have a case here; the first order is
compared through each path and the second order is checked numerically through the composed
one (``gradgradcheck``, float64).
"""

import numpy as np
import pytest

import numtorch
from numtorch.autograd.graph import Op
from numtorch.nn.functional._memory_format import grad_input
from numtorch.ops.attention_ops import multi_head_attention_core, scaled_dot_product
from numtorch.ops.linear_fused import linear_fused
from numtorch.ops.rnn_ops import lstm_cell, lstm_step
from numtorch.ops.rnn_sequence import gru_sequence, lstm_sequence, rnn_sequence

_CONST = numtorch.linspace(0.5, 2.0, 4, dtype=numtorch.float64)  # an operand needing no grad
_INDEX = numtorch.tensor([[2, 0, 2], [1, 1, 0]])  # repeats: gradients add up
_MASK = numtorch.tensor([[[True], [True]], [[True], [True]], [[True], [False]]])  # (T, B, 1)


def _mha(packed, weights, masked):
    def run(q, k, v, mask):
        if packed:
            return multi_head_attention_core(numtorch.cat([q, k, v], -1), None, None,
                                             mask if masked else None, 2, 0.5,
                                             need_weights=weights)
        return multi_head_attention_core(q, k, v, mask if masked else None, 2, 0.5,
                                         need_weights=weights)
    return run, [(3, 2, 4), (3, 2, 4), (3, 2, 4), (3, 3)]


CASES = {
    "LinearFused": [
        (lambda x, w, b: linear_fused(x, w, b), [(4, 3), (2, 3), (2,)]),
        (lambda x, w: linear_fused(x.transpose(0, 1), w), [(3, 2, 3), (2, 3)]),
    ],
    "LSTMCell": [(lambda z, c: lstm_cell(z, c), [(2, 8), (2, 2)])],
    "LSTMStep": [(lambda x, h, c, wi, wh, bi, bh: lstm_step(x, h, c, wi, wh, bi, bh),
                  [(2, 3), (2, 2), (2, 2), (8, 3), (8, 2), (8,), (8,)]),
                 (lambda x, h, c, wi, wh: lstm_step(x, h, c, wi, wh), [(2, 1), (2, 2), (2, 2),
                                                                       (8, 1), (8, 2)])],
    "LSTMSequence": [
        (lambda x, h, c, wi, wh, b: lstm_sequence(x, h, c, wi, wh, b),
         [(3, 2, 3), (2, 2), (2, 2), (8, 3), (8, 2), (8,)]),
        (lambda x, h, c, wi, wh, wr: lstm_sequence(x, h, c, wi, wh, None, wr, mask=_MASK,
                                                   reverse=True),
         [(3, 2, 3), (2, 1), (2, 2), (8, 3), (8, 1), (1, 2)]),
    ],
    "GRUSequence": [
        (lambda xs, h, w, b: gru_sequence(xs, h, w, b), [(3, 2, 6), (2, 2), (6, 2), (6,)]),
        (lambda xs, h, w: gru_sequence(xs, h, w, None, mask=_MASK, reverse=True),
         [(3, 2, 6), (2, 2), (6, 2)]),
    ],
    "RNNSequence": [
        (lambda xs, h, w: rnn_sequence(xs, h, w), [(3, 2, 2), (2, 2), (2, 2)]),
        (lambda xs, h, w: rnn_sequence(xs, h, w, "relu", mask=_MASK, reverse=True),
         [(3, 2, 2), (2, 2), (2, 2)]),
    ],
    "Solve": [  # 64 rows: the LU-reusing path (a diagonal shift keeps it well-conditioned)
        (lambda a, b: numtorch.linalg.solve(a + 8 * numtorch.eye(64, dtype=a.dtype), b),
         [(2, 64, 64), (2, 64, 3)]),
        (lambda a, b: numtorch.linalg.solve(a + 8 * numtorch.eye(64, dtype=a.dtype), b),
         [(64, 64), (2, 64, 3)]),  # one A for a batch of B
    ],
    "MultiHeadAttentionCore": [_mha(False, False, True), _mha(True, False, False),
                               _mha(False, True, True)],
    # the small pointwise ops and sum: backward_arrays skips the dispatch of the ops their
    # composed backward applies (test_small_ops_paths_agree_bit_for_bit checks exactness)
    "Mul": [(lambda a, b: a * b, [(3, 4), (4,)]), (lambda a: a * 1.5, [(3, 4)]),
            (lambda a: a * _CONST, [(3, 4)]), (lambda b: _CONST * b, [(1, 4)])],
    "Sub": [(lambda a, b: a - b, [(2, 3), (3,)])],
    "Neg": [(lambda a: -a, [(2, 3)])],
    "Div": [(lambda a, b: a / (b + 3), [(2, 3), (2, 3)]),
            (lambda a, b: a / (b + 3).sum(-1, keepdim=True), [(2, 3), (2, 3)]),
            (lambda a: a / _CONST, [(2, 4)]), (lambda b: _CONST / (b + 3), [(2, 4)])],
    "Exp": [(lambda a: a.exp(), [(2, 3)])],
    "Log": [(lambda a: (a + 2).log(), [(2, 3)])],
    "Tanh": [(lambda a: a.tanh(), [(2, 3)])],
    "Sum": [(lambda a: a.sum(), [(2, 3)]), (lambda a: a.sum(1), [(2, 3, 2)]),
            (lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 2)])],
    "Cat": [(lambda a, b, c: numtorch.cat([a, b, c], 1), [(2, 1), (2, 3), (2, 2)]),
            (lambda a, b: numtorch.cat([a, _CONST, b]), [(1,), (2,)])],
    "Stack": [(lambda a, b: numtorch.stack([a, b], -1), [(2, 3), (2, 3)]),
              (lambda a, b: numtorch.stack([a, _CONST[0], b]), [(), ()])],
    "Gather": [(lambda a: a.gather(1, _INDEX), [(2, 3)]),
               (lambda a: a.gather(0, _INDEX[:, 1:2]), [(2, 3)])],
    "Clamp": [(lambda a: a.clamp(-0.5, 0.5), [(2, 3)]), (lambda a: a.clamp(min=0.1), [(2, 3)]),
              (lambda a: a.clamp(max=-0.2), [(2, 3)])],
    "Conv": [(lambda x, w, b: numtorch.nn.functional.conv2d(x, w, b, padding=1),
              [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
             (lambda x, w: numtorch.nn.functional.conv1d(x, w, stride=2, groups=2),
              [(2, 4, 7), (2, 2, 3)])],
    "ConvTranspose": [(lambda x, w, b: numtorch.nn.functional.conv_transpose2d(
                           x, w, b, stride=2, output_padding=1), [(2, 3, 3, 3), (3, 2, 3, 3), (2,)]),
                      (lambda x, w: numtorch.nn.functional.conv_transpose1d(x, w, padding=1),
                       [(1, 2, 5), (2, 3, 3)])],
    "NormalizeAffine": [  # layer norm's row form (ops/norm_rows.py)
        (lambda x, w, b: numtorch.nn.functional.layer_norm(x, (4,), w, b),
         [(3, 2, 4), (4,), (4,)]),
        (lambda x, w: numtorch.nn.functional.layer_norm(x, (2, 4), w), [(3, 2, 4), (2, 4)]),
        (lambda x: numtorch.nn.functional.layer_norm(x, (5,)), [(2, 5)]),
    ],
    "BatchNormAffine": [  # training batch norm with (C,) parameters (ops/norm_batch.py)
        (lambda x, w, b: numtorch.nn.functional.batch_norm(x, None, None, w, b, training=True),
         [(3, 4, 2, 5), (4,), (4,)]),
        (lambda x: numtorch.nn.functional.batch_norm(x, None, None, training=True),
         [(4, 3, 6)]),
    ],
    "ScaledDotProductAttention": [
        (lambda q, k, v: scaled_dot_product(q, k, v, None, 0.5, True),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
        (lambda q, k, v, m: scaled_dot_product(q, k, v, m, 0.5, False),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5)]),
    ],
    "Mean": [(lambda x: x.mean(), [(2, 3)]), (lambda x: x.mean((0, 2), keepdim=True),
                                                [(2, 3, 4)]), (lambda x: x.mean(1), [(2, 3)])],
    "Sqrt": [(lambda x: (x + 2).sqrt(), [(2, 3)])],
    "Var": [(lambda x: x.var(1), [(3, 4)]), (lambda x: x.var((0, 2), unbiased=False,
                                                              keepdim=True), [(2, 3, 4)]),
            (lambda x: x.std(0), [(3, 2)]), (lambda x: x.var(), [(2, 3)])],
    "GradToFormat": [  # a channels-last convolution's input gradient, laid out as the input
        (lambda x: grad_input(x, numtorch.channels_last), [(2, 3, 4, 4)]),
        (lambda x: grad_input(x, numtorch.channels_last_3d), [(2, 3, 2, 2, 2)])],
    "Reshape": [(lambda x: x.reshape(3, 4), [(2, 6)]), (lambda x: x.t().reshape(-1), [(2, 3)]),
                (lambda x: x.unsqueeze(1), [(2, 3)]), (lambda x: x.squeeze(0), [(1, 3)])],
    "Permute": [(lambda x: x.permute(2, 0, 1), [(2, 3, 4)]), (lambda x: x.t(), [(2, 3)]),
                (lambda x: x.transpose(0, 2), [(2, 3, 4)])],
    "Det": [  # past 8x8: the inverse from the forward's LU factors (getri); near the
        # identity, where gradgradcheck's finite differences are steady
        (lambda a: numtorch.linalg.det(a * 0.5 + numtorch.eye(12, dtype=a.dtype)),
         [(2, 12, 12)]),
        (lambda a: numtorch.det(a * 0.5 + numtorch.eye(10, dtype=a.dtype)), [(10, 10)])],
    "Einsum": [  # two operands whose gradients are again plain contractions
        (lambda q, k: numtorch.einsum("bid,bjd->bij", q, k), [(2, 3, 4), (2, 5, 4)]),
        (lambda a, v: numtorch.einsum("bij,bjd->bdi", a, v), [(2, 3, 5), (2, 5, 4)]),
        (lambda x, w: numtorch.einsum("nc,oc->no", x, w), [(4, 3), (2, 3)]),
        (lambda x: numtorch.einsum("nc,oc->no", x, _CONST.reshape(2, 2)), [(4, 2)]),
        # left to the composed backward: a letter summed inside one operand, broadcasting,
        # three operands
        (lambda x, w: numtorch.einsum("nck,oc->no", x, w), [(4, 3, 2), (2, 3)]),
        (lambda x, w: numtorch.einsum("bij,bjk->bik", x, w), [(1, 3, 2), (4, 2, 3)]),
        (lambda x, y, z: numtorch.einsum("ij,jk,kl->il", x, y, z), [(2, 3), (3, 4), (4, 2)]),
    ],
}


def _dual_ops():
    found, todo = set(), list(Op.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        # a class without a forward of its own is a shared base (conv's _ConvPair), not an op
        if cls._op_cls is cls and cls.backward_arrays is not None and "forward" in vars(cls):
            found.add(cls.__name__)
    return found


def test_every_dual_op_has_a_case():
    assert _dual_ops() == set(CASES)


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name,case", [(n, c) for n, cs in CASES.items() for c in cs],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_both_backward_paths_agree(name, case):
    fn, shapes = case
    rng = np.random.default_rng(0)
    xs = [numtorch.from_numpy(rng.uniform(-1, 1, s)).requires_grad_() for s in shapes]
    outs = _flat(fn(*xs))
    assert any(o.grad_fn._op_cls.__name__ == name for o in outs if o.grad_fn is not None)
    us = [numtorch.from_numpy(rng.standard_normal(tuple(o.shape))) for o in outs]
    fast = numtorch.autograd.grad(outs, xs, us, retain_graph=True, allow_unused=True)
    composed = numtorch.autograd.grad(outs, xs, us, create_graph=True, allow_unused=True)
    for k, (a, b) in enumerate(zip(fast, composed)):
        assert (a is None) == (b is None), f"input {k}"
        if a is not None:
            assert a.grad_fn is None
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"input {k}")
    # the 64-row solves have ~8.6k inputs: whole numerical Jacobians took 30 s of CI, one
    # random projection (torch's fast_mode) checks the same second order in a second
    many = sum(x.numel() for x in xs) > 2000
    assert numtorch.autograd.gradgradcheck(lambda *a: tuple(_flat(fn(*a))), xs, fast_mode=many)


_SMALL_OPS = [
    ("mul", lambda a, b: a * b), ("mul_scalar", lambda a, b: a * 1.0001),
    ("mul_const", lambda a, b: a * b.detach()), ("sub", lambda a, b: a - b),
    ("neg", lambda a, b: -a), ("div", lambda a, b: a / (b + 3)),
    ("div_const", lambda a, b: a.detach() / (b + 3)),
    ("div_norm", lambda a, b: a / (b + 3).sum(-1, keepdim=True)), ("exp", lambda a, b: a.exp()),
    ("log", lambda a, b: (a + 2).log()), ("tanh", lambda a, b: a.tanh()),
    ("sum", lambda a, b: (a * b).sum(0)), ("cat", lambda a, b: numtorch.cat([b, a[1], b])),
    ("stack", lambda a, b: numtorch.stack([b, a[0], a[3]], 1)),
    ("clamp", lambda a, b: (a * b).clamp(-0.3, 0.4)), ("clamp_min", lambda a, b: a.clamp(min=0.1)),
    ("gather", lambda a, b: a.gather(1, _INDEX.repeat(3, 1)[:5])),
    ("gather_one", lambda a, b: a.gather(1, _INDEX.repeat(3, 1)[:5, :1])),
    ("einsum", lambda a, b: numtorch.einsum("ij,kj->ik", a, a * b)),
    ("chan_layer_norm", lambda a, b: (a - a.mean(1, keepdim=True)) /
     (a.var(1, unbiased=False, keepdim=True) + 1e-5).sqrt() * b[:1] + b),
    ("rearrange", lambda a, b: (a * b).reshape(2, 10).t().reshape(5, 2, 2).permute(2, 0, 1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name,fn", _SMALL_OPS, ids=[n for n, _ in _SMALL_OPS])
def test_small_ops_paths_agree_bit_for_bit(name, fn, dtype):
    # the raw-array path must not change a single bit of any gradient
    rng = np.random.default_rng(1)
    dt = getattr(numtorch, dtype)
    xs = [numtorch.from_numpy(rng.uniform(-1, 1, s)).to(dt).requires_grad_()
          for s in [(5, 4), (4,)]]
    out = fn(*xs)
    u = numtorch.from_numpy(rng.standard_normal(tuple(out.shape))).to(dt)
    fast = numtorch.autograd.grad(out, xs, u, retain_graph=True, allow_unused=True)
    composed = numtorch.autograd.grad(out, xs, u, create_graph=True, allow_unused=True)
    for a, b in zip(fast, composed):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.float().numpy(), b.detach().float().numpy())


def test_small_ops_leave_complex_and_mixed_dtypes_to_backward():
    # complex gradients take the conjugate and a gradient of another dtype needs torch's
    # promotion: backward_arrays hands both cases back to the composed backward
    import torch

    rng = np.random.default_rng(2)
    a_np, b_np = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)), \
        rng.standard_normal((2, 3)) + 3
    res = []
    for lib in (numtorch, torch):
        a = lib.tensor(a_np, requires_grad=True)
        b = lib.tensor(b_np.astype(np.float32), requires_grad=True)
        y = lib.tensor(b_np.astype(np.float32), requires_grad=True)
        ((a * a).exp() / 2).sum().abs().backward()
        (y * b).tanh().log().backward(lib.ones(2, 3, dtype=lib.float64))
        res.append([a.grad.numpy(), b.grad.numpy(), y.grad.numpy()])
    for ours, theirs in zip(*res):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_small_ops_saved_value_errors_match_torch():
    # a saved value changed in place: the raw-array path raises torch's error, word for word
    from tests.oracle import check_raises

    def modified_output(t):
        x = t.ones(3, requires_grad=True)
        y = (x * 2).exp()
        y.add_(1)
        y.sum().backward()

    def modified_input(t):
        x = t.ones(3, requires_grad=True)
        z = x * 2
        y = z * x
        z.mul_(3)
        y.sum().backward()

    def freed(t):
        x = t.ones(3, requires_grad=True)
        y = (x * 2).tanh().sum()
        y.backward()
        y.backward()

    for fn in (modified_output, modified_input, freed):
        ours, theirs = check_raises(fn)
        assert str(ours) == str(theirs)
