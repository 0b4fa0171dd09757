"""``cuda.comm``: copy tensors between devices (broadcast, scatter, gather, reduce_add)."""

__all__ = ["broadcast", "broadcast_coalesced", "scatter", "gather", "reduce_add"]


def _dev(d):
    from .._device import device

    if isinstance(d, int):
        return device("cuda", d)
    return device(d)


def broadcast(tensor, devices=None, *, out=None):
    """Copy ``tensor`` to each device in ``devices``; returns a tuple of copies."""
    if devices is None:
        if out is None:
            raise RuntimeError("broadcast: give either devices or out")
        for o in out:
            o.copy_(tensor)
        return tuple(out)
    return tuple(tensor.to(_dev(d), copy=True) for d in devices)


def broadcast_coalesced(tensors, devices, buffer_size=10485760):
    """Broadcast several tensors; returns one tuple of copies per device."""
    return tuple(tuple(t.to(_dev(d), copy=True) for t in tensors) for d in devices)


def scatter(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    """Split ``tensor`` along ``dim`` and send one piece to each device."""
    if devices is None:
        raise RuntimeError("scatter: devices must be given")
    if chunk_sizes is None:
        pieces = tensor.chunk(len(devices), dim)
    else:
        pieces = tensor.split(list(chunk_sizes), dim)
    return tuple(p.to(_dev(d), copy=True) for p, d in zip(pieces, devices))


def gather(tensors, dim=0, destination=None, *, out=None):
    """Concatenate tensors from several devices on ``destination`` (default: the first
    tensor's device; -1 means the CPU)."""
    from ..ops import cat

    if destination == -1:
        dest = _dev("cpu")
    elif destination is None:
        dest = tensors[0].device
    else:
        dest = _dev(destination)
    return cat([t.to(dest) for t in tensors], dim)


def reduce_add(inputs, destination=None):
    """Sum tensors living on several devices onto ``destination``."""
    dest = inputs[0].device if destination is None else _dev(destination)
    total = inputs[0].to(dest, copy=True)
    for t in inputs[1:]:
        total = total + t.to(dest)
    return total
