"""Faster/Mask/Keypoint R-CNN against torchvision 0.28: every builder's state dict has
torchvision's keys and shapes and loads torchvision's values strictly; evaluation gives
torchvision's detections (boxes, labels, scores, masks, keypoints) on the same images;
training gives its loss values and parameter gradients (float64, the same seed: the
transform's size draw and both samplers' randperm calls come in torchvision's order);
weights enums, registry, pretrained loading through a loopback server, and errors.

torchvision's compiled NMS and RoIAlign do not load with the CPU torch wheel; torch
stand-ins with the kernels' rules replace them (``_detection_rcnn_reference``)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorchvision.models.detection as ND

from ._detection_rcnn_reference import patch_torchvision
from ._model_helpers import skipped_random_init, to_numtorch, tv_build
from .conftest import torchvision

TD = torchvision.models.detection

BUILDERS = ["fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
            "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_mobilenet_v3_large_320_fpn",
            "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2", "keypointrcnn_resnet50_fpn"]
ENUMS = ["FasterRCNN_ResNet50_FPN_Weights", "FasterRCNN_ResNet50_FPN_V2_Weights",
         "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
         "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights", "MaskRCNN_ResNet50_FPN_Weights",
         "MaskRCNN_ResNet50_FPN_V2_Weights", "KeypointRCNN_ResNet50_FPN_Weights"]
# small images and few proposals keep each model's run short
SMALL = {"min_size": 64, "max_size": 96, "rpn_pre_nms_top_n_test": 200,
         "rpn_post_nms_top_n_test": 30, "rpn_pre_nms_top_n_train": 200,
         "rpn_post_nms_top_n_train": 30, "rpn_batch_size_per_image": 64,
         "box_batch_size_per_image": 16, "box_detections_per_img": 10}
SIZES = [(60, 75), (50, 45)]


@pytest.fixture(autouse=True, scope="module")
def _torchvision_kernels():
    # one torch thread: the oracle's many small ops spend more CPU in idle worker threads
    # than in work on this two-core machine (3x less CPU time measured)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with pytest.MonkeyPatch.context() as mp:
        patch_torchvision(mp)
        yield
    torch.set_num_threads(threads)


def _kwargs(name, **kw):
    out = {"weights_backbone": None, "num_classes": 3, **SMALL, **kw}
    if name.startswith("keypoint"):
        out.setdefault("num_keypoints", 5)
    return out


def _pair(name, dtype=torch.float32, **kw):
    kw = _kwargs(name, **kw)
    tmodel = tv_build(getattr(TD, name), **kw)
    # batch norms of the heads get weights near 1 (the helper only knows bn/norm names), and
    # the box regressors small outputs, so that boxes do not all stretch to the image borders
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in tmodel.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=g))
        for reg in (tmodel.rpn.head.bbox_pred, tmodel.roi_heads.box_predictor.bbox_pred):
            reg.weight.mul_(0.1)
    tmodel = tmodel.to(dtype)
    with skipped_random_init(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nmodel = getattr(ND, name)(weights=None, **kw)
    nmodel = nmodel.to(getattr(numtorch, str(dtype).split(".")[1]))
    assert [(k, tuple(v.shape)) for k, v in nmodel.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in tmodel.state_dict().items()]
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    return tmodel, nmodel


def _images(dtype=np.float32, seed=0):
    rs = np.random.RandomState(seed)
    return [rs.rand(3, h, w).astype(dtype) for h, w in SIZES]


def _targets(name, seed=1):
    rs = np.random.RandomState(seed)
    out = []
    for h, w in SIZES:
        xy = rs.rand(3, 2) * [w * 0.6, h * 0.6]
        wh = rs.rand(3, 2) * [w * 0.3, h * 0.3] + 5
        t = {"boxes": np.concatenate([xy, xy + wh], 1), "labels": np.array([1, 2, 1])}
        if name.startswith("mask"):
            t["masks"] = (rs.rand(3, h, w) > 0.5).astype(np.uint8)
        if name.startswith("keypoint"):
            vis = rs.rand(3, 5, 1) > 0.2
            t["keypoints"] = np.concatenate([xy[:, None] + rs.rand(3, 5, 2) * wh[:, None], vis],
                                            2).astype(np.float32)
        out.append(t)
    return out


def _close(n, t, rel, what):
    a, b = n.detach().numpy(), t.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, (what, a.shape, b.shape, a.dtype, b.dtype)
    scale = max(float(np.abs(b).max()) if b.size else 0.0, 1.0)
    assert float(np.abs(a.astype(np.float64) - b).max(initial=0)) <= rel * scale, what


def _eval_both(name, dtype):
    # loose NMS keeps many detections of the random networks (their boxes crowd together)
    tmodel, nmodel = _pair(name, dtype=dtype, box_score_thresh=0.0, box_nms_thresh=0.95,
                           rpn_nms_thresh=0.95)
    tmodel.eval()
    nmodel.eval()
    imgs = _images(np.float64 if dtype == torch.float64 else np.float32)
    with torch.no_grad():
        t = tmodel([torch.tensor(i) for i in imgs])
    with numtorch.no_grad():
        n = nmodel([numtorch.tensor(i) for i in imgs])
    expected = {"boxes", "labels", "scores"} | (
        {"masks"} if name.startswith("mask") else set()) | (
        {"keypoints", "keypoints_scores"} if name.startswith("keypoint") else set())
    for a, b in zip(n, t):
        assert set(a) == set(b) == expected
        assert len(b["boxes"]) > 5
        assert a["labels"].tolist() == b["labels"].tolist()
    return n, t


@pytest.mark.parametrize("name", BUILDERS)
def test_eval_detections_match_torchvision(name):
    n, t = _eval_both(name, torch.float64)
    for a, b in zip(n, t):
        for key in set(b) - {"labels"}:
            # keypoints are float32 whatever the model's dtype: one float32 step
            _close(a[key], b[key], 1e-7 if b[key].dtype == torch.float64 else 3e-7, key)


@pytest.mark.parametrize("name", ["maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn"])
def test_eval_detections_float32(name):
    n, t = _eval_both(name, torch.float32)
    for a, b in zip(n, t):
        for key in set(b) - {"labels"}:
            # float32 rounding, amplified where the random box regression cancels
            _close(a[key], b[key], 1e-3, key)


# the v1 ResNet path, RPN and box losses are exercised by the Keypoint R-CNN case
@pytest.mark.parametrize("name", ["maskrcnn_resnet50_fpn_v2", "keypointrcnn_resnet50_fpn",
                                  "fasterrcnn_mobilenet_v3_large_320_fpn"])
def test_training_losses_and_gradients_match_torchvision(name):
    tmodel, nmodel = _pair(name, dtype=torch.float64)
    tmodel.train()
    nmodel.train()
    imgs, targets = _images(np.float64), _targets(name)
    torch.manual_seed(5)
    t = tmodel([torch.tensor(i) for i in imgs],
               [{k: torch.tensor(v) for k, v in tg.items()} for tg in targets])
    numtorch.manual_seed(5)
    n = nmodel([numtorch.tensor(i) for i in imgs],
               [{k: numtorch.tensor(v) for k, v in tg.items()} for tg in targets])
    assert sorted(n) == sorted(t)
    for key in t:
        # loss_objectness is float32 in both (float32 labels), summed in another order
        _close(n[key], t[key], 1e-6 if t[key].dtype == torch.float32 else 1e-10, key)
    sum(t.values()).backward()
    sum(n.values()).backward()
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters() if p.grad is not None)
    for (key, tp), (nkey, np_) in zip(tmodel.named_parameters(), nmodel.named_parameters()):
        assert key == nkey and tp.requires_grad == np_.requires_grad
        assert (tp.grad is None) == (np_.grad is None), key
        if tp.grad is not None:
            # biases of batch norms followed by training-mode batch norms: ~0 exactly
            scale = max(float(tp.grad.abs().max()), 1e-6 * overall)
            diff = float(np.abs(np_.grad.numpy() - tp.grad.numpy()).max())
            assert diff <= 1e-6 * scale, (key, diff, scale)
