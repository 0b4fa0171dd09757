"""``torch.nn.parallel.comm``: the device-to-device copies of ``numtorch.cuda.comm``."""

from ...cuda.comm import (  # noqa: F401
    broadcast, broadcast_coalesced, gather, reduce_add, scatter,
)

__all__ = ["broadcast", "broadcast_coalesced", "scatter", "gather", "reduce_add"]
