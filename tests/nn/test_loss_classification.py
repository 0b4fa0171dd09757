"""Classification losses against torch: cross entropy, NLL, BCE (probabilities and logits).

Values, gradients (random cotangent) and second order in float64 and float32, every
reduction, weights, ignore_index, label smoothing, K-dimensional and unbatched inputs, and
torch's errors for bad targets.
"""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
REDUCTIONS = ["none", "mean", "sum"]


def rnd(shape, dtype, low=-2.0, high=2.0, seed=1):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def labels(shape, n_classes, seed=2, ignore=None):
    t = np.random.default_rng(seed).integers(0, n_classes, shape)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return t


# (input shape, target shape) for batched, unbatched and K-dimensional inputs
INDEX_CASES = [((5, 4), (5,)), ((4,), ()), ((2, 4, 3), (2, 3)), ((2, 3, 2, 3), (2, 2, 3)),
               ((2, 3, 2, 1, 2), (2, 2, 1, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", INDEX_CASES)
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses_match_torch(fn, shapes, reduction, dtype):
    xs, ts = shapes
    c = xs[1] if len(xs) > 1 else xs[0]
    check_op(lambda t, x, y: getattr(t.nn.functional, fn)(x, y, reduction=reduction),
             [xs, labels(ts, c)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", INDEX_CASES[:3])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses_weight_and_ignore_index_match_torch(fn, shapes, reduction, dtype):
    xs, ts = shapes
    c = xs[1] if len(xs) > 1 else xs[0]
    w = rnd((c,), dtype, 0.2, 2.0, seed=7)
    y = labels(ts, c, ignore=1 if ts else None)
    check_op(lambda t, x, y, w: getattr(t.nn.functional, fn)(
        x, y, weight=w.detach(), ignore_index=1, reduction=reduction), [xs, y, w], dtype=dtype)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ignore_index_default_and_all_ignored_match_torch(fn, reduction):
    y = labels((6,), 4, ignore=-100)
    check_op(lambda t, x, y: getattr(t.nn.functional, fn)(x, y, reduction=reduction),
             [(6, 4), y])
    check_op(lambda t, x, y: getattr(t.nn.functional, fn)(x, y, reduction=reduction),
             [(3, 4), np.full(3, -100)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", INDEX_CASES[:3])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_label_smoothing_matches_torch(weighted, shapes, reduction, dtype):
    xs, ts = shapes
    c = xs[1] if len(xs) > 1 else xs[0]
    w = rnd((c,), dtype, 0.2, 2.0, seed=7) if weighted else None
    y = labels(ts, c, ignore=2 if ts else None)
    check_op(lambda t, x, y, w: t.nn.functional.cross_entropy(
        x, y, weight=None if w is None else w.detach(), ignore_index=2, reduction=reduction,
        label_smoothing=0.3), [xs, y, w], dtype=dtype)


PROB_CASES = [(5, 4), (4,), (2, 4, 3), (2, 3, 2, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", PROB_CASES)
@pytest.mark.parametrize("smoothing,weighted", [(0.0, False), (0.2, False), (0.0, True),
                                                (0.25, True)])
def test_cross_entropy_probabilities_match_torch(smoothing, weighted, shape, reduction, dtype):
    c = shape[1] if len(shape) > 1 else shape[0]
    q = rnd(shape, dtype, 0.0, 1.0, seed=3)
    w = rnd((c,), dtype, 0.2, 2.0, seed=7) if weighted else None
    # torch differentiates the target and the weight here (a composite), so do we
    check_op(lambda t, x, q, w: t.nn.functional.cross_entropy(
        x, q, weight=w, reduction=reduction, label_smoothing=smoothing), [shape, q, w],
        dtype=dtype)


def test_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1000.0, -1000.0, 0.0], [-1e4, 1e4, 3.0]])
    check_op(lambda t, x, y: t.nn.functional.cross_entropy(x, y), [x, np.array([1, 1])])
    check_op(lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction="none"),
             [x.astype("float32"), np.array([0, 2])], dtype="float32")


def test_cross_entropy_uint8_target_and_empty_batch_match_torch():
    y = np.array([0, 3, 2], dtype=np.uint8)
    check_op(lambda t, x, y: t.nn.functional.cross_entropy(x, y), [(3, 4), y])
    for reduction in REDUCTIONS:
        for fn in ("cross_entropy", "nll_loss"):
            check_op(lambda t, x, y: getattr(t.nn.functional, fn)(x, y, reduction=reduction),
                     [(0, 4), np.zeros(0, np.int64)])


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("bad", [4, 10, -1, -5])
def test_target_out_of_bounds_raises_index_error(fn, bad):
    nt_exc, th_exc = check_raises(
        lambda t, x, y: getattr(t.nn.functional, fn)(x, y),
        [rnd((3, 4), "float32"), np.array([0, bad, 1])], match=f"Target {bad} is out of bounds.")
    assert isinstance(nt_exc, IndexError)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("xs,ys,match", [
    ((3, 4), (2,), "Expected input batch_size (3) to match target batch_size (2)."),
    ((3, 4), (3, 2), "0D or 1D target tensor expected, multi-target not supported"),
    ((4,), (3,), "For 1D input, 1D target must have size 1, but got target size: 3"),
    ((2, 3, 4, 5), (2, 4, 4), "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 4]"),
    ((2, 3, 4, 5), (2, 4), "only batches of spatial targets supported (3D tensors)"),
    ((2, 3, 4), (2, 5), "Expected target size [2, 4], got [2, 5]"),
])
def test_class_index_losses_reject_target_shapes(fn, xs, ys, match):
    check_raises(lambda t, x, y: getattr(t.nn.functional, fn)(x, y),
                 [rnd(xs, "float32"), np.zeros(ys, np.int64)], match=match)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("tdtype", [np.int32, np.float32, np.bool_])
def test_class_index_losses_reject_target_dtype(fn, tdtype):
    check_raises(lambda t, x, y: getattr(t.nn.functional, fn)(x, y),
                 [rnd((3, 4), "float32"), np.array([0, 1, 1]).astype(tdtype)],
                 match="expected target dtype to be Long or Byte, but got")


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses_reject_bad_weights(fn):
    x, y = rnd((3, 4), "float32"), np.array([0, 1, 2])
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, fn)(x, y, weight=w),
                 [x, y, rnd((3,), "float32")],
                 match="weight tensor should be defined either for all 4 classes or no classes "
                       "but got weight tensor of shape: [3]")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, fn)(x, y, weight=w),
                 [x, y, rnd((4,), "float64")], match="expected scalar type Float but found Double")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, fn)(
        x, y, weight=w.requires_grad_()), [x, y, rnd((4,), "float32")],
        match="is not differentiable with respect to argument 'weight'")


def test_cross_entropy_rejects_other_bad_arguments():
    x = rnd((3, 4), "float32")
    check_raises(lambda t, x, y: t.nn.functional.cross_entropy(x, y, label_smoothing=1.5),
                 [x, np.array([0, 1, 2])], match="label_smoothing must be between 0.0 and 1.0")
    check_raises(lambda t, x, y: t.nn.functional.cross_entropy(x, y, ignore_index=1),
                 [x, rnd((3, 4), "float32")],
                 match="ignore_index is not supported for floating point target")
    check_raises(lambda t, x: t.nn.functional.cross_entropy(x[0, 0], x[0, 0].long()), [x],
                 match="Expected floating point type for target with class probabilities")
    check_raises(lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction="avg"),
                 [x, np.array([0, 1, 2])], match="avg is not a valid value for reduction")
    check_raises(lambda t, x, y: t.nn.functional.cross_entropy(x.long(), y),
                 [x, np.array([0, 1, 2])], match="not implemented for 'Long'")
    check_raises(lambda t, x, y: t.nn.functional.nll_loss(x.int(), y),
                 [x, np.array([0, 1, 2])], match='"nll_loss_out_frame" not implemented')
    check_raises(lambda t, x: t.nn.functional.nll_loss(x[0, 0], x[0, 0].long()), [x],
                 match="Expected 1 or more dimensions (got 0)")


# -- binary cross entropy ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (4,), (3, 1), (3, 4)])
def test_bce_matches_torch(weight_shape, reduction, dtype):
    x = rnd((3, 4), dtype, 0.05, 0.95, seed=1)
    y = rnd((3, 4), dtype, 0.0, 1.0, seed=2)
    w = None if weight_shape is None else rnd(weight_shape, dtype, 0.2, 2.0, seed=3)
    check_op(lambda t, x, y, w: t.nn.functional.binary_cross_entropy(
        x, y, weight=None if w is None else w.detach(), reduction=reduction), [x, y, w],
        dtype=dtype)


def test_bce_clamps_logs_and_gradients_like_torch():
    # probabilities of exactly 0 and 1 (and next to them): torch's -100 floor on the logs and
    # 1e-12 floor on x (1 - x) in the gradient; its double backward pads by eps instead
    x = np.array([0.0, 1.0, 1e-60, 1 - 1e-16, 0.3, 0.5])
    y = np.array([1.0, 0.0, 0.5, 0.5, 0.2, 1.0])
    check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy(x, y.detach(),
                                                                    reduction="none"),
             [x, y], rtol=1e-6)
    check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy(x.detach(), y,
                                                                    reduction="sum"),
             [x[2:], y[2:]], rtol=1e-6)


def test_bce_rejects_bad_input_like_torch():
    x, y = rnd((3, 4), "float32", 0.1, 0.9), rnd((3, 4), "float32", 0.0, 1.0)
    bce = "binary_cross_entropy"
    check_raises(lambda t, x, y: getattr(t.nn.functional, bce)(x, y[0]), [x, y],
                 match="that is different to the input size (torch.Size([3, 4])) is deprecated")
    check_raises(lambda t, x, y: getattr(t.nn.functional, bce)(x, y.double()), [x, y],
                 match="Found dtype Double but expected Float")
    check_raises(lambda t, x, y: getattr(t.nn.functional, bce)(x * 3, y), [x, y],
                 match="all elements of input should be between 0 and 1")
    check_raises(lambda t, x, y: getattr(t.nn.functional, bce)(x, y * 3), [x, y],
                 match="all elements of target should be between 0 and 1")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, bce)(x, y, weight=w),
                 [x, y, rnd((3,), "float32")], match="Attempting to broadcast a dimension")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, bce)(x, y, weight=w),
                 [x, y, rnd((2, 3, 4), "float32")],
                 match="output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, bce)(x, y,
                                                                   weight=w.requires_grad_()),
                 [x, y, rnd((4,), "float32")],
                 match="'binary_cross_entropy' is not differentiable with respect to argument "
                       "'weight'")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape,pos_shape", [(None, None), ((4,), None), (None, (4,)),
                                                    ((3, 1), (4,)), ((3, 4), (3, 4))])
def test_bce_with_logits_matches_torch(weight_shape, pos_shape, reduction, dtype):
    y = rnd((3, 4), dtype, 0.0, 1.0, seed=2)
    w = None if weight_shape is None else rnd(weight_shape, dtype, 0.2, 2.0, seed=3)
    pw = None if pos_shape is None else rnd(pos_shape, dtype, 0.2, 3.0, seed=4)
    check_op(lambda t, x, y, w, pw: t.nn.functional.binary_cross_entropy_with_logits(
        x, y, weight=None if w is None else w.detach(),
        pos_weight=None if pw is None else pw.detach(), reduction=reduction),
        [(3, 4), y, w, pw], dtype=dtype, low=-4, high=4)


def test_bce_with_logits_is_stable_and_exact_at_zero():
    x = np.array([-1000.0, -50.0, 0.0, 0.0, 30.0, 1000.0])
    y = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.5])
    for dtype in DTYPES:
        check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(
            x, y, reduction="none"), [x.astype(dtype), y.astype(dtype)], dtype=dtype)


def test_bce_with_logits_result_dtype_follows_target_like_torch():
    x, y = rnd((3,), "float64"), rnd((3,), "float32", 0.0, 1.0)
    check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, y), [x, y])
    check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(y, x), [x, y])
    check_raises(lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, y.long()),
                 [x, y], match="can't be cast to the desired output type Long")


def test_bce_with_logits_rejects_bad_input_like_torch():
    x, y = rnd((3, 4), "float32"), rnd((3, 4), "float32", 0.0, 1.0)
    f = "binary_cross_entropy_with_logits"
    check_raises(lambda t, x, y: getattr(t.nn.functional, f)(x, y[0]), [x, y],
                 match="Target size (torch.Size([4])) must be the same as input size "
                       "(torch.Size([3, 4]))")
    check_raises(lambda t, x, y, p: getattr(t.nn.functional, f)(x, y, pos_weight=p),
                 [x, y, rnd((3,), "float32")], match="must match the size of tensor b")
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, f)(x, y, weight=w),
                 [x, y, rnd((2, 3, 4), "float32")], match="doesn't match the broadcast shape")
    for arg in ("weight", "pos_weight"):
        check_raises(lambda t, x, y, w: getattr(t.nn.functional, f)(
            x, y, **{arg: w.requires_grad_()}), [x, y, rnd((4,), "float32")],
            match=f"not differentiable with respect to argument '{arg}'")
    check_raises(lambda t, x, y: getattr(t.nn.functional, f)(x, y, reduction="foo"), [x, y],
                 match="foo is not a valid value for reduction")


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses_accept_non_contiguous_input(fn):
    y = labels((5,), 4)
    check_op(lambda t, x, y: getattr(t.nn.functional, fn)(x.t(), y, label_smoothing=0.1)
             if fn == "cross_entropy" else getattr(t.nn.functional, fn)(x.t(), y),
             [(4, 5), y])


def _cotangent_double_backward(lib, fn, arrays):
    """d/du of <d loss/d x (cotangent u), v>: exercises the gradient of each fused backward
    op with respect to its incoming gradient."""
    ts = [lib.from_numpy(a.copy()) for a in arrays]
    x = ts[0].requires_grad_()
    out = fn(lib, *ts)
    u = lib.from_numpy(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
    u = u.to(out.dtype).requires_grad_()
    (g,) = lib.autograd.grad(out, x, u, create_graph=True)
    v = lib.from_numpy(np.cos(np.arange(g.numel())).reshape(tuple(g.shape))).to(g.dtype)
    (gu,) = lib.autograd.grad((g * v).sum(), u)
    return gu.detach().numpy()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", ["ce", "ce_smooth_weight", "nll_weight", "bce", "bce_logits"])
def test_fused_backward_ops_differentiate_in_the_cotangent(case, reduction):
    import numtorch
    import torch

    x = rnd((5, 4), "float64")
    y = labels((5,), 4, ignore=2)
    w = rnd((4,), "float64", 0.2, 2.0, seed=7)
    p = rnd((5, 4), "float64", 0.0, 1.0, seed=8)
    fns = {
        "ce": (lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction=reduction), [y]),
        "ce_smooth_weight": (lambda t, x, y, w: t.nn.functional.cross_entropy(
            x, y, weight=w, ignore_index=2, label_smoothing=0.2, reduction=reduction), [y, w]),
        "nll_weight": (lambda t, x, y, w: t.nn.functional.nll_loss(
            x, y, weight=w, ignore_index=2, reduction=reduction), [y, w]),
        "bce": (lambda t, x, p: t.nn.functional.binary_cross_entropy(
            x.sigmoid(), p, reduction=reduction), [p]),
        "bce_logits": (lambda t, x, p, w: t.nn.functional.binary_cross_entropy_with_logits(
            x, p, pos_weight=w, reduction=reduction), [p, w]),
    }
    fn, rest = fns[case]
    np.testing.assert_allclose(_cotangent_double_backward(numtorch, fn, [x] + rest),
                               _cotangent_double_backward(torch, fn, [x] + rest), rtol=1e-7,
                               atol=1e-10)
