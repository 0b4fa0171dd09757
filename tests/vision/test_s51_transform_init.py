"""Session 51: v2 transforms without settings of their own (Identity, ToImage, ToPureTensor,
RandomChannelPermutation, ClampKeyPoints, ...) take no arguments in torchvision (its Transform
base has none): numtorchvision's base kept any keyword (RandomChannelPermutation(p=0.5) was
accepted and shown in the repr, a typo passed silently). Oracle: torchvision at test time."""

import inspect

import pytest
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision.transforms import v2 as tv_v2

from numtorchvision.transforms import v2 as nt_v2


def _transform_names():
    return sorted(n for n in dir(tv_v2) if inspect.isclass(getattr(tv_v2, n))
                  and issubclass(getattr(tv_v2, n), tv_v2.Transform))


def _outcome(cls, args, kwargs):
    try:
        cls(*args, **kwargs)
    except TypeError as e:
        return "TypeError", str(e)
    except Exception as e:  # noqa: BLE001 (any other refusal: its class)
        return type(e).__name__, None
    return "ok", None


@pytest.mark.parametrize("name", _transform_names())
@pytest.mark.parametrize("args,kwargs", [((), {"p": 0.5}), ((3,), {}), ((), {"foo": 1})],
                         ids=["p", "positional", "unknown"])
def test_stray_constructor_arguments(name, args, kwargs):
    want = _outcome(getattr(tv_v2, name), args, kwargs)
    got = _outcome(getattr(nt_v2, name), args, kwargs)
    assert got[0] == want[0]
    if want[1] is not None:  # (the qualified name of the __init__ that refused)
        assert got[1] == want[1]


def test_settingless_transforms_still_work():
    import numtorch
    from numtorchvision import tv_tensors

    x = tv_tensors.Image(numtorch.rand(3, 4, 5))
    assert nt_v2.Identity()(x) is x
    assert repr(nt_v2.RandomChannelPermutation()) == "RandomChannelPermutation()"
    assert type(nt_v2.ToPureTensor()(x)) is numtorch.Tensor
    assert type(nt_v2.ToImage()(x.as_subclass(numtorch.Tensor))) is tv_tensors.Image
    assert nt_v2.RGB()(x).shape == x.shape
