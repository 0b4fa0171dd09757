"""``numtorch.backends.quantized``: which quantized engine PyTorch programs ask for.

The engine is stored and reported as torch reports it. numtorch has one set of quantized
kernels (integer arithmetic requantized the way torch's x86/fbgemm CPU backend does), so the
choice changes no numerics; quantization configurations pick their backend by name
(``get_default_qconfig('qnnpack')``), as in torch.
"""

import sys
import types

_ENGINES = ("qnnpack", "onednn", "x86", "fbgemm")
_state = {"engine": "x86"}


def _set_engine(value):
    if value is None or value == "none":
        raise RuntimeError("quantized engine NoQEngine is not supported")
    if value not in _ENGINES:
        raise RuntimeError(f"{value} is not a valid value for quantized engine")
    _state["engine"] = value


class _QuantizedBackendModule(types.ModuleType):
    @property
    def engine(self):
        return _state["engine"]

    @engine.setter
    def engine(self, value):
        _set_engine(value)

    @property
    def supported_engines(self):
        return list(_ENGINES)


sys.modules[__name__].__class__ = _QuantizedBackendModule
