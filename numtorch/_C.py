"""``torch._C``: the few names of torch's compiled core that Python code reaches for directly.

Tensor subclasses written for torch use ``torch._C._disabled_torch_function_impl`` and the
``DisableTorchFunction*`` context managers; ``_LinAlgError`` is where torch defines
``linalg.LinAlgError``.
"""

from ._torch_function import (  # noqa: F401
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl,
)
from ._function_mode import (  # noqa: F401
    _is_torch_function_mode_enabled, _len_torch_function_stack,
    _pop_mode as _pop_torch_function_stack, _push_mode as _push_on_torch_function_stack,
)
from .linalg import LinAlgError as _LinAlgError  # noqa: F401


def _is_torch_function_enabled():
    """False inside ``DisableTorchFunctionSubclass`` (and ``DisableTorchFunction``)."""
    from ._torch_function import _all_disabled, _sub_disabled

    return not (_sub_disabled() or _all_disabled())


def _get_function_stack_at(i):
    """The ``i``-th active TorchFunctionMode, outermost first."""
    from ._function_mode import stack

    return stack()[i]


def _get_accelerator():
    """The device type programs should use: ``device('cuda')`` when CUDA is usable, else
    ``device('cpu')`` (torch's CPU build answers cpu, unlike ``accelerator.current_accelerator``,
    which answers None)."""
    from . import cuda
    from ._device import device

    return device("cuda") if cuda.is_available() else device("cpu")
