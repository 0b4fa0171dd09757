"""The ``__torch_function__`` protocol for Tensor subclasses, as torch runs it.

In torch, every public function and Tensor method first looks for arguments whose type
overrides ``__torch_function__`` and hands the call to them; the plain Tensor's own
implementation runs the function and turns the tensors it returns into the subclass, so
``(MyTensor + 1)`` is a ``MyTensor`` and a subclass can log, wrap or redirect any call.

numtorch installs this dispatch lazily, when a program defines a Tensor subclass of its own
(``Tensor.__init_subclass__``): the subclass gets its own copies of the Tensor methods and
operators behind a thin check of their arguments (plain tensors keep the unwrapped methods, so
they pay nothing), and, the first time, the public functions of ``numtorch``,
``nn.functional``, ``linalg``, ``fft`` and ``special`` are replaced by such wrappers. Programs
that never subclass Tensor call everything directly. numtorch's own modules call their
functions directly too, so a subclass sees the calls the user's code makes, not the internal
ones. Objects that are not tensors but define ``__torch_function__`` are dispatched by the
function wrappers once they are installed. Two differences remain: a plain tensor's method
given a subclass argument (``plain.add(sub)``) does not dispatch, and Python's reflected
operators make ``plain - sub`` reach the subclass as ``__rsub__``; a warning raised inside a
wrapped function is attributed to the wrapper's frame.

``Parameter`` (and numtorch's internal subclasses) use :func:`_disabled_torch_function_impl`,
as torch's Parameter does: operations on them give plain tensors.
"""

import functools
import sys
import threading
import types
import weakref

from . import _function_mode as _modes
from . import _layers

__all__ = ["DisableTorchFunctionSubclass", "DisableTorchFunction",
           "_disabled_torch_function_impl", "default_torch_function"]

_state = threading.local()
_installed = [False]

# Tensor methods that stay as they are: the dispatch itself uses them, or they only describe
# the tensor (torch returns these unwrapped too)
_KEEP_METHODS = frozenset({
    "as_subclass", "_make_subclass", "__init__", "__new__", "__init_subclass__", "__repr__",
    "__str__", "__format__", "__hash__", "__len__", "__iter__", "__bool__", "__float__",
    "__int__", "__index__", "__complex__", "__getstate__", "__setstate__", "__reduce__",
    "__reduce_ex__", "__deepcopy__", "__copy__", "__array__", "__array_wrap__", "__dlpack__",
    "__dlpack_device__", "__contains__", "__class_getitem__", "__getattr__", "__setattr__",
    "__delattr__", "__dir__", "__sizeof__", "__subclasshook__", "__torch_function__",
    "__weakref__", "__dict__", "__reversed__", "__delitem__", "dim", "size", "numel",
    "data_ptr", "element_size", "stride", "storage_offset", "is_contiguous", "get_device",
})
_OPERATORS = frozenset({
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
    "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__",
    "__rfloordiv__", "__ifloordiv__", "__mod__", "__rmod__", "__imod__", "__pow__", "__rpow__",
    "__ipow__", "__matmul__", "__rmatmul__", "__imatmul__", "__and__", "__rand__", "__iand__",
    "__or__", "__ror__", "__ior__", "__xor__", "__rxor__", "__ixor__", "__lshift__",
    "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__", "__irshift__", "__neg__",
    "__pos__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "__getitem__", "__setitem__",
})
_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data")
# operators torch reports under a named method (``t + 1`` reaches __torch_function__ as
# Tensor.add); the rest are reported as themselves
_OPERATOR_AS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__itruediv__": "div_", "__mod__": "remainder", "__pow__": "pow",
    "__ipow__": "pow_", "__matmul__": "matmul", "__rand__": "bitwise_and", "__neg__": "neg",
    "__pos__": "positive", "__abs__": "abs", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge",
}
_MODULES = ("numtorch", "numtorch.nn.functional", "numtorch.linalg", "numtorch.fft",
            "numtorch.special")
_TORCH_NAMES = {"numtorch": "torch.{}", "numtorch.nn.functional": "torch.nn.functional.{}",
                "numtorch.linalg": "torch.linalg.linalg_{}", "numtorch.fft": "torch.fft.fft_{}",
                "numtorch.special": "torch.special.special_{}"}
_KEEP_FUNCTIONS = frozenset({
    "is_tensor", "is_storage", "typename", "manual_seed", "seed", "initial_seed",
    "set_default_dtype", "get_default_dtype", "set_default_device", "get_default_device",
    "set_printoptions", "set_grad_enabled", "is_grad_enabled", "compile", "load", "save",
    "use_deterministic_algorithms", "set_num_threads", "get_num_threads",
})


def _sub_disabled():
    return getattr(_state, "sub", 0) > 0


def _all_disabled():
    return getattr(_state, "all", 0) > 0


class DisableTorchFunctionSubclass:
    """Context manager: Tensor subclasses are not dispatched inside it (other
    ``__torch_function__`` types still are)."""

    def __enter__(self):
        _state.sub = getattr(_state, "sub", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.sub -= 1
        return False


class DisableTorchFunction:
    """Context manager: no ``__torch_function__`` is dispatched inside it."""

    def __enter__(self):
        _state.all = getattr(_state, "all", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.all -= 1
        return False


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The ``__torch_function__`` of types that take no part in dispatch (``Parameter``)."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _convert(ret, cls):
    from ._tensor import Tensor

    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        if hasattr(ret, "_fields"):  # a named tuple (torch.return_types)
            return type(ret)(*items)
        return type(ret)(items)
    return ret


def default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor's own ``__torch_function__``: run ``func`` without dispatch, then make the
    tensors it returns instances of ``cls``."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **(kwargs or {}))
    return _convert(ret, cls)


def _takes_part(obj):
    """Whether ``obj``'s type dispatches: it defines ``__torch_function__`` and is not the
    plain Tensor or a type with the disabled implementation."""
    from ._tensor import Tensor

    t = type(obj)
    if t is Tensor:
        return False
    impl = getattr(t, "__torch_function__", None)
    if impl is not None and getattr(getattr(impl, "__func__", impl), "__module__",
                                    "").startswith("torch."):
        return False  # the real torch's tensors (DLPack exchange): numtorch does not dispatch
    if impl is None or getattr(impl, "__func__", impl) is _disabled_torch_function_impl:
        return False
    if isinstance(obj, Tensor):
        return not _sub_disabled()
    return True


_SIMPLE = (int, float, bool, str, type(None), complex, slice, type(Ellipsis))


def _relevant(args, kwargs):
    found = None
    for a in args:
        if type(a) in _SIMPLE:
            continue
        if type(a) in (list, tuple):
            for b in a:
                if type(b) not in _SIMPLE and _takes_part(b):
                    found = (found or []) + [b]
        elif _takes_part(a):
            found = (found or []) + [a]
    if kwargs:
        for a in kwargs.values():
            if type(a) not in _SIMPLE and _takes_part(a):
                found = (found or []) + [a]
    return found


_UNARY = frozenset({"__neg__", "__pos__", "__abs__", "__invert__", "__getitem__",
                    "__setitem__"})


def _dispatch(public, name, python_style, relevant, args, kwargs):
    """torch's dispatch over the overriding arguments: the first result that is not
    NotImplemented; when all decline, torch's TypeError (or NotImplemented for a binary
    operator, so that Python tries the reflected one)."""
    from .overrides import _overloaded_args

    overloaded = _overloaded_args(relevant)
    kinds = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public, kinds, args, kwargs)
        if result is not NotImplemented:
            return result
    if name is None:
        return NotImplemented
    if python_style:
        raise TypeError(f"no implementation found for '{name}' on types that implement "
                        f"__torch_function__: {list(kinds)}")
    listed = "".join(f"  - tensor subclass {k}\n" for k in kinds)
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{listed}\nFor more information, try "
                    "re-running with TORCH_LOGS=not_implemented")


def _wrap(func, reported_as=None, name=None, python_style=False):
    """``func`` behind a dispatch check. ``reported_as`` names the Tensor method handed to
    ``__torch_function__`` instead of the wrapper itself; ``name`` is torch's name for the
    function in the error raised when every override declines (None: a binary operator,
    which returns NotImplemented instead)."""
    if getattr(func, "_torch_function_wrapped", False):
        return func
    link = _layers.Link(func)  # autocast's wrappers can come and go below or above this one

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not _all_disabled():
            relevant = _relevant(args, kwargs)
            if _modes.any_active():  # a TorchFunctionMode sees the call first
                from ._tensor import Tensor

                public = getattr(Tensor, reported_as) if reported_as else wrapper
                kinds = tuple(type(a) for a in _overloaded(relevant)) if relevant else ()
                return _modes.dispatch(public, kinds, args, kwargs or {},
                                       lambda: wrapper(*args, **kwargs))
            if relevant:
                from ._tensor import Tensor

                public = getattr(Tensor, reported_as) if reported_as else wrapper
                return _dispatch(public, name, python_style, relevant, args, kwargs)
        return link.below(*args, **kwargs)

    wrapper._torch_function_wrapped = True
    # the innermost function, so a one-level unwrap still finds it
    wrapper.__wrapped__ = getattr(func, "__wrapped__", func)
    return _layers.attach(wrapper, link)


def _wrap_property(name, prop):
    getter = _wrap(prop.fget, name=f"torch.Tensor.{name}.__get__")
    getter.__name__ = "__get__"  # what torch hands over: the attribute's __get__
    return property(getter, prop.fset, prop.fdel, prop.__doc__)


_REFLECTED = {
    "__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__",
    "__rtruediv__": "__truediv__", "__rfloordiv__": "__floordiv__", "__rmod__": "__mod__",
    "__rpow__": "__pow__", "__rmatmul__": "__matmul__", "__rand__": "__and__",
    "__ror__": "__or__", "__rxor__": "__xor__", "__rlshift__": "__lshift__",
    "__rrshift__": "__rshift__",
}


def _reflected(wrapped, forward):
    """A subclass's reflected operator: with a plain tensor on the left, Python calls it
    before the tensor's own operator (the subclass "overrides" it); torch's subclasses do
    not, so the call is handed back to the forward operator, left operand first."""

    @functools.wraps(wrapped)
    def reflected(self, other):
        from ._tensor import Tensor

        if isinstance(other, Tensor):
            return getattr(type(self), forward)(other, self)
        return wrapped(self, other)

    reflected._torch_function_wrapped = True
    return reflected


def install(subclass):
    """Put the dispatch in place for a program's Tensor subclass: its own copies of the
    Tensor methods and operators check their arguments (plain tensors keep the unwrapped
    methods), and, once per process, so do the public functions."""
    from ._tensor import Tensor

    for name in _tensor_method_names():
        if name in vars(subclass):
            continue  # the subclass's own method
        value = getattr(Tensor, name)
        if isinstance(value, property):
            setattr(subclass, name, _wrap_property(name, value))
            continue
        reported = _OPERATOR_AS.get(name, name)
        binary = name in _OPERATORS and name not in _UNARY
        # reported as Tensor's own method (``func is torch.Tensor.add`` holds)
        wrapped = _wrap(value, reported, None if binary else f"torch.Tensor.{reported}")
        if name in _REFLECTED:
            wrapped = _reflected(wrapped, _REFLECTED[name])
        setattr(subclass, name, wrapped)
    _subclass_since_modes[0] = True
    _for_placeholders[0] = False
    _install_functions()


_METHOD_NAMES = []


def _tensor_method_names():
    if not _METHOD_NAMES:
        from ._tensor import Tensor

        names = set()
        for klass in Tensor.__mro__:
            if klass is object:
                continue
            for name, value in vars(klass).items():
                if name in _KEEP_METHODS or (name.startswith("_") and name not in _OPERATORS):
                    continue
                if isinstance(value, types.FunctionType) or (
                        isinstance(value, property) and name in _PROPERTIES and value.fget):
                    names.add(name)
        _METHOD_NAMES.extend(sorted(names))
    return _METHOD_NAMES


def _overloaded(relevant):
    from .overrides import _overloaded_args

    return _overloaded_args(relevant)


# whether the public functions were wrapped before the first mode entered, and whether a
# Tensor subclass was defined since (either keeps the wrappers after the last mode exits)
_functions_before_modes = [False]
_subclass_since_modes = [False]
# (name, Tensor's own attribute or None if inherited, dispatching wrapper, whether the wrapper
# is a layer of its own: see _layers.py)
_mode_swap = []


def install_for_modes():
    """Dispatching wrappers on the plain Tensor's methods and on the public functions while a
    TorchFunctionMode is active (see ``_function_mode.py``)."""
    from ._tensor import Tensor

    if not _mode_swap:
        for name in _tensor_method_names():
            value = getattr(Tensor, name)
            own = vars(Tensor).get(name)
            if isinstance(value, property):
                _mode_swap.append((name, own, _wrap_property(name, value), False))
                continue
            reported = _OPERATOR_AS.get(name, name)
            binary = name in _OPERATORS and name not in _UNARY
            wrapped = _wrap(value, reported, None if binary else f"torch.Tensor.{reported}")
            _mode_swap.append((name, own, wrapped, wrapped is not value))
    for name, _own, wrapped, layered in _mode_swap:
        if layered:
            if _layers.contains(Tensor, name, wrapped):
                continue
            # the wrappers are made once; what they wrap is what is there now (autocast's
            # wrapper, say, if a mode is entered inside an autocast region)
            wrapped.__layer_link__.below = getattr(Tensor, name)
        setattr(Tensor, name, wrapped)
    _functions_before_modes[0], _subclass_since_modes[0] = _installed[0], False
    _for_placeholders[0] = False
    _install_functions()


def uninstall_for_modes():
    from ._tensor import Tensor

    for name, own, wrapped, layered in _mode_swap:
        if layered:
            _layers.take_out(Tensor, name, wrapped, functools.partial(_layers.put_back, Tensor, name))
        elif own is None:
            delattr(Tensor, name)  # inherited: the base class's attribute shows again
        else:
            setattr(Tensor, name, own)
    if not (_functions_before_modes[0] or _subclass_since_modes[0]):
        uninstall()


def _install_functions():
    if _installed[0]:
        return
    _installed[0] = True
    import importlib

    wrapped = {}  # one wrapper per function, so aliases stay aliases (F.x is torch.x)
    for module_name in _MODULES:
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        for name, value in list(vars(module).items()):
            if name.startswith("_") or name in _KEEP_FUNCTIONS:
                continue
            if isinstance(value, types.FunctionType) and \
                    getattr(value, "__module__", "").startswith("numtorch"):
                if id(value) not in wrapped:
                    wrapped[id(value)] = (value, _wrap(
                        value, name=_TORCH_NAMES[module_name].format(name),
                        python_style=module_name.endswith("functional")))
                wrapper = wrapped[id(value)][1]
                if wrapper is value:
                    continue  # dispatching already
                setattr(module, name, wrapper)
                _ORIGINALS.append((module, name, value))
                _PLACED.append((module, name, wrapper))


_ORIGINALS = []  # (module, name, function) replaced by install
_PLACED = []  # (module, name, wrapper) put in place by install: what uninstall takes out


def uninstall():
    """Take the public functions' wrappers out (test isolation: one test's subclass must not
    change the functions the next test sees; a lazy module's placeholder ending at garbage
    collection, even inside an autocast region). Subclasses keep their own dispatching
    methods."""
    while _PLACED:
        module, name, wrapper = _PLACED.pop()
        _layers.take_out(module, name, wrapper, functools.partial(_layers.put_back, module, name))
    _ORIGINALS.clear()
    _installed[0] = _for_placeholders[0] = False


# Lazy modules' placeholders (nn/parameter.py) refuse every public function, as torch's do
# through __torch_function__. The dispatching wrappers cost ~3 us a call, so they are put in
# place only while a placeholder is waiting for its shape (lazy modules materialise at their
# first forward) and taken out again when the last one is materialised, unless a Tensor
# subclass or a TorchFunctionMode needs them too.
_placeholders = {}  # id -> weak reference (a WeakSet would compare tensors with ==)
_for_placeholders = [False]


def hold_placeholder(placeholder):
    key = id(placeholder)
    _placeholders[key] = weakref.ref(placeholder, lambda _ref: _forget(key))
    if not _installed[0]:
        _install_functions()
        _for_placeholders[0] = True


def release_placeholder(placeholder):
    _forget(id(placeholder))


def _forget(key):
    _placeholders.pop(key, None)
    if _for_placeholders[0] and not _placeholders and not _modes.any_active():
        uninstall()
