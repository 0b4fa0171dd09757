"""Session 51: stray constructor arguments of v1 transforms and ops modules, against
torchvision at test time: ToTensor/PILToTensor had no __init__ ("ToTensor() takes no
arguments"), DropBlock3d used DropBlock2d's (its name in the TypeError)."""

import inspect

import pytest
import torchvision.transforms as tv_t
from torchvision import ops as tv_ops

import numtorchvision.transforms as nt_t
from numtorchvision import ops as nt_ops


def _message(cls, args, kwargs):
    with pytest.raises(TypeError) as info:
        cls(*args, **kwargs)
    return str(info.value)


_V1 = sorted(n for n in dir(tv_t) if inspect.isclass(getattr(tv_t, n)) and not n.startswith("_")
             and n not in ("InterpolationMode", "AutoAugmentPolicy"))
_OPS = sorted(n for n in dir(tv_ops) if inspect.isclass(getattr(tv_ops, n))
              and not n.startswith("_"))


@pytest.mark.parametrize("name", _V1)
@pytest.mark.parametrize("args,kwargs", [((), {"foo": 1}), (tuple(range(1, 10)), {})],
                         ids=["keyword", "positional"])
def test_v1_transform_constructor_refusals(name, args, kwargs):
    assert _message(getattr(nt_t, name), args, kwargs) == \
        _message(getattr(tv_t, name), args, kwargs)


@pytest.mark.parametrize("name", _OPS)
def test_ops_module_constructor_refusals(name):
    assert _message(getattr(nt_ops, name), (), {"foo": 1}) == \
        _message(getattr(tv_ops, name), (), {"foo": 1})
