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
from numtorch.ops.attention_ops import multi_head_attention_core, scaled_dot_product
from numtorch.ops.linear_fused import linear_fused
from numtorch.ops.rnn_ops import lstm_cell, lstm_step
from numtorch.ops.rnn_sequence import gru_sequence, lstm_sequence, rnn_sequence

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
    "ScaledDotProductAttention": [
        (lambda q, k, v: scaled_dot_product(q, k, v, None, 0.5, True),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
        (lambda q, k, v, m: scaled_dot_product(q, k, v, m, 0.5, False),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5)]),
    ],
}


def _dual_ops():
    found, todo = set(), list(Op.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls._op_cls is cls and cls.backward_arrays is not None:
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
    assert numtorch.autograd.gradgradcheck(lambda *a: tuple(_flat(fn(*a))), xs)
