"""``torch.distributed.fsdp``: fully sharded data parallel training (the classic wrapper).

See :class:`FullyShardedDataParallel` and docs/distributed.md.
"""

from ._handle import FlatParameter
from ._shard import ShardedTensor
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig,
                  FullStateDictConfig, LocalOptimStateDictConfig, LocalStateDictConfig,
                  MixedPrecision, OptimStateDictConfig, OptimStateKeyType,
                  ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel
from . import wrap

__all__ = ["FullyShardedDataParallel", "FlatParameter", "ShardingStrategy", "BackwardPrefetch",
           "MixedPrecision", "CPUOffload", "StateDictType", "StateDictConfig",
           "FullStateDictConfig", "LocalStateDictConfig", "ShardedStateDictConfig",
           "OptimStateDictConfig", "FullOptimStateDictConfig", "LocalOptimStateDictConfig",
           "ShardedOptimStateDictConfig", "StateDictSettings", "OptimStateKeyType",
           "ShardedTensor", "wrap"]
