"""Point-to-point: send, recv, isend, irecv, batch_isend_irecv; and monitored_barrier.

A receive first probes for the matching message (MPI's matched probe), so a message of the
wrong size is reported with both sizes instead of truncating or half-filling the tensor.
"""

import time

import numpy as np

from . import _mpi
from ._collectives import check_tensor
from ._mpi import Staged, flat
from ._work import Work
from .distributed_c10d import GroupMember, resolve_group

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv", "monitored_barrier"]

_BARRIER_TAG = 32000


def _peer(g, global_rank, group_rank, kind, allow_any=False):
    """The group rank of a send/recv peer, with torch's checks."""
    if global_rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if global_rank is None and group_rank is None:
        if allow_any:
            return None
        raise ValueError("Must specify global_rank or group_rank")
    if group_rank is not None:
        r = int(group_rank)
        if not 0 <= r < g.size():
            raise ValueError(f"Group rank {r} is not part of group {g}")
    else:
        if int(global_rank) not in g._ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {g}")
        r = g._ranks.index(int(global_rank))
    if r == g.rank():
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank "
                         "of the current process.")
    return r


def _start_send(tensor, dst, group, tag, group_dst, fn):
    check_tensor(tensor, "tensor")
    g = resolve_group(group, fn)
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    peer = _peer(g, dst, group_dst, "destination")
    if g._broken is not None:
        raise g._broken
    st = Staged(tensor._array, _mpi.wire_dtype(tensor._array.dtype))
    req = g._comm.Isend(flat(st.buf), dest=peer, tag=tag)
    what = f"{fn} to rank {g._ranks[peer]} (tag {tag})"
    return Work(g, what, [req], [g._ranks[peer]], keep=st.buf)


class _ProbedRecv:
    """``Test()`` = probe for the message, check its size, then receive it."""

    def __init__(self, g, staged, source, tag, work_ref):
        self.g, self.st, self.source, self.tag = g, staged, source, tag
        self.req = None
        self.work_ref = work_ref
        self.status = g._world.MPI.Status()

    def Test(self):
        if self.req is None:
            msg = self.g._comm.Improbe(self.source, self.tag, self.status)
            if msg is None:
                return False
            buf = self.st.buf
            got = self.status.Get_count(self.g._world.MPI.BYTE)
            src = self.status.Get_source()
            if got != buf.nbytes:
                msg.Recv(bytearray(got))  # drain it, it is matched to us already
                st = self.st.array
                raise RuntimeError(
                    f"recv: the message from rank {self.g._ranks[src]} (tag {self.tag}) has "
                    f"{got} bytes, but the receiving tensor of shape {list(st.shape)} and "
                    f"dtype {st.dtype} holds {buf.nbytes}; send and recv must use tensors of "
                    "the same size and dtype")
            self.work_ref._source = self.g._ranks[src]
            self.req = msg.Irecv(flat(buf))
        return self.req.Test()


def _start_recv(tensor, src, group, tag, group_src, fn):
    check_tensor(tensor, "tensor")
    g = resolve_group(group, fn)
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    peer = _peer(g, src, group_src, "source", allow_any=True)
    if g._broken is not None:
        raise g._broken
    MPI = g._world.MPI
    st = Staged(tensor._array, _mpi.wire_dtype(tensor._array.dtype), fill=False)
    peers = g._ranks if peer is None else [g._ranks[peer]]
    what = f"{fn} from {'any rank' if peer is None else f'rank {g._ranks[peer]}'} (tag {tag})"
    work = Work(g, what, [], [r for r in peers if r != g._world.rank], finish=st.write_back,
                outputs=[tensor])
    work._pending.append(_ProbedRecv(g, st, MPI.ANY_SOURCE if peer is None else peer, tag,
                                     work))
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst``; returns when the tensor may be reused.

    Args:
        tensor (Tensor): the data.
        dst (int): the global rank of the receiver (or ``group_dst`` within ``group``).
        tag (int): matches a ``recv`` with the same tag.
    """
    work = _start_send(tensor, dst, group, tag, group_dst, "send")
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None).

    Returns:
        int: the global rank of the sender (-1 outside ``group``).
    """
    work = _start_recv(tensor, src, group, tag, group_src, "recv")
    if work is None:
        return -1
    work.wait()
    return work._source


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to ``dst``; returns a :class:`Work` (don't modify the tensor
    before ``wait()``)."""
    return _start_send(tensor, dst, group, tag, group_dst, "isend")


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from ``src``; returns a :class:`Work`."""
    return _start_recv(tensor, src, group, tag, group_src, "irecv")


class P2POp:
    """One send or receive for :func:`batch_isend_irecv`.

    Args:
        op: ``dist.isend`` or ``dist.irecv``.
        tensor (Tensor): the data or the receive buffer.
        peer (int): the other side's global rank (or ``group_peer``).
        group (ProcessGroup, optional), tag (int).
    """

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        check_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer

    def __repr__(self):
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of ``p2p_op_list``; returns their :class:`Work` list."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp)
                                                    for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    if not p2p_op_list:
        raise IndexError("list index out of range")
    group = p2p_op_list[0].group
    if any(p.group is not group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not arrive within ``timeout``.

    Rank 0 of the group waits for a message from every other rank; the others then wait
    for rank 0's release. On timeout rank 0 raises naming the first missing rank (or all of
    them with ``wait_all_ranks=True``).

    Args:
        group (ProcessGroup, optional): default: the world.
        timeout (timedelta, optional): default: the group's timeout.
        wait_all_ranks (bool): collect every missing rank before raising.
    """
    g = resolve_group(group, "monitored_barrier")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    if g._broken is not None:
        raise g._broken
    secs = g._timeout_s if timeout is None else timeout.total_seconds()
    w = g._world
    comm = g._check_comm
    token = np.zeros(1, np.uint8)
    deadline = time.monotonic() + secs
    what = g._what("monitored_barrier", g._seq)
    if g.rank() != 0:
        sreq = comm.Isend(token, dest=0, tag=_BARRIER_TAG)
        rreq = comm.Irecv(np.zeros(1, np.uint8), source=0, tag=_BARRIER_TAG + 1)
        w.wait([sreq, rreq], what, [g._ranks[0]], deadline)
        return None
    others = range(1, g.size())
    pending = {r: comm.Irecv(np.zeros(1, np.uint8), source=r, tag=_BARRIER_TAG)
               for r in others}
    while pending and time.monotonic() < deadline:
        for r in [r for r, q in pending.items() if q.Test()]:
            del pending[r]
        if pending:
            w.poll(what, [g._ranks[r] for r in pending])
            time.sleep(0.0005)
    missing = [g._ranks[r] for r in sorted(pending)]
    if not wait_all_ranks:
        missing = missing[:1]
    if missing:
        g._broken = RuntimeError(
            f"[Rank {w.rank}]: Rank{'s' if len(missing) > 1 else ''} "
            f"{', '.join(str(r) for r in missing)} failed to pass monitoredBarrier in "
            f"{int(secs * 1000)} ms")
        raise g._broken
    rel = [comm.Isend(token, dest=r, tag=_BARRIER_TAG + 1) for r in others]
    w.wait(rel, what, [g._ranks[r] for r in others], deadline)
    return None

