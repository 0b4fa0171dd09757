"""``utils.hooks``: the handle type every ``register_*hook`` returns."""

from ..nn.modules._hooks import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Mark the tensor hook ``f`` as one that saving may drop without a warning."""
    f.__torch_unserializable__ = True
    return f
