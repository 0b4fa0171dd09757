"""``numtorch.legacy.nn``: Lua-torch's ``nn`` package (modules with ``output``/``gradInput``,
explicit ``forward``/``backward``, criteria) on numtorch tensors.

Lua's numbering is kept throughout: dimensions, offsets, table positions and the indices of
``LookupTable``, ``ClassNLLCriterion`` and ``MultiMarginCriterion`` count from 1. Tables are
Python lists.
"""

from .module import Module
from .containers import Container, Sequential, Concat, ConcatTable, ParallelTable, Parallel
from .table_layers import JoinTable, SelectTable, CAddTable, MM
from .linear import (
    Linear, Bilinear, LookupTable, CMul, Mul, Add, MulConstant, Euclidean, Cosine, Normalize,
)
from .conv import (
    SpatialConvolution, SpatialFullConvolution, VolumetricConvolution, TemporalConvolution,
    SpatialMaxPooling, SpatialAveragePooling,
)
from .normalization import BatchNormalization, SpatialBatchNormalization, Dropout, SpatialDropout
from .activation import (
    Threshold, ReLU, HardTanh, ELU, PReLU, Tanh, Sigmoid, SoftMax, LogSoftMax, SoftPlus,
)
from .shape import (
    View, Reshape, Transpose, Identity, Narrow, Replicate, Squeeze, Unsqueeze, Padding,
)
from .criterion import Criterion, ParallelCriterion, MultiCriterion
from .criterions import (
    ClassNLLCriterion, CrossEntropyCriterion, MSECriterion, AbsCriterion, BCECriterion,
    SmoothL1Criterion, MarginCriterion, MultiMarginCriterion, HingeEmbeddingCriterion,
    CosineEmbeddingCriterion, DistKLDivCriterion, MarginRankingCriterion,
)

__all__ = [
    "Module", "Container", "Sequential", "Concat", "ConcatTable", "ParallelTable", "Parallel",
    "JoinTable", "SelectTable", "CAddTable", "MM", "Linear", "Bilinear", "LookupTable", "CMul",
    "Mul", "Add", "MulConstant", "Euclidean", "Cosine", "Normalize", "SpatialConvolution",
    "SpatialFullConvolution", "VolumetricConvolution", "TemporalConvolution",
    "SpatialMaxPooling", "SpatialAveragePooling", "BatchNormalization",
    "SpatialBatchNormalization", "Dropout", "SpatialDropout", "Threshold", "ReLU", "HardTanh",
    "ELU", "PReLU", "Tanh", "Sigmoid", "SoftMax", "LogSoftMax", "SoftPlus", "View", "Reshape",
    "Transpose", "Identity", "Narrow", "Replicate", "Squeeze", "Unsqueeze", "Padding",
    "Criterion", "ParallelCriterion", "MultiCriterion", "ClassNLLCriterion",
    "CrossEntropyCriterion", "MSECriterion", "AbsCriterion", "BCECriterion",
    "SmoothL1Criterion", "MarginCriterion", "MultiMarginCriterion", "HingeEmbeddingCriterion",
    "CosineEmbeddingCriterion", "DistKLDivCriterion", "MarginRankingCriterion",
]
