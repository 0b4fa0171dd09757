"""``torch.distributed.checkpoint.state_dict_saver``: ``save``, ``async_save`` and the
deprecated ``save_state_dict``."""

import concurrent.futures
import enum
import warnings

from . import _common
from ._ranks import Ranks
from .default_planner import DefaultSavePlanner
from .filesystem import FileSystemWriter

__all__ = ["AsyncCheckpointerType", "AsyncSaveResponse", "async_save", "save",
           "save_state_dict"]


class AsyncCheckpointerType(enum.Enum):
    THREAD = "thread"
    PROCESS = "process"


class AsyncSaveResponse:
    """The futures of an asynchronous save: staging done, upload done."""

    def __init__(self, staging_completion, upload_completion):
        self.staging_completion = staging_completion
        self.upload_completion = upload_completion


def _resolve_stateful(state_dict):
    return {k: (v.state_dict() if _common.is_stateful(v) else v)
            for k, v in state_dict.items()}


def _save(state_dict, storage_writer, process_group, coordinator_rank, use_dist, planner):
    ranks = Ranks(process_group, use_dist, coordinator_rank)
    planner = planner if planner is not None else DefaultSavePlanner()
    storage_writer.set_up_storage_writer(ranks.is_coordinator, rank=ranks.rank,
                                         use_collectives=True)
    planner.set_up_planner(state_dict, storage_writer.storage_meta(), ranks.is_coordinator)
    holder = {}

    def local_plan():
        return storage_writer.prepare_local_plan(planner.create_local_plan())

    def global_plan(all_plans):
        plans, metadata = planner.create_global_plan(all_plans)
        holder["metadata"] = metadata
        return storage_writer.prepare_global_plan(plans)

    central = ranks.reduce_scatter("plan", local_plan, global_plan)

    def write():
        final = planner.finish_plan(central)
        return storage_writer.write_data(final, planner).wait()

    def finish(all_results):
        storage_writer.finish(holder["metadata"], all_results)
        return holder["metadata"]

    return ranks.all_reduce("write", write, finish)


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
         process_group=None, no_dist=False, use_collectives=True):
    """Write ``state_dict`` as a checkpoint: each rank writes what it holds (its block of
    every DTensor), the coordinator the metadata; returns the ``Metadata``."""
    dist = _common.use_dist(no_dist, "save")
    writer = _common.storage(checkpoint_id, storage_writer, FileSystemWriter)
    return _save(_resolve_stateful(state_dict), writer, process_group, 0, dist, planner)


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated: ``save`` with an explicit storage writer."""
    warnings.warn("`save_state_dict` is deprecated and will be removed in future versions."
                  "Please use `save` instead.", FutureWarning, stacklevel=2)
    storage_writer.reset()
    if not no_dist:
        from .. import get_rank

        get_rank(process_group)  # raises as torch does when no process group is set up
    return _save(_resolve_stateful(state_dict), storage_writer, process_group,
                 coordinator_rank, not no_dist, planner)


def _stage(value):
    """A copy of ``value`` the caller may go on changing (tensors cloned, containers
    rebuilt)."""
    from ..._tensor import Tensor

    if isinstance(value, Tensor):
        from ..tensor import DTensor

        if isinstance(value, DTensor):
            return DTensor.from_local(value.to_local().detach().clone(), value.device_mesh,
                                      value.placements, run_check=False, shape=value.shape,
                                      stride=value.stride())
        return value.detach().clone()
    if isinstance(value, dict):
        staged = {k: _stage(v) for k, v in value.items()}
        return staged if type(value) is dict else type(value)(staged)
    if isinstance(value, list):
        return [_stage(v) for v in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_stage(v) for v in value)
    return value


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
               process_group=None,
               async_checkpointer_type=AsyncCheckpointerType.THREAD, async_stager=None,
               no_dist=False, use_collectives=True):
    """``save`` from a copy of ``state_dict`` taken now; returns a
    ``concurrent.futures.Future`` of the ``Metadata``. Training may change the tensors while
    the copy is written. With several ranks the writing happens before returning (the
    steps' collectives run on the caller's thread, which MPI requires); the future is then
    already done."""
    dist = _common.use_dist(no_dist, "save")
    writer = _common.storage(checkpoint_id, storage_writer, FileSystemWriter)
    staged = _stage(_resolve_stateful(state_dict))
    future = concurrent.futures.Future()
    if dist:
        try:
            future.set_result(_save(staged, writer, process_group, 0, True, planner))
        except BaseException as e:  # noqa: BLE001  (delivered through the future)
            future.set_exception(e)
        return future

    def run():
        try:
            future.set_result(_save(staged, writer, process_group, 0, False, planner))
        except BaseException as e:  # noqa: BLE001
            future.set_exception(e)

    import threading

    threading.Thread(target=run, name="numtorch-dcp-async-save", daemon=False).start()
    return future
