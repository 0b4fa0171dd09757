"""``ReduceOp`` and ``Backend``: the names collectives and process groups are given.

Both are re-exported from ``numtorch.distributed`` and ``distributed_c10d``, as in torch.
"""

import enum

__all__ = ["RedOpType", "ReduceOp", "reduce_op", "op_name", "Backend", "_make_nccl_premul_sum"]


class RedOpType(enum.IntEnum):
    """The reduction of a collective (``ReduceOp.SUM`` and friends)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self):
        return f"RedOpType.{self.name}"

    __format__ = object.__format__


class ReduceOp:
    """How ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks' values.

    ``SUM``, ``AVG`` (floating point only), ``PRODUCT``, ``MIN``, ``MAX`` and the bitwise
    ``BAND``, ``BOR``, ``BXOR`` (integers and bool only).
    """

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM

    def __init__(self, op):
        if isinstance(op, ReduceOp):
            op = op.op
        if not isinstance(op, RedOpType):
            raise TypeError(f"ReduceOp(): expected a ReduceOp.RedOpType, got "
                            f"{type(op).__name__}")
        self.op = op

    def __eq__(self, other):
        if isinstance(other, ReduceOp):
            return self.op == other.op
        return self.op == other

    def __hash__(self):
        return hash(self.op)

    def __repr__(self):
        return f"ReduceOp({self.op!r})"


reduce_op = ReduceOp  # the deprecated old name


def _make_nccl_premul_sum(factor):
    """A ``PREMUL_SUM`` reduction that scales each rank's input by ``factor`` (a number or a
    tensor) before summing; as in torch, only the NCCL backend serves it, and the gloo-like
    backends refuse it when a collective is called."""
    op = ReduceOp(RedOpType.PREMUL_SUM)
    op.factor = factor
    return op


def op_name(op, fn_name):
    """The member name of a reduction argument ("SUM", ...), or torch's TypeError."""
    if isinstance(op, ReduceOp):
        op = op.op
    if not isinstance(op, RedOpType):
        raise TypeError(f"{fn_name}(): incompatible function arguments: op must be a "
                        f"torch.distributed.ReduceOp, but got {op!r}")
    return op.name


class Backend(str):
    """A backend name ("gloo", "nccl", "mpi", ...); every one of them runs on MPI here."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    XCCL = "xccl"
    UCC = "ucc"
    MPI = "mpi"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        known = getattr(Backend, name.upper(), None)
        return known if isinstance(known, str) and name.upper() != "BACKEND_LIST" \
            else name.lower()
