"""``repr`` of quantized tensors, laid out as torch prints them.

The elements are the dequantized values, formatted like a float32 tensor's; the suffixes
always give the size and dtype, then the scheme and its parameters (``scale=``/``zero_point=``,
per-channel ones as tensors, and ``axis=``).
"""

from . import _tensor_str as _ts
from ._quantized_array import dequantize_array

__all__ = ["format_quantized"]


def format_quantized(t, tensor_contents=None):
    """The text ``repr(t)`` shows for quantized tensor ``t``."""
    a = t._array
    prefix = "tensor("
    indent = len(prefix)
    suffixes = [f"size={tuple(a.shape)}", f"dtype={t.dtype!r}",
                f"quantization_scheme={t.qscheme()!r}"]
    if a.quantizer.per_channel:
        suffixes += [f"scale={t.q_per_channel_scales()!r}",
                     f"zero_point={t.q_per_channel_zero_points()!r}",
                     f"axis={t.q_per_channel_axis()}"]
    else:
        suffixes += [f"scale={t.q_scale()!r}", f"zero_point={t.q_zero_point()!r}"]
    if tensor_contents is not None:
        body = tensor_contents
    elif a.size == 0:
        body = "[]"
    else:
        body = _ts._tensor_body(dequantize_array(a), indent)
    return _ts._add_suffixes(prefix + body, suffixes, indent)
