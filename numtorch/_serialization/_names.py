"""Global names in pickles: numtorch's objects are written under torch's names and read back.

A pickled whole model names its classes and functions (``GLOBAL module name``). numtorch
writes the name real torch uses for the same object, so torch can load numtorch's pickles, and
maps ``torch.*`` / ``torchvision.*`` names back to numtorch's objects when loading. Both
directions are generic: numtorch mirrors torch's module layout, so a name is translated by
swapping the leading package, and the result is checked against the objects that actually
exist (on writing, against torch's list of modules and numtorch's own modules; on reading, by
importing numtorch's counterpart).
"""

import importlib
import sys

from ._torch_modules import torch_modules

# numtorch's top-level packages and the torch packages they stand for
_TO_TORCH = {"numtorch": "torch", "numtorchvision": "torchvision"}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items()}
_MISSING = object()
_WRITE_CACHE = {}
# torch's compiled namespaces, which pickles name for functions torch implements in C
# (``F.gelu`` is pickled as ``torch._C._nn.gelu``), and numtorch's module for each
_C_NAMESPACES = {
    "torch._C._nn": "numtorch.nn.functional", "torch._C._VariableFunctions": "numtorch",
    "torch._C._linalg": "numtorch.linalg", "torch._C._fft": "numtorch.fft",
    "torch._C._special": "numtorch.special", "torch._C": "numtorch",
}


def _swap(module, table):
    """``module`` with its leading package renamed by ``table``, or None if not in it."""
    head, dot, rest = module.partition(".")
    new = table.get(head)
    return None if new is None else new + dot + rest


def _lookup(obj, qualname):
    """``obj.<qualname>`` following dots, or ``_MISSING``."""
    for part in qualname.split("."):
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            return _MISSING
    return obj


def _common_depth(a, b):
    n = 0
    for x, y in zip(a.split("."), b.split(".")):
        if x != y:
            break
        n += 1
    return n


def torch_name(obj, module, qualname):
    """The ``(module, qualname)`` to write for the global ``obj`` found at ``module``.

    numtorch's objects get torch's module: the same path with ``torch`` for ``numtorch`` when
    torch has that module, otherwise the torch-named numtorch module (already imported) that
    exposes the same object and is closest to where it is defined (``relu`` from
    ``numtorch.nn.functional.activation`` is written as ``torch.nn.functional.relu``). Names
    that are private (``_Helper``) or found in no module torch has keep numtorch's path, so
    nothing is written that neither library could resolve. Other objects are unchanged.
    """
    if _swap(module, _TO_TORCH) is None or qualname.startswith("_"):
        return module, qualname
    key = (module, qualname)
    hit = _WRITE_CACHE.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    known = torch_modules()
    direct = _swap(module, _TO_TORCH)
    result = (module, qualname)
    if direct in known:
        result = (direct, qualname)
    else:
        root = module.partition(".")[0]
        best = None
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name == root or name.startswith(root + ".")):
                continue
            swapped = _swap(name, _TO_TORCH)
            if swapped not in known or _lookup(mod, qualname) is not obj:
                continue
            # nearest to the defining module, then deepest, then by name (deterministic)
            rank = (_common_depth(name, module), name.count("."), tuple(-ord(c) for c in name))
            if best is None or rank > best[0]:
                best = (rank, swapped)
        if best is not None:
            result = (best[1], qualname)
    _WRITE_CACHE[key] = (obj, result)
    return result


def numtorch_object(module, name):
    """numtorch's object for the torch global ``module.name``, or ``_MISSING``.

    The mirrored module (``torch.nn.modules.linear`` -> ``numtorch.nn.modules.linear``) is
    tried first, then its parent packages, since numtorch may keep a name one level up.
    Only modules under numtorch's own packages are imported.
    """
    mirror = _C_NAMESPACES.get(module) or _swap(module, _FROM_TORCH)
    if mirror is None:
        return _MISSING
    parts = mirror.split(".")
    for i in range(len(parts), 0, -1):
        path = ".".join(parts[:i])
        try:
            mod = importlib.import_module(path)
        except ModuleNotFoundError as e:
            if e.name is not None and not path.startswith(e.name):
                raise  # a real missing dependency inside numtorch, not a missing mirror
            continue
        obj = _lookup(mod, name)
        if obj is not _MISSING:
            return obj
    return _MISSING


def is_torch_module(module):
    """Whether ``module`` is under torch or torchvision (the names numtorch stands for)."""
    return _swap(module, _FROM_TORCH) is not None


def names_of(obj):
    """Every ``module.qualname`` string a pickle may use for ``obj`` (for allow-lists): its
    own, and the torch name it is written under."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return set()
    out = {f"{module}.{qualname}"}
    tm, tq = torch_name(obj, module, qualname)
    out.add(f"{tm}.{tq}")
    swapped = _swap(module, _TO_TORCH)
    if swapped is not None:
        out.add(f"{swapped}.{qualname}")
        for c_module, ours in _C_NAMESPACES.items():
            found = sys.modules.get(ours)
            if found is not None and _lookup(found, qualname) is obj:
                out.add(f"{c_module}.{qualname}")
    return out
