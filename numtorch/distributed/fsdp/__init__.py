"""``torch.distributed.fsdp``: fully sharded data parallel training (the classic wrapper).

See :class:`FullyShardedDataParallel` and docs/distributed.md.
"""

from . import wrap
from ._handle import FlatParameter
from ._shard import ShardedTensor
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision,
                  OptimStateDictConfig, OptimStateKeyType, ShardedOptimStateDictConfig,
                  ShardedStateDictConfig, ShardingStrategy, StateDictConfig, StateDictSettings,
                  StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel
from ._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,
                           fully_shard, register_fsdp_forward_method)

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FSDPModule",
           "MixedPrecisionPolicy", "OffloadPolicy", "fully_shard",
           "register_fsdp_forward_method", "FlatParameter", "FullOptimStateDictConfig",
           "FullStateDictConfig", "FullyShardedDataParallel", "LocalOptimStateDictConfig",
           "LocalStateDictConfig", "MixedPrecision", "OptimStateDictConfig",
           "OptimStateKeyType", "ShardedOptimStateDictConfig", "ShardedStateDictConfig",
           "ShardedTensor", "ShardingStrategy", "StateDictConfig", "StateDictSettings",
           "StateDictType", "wrap"]
