"""ps_roi_align, ps_roi_pool, deform_conv2d and MultiScaleRoIAlign.

torchvision's compiled kernels do not load with the CPU torch wheel, so these are checked
against hand-worked cases, references built from other (independently tested) operators,
brute-force NumPy loops, and gradcheck; MultiScaleRoIAlign is compared with torchvision's
own module, its RoIAlign replaced by torchvision's pure-Python one."""

import math
import sys
from collections import OrderedDict

import numpy as np
import pytest
import torch
import torchvision

import numtorch
import numtorchvision
from numtorchvision import ops


def test_public_names_include_torchvisions():
    assert set(torchvision.ops.__all__) <= set(ops.__all__)
    # and the submodules people import losses from
    from numtorchvision.ops.ciou_loss import complete_box_iou_loss
    from numtorchvision.ops.diou_loss import distance_box_iou_loss
    from numtorchvision.ops.giou_loss import generalized_box_iou_loss
    assert generalized_box_iou_loss is ops.generalized_box_iou_loss
    assert distance_box_iou_loss is ops.distance_box_iou_loss
    assert complete_box_iou_loss is ops.complete_box_iou_loss
    theirs = {n for n in dir(torchvision.ops) if not n.startswith("_")}
    assert theirs <= {n for n in dir(ops) if not n.startswith("_")}


# -- position-sensitive pooling ----------------------------------------------------------------

_ROIS = np.array([[0, 1.2, 0.3, 7.5, 6.1], [1, -2, -1, 4, 3], [0, 3, 3, 3.2, 3.1],
                  [1, 0, 0, 20, 20], [0, 8.6, 2.4, 10.9, 8.8]])


def _input(c=12, seed=0):
    return np.random.RandomState(seed).randn(2, c, 9, 11)


@pytest.mark.parametrize("sampling", [-1, 1, 2])
@pytest.mark.parametrize("scale", [1.0, 0.8])
def test_ps_roi_align_reads_each_bins_own_channel(sampling, scale):
    # bin (p, q) of output channel c equals that bin of aligned RoIAlign on channel
    # (c * PH + p) * PW + q
    x = numtorch.tensor(_input())
    rois = numtorch.tensor(_ROIS)
    out = ops.ps_roi_align(x, rois, (3, 2), scale, sampling).numpy()
    full = ops.roi_align(x, rois, (3, 2), scale, sampling, aligned=True).numpy()
    assert out.shape == (5, 2, 3, 2)
    for c in range(2):
        for p in range(3):
            for q in range(2):
                np.testing.assert_allclose(out[:, c, p, q], full[:, (c * 3 + p) * 2 + q, p, q],
                                           rtol=1e-12, atol=1e-12)


def test_ps_roi_align_hand_case():
    # a 1-channel-per-bin map holding x + 10 y; RoI (0.5, 0.5)-(4.5, 4.5) shifted by half a
    # pixel is (0, 0)-(4, 4): 2x2 bins of side 2, one sample at each bin centre
    yy, xx = np.mgrid[0:6, 0:6].astype(np.float32)
    plane = xx + 10 * yy
    x = numtorch.tensor(np.stack([plane + 100 * k for k in range(4)])[None])
    rois = numtorch.tensor([[0, 0.5, 0.5, 4.5, 4.5]])
    out = ops.ps_roi_align(x, rois, 2, 1.0, 1)
    # bin (p, q) samples (y, x) = (1 + 2p, 1 + 2q) of channel 2p + q
    expect = [[(1 + 10) + 0, (3 + 10) + 100], [(1 + 30) + 200, (3 + 30) + 300]]
    np.testing.assert_allclose(out.numpy()[0, 0], expect)
    assert out.dtype == numtorch.float32


def _ps_pool_reference(x, rois, ph, pw, scale):
    k, cout = len(rois), x.shape[1] // (ph * pw)
    height, width = x.shape[2:]
    out = np.zeros((k, cout, ph, pw))

    def rnd(v):
        return int(math.copysign(math.floor(abs(v) + 0.5), v))

    for i, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = rnd(x1 * scale), rnd(y1 * scale), rnd(x2 * scale), rnd(y2 * scale)
        bh, bw = max(ey - sy, 1) / ph, max(ex - sx, 1) / pw
        for p in range(ph):
            # torchvision's forward kernel clips the edges to the last row/column index
            hs = min(max(math.floor(p * bh) + sy, 0), height - 1)
            he = min(max(math.ceil((p + 1) * bh) + sy, 0), height - 1)
            for q in range(pw):
                ws = min(max(math.floor(q * bw) + sx, 0), width - 1)
                we = min(max(math.ceil((q + 1) * bw) + sx, 0), width - 1)
                if he > hs and we > ws:
                    for c in range(cout):
                        out[i, c, p, q] = x[int(b), (c * ph + p) * pw + q, hs:he, ws:we].mean()
    return out


@pytest.mark.parametrize("scale", [1.0, 0.8, 0.5])
def test_ps_roi_pool_is_the_mean_of_each_bin(scale):
    x = _input()
    out = ops.ps_roi_pool(numtorch.tensor(x), numtorch.tensor(_ROIS), (3, 2), scale)
    np.testing.assert_allclose(out.numpy(), _ps_pool_reference(x, _ROIS, 3, 2, scale),
                               rtol=1e-12, atol=1e-12)


def test_ps_roi_pool_hand_case():
    x = np.arange(4 * 16, dtype=np.float32).reshape(1, 4, 4, 4)
    out = ops.ps_roi_pool(numtorch.tensor(x), numtorch.tensor([[0, 0, 0, 4, 4.]]), 2)
    # channel 2p + q, rows 2p..2p+1, columns 2q..2q+1, except that the kernel's bins stop
    # before the last row and column (edges clipped to index 3)
    expect = [[x[0, 2 * p + q, 2 * p:min(2 * p + 2, 3), 2 * q:min(2 * q + 2, 3)].mean()
               for q in range(2)] for p in range(2)]
    np.testing.assert_allclose(out.numpy()[0, 0], expect)


@pytest.mark.parametrize("fn", ["ps_roi_align", "ps_roi_pool"])
def test_ps_pooling_gradients(fn):
    x = numtorch.tensor(np.random.RandomState(1).randn(2, 6, 5, 6), requires_grad=True)
    rois = numtorch.tensor(_ROIS[[0, 1, 4]] * 0.5)
    f = (lambda t: ops.ps_roi_align(t, rois, (3, 2), 0.8, -1)) if fn == "ps_roi_align" else \
        (lambda t: ops.ps_roi_pool(t, rois, (3, 2), 0.8))
    assert numtorch.autograd.gradcheck(f, (x,))
    assert numtorch.autograd.gradgradcheck(f, (x,))


def test_ps_pooling_boxes_as_a_list_and_modules():
    x = numtorch.tensor(_input(seed=2))
    rois = numtorch.tensor(_ROIS)
    as_list = [rois[rois[:, 0] == b][:, 1:] for b in (0, 1)]
    order = np.argsort(_ROIS[:, 0], kind="stable")
    for fn, mod in ((ops.ps_roi_align, ops.PSRoIAlign((3, 2), 0.8, 2)),
                    (ops.ps_roi_pool, ops.PSRoIPool((3, 2), 0.8))):
        extra = (2,) if fn is ops.ps_roi_align else ()
        ref = fn(x, rois, (3, 2), 0.8, *extra).numpy()[order]
        np.testing.assert_array_equal(fn(x, as_list, (3, 2), 0.8, *extra).numpy(), ref)
        np.testing.assert_array_equal(mod(x, as_list).numpy(), ref)
    assert repr(ops.PSRoIAlign(2, 0.5, 2)) == repr(torchvision.ops.PSRoIAlign(2, 0.5, 2))
    assert repr(ops.PSRoIPool((2, 3), 0.5)) == repr(torchvision.ops.PSRoIPool((2, 3), 0.5))


def test_ps_pooling_errors():
    x = numtorch.zeros(1, 5, 4, 4)
    with pytest.raises(RuntimeError, match="multiple of pooling height"):
        ops.ps_roi_align(x, numtorch.tensor([[0, 0, 0, 2, 2.]]), 2)
    with pytest.raises(AssertionError, match="Tensor\\[K, 5\\]"):
        ops.ps_roi_pool(x, numtorch.zeros(3, 4), 2)
    assert ops.ps_roi_pool(numtorch.zeros(1, 8, 4, 4), numtorch.zeros(0, 5), 2).shape == \
        (0, 2, 2, 2)


# -- deformable convolution --------------------------------------------------------------------

_CONV = {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2)}


def _conv_data(seed=0):
    rng = np.random.RandomState(seed)
    return rng, rng.randn(2, 4, 7, 8), rng.randn(6, 2, 3, 3), rng.randn(6)


def test_deform_conv_without_offsets_is_a_grouped_convolution():
    _, x, w, b = _conv_data()
    ref = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b),
                                     groups=2, **_CONV).numpy()
    for offset_groups in (1, 2, 4):
        off = numtorch.zeros(2, 2 * offset_groups * 9, *ref.shape[2:], dtype=numtorch.float64)
        out = ops.deform_conv2d(numtorch.tensor(x), off, numtorch.tensor(w),
                                numtorch.tensor(b), **_CONV)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)
        ones = numtorch.ones(2, offset_groups * 9, *ref.shape[2:], dtype=numtorch.float64)
        out = ops.deform_conv2d(numtorch.tensor(x), off, numtorch.tensor(w),
                                numtorch.tensor(b), mask=ones * 0.5, **_CONV)
        np.testing.assert_allclose(out.numpy(), 0.5 * (ref - b[:, None, None])
                                   + b[:, None, None], rtol=1e-12, atol=1e-12)


def test_deform_conv_integer_offsets_shift_the_input():
    # (dy, dx) = (1, -1) everywhere reads x[y + 1, x - 1]: a convolution of the shifted map
    _, x, w, b = _conv_data(1)
    shifted = np.zeros_like(x)
    shifted[:, :, :-1, 1:] = x[:, :, 1:, :-1]
    ref = torch.nn.functional.conv2d(torch.tensor(shifted), torch.tensor(w), torch.tensor(b),
                                     groups=2, stride=(2, 1), dilation=(1, 2)).numpy()
    off = np.zeros((2, 18, *ref.shape[2:]))
    off[:, 0::2], off[:, 1::2] = 1, -1
    out = ops.deform_conv2d(numtorch.tensor(x), numtorch.tensor(off), numtorch.tensor(w),
                            numtorch.tensor(b), stride=(2, 1), dilation=(1, 2))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)


def test_deform_conv_fractional_offset_hand_case():
    # a 1x1 kernel reading (y + 0.25, x + 0.5) of the plane x + 10 y: bilinear is exact on a
    # linear map inside it; the last row and column fall partly off the map (zeros there)
    yy, xx = np.mgrid[0:3, 0:3].astype(np.float64)
    plane = (xx + 10 * yy)[None, None]
    off = np.zeros((1, 2, 3, 3))
    off[:, 0], off[:, 1] = 0.25, 0.5
    out = ops.deform_conv2d(numtorch.tensor(plane), numtorch.tensor(off),
                            numtorch.ones(1, 1, 1, 1, dtype=numtorch.float64)).numpy()[0, 0]
    np.testing.assert_allclose(out[:2, :2], (xx + 0.5 + 10 * (yy + 0.25))[:2, :2])
    # (y, x) = (0.25, 2.5): columns 2 (weight 0.5) and 3 (off the map)
    assert out[0, 2] == pytest.approx(0.5 * (0.75 * 2 + 0.25 * 12))
    assert out[2, 2] == pytest.approx(0.5 * 0.75 * 22)


def test_deform_conv_gradients():
    rng = np.random.RandomState(2)
    x, w, b = rng.randn(1, 4, 5, 4), rng.randn(4, 2, 2, 2), rng.randn(4)
    ho, wo = 3, 4
    args = [numtorch.tensor(v, requires_grad=True) for v in (
        x, rng.uniform(-1.7, 1.7, (1, 16, ho, wo)) + 0.013, w, b, rng.rand(1, 8, ho, wo))]

    def f(x, off, w, b, m):
        return ops.deform_conv2d(x, off, w, b, stride=(2, 1), padding=(1, 1), dilation=(1, 2),
                                 mask=m)

    assert numtorch.autograd.gradcheck(f, tuple(args))


def test_deform_conv_module_matches_torchvisions_construction():
    for kwargs in ({}, {"padding": 1, "groups": 2, "bias": False},
                   {"stride": 2, "dilation": 2}):
        torch.manual_seed(3)
        t = torchvision.ops.DeformConv2d(4, 6, 3, **kwargs)
        numtorch.manual_seed(3)
        n = ops.DeformConv2d(4, 6, 3, **kwargs)
        assert repr(n) == repr(t)
        assert list(n.state_dict()) == list(t.state_dict())
        for key, v in t.state_dict().items():
            np.testing.assert_array_equal(n.state_dict()[key].numpy(), v.numpy())
    m = ops.DeformConv2d(4, 6, 3, padding=1)
    out = m(numtorch.randn(1, 4, 5, 5), numtorch.zeros(1, 18, 5, 5))
    assert out.shape == (1, 6, 5, 5)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        ops.DeformConv2d(5, 6, 3, groups=2)


def test_deform_conv_errors():
    x, w = numtorch.zeros(1, 4, 5, 5), numtorch.zeros(2, 4, 3, 3)
    with pytest.raises(RuntimeError, match=r"multiple of 2 \* weight.size\[2\] \* "
                                           r"weight.size\[3\].\nGot offset.shape\[1\]=17, "
                                           r"while 2 \* weight.size\[2\] \* "
                                           r"weight.size\[3\]=18"):
        ops.deform_conv2d(x, numtorch.zeros(1, 17, 3, 3), w)
    with pytest.raises(RuntimeError, match="mask.shape"):
        ops.deform_conv2d(x, numtorch.zeros(1, 18, 3, 3), w, mask=numtorch.zeros(1, 5, 3, 3))
    with pytest.raises(RuntimeError, match="offset output dims"):
        ops.deform_conv2d(x, numtorch.zeros(1, 18, 4, 4), w)


# -- MultiScaleRoIAlign ------------------------------------------------------------------------

@pytest.fixture
def tv_poolers(monkeypatch):
    # torchvision's pure-PyTorch RoIAlign stands in for the compiled one (they agree while
    # samples stay on the map, which the boxes below do)
    pure = sys.modules["torchvision.ops.roi_align"]._roi_align.__wrapped__
    poolers = sys.modules["torchvision.ops.poolers"]

    def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1,
                  aligned=False):
        return pure(input, boxes, spatial_scale, output_size[0], output_size[1],
                    sampling_ratio, aligned)

    monkeypatch.setattr(poolers, "roi_align", roi_align)
    return poolers


def _pyramid(seed=0):
    rng = np.random.RandomState(seed)
    feats = OrderedDict((k, rng.randn(2, 3, 64 // 2 ** i, 48 // 2 ** i).astype(np.float32))
                        for i, k in enumerate(["p2", "p3", "p4", "p5", "pool"]))
    boxes = []
    for n in (6, 9):
        xy = rng.uniform(2, 100, (n, 2))
        wh = rng.uniform(4, 150, (n, 2))
        boxes.append(np.concatenate([xy, np.minimum(xy + wh, [180, 250])], 1)
                     .astype(np.float32))
    return feats, boxes, [(250, 190), (240, 180)]


@pytest.mark.parametrize("names,size,sampling,kw", [
    (["p2", "p3", "p4", "p5"], 3, 2, {}),
    (["p3"], (2, 4), -1, {}),
    (["p5", "p2", "p4"], [3, 2], 1, {"canonical_scale": 64, "canonical_level": 3}),
])
def test_multiscale_roi_align_matches_torchvision(tv_poolers, names, size, sampling, kw):
    feats, boxes, shapes = _pyramid()
    t = tv_poolers.MultiScaleRoIAlign(names, size, sampling, **kw)
    n = ops.MultiScaleRoIAlign(names, size, sampling, **kw)
    assert repr(n) == repr(t)
    tout = t({k: torch.tensor(v) for k, v in feats.items()},
             [torch.tensor(b) for b in boxes], shapes)
    nx = {k: numtorch.tensor(v, requires_grad=True) for k, v in feats.items()}
    nout = n(nx, [numtorch.tensor(b) for b in boxes], shapes)
    np.testing.assert_allclose(nout.detach().numpy(), tout.numpy(), rtol=1e-5, atol=1e-6)
    assert n.scales == t.scales
    assert (n.map_levels.k_min, n.map_levels.k_max) == (t.map_levels.k_min, t.map_levels.k_max)
    levels = n.map_levels([numtorch.tensor(b) for b in boxes])
    assert levels.tolist() == t.map_levels([torch.tensor(b) for b in boxes]).tolist()
    assert len(set(levels.tolist())) > 1 or len(names) == 1
    # gradients reach every pooled level, as torchvision's (zeros where a level got no box)
    tx = {k: torch.tensor(v, requires_grad=True) for k, v in feats.items()}
    tout = t(tx, [torch.tensor(b) for b in boxes], shapes)
    cot = np.random.RandomState(5).randn(*tout.shape).astype(np.float32)
    tout.backward(torch.tensor(cot))
    nout.backward(numtorch.tensor(cot))
    for k in feats:
        assert (nx[k].grad is None) == (tx[k].grad is None), k
        if tx[k].grad is not None:
            np.testing.assert_allclose(nx[k].grad.numpy(), tx[k].grad.numpy(), rtol=1e-5,
                                       atol=1e-5)


def test_multiscale_roi_align_in_a_pipeline_with_fpn():
    fpn = ops.FeaturePyramidNetwork([3, 3], 4)
    pool = ops.MultiScaleRoIAlign(["0", "1"], 2, 2)
    feats = OrderedDict([("0", numtorch.randn(1, 3, 16, 16)), ("1", numtorch.randn(1, 3, 8, 8))])
    out = pool(fpn(feats), [numtorch.tensor([[0, 0, 20, 20.], [4, 4, 60, 60]])], [(64, 64)])
    assert out.shape == (2, 4, 2, 2)
    assert isinstance(numtorchvision.ops.poolers.LevelMapper(2, 5), object)
