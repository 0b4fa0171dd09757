"""The quantization names of the top-level ``torch`` namespace (dtypes, schemes, functions).
"""

from ._dtype import qint8, qint32, quint2x4, quint4x2, quint8  # noqa: F401
from ._quantized_functions import (  # noqa: F401
    _choose_qparams_per_tensor, _empty_affine_quantized, _empty_per_channel_affine_quantized,
    _make_per_channel_quantized_tensor, _make_per_tensor_quantized_tensor, dequantize,
    quantize_per_channel, quantize_per_tensor, quantize_per_tensor_dynamic,
)
from .ops.quantized_fake import (  # noqa: F401
    _fake_quantize_learnable_per_channel_affine, _fake_quantize_learnable_per_tensor_affine,
    _fake_quantize_per_tensor_affine_cachemask_tensor_qparams, _fused_moving_avg_obs_fq_helper,
    fake_quantize_per_channel_affine, fake_quantize_per_tensor_affine,
    fused_moving_avg_obs_fake_quant,
)
from ._quantized_packed import ScriptObject  # noqa: F401
from .ops import quantized as _ops_quantized  # noqa: F401,E402  (torch.ops.quantized)
from ._quantized_scheme import (  # noqa: F401
    per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric,
    per_tensor_affine, per_tensor_symmetric, qscheme,
)

__all__ = ["quint8", "qint8", "qint32", "quint4x2", "quint2x4", "qscheme", "per_tensor_affine",
           "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
           "per_channel_affine_float_qparams", "quantize_per_tensor", "quantize_per_channel",
           "dequantize", "quantize_per_tensor_dynamic", "_make_per_tensor_quantized_tensor",
           "_make_per_channel_quantized_tensor", "_choose_qparams_per_tensor",
           "_empty_affine_quantized", "_empty_per_channel_affine_quantized",
           "fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine",
           "_fake_quantize_learnable_per_tensor_affine",
           "_fake_quantize_learnable_per_channel_affine",
           "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams",
           "fused_moving_avg_obs_fake_quant", "_fused_moving_avg_obs_fq_helper",
           "ScriptObject"]
