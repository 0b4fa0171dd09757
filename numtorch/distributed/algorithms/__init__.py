"""``numtorch.distributed.algorithms``: the join context manager for uneven inputs."""

from .join import Join, JoinHook, Joinable

__all__ = ["Join", "JoinHook", "Joinable"]
