"""``torch.nn.attention``: choosing scaled-dot-product-attention backends (``SDPBackend``,
``sdpa_kernel``) and attention biases (``torch.nn.attention.bias``)."""

import contextlib
import enum

from . import _flags

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# torch warns when a fused kernel cannot be used; numtorch has no fused kernels
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The implementations of :func:`numtorch.nn.functional.scaled_dot_product_attention`
    that :func:`sdpa_kernel` can allow. numtorch runs all of them with its one composition;
    they matter for which calls are allowed (see :func:`sdpa_kernel`)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self):
        return f"SDPBackend.{self.name}"


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """A context manager allowing only ``backends`` for scaled dot product attention inside
    it (the previous choice comes back on exit).

    Args:
        backends (SDPBackend or list of SDPBackend): the backends to allow.
        set_priority (bool): also try them in the given order.

    On the CPU a call needs MATH or FLASH_ATTENTION allowed (torch's CPU kernels); otherwise
    it raises torch's "No viable backend" RuntimeError.

    Example:
        >>> from torch.nn.attention import SDPBackend, sdpa_kernel
        >>> q = torch.randn(1, 2, 3, 4)
        >>> with sdpa_kernel([SDPBackend.MATH]):
        ...     out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    """
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, list):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    # like torch, entries that are not SDPBackend members enable nothing
    backends = [b for b in backends if isinstance(b, SDPBackend)]
    enabled, priority = dict(_flags.ENABLED), list(_flags.PRIORITY)
    chosen = {int(b) for b in backends}
    for value in _flags.ENABLED:
        _flags.ENABLED[value] = value in chosen
    if set_priority:
        order = [int(b) for b in backends if int(b) in _flags.ENABLED]
        _flags.PRIORITY[:] = order + [v for v in _flags.PRIORITY if v not in order]
    try:
        yield {}
    finally:
        _flags.ENABLED.update(enabled)
        _flags.PRIORITY[:] = priority


from . import bias  # noqa: F401  (torch.nn.attention.bias after `import torch`)
