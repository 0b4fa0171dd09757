"""The rest of ``torch.jit``'s public names as they behave outside TorchScript (numtorch runs
everything eagerly): type checks against typing containers, decorators that hand back what
they decorate, and the fuser settings, which only record what was asked."""

import builtins
import collections
import contextlib
import inspect
import types
import typing
import warnings


def _deprecated(name, instead="switch to `torch.compile` or `torch.export`"):
    # torch 2.13 deprecates TorchScript with these words (users filter on them). The warning
    # is attributed to numtorch.jit, as torch's to torch.jit: Python's default filters then
    # hide it from a program's output, as they hide torch's
    msg = "Please " + instead
    warnings.warn(f"`torch.jit.{name}` is deprecated. {msg}.", DeprecationWarning, stacklevel=2)


Attribute = collections.namedtuple("Attribute", ["value", "type"])


class Error(Exception):
    """An error raised by TorchScript code (never by numtorch, which runs none)."""


Error.__module__ = "numtorch.jit"


class TracerWarning(Warning):
    """Warnings about tracing (numtorch does not trace, so it issues none)."""


class ScriptWarning(Warning):
    """Warnings from TorchScript compilation (numtorch compiles nothing)."""


# the container spellings that need element types, with the example torch's message gives
_BARE = {list: ("list", "list[int]"), tuple: ("tuple", "tuple[int]"), typing.List: ("List", "List[int]"),
         typing.Tuple: ("Tuple", "Tuple[int]"), typing.Optional: ("Optional", "Optional[int]"),
         dict: ("dict", "dict[int, int]"), typing.Dict: ("Dict", "Dict[int, int]")}


def _require_args(target):
    try:
        spelled = _BARE.get(target)
    except TypeError:  # an unhashable target: left to builtins.isinstance
        return
    if spelled is None:
        return
    name, example = spelled
    if name.lower() == "dict":
        raise RuntimeError(f"Attempted to use {name} without contained types. Please add "
                           f"contained type, e.g. {example}")
    raise RuntimeError(f"Attempted to use {name} without a contained type. Please add a "
                       f"contained type, e.g. {example}")


def isinstance(obj, target_type):
    """Whether ``obj`` is of ``target_type``, element types of ``List[...]``, ``Dict[...]``,
    ``Tuple[...]``, ``Optional[...]`` and unions included (each element is checked)."""
    _require_args(target_type)
    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    if origin in (list, dict, tuple) and type(obj) in (list, dict, tuple) and not obj:
        warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance "
                      "in eager mode. For example, List[int] would become list and therefore "
                      "falsely return True for List[float] or List[str].", stacklevel=2)
    if origin is list:
        return builtins.isinstance(obj, list) and all(isinstance(o, args[0]) for o in obj)
    if origin is dict:
        return builtins.isinstance(obj, dict) and all(
            isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        return builtins.isinstance(obj, tuple) and len(obj) == len(args) and all(
            isinstance(o, t) for o, t in zip(obj, args))
    if origin is typing.Union or origin is types.UnionType:
        return any(isinstance(obj, t) for t in args)
    return builtins.isinstance(obj, target_type)


def interface(obj):
    """Mark a class as a TorchScript interface: the class itself here."""
    _deprecated("interface", "use `torch.compile` instead")
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    return obj


def script_if_tracing(fn):
    """``fn`` itself: it would only be scripted while tracing, which numtorch never does."""
    return fn


def script_method(fn):
    """A method of a ``ScriptModule`` subclass: run eagerly, as written."""
    _deprecated("script_method")
    return fn


def _overload(func):
    """Declare one signature of an overloaded function; the last plain definition runs."""
    return func


def _overload_method(func):
    """Declare one signature of an overloaded method; the last plain definition runs."""
    return func


def _unwrap_optional(x):
    assert x is not None, "Unwrapping null optional"
    return x


def export_opnames(m):
    """The operator names a scripted module uses: a module here is never scripted."""
    raise AttributeError(f"'{type(m).__name__}' object has no attribute '_c'")


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """Turn TorchScript's graph optimisations on or off in a block: nothing to change here."""
    yield


_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    """Choose TorchScript's kernel fuser in a block (the name is checked as torch checks it)."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")
    yield


_STRATEGY = [[("STATIC", 2), ("DYNAMIC", 10)]]
_ONEDNN = [False]


def set_fusion_strategy(strategy):
    """Record the fuser's specialisation strategy; returns the previous one."""
    _deprecated("set_fusion_strategy", "use `torch.compile` instead")
    for kind, _ in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise ValueError(f"FusionBehavior only supported 'STATIC' or 'DYNAMIC', got: {kind}")
    old, _STRATEGY[0] = _STRATEGY[0], list(strategy)
    return old


def enable_onednn_fusion(enabled):
    _ONEDNN[0] = bool(enabled)


def onednn_fusion_enabled():
    return _ONEDNN[0]


class strict_fusion:
    """A block whose ops TorchScript must fuse; it only works in script mode, so outside it
    warns (as torch does) and does nothing."""

    def __init__(self):
        warnings.warn("Only works in script mode", stacklevel=2)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None
