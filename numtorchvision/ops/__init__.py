"""Operators for vision models: box utilities, NMS, RoI pooling, losses and the shared
building blocks (conv-norm-activation, squeeze-and-excitation, stochastic depth)."""

from .misc import (MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d,  # noqa: F401
                   Permute, SqueezeExcitation)
from .stochastic_depth import StochasticDepth, stochastic_depth  # noqa: F401
