"""AdaptiveLogSoftmaxWithLoss against torch: forward output and loss, log_prob, predict,
gradients of inputs and parameters, and bad input."""

import numpy as np
import pytest

from tests.oracle import check_module, check_raises

TARGET = np.array([0, 5, 9, 3, 7, 8], dtype=np.int64)


@pytest.mark.parametrize("kw", [{}, dict(head_bias=True), dict(div_value=2.0)])
@pytest.mark.parametrize("cutoffs", [[4, 7], [2], [1, 5, 8]])
def test_forward(cutoffs, kw):
    check_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs, **kw),
                 [(6, 16), TARGET], train=False)


def test_forward_only_shortlist_targets():
    check_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7]),
                 [(3, 16), np.array([0, 1, 3])], train=False)


def test_forward_unbatched():
    check_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7]),
                 [(16,), np.array(8)], train=False)


def test_log_prob():
    check_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7]), [(6, 16)],
                 train=False, forward=lambda m, x: m.log_prob(x))


def test_log_prob_unbatched_raises():
    made = {}

    def call(t, x):
        return made.setdefault(t.__name__, t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7])
                               ).log_prob(x)
    check_raises(call, [np.zeros(16, "float32")])


def test_predict():
    check_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7], head_bias=True),
                 [(20, 16)], train=False, forward=lambda m, x: m.predict(x), grad=False)


@pytest.mark.parametrize("cutoffs", [[], [7, 4], [0, 4], [4, 10], [4, 4]])
def test_bad_cutoffs(cutoffs):
    check_raises(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs))


@pytest.mark.parametrize("shapes", [
    [(6, 16), np.array([0, 1, 2, 3, 4, 10])],
    [(6, 16), np.array([0, 1, 2, 3, 4, -1])],
    [(5, 16), TARGET],
    [(6, 2, 16), TARGET],
    [(6, 16), np.array(3)],
    [(6, 16), np.zeros((6, 1), np.int64)],
])
def test_bad_input(shapes):
    x = np.random.default_rng(0).standard_normal(shapes[0]).astype("float32")
    made = {}

    def call(t, inp, tgt):
        m = made.setdefault(t.__name__, t.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7]))
        return m(inp, tgt)
    check_raises(call, [x, shapes[1]])
