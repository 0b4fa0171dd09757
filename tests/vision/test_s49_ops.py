"""Session 49: numtorchvision.ops.nms corners. torchvision's compiled nms does not load next to
the CPU torch wheel, so the oracle is the greedy reference of ``_detection_rcnn_reference``
run on real torch (its order is torch's descending sort, which puts NaN scores first, as the
compiled kernel's sort does); dtype errors assert the kernel's message text."""

import numpy as np
import pytest
import torch

import numtorch
from numtorchvision import ops

from ._detection_rcnn_reference import reference_nms


def _boxes(n, seed):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 20
    wh = rng.random((n, 2)) * 10 + 1
    return np.concatenate([xy, xy + wh], 1).astype(np.float32), rng.random(n).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("nan_at", [[0], [3], [2, 5], [11]])
def test_nms_nan_scores_sort_first(seed, nan_at):
    b, s = _boxes(12, seed)
    s[nan_at] = np.nan
    want = reference_nms(torch.from_numpy(b), torch.from_numpy(s), 0.3)
    got = ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s), 0.3)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype == numtorch.int64


def test_batched_nms_nan_scores():
    b, s = _boxes(12, 4)
    s[[1, 7]] = np.nan
    idxs = np.array([0, 1] * 6)
    # torchvision's coordinate trick, run on the torch reference
    tb = torch.from_numpy(b)
    offsets = torch.from_numpy(idxs).to(tb) * (tb.max() + 1)
    want = reference_nms(tb + offsets[:, None], torch.from_numpy(s), 0.3)
    got = ops.batched_nms(numtorch.from_numpy(b), numtorch.from_numpy(s),
                          numtorch.from_numpy(idxs), 0.3)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16"),
                                        ("int64", "Long"), ("int32", "Int")])
def test_nms_cpu_kernel_dtypes(dtype, name):
    b, s = _boxes(4, 0)
    boxes = numtorch.from_numpy(b).to(getattr(numtorch, dtype))
    for scores in (numtorch.from_numpy(s).to(getattr(numtorch, dtype)), numtorch.from_numpy(s)):
        with pytest.raises(RuntimeError, match=f"^\"nms_kernel\" not implemented for '{name}'$"):
            ops.nms(boxes, scores, 0.5)
    with pytest.raises(RuntimeError, match=f"not implemented for '{name}'"):
        ops.nms(boxes[:0], numtorch.from_numpy(s)[:0], 0.5)


def test_nms_mixed_float_types_message():
    b, s = _boxes(4, 0)
    with pytest.raises(RuntimeError, match="^dets should have the same type as scores$"):
        ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s).double(), 0.5)


def test_nms_under_autocast_runs_in_float32():
    b, s = _boxes(30, 5)
    want = ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s), 0.4)
    bb, sb = numtorch.from_numpy(b).to(numtorch.bfloat16), numtorch.from_numpy(s).half()
    with numtorch.autocast("cpu", dtype=numtorch.bfloat16):
        got = ops.nms(bb.float().to(numtorch.bfloat16), sb.to(numtorch.bfloat16), 0.4)
    ref = ops.nms(bb.float(), sb.to(numtorch.bfloat16).float(), 0.4)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    assert len(want) > 0


def _roi_pool_reference(x, rois, scale, ph_, pw_):
    """RoIPool by the compiled kernel's rules, element by element: coordinates rounded half
    away from zero, bins floor/ceil, a value counts when it exceeds the running max, which
    starts at -FLT_MAX (0 for an empty bin); the gradient goes to the first maximum."""
    _, c_, h_, w_ = x.shape
    out = np.zeros((len(rois), c_, ph_, pw_), x.dtype)
    arg = -np.ones(out.shape, np.int64)
    lowest = -float(np.finfo(np.float32).max)

    def rnd(v):
        return int(np.sign(v) * np.floor(abs(v) + 0.5))

    f = x.dtype.type
    for n, r in enumerate(rois):
        sw, sh, ew, eh = (rnd(float(f(r[i]) * f(scale))) for i in (1, 2, 3, 4))
        bh, bw = f(max(eh - sh + 1, 1)) / f(ph_), f(max(ew - sw + 1, 1)) / f(pw_)
        for ph, pw in np.ndindex(ph_, pw_):
            hs = min(max(int(np.floor(f(ph) * bh)) + sh, 0), h_)
            he = min(max(int(np.ceil(f(ph + 1) * bh)) + sh, 0), h_)
            ws = min(max(int(np.floor(f(pw) * bw)) + sw, 0), w_)
            we = min(max(int(np.ceil(f(pw + 1) * bw)) + sw, 0), w_)
            for c in range(c_):
                m, mi = (0.0 if (he <= hs or we <= ws) else lowest), -1
                for h, w in np.ndindex(he - hs, we - ws):
                    v = x[int(r[0]), c, hs + h, ws + w]
                    if v > m:
                        m, mi = v, (hs + h) * w_ + ws + w
                out[n, c, ph, pw], arg[n, c, ph, pw] = m, mi
    return out, arg


@pytest.mark.parametrize("scale,size", [(1.0, (2, 2)), (0.5, (3, 2)), (1.0, (4, 5)),
                                        (0.25, (1, 1))])
def test_roi_pool_nan_and_inf_follow_the_kernel(scale, size):
    rng = np.random.default_rng(0)
    x = np.round(rng.standard_normal((2, 3, 7, 9)), 1).astype(np.float32)  # ties too
    x[0, 0, 2:4, 2:4] = np.nan
    x[1, 1, :, :3] = -np.inf
    rois = np.array([[0, 0.5, 1.5, 6.5, 5.5], [1, -3, -2, 4, 3], [0, 2.5, 2.5, 2.5, 2.5],
                     [1, 8, 6, 20, 20], [0, 6, 5, 1, 1], [1, 0, 0, 2.4, 6.6],
                     [0, -0.5, -1.5, 3.5, 2.5]], np.float32)
    want, arg = _roi_pool_reference(x, rois, scale, *size)
    xt = numtorch.from_numpy(x.copy()).requires_grad_()
    got = ops.roi_pool(xt, numtorch.from_numpy(rois), size, scale)
    np.testing.assert_array_equal(got.detach().numpy(), want)
    go = rng.standard_normal(want.shape).astype(np.float32)
    got.backward(numtorch.from_numpy(go))
    grad = np.zeros(x.shape, np.float64)
    for idx in zip(*np.nonzero(arg >= 0)):
        b, c = int(rois[idx[0], 0]), idx[1]
        grad[b, c].reshape(-1)[arg[idx]] += go[idx]
    np.testing.assert_allclose(xt.grad.numpy(), grad, atol=1e-6)


def _ps_bins(r, scale, ph_, pw_, lim_h, lim_w, f):
    def rnd(v):
        return int(np.sign(v) * np.floor(abs(v) + 0.5))

    sw, sh, ew, eh = (rnd(float(f(r[i]) * f(scale))) for i in (1, 2, 3, 4))
    bh, bw = f(max(eh - sh, 1)) / f(ph_), f(max(ew - sw, 1)) / f(pw_)
    return {(ph, pw): (min(max(int(np.floor(f(ph) * bh)) + sh, 0), lim_h),
                       min(max(int(np.ceil(f(ph + 1) * bh)) + sh, 0), lim_h),
                       min(max(int(np.floor(f(pw) * bw)) + sw, 0), lim_w),
                       min(max(int(np.ceil(f(pw + 1) * bw)) + sw, 0), lim_w))
            for ph, pw in np.ndindex(ph_, pw_)}


def _ps_roi_pool_reference(x, rois, scale, ph_, pw_, grad_out):
    """PSRoIPool by the compiled kernels' rules: the forward clips bin edges to the last
    row/column index, the backward to the map's size; mean of the bin, 0 if empty."""
    _, c_, h_, w_ = x.shape
    out = np.zeros((len(rois), c_ // (ph_ * pw_), ph_, pw_), x.dtype)
    grad = np.zeros(x.shape, np.float64)
    for n, r in enumerate(rois):
        b = int(r[0])
        fwd = _ps_bins(r, scale, ph_, pw_, h_ - 1, w_ - 1, x.dtype.type)
        bwd = _ps_bins(r, scale, ph_, pw_, h_, w_, x.dtype.type)
        for co, ph, pw in np.ndindex(*out.shape[1:]):
            cin = (co * ph_ + ph) * pw_ + pw
            hs, he, ws, we = fwd[ph, pw]
            if he > hs and we > ws:
                out[n, co, ph, pw] = x[b, cin, hs:he, ws:we].sum() / ((he - hs) * (we - ws))
            hs, he, ws, we = bwd[ph, pw]
            if he > hs and we > ws:
                grad[b, cin, hs:he, ws:we] += grad_out[n, co, ph, pw] / ((he - hs) * (we - ws))
    return out, grad


@pytest.mark.parametrize("scale,size", [(1.0, (2, 2)), (0.5, (2, 4)), (1.0, (1, 1)),
                                        (2.0, (2, 1))])
def test_ps_roi_pool_bins_stop_before_the_last_row_and_column(scale, size):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 7, 9)).astype(np.float32)
    rois = np.array([[0, 0.5, 1.5, 6.5, 5.5], [1, -3, -2, 4, 3], [0, 2.5, 2.5, 2.5, 2.5],
                     [1, 5, 3, 20, 20], [0, 6, 5, 1, 1], [1, 0, 0, 8.4, 6.6], [0, 0, 0, 9, 7]],
                    np.float32)
    grad_out = rng.standard_normal((len(rois), 8 // (size[0] * size[1]), *size))
    want, grad = _ps_roi_pool_reference(x, rois, scale, *size, grad_out)
    xt = numtorch.from_numpy(x.copy()).requires_grad_()
    got = ops.ps_roi_pool(xt, numtorch.from_numpy(rois), size, scale)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-6, atol=1e-6)
    got.backward(numtorch.from_numpy(grad_out.astype(np.float32)))
    np.testing.assert_allclose(xt.grad.numpy(), grad, rtol=1e-5, atol=1e-6)
    # without autograd the same values
    plain = ops.ps_roi_pool(numtorch.from_numpy(x), numtorch.from_numpy(rois), size, scale)
    np.testing.assert_array_equal(plain.numpy(), got.detach().numpy())


def _bilinear(img, y, x):
    """The kernel's bilinear sample: ``(value, [(row, col, weight)])``; 0 outside
    [-1, size]; coordinates below 0 read the first cell, past the last cell the last."""
    h_, w_ = img.shape
    if not (-1.0 <= y <= h_ and -1.0 <= x <= w_):
        return 0.0, []
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    yh, xh = yl + 1, xl + 1
    if yl >= h_ - 1:
        yl = yh = h_ - 1
        y = float(yl)
    if xl >= w_ - 1:
        xl = xh = w_ - 1
        x = float(xl)
    ly, lx = y - yl, x - xl
    taps = [(yl, xl, (1 - ly) * (1 - lx)), (yl, xh, (1 - ly) * lx), (yh, xl, ly * (1 - lx)),
            (yh, xh, ly * lx)]
    return sum(w * img[a, b] for a, b, w in taps), taps


def _ps_roi_align_reference(x, rois, scale, ph_, pw_, ratio, grad_out):
    """PSRoIAlign by the compiled kernel's rules (half-pixel shift, no minimum size, sum over
    the samples divided by their count with no floor, so no samples gives 0 / 0)."""
    out = np.zeros((len(rois), x.shape[1] // (ph_ * pw_), ph_, pw_))
    grad = np.zeros(x.shape)
    for n, r in enumerate(rois):
        sw, sh, ew, eh = (float(r[i]) * scale - 0.5 for i in (1, 2, 3, 4))
        bh, bw = (eh - sh) / ph_, (ew - sw) / pw_
        gh = ratio if ratio > 0 else int(np.ceil((eh - sh) / ph_))
        gw = ratio if ratio > 0 else int(np.ceil((ew - sw) / pw_))
        for co, ph, pw in np.ndindex(*out.shape[1:]):
            img = x[int(r[0]), (co * ph_ + ph) * pw_ + pw]
            total, taps = 0.0, []
            for iy, ix in np.ndindex(max(gh, 0), max(gw, 0)):
                v, t = _bilinear(img, ph * bh + sh + (iy + .5) * bh / gh,
                                 pw * bw + sw + (ix + .5) * bw / gw)
                total, taps = total + v, taps + t
            with np.errstate(invalid="ignore"):
                out[n, co, ph, pw] = np.float64(total) / (gh * gw)
            for a, b, w in taps:
                grad[int(r[0]), (co * ph_ + ph) * pw_ + pw, a, b] += (
                    grad_out[n, co, ph, pw] * w / (gh * gw))
    return out, grad


@pytest.mark.parametrize("scale,size,ratio", [(1.0, (2, 2), -1), (0.5, (2, 4), -1),
                                              (1.0, (1, 1), 2), (1.0, (2, 2), 0)])
def test_ps_roi_align_empty_sampling_gives_nan(scale, size, ratio):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 8, 6, 7))
    rois = np.array([[0, 0.5, 1.5, 5.5, 4.5], [1, -3, -2, 4, 3], [0, 2.5, 2.5, 2.5, 2.5],
                     [1, 4, 3, 20, 20], [0, 6, 5, 1, 1], [0, 3, 1, 2, 5]])
    grad_out = rng.standard_normal((len(rois), 8 // (size[0] * size[1]), *size))
    want, grad = _ps_roi_align_reference(x, rois, scale, *size, ratio, grad_out)
    xt = numtorch.from_numpy(x.copy()).requires_grad_()
    got = ops.ps_roi_align(xt, numtorch.from_numpy(rois), size, scale, ratio)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-10, atol=1e-12)
    got.backward(numtorch.from_numpy(grad_out))
    np.testing.assert_allclose(xt.grad.numpy(), grad, rtol=1e-10, atol=1e-12)
    if ratio <= 0:
        assert np.isnan(want[2]).all()
