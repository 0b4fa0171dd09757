"""The MPI engine under ``numtorch.distributed``: mpi4py, imported on first use.

Everything that touches mpi4py's module object goes through :func:`mpi`, so a missing
mpi4py (the optional ``distributed`` extra) shows up as one clear error instead of an
ImportError deep inside a collective. This file also decides how each dtype travels and is
reduced: most dtypes go as themselves; bool, bfloat16 and arrays on a GPU without a
CUDA-aware MPI are staged through a host array of a type MPI can reduce.
"""

import atexit
import importlib.util
import os

import numpy as np

from .. import backend
from .._device import CPU

_MPI = None

MISSING = ("numtorch.distributed runs on MPI through mpi4py, which is not installed; install "
           "the optional extra: pip install \"numtorch[distributed]\" (mpi4py and MPICH)")


def is_mpi_available():
    """True when mpi4py can be imported (checked without starting MPI)."""
    if _MPI is not None:
        return True
    try:
        return importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):
        return False


def mpi():
    """The ``mpi4py.MPI`` module, started with full thread support on first use."""
    global _MPI
    if _MPI is None:
        try:
            import mpi4py
        except ImportError as e:
            raise RuntimeError(MISSING) from e
        import sys

        ours = "mpi4py.MPI" not in sys.modules
        if ours:
            # collectives of DDP run while DataLoader or user threads may call MPI too
            mpi4py.rc.thread_level = "multiple"
            # MPI_Finalize waits for every rank: after a peer died or hung it would never
            # return, so finalisation is ours to skip then (see abandon())
            mpi4py.rc.finalize = False
        from mpi4py import MPI

        _MPI = MPI
        atexit.register(_finalize, ours)
    return _MPI


_abandoned = False


def abandon():
    """Do not finalise MPI at exit: the job failed and a peer may never get there.

    The MPI launcher then sees this process end without finalising and (by default) stops
    the remaining ranks, so a failed job ends instead of hanging in MPI_Finalize.
    """
    global _abandoned
    _abandoned = True


_local_peers = {}  # world rank -> process id of the other ranks on this host (set at init)


def note_local_peers(pids):
    """Remember the other local ranks' process ids, to tell at exit whether one is gone."""
    _local_peers.clear()
    _local_peers.update(pids)


def _peers_all_finalising():
    """Wait until every rank reached its exit (an Ibarrier on COMM_WORLD); False as soon as
    a rank on this host ended without it (it left without MPI's finalisation after its job
    failed there), when MPI_Finalize would wait for it forever."""
    if not _local_peers or _MPI.COMM_WORLD.Get_size() == 1:
        return True
    import time

    from ._world import _alive

    try:
        req = _MPI.COMM_WORLD.Ibarrier()
    except Exception:
        return True
    while not req.Test():
        if not all(_alive(pid) for pid in _local_peers.values()):
            return False
        time.sleep(0.01)
    return True


def _finalize(ours):
    if not _abandoned and _MPI is not None and not _MPI.Is_finalized() \
            and not _peers_all_finalising():
        abandon()
    if _abandoned:
        if not ours:  # mpi4py would finalise after us: leave before it can block
            sys_flush()
            os._exit(1)
        return
    if ours and _MPI is not None and not _MPI.Is_finalized():
        _MPI.Finalize()


def sys_flush():
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def launched_by_mpi():
    """True when an MPI launcher (hydra, Open MPI's orted, slurm's PMI) started us."""
    env = os.environ
    return any(k in env for k in ("PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE",
                                  "PMI_FD", "PMI_PORT"))


# -- reductions -------------------------------------------------------------------------

_ENGINE = None  # the socket transport's stand-in for the MPI module, while it runs


def use_engine(namespace):
    """Take reduction ops from ``namespace`` instead of MPI (None: back to MPI)."""
    global _ENGINE
    _ENGINE = namespace
    _PLANS.clear()


def mpi_op(name):
    """The MPI reduction for a ReduceOp member name (AVG is SUM followed by a division)."""
    MPI = _ENGINE if _ENGINE is not None else mpi()
    return {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN,
            "MAX": MPI.MAX, "BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}[name]


# bool has no arithmetic MPI reduction: it travels as uint8 0/1, where SUM and MAX are "any"
# and PRODUCT and MIN are "all" (MAX/MIN cannot wrap around as a uint8 SUM could)
_BOOL_OPS = {"SUM": "MAX", "MAX": "MAX", "BOR": "BOR", "PRODUCT": "MIN", "MIN": "MIN",
             "BAND": "BAND", "BXOR": "BXOR"}


def check_reduce(fn_name, np_dtype, op_name):
    """Raise torch's error when ``op_name`` cannot reduce ``np_dtype``."""
    kind = np_dtype.kind
    if op_name == "PREMUL_SUM":  # torch's gloo backend's refusal (only NCCL serves it)
        raise RuntimeError("Cannot use ReduceOp.PREMUL_SUM with Gloo")
    if kind == "c" and op_name not in ("SUM", "AVG"):
        raise ValueError(f"{fn_name} does not support RedOpType.{op_name} on complex tensors")
    if op_name in ("BAND", "BOR", "BXOR") and kind not in "biu":
        raise RuntimeError(f"Cannot use ReduceOp.{op_name} with non-integral dtype")
    if op_name == "AVG" and kind in "biu":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_TORCH_TYPE_NAMES.get(np_dtype.name, np_dtype.name)}")


_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                     "int32": "Int", "int64": "Long"}


_PLANS = {}


def reduce_plan(np_dtype, op_name):
    """(wire dtype or None, MPI op) for reducing ``np_dtype`` with ``op_name``.

    A wire dtype means the data is staged into that dtype for the reduction and written
    back afterwards.
    """
    key = (np_dtype, op_name)
    plan = _PLANS.get(key)
    if plan is None:
        if np_dtype.kind == "b":
            plan = np.dtype(np.uint8), mpi_op(_BOOL_OPS[op_name])
        else:
            plan = wire_dtype(np_dtype), mpi_op(op_name)
        _PLANS[key] = plan
    return plan


_U8, _F32 = np.dtype(np.uint8), np.dtype(np.float32)


def wire_dtype(np_dtype):
    """The dtype an array of ``np_dtype`` travels as, or None to send it as itself."""
    kind = np_dtype.kind
    if kind == "b":
        return _U8
    if kind == "V":  # ml_dtypes' bfloat16: MPI has no such type
        return _F32
    return None


# -- buffers ----------------------------------------------------------------------------

_cuda_aware = None


def cuda_aware():
    """Whether MPI can read and write GPU memory directly (NUMTORCH_MPI_CUDA_AWARE overrides)."""
    global _cuda_aware
    if _ENGINE is not None:
        return False  # sockets read host memory only
    if _cuda_aware is None:
        env = os.environ.get("NUMTORCH_MPI_CUDA_AWARE")
        if env is not None:
            _cuda_aware = env not in ("0", "", "false", "False")
        else:
            query = getattr(mpi(), "Query_cuda_support", None)
            try:
                _cuda_aware = bool(query()) if query is not None else False
            except Exception:  # an MPI without the MPIX extension
                _cuda_aware = False
    return _cuda_aware


class Staged:
    """A contiguous array MPI can use for ``array``, and how to write results back.

    ``buf`` is ``array`` itself when it already is a contiguous array of a type MPI handles
    (the common case: no copy at all). Otherwise it is a host or converted copy and
    :meth:`write_back` copies the result into ``array`` after the operation.
    """

    __slots__ = ("array", "buf", "copied")

    def __init__(self, array, wire=None, fill=True):
        self.array = array
        on_gpu = type(array) is not np.ndarray and backend.device_of(array) != CPU
        buf = array
        if on_gpu and not cuda_aware():
            buf = backend.to_device(array, CPU)
        if buf.dtype.kind == "b" and buf.flags.c_contiguous:
            buf = buf.view(np.uint8)  # 0/1 bytes: bitwise and min/max keep them 0/1
            wire = None
        if wire is not None and buf.dtype != wire:
            buf = buf.astype(wire, order="C") if fill else np.empty(buf.shape, wire)
        elif not buf.flags.c_contiguous:
            buf = np.ascontiguousarray(buf) if fill else np.empty(buf.shape, buf.dtype)
        self.buf = buf
        self.copied = buf is not array and buf.base is not array

    def write_back(self):
        """Copy the received or reduced values into the original array (if staged)."""
        if self.copied:
            write_into(self.array, self.buf)


def write_into(dst, src):
    """``dst[...] = src`` across dtypes (bool from 0/1 bytes) and devices."""
    if src.dtype != dst.dtype:
        src = src != 0 if dst.dtype.kind == "b" else src.astype(dst.dtype)
    if type(dst) is not np.ndarray:
        src = backend.to_device(src, backend.device_of(dst))
    dst[...] = src.reshape(dst.shape)


def flat(buf):
    """A 1-D view of a C-contiguous array (0-d arrays included) for MPI's (count) view."""
    if not buf.flags.c_contiguous:  # reshape would copy and MPI would fill the copy
        raise AssertionError("numtorch.distributed: MPI buffer is not C-contiguous")
    return buf.reshape(-1)
