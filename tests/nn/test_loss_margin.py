"""Margin, soft-margin, ranking and embedding losses against torch (values, gradients and
second order, float64 and float32) and torch's errors."""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
REDUCTIONS = ["none", "mean", "sum"]


def rnd(shape, dtype, low=-2.0, high=2.0, seed=1):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def signs(shape, dtype="float64", seed=5):
    return np.random.default_rng(seed).choice([-1.0, 1.0], shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(6,), (3, 4), ()])
def test_soft_margin_matches_torch(shape, reduction, dtype):
    # torch refuses a target that requires grad: detach it (the refusal is tested below)
    check_op(lambda t, x, y: t.nn.functional.soft_margin_loss(x, y.detach(),
                                                               reduction=reduction),
             [shape, signs(shape, dtype)], dtype=dtype)


def test_soft_margin_target_is_not_differentiable_like_torch():
    check_raises(lambda t, x, y: t.nn.functional.soft_margin_loss(x, y.requires_grad_()),
                 [rnd((3,), "float32"), signs((3,), "float32")],
                 match="'soft_margin_loss' is not differentiable with respect to argument "
                       "'target'")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape,weight_shape", [((3, 4), None), ((3, 4), (4,)), ((4,), None),
                                                ((2, 3, 4), (4,)), ((3, 4), (3, 1))])
def test_multilabel_soft_margin_matches_torch(shape, weight_shape, reduction, dtype):
    y = rnd(shape, dtype, 0.0, 1.0, seed=3).round()
    w = None if weight_shape is None else rnd(weight_shape, dtype, 0.2, 2.0, seed=4)
    check_op(lambda t, x, y, w: t.nn.functional.multilabel_soft_margin_loss(
        x, y, weight=w, reduction=reduction), [shape, y, w], dtype=dtype)


def test_multilabel_soft_margin_rejects_bad_reduction():
    x = rnd((3, 4), "float32")
    check_raises(lambda t, x: t.nn.functional.multilabel_soft_margin_loss(x, x, reduction="f"),
                 [x], match="f is not valid")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, False),
                                               (1, 2.0, True), (2, 1.0, True)])
def test_multi_margin_matches_torch(p, margin, weighted, reduction, dtype):
    t_ = np.array([0, 3, 1, 3, 2])
    w = rnd((4,), dtype, 0.2, 2.0, seed=4) if weighted else None
    check_op(lambda t, x, y, w: t.nn.functional.multi_margin_loss(
        x, y, p=p, margin=margin, weight=None if w is None else w.detach(),
        reduction=reduction), [(5, 4), t_, w], dtype=dtype, second_order=False)


@pytest.mark.parametrize("target", [np.array(2), np.array([2])])
def test_multi_margin_unbatched_matches_torch(target):
    check_op(lambda t, x, y: t.nn.functional.multi_margin_loss(x, y, reduction="none"),
             [(4,), target], second_order=False)


@pytest.mark.parametrize("xs,ys,tdtype,match", [
    ((3, 4), (2,), np.int64, "target tensor should be 1-D with size equal to the number of"),
    ((3, 4), (3,), np.int32, "expected scalar type Long but found Int"),
    ((2, 3, 4), (2,), np.int64, "Expected non-empty vector or matrix with optional 0-dim"),
    ((3, 0), (3,), np.int64, "Expected non-empty vector or matrix with optional 0-dim"),
])
def test_multi_margin_rejects_bad_targets(xs, ys, tdtype, match):
    check_raises(lambda t, x, y: t.nn.functional.multi_margin_loss(x, y),
                 [rnd(xs, "float32"), np.zeros(ys, tdtype)], match=match)


def test_multi_margin_rejects_bad_arguments():
    x, y = rnd((3, 4), "float32"), np.array([0, 1, 2])
    mm = "multi_margin_loss"
    check_raises(lambda t, x, y: getattr(t.nn.functional, mm)(x, y, p=3), [x, y],
                 match="only p == 1 and p == 2 supported")
    check_raises(lambda t, x, y: getattr(t.nn.functional, mm)(x, y * 2), [x, y],
                 match="target out of range")
    check_raises(lambda t, x, y: getattr(t.nn.functional, mm)(x, y - 1), [x, y],
                 match="target out of range")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, mm)(x, y, weight=w),
                 [x, y, rnd((2, 2), "float32")], match="weight must be one-dimensional")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, mm)(x, y, weight=w),
                 [x, y, rnd((3,), "float32")],
                 match="inconsistent weight size, expected 4 but got [3]")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, mm)(x, y, weight=w),
                 [x, y, rnd((4,), "float64")], match="expected scalar type Float but found Double")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, mm)(x, y,
                                                                  weight=w.requires_grad_()),
                 [x, y, rnd((4,), "float32")], match="not differentiable with respect to")


# torch has no double backward for the two hinge losses (ours, composed, is exact: zero for
# p=1), so they are compared to first order only
MULTILABEL_TARGETS = [
    np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, -1], [-1, 2, 3, 0], [2, 2, -1, 0]]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_matches_torch(reduction, dtype):
    # rows: listed classes, all classes, stop at the first -1, nothing listed, a duplicate
    check_op(lambda t, x, y: t.nn.functional.multilabel_margin_loss(x, y, reduction=reduction),
             [(5, 4), MULTILABEL_TARGETS[0]], dtype=dtype, second_order=False)


@pytest.mark.parametrize("xs,target", [((4,), np.array([3, 0, -1, 1])), ((), np.array(0)),
                                       ((0, 4), np.zeros((0, 4), np.int64))])
def test_multilabel_margin_unbatched_and_empty_match_torch(xs, target):
    for reduction in ("none", "sum"):
        check_op(lambda t, x, y: t.nn.functional.multilabel_margin_loss(x, y,
                                                                          reduction=reduction),
                 [xs, target], second_order=False)


@pytest.mark.parametrize("xs,target,match", [
    ((3, 4), np.zeros((2, 4), np.int64), "inconsistent target size: [2, 4] for input of size"),
    ((3, 4), np.zeros((3, 4), np.int32), "expected scalar type Long but found Int"),
    ((3, 4), np.array([[4, 0, -1, 1]] * 3), "argument #2 'target' is out of range"),
    ((3, 4), np.array([[-2, 0, -1, 1]] * 3), "argument #2 'target' is out of range"),
    ((3, 4), np.array([[0, -1, 7, 1]] * 3), "argument #2 'target' is out of range"),
    ((2, 3, 4), np.zeros((2, 3, 4), np.int64), "Expected non-empty vector or matrix"),
])
def test_multilabel_margin_rejects_bad_targets(xs, target, match):
    check_raises(lambda t, x, y: t.nn.functional.multilabel_margin_loss(x, y),
                 [rnd(xs, "float32"), target], match=match)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.7])
@pytest.mark.parametrize("shape", [(6,), ()])
def test_margin_ranking_matches_torch(shape, margin, reduction, dtype):
    check_op(lambda t, a, b, y: t.nn.functional.margin_ranking_loss(
        a, b, y, margin=margin, reduction=reduction), [shape, shape, signs(shape, dtype)],
        dtype=dtype)


def test_margin_ranking_rejects_mismatched_dims():
    check_raises(lambda t, a, y: t.nn.functional.margin_ranking_loss(a, a, y),
                 [rnd((3, 4), "float32"), signs((3,), "float32")],
                 match="margin_ranking_loss : All input tensors should have same dimension but "
                       "got sizes: input1: torch.Size([3, 4]), input2: torch.Size([3, 4]), "
                       "target: torch.Size([3])")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 0.5])
def test_hinge_embedding_matches_torch(margin, reduction, dtype):
    y = signs((3, 4), dtype)
    y[0, 0] = 0.5  # neither +1 nor -1: both terms apply, as in torch
    check_op(lambda t, x, y: t.nn.functional.hinge_embedding_loss(x, y, margin=margin,
                                                                    reduction=reduction),
             [(3, 4), y], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_cosine_embedding_matches_torch(margin, reduction, dtype):
    y = signs((4,), dtype)
    check_op(lambda t, a, b, y: t.nn.functional.cosine_embedding_loss(
        a, b, y, margin=margin, reduction=reduction), [(4, 5), (4, 5), y], dtype=dtype)
    check_op(lambda t, a, b, y: t.nn.functional.cosine_embedding_loss(
        a, b, y, margin=margin, reduction=reduction), [(5,), (5,), np.array(-1.0)])


def test_cosine_embedding_zero_vectors_and_other_labels_match_torch():
    b = rnd((3, 4), "float64")
    b[1] = 0.0
    check_op(lambda t, a, b, y: t.nn.functional.cosine_embedding_loss(a, b, y,
                                                                       reduction="none"),
             [(3, 4), b, np.array([1.0, 1.0, 2.0])], grad=False)


@pytest.mark.parametrize("xs,ys,match", [
    ((3, 4), (3, 1), "0D or 1D target tensor expected, multi-target not supported"),
    ((4,), (3,), "1D target tensor expects 2D input tensors, but found inputs with sizes [4] "
                 "and [4]."),
    ((3, 4), (), "0D target tensor expects 1D input tensors, but found inputs with sizes "
                 "[3, 4] and [3, 4]."),
])
def test_cosine_embedding_rejects_bad_shapes(xs, ys, match):
    check_raises(lambda t, a, y: t.nn.functional.cosine_embedding_loss(a, a, y),
                 [rnd(xs, "float32"), np.ones(ys, np.float32)], match=match)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap", [(2, False), (2, True), (1, False), (3, True), (0.5, False)])
def test_triplet_margin_matches_torch(p, swap, reduction, dtype):
    check_op(lambda t, a, b, c: t.nn.functional.triplet_margin_loss(
        a, b, c, margin=1.5, p=p, swap=swap, reduction=reduction), [(4, 5)] * 3, dtype=dtype,
        low=-1, high=1)


def test_triplet_margin_unbatched_and_eps_match_torch():
    check_op(lambda t, a, b, c: t.nn.functional.triplet_margin_loss(a, b, c, eps=0.1),
             [(5,)] * 3)
    check_op(lambda t, a, b, c: t.nn.functional.triplet_margin_loss(a, b, c, margin=2.0,
                                                                     reduction="none"),
             [(2, 3, 4)] * 3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("custom", [False, True])
def test_triplet_margin_with_distance_matches_torch(custom, swap, reduction, dtype):
    def run(t, a, b, c):
        dist = (lambda x, y: (x - y).abs().sum(-1)) if custom else None
        return t.nn.functional.triplet_margin_with_distance_loss(
            a, b, c, distance_function=dist, margin=1.2, swap=swap, reduction=reduction)
    check_op(run, [(4, 5)] * 3, dtype=dtype, low=-1, high=1)


@pytest.mark.parametrize("fn", ["triplet_margin_loss", "triplet_margin_with_distance_loss"])
def test_triplet_losses_reject_bad_arguments(fn):
    a = rnd((3, 4), "float32")
    for margin in (0.0, -1.0):
        check_raises(lambda t, a: getattr(t.nn.functional, fn)(a, a, a, margin=margin), [a],
                     match=f"margin must be greater than 0, got {margin}")
    check_raises(lambda t, a: getattr(t.nn.functional, fn)(a, a[0], a), [a],
                 match="The anchor, positive, and negative tensors are expected to have the "
                       "same number of dimensions, but got: anchor 2D, positive 1D, and "
                       "negative 2D inputs")
    check_raises(lambda t, a: getattr(t.nn.functional, fn)(a, a, a, reduction="foo"), [a],
                 match="foo is not a valid value for reduction")
