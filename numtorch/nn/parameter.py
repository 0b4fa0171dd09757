"""``nn.Parameter`` (a leaf tensor a Module registers) and ``nn.Buffer``."""

import numpy as np

from .. import _tensor
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "is_lazy"]


def _wrap_as(cls, data):
    """A ``cls`` instance sharing ``data``'s memory (a fresh leaf with no history)."""
    arr = data._array if isinstance(data, Tensor) else np.asarray(data)
    t = _tensor._new(cls)
    t._array, t._requires_grad, t._grad, t._grad_fn, t._output_nr = arr, False, None, None, 0
    t._vc, t._base, t._accum, t._extra = [0], None, None, None
    return t


class Parameter(Tensor):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    Args:
        data (Tensor): the values (shared, not copied). Default: an empty float tensor.
        requires_grad (bool): whether the parameter requires gradient. Default: True.

    Example:
        >>> p = torch.nn.Parameter(torch.zeros(2))
        >>> p.requires_grad
        True
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        p = _wrap_as(cls, data)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach().numpy(force=True), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(_tensor._make(self._array.copy()), self.requires_grad)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new


def _rebuild_parameter(array, requires_grad):
    return Parameter(_tensor._make(np.array(array)), requires_grad)


class Buffer(Tensor):
    """Marks a tensor to be registered as a module buffer when assigned as an attribute.

    Args:
        data (Tensor): the values (shared).
        persistent (bool): whether the buffer is part of ``state_dict``. Default: True.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        b = _wrap_as(Tensor, data)
        b.__class__ = Tensor
        b._extra = {"buffer_persistent": persistent}
        return b


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (lazy modules); it holds no data."""

    def materialize(self, shape, device=None, dtype=None):
        from .._creation import empty

        data = empty(shape, device=device, dtype=dtype)
        self._array = data._array
        self.__class__ = Parameter


def is_lazy(param):
    """True for parameters not yet materialized."""
    return isinstance(param, UninitializedParameter)
