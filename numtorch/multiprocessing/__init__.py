"""``numtorch.multiprocessing``: Python's ``multiprocessing``, with tensors shared, not copied.

Everything of ``multiprocessing`` is available here under the same names (``Process``,
``Queue``, ``Pool``, ``get_context``...). Importing this package registers reducers on
multiprocessing's pickler, so a tensor or storage put on a queue or pipe, passed to a pool or
to a spawned process moves its data to shared memory and travels as a handle: the receiving
process works on the same memory (the Hogwild pattern of training one shared model in several
processes). See ``reductions`` for the mechanics and ``spawn`` for ``spawn``/``start_processes``.
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403 - this package stands in for multiprocessing

from . import reductions
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,
                    SpawnContext, spawn, start_processes)

# as in torch, ``import *`` gives the strategy functions and multiprocessing's names
__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Choose how shared CPU tensors are handed to other processes.

    Args:
        new_strategy (str): 'file_descriptor' (pass the open memory file's descriptor, the
            default) or 'file_system' (pass a name of the file under /dev/shm).

    Raises:
        AssertionError: ``new_strategy`` is not one of ``get_all_sharing_strategies()``.
    """
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        # torch's words (its set of names, in the set's own order)
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The name of the current sharing strategy (see ``set_sharing_strategy``)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return set(_all_sharing_strategies)


init_reductions()
