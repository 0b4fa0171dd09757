"""Silence NumPy's floating-point warnings inside numtorch, at no cost per op.

torch computes ``log(0) = -inf``, ``0 / 0 = nan``, ``float16(1e5) = inf`` and casts NaN to
integers without a word; NumPy warns ("divide by zero encountered in log"). Wrapping every op in
``np.errstate`` would cost a context switch per call. Instead NumPy is told once to *call* a
function on floating-point errors where it would warn. That function runs only when an error
happens: it looks at the Python frame that called NumPy (skipping NumPy's and SciPy's own
frames) and stays silent when that frame is numtorch's, and warns as NumPy would when it is the
user's own code, so a program's own NumPy calls still warn.

NumPy keeps its error state per context (``contextvars``): the state set at import holds for
the importing thread and for contexts copied from it (asyncio tasks), not for threads started
later, which begin with NumPy's defaults. Each such thread installs the callback when it first
reads the grad-mode state (``numtorch._grad_state``, a thread-local whose initialiser runs once
per thread, before its first op computes).
"""

import sys
import warnings

import numpy as np

_LIBRARIES = ("numpy", "scipy")  # their frames are skipped: the caller behind them decides
_OURS = ("numtorch", "numtorchvision")


def _on_error(kind, flag):
    """NumPy's floating-point error callback (``np.seterrcall``)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if name.split(".", 1)[0] not in _LIBRARIES:
            break
        frame = frame.f_back
    if frame is not None and name.split(".", 1)[0] in _OURS:
        return
    # the user's own NumPy call: warn as NumPy would (NumPy does not pass the ufunc's name)
    warnings.warn(f"{kind} encountered", RuntimeWarning, stacklevel=2)


def install():
    """Route NumPy's floating-point warnings through :func:`_on_error` in this context.

    Only categories set to ``"warn"`` are changed: a user's explicit ``ignore``/``raise``
    stays, and a ``np.seterr``/``np.errstate`` of theirs later takes precedence.
    """
    current = np.geterr()
    np.seterrcall(_on_error)
    np.seterr(**{k: "call" for k, v in current.items() if v == "warn"})
