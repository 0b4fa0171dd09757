"""Session 47: the v2 transforms' ``make_params`` dictionaries carry torchvision 0.28's keys
and values (users override ``transform(inpt, params)`` or feed their own parameters), and
``transform`` applied to torchvision's own parameters gives torchvision's output; compared
with torchvision at test time under the same seed."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (conftest imported it with register_fake patched)
from torchvision import tv_tensors as tv_tt
from torchvision.transforms import v2 as tvT

import numtorch
from numtorchvision import tv_tensors as nt_tt
from numtorchvision.transforms import v2 as ntT

from ._helpers import pair, to_np

_CASES = {
    "ColorJitter": lambda T: T.ColorJitter(0.2, 0.3, 0.4, 0.1),
    "ColorJitter_brightness": lambda T: T.ColorJitter(brightness=0.3),
    "ColorJitter_none": lambda T: T.ColorJitter(),
    "RandomErasing": lambda T: T.RandomErasing(1.0),
    "RandomErasing_value": lambda T: T.RandomErasing(1.0, value=[1, 2, 3]),
    "RandomErasing_random": lambda T: T.RandomErasing(1.0, value="random"),
    "RandomErasing_fallback": lambda T: T.RandomErasing(1.0, scale=(0.99, 1.0), ratio=(5, 6)),
    "RandomCrop_padding": lambda T: T.RandomCrop(10, padding=2),
    "RandomCrop": lambda T: T.RandomCrop((11, 7)),
    "RandomCrop_whole": lambda T: T.RandomCrop((20, 30)),
    "RandomCrop_pad_if_needed": lambda T: T.RandomCrop(25, pad_if_needed=True),
    "RandomCrop_both": lambda T: T.RandomCrop((20, 30), padding=[1, 2], pad_if_needed=True),
    "RandomPhotometricDistort": lambda T: T.RandomPhotometricDistort(),
    "RandomPhotometricDistort_p1": lambda T: T.RandomPhotometricDistort(p=1.0),
    "RandomChannelPermutation": lambda T: T.RandomChannelPermutation(),
    "RandomGrayscale": lambda T: T.RandomGrayscale(1.0),
    "MixUp": lambda T: T.MixUp(num_classes=3),
    "CutMix": lambda T: T.CutMix(num_classes=3),
}
_BATCHED = ("MixUp", "CutMix")


def _image(lib, tt, name, arr):
    if name in _BATCHED:
        return lib.from_numpy(arr[None].repeat(2, 0).copy())
    return tt.Image(lib.from_numpy(arr.copy()))


def _same(got, want, key):
    if isinstance(want, torch.Tensor):
        assert isinstance(got, numtorch.Tensor), key
        assert str(got.dtype) == str(want.dtype), key
        np.testing.assert_array_equal(to_np(got), to_np(want), err_msg=key)
    else:
        assert type(got) is type(want) and got == want, (key, got, want)


def _to_nt(value):
    return numtorch.from_numpy(value.numpy().copy()) if isinstance(value, torch.Tensor) else value


@pytest.mark.parametrize("name", list(_CASES))
@pytest.mark.parametrize("seed", [0, 3, 7])
def test_make_params_keys_and_values_match(name, seed):
    arr = np.random.default_rng(seed).random((3, 20, 30)).astype(np.float32)
    numtorch.manual_seed(seed)
    got = _CASES[name](ntT).make_params([_image(numtorch, nt_tt, name, arr)])
    torch.manual_seed(seed)
    want = _CASES[name](tvT).make_params([_image(torch, tv_tt, name, arr)])
    assert list(got) == list(want)
    for key in want:
        _same(got[key], want[key], key)


@pytest.mark.parametrize("name", [n for n in _CASES if n not in _BATCHED])
@pytest.mark.parametrize("seed", [1, 4])
def test_transform_with_torchvisions_params_matches(name, seed):
    arr = np.random.default_rng(seed).random((3, 20, 30)).astype(np.float32)
    torch.manual_seed(seed)
    tv_tr = _CASES[name](tvT)
    params = tv_tr.make_params([_image(torch, tv_tt, name, arr)])
    want = tv_tr.transform(_image(torch, tv_tt, name, arr), params)
    got = _CASES[name](ntT).transform(_image(numtorch, nt_tt, name, arr),
                                      {k: _to_nt(v) for k, v in params.items()})
    assert type(got).__name__ == type(want).__name__
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["MixUp", "CutMix"])
def test_batch_mixers_with_seeded_forward_match(name):
    rng = np.random.default_rng(5)
    a, b = pair(rng.random((4, 3, 8, 10)).astype(np.float32))
    la, lb = pair(np.array([0, 2, 1, 2]))
    numtorch.manual_seed(2)
    got = _CASES[name](ntT)(a, la)
    torch.manual_seed(2)
    want = _CASES[name](tvT)(b, lb)
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_np(g), to_np(w), rtol=1e-6, atol=1e-7)


class _Shift:
    """A user transform that overrides ``transform`` and reads ColorJitter's parameters."""

    @staticmethod
    def build(T):
        class ShiftByBrightness(T.ColorJitter):
            def transform(self, inpt, params):
                return inpt + params["brightness_factor"] + params["fn_idx"][0]

        return ShiftByBrightness(brightness=0.5)


def test_user_subclass_reading_params():
    arr = np.random.default_rng(6).random((3, 4, 5)).astype(np.float32)
    numtorch.manual_seed(9)
    got = _Shift.build(ntT)(nt_tt.Image(numtorch.from_numpy(arr.copy())))
    torch.manual_seed(9)
    want = _Shift.build(tvT)(tv_tt.Image(torch.from_numpy(arr.copy())))
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=1e-6)


def _get_params_calls(lib, img):
    return {
        "RandomResizedCrop": lambda T: T.RandomResizedCrop.get_params(img, [0.08, 1.0],
                                                                     [3 / 4, 4 / 3]),
        "RandomCrop": lambda T: T.RandomCrop.get_params(img, (10, 7)),
        "RandomAffine": lambda T: T.RandomAffine.get_params([-10, 10], [0.1, 0.2], [0.9, 1.1],
                                                            [-5, 5, -3, 3], [30, 20]),
        "RandomPerspective": lambda T: T.RandomPerspective.get_params(30, 20, 0.5),
        "ColorJitter": lambda T: T.ColorJitter.get_params([0.5, 1.5], None, [0.9, 1.1],
                                                          [-0.1, 0.1]),
        "RandomErasing": lambda T: T.RandomErasing.get_params(img, (0.02, 0.33), (0.3, 3.3),
                                                              value=[0.5]),
        "RandomRotation": lambda T: T.RandomRotation.get_params([-30, 30]),
        "AutoAugment": lambda T: T.AutoAugment.get_params(25),
        "GaussianBlur": lambda T: T.GaussianBlur.get_params(0.1, 2.0),
        "ElasticTransform": lambda T: T.ElasticTransform.get_params([20.0, 20.0], [3.0, 3.0],
                                                                    [30, 33]),
    }


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


@pytest.mark.parametrize("name", list(_get_params_calls(None, None)))
@pytest.mark.parametrize("seed", [0, 5])
def test_v2_get_params_is_v1s(name, seed):
    arr = np.random.default_rng(seed).random((3, 20, 30)).astype(np.float32)
    numtorch.manual_seed(seed)
    got = _get_params_calls(numtorch, numtorch.from_numpy(arr.copy()))[name](ntT)
    torch.manual_seed(seed)
    want = _get_params_calls(torch, torch.from_numpy(arr.copy()))[name](tvT)
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):  # the elastic field is blurred: ulps of a conv
            np.testing.assert_allclose(to_np(g), to_np(w), rtol=1e-5, atol=1e-6)
        else:
            assert g == w


def test_v1_counterparts_and_get_params_presence_match():
    for name in tvT.__all__ if hasattr(tvT, "__all__") else dir(tvT):
        want = getattr(tvT, name)
        if not (isinstance(want, type) and issubclass(want, tvT.Transform)):
            continue
        got = getattr(ntT, name)
        v1 = want._v1_transform_cls
        assert (got._v1_transform_cls is None) == (v1 is None), name
        if v1 is not None:
            assert got._v1_transform_cls.__name__ == v1.__name__, name
        assert hasattr(got, "get_params") == hasattr(want, "get_params"), name
