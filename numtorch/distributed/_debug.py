"""Debug switches of ``torch.distributed``: ``DebugLevel`` (TORCH_DISTRIBUTED_DEBUG),
``supports_complex`` and ``breakpoint``."""

import enum
import os
import pdb  # noqa: T100  (breakpoint is a debugger entry point)
import sys

__all__ = [
    "DebugLevel",
    "breakpoint",
    "get_debug_level",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
]


class DebugLevel(enum.Enum):
    """How much checking and logging collectives do (set from TORCH_DISTRIBUTED_DEBUG)."""

    OFF = 0
    INFO = 1
    DETAIL = 2

    def __int__(self):
        return self.value


_level = [None]  # None until first read: the environment decides then, as at torch's import


def _from_env():
    raw = os.environ.get("TORCH_DISTRIBUTED_DEBUG")
    if raw is None:
        return DebugLevel.OFF
    found = DebugLevel.__members__.get(raw.upper())
    if found is None:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    return found


def get_debug_level():
    """The current ``DebugLevel``."""
    if _level[0] is None:
        _level[0] = _from_env()
    return _level[0]


def set_debug_level(level):
    """Set the level; only a ``DebugLevel`` member is accepted (torch's TypeError otherwise)."""
    if not isinstance(level, DebugLevel):
        raise TypeError("set_debug_level(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. (arg0: torch._C._distributed_"
                        f"c10d.DebugLevel) -> None\n\nInvoked with: {level!r}")
    _level[0] = level


def set_debug_level_from_env():
    """Read TORCH_DISTRIBUTED_DEBUG again (unset means OFF; case does not matter)."""
    _level[0] = _from_env()


# reductions that are linear, hence valid on a complex tensor viewed as pairs of reals
_COMPLEX_OK = frozenset(("SUM", "AVG", "PREMUL_SUM"))


def supports_complex(reduceOp):
    """Whether ``reduceOp`` may be used on complex tensors (SUM, AVG and PREMUL_SUM only)."""
    from ._names import op_name

    return op_name(reduceOp, "supports_complex") in _COMPLEX_OK


class _RankPdb(pdb.Pdb):
    """pdb reading the terminal itself: under a launcher a rank's stdin is not the user's."""

    def interaction(self, *args, **kwargs):
        saved = sys.stdin
        try:
            with open("/dev/stdin") as tty:
                sys.stdin = tty
                pdb.Pdb.interaction(self, *args, **kwargs)
        finally:
            sys.stdin = saved


_calls = [0]  # breakpoint calls made with skip > 0, from any line (one count, as torch's)


def breakpoint(rank=0, skip=0, timeout_s=3600):
    """Stop rank ``rank`` in pdb (the first ``skip`` calls with skip > 0 pass); the other
    ranks wait in a barrier until it continues. With no interactive stdin pdb reads EOF and
    quits, raising ``bdb.BdbQuit`` on that rank, as torch's does."""
    import datetime

    from ._collectives import barrier
    from .distributed_c10d import get_rank

    if skip > 0:
        _calls[0] += 1
        if _calls[0] <= skip:
            import logging

            logging.getLogger(__name__).warning("Skip the breakpoint, counter=%d", _calls[0])
            return
    try:
        if get_rank() == rank:
            debugger = _RankPdb()
            print("\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                  f"dist.breakpoint(rank={rank})\n", flush=True)
            debugger.set_trace(sys._getframe())
    finally:
        barrier(timeout=datetime.timedelta(seconds=timeout_s))
