"""``torch.distributed._composable.fsdp``: the same FSDP2 names as
``torch.distributed.fsdp``."""

from ...fsdp._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy,  # noqa
                                  OffloadPolicy, fully_shard, register_fsdp_forward_method)

__all__ = ["CPUOffloadPolicy", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy",
           "fully_shard", "register_fsdp_forward_method"]
