"""All-to-all collectives (``all_to_all``, ``all_to_all_single``) with per-pair size checks.

Instead of a fingerprint, every rank's send and receive counts are gathered to every rank
next to the data exchange, so a pair of ranks that disagree on a block's size is named on
all of them.
"""

import numpy as np

from ._collectives import (
    _pg_name, _same_dtype, _scatter_rows, check_tensor, check_tensor_list, finish,
)
from ._mpi import Staged, flat
from . import _mpi
from ._work import Work, _dtype_name
from .distributed_c10d import GroupMember, resolve_group

__all__ = ["all_to_all", "all_to_all_single"]


class _CountCheck:
    """The all-to-all variant of a fingerprint: every rank's send and receive counts.

    Gathered to every rank, so all of them find the same disagreement (if any) and raise
    the same error.
    """

    def __init__(self, g, fn, seq, dtype, send_counts, recv_counts):
        head = [seq, _dtype_code_of(dtype)]
        self.local = np.array(head + list(send_counts) + list(recv_counts), np.int64)
        self.every = np.empty((g.size(), self.local.size), np.int64)
        self.g, self.fn = g, fn
        self.req = g._check_comm.Iallgather(self.local, self.every)

    def verify(self, what, detail_name):
        g, n, e = self.g, self.g.size(), self.every
        problems = []
        if len(set(e[:, 0])) > 1 or len(set(e[:, 1])) > 1:
            problems.append("the ranks are at different collectives or pass different "
                            "dtypes: " + ", ".join(f"rank {g._ranks[i]}: #{e[i, 0]} "
                                                   f"{_dtype_name(e[i, 1])}" for i in range(n)))
        else:
            for s in range(n):
                for r in range(n):
                    sent, expected = e[s, 2 + r], e[r, 2 + n + s]
                    if sent != expected:
                        problems.append(f"rank {g._ranks[s]} sends {sent} elements to rank "
                                        f"{g._ranks[r]}, which expects {expected}")
        if problems:
            g._broken = RuntimeError(f"{what}: the ranks disagree: " + "; ".join(problems))
            raise g._broken


def _dtype_code_of(dtype):
    return int(np.frombuffer(dtype.str.encode().ljust(8, b" ")[:8], np.int64)[0])


def _alltoallv(g, fn, send, send_counts, recv, recv_counts, done, outputs, async_op):
    seq = g._next()
    check = _CountCheck(g, fn, seq, send.dtype, send_counts, recv_counts)
    sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).astype(int).tolist()
    rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]).astype(int).tolist()
    req = g._comm.Ialltoallv([flat(send), (list(send_counts), sdispl)],
                             [flat(recv), (list(recv_counts), rdispl)])
    return finish(Work(g, g._what(fn, seq), [req], g._ranks, check, done, outputs), async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Send ``input_tensor_list[i]`` to rank i, receiving rank j's into ``output[j]``.

    Args:
        output_tensor_list (list[Tensor]): ``world_size`` outputs.
        input_tensor_list (list[Tensor]): ``world_size`` inputs (sizes may differ per rank
            pair; each must match what the receiver expects).
    """
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    g = resolve_group(group, "all_to_all")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    n = g.size()
    for noun, ts in (("output", output_tensor_list), ("input", input_tensor_list)):
        if len(ts) != n:
            raise RuntimeError(f"ProcessGroup{_pg_name(g)}::alltoall: {noun} tensor list size "
                               f"{len(ts)} does not match world size {n}")
    ref = input_tensor_list[0] if input_tensor_list else output_tensor_list[0]
    _same_dtype(output_tensor_list, input_tensor_list)
    wire = _mpi.wire_dtype(ref._array.dtype)
    send_parts = [Staged(t._array, wire).buf.reshape(-1) for t in input_tensor_list]
    send = np.concatenate(send_parts) if send_parts else np.empty(0)
    recv_counts = [t._array.size for t in output_tensor_list]
    recv = np.empty(sum(recv_counts), send.dtype)

    def done():
        off = 0
        for t, c in zip(output_tensor_list, recv_counts):
            _scatter_rows([recv[off:off + c]], [t])
            off += c

    return _alltoallv(g, "all_to_all", send, [p.size for p in send_parts], recv, recv_counts,
                      done, output_tensor_list, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """All-to-all on single tensors split along dim 0 (equal splits unless given).

    Args:
        output (Tensor): receives rank j's block at block position j.
        input (Tensor): block i goes to rank i.
        output_split_sizes, input_split_sizes (list[int], optional): rows per rank.
    """
    check_tensor(output, "output")
    check_tensor(input, "input")
    g = resolve_group(group, "all_to_all_single")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    n = g.size()
    _same_dtype([output], [input])

    def counts(t, splits, noun):
        rows = t.shape[0] if t.dim() else 1
        per_row = t._array.size // rows if rows else 0
        if splits is None or len(splits) == 0:
            if rows % n:
                raise RuntimeError(f"all_to_all_single: {noun} dim 0 ({rows}) must be "
                                   f"divisible by the world size ({n})")
            return [rows // n * per_row] * n
        splits = [int(s) for s in splits]
        if len(splits) != n:  # torch's words (its split-size check)
            raise RuntimeError("Number of tensor splits not equal to group size")
        if sum(splits) != rows:
            raise RuntimeError("Split sizes doesn't match total dim 0 size")
        return [s * per_row for s in splits]

    send_counts = counts(input, input_split_sizes, "input")
    recv_counts = counts(output, output_split_sizes, "output")
    wire = _mpi.wire_dtype(input._array.dtype)
    send = Staged(input._array, wire).buf
    out = Staged(output._array, wire, fill=False)
    return _alltoallv(g, "all_to_all_single", send, send_counts, out.buf, recv_counts,
                      out.write_back, [output], async_op)
