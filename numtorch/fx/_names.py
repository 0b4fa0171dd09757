"""Names in generated code: node names, and the torch names that numtorch's functions print as.

Graph printouts and generated code must read as torch's do, so a node calling numtorch's
``relu`` is shown as ``torch.relu`` and ``F.linear`` as ``torch._C._nn.linear``: torch prints
its functions under the module that defines them, which for most is the public namespace but
for some is a private C module. The tables below record where torch's differ from the public
path (observed behaviour of torch 2.13).
"""

import builtins
import keyword
import re

__all__ = ["Namespace", "qualified_name", "snake_case", "target_to_str", "torch_name_of"]

# Names that generated code needs for itself (module globals it refers to).
_RESERVED = (
    set(keyword.kwlist) | set(dir(builtins))
    | {"inf", "nan", "NoneType", "device", "fx_pytree", "pytree", "torch"}
)
_NUMBERED = re.compile(r"(.*)_(\d+)$")
_ILLEGAL_CHAR = re.compile(r"[^0-9a-zA-Z_]+")
_CAMEL = re.compile(r"(?<=[a-z])([A-Z])")


def snake_case(name):
    """``CamelCase`` -> ``camel_case``; runs of capitals stay one word (``HTTPServer`` -> ``httpserver``)."""
    return _CAMEL.sub(r"_\1", name).lower()


class Namespace:
    """Hands out unique, legal Python identifiers, numbering repeats (``add``, ``add_1``, ...)."""

    def __init__(self):
        self._used = set()
        self._base_count = {}
        self._obj_to_name = {}

    def create_name(self, candidate, obj):
        """Return a fresh identifier derived from ``candidate``, remembered for ``obj``."""
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = _ILLEGAL_CHAR.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        match = _NUMBERED.match(candidate)
        if match is None:
            base, num = candidate, None
        else:
            base, num = match.group(1), int(match.group(2))
        while candidate in self._used or candidate in _RESERVED:
            num = self._base_count.get(base, 0) + 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = max(self._base_count.get(base, 0), num or 0)
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[id(obj)] = name

    def forget(self, name):
        self._used.discard(name)


def target_to_str(target):
    """The name a node calling ``target`` is given before numbering."""
    if callable(target):
        name = getattr(target, "__name__", None) or type(target).__name__
    else:
        name = str(target)
    if name.startswith("__") and name.endswith("__") and len(name) > 4:
        name = name[2:-2]  # operator.__add__ -> add
    return snake_case(name)


# torch defines these public functions in Python modules, and prints them under those modules.
_TORCH_FUNCTIONAL = {
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "einsum", "lu", "meshgrid",
    "norm", "split", "stft", "istft", "tensordot", "unique", "unique_consecutive",
    "unravel_index",
}
_TORCH_OTHER = {
    "get_rng_state": "torch.random.get_rng_state", "initial_seed": "torch.random.initial_seed",
    "manual_seed": "torch.random.manual_seed", "seed": "torch.random.seed",
    "set_rng_state": "torch.random.set_rng_state", "load": "torch.serialization.load",
    "save": "torch.serialization.save", "set_printoptions": "torch._tensor_str.set_printoptions",
}
# torch.nn.functional entries that torch prints under another path.
_F_TORCH = {
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d",
    "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity", "hardshrink", "native_channel_shuffle", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_", "selu_", "threshold_",
}
_F_C_NN = {
    "avg_pool2d", "avg_pool3d", "elu_", "gelu", "hardtanh_", "leaky_relu_", "linear", "one_hot",
    "scaled_dot_product_attention", "softplus", "softshrink",
}
_F_OTHER = {"logsigmoid": "torch._C._nn.log_sigmoid", "threshold": "torch.nn.functional._threshold"}

_table = None  # id(function) -> (torch qualified name, function)


def _is_numtorch_function(value):
    module = getattr(value, "__module__", None) or ""
    return callable(value) and not isinstance(value, type) and module.startswith("numtorch")


def _public_entries(subs=("linalg", "special", "fft")):
    """(torch qualified name, key, function) for the public functions of the namespaces
    (``torch``, ``torch.nn.functional`` and the submodules ``subs``)."""
    import importlib

    import numtorch
    import numtorch.nn.functional as F

    entries = []
    for key in dir(F):
        if key.startswith("_"):
            continue
        if key in _F_TORCH:
            name = "torch." + key
        elif key in _F_C_NN:
            name = "torch._C._nn." + key
        else:
            name = _F_OTHER.get(key, "torch.nn.functional." + key)
        entries.append((name, key, getattr(F, key)))
    for key in dir(numtorch):
        if key.startswith("_") and key != "_assert":  # torch._assert is meant for fx
            continue
        if key in _TORCH_FUNCTIONAL:
            name = "torch.functional." + key
        else:
            name = _TORCH_OTHER.get(key, "torch." + key)
        entries.append((name, key, getattr(numtorch, key)))
    for sub in subs:
        module = importlib.import_module("numtorch." + sub)
        for key in getattr(module, "__all__", dir(module)):
            if not key.startswith("_"):
                entries.append((f"torch._C._{sub}.{sub}_{key}", key, getattr(module, key, None)))
    # while proxies are about, the namespaces hold wrappers: list the functions themselves
    entries = [(n, k, getattr(v, "__fx_original__", v)) for n, k, v in entries]
    return [e for e in entries if _is_numtorch_function(e[2])]


def _build_table():
    table = {}
    entries = _public_entries()
    # A function exported under several names (numtorch's ``arctan`` is ``atan``) prints under
    # the name it was defined with; the aliases get functions of their own (see _patching).
    for name, key, value in entries:
        if getattr(value, "__name__", None) == key:
            table.setdefault(id(value), (name, value))
    for name, key, value in entries:
        table.setdefault(id(value), (name, value))
    return table


def torch_name_of(value):
    """torch's qualified name of a numtorch public function, or None."""
    global _table
    if _table is None:
        _table = _build_table()
        _table.update(_registered)
    entry = _table.get(id(value))
    return entry[0] if entry is not None and entry[1] is value else None


_registered = {}  # names given by register_torch_name, kept until the table is built


def register_torch_name(value, name):
    """Make ``value`` print as ``name`` (a function numtorch defines outside the namespaces)."""
    _registered[id(value)] = (name, value)
    if _table is not None:
        _table[id(value)] = (name, value)


def qualified_name(func):
    """``module.name`` of a callable as torch prints it (``operator.add``, ``torch.relu``)."""
    name = torch_name_of(func)
    if name is not None:
        return name
    if getattr(func, "__name__", None) == "<lambda>":
        raise RuntimeError(f"Unable to represent lambda {func}")
    module = getattr(func, "__module__", None)
    if module is None and hasattr(func, "__objclass__"):
        module = func.__objclass__.__module__
    if module is None or module == "_operator":
        module = "operator" if module == "_operator" else "builtins"
    if module.startswith("numtorch"):
        module = "torch" + module[len("numtorch"):]
    name = getattr(func, "__name__", None) or type(func).__name__
    return f"{module}.{name}"
