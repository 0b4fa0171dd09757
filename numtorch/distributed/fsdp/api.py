"""The option types of ``torch.distributed.fsdp``: strategies, precision, state-dict configs.

Their names, values, defaults and reprs are torch's, so programs that build them, compare
them or print them behave the same.
"""

from dataclasses import dataclass
from enum import Enum, auto

__all__ = [
    "BackwardPrefetch",
    "CPUOffload",
    "FullOptimStateDictConfig",
    "FullStateDictConfig",
    "LocalOptimStateDictConfig",
    "LocalStateDictConfig",
    "MixedPrecision",
    "OptimStateDictConfig",
    "OptimStateKeyType",
    "ShardedOptimStateDictConfig",
    "ShardedStateDictConfig",
    "ShardingStrategy",
    "StateDictConfig",
    "StateDictSettings",
    "StateDictType",
]


class ShardingStrategy(Enum):
    """What each rank keeps between forward and backward.

    FULL_SHARD: parameters, gradients and optimizer state sharded; parameters gathered for
    each forward and again for backward. SHARD_GRAD_OP: parameters stay gathered from forward
    through backward. NO_SHARD: every rank keeps everything (DDP-like). The HYBRID variants
    shard within a node and replicate across nodes (one node here: same as FULL_SHARD /
    SHARD_GRAD_OP).
    """

    FULL_SHARD = auto()
    SHARD_GRAD_OP = auto()
    NO_SHARD = auto()
    HYBRID_SHARD = auto()
    _HYBRID_SHARD_ZERO2 = auto()


class BackwardPrefetch(Enum):
    """When backward gathers the next unit's parameters (a scheduling hint; the CPU
    collectives here run one after another, so both give the same results)."""

    BACKWARD_PRE = auto()
    BACKWARD_POST = auto()


class StateDictType(Enum):
    FULL_STATE_DICT = auto()
    LOCAL_STATE_DICT = auto()
    SHARDED_STATE_DICT = auto()


class OptimStateKeyType(Enum):
    PARAM_NAME = auto()
    PARAM_ID = auto()


def _batchnorm_classes():
    from ...nn.modules.batchnorm import _BatchNorm

    return (_BatchNorm,)


@dataclass
class MixedPrecision:
    """Dtypes for the gathered parameters (``param_dtype``), for gradient reduction
    (``reduce_dtype``) and for buffers (``buffer_dtype``); None keeps the parameters' own."""

    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = None

    def __post_init__(self):
        if self._module_classes_to_ignore is None:
            self._module_classes_to_ignore = _batchnorm_classes()


@dataclass
class CPUOffload:
    """Keep parameters (and gradients) in CPU memory between uses; on the CPU they already
    are, so this changes nothing but is accepted."""

    offload_params: bool = False


@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
