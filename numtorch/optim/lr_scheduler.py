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

# The classes are written in _schedulers_* (size); torch defines them here, and pickles and
# ``__module__`` checks name this module.
for _cls in (LRScheduler, _LRScheduler, *(globals()[_name] for _name in __all__)):
    _cls.__module__ = __name__
del _cls
