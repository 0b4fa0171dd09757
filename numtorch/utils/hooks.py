"""``utils.hooks``: the handle type every ``register_*hook`` returns."""

from ..nn.modules._hooks import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle"]
