"""``torch.cuda.amp.autocast`` / ``custom_fwd`` / ``custom_bwd``: deprecated spellings of the
``torch.amp`` ones with ``device_type="cuda"``; each call warns as torch does."""

import warnings

from ... import _dtype
from ...amp import autocast_mode as _amp

__all__ = ["autocast", "custom_fwd", "custom_bwd"]


def _warn(old, new):
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use "
                  f"`torch.amp.{new}` instead.", FutureWarning, stacklevel=3)


class autocast(_amp.autocast):  # noqa: N801 - torch's name
    """``torch.amp.autocast("cuda", ...)`` (float16 by default); deprecated."""

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        _warn("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.amp.custom_fwd(device_type="cuda")``; deprecated."""
    _warn("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``torch.amp.custom_bwd(device_type="cuda")``; deprecated."""
    _warn("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")
