"""Anomaly detection: remember where each node was created and fail on NaN gradients.

With it on, every recorded op keeps the stack of its forward call, and after each backward
step the engine checks the gradients it produced; a NaN raises a RuntimeError naming the op,
after a warning that shows the forward traceback.
"""

import os
import traceback
import warnings

from .._class_repr import object_repr as _object_repr

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

_flags = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    return _flags["enabled"]


def is_anomaly_check_nan_enabled():
    return _flags["check_nan"]


class detect_anomaly:
    """Context manager / decorator turning anomaly detection on (slow: for debugging).

    Example:
        >>> with torch.autograd.detect_anomaly():
        ...     x = torch.tensor([0.0], requires_grad=True)
        ...     y = x.sqrt() * 0
        ...     y.backward()  # doctest: +SKIP
    """

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = dict(_flags)
        _flags.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc):
        _flags.update(self._prev)
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off (function, context manager or decorator)."""

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, mode, check_nan=True):
        self._prev = dict(_flags)
        _flags.update(enabled=bool(mode), check_nan=check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _flags.update(self._prev)
        return False


_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LAUNCHER = os.path.join(_PKG, "run.py")
_SHOWN = os.path.join(_PKG, "nn") + os.sep  # Python in torch too: its frames show there


def forward_stack():
    """The stack of the current forward call (stored on nodes in anomaly mode): the user's
    frames, as torch shows them. Frames of ``python -m numtorch.run`` before the program and
    numtorch's own frames after the user's call (torch's ops are native code, without
    Python frames) are left out."""
    frames = traceback.extract_stack()[:-3]
    start = 0
    for i, f in enumerate(frames):
        if f.filename == _LAUNCHER:
            start = i + 1
    frames = frames[start:]
    end = len(frames)
    while end > 1 and frames[end - 1].filename.startswith(_PKG) \
            and not frames[end - 1].filename.startswith(_SHOWN):
        end -= 1
    return "".join(traceback.format_list(frames[:end]))


def warn_failed(node):
    """torch's warning, in anomaly mode, for a node whose backward raised: where in the
    forward pass the node was recorded."""
    if not _flags["enabled"]:
        return
    _warn_trace(node, 5)


def _warn_trace(node, stacklevel):
    trace = getattr(node, "_anomaly_trace", None)
    if trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                      f"caused the error:\n{trace}", UserWarning, stacklevel=stacklevel)
    else:  # recorded outside anomaly mode
        warnings.warn(f"Error detected in {node.name()}. No forward pass information "
                      "available. Enable detect anomaly during forward pass for more "
                      "information.", UserWarning, stacklevel=stacklevel)


def check_gradients(node, grads):
    """Raise torch's error if ``node`` produced NaN gradients (anomaly mode only)."""
    if not _flags["check_nan"]:
        return
    from .. import backend

    for i, g in enumerate(grads):
        if g is None:
            continue
        a = g._array
        if a.dtype.kind in "fcV" and bool(backend.xp_of(a).isnan(a).any()):
            _warn_trace(node, 4)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
