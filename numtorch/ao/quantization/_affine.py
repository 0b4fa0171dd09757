"""The torchao-style descriptions of affine quantization that torch keeps in
``torch.ao.quantization.observer``: mapping types, zero-point domains, granularities and the
abstract :class:`AffineQuantizedObserverBase`."""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum, auto

from numtorch import nn

__all__ = ["MappingType", "ZeroPointDomain", "TorchAODType", "Granularity", "PerBlock",
           "PerTensor", "PerAxis", "PerGroup", "PerRow", "PerToken", "get_block_size",
           "AffineQuantizedObserverBase"]

_HOME = "numtorch.ao.quantization.observer"


class MappingType(Enum):
    """How a float range maps onto the integer range: symmetric (around 0), symmetric with
    separate scales for the two signs taken as their maximum, or asymmetric."""

    SYMMETRIC = auto()
    SYMMETRIC_NO_CLIPPING_ERR = auto()
    ASYMMETRIC = auto()


class ZeroPointDomain(Enum):
    """Whether zero points are integers, floats, or absent."""

    INT = auto()
    FLOAT = auto()
    NONE = auto()


class TorchAODType(Enum):
    """Integer widths below 8 bits that have no torch dtype."""

    INT1 = auto()
    INT2 = auto()
    INT3 = auto()
    INT4 = auto()
    INT5 = auto()
    INT6 = auto()
    INT7 = auto()


@dataclass(frozen=True)
class Granularity:
    """What one set of quantization parameters covers (a subclass says)."""


@dataclass(frozen=True)
class PerBlock(Granularity):
    """One set of parameters per block of ``block_size`` elements."""

    block_size: tuple


@dataclass(frozen=True)
class PerTensor(Granularity):
    """One set of parameters for the whole tensor."""


@dataclass(frozen=True)
class PerAxis(Granularity):
    """One set of parameters per index along ``axis``."""

    axis: int


@dataclass(frozen=True)
class PerGroup(Granularity):
    """One set of parameters per group of ``group_size`` consecutive elements of a row."""

    group_size: int


class PerRow(Granularity):
    """One set of parameters per row (the last dim is the block)."""


class PerToken(Granularity):
    """One set of parameters per token (every index of the leading dims)."""


for _cls in (MappingType, ZeroPointDomain, TorchAODType, Granularity, PerBlock, PerTensor,
             PerAxis, PerGroup, PerRow, PerToken):
    _cls.__module__ = _HOME
del _cls


def get_block_size(input_shape, granularity):
    """The block shape one set of parameters covers for ``granularity`` on ``input_shape``.
    """
    if not isinstance(granularity, Granularity):
        raise AssertionError("Please provide an instance of Granularity, not subclass of it")
    if isinstance(granularity, PerTensor):
        return input_shape
    if isinstance(granularity, PerAxis):
        block = list(input_shape)
        block[granularity.axis] = 1
        return tuple(block)
    if isinstance(granularity, PerRow):
        return (1,) * (len(input_shape) - 1) + (input_shape[-1],)
    if isinstance(granularity, PerGroup):
        if len(input_shape) != 2:
            raise AssertionError(f"Expecting input shape dim to be 2 for per group "
                                 f"quantization, gotinput shape: {input_shape}")
        return (1, granularity.group_size)
    if isinstance(granularity, PerToken):
        block = [1] * len(input_shape)
        block[-1] = input_shape[-1]
        return tuple(block)
    raise ValueError(f"Unsupported Granularity: {granularity}")


class AffineQuantizedObserverBase(ABC, nn.Module):
    """Base of observers that describe their parameters by a granularity (torchao's
    observers); subclasses implement ``forward`` and ``calculate_qparams``."""

    def __init__(self, mapping_type, target_dtype, granularity, quant_min=None,
                 quant_max=None, eps=None, scale_dtype=None, zero_point_dtype=None,
                 preserve_zero=True, zero_point_domain=ZeroPointDomain.INT, **kwargs):
        super().__init__()
        if granularity is None:
            raise AssertionError("granularity is None")
        self.mapping_type, self.target_dtype = mapping_type, target_dtype
        self.granularity = granularity
        self.quant_min, self.quant_max, self.eps = quant_min, quant_max, eps
        self.scale_dtype, self.zero_point_dtype = scale_dtype, zero_point_dtype
        self.preserve_zero, self.zero_point_domain = preserve_zero, zero_point_domain
        self.block_size = None
        self.original_dtype = None

    @abstractmethod
    def forward(self, input):
        """Record statistics of ``input`` and return it."""

    @abstractmethod
    def calculate_qparams(self):
        """``(scale, zero_point)`` tensors."""

    @classmethod
    def with_args(cls, **kwargs):
        from .observer import _with_args

        return _with_args(cls, **kwargs)


AffineQuantizedObserverBase.__module__ = _HOME
