"""``torch._C``: the few names of torch's compiled core that Python code reaches for directly.

Tensor subclasses written for torch use ``torch._C._disabled_torch_function_impl`` and the
``DisableTorchFunction*`` context managers; ``_LinAlgError`` is where torch defines
``linalg.LinAlgError``.
"""

from ._torch_function import (  # noqa: F401
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl,
)
from .linalg import LinAlgError as _LinAlgError  # noqa: F401


def _is_torch_function_enabled():
    """False inside ``DisableTorchFunctionSubclass`` (and ``DisableTorchFunction``)."""
    from ._torch_function import _all_disabled, _sub_disabled

    return not (_sub_disabled() or _all_disabled())
