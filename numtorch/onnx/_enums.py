"""The export option enums at torch's names (``torch.onnx.TrainingMode`` and
``torch.onnx.OperatorExportTypes``)."""

import enum

__all__ = ["OperatorExportTypes", "TrainingMode"]


class _Named(enum.IntEnum):
    # torch's enums print as ``TrainingMode.EVAL``; IntEnum would print the number
    __str__ = enum.Enum.__str__


class TrainingMode(_Named):
    """Which mode the model is exported in: ``EVAL`` (dropout off, batch norm on running
    statistics), ``PRESERVE`` (the mode it is in) or ``TRAINING``."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(_Named):
    """How operators are exported. Only ``ONNX`` (standard ONNX operators) is produced here;
    the ATen fallbacks are accepted and behave like ``ONNX``."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3
