"""numtorchvision.ops box utilities, IoU losses and focal loss against torchvision (their
pure-Python implementations are importable with the CPU torch wheel), and NMS against a
brute-force reference and hand-checked cases (its compiled kernel is not)."""

import math

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import ops as tops

import numtorch
from numtorchvision import ops


def _boxes(rng, n, lo=0.0, hi=50.0, size=30.0):
    xy = rng.uniform(lo, hi, (n, 2))
    wh = rng.uniform(0.5, size, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


def _pair(a, requires_grad=False):
    t = torch.tensor(a, requires_grad=requires_grad)
    n = numtorch.tensor(a, requires_grad=requires_grad)
    return t, n


def _close(n, t, tol=1e-5):
    n = n.detach().numpy() if isinstance(n, numtorch.Tensor) else np.asarray(n)
    t = t.detach().numpy()
    assert n.shape == t.shape and n.dtype == t.dtype
    np.testing.assert_allclose(n, t, rtol=tol, atol=tol)


def test_math_constants_match_torch():
    for name in ("pi", "e", "inf", "newaxis"):
        assert getattr(numtorch, name) == getattr(torch, name)
    assert math.isnan(numtorch.nan)


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "cxcywh"])
def test_box_area_and_iou(fmt):
    rng = np.random.RandomState(0)
    a, b = _boxes(rng, 7), _boxes(rng, 5)
    ta, na = _pair(a, True)
    tb, nb = _pair(b, True)
    t_iou = tops.box_iou(ta, tb, fmt=fmt)
    n_iou = ops.box_iou(na, nb, fmt=fmt)
    _close(n_iou, t_iou)
    _close(ops.box_area(na, fmt=fmt), tops.box_area(ta, fmt=fmt))
    g = rng.randn(7, 5).astype(np.float32)
    t_iou.backward(torch.tensor(g))
    n_iou.backward(numtorch.tensor(g))
    _close(na.grad, ta.grad)
    _close(nb.grad, tb.grad)


def test_iou_variants_with_batch_dims_and_gradients():
    rng = np.random.RandomState(1)
    a = np.stack([_boxes(rng, 4) for _ in range(2)])
    b = np.stack([_boxes(rng, 3) for _ in range(2)])
    for name in ("generalized_box_iou", "distance_box_iou", "complete_box_iou"):
        ta, na = _pair(a, True)
        tb, nb = _pair(b, True)
        t = getattr(tops, name)(ta, tb)
        n = getattr(ops, name)(na, nb)
        _close(n, t)
        g = np.asarray(rng.randn(*t.shape), dtype=np.float32)
        t.backward(torch.tensor(g))
        n.backward(numtorch.tensor(g))
        _close(na.grad, ta.grad, 1e-4)
        _close(nb.grad, tb.grad, 1e-4)


def test_integer_boxes_are_upcast_like_torchvision():
    a = np.array([[0, 0, 10, 10], [5, 5, 15, 20]], dtype=np.int16)
    b = np.array([[2, 3, 8, 9]], dtype=np.int16)
    _close(ops.box_area(numtorch.tensor(a)), tops.box_area(torch.tensor(a)))
    _close(ops.box_iou(numtorch.tensor(a), numtorch.tensor(b)),
           tops.box_iou(torch.tensor(a), torch.tensor(b)))
    _close(ops.distance_box_iou(numtorch.tensor(a), numtorch.tensor(b)),
           tops.distance_box_iou(torch.tensor(a), torch.tensor(b)))


@pytest.mark.parametrize("pair", [("xyxy", "xywh"), ("xyxy", "cxcywh"), ("xywh", "xyxy"),
                                  ("cxcywh", "xyxy"), ("xywh", "cxcywh"), ("cxcywh", "xywh"),
                                  ("xyxy", "xyxy")])
def test_box_convert_axis_aligned(pair):
    a = _boxes(np.random.RandomState(2), 6)
    _close(ops.box_convert(numtorch.tensor(a), *pair), tops.box_convert(torch.tensor(a), *pair))


@pytest.mark.parametrize("pair", [("cxcywhr", "xywhr"), ("xywhr", "cxcywhr"),
                                  ("cxcywhr", "xyxyxyxy"), ("xyxyxyxy", "cxcywhr"),
                                  ("xywhr", "xyxyxyxy"), ("xyxyxyxy", "xywhr")])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_box_convert_rotated(pair, dtype):
    rng = np.random.RandomState(3)
    n = 5
    five = np.concatenate([rng.uniform(10, 40, (n, 2)), rng.uniform(2, 20, (n, 2)),
                           rng.uniform(-90, 90, (n, 1))], 1)
    src = five if pair[0] != "xyxyxyxy" else tops.box_convert(
        torch.tensor(five), "xywhr", "xyxyxyxy").numpy()
    src = src.astype(dtype)
    _close(ops.box_convert(numtorch.tensor(src), *pair),
           tops.box_convert(torch.tensor(src), *pair), 1e-4)


def test_box_convert_and_area_errors():
    a = numtorch.zeros(2, 4)
    for bad in [("xyxy", "abc"), ("abc", "xyxy")]:
        with pytest.raises(ValueError) as n_err:
            ops.box_convert(a, *bad)
        with pytest.raises(ValueError) as t_err:
            tops.box_convert(torch.zeros(2, 4), *bad)
        assert str(n_err.value) == str(t_err.value)
    with pytest.raises(ValueError) as n_err:
        ops.box_area(a, fmt="xyxyxyxy")
    with pytest.raises(ValueError) as t_err:
        tops.box_area(torch.zeros(2, 4), fmt="xyxyxyxy")
    assert str(n_err.value) == str(t_err.value)


def test_clip_remove_small_and_masks_to_boxes():
    rng = np.random.RandomState(4)
    a = _boxes(rng, 8, lo=-20, hi=60)
    _close(ops.clip_boxes_to_image(numtorch.tensor(a), (40, 30)),
           tops.clip_boxes_to_image(torch.tensor(a), (40, 30)))
    _close(ops.remove_small_boxes(numtorch.tensor(a), 12.0),
           tops.remove_small_boxes(torch.tensor(a), 12.0))
    masks = rng.rand(4, 9, 11) > 0.93
    masks[2] = False
    _close(ops.masks_to_boxes(numtorch.tensor(masks)), tops.masks_to_boxes(torch.tensor(masks)))


@pytest.mark.parametrize("name", ["generalized_box_iou_loss", "distance_box_iou_loss",
                                  "complete_box_iou_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_box_iou_losses(name, reduction):
    rng = np.random.RandomState(5)
    a, b = _boxes(rng, 6), _boxes(rng, 6)
    a[0] = b[0]  # a perfect match and a disjoint pair
    a[1] = [200, 200, 210, 220]
    ta, na = _pair(a, True)
    t = getattr(tops, name)(ta, torch.tensor(b), reduction=reduction)
    n = getattr(ops, name)(na, numtorch.tensor(b), reduction=reduction)
    _close(n, t)
    g = np.asarray(rng.randn(*t.shape), dtype=np.float32)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    _close(na.grad, ta.grad, 1e-4)
    with pytest.raises(ValueError) as n_err:
        getattr(ops, name)(na, numtorch.tensor(b), reduction="bad")
    with pytest.raises(ValueError) as t_err:
        getattr(tops, name)(ta, torch.tensor(b), reduction="bad")
    assert str(n_err.value) == str(t_err.value)


@pytest.mark.parametrize("alpha,gamma", [(0.25, 2), (-1, 1.5), (0.9, 0)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_sigmoid_focal_loss(alpha, gamma, reduction):
    rng = np.random.RandomState(6)
    x = rng.randn(5, 3).astype(np.float32) * 3
    y = (rng.rand(5, 3) > 0.5).astype(np.float32)
    tx, nx = _pair(x, True)
    t = tops.sigmoid_focal_loss(tx, torch.tensor(y), alpha, gamma, reduction)
    n = ops.sigmoid_focal_loss(nx, numtorch.tensor(y), alpha, gamma, reduction)
    _close(n, t)
    g = np.asarray(rng.randn(*t.shape), dtype=np.float32)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    _close(nx.grad, tx.grad, 1e-4)


def test_sigmoid_focal_loss_errors():
    x = numtorch.zeros(2)
    with pytest.raises(ValueError) as n_err:
        ops.sigmoid_focal_loss(x, x, alpha=2.0)
    with pytest.raises(ValueError) as t_err:
        tops.sigmoid_focal_loss(torch.zeros(2), torch.zeros(2), alpha=2.0)
    assert str(n_err.value) == str(t_err.value)


# -- NMS ---------------------------------------------------------------------------------------

def _nms_reference(boxes, scores, thr):
    """Greedy NMS written the slow, obvious way."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    suppressed = set()
    keep = []
    for pos, i in enumerate(order):
        if i in suppressed:
            continue
        keep.append(i)
        for j in order[pos + 1:]:
            xx1, yy1 = max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1])
            xx2, yy2 = min(boxes[i][2], boxes[j][2]), min(boxes[i][3], boxes[j][3])
            inter = max(0.0, xx2 - xx1) * max(0.0, yy2 - yy1)
            ai = (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1])
            aj = (boxes[j][2] - boxes[j][0]) * (boxes[j][3] - boxes[j][1])
            if inter / (ai + aj - inter) > thr:
                suppressed.add(j)
    return keep


def test_nms_hand_checked():
    boxes = numtorch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30],
                             [0, 0, 10, 10.5]], dtype=numtorch.float32)
    scores = numtorch.tensor([0.9, 0.8, 0.7, 0.95])
    # box 3 wins; IoU(3, 0) = 100/105 = 0.952, IoU(3, 1) = 85.5/119.5 = 0.7155,
    # IoU(0, 1) = 81/119 = 0.681; box 2 overlaps nothing
    assert ops.nms(boxes, scores, 0.5).tolist() == [3, 2]
    assert ops.nms(boxes, scores, 0.715).tolist() == [3, 2]
    assert ops.nms(boxes, scores, 0.716).tolist() == [3, 1, 2]
    assert ops.nms(boxes, scores, 0.99).tolist() == [3, 0, 1, 2]
    out = ops.nms(numtorch.zeros(0, 4), numtorch.zeros(0), 0.5)
    assert out.dtype == numtorch.int64 and out.shape == (0,)


@pytest.mark.parametrize("n,thr", [(50, 0.3), (300, 0.5), (300, 0.7)])
def test_nms_against_reference(n, thr):
    rng = np.random.RandomState(n)
    b = _boxes(rng, n, hi=100)
    s = rng.rand(n).astype(np.float32)
    s[:10] = s[10:20]  # ties keep index order
    out = ops.nms(numtorch.tensor(b), numtorch.tensor(s), thr)
    assert out.dtype == numtorch.int64
    assert out.tolist() == _nms_reference(b.tolist(), s.tolist(), thr)


def test_nms_large_input_streams_rows(monkeypatch):
    import numtorchvision.ops.boxes as boxes_mod
    rng = np.random.RandomState(7)
    b, s = _boxes(rng, 120, hi=100), rng.rand(120).astype(np.float32)
    full = ops.nms(numtorch.tensor(b), numtorch.tensor(s), 0.4).tolist()
    monkeypatch.setattr(boxes_mod, "_FULL_MATRIX_LIMIT", 10)
    assert ops.nms(numtorch.tensor(b), numtorch.tensor(s), 0.4).tolist() == full


def test_batched_nms_both_paths_agree_with_per_class_reference(monkeypatch):
    rng = np.random.RandomState(8)
    n = 200
    b = _boxes(rng, n, hi=60)
    s = rng.rand(n).astype(np.float32)
    idx = rng.randint(0, 4, n)
    expected = []
    for c in range(4):
        members = np.flatnonzero(idx == c)
        expected += [members[k] for k in _nms_reference(b[members].tolist(),
                                                       s[members].tolist(), 0.5)]
    expected = sorted(expected, key=lambda i: -s[i])
    tb, ts, ti = numtorch.tensor(b), numtorch.tensor(s), numtorch.tensor(idx)
    assert ops.batched_nms(tb, ts, ti, 0.5).tolist() == expected  # coordinate trick
    big = np.tile(b, (6, 1))  # > 4000 numbers: the per-class loop
    bs = np.concatenate([s] + [s - 2.0 * (k + 1) for k in range(5)])
    bi = np.tile(idx, 6) + np.repeat(np.arange(6) * 4, n)
    out = ops.batched_nms(numtorch.tensor(big), numtorch.tensor(bs), numtorch.tensor(bi), 0.5)
    assert out.tolist()[:len(expected)] == expected
    assert len(out) == 6 * len(expected)


@pytest.mark.parametrize("boxes,scores,message", [
    (np.zeros((3,)), np.zeros(3), "boxes should be a 2d tensor, got 1D"),
    (np.zeros((3, 5)), np.zeros(3), "boxes should have 4 elements in dimension 1, got 5"),
    (np.zeros((3, 4)), np.zeros((3, 1)), "scores should be a 1d tensor, got 2D"),
    (np.zeros((3, 4)), np.zeros(2),
     "boxes and scores should have same number of elements in dimension 0, got 3 and 2"),
])
def test_nms_errors(boxes, scores, message):
    with pytest.raises(RuntimeError, match=message):
        ops.nms(numtorch.tensor(boxes, dtype=numtorch.float32),
                numtorch.tensor(scores, dtype=numtorch.float32), 0.5)
