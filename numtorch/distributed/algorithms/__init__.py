"""``numtorch.distributed.algorithms``: the join context manager for uneven inputs, and DDP's
communication hooks (``ddp_comm_hooks``)."""

from . import ddp_comm_hooks  # noqa: F401
from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
