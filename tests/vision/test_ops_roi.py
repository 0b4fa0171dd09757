"""roi_align / roi_pool: against torchvision's pure-Python RoIAlign (for RoIs whose samples
stay on the map, where it agrees with the compiled kernel), against brute-force NumPy
references of the compiled kernels' rules, hand-checked cases, and gradcheck."""

import math
import sys

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision.ops import RoIAlign as TvRoIAlign
from torchvision.ops import RoIPool as TvRoIPool

import numtorch
from numtorchvision import ops

# torchvision's eager pure-PyTorch RoIAlign (normally run through torch.compile when the
# compiled kernels are missing); it does not zero samples that fall off the map
_tv_roi_align = sys.modules["torchvision.ops.roi_align"]._roi_align.__wrapped__


def _rois(rng, n, batch, lo, hi, size, dtype=np.float32):
    xy = rng.uniform(lo, hi, (n, 2))
    wh = rng.uniform(0, size, (n, 2))
    b = rng.randint(0, batch, (n, 1))
    return np.concatenate([b, xy, xy + wh], 1).astype(dtype)


def _bilinear(img, y, x):
    """One RoIAlign sample of the compiled kernel: (C,) values at (y, x), 0 off the map."""
    h, w = img.shape[1:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0] + ly * lx * img[:, y1, x1])


def _roi_align_reference(x, rois, ph, pw, scale, sampling, aligned):
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for k, (b, x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        sx, sy = x1 * scale - off, y1 * scale - off
        rw, rh = x2 * scale - off - sx, y2 * scale - off - sy
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling if sampling > 0 else math.ceil(rh / ph)
        gw = sampling if sampling > 0 else math.ceil(rw / pw)
        for p in range(ph):
            for q in range(pw):
                acc = 0.0
                for iy in range(gh):
                    for ix in range(gw):
                        yy = sy + p * rh / ph + (iy + 0.5) * rh / ph / gh
                        xx = sx + q * rw / pw + (ix + 0.5) * rw / pw / gw
                        acc = acc + _bilinear(x[int(b)], yy, xx)
                out[k, :, p, q] = acc / max(gh * gw, 1)
    return out


def _roi_pool_reference(x, rois, ph, pw, scale):
    """RoIPool of the compiled kernel: values and (for the gradient) argmax positions."""
    k, c = len(rois), x.shape[1]
    h, w = x.shape[2:]
    out = np.zeros((k, c, ph, pw), x.dtype)
    where = {}
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(np.sign(v) * math.floor(abs(v) * scale + 0.5))
                          for v in (x1, y1, x2, y2))
        rh, rw = max(ey - sy + 1, 1), max(ex - sx + 1, 1)
        for p in range(ph):
            for q in range(pw):
                h0 = min(max(int(math.floor(p * rh / ph)) + sy, 0), h)
                h1 = min(max(int(math.ceil((p + 1) * rh / ph)) + sy, 0), h)
                w0 = min(max(int(math.floor(q * rw / pw)) + sx, 0), w)
                w1 = min(max(int(math.ceil((q + 1) * rw / pw)) + sx, 0), w)
                if h1 <= h0 or w1 <= w0:
                    continue
                win = x[int(b), :, h0:h1, w0:w1].reshape(c, -1)
                best = win.argmax(1)
                out[r, :, p, q] = win[np.arange(c), best]
                for ch in range(c):
                    where[(r, ch, p, q)] = (int(b), ch, h0 + best[ch] // (w1 - w0),
                                            w0 + best[ch] % (w1 - w0))
    return out, where


@pytest.mark.parametrize("sampling", [-1, 2])
@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_align_matches_torchvision_inside_the_map(sampling, aligned, scale):
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 10, 12).astype(np.float32)
    rois = _rois(rng, 12, 2, 0.0, 4.0 / scale, 5.0 / scale)
    tx = torch.tensor(x, requires_grad=True)
    nx = numtorch.tensor(x, requires_grad=True)
    t = _tv_roi_align(tx, torch.tensor(rois), scale, 3, 4, sampling, aligned)
    n = ops.roi_align(nx, numtorch.tensor(rois), (3, 4), scale, sampling, aligned)
    assert n.shape == t.shape and n.dtype == numtorch.float32
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = rng.randn(*t.shape).astype(np.float32)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("aligned", [False, True])
def test_roi_align_off_the_map_follows_the_kernel(aligned):
    rng = np.random.RandomState(1)
    x = rng.randn(2, 2, 7, 9)
    rois = _rois(rng, 10, 2, -6.0, 14.0, 9.0, np.float64)
    rois[0, 1:] = [-3.0, -2.5, -1.5, -1.2]  # entirely off the map: zeros
    rois[1, 1:] = [2.0, 2.0, 2.0, 2.0]      # a point
    for sampling in (-1, 3):
        ref = _roi_align_reference(x, rois, 2, 3, 0.75, sampling, aligned)
        n = ops.roi_align(numtorch.tensor(x), numtorch.tensor(rois), [2, 3], 0.75, sampling,
                          aligned)
        assert n.dtype == numtorch.float64
        np.testing.assert_allclose(n.numpy(), ref, rtol=1e-10, atol=1e-12)
    assert not n[0].numpy().any()


def test_roi_align_list_of_boxes_and_module():
    rng = np.random.RandomState(2)
    x = numtorch.tensor(rng.randn(2, 4, 8, 8).astype(np.float32))
    per_image = [numtorch.tensor(_rois(rng, 3, 1, 0, 4, 4)[:, 1:]),
                 numtorch.tensor(_rois(rng, 2, 1, 0, 4, 4)[:, 1:])]
    as_rows = numtorch.cat([numtorch.cat([numtorch.full((len(b), 1), float(i)), b], 1)
                            for i, b in enumerate(per_image)])
    a = ops.roi_align(x, per_image, 2, 1.0, 2)
    b = ops.RoIAlign(2, 1.0, 2)(x, as_rows)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert repr(ops.RoIAlign((2, 3), 0.5, 2, True)) == repr(TvRoIAlign((2, 3), 0.5, 2, True))
    assert ops.roi_align(x, numtorch.zeros(0, 5), 3).shape == (0, 4, 3, 3)


def test_roi_align_gradcheck_first_and_second_order():
    rng = np.random.RandomState(3)
    x = numtorch.tensor(rng.randn(2, 2, 6, 7), requires_grad=True)
    rois = numtorch.tensor(_rois(rng, 4, 2, -1.0, 5.0, 4.0, np.float64))
    fn = lambda t: ops.roi_align(t, rois, (2, 3), 1.0, -1, True)
    assert numtorch.autograd.gradcheck(fn, (x,))
    assert numtorch.autograd.gradgradcheck(fn, (x,))


def test_roi_pool_hand_checked():
    x = numtorch.arange(2 * 1 * 4 * 5, dtype=numtorch.float32).reshape(2, 1, 4, 5)
    rois = numtorch.tensor([[1, 0, 0, 4, 3], [0, 1, 1, 2, 2], [0, 10, 10, 12, 12]],
                           dtype=numtorch.float32)
    out = ops.roi_pool(x, rois, 2)
    # RoI 0 covers all of image 1 (values 20..39): bins rows {0,1},{2,3} x cols {0,1,2},{2,3,4}
    assert out[0, 0].tolist() == [[27.0, 29.0], [37.0, 39.0]]
    # RoI 1 covers rows/cols 1..2 of image 0: one cell per bin
    assert out[1, 0].tolist() == [[6.0, 7.0], [11.0, 12.0]]
    # RoI 2 lies off the map: every bin is empty and gives 0
    assert out[2, 0].tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_roi_pool_matches_reference_values_and_gradient(scale):
    rng = np.random.RandomState(4)
    x = rng.randn(2, 3, 9, 11).astype(np.float32)
    rois = _rois(rng, 15, 2, -4.0 / scale, 12.0 / scale, 9.0 / scale)
    ref, where = _roi_pool_reference(x, rois, 3, 2, scale)
    nx = numtorch.tensor(x, requires_grad=True)
    out = ops.roi_pool(nx, numtorch.tensor(rois), (3, 2), scale)
    np.testing.assert_array_equal(out.detach().numpy(), ref)
    g = rng.randn(*ref.shape).astype(np.float32)
    out.backward(numtorch.tensor(g))
    expected = np.zeros_like(x)
    for (r, ch, p, q), pos in where.items():
        expected[pos] += g[r, ch, p, q]
    np.testing.assert_allclose(nx.grad.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_roi_pool_gradcheck_first_and_second_order_and_module():
    rng = np.random.RandomState(5)
    # distinct values, so the maxima are unique and the pooling is differentiable
    x = numtorch.tensor(rng.permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 7.0,
                        requires_grad=True)
    rois = numtorch.tensor(_rois(rng, 5, 2, -1.0, 5.0, 4.0, np.float64))
    fn = lambda t: ops.roi_pool(t, rois, (2, 2), 1.0)
    assert numtorch.autograd.gradcheck(fn, (x,))
    assert numtorch.autograd.gradgradcheck(fn, (x,))
    assert repr(ops.RoIPool((2, 3), 0.5)) == repr(TvRoIPool((2, 3), 0.5))
    np.testing.assert_array_equal(ops.RoIPool(2, 1.0)(x, rois).detach().numpy(),
                                  fn(x).detach().numpy())


@pytest.mark.parametrize("fn", [ops.roi_align, ops.roi_pool])
def test_roi_errors(fn):
    x = numtorch.zeros(1, 2, 5, 5)
    with pytest.raises(AssertionError, match=r"Tensor\[K, 5\]"):
        fn(x, numtorch.zeros(3, 4), 2)
    with pytest.raises(AssertionError, match=r"List\[Tensor\[L, 4\]\]"):
        fn(x, [numtorch.zeros(3, 5)], 2)
    with pytest.raises(RuntimeError, match="same type as tensor for argument #2 'rois'"):
        fn(x, numtorch.zeros(3, 5, dtype=numtorch.float64), 2)


def test_roi_align_without_boxes_stays_in_the_graph():
    # torchvision's kernel returns an empty result that is still connected to the input, so
    # a pyramid level that received no box gets a zero gradient rather than None
    x = torch.randn(1, 2, 5, 5, requires_grad=True)
    _tv_roi_align(x, torch.zeros(0, 5), 1.0, 2, 2, -1, False).sum().backward()
    nx = numtorch.randn(1, 2, 5, 5, requires_grad=True)
    out = ops.roi_align(nx, numtorch.zeros(0, 5), 2)
    assert out.shape == (0, 2, 2, 2)
    out.sum().backward()
    assert nx.grad is not None and x.grad is not None
    assert not nx.grad.any()
