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


# -- bad values for every constructor parameter of the v1/v2 transform classes (one
#    parameter at a time, the required others filled with plausible values)
_BAD_VALUES = [-1, 0, 1.5, (1, 2, 3), (2, 1), [], "x", None, (0.5,), 300, (-1, 2)]
_SKIP = {"InterpolationMode", "AutoAugmentPolicy", "Transform", "Compose", "RandomApply",
         "RandomChoice", "RandomOrder", "Lambda", "LinearTransformation", "RandomTransforms"}


def _plausible(name, lib):
    return {"size": 4, "kernel_size": 3, "degrees": 10, "bits": 4, "threshold": 100,
            "sharpness_factor": 2, "padding": 1, "mean": [0.5], "std": [0.5], "min_size": 4,
            "max_size": 8, "num_samples": 2, "target_size": (8, 8), "quality": 50,
            "format": "XYXY", "distortion_scale": 0.5, "dtype": lib.float32}.get(name, 1)


def _constructor_outcomes(mod, lib):
    import warnings

    out = {}
    for n in sorted(dir(mod)):
        c = getattr(mod, n)
        if not inspect.isclass(c) or n.startswith("_") or n in _SKIP:
            continue
        params = [p for p in inspect.signature(c).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for p in params:
            for i, v in enumerate(_BAD_VALUES):
                kw = {q.name: _plausible(q.name, lib) for q in params
                      if q.default is inspect.Parameter.empty and q.name != p.name}
                kw[p.name] = v
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        c(**kw)
                    r = "ok"
                except Exception as e:  # noqa: BLE001 (the outcome is compared)
                    r = f"{type(e).__name__}: {e}".replace("numtorchvision", "torchvision")
                out[(n, p.name, i)] = r
    return out


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_constructor_validation_matches_torchvision(v2):
    import torch
    from torchvision.transforms import v2 as tv_v2

    import numtorch
    from numtorchvision.transforms import v2 as nt_v2

    want = _constructor_outcomes(tv_v2 if v2 else tv_t, torch)
    got = _constructor_outcomes(nt_v2 if v2 else nt_t, numtorch)
    assert len(want) > 400
    diff = {k: (got.get(k), w) for k, w in want.items() if got.get(k) != w}
    assert not diff
