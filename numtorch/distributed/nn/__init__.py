"""``numtorch.distributed.nn``: ``RemoteModule``, a module whose parameters live on another worker."""

from .api.remote_module import RemoteModule

__all__ = ["RemoteModule"]
