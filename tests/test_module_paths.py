"""Classes and functions live at torch's module paths.

Pickled models and checkpoints name ``cls.__module__``; user code imports deep paths
(``torch.nn.modules.linear.NonDynamicallyQuantizableLinear``). For every public class and
function torch 2.13 defines in ``torch.nn``, ``torch.nn.modules.*``, ``torch.nn.utils.*``,
``torch.optim.*``, ``torch.utils.data.*`` and ``torch.autograd.*`` that numtorch implements,
``numtorch.<same path>.<name>`` must be numtorch's public object and its ``__module__`` must
be torch's with the prefix swapped.
"""

import importlib
import inspect
import pkgutil
import sys

import numpy as np
import pytest
import torch

import numtorch  # noqa: F401

ROOTS = ["torch.nn", "torch.optim", "torch.utils.data", "torch.autograd"]
PRIVATE_KEPT = {"torch.utils.data._utils", "torch.utils.data._utils.collate"}
# Packages other issues own or that numtorch does not provide (quantization, parallel,
# distributed, data pipes, the profiler).
EXCLUDED = ("torch.nn.quantized", "torch.nn.intrinsic", "torch.nn.qat", "torch.nn.quantizable",
            "torch.nn.backends", "torch.nn.attention", "torch.nn.parallel", "torch.nn.cpp",
            "torch.utils.data.datapipes", "torch.autograd.profiler", "torch.autograd._functions")


def _torch_modules():
    names = set()
    for root in ROOTS:
        names.add(root)
        for info in pkgutil.walk_packages(importlib.import_module(root).__path__, root + "."):
            parts = info.name.split(".")
            private = any(p.startswith("_") for p in parts[2:])
            if info.name.startswith(EXCLUDED) or (private and info.name not in PRIVATE_KEPT):
                continue
            try:
                importlib.import_module(info.name)
            except ImportError:  # optional torch pieces this build lacks
                continue
            names.add(info.name)
    return sorted(names)


TORCH_MODULES = _torch_modules()


def _numtorch_name(torch_name):
    return "numtorch" + torch_name[len("torch"):]


def _numtorch_module(torch_name):
    try:
        return importlib.import_module(_numtorch_name(torch_name))
    except ModuleNotFoundError:
        return None


def _defined(module):
    """(name, object) for the public classes and functions ``module`` defines itself."""
    for name, obj in sorted(vars(module).items()):
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.ismodule(sys.modules.get(f"{module.__name__}.{name}")):
            continue  # the attribute shadows a submodule of the same name
        yield name, obj


def _numtorch_counterparts(name, torch_obj):
    """numtorch's objects for ``torch_obj``: wherever torch exposes it, numtorch's namesake."""
    found = {}
    for mod_name in TORCH_MODULES:
        if getattr(sys.modules[mod_name], name, None) is not torch_obj:
            continue
        module = _numtorch_module(mod_name)
        if module is not None and hasattr(module, name):
            found[_numtorch_name(mod_name)] = getattr(module, name)
    return found


def _cases():
    """Only what numtorch implements somewhere; the rest is other issues' work."""
    for mod_name in TORCH_MODULES:
        for name, obj in _defined(sys.modules[mod_name]):
            if _numtorch_counterparts(name, obj):
                yield pytest.param(mod_name, name, id=f"{mod_name}.{name}")


@pytest.mark.parametrize("torch_module, name", list(_cases()))
def test_defined_at_torch_path(torch_module, name):
    torch_obj = getattr(sys.modules[torch_module], name)
    found = _numtorch_counterparts(name, torch_obj)
    objects = list(found.values())
    assert all(o is objects[0] for o in objects), f"different objects: {found}"
    want = _numtorch_name(torch_module)
    assert want in found, f"{want}.{name} missing (numtorch has it in {sorted(found)})"
    assert found[want].__module__ == want


def test_deep_paths_real_programs_use():
    from numtorch.nn.modules.linear import NonDynamicallyQuantizableLinear
    from numtorch.nn.modules.utils import _pair, _single, _triple, _quadruple
    from numtorch.utils.data._utils.collate import default_collate

    assert issubclass(NonDynamicallyQuantizableLinear, numtorch.nn.Linear)
    mha = numtorch.nn.MultiheadAttention(4, 2)
    assert type(mha.out_proj) is NonDynamicallyQuantizableLinear
    assert type(torch.nn.MultiheadAttention(4, 2).out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    from torch.nn.modules import utils as tu
    for ours, theirs in [(_single, tu._single), (_pair, tu._pair), (_triple, tu._triple),
                         (_quadruple, tu._quadruple)]:
        for arg in [3, (1, 2), [4, 5, 6], (7,)]:
            assert ours(arg) == theirs(arg)
    assert default_collate is numtorch.utils.data.default_collate


def test_modules_utils_helpers_match_torch():
    import collections

    from torch.nn.modules import utils as tu

    from numtorch.nn.modules import utils as nu

    assert nu._ntuple(3)(5) == tu._ntuple(3)(5) and nu._pair("ab") == tu._pair("ab")
    assert nu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    for out_size in [[None, 5], 3, []]:
        assert nu._list_with_default(out_size, (7, 8, 9)) == \
            tu._list_with_default(out_size, (7, 8, 9))
    with pytest.raises(ValueError) as theirs:
        tu._list_with_default([1, 2], (3, 4))
    with pytest.raises(ValueError, match=str(theirs.value)):
        nu._list_with_default([1, 2], (3, 4))
    for prefix in ["module.", "module", "mod"]:
        dicts = []
        for helper in (nu, tu):
            sd = collections.OrderedDict([("module.a", 1), ("moduleX", 2), ("b", 3)])
            sd._metadata = {"": {"v": 1}, "module": {"v": 2}, "module.b": {}, "other": {}}
            helper.consume_prefix_in_state_dict_if_present(sd, prefix)
            dicts.append((list(sd.items()), list(sd._metadata.items())))
        assert dicts[0] == dicts[1], prefix


def test_torch_utils_module():
    """``torch._utils``: the rebuild functions checkpoints name, and the flatten helpers."""
    from torch import _utils as tu

    from numtorch import _utils as nu

    for name in ["_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3",
                 "_rebuild_parameter", "_rebuild_parameter_with_state"]:
        assert callable(getattr(nu, name)) and callable(getattr(tu, name))
    shapes = [(2, 2), (3,), (1, 4)]
    ours = [numtorch.arange(float(np.prod(s))).reshape(s) for s in shapes]
    theirs = [torch.arange(float(np.prod(s))).reshape(s) for s in shapes]
    flat, tflat = nu._flatten_dense_tensors(ours), tu._flatten_dense_tensors(theirs)
    assert flat.tolist() == tflat.tolist()
    back = nu._unflatten_dense_tensors(flat * 2, ours)
    tback = tu._unflatten_dense_tensors(tflat * 2, theirs)
    assert [b.tolist() for b in back] == [b.tolist() for b in tback]
    assert nu._flatten_dense_tensors([ours[0].t()]).tolist() == \
        tu._flatten_dense_tensors([theirs[0].t()]).tolist()
