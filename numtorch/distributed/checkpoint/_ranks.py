"""The ranks taking part in a save or load, and the two exchange patterns the steps use.

Each step runs a function on every rank; failures are collected from all ranks, so every
rank raises the same ``CheckpointException`` instead of some ranks hanging in the next
collective. Without a process group (or with ``no_dist``) there is one rank and no
communication.
"""

import traceback

from .api import CheckpointException


def _failure(exc):
    frames = [(f.filename, f.lineno, f.name, f.line)
              for f in traceback.extract_tb(exc.__traceback__)]
    try:
        import pickle

        pickle.dumps(exc)
    except Exception:  # noqa: BLE001  (an exception that cannot travel goes as its text)
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    return _Failed(exc, frames)


class _Failed:
    def __init__(self, exc, frames):
        self.exc, self.frames = exc, frames


class Ranks:
    def __init__(self, process_group, use_dist, coordinator_rank=0):
        self.use_dist = use_dist
        self.group = process_group
        if use_dist:
            from .. import get_global_rank, get_rank, get_world_size

            self.rank = get_rank(process_group)
            self.world_size = get_world_size(process_group)
            self.coordinator = (coordinator_rank if process_group is None
                                else get_global_rank(process_group, coordinator_rank))
        else:
            self.rank, self.world_size, self.coordinator = 0, 1, 0
        self.coordinator_rank = coordinator_rank
        self.is_coordinator = self.rank == coordinator_rank

    def _all_gather(self, obj):
        if not self.use_dist:
            return [obj]
        from .. import all_gather_object

        out = [None] * self.world_size
        all_gather_object(out, obj, group=self.group)
        return out

    def _broadcast(self, obj):
        if not self.use_dist:
            return obj
        from .. import broadcast_object_list

        box = [obj]
        broadcast_object_list(box, src=self.coordinator, group=self.group)
        return box[0]

    @staticmethod
    def _run(fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001  (reported on every rank below)
            return _failure(e)

    @staticmethod
    def _raise_failures(step, results):
        if isinstance(results, list):
            results = dict(enumerate(results))
        failed = {r: x for r, x in results.items() if isinstance(x, _Failed)}
        if failed:
            raise CheckpointException(step, {
                r: (x.exc, traceback.StackSummary.from_list(x.frames))
                for r, x in failed.items()})

    def reduce_scatter(self, step, map_fn, reduce_fn):
        """``map_fn`` on each rank; the coordinator turns the list of results into one value
        per rank (``reduce_fn``); each rank gets its own."""
        gathered = self._all_gather(self._run(map_fn))
        self._raise_failures(step, gathered)
        per_rank = self._run(reduce_fn, gathered) if self.is_coordinator else None
        per_rank = self._broadcast(per_rank)
        if isinstance(per_rank, _Failed):
            self._raise_failures(step, {self.coordinator_rank: per_rank})
        return per_rank[self.rank]

    def all_reduce(self, step, map_fn, reduce_fn):
        """``map_fn`` on each rank; the coordinator combines the results into the value all
        ranks return."""
        gathered = self._all_gather(self._run(map_fn))
        self._raise_failures(step, gathered)
        result = self._run(reduce_fn, gathered) if self.is_coordinator else None
        result = self._broadcast(result)
        if isinstance(result, _Failed):
            self._raise_failures(step, {self.coordinator_rank: result})
        return result

    def all_gather(self, step, map_fn):
        gathered = self._all_gather(self._run(map_fn))
        self._raise_failures(step, gathered)
        return gathered
