"""``torch.distributed.tensor``: DTensor, a tensor laid out over a DeviceMesh of ranks.

Works in one process (a mesh of one rank) and over numtorch.distributed's process groups
(MPI or sockets). See ``_api.py`` for how a DTensor carries its local piece and ``_dispatch.py``
for how operations choose their layouts.
"""

from ..device_mesh import DeviceMesh, init_device_mesh
from . import placement_types
from ._api import DTensor, distribute_module, distribute_tensor
from ._factories import empty, full, ones, rand, randn, zeros
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = [
    "DTensor",
    "DeviceMesh",
    "Partial",
    "Placement",
    "Replicate",
    "Shard",
    "device_mesh",
    "distribute_module",
    "distribute_tensor",
    "empty",
    "full",
    "init_device_mesh",
    "ones",
    "placement_types",
    "rand",
    "randn",
    "zeros",
]


def __getattr__(name):
    if name == "device_mesh":
        from .. import device_mesh

        return device_mesh
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
