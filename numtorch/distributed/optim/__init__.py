"""``numtorch.distributed.optim``: ``DistributedOptimizer`` for parameters spread over workers."""

from .optimizer import DistributedOptimizer
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["DistributedOptimizer", "ZeroRedundancyOptimizer"]
