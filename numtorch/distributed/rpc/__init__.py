"""``numtorch.distributed.rpc``: remote calls and remote references between processes.

Workers join with ``init_rpc(name, rank=..., world_size=...)``; worker 0 serves the
rendezvous on MASTER_ADDR:MASTER_PORT. Calls carry pickled Python functions and arguments
over TCP sockets; tensors travel as arrays. Inside a ``numtorch.distributed.autograd``
context, tensors that require grad are recorded on both ends so ``dist_autograd.backward``
can send gradients back along the calls.
"""

from . import functions
from ._info import WorkerInfo
from ._rref import RRef
from ._state import is_running as _is_running  # noqa: F401
from .api import get_worker_info, init_rpc, remote, rpc_async, rpc_sync, shutdown
from .options import (  # noqa: F401
    DEFAULT_RPC_TIMEOUT_SEC,
    UNSET_RPC_TIMEOUT,
    BackendType,
    RpcBackendOptions,
    TensorPipeRpcBackendOptions,
)

PyRRef = RRef


def is_available():
    """True: RPC needs nothing beyond the standard library here."""
    return True


__all__ = [
    "BackendType", "PyRRef", "RRef", "RpcBackendOptions", "TensorPipeRpcBackendOptions",
    "WorkerInfo", "functions", "get_worker_info", "init_rpc", "is_available", "remote",
    "rpc_async", "rpc_sync", "shutdown",
]
