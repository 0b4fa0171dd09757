"""CTC loss against torch: values and gradients (torch's exp(lp) - posterior form) for padded
and concatenated targets, every reduction, zero_infinity, unbatched input, and errors."""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
REDUCTIONS = ["none", "mean", "sum"]


def log_probs(T, N, C, dtype="float64", seed=0):
    x = np.random.default_rng(seed).standard_normal((T, N, C))
    x = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return x.astype(dtype)


def padded_targets(tl, S, C, blank=0, seed=1, repeats=True):
    rng = np.random.default_rng(seed)
    labels = [c for c in range(C) if c != blank]
    out = np.full((len(tl), S), blank if blank else 1, dtype=np.int64)
    for n, k in enumerate(tl):
        row = rng.choice(labels, k)
        if repeats and k >= 2:
            row[1] = row[0]  # a repeated label forbids the skip transition
        out[n, :k] = row
    return out


def _ctc(reduction="mean", blank=0, zero_infinity=False, as_tuple=False):
    def run(t, lp, tg, il, tl):
        if as_tuple:
            il, tl = tuple(int(v) for v in il), tuple(int(v) for v in tl)
        return t.nn.functional.ctc_loss(lp, tg, il, tl, blank=blank, reduction=reduction,
                                        zero_infinity=zero_infinity)
    return run


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_padded_targets_match_torch(blank, reduction, dtype):
    T, C = 12, 5
    il = np.array([12, 10, 7, 12])
    tl = np.array([4, 3, 0, 5])
    tg = padded_targets(tl, 6, C, blank=blank)
    check_op(_ctc(reduction, blank), [log_probs(T, 4, C, dtype), tg, il, tl], dtype=dtype,
             second_order=False, rtol=1e-3 if dtype == "float32" else None)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_concatenated_targets_and_tuple_lengths_match_torch(reduction):
    T, C = 9, 4
    il = np.array([9, 8, 9])
    tl = np.array([3, 2, 4])
    tg = padded_targets(tl, 4, C)
    flat = np.concatenate([tg[n, :k] for n, k in enumerate(tl)])
    check_op(_ctc(reduction), [log_probs(T, 3, C), flat, il, tl], second_order=False)
    check_op(_ctc(reduction, as_tuple=True), [log_probs(T, 3, C), tg, il, tl],
             second_order=False)


def test_ctc_gradient_of_raw_scores_matches_torch():
    # log_probs given directly (not normalised): torch's gradient is exp(lp) - posterior,
    # which we reproduce; through log_softmax it is the true gradient
    T, N, C = 7, 2, 4
    il, tl = np.array([7, 5]), np.array([3, 2])
    tg = padded_targets(tl, 3, C)
    x = np.random.default_rng(3).standard_normal((T, N, C))
    check_op(_ctc("sum"), [x, tg, il, tl], second_order=False)
    check_op(lambda t, x, tg, il, tl: _ctc("mean")(t, x.log_softmax(2), tg, il, tl),
             [x, tg, il, tl], second_order=False)


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_impossible_alignments_match_torch(zero_infinity, reduction):
    # sample 0 needs 2*3-1=5 frames for "1 1 2" (a repeat needs a blank between) but has 4
    T, C = 6, 4
    il, tl = np.array([4, 6]), np.array([3, 2])
    tg = np.array([[1, 1, 2], [2, 3, 0]])
    check_op(_ctc(reduction, zero_infinity=zero_infinity), [log_probs(T, 2, C), tg, il, tl],
             second_order=False)


def test_ctc_zero_input_length_matches_torch():
    il, tl = np.array([0, 0, 5]), np.array([0, 1, 2])
    tg = np.array([[1, 2], [1, 2], [1, 2]])
    check_op(_ctc("none"), [log_probs(5, 3, 4), tg, il, tl], grad=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_unbatched_matches_torch(reduction):
    tg = np.array([1, 2, 2])
    check_op(_ctc(reduction), [log_probs(8, 1, 4)[:, 0], tg, np.array(8), np.array(3)],
             second_order=False)


def test_ctc_long_sequence_matches_torch():
    T, N, C, S = 60, 3, 6, 15
    il = np.array([60, 45, 52])
    tl = np.array([15, 9, 12])
    tg = padded_targets(tl, S, C)
    check_op(_ctc("mean"), [log_probs(T, N, C), tg, il, tl], second_order=False)


def test_ctc_first_order_only_like_torch():
    import numtorch
    import torch

    for lib in (numtorch, torch):
        lp = lib.from_numpy(log_probs(5, 1, 3)).requires_grad_()
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2]]), lib.tensor([5]),
                                          lib.tensor([2]))
        (g,) = lib.autograd.grad(loss, lp, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not "
                                               "implemented"):
            lib.autograd.grad(g.sum(), lp)


def _raises(match, lp=None, tg=None, il=None, tl=None, **kw):
    lp = log_probs(6, 2, 4, "float32") if lp is None else lp
    tg = np.array([[1, 2, 3], [1, 1, 0]]) if tg is None else tg
    il = np.array([6, 5]) if il is None else il
    tl = np.array([3, 2]) if tl is None else tl
    check_raises(lambda t, lp, tg, il, tl: t.nn.functional.ctc_loss(lp, tg, il, tl, **kw),
                 [lp, tg, il, tl], match=match)


def test_ctc_rejects_bad_lengths():
    _raises("Expected input_lengths to have value at most 6, but got value 7",
            il=np.array([7, 5]))
    _raises("Expected input_lengths to have value at least 0, but got value -1",
            il=np.array([-1, 5]))
    _raises("Expected target_lengths to have value at least 0, but got value -1",
            tl=np.array([-1, 2]))
    _raises("input_lengths must be of size batch_size", il=np.array([6, 5, 5]))
    _raises("target_lengths must be of size batch_size", tl=np.array([3]))
    _raises("input_lengths must be integral", il=np.array([6.0, 5.0], np.float32))
    _raises("target_lengths must be integral", tl=np.array([3.0, 2.0], np.float32))


def test_ctc_rejects_bad_targets_and_arguments():
    _raises("Expected tensor to have size at least 4 at dimension 1, but got size 3",
            tl=np.array([4, 2]))
    _raises("Expected tensor to have size 5 at dimension 0, but got size 6",
            tg=np.array([1, 2, 3, 1, 1, 2]))
    _raises("Expected tensor to have size 2 at dimension 0, but got size 3",
            tg=np.array([[1, 2, 3], [1, 1, 0], [1, 2, 2]]))
    _raises("Expected 1 to 2 dimensions, but got 3-dimensional tensor",
            tg=np.ones((2, 3, 1), np.int64))
    # torch adds a batch dim to any input that is not 3-d before checking: 4-d reads as 5-d
    _raises("Expected 3-dimensional tensor, but got 5-dimensional tensor",
            lp=log_probs(6, 2, 4, "float32")[None])
    _raises("blank must be in label range", blank=4)
    _raises("blank must be in label range", blank=-1)
    _raises("foo is not a valid value for reduction", reduction="foo")
    _raises('"ctc_loss_cpu" not implemented for', lp=np.ones((6, 2, 4), np.int64))
    _raises("log_probs tensor must not be empty", lp=np.zeros((6, 0, 4), np.float32),
            tg=np.zeros((0, 2), np.int64), il=np.zeros(0, np.int64), tl=np.zeros(0, np.int64))


def test_ctc_refuses_labels_outside_the_classes():
    # torch does not check (it reads out of bounds); we refuse rather than guess
    import numtorch

    lp = numtorch.from_numpy(log_probs(6, 1, 4))
    with pytest.raises(RuntimeError, match="target label 7 is out of range for 4 classes"):
        numtorch.nn.functional.ctc_loss(lp, numtorch.tensor([[1, 7]]), numtorch.tensor([6]),
                                        numtorch.tensor([2]))
