"""``torch._dynamo.exc``: the errors ``torch.compile`` raises before it compiles anything."""

__all__ = ["TorchDynamoException", "InvalidBackend", "UserError"]


class TorchDynamoException(RuntimeError):
    """Base of the compiler's errors (a RuntimeError, as in torch)."""


class InvalidBackend(TorchDynamoException):
    """``torch.compile(backend=name)`` with a name no backend is registered under."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         f"available backends.")


class UserError(TorchDynamoException):
    """A program that cannot be compiled or exported as asked (``torch.export`` raises it for
    violated dynamic-shape constraints)."""
