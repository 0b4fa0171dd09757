"""Parametrizations: a module's tensor computed from other tensors on every access.

``register_parametrization(m, "weight", P)`` replaces ``m.weight`` by a property that returns
``P(original)``, where ``original`` is the old tensor (or, when ``P.right_inverse`` returns
several tensors, ``original0``, ``original1``, ...). The originals live in
``m.parametrizations.weight`` (a :class:`ParametrizationList`), which gives torch's state-dict
keys ``parametrizations.weight.original``. The module's class is swapped for a subclass named
``Parametrized<Class>`` that carries the property, as in torch.
"""

import collections
import copy
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

_cache_depth = [0]
_cache = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once per module and reused
    (useful when a weight is read several times, as in a recurrent layer)."""
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if not _cache_depth[0]:
            _cache.clear()


def _register_tensor(module, name, value):
    """Register ``value`` as a parameter when it is one, else as a buffer."""
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_values(dst, src):
    """Give tensor ``dst`` the values (and shape) of ``src``, keeping the object ``dst``, so an
    optimizer holding it keeps working."""
    with no_grad():
        dst.set_(src.detach().clone() if src is dst else src.detach())


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s).

    ``original`` holds the tensor when the first parametrization's ``right_inverse`` returns
    one tensor (``is_tensor``); otherwise ``original0 ... original{ntensors-1}``.

    Args:
        modules (sequence of Module): the parametrizations.
        original (Tensor): the tensor being parametrized.
        unsafe (bool): skip the shape and dtype consistency checks.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            _set_values(original, new)  # the same Parameter object, now holding new's values
            _register_tensor(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(t).__name__}.")
                if isinstance(original, Parameter):
                    t = Parameter(t.detach().clone(), original.requires_grad)
                _register_tensor(self, f"original{i}", t)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of "
                                 f"the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {dtype}\nparametrized dtype: {z.dtype}")
            if z.shape != shape:
                raise ValueError(f"Registering a parametrization may not change the shape of "
                                 f"the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {shape!r}\n"
                                 f"parametrized shape: {z.shape!r}")

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       f"implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_values(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence) or \
                        len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a value of type "
                                     f"{type(value).__name__}")
                for i, t in enumerate(value):
                    _set_values(getattr(self, f"original{i}"), t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _no_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _deepcopy(self, memo):
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    new = self.__new__(type(self))
    memo[id(self)] = new
    new.__dict__ = copy.deepcopy(self.__dict__, memo)
    return new


def _inject_new_class(module):
    """Swap ``module``'s class for a fresh ``Parametrized<Class>`` subclass (per module, so
    properties added to it touch no other module)."""
    cls = module.__class__
    new = type(f"Parametrized{cls.__name__}", (cls,),
               {"__getstate__": _no_pickle, "__deepcopy__": _deepcopy,
                "__module__": "numtorch.nn.utils.parametrize"})
    module.__class__ = new


def _inject_property(module, name):
    def get(self):
        plist = self.parametrizations[name]
        if _cache_depth[0]:
            key = (id(self), name)
            t = _cache.get(key)
            if t is None:
                t = _cache[key] = plist()
            return t
        return plist()

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(module.__class__, name, property(get, set_))


def is_parametrized(module, tensor_name=None):
    """True if ``module`` has a parametrization (on ``tensor_name``, when given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def type_before_parametrizations(module):
    """The class ``module`` had before its first parametrization."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the tensor
    now stored there (see the module docstring).

    Args:
        module (Module): the module holding the tensor.
        tensor_name (str): a parameter or buffer of ``module`` (or one parametrized already,
            to chain another parametrization after the existing ones).
        parametrization (Module): maps the original tensor(s) to the tensor; it may define
            ``right_inverse`` (used at registration and on assignment).
        unsafe (bool): allow the parametrization to change the shape or dtype.

    Returns:
        Module: ``module``.

    Example:
        >>> class Symmetric(torch.nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).mT
        >>> m = torch.nn.Linear(3, 3)
        >>> _ = torch.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all())
        True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of "
                                 f"the tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError(f"Registering a parametrization may not change the shape of "
                                 f"the tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {y.shape!r}\n"
                                 f"parametrization(module.{tensor_name}).shape: {x.shape!r}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_new_class(module)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = plist
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``module.<tensor_name>``.

    Args:
        module (Module): the parametrized module.
        tensor_name (str): the parametrized tensor.
        leave_parametrized (bool): keep the current parametrized value (True) or go back to
            the original tensor (False; only when there is one original).

    Returns:
        Module: ``module``.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            if t.dtype != original.dtype:
                raise ValueError(f"The parametrization changes the dtype of the tensor from "
                                 f"{original.dtype} to {t.dtype}; it cannot be left "
                                 f"parametrized in place")
            _set_values(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = Parameter(t.detach(), first.requires_grad) if isinstance(first, Parameter) \
            else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of ``from_module`` onto
    ``to_module``, for ``tensor_name`` or for all of them.

    Returns:
        Module: ``to_module``.
    """
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if isinstance(tensor_name, str) else \
        list(from_module.parametrizations.keys())
    for name in names:
        src = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            to_module.register_parameter(name, Parameter(getattr(from_module, name).detach()))
        for p in src:
            register_parametrization(to_module, name, p, unsafe=src.unsafe)
        dst = to_module.parametrizations[name]
        with no_grad():
            if src.is_tensor:
                _set_values(dst.original, src.original)
            else:
                for i in range(src.ntensors):
                    _set_values(getattr(dst, f"original{i}"), getattr(src, f"original{i}"))
    return to_module
