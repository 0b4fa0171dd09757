"""Collectives on picklable Python objects (``broadcast_object_list`` and friends).

Objects are pickled into byte tensors, their sizes exchanged first, then the bytes moved by
the tensor collectives. Like torch's, these unpickle whatever a peer sends: use them only
between trusted processes.
"""

import io
import pickle

import numpy as np

from . import _collectives as C
from . import _p2p
from .distributed_c10d import GroupMember, resolve_group

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object",
           "scatter_object_list", "send_object_list", "recv_object_list"]


def _t(array):
    from .. import from_numpy

    return from_numpy(np.ascontiguousarray(array))


def _to_bytes(obj):
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    return np.frombuffer(buf.getvalue(), np.uint8)


def _from_bytes(array):
    return pickle.loads(array.tobytes())


def _pack(objs):
    parts = [_to_bytes(o) for o in objs]
    sizes = np.array([p.size for p in parts], np.int64)
    data = np.concatenate(parts) if parts else np.empty(0, np.uint8)
    return sizes, data


def _unpack(sizes, data, count):
    out, off = [], 0
    for k in range(count):
        n = int(sizes[k])
        out.append(_from_bytes(data[off:off + n]))
        off += n
    return out


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s entries on every rank by those of rank ``src`` (default 0).

    Args:
        object_list (list): the objects on ``src``; a list of the same length elsewhere.
        src (int): the source's global rank (or ``group_src``).
    """
    g = resolve_group(group, "broadcast_object_list")
    if g is GroupMember.NON_GROUP_MEMBER:
        return
    root = C.root_rank(g, "broadcast", src, group_src, default=g._ranks[0])
    me = g.rank() == root
    n = len(object_list)
    if me:
        sizes, data = _pack(object_list)
    else:
        sizes, data = np.zeros(n, np.int64), None
    sizes_t = _t(sizes)
    C.broadcast(sizes_t, group=g, group_src=root)
    total = int(sizes_t._array.sum())
    data_t = _t(data if me else np.empty(total, np.uint8))
    C.broadcast(data_t, group=g, group_src=root)
    if not me:
        object_list[:] = _unpack(sizes_t._array, data_t._array, n)


def _padded_exchange(g, payload):
    """Every rank's byte string as (sizes, rows padded to the longest)."""
    n = g.size()
    size_t = _t(np.array([payload.size], np.int64))
    sizes_t = _t(np.zeros(n, np.int64))
    C.all_gather_single(sizes_t, size_t, group=g)
    width = int(sizes_t._array.max()) if n else 0
    row = np.zeros(width, np.uint8)
    row[:payload.size] = payload
    return sizes_t._array, row, width


def all_gather_object(object_list, obj, group=None):
    """Set ``object_list[i]`` to rank i's ``obj`` on every rank.

    Args:
        object_list (list): at least ``world_size`` entries, overwritten.
        obj: this rank's (picklable) object.
    """
    g = resolve_group(group, "all_gather_object")
    if g is GroupMember.NON_GROUP_MEMBER:
        return
    sizes, row, width = _padded_exchange(g, _to_bytes(obj))
    n = g.size()
    every = _t(np.zeros((n, width), np.uint8))
    C.all_gather_single(every, _t(row), group=g)
    for i in range(n):
        object_list[i] = _from_bytes(every._array[i, :sizes[i]])


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Collect every rank's ``obj`` into ``object_gather_list`` on rank ``dst`` (default 0).

    Args:
        obj: this rank's (picklable) object.
        object_gather_list (list): on ``dst``: ``world_size`` entries, overwritten;
            None elsewhere.
        dst (int): the receiving global rank (or ``group_dst``).
    """
    g = resolve_group(group, "gather_object")
    if g is GroupMember.NON_GROUP_MEMBER:
        return
    root = C.root_rank(g, "gather", dst, group_dst, default=g._ranks[0])
    me = g.rank() == root
    if me and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not me and object_gather_list is not None:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    sizes, row, width = _padded_exchange(g, _to_bytes(obj))
    n = g.size()
    outs = [_t(np.zeros(width, np.uint8)) for _ in range(n)] if me else None
    C.gather(_t(row), outs, group=g, group_dst=root)
    if me:
        for i in range(n):
            object_gather_list[i] = _from_bytes(outs[i]._array[:sizes[i]])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Give rank i the object ``scatter_object_input_list[i]`` of rank ``src`` (default 0).

    Args:
        scatter_object_output_list (list): receives this rank's object at index 0.
        scatter_object_input_list (list): on ``src``: ``world_size`` objects.
        src (int): the sending global rank (or ``group_src``).
    """
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size "
                         "at least 1.")
    g = resolve_group(group, "scatter_object_list")
    if g is GroupMember.NON_GROUP_MEMBER:
        return
    root = C.root_rank(g, "scatter", src, group_src, default=g._ranks[0])
    me = g.rank() == root
    n = g.size()
    if me:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        if len(scatter_object_input_list) != n:
            raise RuntimeError(f"ProcessGroup{C._pg_name(g)}::scatter: Incorrect input list "
                               f"size {len(scatter_object_input_list)}. Input list size should "
                               f"be {n}, same as size of the process group.")
        parts = [_to_bytes(o) for o in scatter_object_input_list]
        width = max(p.size for p in parts)
        rows = np.zeros((n, width), np.uint8)
        for i, p in enumerate(parts):
            rows[i, :p.size] = p
        meta = _t(np.array([width] + [p.size for p in parts], np.int64))
    else:
        meta = _t(np.zeros(n + 1, np.int64))
    C.broadcast(meta, group=g, group_src=root)
    width = int(meta._array[0])
    out = _t(np.zeros(width, np.uint8))
    C.scatter(out, [_t(r) for r in rows] if me else None, group=g, group_src=root)
    size = int(meta._array[1 + g.rank()])
    scatter_object_output_list[0] = _from_bytes(out._array[:size])


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch=False):
    """Send the objects of ``object_list`` to rank ``dst`` (see :func:`recv_object_list`)."""
    g = resolve_group(group, "send_object_list")
    if g is GroupMember.NON_GROUP_MEMBER:
        return
    sizes, data = _pack(object_list)
    _p2p.send(_t(sizes), dst, g, group_dst=group_dst)
    _p2p.send(_t(data), dst, g, group_dst=group_dst)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch=False):
    """Receive objects sent by :func:`send_object_list` into ``object_list`` (same length).

    Returns:
        int: the sender's global rank.
    """
    g = resolve_group(group, "recv_object_list")
    if src is None and group_src is None:  # torch names the sender; no receive-from-any
        raise ValueError("Must specify global_rank or group_rank")
    if g is GroupMember.NON_GROUP_MEMBER:
        return -1
    sizes = _t(np.zeros(len(object_list), np.int64))
    sender = _p2p.recv(sizes, src, g, group_src=group_src)
    data = _t(np.empty(int(sizes._array.sum()), np.uint8))
    _p2p.recv(data, sender, g)
    object_list[:] = _unpack(sizes._array, data._array, len(object_list))
    return sender

