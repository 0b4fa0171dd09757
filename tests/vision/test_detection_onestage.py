"""numtorchvision's one-stage detectors (RetinaNet v1/v2, FCOS, SSD300-VGG16, SSDlite320-
MobileNetV3) against torchvision 0.28: registry, state-dict structure, weights enums, the
heads' initialisation draws, eval detections and training losses and gradients after a state
transfer, pretrained loading from a loopback server, and the builders' errors.

torchvision's NMS is a compiled op that does not load with the CPU torch wheel; its module
global ``nms`` is replaced here by a greedy reference written on torch, so torchvision's own
``batched_nms`` and postprocessing run unchanged around it.
"""

import os
import warnings

import numpy as np
import pytest
import torch
import torchvision
from torchvision.models import detection as TD

import numtorch
from numtorchvision.models import detection as ND
from numtorchvision import models as nm

from ._model_helpers import (image, publish, randomize_values, skipped_random_init, structure,
                             to_numtorch, torch_init_skipped)

NAMES = ["fcos_resnet50_fpn", "retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2",
         "ssd300_vgg16", "ssdlite320_mobilenet_v3_large"]
NO_DOWNLOAD = {"weights": None, "weights_backbone": None}


def _reference_nms(boxes, scores, iou_threshold):
    """Greedy NMS on torch: best first, drop every later box overlapping a kept one by more
    than the threshold."""
    order = scores.argsort(descending=True, stable=True)
    iou = torchvision.ops.box_iou(boxes[order], boxes[order])
    alive = torch.ones(len(order), dtype=torch.bool)
    keep = []
    for i in range(len(order)):
        if alive[i]:
            keep.append(i)
            alive &= ~(iou[i] > iou_threshold)
    return order[torch.tensor(keep, dtype=torch.int64)]


@pytest.fixture(autouse=True, scope="module")
def _torchvision_nms():
    # one torch thread: on a busy 2-core machine torch's worker threads spin-wait and the
    # float64 convolutions of this file take minutes instead of seconds
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(torchvision.ops.boxes, "nms", _reference_nms)
        yield
    torch.set_num_threads(threads)


def _tv_model(name, seed, **kw):
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(TD, name)(**NO_DOWNLOAD, **kw)
    model = randomize_values(model, seed)
    # norm layers whose names do not say so (MobileNet's, the heads' GroupNorms) got weights
    # near 0 there, which would wash the image out of deep maps and leave tied scores
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.GroupNorm)):
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=g))
    return model


def _pair(name, seed=0, **kw):
    tmodel = _tv_model(name, seed, **kw)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        nmodel = getattr(ND, name)(**NO_DOWNLOAD, **kw)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    return tmodel, nmodel


# small inputs for the FPN models; SSD's sizes are fixed by their default boxes
SMALL = {"min_size": 64, "max_size": 96}
EVAL_KW = {"topk_candidates": 40, "detections_per_img": 12}
SIZES = {"fcos_resnet50_fpn": [(60, 80), (72, 50)],
         "retinanet_resnet50_fpn": [(60, 80), (72, 50)],
         "retinanet_resnet50_fpn_v2": [(60, 80), (72, 50)],
         "ssd300_vgg16": [(90, 120)],
         "ssdlite320_mobilenet_v3_large": [(90, 120), (70, 64)]}


def _kw(name, **extra):
    kw = dict(extra)
    if not name.startswith("ssd"):
        kw.update(SMALL)
    return kw


def _images(name, seed):
    return [np.abs(image((3, h, w), seed=seed + i)) for i, (h, w) in enumerate(SIZES[name])]


def _targets(sizes, seed, num_classes=91):
    """One to three boxes per image, 25-60% of the image's sides, labels in 1..classes-1."""
    rng = np.random.RandomState(seed)
    out = []
    for h, w in sizes:
        n = rng.randint(1, 4)
        wh = rng.uniform(0.25, 0.6, (n, 2)) * [w, h]
        xy = rng.uniform(0, 1, (n, 2)) * ([w, h] - wh)
        out.append({"boxes": np.concatenate([xy, xy + wh], 1).astype(np.float32),
                    "labels": rng.randint(1, num_classes, n).astype(np.int64)})
    return out


def _as(lib, targets):
    return [{k: lib.tensor(v) for k, v in t.items()} for t in targets]


# ---------------------------------------------------------------- registry, structure, enums

def test_registry_and_public_names():
    listed = nm.list_models(module=ND)
    for name in NAMES:
        assert name in listed
        assert nm.get_model_builder(name) is getattr(ND, name)
    for sub in ("retinanet", "fcos", "ssd", "ssdlite"):
        ours, theirs = getattr(ND, sub), getattr(TD, sub)
        assert set(ours.__all__) == set(theirs.__all__)
        for public in ("RetinaNetHead", "RetinaNetClassificationHead", "RetinaNetRegressionHead",
                       "FCOSHead", "FCOSClassificationHead", "FCOSRegressionHead", "SSD",
                       "SSDHead", "SSDScoringHead", "SSDClassificationHead", "SSDRegressionHead",
                       "SSDFeatureExtractorVGG", "SSDLiteHead", "SSDLiteClassificationHead",
                       "SSDLiteRegressionHead", "SSDLiteFeatureExtractorMobileNet"):
            assert hasattr(ours, public) == hasattr(theirs, public), (sub, public)
    for name in ("RetinaNet", "FCOS", "RetinaNet_ResNet50_FPN_Weights", "FCOS_ResNet50_FPN_Weights",
                 "SSD300_VGG16_Weights", "SSDLite320_MobileNet_V3_Large_Weights", *NAMES):
        assert hasattr(ND, name)


def _transform_facts(w):
    t = w.transforms()
    return type(t).__name__, repr(t)


@pytest.mark.parametrize("name", NAMES)
def test_structure_and_weights_facts(name):
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        ours = getattr(ND, name)(**NO_DOWNLOAD)
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(TD, name)(**NO_DOWNLOAD)
    assert type(ours).__name__ == type(theirs).__name__
    assert structure(ours.state_dict()) == structure(theirs.state_dict())
    assert repr(ours.head) == repr(theirs.head)
    assert repr(ours.anchor_generator) == repr(theirs.anchor_generator)
    for attr in ("score_thresh", "nms_thresh", "detections_per_img", "topk_candidates",
                 "neg_to_pos_ratio", "center_sampling_radius"):
        assert getattr(ours, attr, None) == getattr(theirs, attr, None), attr
    assert ([p.requires_grad for p in ours.parameters()]
            == [p.requires_grad for p in theirs.parameters()])
    ow, tw = nm.get_model_weights(name), TD.__dict__[type(nm.get_model_weights(name).DEFAULT).__name__]
    assert ow.__name__ == tw.__name__ and list(ow.__members__) == list(tw.__members__)
    for key, t in tw.__members__.items():
        o = ow[key]
        assert repr(o) == repr(t) and o.url == t.url
        assert {k: repr(v) for k, v in o.meta.items()} == {k: repr(v) for k, v in t.meta.items()}
        assert _transform_facts(o) == _transform_facts(t)
    # the pretrained ResNet models use FrozenBatchNorm2d (no parameters) in the backbone
    frozen = name in ("retinanet_resnet50_fpn", "fcos_resnet50_fpn")
    count = sum(p.numel() for k, p in ours.named_parameters()
                if not (frozen and k.startswith("backbone.body") and "bn" in k
                        or frozen and k.startswith("backbone.body.layer") and ".downsample.1." in k))
    assert count == ow.DEFAULT.meta["num_params"]


BACKBONE_BUILDERS = {"retinanet": "resnet50", "fcos": "resnet50", "ssd": "vgg16",
                     "ssdlite": "mobilenet_v3_large"}


@pytest.mark.parametrize("name,layers", [("retinanet_resnet50_fpn", None),
                                         ("retinanet_resnet50_fpn_v2", 1),
                                         ("fcos_resnet50_fpn", 2), ("ssd300_vgg16", None),
                                         ("ssdlite320_mobilenet_v3_large", 3)])
def test_pretrained_backbone_structure(monkeypatch, name, layers):
    # with backbone weights: FrozenBatchNorm2d (v1 ResNets), the early stages frozen, the full
    # MobileNet tail. The backbone builders are wrapped to skip the download; the detection
    # builders still see the weights enum.
    module = name.split("_")[0].rstrip("0123456789")
    built = {}
    for D, skip in ((TD, torch_init_skipped), (ND, skipped_random_init)):
        sub = getattr(D, module)
        make = getattr(sub, BACKBONE_BUILDERS[module])
        monkeypatch.setattr(sub, BACKBONE_BUILDERS[module],
                            lambda *a, make=make, **k: make(*a, **{**k, "weights": None}))
        with warnings.catch_warnings(), skip():
            warnings.simplefilter("ignore")
            built[D] = getattr(D, name)(weights=None, weights_backbone="DEFAULT",
                                        trainable_backbone_layers=layers)
    ours, theirs = built[ND], built[TD]
    assert structure(ours.state_dict()) == structure(theirs.state_dict())
    assert ([(k, p.requires_grad) for k, p in ours.named_parameters()]
            == [(k, p.requires_grad) for k, p in theirs.named_parameters()])
    assert ([type(m).__name__ for m in ours.modules()]
            == [type(m).__name__ for m in theirs.modules()])
    assert not all(p.requires_grad for p in ours.parameters())


# ---------------------------------------------------------------- initialisation draws

def _same_draws(make_ours, make_theirs):
    numtorch.manual_seed(7)
    torch.manual_seed(7)
    ours, theirs = make_ours(), make_theirs()
    so, st = ours.state_dict(), theirs.state_dict()
    assert list(so) == list(st)
    for k in st:
        np.testing.assert_allclose(so[k].numpy(), st[k].numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=k)


@pytest.mark.parametrize("which", ["retinanet", "retinanet_gn", "fcos", "ssd", "ssdlite"])
def test_heads_draw_like_torchvision(which):
    from functools import partial
    if which.startswith("retinanet"):
        norm = (lambda lib: partial(lib.nn.GroupNorm, 8)) if which.endswith("gn") else (
            lambda lib: None)
        _same_draws(lambda: ND.retinanet.RetinaNetHead(16, 3, 5, norm_layer=norm(numtorch)),
                    lambda: TD.retinanet.RetinaNetHead(16, 3, 5, norm_layer=norm(torch)))
    elif which == "fcos":
        _same_draws(lambda: ND.fcos.FCOSHead(32, 1, 5, num_convs=2),
                    lambda: TD.fcos.FCOSHead(32, 1, 5, num_convs=2))
    elif which == "ssd":
        _same_draws(lambda: ND.ssd.SSDHead([8, 16], [4, 6], 5),
                    lambda: TD.ssd.SSDHead([8, 16], [4, 6], 5))
    else:
        _same_draws(lambda: ND.ssdlite.SSDLiteHead([8, 16], [6, 6], 5, numtorch.nn.BatchNorm2d),
                    lambda: TD.ssdlite.SSDLiteHead([8, 16], [6, 6], 5, torch.nn.BatchNorm2d))


def test_ssdlite_backbone_draws_like_torchvision():
    _same_draws(lambda: ND.ssdlite320_mobilenet_v3_large(**NO_DOWNLOAD, num_classes=3),
                lambda: TD.ssdlite320_mobilenet_v3_large(**NO_DOWNLOAD, num_classes=3))


@pytest.mark.parametrize("keys", ["flat", "wrong"])
def test_retinanet_head_loads_version1_checkpoints(keys):
    # version 1 of the RetinaNet heads had a flat conv/ReLU tower: its convolutions load into
    # the conv-norm-activation blocks of version 2 (and other names do not)
    import collections
    results = []
    for lib, D in ((torch, TD), (numtorch, ND)):
        lib.manual_seed(0)
        head = D.retinanet.RetinaNetClassificationHead(16, 3, 5)
        old = collections.OrderedDict()
        for k, v in head.state_dict().items():
            parts = k.split(".")
            if parts[0] == "conv":
                k = f"conv.{int(parts[1]) * (2 if keys == 'flat' else 1)}.{parts[3]}"
            old[k] = v.detach().clone() + 1
        old._metadata = collections.OrderedDict([("", {"version": 1})])
        fresh = D.retinanet.RetinaNetClassificationHead(16, 3, 5)
        res = fresh.load_state_dict(old, strict=False)
        results.append((sorted(res.missing_keys), sorted(res.unexpected_keys),
                        float(fresh.conv[3][0].weight.sum())))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-5)


# ---------------------------------------------------------------- eval detections

def _compare_detections(n_out, t_out, scale):
    assert len(n_out) == len(t_out)
    for n, t in zip(n_out, t_out):
        assert set(n) == set(t) == {"boxes", "scores", "labels"}
        assert n["labels"].dtype == numtorch.int64 and n["boxes"].dtype == numtorch.float32
        assert len(t["scores"]) > 0
        np.testing.assert_array_equal(n["labels"].numpy(), t["labels"].numpy())
        np.testing.assert_allclose(n["scores"].numpy(), t["scores"].numpy(), rtol=1e-4,
                                   atol=1e-6)
        np.testing.assert_allclose(n["boxes"].numpy(), t["boxes"].numpy(), rtol=0,
                                   atol=1e-4 * scale)


# FCOS' scores are sqrt(class * centre-ness) probabilities: with random weights, a lower
# threshold than the trained model's 0.2 keeps some
EVAL_EXTRA = {"fcos_resnet50_fpn": {"score_thresh": 0.05}}


@pytest.mark.parametrize("name", NAMES)
def test_eval_detections_after_state_transfer(name):
    kw = _kw(name, num_classes=7, **EVAL_KW, **EVAL_EXTRA.get(name, {}))
    tmodel, nmodel = _pair(name, seed=1, **kw)
    imgs = _images(name, seed=2)
    with torch.no_grad():
        t = tmodel.eval()([torch.tensor(x) for x in imgs])
    with numtorch.no_grad():
        n = nmodel.eval()([numtorch.tensor(x) for x in imgs])
    _compare_detections(n, t, scale=max(max(s) for s in SIZES[name]))


# ---------------------------------------------------------------- training losses, gradients

def _loss_and_grads(model, lib, imgs, targets):
    model.train()
    losses = model([lib.tensor(x) for x in imgs], _as(lib, targets))
    sum(losses.values()).backward()
    return losses, {k: p.grad for k, p in model.named_parameters() if p.grad is not None}


# float64 on both sides where the backbone has batch norms: their float32 training-mode
# statistics over small maps make the first layers' gradients agree to ~1e-3 only (float64:
# ~1e-12). SSD300's float64 convolutions at 300x300 take twice as long as float32, so it runs
# in float32, where its 0-255 inputs leave gradients equal to ~3e-3 of each tensor's largest
# (in float64 every gradient agrees to 1.4e-14, checked by hand).
TRAIN_DTYPE = {"ssd300_vgg16": (np.float32, 1e-5, 1e-2)}
# an image without boxes: all its anchors are background (one model of each loss code)
EMPTY_SECOND = {"retinanet_resnet50_fpn_v2", "fcos_resnet50_fpn", "ssdlite320_mobilenet_v3_large"}


@pytest.mark.parametrize("name", NAMES)
def test_training_losses_and_gradients(name):
    dtype, loss_tol, grad_tol = TRAIN_DTYPE.get(name, (np.float64, 1e-9, 1e-7))
    tmodel, nmodel = _pair(name, seed=3, **_kw(name, num_classes=6))
    if dtype == np.float64:
        tmodel, nmodel = tmodel.double(), nmodel.double()
    imgs = [x.astype(dtype) for x in _images(name, seed=4)]
    targets = [{"boxes": t["boxes"].astype(dtype), "labels": t["labels"]}
               for t in _targets(SIZES[name], seed=5, num_classes=6)]
    if name in EMPTY_SECOND:
        targets[1] = {"boxes": np.zeros((0, 4), dtype), "labels": np.zeros(0, np.int64)}
    lt, gt = _loss_and_grads(tmodel, torch, imgs, targets)
    ln, gn = _loss_and_grads(nmodel, numtorch, imgs, targets)
    assert list(ln) == list(lt)
    for k in lt:
        assert ln[k].dtype == getattr(numtorch, np.dtype(dtype).name) and ln[k].shape == ()
        np.testing.assert_allclose(ln[k].item(), lt[k].item(), rtol=loss_tol, err_msg=k)
    assert list(gn) == list(gt)
    overall = max(float(g.abs().max()) for g in gt.values())
    for k in gt:
        a, b = gn[k].numpy(), gt[k].numpy()
        assert np.abs(a - b).max() <= grad_tol * max(np.abs(b).max(), 1e-3 * overall), k


def test_sgd_steps_train_the_same():
    # a user's loop: three SGD steps (momentum, weight decay) of SSDlite with a frozen stem,
    # float64: the same losses each step, then the same weights and batch-norm statistics
    name = "ssdlite320_mobilenet_v3_large"
    tmodel, nmodel = _pair(name, seed=13, num_classes=4)
    tmodel, nmodel = tmodel.double().train(), nmodel.double().train()
    for model in (tmodel, nmodel):
        for p in model.backbone.features[0][0].parameters():
            p.requires_grad_(False)
    imgs = [x.astype(np.float64) for x in _images(name, seed=14)]
    targets = [{"boxes": t["boxes"].astype(np.float64), "labels": t["labels"]}
               for t in _targets(SIZES[name], seed=15, num_classes=4)]
    history = []
    for lib, model in ((torch, tmodel), (numtorch, nmodel)):
        # a small step: with random weights and lr 0.01 the 1e-10 rounding differences of the
        # first step grew ~100x per step (2.9e-6 by step 3); at 1e-4 they stay ~5e-10
        opt = lib.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-4,
                            momentum=0.9, weight_decay=1e-4)
        steps = []
        for _ in range(3):
            opt.zero_grad()
            losses = model([lib.tensor(x) for x in imgs], _as(lib, targets))
            total = sum(losses.values())
            total.backward()
            opt.step()
            steps.append(total.item())
        history.append(steps)
    np.testing.assert_allclose(history[1], history[0], rtol=1e-9)
    for (k, t), (_, n) in zip(tmodel.state_dict().items(), nmodel.state_dict().items()):
        a, b = n.numpy(), t.numpy()
        # the head's batch norms over 1x1 maps of 2 images: running means to ~5e-10
        assert np.abs(a - b).max() <= 1e-8 * max(np.abs(b).max(), 1e-3), k


def test_fcos_center_sampling_assignment():
    # the same locations are assigned to the same boxes: nested and overlapping boxes, the
    # whole image, several levels
    tmodel, nmodel = _pair("fcos_resnet50_fpn", seed=6, num_classes=4, **SMALL)
    sizes = [(64, 96)]
    targets = _targets(sizes, seed=7, num_classes=4)
    targets[0]["boxes"] = np.array([[2, 3, 40, 50], [10, 10, 30, 28], [50, 5, 95, 60],
                                    [0, 0, 96, 64]], np.float32)
    targets[0]["labels"] = np.array([1, 2, 3, 1], np.int64)
    anchors_t = tmodel.anchor_generator
    feats = [torch.zeros(1, 1, 64 // s, 96 // s) for s in (8, 16, 32, 64, 128)]
    feats[-1] = torch.zeros(1, 1, 1, 1)
    from torchvision.models.detection.image_list import ImageList as TIL
    from numtorchvision.models.detection.image_list import ImageList as NIL
    at = anchors_t(TIL(torch.zeros(1, 3, 64, 96), [(64, 96)]), feats)
    an = nmodel.anchor_generator(NIL(numtorch.zeros(1, 3, 64, 96), [(64, 96)]),
                                 [numtorch.zeros(*f.shape) for f in feats])
    per_level = [f.size(2) * f.size(3) for f in feats]
    captured = {}
    orig = TD.fcos.FCOSHead.compute_loss
    TD.fcos.FCOSHead.compute_loss = lambda self, t, h, a, m: captured.setdefault("t", m)
    try:
        tmodel.compute_loss(_as(torch, targets), None, at, per_level)
    finally:
        TD.fcos.FCOSHead.compute_loss = orig
    ND.fcos.FCOSHead.compute_loss, orig_n = (lambda self, t, h, a, m: captured.setdefault("n", m),
                                             ND.fcos.FCOSHead.compute_loss)
    try:
        nmodel.compute_loss(_as(numtorch, targets), None, an, per_level)
    finally:
        ND.fcos.FCOSHead.compute_loss = orig_n
    np.testing.assert_array_equal(captured["n"][0].numpy(), captured["t"][0].numpy())
    assert (captured["t"][0] >= 0).sum() > 5


def test_ssd_hard_negative_mining():
    # many default boxes, few positives: the classification loss counts the positives and
    # exactly the 3x hardest negatives of each image
    g = torch.Generator().manual_seed(11)
    n_img, n_box, n_cls = 2, 500, 5
    logits = torch.randn(n_img, n_box, n_cls, generator=g) * 2
    deltas = torch.randn(n_img, n_box, 4, generator=g)
    xy = torch.rand(n_img, n_box, 2, generator=g) * 200
    anchors = torch.cat([xy, xy + 20 + torch.rand(n_img, n_box, 2, generator=g) * 50], 2)
    matched = torch.full((n_img, n_box), -1, dtype=torch.int64)
    matched[0, :7] = torch.tensor([0, 1, 0, 1, 1, 0, 0])
    matched[1, 100:103] = 0
    targets = [{"boxes": torch.tensor([[10., 20, 60, 90], [0, 0, 30, 30]]),
                "labels": torch.tensor([3, 1])},
               {"boxes": torch.tensor([[50., 50, 150, 120]]), "labels": torch.tensor([4])}]
    out = {}
    for lib, D in ((torch, TD), (numtorch, ND)):
        backbone = _tiny_backbone(lib)
        backbone.out_channels = [8]
        model = D.ssd.SSD(backbone, D.anchor_utils.DefaultBoxGenerator([[2]]), (64, 64), n_cls)
        conv = (lambda t: t.clone()) if lib is torch else (lambda t: numtorch.tensor(t.numpy()))
        head = {"cls_logits": conv(logits).requires_grad_(), "bbox_regression": conv(deltas)}
        losses = model.compute_loss([{k: conv(v) for k, v in t.items()} for t in targets], head,
                                    list(conv(anchors)), list(conv(matched)))
        losses["classification"].backward()
        out[lib.__name__] = ({k: v.item() for k, v in losses.items()},
                             head["cls_logits"].grad.numpy())
    (ln, gn), (lt, gt) = out["numtorch"], out["torch"]
    assert ln.keys() == lt.keys()
    for k in lt:
        np.testing.assert_allclose(ln[k], lt[k], rtol=1e-5)
    # the rows that received a gradient are the chosen ones: same set in both
    np.testing.assert_array_equal(np.abs(gn).sum(-1) > 0, np.abs(gt).sum(-1) > 0)
    assert ((np.abs(gt).sum(-1) > 0).sum(1) == [28, 12]).all()
    np.testing.assert_allclose(gn, gt, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- weights loading

@pytest.mark.parametrize("how", ["pretrained", "enum"])
def test_pretrained_download_with_hash_check(server, tmp_path, monkeypatch, how):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    name = "ssdlite320_mobilenet_v3_large"
    tmodel = _tv_model(name, seed=8, num_classes=91, topk_candidates=20,
                       detections_per_img=10).eval()
    w = ND.SSDLite320_MobileNet_V3_Large_Weights.COCO_V1
    stem = os.path.basename(w.url).rsplit("-", 1)[0]
    url = publish(server, tmodel.state_dict(), stem + how)
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        if how == "pretrained":
            with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
                nmodel = ND.ssdlite320_mobilenet_v3_large(pretrained=True, progress=False,
                                                          topk_candidates=20,
                                                          detections_per_img=10)
        else:
            nmodel = ND.ssdlite320_mobilenet_v3_large(weights="DEFAULT", progress=False,
                                                      topk_candidates=20, detections_per_img=10)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    imgs = _images(name, seed=9)[:1]
    with torch.no_grad():
        t = tmodel([torch.tensor(x) for x in imgs])
    with numtorch.no_grad():
        n = nmodel.eval()([numtorch.tensor(x) for x in imgs])
    _compare_detections(n, t, scale=120)


def test_retinanet_coco_weights_build_the_frozen_model(monkeypatch):
    # COCO_V1 weights: 91 classes, FrozenBatchNorm2d with eps 0 (the checkpoint was trained
    # so), conv1 and layer1 frozen; the checkpoint's values are those loaded
    tmodel = _tv_model("retinanet_resnet50_fpn", seed=12)
    state = to_numtorch(tmodel.state_dict())
    loaded = []

    def fake_load(model, weights, progress):
        loaded.append(weights)
        model.load_state_dict(state)
        return model

    monkeypatch.setattr(ND.retinanet, "_load_weights", fake_load)
    with skipped_random_init():
        model = ND.retinanet_resnet50_fpn(weights="DEFAULT")
    assert loaded == [ND.RetinaNet_ResNet50_FPN_Weights.COCO_V1]
    frozen = [m for m in model.backbone.body.modules()
              if type(m).__name__ == "FrozenBatchNorm2d"]
    assert len(frozen) == 53 and all(m.eps == 0.0 for m in frozen)
    assert not any(type(m).__name__ == "BatchNorm2d" for m in model.modules())
    for key, p in model.backbone.body.named_parameters():
        assert p.requires_grad == key.startswith(("layer2", "layer3", "layer4")), key
    assert model.head.classification_head.num_classes == 91
    np.testing.assert_array_equal(model.head.regression_head.bbox_reg.weight.detach().numpy(),
                                  tmodel.head.regression_head.bbox_reg.weight.detach().numpy())


def test_corrupt_checkpoint_fails_the_hash_check(server, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    w = ND.SSD300_VGG16_Weights.COCO_V1
    bad = os.path.join(server.root, "ssd300_vgg16_coco-0123456789.pth")
    torch.save({"x": torch.zeros(1)}, bad)
    monkeypatch.setattr(w.value, "url", server.url(os.path.basename(bad)))
    with skipped_random_init(), pytest.raises(RuntimeError, match="invalid hash value"):
        ND.ssd300_vgg16(weights=w, progress=False)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("call", [
    lambda D: D.retinanet_resnet50_fpn(weights="DEFAULT", num_classes=10),
    lambda D: D.fcos_resnet50_fpn(weights=None, trainable_backbone_layers=6),
    lambda D: D.ssd300_vgg16(weights="COCO_V2"),
    lambda D: D.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone="IMAGENET1K_V7"),
    lambda D: D.ssd300_vgg16(weights=None, weights_backbone=None, size=(200, 200)),
])
def test_builder_errors_match_torchvision(call):
    with pytest.raises(Exception) as theirs, torch_init_skipped():
        call(TD)
    with pytest.raises(Exception) as ours, skipped_random_init():
        call(ND)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def _tiny_backbone(lib, channels=32):
    m = lib.nn.Conv2d(3, channels, 3, stride=8, padding=1)
    m.out_channels = channels
    return m


@pytest.mark.parametrize("case", ["no_targets", "boxes_list", "boxes_1d", "degenerate"])
def test_training_target_errors(case):
    bad = {"no_targets": None,
           "boxes_list": [{"boxes": [1, 2, 3, 4], "labels": [1]}],
           "boxes_1d": [{"boxes": np.zeros(4, np.float32), "labels": np.ones(1, np.int64)}],
           "degenerate": [{"boxes": np.array([[1, 2, 1, 5]], np.float32),
                           "labels": np.ones(1, np.int64)}]}[case]
    for cls_name in ("RetinaNet", "FCOS", "SSD"):
        msgs = []
        for lib, D in ((torch, TD), (numtorch, ND)):
            if cls_name == "SSD":
                backbone = _tiny_backbone(lib)
                backbone.out_channels = [32]
                model = D.ssd.SSD(backbone, D.anchor_utils.DefaultBoxGenerator([[2]]), (32, 32),
                                  3).train()
            else:
                model = getattr(D, cls_name)(_tiny_backbone(lib), 3, min_size=32,
                                             max_size=32).train()
            tg = bad if bad is None else [
                {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in t.items()}
                for t in bad]
            with pytest.raises(AssertionError) as err:
                model([lib.rand(3, 32, 32)], tg)
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]


def test_constructor_errors():
    cases = [
        lambda D, lib: D.RetinaNet(lib.nn.ReLU(), 3),
        lambda D, lib: D.FCOS(lib.nn.ReLU(), 3),
        lambda D, lib: D.RetinaNet(_tiny_backbone(lib), 3, anchor_generator="x"),
        lambda D, lib: D.FCOS(_tiny_backbone(lib), 3, anchor_generator="x"),
        lambda D, lib: D.FCOS(_tiny_backbone(lib), 3, anchor_generator=D.anchor_utils
                              .AnchorGenerator(((8, 16),), ((1.0,),))),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(TD, torch)
        with pytest.raises(Exception) as ours:
            case(ND, numtorch)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)
