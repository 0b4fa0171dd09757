"""The option records ProcessGroup's own collective methods take (``pg.allreduce(tensors,
opts)``), and ``BackendConfig`` (a device -> backend map parsed from a backend string)."""

import datetime
import warnings
from typing import ClassVar

from ._names import Backend, ReduceOp

__all__ = [
    "AllToAllOptions",
    "AllreduceCoalescedOptions",
    "AllreduceOptions",
    "BackendConfig",
    "BarrierOptions",
    "BroadcastOptions",
    "GatherOptions",
    "ReduceOptions",
    "ReduceScatterOptions",
    "ScatterOptions",
]

_UNSET_TIMEOUT = datetime.timedelta(milliseconds=-1)  # torch's "use the group's timeout"

class _Options:
    _fields: ClassVar[dict] = {}

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise TypeError(f"__init__(): incompatible constructor arguments. The following "
                            f"argument types are supported:\n    1. torch._C._distributed_c10d."
                            f"{type(self).__name__}()\n\nInvoked with: kwargs: {shown}")
        self.asyncOp = True
        self.timeout = _UNSET_TIMEOUT
        for k, v in self._fields.items():
            setattr(self, k, v() if callable(v) and not isinstance(v, ReduceOp) else v)

    def _timeout(self):
        """The per-call timeout, or None for the group's own."""
        return None if self.timeout == _UNSET_TIMEOUT else self.timeout


def _record(name, fields):
    return type(name, (_Options,), {"_fields": fields, "__module__": __name__})


# every record also has asyncOp and timeout
AllreduceOptions = _record("AllreduceOptions", {"reduceOp": ReduceOp.SUM})
AllreduceCoalescedOptions = _record("AllreduceCoalescedOptions", {"reduceOp": ReduceOp.SUM})
BroadcastOptions = _record("BroadcastOptions", {"rootRank": 0, "rootTensor": 0})
ReduceOptions = _record("ReduceOptions",
                        {"reduceOp": ReduceOp.SUM, "rootRank": 0, "rootTensor": 0})
GatherOptions = _record("GatherOptions", {"rootRank": 0})
ScatterOptions = _record("ScatterOptions", {"rootRank": 0})
ReduceScatterOptions = _record("ReduceScatterOptions", {"reduceOp": ReduceOp.SUM})
BarrierOptions = _record("BarrierOptions", {"device": None, "device_ids": list})
AllToAllOptions = _record("AllToAllOptions", {})


_KNOWN_DEVICES = {"gloo": ("cpu", "cuda"), "nccl": ("cuda",), "mpi": ("cpu", "cuda"),
                  "ucc": ("cpu", "cuda"), "xccl": ("xpu",), "undefined": ("cpu",)}


class BackendConfig:
    """Which backend serves each device type, from "gloo" or "cpu:gloo,cuda:nccl"."""

    def __init__(self, backend):
        backend = str(backend)
        self.device_backend_map = {}
        if ":" not in backend:
            name = Backend(backend)
            if name == Backend.UNDEFINED:
                # torch's default: each device's own default backend
                self.device_backend_map = {"cpu": Backend.GLOO}
            elif name in _KNOWN_DEVICES:
                self.device_backend_map = {d: name for d in _KNOWN_DEVICES[name]}
            else:
                warnings.warn(f"Device capability of {backend} unknown, assuming `cpu` and "
                              "`cuda`. You can specify it in `device:backend` format in "
                              "`init_process_group` call.", stacklevel=2)
                self.device_backend_map = {d: name for d in ("cpu", "cuda", "xpu")}
            return
        for pair in backend.lower().split(","):
            if ":" not in pair:
                raise ValueError(self._bad(backend, pair))
            device, name = (s.strip() for s in pair.split(":", 1))
            if device in self.device_backend_map:
                raise ValueError(f"Duplicate device type {device} in backend string: {name}. "
                                 + self._bad(backend, pair))
            self.device_backend_map[device] = Backend(name)

    @staticmethod
    def _bad(backend, pair):
        return (f"The custom backend string argument is invalid: {backend}. Custom backend "
                "string is an experimental feature where the backend string must be in the "
                "format: \"<device_type1>:<backend1>,<device_type2>:<backend2>...\". e.g. "
                "'cpu:gloo,cuda:nccl'")

    def __repr__(self):
        return ",".join(f"{d}:{b}" for d, b in self.device_backend_map.items())

    def get_device_backend_map(self):
        return self.device_backend_map
