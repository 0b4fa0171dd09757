"""The detection machinery shared by every detector, against torchvision 0.28: box coders,
matchers, the positive/negative sampler (same draws under the same seed), anchor and
default-box generators, GeneralizedRCNNTransform (resize, normalise, batch, targets,
postprocess) and the resnet/mobilenet FPN backbones."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorchvision.models.detection import _utils as NU
from numtorchvision.models.detection import anchor_utils as NA
from numtorchvision.models.detection import backbone_utils as NB
from numtorchvision.models.detection import transform as NT
from numtorchvision.models.detection.image_list import ImageList as NImageList

from ._model_helpers import assert_outputs_close, randomize_values, to_numtorch
from .conftest import torchvision

TU = torchvision.models.detection._utils
TA = torchvision.models.detection.anchor_utils
TB = torchvision.models.detection.backbone_utils
TT = torchvision.models.detection.transform
TImageList = torchvision.models.detection.image_list.ImageList


def both(a):
    return torch.tensor(a), numtorch.tensor(a)


def same(n, t, rel=1e-6):
    assert_outputs_close(n, t, rel=rel)


def random_boxes(rs, n, size=100.0):
    xy = rs.rand(n, 2) * size
    wh = rs.rand(n, 2) * size / 2 + 1
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


@pytest.mark.parametrize("weights", [(1.0, 1.0, 1.0, 1.0), (10.0, 10.0, 5.0, 5.0)])
def test_box_coder_encode_decode(weights):
    rs = np.random.RandomState(0)
    gt = [random_boxes(rs, 7), random_boxes(rs, 3)]
    props = [random_boxes(rs, 7), random_boxes(rs, 3)]
    tc, nc = TU.BoxCoder(weights), NU.BoxCoder(weights)
    t_enc = tc.encode([torch.tensor(g) for g in gt], [torch.tensor(p) for p in props])
    n_enc = nc.encode([numtorch.tensor(g) for g in gt], [numtorch.tensor(p) for p in props])
    for a, b in zip(n_enc, t_enc):
        same(a, b)
    codes = (rs.randn(10, 12) * 2).astype(np.float32)
    codes[0, 2] = 50.0  # beyond bbox_xform_clip
    t_dec = tc.decode(torch.tensor(codes), [torch.tensor(p) for p in props])
    n_dec = nc.decode(numtorch.tensor(codes), [numtorch.tensor(p) for p in props])
    assert tuple(n_dec.shape) == (10, 3, 4)
    same(n_dec, t_dec)
    same(nc.decode_single(numtorch.tensor(codes), numtorch.tensor(np.concatenate(props))),
         tc.decode_single(torch.tensor(codes), torch.tensor(np.concatenate(props))))
    with pytest.raises(AssertionError, match="expects boxes of type list or tuple"):
        nc.decode(numtorch.tensor(codes), numtorch.tensor(props[0]))


@pytest.mark.parametrize("normalize", [True, False])
def test_box_linear_coder(normalize):
    rs = np.random.RandomState(1)
    anchors, gt = random_boxes(rs, 9), random_boxes(rs, 9)
    tc, nc = TU.BoxLinearCoder(normalize), NU.BoxLinearCoder(normalize)
    same(nc.encode(numtorch.tensor(anchors), numtorch.tensor(gt)),
         tc.encode(torch.tensor(anchors), torch.tensor(gt)))
    codes = rs.rand(2, 9, 4).astype(np.float32)
    a3 = np.stack([anchors, anchors])
    same(nc.decode(numtorch.tensor(codes), numtorch.tensor(a3)),
         tc.decode(torch.tensor(codes), torch.tensor(a3)))


@pytest.mark.parametrize("low_quality", [False, True])
def test_matcher(low_quality):
    rs = np.random.RandomState(2)
    q = (rs.rand(5, 40) ** 3).astype(np.float32)
    q[1, 7] = q[1, 9] = 0.999  # a tie for ground truth 1's best
    q[3] *= 0.2  # a ground truth with only poor matches
    t = TU.Matcher(0.7, 0.3, low_quality)(torch.tensor(q))
    n = NU.Matcher(0.7, 0.3, low_quality)(numtorch.tensor(q))
    assert n.tolist() == t.tolist() and n.dtype == numtorch.int64
    assert (n == -2).any() and (n == -1).any()
    ts = TU.SSDMatcher(0.5)(torch.tensor(q))
    ns = NU.SSDMatcher(0.5)(numtorch.tensor(q))
    assert ns.tolist() == ts.tolist()


def test_matcher_errors():
    m = NU.Matcher(0.7, 0.3)
    with pytest.raises(ValueError, match="No ground-truth boxes available"):
        m(numtorch.zeros(0, 4))
    with pytest.raises(ValueError, match="No proposal boxes available"):
        m(numtorch.zeros(3, 0))
    with pytest.raises(AssertionError, match="low_threshold should be <= high_threshold"):
        NU.Matcher(0.3, 0.7)


def test_sampler_same_draws_under_the_same_seed():
    rs = np.random.RandomState(3)
    labels = [rs.randint(-1, 3, size=n).astype(np.float32) for n in (300, 40, 5000)]
    torch.manual_seed(7)
    tp, tn = TU.BalancedPositiveNegativeSampler(64, 0.25)([torch.tensor(x) for x in labels])
    numtorch.manual_seed(7)
    np_, nn_ = NU.BalancedPositiveNegativeSampler(64, 0.25)([numtorch.tensor(x) for x in labels])
    for a, b in zip(np_ + nn_, tp + tn):
        assert a.dtype == numtorch.uint8 and a.tolist() == b.tolist()


def test_topk_min_and_box_losses():
    rs = np.random.RandomState(4)
    x = numtorch.zeros(3, 5)
    assert NU._topk_min(x, 10, 1) == 5 and NU._topk_min(x, 2, 0) == 2
    anchors, gt = random_boxes(rs, 6), random_boxes(rs, 6)
    reg = (rs.randn(6, 4) * 0.1).astype(np.float32)
    for kind in ("l1", "smooth_l1", "giou", "diou", "ciou"):
        t = TU._box_loss(kind, TU.BoxCoder((1.0, 1.0, 1.0, 1.0)), torch.tensor(anchors),
                         torch.tensor(gt), torch.tensor(reg), {"beta": 0.5})
        n = NU._box_loss(kind, NU.BoxCoder((1.0, 1.0, 1.0, 1.0)), numtorch.tensor(anchors),
                         numtorch.tensor(gt), numtorch.tensor(reg), {"beta": 0.5})
        same(n, t, rel=1e-5)
    with pytest.raises(ValueError, match="Unsupported loss: l3"):
        NU._box_loss("l3", None, None, None, None)


@pytest.mark.parametrize("sizes,ratios", [
    (((32,), (64,), (128,)), ((0.5, 1.0, 2.0),) * 3),
    (((32, 64, 128),) * 2, ((0.5, 1.0, 2.0),) * 2),
    ((16, 40), (0.7, 1.3)),
])
def test_anchor_generator(sizes, ratios):
    tg, ng = TA.AnchorGenerator(sizes, ratios), NA.AnchorGenerator(sizes, ratios)
    assert ng.num_anchors_per_location() == tg.num_anchors_per_location()
    n_levels = len(tg.cell_anchors)
    shapes = [(1, 4, 24 // 2 ** i, 40 // 2 ** i) for i in range(n_levels)]
    t = tg(TImageList(torch.zeros(2, 3, 96, 160), [(90, 150), (96, 160)]),
           [torch.zeros(s) for s in shapes])
    n = ng(NImageList(numtorch.zeros(2, 3, 96, 160), [(90, 150), (96, 160)]),
           [numtorch.zeros(s) for s in shapes])
    assert len(n) == 2
    for a, b in zip(n, t):
        assert a.dtype == numtorch.float32
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_anchor_generator_level_mismatch():
    ng = NA.AnchorGenerator(((32,), (64,)), ((0.5, 1.0, 2.0),) * 2)
    with pytest.raises(AssertionError, match="There needs to be a match between the number"):
        ng(NImageList(numtorch.zeros(1, 3, 64, 64), [(64, 64)]), [numtorch.zeros(1, 2, 16, 16)])


@pytest.mark.parametrize("kw", [
    {"aspect_ratios": [[2], [2, 3], [2, 3], [2]]},
    {"aspect_ratios": [[2], [2, 3]], "steps": [8, 16], "clip": False},
    {"aspect_ratios": [[2, 3]], "scales": [0.2, 0.95]},
])
def test_default_box_generator(kw):
    tg, ng = TA.DefaultBoxGenerator(**kw), NA.DefaultBoxGenerator(**kw)
    assert repr(ng) == repr(tg)
    assert ng.num_anchors_per_location() == tg.num_anchors_per_location()
    shapes = [(1, 4, 10 // 2 ** i + 1, 12 // 2 ** i + 1) for i in range(len(kw["aspect_ratios"]))]
    t = tg(TImageList(torch.zeros(2, 3, 80, 96), [(80, 96)] * 2), [torch.zeros(s) for s in shapes])
    n = ng(NImageList(numtorch.zeros(2, 3, 80, 96), [(80, 96)] * 2),
           [numtorch.zeros(s) for s in shapes])
    for a, b in zip(n, t):
        same(a, b)
    with pytest.raises(ValueError, match="aspect_ratios and steps should have the same length"):
        NA.DefaultBoxGenerator([[2], [3]], steps=[8])


def make_images(rs, sizes):
    return [rs.rand(3, h, w).astype(np.float32) for h, w in sizes]


def make_targets(rs, sizes, masks=False, keypoints=False):
    out = []
    for h, w in sizes:
        b = random_boxes(rs, 3, size=min(h, w) / 2)
        t = {"boxes": b, "labels": np.array([1, 2, 1], dtype=np.int64)}
        if masks:
            t["masks"] = (rs.rand(3, h, w) > 0.5).astype(np.uint8)
        if keypoints:
            kp = rs.rand(3, 4, 3).astype(np.float32) * [w, h, 1]
            kp[..., 2] = (kp[..., 2] > 0.3)
            t["keypoints"] = kp.astype(np.float32)
        out.append(t)
    return out


@pytest.mark.parametrize("kw,train", [
    ({"min_size": 160, "max_size": 400}, False),
    ({"min_size": 160, "max_size": 200}, False),
    ({"min_size": (128, 160, 192), "max_size": 400}, True),
    ({"min_size": 160, "max_size": 400, "fixed_size": (150, 130), "size_divisible": 16}, True),
    ({"min_size": 160, "max_size": 400, "_skip_resize": True}, True),
])
def test_transform(kw, train):
    rs = np.random.RandomState(5)
    sizes = [(37, 53), (60, 41)]
    imgs = make_images(rs, sizes)
    targets = make_targets(rs, sizes, masks=True, keypoints=True)
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.25, 0.3]
    tt = TT.GeneralizedRCNNTransform(image_mean=mean, image_std=std, **kw).train(train)
    nt = NT.GeneralizedRCNNTransform(image_mean=mean, image_std=std, **kw).train(train)
    assert repr(nt) == repr(tt)
    torch.manual_seed(11)
    t_il, t_tg = tt([torch.tensor(i) for i in imgs],
                    [{k: torch.tensor(v) for k, v in t.items()} for t in targets])
    numtorch.manual_seed(11)
    n_il, n_tg = nt([numtorch.tensor(i) for i in imgs],
                    [{k: numtorch.tensor(v) for k, v in t.items()} for t in targets])
    assert n_il.image_sizes == [tuple(s) for s in t_il.image_sizes]
    same(n_il.tensors, t_il.tensors, rel=1e-5)
    for a, b in zip(n_tg, t_tg):
        assert sorted(a) == sorted(b)
        for k in b:
            assert a[k].dtype == getattr(numtorch, str(b[k].dtype).split(".")[1])
            if k == "masks":
                assert (a[k].numpy() == b[k].numpy()).all()
            else:
                same(a[k], b[k])
    # the caller's targets are left alone
    assert targets[0]["boxes"].shape == (3, 4)


def test_transform_postprocess_and_errors():
    rs = np.random.RandomState(6)
    nt = NT.GeneralizedRCNNTransform(160, 300, [0.0] * 3, [1.0] * 3).eval()
    tt = TT.GeneralizedRCNNTransform(160, 300, [0.0] * 3, [1.0] * 3).eval()
    boxes = random_boxes(rs, 4, 150)
    kps = rs.rand(4, 5, 3).astype(np.float32) * 150
    masks = rs.rand(4, 1, 28, 28).astype(np.float32)
    res = [{"boxes": boxes, "keypoints": kps, "masks": masks}]
    t = tt.postprocess([{k: torch.tensor(v) for k, v in r.items()} for r in res], [(160, 224)],
                       [(90, 130)])
    n = nt.postprocess([{k: numtorch.tensor(v) for k, v in r.items()} for r in res],
                       [(160, 224)], [(90, 130)])
    for k in ("boxes", "keypoints", "masks"):
        same(n[0][k], t[0][k], rel=1e-5)
    with pytest.raises(ValueError, match=r"images is expected to be a list of 3d tensors"):
        nt([numtorch.zeros(1, 3, 20, 20)])
    with pytest.raises(TypeError, match="Expected input images to be of floating type"):
        nt([numtorch.zeros(3, 20, 20, dtype=numtorch.uint8)])


def _copy(tmodel, nmodel):
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)


def _grads_same(tmodel, nmodel, rel=1e-4):
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters() if p.grad is not None)
    for (k, tp), (nk, np_) in zip(tmodel.named_parameters(), nmodel.named_parameters()):
        assert k == nk and tp.requires_grad == np_.requires_grad, k
        assert (tp.grad is None) == (np_.grad is None), k
        if tp.grad is not None:
            assert_outputs_close(np_.grad, tp.grad, rel=rel, floor=1e-3 * overall)


@pytest.mark.parametrize("kw", [
    {"backbone_name": "resnet18", "trainable_layers": 3},
    {"backbone_name": "resnet18", "trainable_layers": 5, "returned_layers": [2, 4]},
])
def test_resnet_fpn_backbone(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tb = randomize_values(TB.resnet_fpn_backbone(weights=None, **kw))
    nb = NB.resnet_fpn_backbone(weights=None, **kw)
    assert [(k, tuple(v.shape)) for k, v in nb.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in tb.state_dict().items()]
    _copy(tb, nb)
    x = np.random.RandomState(7).rand(2, 3, 64, 96).astype(np.float32)
    t = tb(torch.tensor(x))
    n = nb(numtorch.tensor(x))
    assert list(n) == list(t)
    loss_t = sum((v * v).sum() for v in t.values())
    loss_n = sum((v * v).sum() for v in n.values())
    for k in t:
        same(n[k], t[k], rel=1e-4)
    loss_t.backward()
    loss_n.backward()
    _grads_same(tb, nb)


@pytest.mark.parametrize("fpn,layers", [(True, 3), (False, 0), (True, 6)])
def test_mobilenet_backbone(fpn, layers):
    kw = {"backbone_name": "mobilenet_v3_large", "fpn": fpn, "trainable_layers": layers}
    tb = randomize_values(TB.mobilenet_backbone(weights=None, **kw))
    nb = NB.mobilenet_backbone(weights=None, **kw)
    _copy(tb, nb)
    assert nb.out_channels == tb.out_channels == 256
    x = np.random.RandomState(8).rand(1, 3, 64, 64).astype(np.float32)
    t, n = tb(torch.tensor(x)), nb(numtorch.tensor(x))
    if fpn:
        assert list(n) == list(t)
        for k in t:
            same(n[k], t[k], rel=1e-4)
    else:
        same(n, t, rel=1e-4)
    assert [p.requires_grad for p in nb.parameters()] == [p.requires_grad
                                                          for p in tb.parameters()]


def test_backbone_errors_and_trainable_layers():
    from numtorchvision.models import resnet18
    with pytest.raises(ValueError,
                       match=r"Trainable layers should be in the range \[0,5\], got 6"):
        NB._resnet_fpn_extractor(resnet18(), 6)
    with pytest.raises(ValueError, match=r"Each returned layer should be in the range \[1,4\]"):
        NB._resnet_fpn_extractor(resnet18(), 3, returned_layers=[0, 1])
    with pytest.warns(UserWarning, match="Changing trainable_backbone_layers has no effect"):
        assert NB._validate_trainable_layers(False, 2, 5, 3) == 5
    assert NB._validate_trainable_layers(True, None, 5, 3) == 3
    with pytest.raises(ValueError, match=r"Trainable backbone layers should be in the range"):
        NB._validate_trainable_layers(True, 7, 5, 3)


def test_overwrite_eps_and_retrieve_out_channels():
    nb = NB.resnet_fpn_backbone(backbone_name="resnet18", weights=None)
    NU.overwrite_eps(nb, 0.0)
    from numtorchvision.ops import FrozenBatchNorm2d
    assert all(m.eps == 0.0 for m in nb.modules() if isinstance(m, FrozenBatchNorm2d))
    assert NU.retrieve_out_channels(nb, (64, 64)) == [256] * 5
