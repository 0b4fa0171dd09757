"""Tensor collectives: all_reduce, broadcast, reduce, all_gather, gather, scatter, ...

Each one validates its arguments as torch does, starts MPI's non-blocking collective on the
tensors' own arrays (through the buffer protocol: no pickling, no copy for contiguous
tensors of MPI-native dtypes) next to a fingerprint check, and returns a :class:`Work`
(``async_op=True``) or waits for it.
"""

import warnings

import numpy as np

from .._tensor import Tensor
from . import _mpi
from ._mpi import Staged, flat
from ._work import Fingerprint, Work, WorkList
from .distributed_c10d import GroupMember, ReduceOp, op_name, resolve_group

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
           "all_gather_single", "reduce_scatter_single",
           "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "barrier",
           "all_reduce_coalesced", "all_gather_coalesced"]

_INDENT = "\n             "


def check_tensor(t, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor{_INDENT}but got {type(t)} instead.")


def check_tensor_list(ts, name):
    if not isinstance(ts, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]{_INDENT}but got {type(ts)} instead.")
    if not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]{_INDENT}but got {type(ts)} with elements of type "
                        f"{[type(t) for t in ts]}.")


def _sizes(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _pg_name(g):
    return {"mpi": "MPI", "nccl": "NCCL"}.get(g._backend, "Gloo")


def root_rank(g, fn, global_rank, group_rank, default=None, kind="root"):
    """The group rank of a collective's root from ``src``/``dst`` or ``group_src``/...."""
    if global_rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if global_rank is None and group_rank is None:
        if default is None:
            raise ValueError("Must specify global_rank or group_rank")
        global_rank = default
    if group_rank is not None:
        r = int(group_rank)
        if not 0 <= r < g.size():
            raise ValueError(f"Group rank {r} is not part of group {g}")
        return r
    r = int(global_rank)
    if r in g._ranks:
        return g._ranks.index(r)
    from .distributed_c10d import _default_pg

    if g is _default_pg:
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::{fn}: invalid {kind} rank: {r}")
    raise ValueError(f"Global rank {r} is not part of group {g}")


def _deferred_root(g, fn, global_rank, group_rank):
    """``(root, error)``: a root outside the default group is refused by torch's backend, after
    the argument-list checks; the error is returned here to be raised at that point."""
    try:
        return root_rank(g, fn, global_rank, group_rank, default=g._ranks[0]), None
    except RuntimeError as e:
        return None, e


def finish(work, async_op):
    """Return ``work`` for async calls; otherwise wait for it (and return None)."""
    if async_op:
        return work
    work.wait()
    return None


def _avg_divide(buf, n):
    if n > 1:
        np.divide(buf, n, out=buf, casting="unsafe")


# -- reductions --------------------------------------------------------------------------

def all_reduce(tensor, op=None, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks of the group, in place on every rank.

    Args:
        tensor (Tensor): the input and output.
        op (ReduceOp): SUM (default), AVG, PRODUCT, MIN, MAX, BAND, BOR or BXOR.
        group (ProcessGroup, optional): default: the world.
        async_op (bool): return a :class:`Work` instead of waiting.

    Example:
        >>> t = torch.tensor([1.0, 2.0]) * (dist.get_rank() + 1)   # doctest: +SKIP
        >>> dist.all_reduce(t)                                     # two ranks: t = [3., 6.]
    """
    check_tensor(tensor, "tensor")
    g = resolve_group(group, "all_reduce")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    name = op_name(_default_op(op), "all_reduce")
    arr = tensor._array
    _mpi.check_reduce("all_reduce", arr.dtype, name)
    wire, mop = _mpi.reduce_plan(arr.dtype, name)
    st = Staged(arr, wire)
    seq = g._next()
    check = Fingerprint(g, "all_reduce", seq, arr, detail=_OP_CODES[name])
    req = g._comm.Iallreduce(g._world.MPI.IN_PLACE, flat(st.buf), mop)

    def done():
        if name == "AVG":
            _avg_divide(st.buf, g.size())
        st.write_back()

    return finish(Work(g, g._what("all_reduce", seq), [req], g._ranks, check, done, [tensor],
                       "op"), async_op)


_OP_CODES = {"SUM": 0, "AVG": 1, "PRODUCT": 2, "MIN": 3, "MAX": 4, "BAND": 5, "BOR": 6,
             "BXOR": 7}


def _default_op(op):
    return ReduceOp.SUM if op is None else op


def reduce(tensor, dst=None, op=None, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over the group into rank ``dst``'s tensor (others keep theirs).

    Args:
        tensor (Tensor): input on every rank, output on ``dst``.
        dst (int): the global rank receiving the result (or ``group_dst``).
        op (ReduceOp): the reduction (default SUM).
    """
    check_tensor(tensor, "tensor")
    g = resolve_group(group, "reduce")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    root = root_rank(g, "reduce", dst, group_dst)
    name = op_name(_default_op(op), "reduce")
    arr = tensor._array
    _mpi.check_reduce("reduce", arr.dtype, name)
    wire, mop = _mpi.reduce_plan(arr.dtype, name)
    st = Staged(arr, wire)
    seq = g._next()
    check = Fingerprint(g, "reduce", seq, arr, detail=root * 8 + _OP_CODES[name])
    MPI = g._world.MPI
    me = g.rank() == root
    if me:
        req = g._comm.Ireduce(MPI.IN_PLACE, flat(st.buf), mop, root)
    else:
        req = g._comm.Ireduce(flat(st.buf), None, mop, root)

    def done():
        if me:
            if name == "AVG":
                _avg_divide(st.buf, g.size())
            st.write_back()

    return finish(Work(g, g._what("reduce", seq), [req], g._ranks, check, done, [tensor],
                       "dst,op"), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every other rank of the group.

    Args:
        tensor (Tensor): the data on ``src``; overwritten elsewhere.
        src (int): the global rank of the source (or ``group_src`` within the group).
    """
    check_tensor(tensor, "tensor")
    g = resolve_group(group, "broadcast")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    root = root_rank(g, "broadcast", src, group_src)
    arr = tensor._array
    me = g.rank() == root
    st = Staged(arr, _mpi.wire_dtype(arr.dtype), fill=me)
    seq = g._next()
    check = Fingerprint(g, "broadcast", seq, arr, detail=root)
    req = g._comm.Ibcast(flat(st.buf), root)
    return finish(Work(g, g._what("broadcast", seq), [req], g._ranks, check,
                       None if me else st.write_back, [tensor], "src"), async_op)


# -- gathers and scatters ----------------------------------------------------------------

def _same_dtype(*groups):
    """torch's check that every tensor of ``groups`` (lists of tensors, in the order torch
    chains its arguments) has the first one's dtype; the message names that dtype and the
    first that differs."""
    first = None
    for ts in groups:
        for t in ts:
            if first is None:
                first = t.dtype
            elif t.dtype != first:
                # (torch shows complex64 as float32 and lets the two mix; its complex128
                # stays itself)
                shown = "torch.float32" if first.name == "complex64" else str(first)
                if shown == str(t.dtype):
                    raise ValueError(f"numtorch.distributed does not mix complex and real "
                                     f"tensors in one collective: found {first} and "
                                     f"{t.dtype}")
                raise ValueError(f"Invalid usage of tensors with different dtypesFound "
                                 f"{shown} and  {t.dtype}")


def _check_list(g, fn, ts, ref_shape, noun):
    n = g.size()
    if len(ts) != n:
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::{fn}: Incorrect {noun} list size "
                           f"{len(ts)}. {noun.capitalize()} list size should be {n}, same as "
                           "size of the process group.")
    for i, t in enumerate(ts):
        if tuple(t.shape) != tuple(ref_shape):
            raise RuntimeError(f"ProcessGroup{_pg_name(g)}::{fn}: invalid tensor size at "
                               f"index {i} (expected {_sizes(ref_shape)}, got "
                               f"{_sizes(t.shape)})")


def _stacked(ts, wire):
    """One contiguous (n, ...) array holding the arrays of ``ts`` (the MPI send buffer)."""
    return np.stack([_mpi.Staged(t._array, wire).buf for t in ts])


def _scatter_rows(rows, ts):
    for row, t in zip(rows, ts):
        _mpi.write_into(t._array, row)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather every rank's ``tensor`` into ``tensor_list`` (one entry per rank) everywhere.

    Args:
        tensor_list (list[Tensor]): ``world_size`` outputs shaped like ``tensor``.
        tensor (Tensor): this rank's contribution.
    """
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    g = resolve_group(group, "all_gather")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    _same_dtype(tensor_list, [tensor])
    n = g.size()
    if len(tensor_list) != n:
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::allgather: invalid output tensor list "
                           f"at index 0 (expected length {n}, got {len(tensor_list)})")
    for i, t in enumerate(tensor_list):
        if tuple(t.shape) != tuple(tensor.shape):
            raise RuntimeError(f"ProcessGroup{_pg_name(g)}::allgather: invalid tensor size at "
                               f"index {i} (expected {_sizes(tensor.shape)}, got "
                               f"{_sizes(t.shape)})")
    arr = tensor._array
    wire = _mpi.wire_dtype(arr.dtype)
    send = Staged(arr, wire).buf
    recv = np.empty((n,) + send.shape, send.dtype)
    seq = g._next()
    check = Fingerprint(g, "all_gather", seq, arr)
    req = g._comm.Iallgather(flat(send), recv.reshape(n, -1))
    return finish(Work(g, g._what("all_gather", seq), [req], g._ranks, check,
                       lambda: _scatter_rows(recv, tensor_list), tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The older name of :func:`all_gather_single`, deprecated in torch 2.13 (it warns a
    ``FutureWarning``)."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning,
                  stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    """The private older name of :func:`all_gather_single` (Megatron, apex and fairscale call
    it); warns torch's ``FutureWarning``."""
    warnings.warn("`torch.distributed._all_gather_base` is a private function and will be "
                  "deprecated. Please use `torch.distributed.all_gather_single` instead.",
                  FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into one tensor, concatenated (or stacked).

    Args:
        output_tensor (Tensor): shaped ``(world_size * d0, ...)`` or ``(world_size, d0, ...)``.
        input_tensor (Tensor): this rank's contribution ``(d0, ...)``.
    """
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    g = resolve_group(group, "all_gather_into_tensor")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    n = g.size()
    ishape, oshape = tuple(input_tensor.shape), tuple(output_tensor.shape)
    cat = (ishape[0] * n,) + ishape[1:] if ishape else (n,)
    if oshape not in (cat, (n,) + ishape):
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::allgather: invalid tensor size at "
                           f"index 0 (expected {_sizes(cat)}, got {_sizes(oshape)})")
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::allgather: invalid tensor type at "
                           f"index 0 (expected {input_tensor.dtype}, got {output_tensor.dtype})")
    arr = input_tensor._array
    wire = _mpi.wire_dtype(arr.dtype)
    send = Staged(arr, wire).buf
    out = Staged(output_tensor._array, wire, fill=False)
    seq = g._next()
    check = Fingerprint(g, "all_gather_into_tensor", seq, arr)
    req = g._comm.Iallgather(flat(send), flat(out.buf))
    return finish(Work(g, g._what("all_gather_into_tensor", seq), [req], g._ranks, check,
                       out.write_back, [output_tensor]), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Collect every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (default 0).

    Args:
        tensor (Tensor): this rank's contribution.
        gather_list (list[Tensor]): on ``dst`` only: ``world_size`` outputs.
        dst (int): the receiving global rank (or ``group_dst``).
    """
    check_tensor(tensor, "tensor")
    if gather_list is not None:
        check_tensor_list(gather_list, "gather_list")
    g = resolve_group(group, "gather")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    root, bad_root = _deferred_root(g, "gather", dst, group_dst)
    me = g.rank() == root
    if me:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _same_dtype([tensor], gather_list)
        _check_list(g, "gather", gather_list, tensor.shape, "output")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    if bad_root is not None:
        raise bad_root
    arr = tensor._array
    wire = _mpi.wire_dtype(arr.dtype)
    send = Staged(arr, wire).buf
    n = g.size()
    recv = np.empty((n,) + send.shape, send.dtype) if me else None
    seq = g._next()
    check = Fingerprint(g, "gather", seq, arr, detail=root)
    req = g._comm.Igather(flat(send), recv.reshape(n, -1) if me else None, root)
    done = (lambda: _scatter_rows(recv, gather_list)) if me else None
    return finish(Work(g, g._what("gather", seq), [req], g._ranks, check, done,
                       gather_list or [], "dst"), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Send ``scatter_list[i]`` from rank ``src`` (default 0) into ``tensor`` on rank i.

    Args:
        tensor (Tensor): the output on every rank.
        scatter_list (list[Tensor]): on ``src`` only: ``world_size`` inputs.
        src (int): the sending global rank (or ``group_src``).
    """
    check_tensor(tensor, "tensor")
    if scatter_list is not None:
        check_tensor_list(scatter_list, "scatter_list")
    g = resolve_group(group, "scatter")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    root, bad_root = _deferred_root(g, "scatter", src, group_src)
    me = g.rank() == root
    if me:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _same_dtype([tensor], scatter_list)
        _check_list(g, "scatter", scatter_list, tensor.shape, "input")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    if bad_root is not None:
        raise bad_root
    arr = tensor._array
    wire = _mpi.wire_dtype(arr.dtype)
    out = Staged(arr, wire, fill=False)
    n = g.size()
    send = _stacked(scatter_list, wire) if me else None
    seq = g._next()
    check = Fingerprint(g, "scatter", seq, arr, detail=root)
    req = g._comm.Iscatter(send.reshape(n, -1) if me else None, flat(out.buf), root)
    return finish(Work(g, g._what("scatter", seq), [req], g._ranks, check, out.write_back,
                       [tensor], "src"), async_op)


def reduce_scatter(output, input_list, op=None, group=None, async_op=False):
    """Reduce ``input_list[i]`` over all ranks into ``output`` on rank i.

    Args:
        output (Tensor): this rank's share of the result.
        input_list (list[Tensor]): ``world_size`` tensors shaped like ``output``.
        op (ReduceOp): the reduction (default SUM).
    """
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    g = resolve_group(group, "reduce_scatter")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    _same_dtype([output], input_list)
    if len(input_list) != g.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    for t in input_list:
        if tuple(t.shape) != tuple(output.shape):
            raise RuntimeError(f"ProcessGroup{_pg_name(g)}::reduce_scatter: invalid tensor "
                               f"size (expected {_sizes(output.shape)}, got {_sizes(t.shape)})")
    name = op_name(_default_op(op), "reduce_scatter")
    arr = output._array
    _mpi.check_reduce("reduce_scatter", arr.dtype, name)
    wire, mop = _mpi.reduce_plan(arr.dtype, name)
    send = _stacked(input_list, wire or (np.dtype(np.uint8) if arr.dtype.kind == "b" else None))
    return _reduce_scatter(g, "reduce_scatter", send, output, name, wire, mop, async_op)


def _reduce_scatter(g, fn, send, output, name, wire, mop, async_op):
    out = Staged(output._array, wire, fill=False)
    if out.buf.dtype != send.dtype:  # bool travels as uint8 on both sides
        send = send.view(out.buf.dtype) if send.itemsize == out.buf.itemsize \
            else send.astype(out.buf.dtype)
    seq = g._next()
    check = Fingerprint(g, fn, seq, output._array, detail=_OP_CODES[name])
    req = g._comm.Ireduce_scatter_block(send.reshape(g.size(), -1), flat(out.buf), mop)

    def done():
        if name == "AVG":
            _avg_divide(out.buf, g.size())
        out.write_back()

    return finish(Work(g, g._what(fn, seq), [req], g._ranks, check, done, [output], "op"),
                  async_op)


def reduce_scatter_tensor(output, input, op=None, group=None, async_op=False):
    """The older name of :func:`reduce_scatter_single`, deprecated in torch 2.13 (it warns a
    ``FutureWarning``)."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning,
                  stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def _reduce_scatter_base(output, input, op=None, group=None, async_op=False):
    """The private older name of :func:`reduce_scatter_single`; warns torch's
    ``FutureWarning``."""
    warnings.warn("`torch.distributed._reduce_scatter_base` is a private function and will be "
                  "deprecated. Please use `torch.distributed.reduce_scatter_single` instead.",
                  FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def reduce_scatter_single(output, input, op=None, group=None, async_op=False):
    """Reduce ``input`` over all ranks and give rank i the i-th block of the result.

    Args:
        output (Tensor): shaped ``(d0, ...)``.
        input (Tensor): shaped ``(world_size * d0, ...)`` or ``(world_size, d0, ...)``.
        op (ReduceOp): the reduction (default SUM).
    """
    check_tensor(output, "output")
    check_tensor(input, "input")
    g = resolve_group(group, "reduce_scatter_tensor")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    n = g.size()
    oshape, ishape = tuple(output.shape), tuple(input.shape)
    cat = (oshape[0] * n,) + oshape[1:] if oshape else (n,)
    if ishape not in (cat, (n,) + oshape):
        raise RuntimeError(f"ProcessGroup{_pg_name(g)}::reduce_scatter_tensor: input size "
                           f"must be world size times the output size (expected "
                           f"{_sizes(cat)}, got {_sizes(ishape)})")
    _same_dtype([input], [output])
    name = op_name(_default_op(op), "reduce_scatter_tensor")
    arr = output._array
    _mpi.check_reduce("reduce_scatter_tensor", arr.dtype, name)
    wire, mop = _mpi.reduce_plan(arr.dtype, name)
    send = Staged(input._array, wire).buf
    return _reduce_scatter(g, "reduce_scatter_tensor", send, output, name, wire, mop, async_op)


# -- barrier and coalesced helpers -------------------------------------------------------

def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every rank of the group reached this call.

    Args:
        group (ProcessGroup, optional): default: the world.
        async_op (bool): return a :class:`Work` instead of waiting.
        timeout (timedelta, optional): overrides the group's timeout for this call.
    """
    g = resolve_group(group, "barrier")
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    seq = g._next()
    check = Fingerprint(g, "barrier", seq)
    work = Work(g, g._what("barrier", seq), [], g._ranks, check)
    if async_op:
        return work
    work.wait(timeout)
    return None


def all_reduce_coalesced(tensors, op=None, group=None, async_op=False):
    """All-reduce several tensors (same dtype) as one flat message."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    check_tensor_list(tensors, "tensors")
    g = resolve_group(group, "all_reduce_coalesced")
    if g is GroupMember.NON_GROUP_MEMBER or not tensors:
        return None
    _same_dtype(tensors)
    from .. import ops

    flat_t = ops.cat([t.reshape(-1) for t in tensors])
    work = all_reduce(flat_t, op, group, async_op=True)
    inner = work._finish

    def done():
        if inner is not None:
            inner()
        off = 0
        for t in tensors:
            k = t._array.size
            t._array[...] = flat_t._array[off:off + k].reshape(t._array.shape)
            off += k

    work._finish = done
    return finish(work, async_op)


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """``all_gather`` for each input tensor (``output_tensor_lists[i][rank]``)."""
    works = [all_gather([outs[i] for outs in output_tensor_lists], t, group, async_op=True)
             for i, t in enumerate(input_tensor_list)]
    return finish(WorkList(works), async_op)
