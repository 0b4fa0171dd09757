"""``torch.distributed.checkpoint.format_utils``: converting between a DCP checkpoint
directory and a single ``torch.save`` file (in one process)."""

from .default_planner import _EmptyStateDictLoadPlanner
from .filesystem import FileSystemReader, FileSystemWriter

__all__ = ["dcp_to_torch_save", "torch_save_to_dcp"]


def dcp_to_torch_save(dcp_checkpoint_dir, torch_save_path):
    """Load the whole checkpoint (any sharding) as one nested state dict and ``torch.save``
    it to ``torch_save_path``."""
    from ... import save
    from .state_dict_loader import _load

    sd = {}
    _load(sd, FileSystemReader(dcp_checkpoint_dir), None, 0, False,
          _EmptyStateDictLoadPlanner())
    save(sd, torch_save_path)


def torch_save_to_dcp(torch_save_path, dcp_checkpoint_dir):
    """Write the state dict in a ``torch.save`` file as a DCP checkpoint."""
    from ... import load
    from .state_dict_saver import _save

    sd = load(torch_save_path, weights_only=False)
    _save(sd, FileSystemWriter(dcp_checkpoint_dir), None, 0, False, None)
