"""Default timeouts of ``torch.distributed`` (process groups wait 30 minutes)."""

from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

default_pg_timeout = timedelta(minutes=30)
# torch defines the NCCL default only in CUDA builds; the CPU wheel (the oracle) has None
default_pg_nccl_timeout = None
