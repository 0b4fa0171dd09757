"""``optim.lr_scheduler``: learning-rate schedules (the classes live in ``_schedulers_*``)."""

from ._schedulers_base import LRScheduler, _LRScheduler  # noqa: F401
from ._schedulers_simple import (  # noqa: F401
    ConstantLR, CosineAnnealingLR, ExponentialLR, LambdaLR, LinearLR, MultiplicativeLR,
    MultiStepLR, PolynomialLR, StepLR)
from ._schedulers_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR  # noqa: F401
from ._schedulers_meta import ChainedScheduler, ReduceLROnPlateau, SequentialLR  # noqa: F401

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
           "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR"]
