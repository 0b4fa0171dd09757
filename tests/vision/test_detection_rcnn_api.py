"""The R-CNN family's surroundings against torchvision 0.28: weights enums (urls, meta,
transforms), the registry, reprs, pretrained loading through a loopback server (hash check,
frozen batch norm, eps of the first COCO checkpoints), constructor/builder/forward errors,
and the inference helpers (mask pasting, keypoint decoding, heatmap targets) on edge cases."""

import os
import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorchvision.models as NM
import numtorchvision.models.detection as ND
from numtorchvision.models.detection import roi_heads as NR
from numtorchvision.ops import FrozenBatchNorm2d

from ._detection_rcnn_reference import patch_torchvision
from ._model_helpers import (publish, randomize_values, skipped_random_init, to_numtorch,
                             torch_init_skipped)
from .conftest import torchvision

TD = torchvision.models.detection
TR = torchvision.models.detection.roi_heads

BUILDERS = ["fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
            "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_mobilenet_v3_large_320_fpn",
            "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2", "keypointrcnn_resnet50_fpn"]


@pytest.fixture(scope="module")
def _kernels():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with pytest.MonkeyPatch.context() as mp:
        patch_torchvision(mp)
        yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("name", BUILDERS)
def test_weights_enum_and_registry(name):
    tenum = torchvision.models.get_model_weights(name)
    nenum = NM.get_model_weights(name)
    assert nenum is getattr(ND, tenum.__name__)
    assert [m.name for m in nenum] == [m.name for m in tenum]
    assert nenum.DEFAULT.name == tenum.DEFAULT.name
    for n, t in zip(nenum, tenum):
        assert n.url == t.url
        assert n.meta == t.meta
        assert repr(n.transforms()) == repr(t.transforms())
        assert NM.get_weight(f"{nenum.__name__}.{n.name}") is n
    assert NM.get_model_builder(name) is getattr(ND, name)
    assert name in NM.list_models(module=ND)


def test_object_detection_preset():
    from PIL import Image
    arr = np.random.RandomState(0).randint(0, 256, (20, 30, 3), dtype=np.uint8)
    n = ND.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.transforms()(Image.fromarray(arr))
    t = TD.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.transforms()(Image.fromarray(arr))
    assert n.dtype == numtorch.float32 and np.array_equal(n.numpy(), t.numpy())
    u8 = numtorch.tensor(arr).permute(2, 0, 1)
    assert np.allclose(ND.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.transforms()(u8).numpy(),
                       t.numpy())


@pytest.mark.parametrize("name", BUILDERS)
def test_structure_and_repr(name):
    kw = {"weights_backbone": None, "num_classes": 5}
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmodel = getattr(TD, name)(weights=None, **kw)
    with skipped_random_init():
        nmodel = getattr(ND, name)(weights=None, **kw)
    assert repr(nmodel) == repr(tmodel)
    assert [(k, tuple(v.shape), str(v.dtype).split(".")[1]) for k, v in
            nmodel.state_dict().items()] == [(k, tuple(v.shape), str(v.dtype).split(".")[1])
                                             for k, v in tmodel.state_dict().items()]
    assert [p.requires_grad for p in nmodel.parameters()] == [
        p.requires_grad for p in tmodel.parameters()]


def test_default_head_init_statistics():
    # RPN head: N(0, 0.01) weights and zero biases; keypoint head: zero biases
    model = ND.keypointrcnn_resnet50_fpn(weights=None, weights_backbone=None)
    head = model.rpn.head
    w = np.concatenate([head.cls_logits.weight.detach().numpy().ravel(),
                        head.bbox_pred.weight.detach().numpy().ravel()])
    assert abs(w.std() - 0.01) < 0.001 and abs(w.mean()) < 0.001
    assert not head.cls_logits.bias.detach().numpy().any()
    assert not head.bbox_pred.bias.detach().numpy().any()
    assert not model.roi_heads.keypoint_predictor.kps_score_lowres.bias.detach().numpy().any()
    assert model.transform.min_size == (640, 672, 704, 736, 768, 800)


@pytest.mark.parametrize("how", ["enum", "pretrained"])
def test_pretrained_download(server, tmp_path, monkeypatch, how, _kernels):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    w = ND.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmodel = TD.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)
    # values, not torchvision's init: the frozen batch norms need positive variances
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for k, v in tmodel.state_dict().items():
            if v.is_floating_point():
                v.copy_(torch.randn(v.shape, generator=g) * 0.05 + (1.0 if "running_var" in k
                                                                   else 0.0))
    url = publish(server, tmodel.state_dict(), "fasterrcnn_mv3_320_" + how)
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        if how == "pretrained":
            with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
                nmodel = ND.fasterrcnn_mobilenet_v3_large_320_fpn(
                    pretrained=True, progress=False, box_detections_per_img=10)
        else:
            nmodel = ND.fasterrcnn_mobilenet_v3_large_320_fpn(weights="DEFAULT", progress=False,
                                                              box_detections_per_img=10)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    assert server.hits[f"/{os.path.basename(url)}"] == 1
    # torchvision's own builder reads the same cached file (frozen batch norm too)
    monkeypatch.setattr(TD.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1.value, "url",
                        url)
    with torch_init_skipped():
        tpre = TD.fasterrcnn_mobilenet_v3_large_320_fpn(weights="DEFAULT", progress=False,
                                                        box_detections_per_img=10)
    assert [type(m).__name__ for m in nmodel.modules()] == [
        type(m).__name__ for m in tpre.modules()]
    assert any(isinstance(m, FrozenBatchNorm2d) for m in nmodel.modules())
    assert [p.requires_grad for p in nmodel.parameters()] == [
        p.requires_grad for p in tpre.parameters()]
    # the loaded values through the frozen backbone and the box predictor (detections of
    # these random values tie too often to compare their order)
    nmodel.eval()
    tpre.eval()
    x = np.random.RandomState(1).rand(1, 3, 64, 96).astype(np.float32)
    feats = np.random.RandomState(2).rand(4, 1024).astype(np.float32)
    with torch.no_grad():
        t = dict(tpre.backbone(torch.tensor(x)))
        t["cls"], t["box"] = tpre.roi_heads.box_predictor(torch.tensor(feats))
    with numtorch.no_grad():
        n = dict(nmodel.backbone(numtorch.tensor(x)))
        n["cls"], n["box"] = nmodel.roi_heads.box_predictor(numtorch.tensor(feats))
    for k in t:
        assert np.allclose(n[k].numpy(), t[k].numpy(), rtol=1e-4, atol=1e-5), k


def test_first_coco_checkpoints_run_with_zero_eps(server, tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with skipped_random_init():
        model = ND.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None)
    state = {k: torch.from_numpy(v.numpy()) for k, v in model.state_dict().items()}
    w = ND.FasterRCNN_ResNet50_FPN_Weights.COCO_V1
    monkeypatch.setattr(w.value, "url", publish(server, state, "fasterrcnn_r50_eps"))
    with skipped_random_init():
        loaded = ND.fasterrcnn_resnet50_fpn(weights=w, progress=False)
    frozen = [m for m in loaded.modules() if isinstance(m, FrozenBatchNorm2d)]
    assert frozen and all(m.eps == 0.0 for m in frozen)
    # trainable_backbone_layers=3 with pretrained weights: conv1 and layer1 frozen
    grads = {k: p.requires_grad for k, p in loaded.named_parameters()}
    assert not grads["backbone.body.conv1.weight"]
    assert not grads["backbone.body.layer1.0.conv1.weight"]
    assert grads["backbone.body.layer2.0.conv1.weight"]


def _same_error(tcall, ncall):
    with pytest.raises(Exception) as te, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tcall()
    with pytest.raises(type(te.value)) as ne, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ncall()
    assert str(ne.value) == str(te.value)


@pytest.fixture(scope="module")
def small_pair():
    kw = {"weights": None, "weights_backbone": None, "num_classes": 3, "min_size": 64,
          "max_size": 96}
    with torch_init_skipped():
        t = randomize_values(TD.fasterrcnn_mobilenet_v3_large_320_fpn(**kw))
    with skipped_random_init():
        n = ND.fasterrcnn_mobilenet_v3_large_320_fpn(**kw)
    n.load_state_dict(to_numtorch(t.state_dict()))
    return t, n


@pytest.mark.parametrize("case", [
    lambda L, m: L.fasterrcnn_resnet50_fpn(weights="DEFAULT", num_classes=3),
    lambda L, m: L.keypointrcnn_resnet50_fpn(weights="DEFAULT", num_keypoints=3),
    lambda L, m: L.fasterrcnn_resnet50_fpn(weights="IMAGENET1K_V1"),
    lambda L, m: L.fasterrcnn_resnet50_fpn(weights=L.MaskRCNN_ResNet50_FPN_Weights.COCO_V1),
    lambda L, m: L.FasterRCNN(m.backbone),
    lambda L, m: L.FasterRCNN(m.backbone, num_classes=3,
                              box_predictor=m.roi_heads.box_predictor),
    lambda L, m: L.FasterRCNN(m.backbone, num_classes=3, rpn_anchor_generator=3),
    lambda L, m: L.FasterRCNN(m.backbone, num_classes=3, box_roi_pool="x"),
    lambda L, m: L.MaskRCNN(m.backbone, num_classes=3, mask_roi_pool="x"),
    lambda L, m: L.MaskRCNN(m.backbone, num_classes=3, mask_predictor=m.rpn.head),
    lambda L, m: L.KeypointRCNN(m.backbone, num_classes=3, keypoint_roi_pool=1),
    lambda L, m: L.KeypointRCNN(m.backbone, num_classes=3, num_keypoints=3,
                                keypoint_predictor=m.rpn.head),
    lambda L, m: L.fasterrcnn_resnet50_fpn_v2(weights=None, weights_backbone="IMAGENET1K_V1",
                                              trainable_backbone_layers=7),
])
def test_builder_and_constructor_errors(small_pair, case):
    t, n = small_pair
    _same_error(lambda: case(TD, t), lambda: case(ND, n))


def _img(lib, h=40, w=44):
    return lib.tensor(np.random.RandomState(0).rand(3, h, w).astype(np.float32))


@pytest.mark.parametrize("targets", [
    None,
    lambda lib: [{"boxes": lib.tensor([[1.0, 2, 1, 5]]), "labels": lib.tensor([1])}],
    lambda lib: [{"boxes": lib.tensor([1.0, 2, 1, 5]), "labels": lib.tensor([1])}],
    lambda lib: [{"boxes": [[1.0, 2, 1, 5]], "labels": lib.tensor([1])}],
    lambda lib: [{"labels": lib.tensor([1]), "boxes": lib.tensor([[1.0, 2, 9, 8]]),
                  "extra": 1}] * 0 + [{"boxes": lib.tensor([[3.0, 2, 9, 8], [4, 4, 4, 9]]),
                                       "labels": lib.tensor([1, 2])}],
])
def test_training_target_errors(small_pair, targets):
    t, n = small_pair
    t.train()
    n.train()
    tt = targets(torch) if targets else None
    nt = targets(numtorch) if targets else None
    _same_error(lambda: t([_img(torch)], tt), lambda: n([_img(numtorch)], nt))


def test_roi_heads_target_checks(small_pair, _kernels):
    t, n = small_pair
    t.train()
    n.train()
    base = {"boxes": np.array([[3.0, 2, 19, 18]], np.float32), "labels": np.array([1])}
    for change in ({"labels": np.array([1.0])}, {"labels": np.array([1], np.int32)}):
        tg = {**base, **change}
        _same_error(lambda: t([_img(torch)], [{k: torch.tensor(v) for k, v in tg.items()}]),
                    lambda: n([_img(numtorch)], [{k: numtorch.tensor(v) for k, v in tg.items()}]))
    # integer boxes reach the RoI heads only when called directly (the transform's resize
    # makes them float)
    tg = {"boxes": np.array([[3, 2, 19, 18]]), "labels": np.array([1])}
    _same_error(lambda: t.roi_heads({"0": torch.zeros(1, 256, 4, 4)}, [torch.zeros(2, 4)],
                                    [(40, 40)], [{k: torch.tensor(v) for k, v in tg.items()}]),
                lambda: n.roi_heads({"0": numtorch.zeros(1, 256, 4, 4)}, [numtorch.zeros(2, 4)],
                                    [(40, 40)], [{k: numtorch.tensor(v) for k, v in tg.items()}]))
    _same_error(lambda: t.roi_heads.check_targets([{"labels": 1}]),
                lambda: n.roi_heads.check_targets([{"labels": 1}]))
    _same_error(lambda: t.roi_heads.check_targets(None),
                lambda: n.roi_heads.check_targets(None))
    t.eval()
    n.eval()


def test_empty_targets_train(small_pair, _kernels):
    # an image without objects: every anchor and proposal is background
    t, n = small_pair
    t.train()
    n.train()
    targets = [{"boxes": np.zeros((0, 4), np.float32), "labels": np.zeros((0,), np.int64)}]
    torch.manual_seed(3)
    tl = t([_img(torch)], [{k: torch.tensor(v) for k, v in d.items()} for d in targets])
    numtorch.manual_seed(3)
    nl = n([_img(numtorch)], [{k: numtorch.tensor(v) for k, v in d.items()} for d in targets])
    assert sorted(nl) == sorted(tl)
    for k in tl:
        a, b = float(nl[k].detach()), float(tl[k].detach())
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), k
    assert float(tl["loss_box_reg"].detach()) == float(tl["loss_rpn_box_reg"].detach()) == 0.0
    t.eval()
    n.eval()


def test_paste_masks_in_image_edge_cases():
    rs = np.random.RandomState(2)
    masks = rs.rand(6, 1, 28, 28).astype(np.float32)
    boxes = np.array([[-10, -5, 30, 20], [50, 40, 90, 70], [5.5, 6.2, 5.9, 6.4],
                      [0, 0, 63, 47], [20.3, 10.7, 45.1, 40.2], [60, 45, 70, 52]], np.float32)
    # boxes partly outside the image; torchvision fails on a box wholly outside it (never
    # the case in the models, which clip boxes first), numtorchvision pastes nothing there
    for shape, rows in (((48, 64), slice(None)), ((30, 20), [0, 2, 4])):
        t = TR.paste_masks_in_image(torch.tensor(masks[rows]), torch.tensor(boxes[rows]), shape)
        n = NR.paste_masks_in_image(numtorch.tensor(masks[rows]), numtorch.tensor(boxes[rows]),
                                    shape)
        assert tuple(n.shape) == tuple(t.shape) and n.dtype == numtorch.float32
        assert np.abs(n.numpy() - t.numpy()).max() < 1e-6
    empty = NR.paste_masks_in_image(numtorch.zeros(0, 1, 28, 28), numtorch.zeros(0, 4), (9, 7))
    assert tuple(empty.shape) == (0, 1, 9, 7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_heatmaps_to_keypoints(dtype):
    rs = np.random.RandomState(3)
    maps = rs.randn(5, 4, 56, 56).astype(dtype)
    rois = np.array([[3, 4, 50, 90], [0, 0, 0.5, 0.3], [10.2, 7.7, 130.9, 41.1],
                     [5, 5, 6.5, 300], [1, 2, 3, 4]], dtype)
    tk, ts = TR.heatmaps_to_keypoints(torch.tensor(maps), torch.tensor(rois))
    nk, ns = NR.heatmaps_to_keypoints(numtorch.tensor(maps), numtorch.tensor(rois))
    assert nk.dtype == ns.dtype == numtorch.float32 and tuple(nk.shape) == (5, 4, 3)
    assert np.abs(nk.numpy() - tk.numpy()).max() < 1e-4
    assert np.abs(ns.numpy() - ts.numpy()).max() < 1e-5 * np.abs(ts.numpy()).max()


def test_keypoints_to_heatmap_and_inference_split():
    rs = np.random.RandomState(4)
    rois = np.array([[2, 3, 30, 40], [10, 10, 20, 50]], np.float32)
    kp = np.concatenate([rs.rand(2, 6, 2) * 50 - 5, rs.rand(2, 6, 1) > 0.3], 2).astype(np.float32)
    kp[0, 0, :2] = [30, 40]  # on the right and bottom edges
    th, tv_ = TR.keypoints_to_heatmap(torch.tensor(kp), torch.tensor(rois), 56)
    nh, nv = NR.keypoints_to_heatmap(numtorch.tensor(kp), numtorch.tensor(rois), 56)
    assert nh.tolist() == th.tolist() and nv.tolist() == tv_.tolist()
    maps = rs.randn(3, 2, 8, 8).astype(np.float32)
    boxes = [rois[:1], np.array([[1, 1, 9, 5], [0, 0, 4, 4]], np.float32)]
    tk, ts = TR.keypointrcnn_inference(torch.tensor(maps), [torch.tensor(b) for b in boxes])
    nk, ns = NR.keypointrcnn_inference(numtorch.tensor(maps), [numtorch.tensor(b) for b in boxes])
    assert [tuple(k.shape) for k in nk] == [tuple(k.shape) for k in tk]
    for a, b in zip(nk + ns, tk + ts):
        assert np.abs(a.numpy() - b.numpy()).max() < 1e-4
