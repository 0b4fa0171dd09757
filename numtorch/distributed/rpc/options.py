"""Backend options of ``init_rpc`` (torch's TensorPipe names; the transport here is TCP)."""

import enum

DEFAULT_RPC_TIMEOUT_SEC = 60.0
DEFAULT_NUM_WORKER_THREADS = 16
DEFAULT_INIT_METHOD = "env://"
UNSET_RPC_TIMEOUT = -1.0  # "use the agent's default" in rpc_sync/rpc_async/remote


class BackendType(enum.Enum):
    """The RPC backends; TENSORPIPE is the only one, as in torch 2.x."""

    TENSORPIPE = "TENSORPIPE"


class RpcBackendOptions:
    """Options common to every backend.

    Args:
        rpc_timeout (float): default seconds an RPC may take before it fails (0: no limit).
        init_method (str): the rendezvous URL, ``env://`` (MASTER_ADDR/MASTER_PORT) or
            ``tcp://host:port``.
    """

    def __init__(self, rpc_timeout=DEFAULT_RPC_TIMEOUT_SEC, init_method=DEFAULT_INIT_METHOD):
        self.rpc_timeout = float(rpc_timeout)
        self.init_method = init_method


class TensorPipeRpcBackendOptions(RpcBackendOptions):
    """Options of the default RPC backend.

    Args:
        num_worker_threads (int): threads that run incoming requests (default 16).
        rpc_timeout (float): default RPC timeout in seconds (default 60; 0 means none).
        init_method (str): rendezvous URL (default ``env://``).
        device_maps (dict, optional): accepted for compatibility; tensors travel through
            host memory.
        devices (list, optional): accepted for compatibility.
    """

    def __init__(self, *, num_worker_threads=DEFAULT_NUM_WORKER_THREADS,
                 rpc_timeout=DEFAULT_RPC_TIMEOUT_SEC, init_method=DEFAULT_INIT_METHOD,
                 device_maps=None, devices=None, _transports=None, _channels=None):
        super().__init__(rpc_timeout, init_method)
        self.num_worker_threads = int(num_worker_threads)
        self.device_maps = dict(device_maps or {})
        self.devices = list(devices or [])
        self._transports = _transports
        self._channels = _channels

    def set_device_map(self, to, device_map):
        """Record a device map for worker ``to`` (kept for compatibility)."""
        self.device_maps.setdefault(to, {}).update(device_map)

    def set_devices(self, devices):
        """Record the local devices (kept for compatibility)."""
        self.devices = list(devices)
