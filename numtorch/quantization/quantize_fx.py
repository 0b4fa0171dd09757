"""``torch.quantization.quantize_fx``: the old import path of
:mod:`numtorch.ao.quantization.quantize_fx` (same objects)."""

from numtorch.ao.quantization.fx.tracer import QuantizationTracer, Scope, ScopeContextManager  # noqa: F401
from numtorch.ao.quantization.quantize_fx import (  # noqa: F401
    _check_is_graph_module,
    _convert_fx,
    _fuse_fx,
    _prepare_fx,
    _swap_ff_with_fxff,
    convert_fx,
    fuse_fx,
    prepare_fx,
    prepare_qat_fx,
)
