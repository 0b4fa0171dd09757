"""``numtorch.distributed``: torch's distributed API on MPI (mpi4py).

Start the ranks with ``mpiexec -n N python train.py`` or with the torchrun-style launcher
``python -m numtorch.distributed.run --nproc-per-node N train.py``, then call
``init_process_group`` as in torch. The backend names "gloo", "nccl" and "mpi" are all served
by MPI. Collectives move the tensors' arrays in place through MPI's buffer interface.

mpi4py is optional (``pip install "numtorch[distributed]"``): without it this package still
imports, ``is_available()`` and ``is_mpi_available()`` are False, and ``init_process_group``
raises an error naming the extra.
"""

from datetime import timedelta  # noqa: F401  (torch.distributed.timedelta exists too)

from . import _mpi
from ._world import DistBackendError, DistError, DistNetworkError, DistStoreError
from .distributed_c10d import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, ReduceOp, default_pg_timeout, destroy_process_group,
    get_backend, get_default_backend_for_device, get_global_rank, get_group_rank,
    get_node_local_rank, get_pg_count, get_process_group_ranks, get_rank, get_world_size,
    group, init_process_group, is_backend_available, is_gloo_available, is_initialized,
    is_mpi_available, is_nccl_available, is_torchelastic_launched, is_ucc_available,
    is_xccl_available, new_group, new_subgroups, reduce_op,
)
from ._collectives import (  # noqa: F401
    all_gather, all_gather_coalesced, all_gather_into_tensor, all_reduce,
    all_reduce_coalesced, barrier, broadcast, gather, reduce, reduce_scatter,
    reduce_scatter_tensor, scatter,
)
from ._all_to_all import all_to_all, all_to_all_single  # noqa: F401
from ._p2p import (  # noqa: F401
    P2POp, batch_isend_irecv, irecv, isend, monitored_barrier, recv, send,
)
from ._objects import (  # noqa: F401
    all_gather_object, broadcast_object_list, gather_object, recv_object_list,
    scatter_object_list, send_object_list,
)
from ._work import Work  # noqa: F401
from . import distributed_c10d  # noqa: F401


def is_available():
    """True when the distributed package can run here (mpi4py is installed)."""
    return _mpi.is_mpi_available()


def __getattr__(name):
    # torch.distributed.rpc / .autograd are reachable as attributes, as in torch; imported
    # on first use (with .optim and .nn) so that `import numtorch.distributed` stays light
    if name in ("rpc", "autograd", "optim", "nn"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Backend", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_coalesced", "all_gather_into_tensor", "all_gather_object", "all_reduce",
    "all_reduce_coalesced", "all_to_all", "all_to_all_single", "barrier",
    "batch_isend_irecv", "broadcast", "broadcast_object_list", "default_pg_timeout",
    "destroy_process_group", "gather", "gather_object", "get_backend",
    "get_default_backend_for_device", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available",
    "isend", "monitored_barrier", "new_group", "new_subgroups", "recv", "recv_object_list",
    "reduce", "reduce_op", "reduce_scatter", "reduce_scatter_tensor", "scatter",
    "scatter_object_list", "send", "send_object_list",
]
