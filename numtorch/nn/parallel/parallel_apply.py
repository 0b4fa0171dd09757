"""Run several module replicas at once, one thread each (``parallel_apply``)."""

import threading

from ...autograd.grad_mode import set_grad_enabled, is_grad_enabled
from ..._tensor import Tensor
from .scatter_gather import as_device

__all__ = ["parallel_apply"]


def _first_device(obj):
    if isinstance(obj, Tensor):
        return obj.device
    if isinstance(obj, (list, tuple)):
        for x in obj:
            d = _first_device(x)
            if d is not None:
                return d
    if isinstance(obj, dict):
        return _first_device(list(obj.values()))
    return None


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """Call ``modules[i](*inputs[i], **kwargs_tup[i])`` in parallel threads.

    Args:
        modules (list[Module]): the replicas.
        inputs (list): one argument tuple (or single argument) per replica.
        kwargs_tup (list[dict], optional): keyword arguments per replica.
        devices (list, optional): the device of each replica (default: its input's).

    Returns:
        list: the outputs, in order. An exception in a replica is raised here, naming it.
    """
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the "
                             f"number of inputs {len(inputs)}")
    kwargs_tup = kwargs_tup if kwargs_tup is not None else ({},) * len(modules)
    if devices is None:
        devices = [_first_device(x) for x in inputs]
    devices = [None if d is None else as_device(d) for d in devices]
    results = [None] * len(modules)
    grad_on = is_grad_enabled()

    def work(i):
        args = inputs[i] if isinstance(inputs[i], (list, tuple)) else (inputs[i],)
        try:
            with set_grad_enabled(grad_on), _device_ctx(devices[i]):
                results[i] = ("ok", modules[i](*args, **kwargs_tup[i]))
        except BaseException as e:
            results[i] = ("err", e)

    if len(modules) == 1:
        work(0)
    else:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(modules))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    out = []
    for i, (kind, value) in enumerate(results):
        if kind == "err":
            msg = f"Caught {type(value).__name__} in replica {i} on device {devices[i]}.\n{value}"
            try:
                wrapped = type(value)(msg)
            except Exception:  # an exception class with its own constructor arguments
                raise value
            raise wrapped from value
        out.append(value)
    return out


class _NullCtx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _device_ctx(dev):
    if dev is not None and dev.type == "cuda":
        from ... import cuda

        return cuda.device(dev.index or 0)
    return _NullCtx()
