"""``TVTensor``: the base of the tensor kinds the v2 transforms recognise (Image, Video, Mask,
BoundingBoxes).

As in torchvision, an operation on a TVTensor gives a plain tensor (the kind says what the
data *is*, and an arbitrary op's result may not be that any more), except ``clone``, ``to``,
``detach``, ``requires_grad_`` and ``pin_memory``, which keep the kind and its metadata; under
``set_return_type("TVTensor")`` every result keeps the kind of its first TVTensor argument.

numtorch installs ``__torch_function__`` dispatch on TVTensor's methods only, so ``img + 1``
or ``img.add_(1)`` reach :meth:`TVTensor.__torch_function__`; the public functions
(``numtorch.add(img, 1)``) are put behind the dispatch only once ``set_return_type("TVTensor")``
is first used, because those wrappers cost every program a check per call, and without them
the functions already return plain tensors, which is the default behaviour.
"""

import numtorch as torch
from numtorch import _torch_function
from numtorch._torch_function import DisableTorchFunctionSubclass

from ._return_type import _keeps_kind

# the methods whose result keeps the kind even under the default return type
_FORCE_SUBCLASS = frozenset({"clone", "to", "detach", "requires_grad_", "pin_memory"})


def _retype(tensor, cls):
    """``tensor`` seen as ``cls`` (or as a plain tensor), sharing its data and version counter.

    A tensor in a graph goes through ``as_subclass``, a view that keeps the graph, as in torch.
    Others get a detached alias: no graph is lost, and numtorch makes it ~20x faster than a
    view (the transforms unwrap and rewrap every input once per kernel). The one difference
    is that the alias has no ``_base``.
    """
    if tensor.requires_grad:
        return tensor.as_subclass(cls)
    alias = torch.Tensor.detach(tensor)  # the plain method: no dispatch on a TVTensor
    alias.__class__ = cls
    return alias


def _plain(tensor):
    """A TVTensor's data as a plain tensor (see :func:`_retype`)."""
    return _retype(tensor, torch.Tensor)


def _func_name(func):
    return getattr(func, "__name__", None)


class TVTensor(torch.Tensor):
    """Base class of the tensor kinds (subclass it for a kind of your own)."""

    @staticmethod
    def _to_tensor(data, dtype=None, device=None, requires_grad=None):
        """``data`` as a tensor; ``requires_grad`` None: as ``data`` if it is a tensor."""
        tensor = torch.as_tensor(data, dtype=dtype, device=device)
        if requires_grad is None:
            requires_grad = isinstance(data, torch.Tensor) and data.requires_grad
        return tensor.requires_grad_(requires_grad)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        """An operation's result as this kind (lists and tuples item by item)."""
        if isinstance(output, (tuple, list)):
            return type(output)(cls._wrap_output(part, args, kwargs) for part in output)
        if isinstance(output, torch.Tensor) and not isinstance(output, cls):
            return _retype(output, cls)
        return output

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        """``tensor`` as a ``cls`` with ``like``'s metadata (overridden by ``kwargs``)."""
        return _retype(tensor, cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if any(not issubclass(cls, kind) for kind in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **(kwargs or {}))
        if _keeps_kind() or _keeps_kind_anyway(cls, func, args):
            return cls._wrap_output(result, args, kwargs)
        # in-place methods hand back their TVTensor input: unwrap it
        return _plain(result) if isinstance(result, cls) else result

    def _make_repr(self, **kwargs):
        extra = ", ".join(f"{key}={value}" for key, value in kwargs.items())
        with DisableTorchFunctionSubclass():
            text = torch.Tensor.__repr__(self)
        return f"{text[:-1]}, {extra})"

    def __deepcopy__(self, memo):
        # detached first: a deep copy is not part of the graph (clone alone would be)
        return self.detach().clone().requires_grad_(self.requires_grad)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if vars(cls).get("__torch_function__") is _torch_function._disabled_torch_function_impl:
            # numtorch gives its own packages' subclasses the disabled protocol; the kinds
            # defined here take part through TVTensor's
            del cls.__torch_function__


def _keeps_kind_anyway(cls, func, args):
    """clone/to/detach... called as methods of a TVTensor (``plain.to(image)`` stays plain)."""
    name = _func_name(func)
    return (name in _FORCE_SUBCLASS and getattr(torch.Tensor, name, None) is func
            and bool(args) and isinstance(args[0], cls))


def _install_method_dispatch():
    """TVTensor's (and so its subclasses') methods and operators behind the dispatch check,
    without replacing numtorch's public functions (see the module docstring)."""
    for name in _torch_function._tensor_method_names():
        if name in vars(TVTensor):
            continue
        value = getattr(torch.Tensor, name)
        if isinstance(value, property):
            setattr(TVTensor, name, _torch_function._wrap_property(name, value))
            continue
        reported = _torch_function._OPERATOR_AS.get(name, name)
        binary = name in _torch_function._OPERATORS and name not in _torch_function._UNARY
        wrapped = _torch_function._wrap(value, reported,
                                        None if binary else f"torch.Tensor.{reported}")
        if name in _torch_function._REFLECTED:
            wrapped = _torch_function._reflected(wrapped, _torch_function._REFLECTED[name])
        setattr(TVTensor, name, wrapped)


_install_method_dispatch()
