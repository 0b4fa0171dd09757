"""``numtorch.distributed``: torch's distributed API on MPI (mpi4py) or on TCP sockets.

Processes started by an MPI launcher (``mpiexec -n N python train.py``, or the torchrun-style
``python -m numtorch.distributed.run --nproc-per-node N train.py``) run on MPI. Every other
process (``torch.multiprocessing.spawn``, ``multiprocessing.Process``, separate shells) meets
the others through a store as in torch (``env://`` MASTER_ADDR/MASTER_PORT, ``tcp://``,
``file://`` or ``store=``) and runs on a socket transport with the same collectives. The
backend names "gloo", "nccl" and "mpi" are served by whichever runs. Collectives move the
tensors' arrays themselves (no pickling of tensors).

mpi4py is optional (``pip install "numtorch[distributed]"``): without it the socket transport
still works; only a process started by an MPI launcher needs it.
"""

import enum
from datetime import timedelta  # noqa: F401  (torch.distributed.timedelta exists too)

from ._world import DistBackendError, DistError, DistNetworkError, DistStoreError
from .distributed_c10d import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, ReduceOp, default_pg_timeout, destroy_process_group,
    get_backend, get_default_backend_for_device, get_global_rank, get_group_rank,
    get_node_local_rank, get_pg_count, get_process_group_ranks, get_rank, get_world_size,
    group, init_process_group, is_backend_available, is_gloo_available, is_initialized,
    is_mpi_available, is_nccl_available, is_torchelastic_launched, is_ucc_available,
    is_xccl_available, new_group, new_subgroups, reduce_op, _make_nccl_premul_sum,
)
from ._collectives import (  # noqa: F401
    all_gather, all_gather_coalesced, all_gather_into_tensor, all_gather_single, all_reduce,
    all_reduce_coalesced, barrier, broadcast, gather, reduce, reduce_scatter,
    reduce_scatter_single, reduce_scatter_tensor, scatter, _all_gather_base, _reduce_scatter_base,
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
from ._grad_bucket import GradBucket  # noqa: F401
from ._store import HashStore, PrefixStore, Store, TCPStore  # noqa: F401
from ._file_store import FileStore  # noqa: F401
from . import distributed_c10d  # noqa: F401
from .distributed_c10d import (  # noqa: F401
    get_backend_config, new_subgroups_by_enumeration, split_group,
)
from ._debug import (  # noqa: F401
    DebugLevel, breakpoint, get_debug_level, set_debug_level, set_debug_level_from_env,
    supports_complex,
)
from ._options import (  # noqa: F401
    AllreduceCoalescedOptions, AllreduceOptions, AllToAllOptions, BackendConfig,
    BarrierOptions, BroadcastOptions, GatherOptions, ReduceOptions, ReduceScatterOptions,
    ScatterOptions,
)
from ._world import QueueEmptyError  # noqa: F401
from . import constants  # noqa: F401
from . import c10d_logger, logging_handlers, remote_device  # noqa: F401
# the function shadows its module's name, as in torch
from .rendezvous import register_rendezvous_handler, rendezvous  # noqa: F401

# type aliases torch's signatures use: a group's name, a rank
GroupName = str
RankType = int


class BuiltinCommHookType(enum.Enum):
    """DDP's built-in communication hooks (``model._register_builtin_comm_hook``)."""

    ALLREDUCE = 1
    FP16_COMPRESS = 2


def is_available():
    """True: processes an MPI launcher did not start run on sockets (standard library)."""
    return True


def __getattr__(name):
    # torch.distributed.rpc / .autograd are reachable as attributes, as in torch; imported
    # on first use (with .optim and .nn) so that `import numtorch.distributed` stays light
    if name in ("rpc", "autograd", "optim", "nn", "tensor", "device_mesh", "algorithms",
                "utils"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name in ("init_device_mesh", "DeviceMesh"):
        from . import device_mesh

        return getattr(device_mesh, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Backend", "DistBackendError", "FileStore", "HashStore", "PrefixStore", "Store",
    "TCPStore", "DistError", "DistNetworkError", "DistStoreError",
    "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_coalesced", "all_gather_into_tensor", "all_gather_object", "all_gather_single",
    "all_reduce", "reduce_scatter_single",
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
