"""numtorchvision.models' registry, weights enums and builder interface against torchvision:
the same model names, state-dict structure (keys and shapes) for every model, the same
weights facts (URLs, metadata, preprocessing), and the same warnings and errors."""

import functools
import warnings

import numpy as np
import pytest
import torch
import torchvision
from torchvision import models as tm

import numtorch  # noqa: F401
from numtorchvision import models as nm

from ._model_helpers import skipped_random_init, structure

def _tv_names():
    # every classification model (detection, segmentation, ... are separate sub-packages)
    return tm.list_models(module=tm)


def test_registry_lists_torchvisions_classification_models():
    provided = (_tv_names() + tm.list_models(module=tm.segmentation)
                + tm.list_models(module=tm.video, include=["r3d_18", "mc3_18", "r2plus1d_18",
                                                           "s3d", "swin3d_*", "mvit_*"])
                + tm.list_models(module=tm.quantization)
                + tm.list_models(module=tm.optical_flow)
                + tm.list_models(module=tm.detection))
    assert nm.list_models() == sorted(provided)
    assert nm.list_models(module=nm) == _tv_names()
    assert nm.list_models(include=["resnet*", "vit_b*"], exclude="resnet1*") == tm.list_models(
        module=tm, include=["resnet*", "vit_b*"], exclude="resnet1*")


def test_public_names_equal_torchvisions():
    def public(mod):
        return {n for n in dir(mod) if not n.startswith("_")}

    assert public(nm) == public(tm)
    for name in ("resnet", "vgg", "densenet", "inception", "mobilenetv3", "regnet", "convnext",
                 "vision_transformer", "efficientnet", "mnasnet", "swin_transformer", "maxvit"):
        assert set(getattr(nm, name).__all__) == set(getattr(tm, name).__all__), name


def _tv_meta_model(name):
    # torchvision's RegNet computes its widths with torch ops, which cannot run on "meta"
    regnet = tm.regnet.BlockParams
    plain = regnet.from_init_params.__func__

    def on_cpu(cls, *a, **k):
        with torch.device("cpu"):
            return plain(cls, *a, **k)

    regnet.from_init_params = classmethod(on_cpu)
    try:
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            return tm.get_model(name)
    finally:
        regnet.from_init_params = classmethod(plain)


@pytest.mark.parametrize("name", _tv_names())
def test_state_dict_structure_equals_torchvision(name):
    theirs = _tv_meta_model(name)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        ours = nm.get_model(name)
    assert type(ours).__name__ == type(theirs).__name__
    assert structure(ours.state_dict()) == structure(theirs.state_dict())


def _transform_facts(w):
    t = w.transforms
    assert isinstance(t, functools.partial)
    kw = {k: (v.value if hasattr(v, "value") else v) for k, v in t.keywords.items()}
    return t.func.__name__, t.args, kw


@pytest.mark.parametrize("name", _tv_names())
def test_weights_enums_equal_torchvisions(name):
    ours, theirs = nm.get_model_weights(name), tm.get_model_weights(name)
    assert ours.__name__ == theirs.__name__
    assert getattr(nm, ours.__name__) is ours
    assert list(ours.__members__) == list(theirs.__members__)
    for key, t in theirs.__members__.items():
        o = ours[key]
        assert o.name == t.name and repr(o) == repr(t)
        assert o.url == t.url
        their_meta = {k: v for k, v in t.meta.items() if k != "_docs"}
        assert set(o.meta) == set(their_meta)
        for k, v in their_meta.items():
            assert repr(o.meta[k]) == repr(v), k  # repr: nan == nan
        assert _transform_facts(o) == _transform_facts(t)
    assert repr(ours.DEFAULT.transforms()) == repr(theirs.DEFAULT.transforms())


def test_weights_lookup_helpers():
    assert nm.get_weight("ResNet50_Weights.IMAGENET1K_V2") is nm.ResNet50_Weights.IMAGENET1K_V2
    assert nm.get_model_weights(nm.resnet18) is nm.ResNet18_Weights
    assert nm.get_model_builder("ResNet18") is nm.resnet18
    w = nm.ViT_B_16_Weights
    assert w.verify("IMAGENET1K_V1") is w.verify("ViT_B_16_Weights.IMAGENET1K_V1")
    assert w.verify(None) is None and w.DEFAULT is w.IMAGENET1K_V1
    # Weights compare their preset partials by what they would build
    from numtorchvision.transforms._presets import ImageClassification
    rebuilt = nm.Weights(url=tm.ResNet18_Weights.DEFAULT.url,
                         transforms=functools.partial(ImageClassification, crop_size=224),
                         meta=dict(nm.ResNet18_Weights.DEFAULT.meta))
    assert rebuilt == nm.ResNet18_Weights.DEFAULT.value
    assert nm.ResNet18_Weights.DEFAULT.value != nm.ResNet34_Weights.DEFAULT.value
    assert nm.ResNet18_Weights.DEFAULT.value != tm.ResNet18_Weights.DEFAULT.value


def _raised(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as exc:
            return type(exc), str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda m: m.get_model("nope"),
    lambda m: m.get_model_weights("nope"),
    lambda m: m.get_weight("nope"),
    lambda m: m.get_weight("ResNet18_Weights.NOPE"),
    lambda m: m.get_weight("NoSuch_Weights.X"),
    lambda m: m.resnet18(weights="bogus"),
    lambda m: m.resnet18(weights=m.AlexNet_Weights.DEFAULT),
    lambda m: m.resnet18(weights=3),
    lambda m: m.resnet18(weights="DEFAULT", num_classes=10),
    lambda m: m.inception_v3(weights="DEFAULT", aux_logits=False),
    lambda m: m.vit_b_16(weights="DEFAULT", image_size=32),
    lambda m: m.regnet_y_128gf(pretrained=True),
    lambda m: m.vit_h_14(pretrained=True),
    lambda m: m.resnet18(pretrained=True, weights="DEFAULT"),
    lambda m: m.squeezenet1_0(version="2_0"),
    lambda m: m.vit_b_16(image_size=30),
    lambda m: m.ResNet(m.resnet.BasicBlock, [1, 1, 1, 1], replace_stride_with_dilation=[True]),
    lambda m: m.ResNet(m.resnet.BasicBlock, [1, 1, 1, 1], groups=2),
    lambda m: m.mobilenet_v2(inverted_residual_setting=[[1, 2]]),
    lambda m: m.ShuffleNetV2([4, 8], [24, 116, 232, 464, 1024]),
    lambda m: m.Inception3(inception_blocks=[], init_weights=False),
    lambda m: m.EfficientNet([], 0.2),
    lambda m: m.ConvNeXt([1]),
    lambda m: m.regnet.BlockParams.from_init_params(depth=3, w_0=12, w_a=1.0, w_m=2.0,
                                                    group_width=8),
])
def test_builder_errors_match_torchvision(call):
    expected = _raised(lambda: call(tm))
    assert expected is not None
    assert _raised(lambda: call(nm)) == expected


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fn()
    return [(w.category, str(w.message)) for w in caught], model


@pytest.mark.parametrize("call", [
    lambda m: m.squeezenet1_1(pretrained=False),
    lambda m: m.squeezenet1_1(False),
    lambda m: m.squeezenet1_1(None, False),
    lambda m: m.squeezenet1_1(weights=None),
    lambda m: m.googlenet(init_weights=None),
    lambda m: m.inception_v3(),
])
def test_legacy_interface_warnings_match_torchvision(call):
    theirs, tmodel = _warnings_of(lambda: call(tm))
    with skipped_random_init():
        ours, nmodel = _warnings_of(lambda: call(nm))
    assert ours == theirs
    assert type(nmodel).__name__ == type(tmodel).__name__


def test_pretrained_true_maps_to_the_legacy_weights(monkeypatch):
    seen = []

    def fake_build(make, weights, progress, kwargs, **required):
        seen.append(weights)
        return "model"

    from numtorchvision.models import resnet
    monkeypatch.setattr(resnet, "_build", fake_build)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert nm.resnet50(pretrained=True) == "model"
    assert seen == [nm.ResNet50_Weights.IMAGENET1K_V1]
    assert [str(w.message) for w in caught] == [
        "The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
        "please use 'weights' instead.",
        "Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 "
        "and may be removed in the future. The current behavior is equivalent to passing "
        "`weights=ResNet50_Weights.IMAGENET1K_V1`. You can also use "
        "`weights=ResNet50_Weights.DEFAULT` to get the most up-to-date weights."]
    assert torchvision.__version__.startswith("0.28")


@pytest.mark.parametrize("member", ["ResNet50_Weights.IMAGENET1K_V2",
                                    "EfficientNet_B3_Weights.IMAGENET1K_V1",
                                    "ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1",
                                    "VGG16_Weights.IMAGENET1K_FEATURES"])
def test_weights_preprocessing_matches_torchvision(member):
    from PIL import Image

    rng = np.random.RandomState(0)
    ours, theirs = nm.get_weight(member).transforms(), tm.get_weight(member).transforms()
    assert repr(ours) == repr(theirs)
    img = Image.fromarray(rng.randint(0, 256, (300, 260, 3)).astype(np.uint8))
    a, b = theirs(img), ours(img)
    assert b.dtype == numtorch.float32 and tuple(b.shape) == tuple(a.shape)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-5)
    x = rng.rand(2, 3, 300, 260).astype(np.float32)
    a, b = theirs(torch.tensor(x)), ours(numtorch.tensor(x))
    # float resizing sums in another order: allow a few float32 ulps of the value range
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4,
                               atol=1e-4 * float(np.abs(a.numpy()).max()))
    assert "resize_size" in ours.describe()
