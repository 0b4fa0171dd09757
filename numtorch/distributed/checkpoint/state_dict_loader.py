"""``torch.distributed.checkpoint.state_dict_loader``: ``load`` and the deprecated
``load_state_dict``."""

import warnings

from . import _common
from ._ranks import Ranks
from .default_planner import DefaultLoadPlanner
from .filesystem import FileSystemReader

__all__ = ["load", "load_state_dict"]


def _read_metadata(reader, rank):
    try:
        return reader.read_metadata()
    except Exception as first:  # noqa: BLE001  (then the rank's own metadata is tried)
        try:
            return reader.read_metadata(rank=rank)
        except Exception as second:  # noqa: BLE001
            raise AssertionError(f"metadata is None; global metadata read failed: {first}; "
                                 f"rank local metadata read failed: {second}") from None


def _load(state_dict, storage_reader, process_group, coordinator_rank, use_dist, planner):
    ranks = Ranks(process_group, use_dist, coordinator_rank)
    planner = planner if planner is not None else DefaultLoadPlanner()

    def local_plan():
        metadata = _read_metadata(storage_reader, ranks.rank)
        storage_reader.set_up_storage_reader(metadata, ranks.is_coordinator)
        planner.set_up_planner(state_dict, metadata, ranks.is_coordinator)
        return storage_reader.prepare_local_plan(planner.create_local_plan())

    def global_plan(all_plans):
        return storage_reader.prepare_global_plan(planner.create_global_plan(all_plans))

    central = ranks.reduce_scatter("plan", local_plan, global_plan)

    def read():
        final = planner.finish_plan(central)
        storage_reader.read_data(final, planner).wait()

    ranks.all_gather("read", read)


def _load_with_stateful(state_dict, reader, process_group, coordinator_rank, dist, planner):
    keys = sorted(state_dict.keys())
    staged = {}
    for key in keys:
        value = state_dict[key]
        staged[key] = value.state_dict() if _common.is_stateful(value) else value
    _load(staged, reader, process_group, coordinator_rank, dist, planner)
    for key in keys:
        if _common.is_stateful(state_dict[key]):
            state_dict[key].load_state_dict(staged[key])
        else:
            state_dict[key] = staged[key]


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None,
         process_group=None, no_dist=False):
    """Fill ``state_dict`` from a checkpoint, in place: tensors are copied into (each rank
    its block of a DTensor, whatever sharding the checkpoint was saved with), other values
    replaced; Stateful entries get ``load_state_dict``."""
    dist = _common.use_dist(no_dist, "load")
    reader = _common.storage(checkpoint_id, storage_reader, FileSystemReader)
    _load_with_stateful(state_dict, reader, process_group, 0, dist, planner)


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated: ``load`` with an explicit storage reader."""
    warnings.warn("`load_state_dict` is deprecated and will be removed in future versions. "
                  "Please use `load` instead.", FutureWarning, stacklevel=2)
    storage_reader.reset()
    if not no_dist:
        from .. import get_rank

        get_rank(process_group)
    _load(state_dict, storage_reader, process_group, coordinator_rank, not no_dist, planner)
