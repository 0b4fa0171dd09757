"""``autograd.Variable``: the 0.x wrapper, kept as a thin shim over Tensor.

Since torch 0.4 a Variable *is* a Tensor: ``Variable(t)`` returns a tensor sharing ``t``'s
memory, and ``isinstance(t, Variable)`` holds for every tensor. ``volatile=True`` has no effect
(as in torch since 0.4): a warning, and graphs are recorded as for any tensor.
"""

import warnings

from .. import _tensor
from .._class_repr import TorchNamed
from .._tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(TorchNamed):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class Variable(Tensor, metaclass=_VariableMeta):
    """Wrap a tensor (0.x API). Returns a Tensor; see the module docstring.

    Args:
        data (Tensor): the values (shared, not copied).
        requires_grad (bool): whether to record operations on it. Default: False.
        volatile (bool): removed 0.x inference flag: warns, has no effect.
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            data = _tensor._make(__import__("numpy").empty((0,), dtype="float32"))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = _tensor._make(data._array)
        t._vc = data._vc
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if requires_grad:
            t._set_requires_grad(True)
        return t

    class _execution_engine:  # noqa: N801  (torch's name: Variable._execution_engine)
        """The backward engine's hooks torch exposes here (``queue_callback``)."""

        @staticmethod
        def queue_callback(callback):
            """Run ``callback()`` once the running backward call has finished."""
            from . import engine

            engine.queue_callback(callback)

    def reinforce(self, reward):
        """Removed in torch 0.3 (stochastic functions); use a score-function estimator."""
        raise RuntimeError("reinforce() was removed in PyTorch 0.3 together with stochastic "
                           "functions; compute the REINFORCE loss explicitly, e.g. "
                           "-(log_prob * reward).sum(), and call backward() on it")
