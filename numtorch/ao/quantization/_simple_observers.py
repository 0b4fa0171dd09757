"""Observers that compute nothing: placeholders carrying a dtype to the convert step, a no-op,
a recorder for debugging, fixed parameters, and the reuse-input marker of graph mode."""

import warnings

import numtorch as torch

from .observer import ObserverBase

__all__ = ["FixedQParamsObserver", "PlaceholderObserver", "RecordingObserver", "NoopObserver",
           "ReuseInputObserver"]

_HOME = "numtorch.ao.quantization.observer"


def _refuse(name):
    raise Exception(f"calculate_qparams should not be called for {name}")  # noqa: TRY002


class FixedQParamsObserver(ObserverBase):
    """Always reports the same ``scale`` and ``zero_point`` (for ops with a fixed output
    range such as sigmoid); per tensor only."""

    def __init__(self, scale, zero_point, dtype=torch.quint8, qscheme=torch.per_tensor_affine,
                 quant_min=0, quant_max=255, is_dynamic=False, **kwargs):
        if is_dynamic:
            raise NotImplementedError("FixedQParamsObserver doesn't support dynamic "
                                      "quantization")
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.register_buffer("scale", torch.tensor([scale], dtype=torch.float))
        self.register_buffer("zero_point", torch.tensor([zero_point], dtype=torch.int))
        self.dtype = dtype
        self.qscheme = qscheme

    def forward(self, X):
        return X

    def calculate_qparams(self):
        """The fixed ``(scale, zero_point)`` buffers."""
        return self.scale, self.zero_point


class PlaceholderObserver(ObserverBase):
    """Observes nothing; carries ``dtype`` (and whether quantization is dynamic) to the
    quantized module's ``from_float`` (float16 and dynamic quantization use it)."""

    def __init__(self, dtype=torch.float32, custom_op_name="", compute_dtype=None,
                 quant_min=None, quant_max=None, qscheme=None, eps=None, is_dynamic=False):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.dtype = dtype
        self.qscheme = torch.per_tensor_affine if qscheme is None else qscheme
        self.quant_min, self.quant_max = quant_min, quant_max
        self.eps = torch.finfo(torch.float32).eps if eps is None else eps
        self.custom_op = custom_op_name
        if compute_dtype:
            warnings.warn("Please use `is_dynamic` instead of `compute_dtype`.                "
                          "     `compute_dtype` will be deprecated in a future release        "
                          "             of PyTorch.", stacklevel=2)

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        _refuse("PlaceholderObserver")


class RecordingObserver(ObserverBase):
    """Keeps a copy of every tensor it sees (``get_tensor_value()``), for debugging."""

    def __init__(self, dtype=torch.quint8):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.tensor_val = []

    def forward(self, x):
        self.tensor_val.append(x.clone())
        return x

    def calculate_qparams(self):
        _refuse("RecordingObserver")

    def get_tensor_value(self):
        """The tensors recorded so far."""
        return self.tensor_val


class NoopObserver(ObserverBase):
    """Observes nothing; carries ``dtype`` (float16 by default) to ``from_float``."""

    def __init__(self, dtype=torch.float16, custom_op_name=""):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.dtype = dtype
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        _refuse("NoopObserver")


class ReuseInputObserver(ObserverBase):
    """Marks an op whose output reuses its input's observer (graph mode)."""

    def __init__(self):
        super().__init__(torch.quint8, is_dynamic=False)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        _refuse("ReuseInputObserver")


for _cls in (FixedQParamsObserver, PlaceholderObserver, RecordingObserver, NoopObserver,
             ReuseInputObserver):
    _cls.__module__ = _HOME
del _cls
