"""The errors export raises, under torch's class names (RuntimeErrors, as in torch)."""

from .._dynamo.exc import UserError

__all__ = ["ConstraintViolationError", "GuardOnDataDependentSymNode", "UserError"]


class GuardOnDataDependentSymNode(RuntimeError):
    """The program branches on a tensor's data (torch's class of the same name)."""


class ConstraintViolationError(RuntimeError):
    """A static size given in ``dynamic_shapes`` differs from the example input's (torch's
    class of the same name)."""
