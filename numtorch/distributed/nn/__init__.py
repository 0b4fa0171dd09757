"""``numtorch.distributed.nn``: ``RemoteModule``, a module whose parameters live on another worker,
and the collectives gradients flow through (:mod:`.functional`)."""

from .api.remote_module import RemoteModule
from .functional import (
    all_gather,
    all_reduce,
    all_to_all,
    all_to_all_single,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    scatter,
)

__all__ = ["RemoteModule", "all_gather", "all_reduce", "all_to_all", "all_to_all_single",
           "broadcast", "gather", "reduce", "reduce_scatter", "scatter"]
