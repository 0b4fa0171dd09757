"""``RemoteModule``: build a module on a remote worker and call it through RPC.

The module lives on the worker named by ``remote_device`` (``"ps"``, ``"ps/cpu"`` or
``"rank:1/cpu"``); the local object holds an RRef to it. ``forward`` runs there with
``rpc_sync`` (inside a distributed autograd context the call is recorded like any RPC, so
gradients reach the remote parameters), and ``remote_parameters`` gives RRefs for
``DistributedOptimizer``. A RemoteModule can itself be passed in RPC arguments.
"""

from ....nn.modules.module import Module
from ... import rpc


def _parse_device(remote_device):
    if not isinstance(remote_device, str) or not remote_device:
        raise ValueError(f"remote_device must be a string like 'worker/cpu', got "
                         f"{remote_device!r}")
    worker, _, device = remote_device.partition("/")
    device = device or "cpu"
    if worker.startswith("rank:"):
        try:
            worker = int(worker[5:])
        except ValueError:
            raise ValueError(f"Could not parse remote_device: {remote_device}") from None
    return worker, device


def _create(module_cls, args, kwargs, device):
    m = module_cls(*args, **kwargs)
    return m.to(device) if device != "cpu" else m


def _forward(module_rref, args, kwargs):
    return module_rref.local_value()(*args, **kwargs)


def _param_rrefs(module_rref, recurse):
    return [rpc.RRef(p) for p in module_rref.local_value().parameters(recurse)]


class RemoteModule(Module):
    """A module created on ``remote_device`` and called from here.

    Args:
        remote_device (str): ``"<worker name>/<device>"`` or ``"rank:<id>/<device>"``
            (the device defaults to cpu).
        module_cls (type): the ``nn.Module`` class to build there.
        args (tuple, optional): its constructor's positional arguments.
        kwargs (dict, optional): its constructor's keyword arguments.
    """

    def __init__(self, remote_device, module_cls, args=None, kwargs=None):
        super().__init__()
        worker, device = _parse_device(remote_device)
        self.on = rpc.get_worker_info(worker) if isinstance(worker, str) else worker
        self.device = device
        self.module_rref = rpc.remote(self.on, _create,
                                      args=(module_cls, tuple(args or ()), dict(kwargs or {}),
                                            device))

    def forward(self, *args, **kwargs):
        """Run the remote module on ``args`` and return its output here."""
        return rpc.rpc_sync(self.module_rref.owner(), _forward,
                            args=(self.module_rref, args, kwargs))

    def forward_async(self, *args, **kwargs):
        """Like :meth:`forward`, returning a Future of the output."""
        return rpc.rpc_async(self.module_rref.owner(), _forward,
                             args=(self.module_rref, args, kwargs))

    def remote_parameters(self, recurse=True):
        """RRefs to the remote module's parameters (for ``DistributedOptimizer``)."""
        return rpc.rpc_sync(self.module_rref.owner(), _param_rrefs,
                            args=(self.module_rref, recurse))

    def get_module_rref(self):
        """The RRef of the remote module itself."""
        return self.module_rref

    def parameters(self, recurse=True):
        raise ValueError("Method ``parameters`` not supported for RemoteModule. Please use "
                         "``remote_parameters`` instead.")
