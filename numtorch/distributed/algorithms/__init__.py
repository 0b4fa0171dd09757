"""``numtorch.distributed.algorithms``: the join context manager for uneven inputs."""

from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
