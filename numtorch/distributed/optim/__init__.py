"""``numtorch.distributed.optim``: ``DistributedOptimizer`` for parameters spread over workers."""

from .optimizer import DistributedOptimizer

__all__ = ["DistributedOptimizer"]
