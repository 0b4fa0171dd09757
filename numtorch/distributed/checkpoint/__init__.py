"""``torch.distributed.checkpoint``: saving and loading sharded state dicts.

numtorch has the state-dict helpers (``state_dict.get_model_state_dict`` and
``set_model_state_dict``, which gather and scatter DTensors) but not torch's checkpoint
storage format: :func:`save` and :func:`load` (and the Hugging Face storage classes'
use) raise NotImplementedError. Save ``get_model_state_dict(model, options=
StateDictOptions(full_state_dict=True))`` with ``torch.save`` or safetensors instead.
"""

from . import state_dict
from .hf_storage import HuggingFaceStorageReader, HuggingFaceStorageWriter

__all__ = [
    "HuggingFaceStorageReader",
    "HuggingFaceStorageWriter",
    "load",
    "save",
    "state_dict",
]

_REFUSAL = ("numtorch does not implement torch.distributed.checkpoint's storage format; "
            "gather the state dict with torch.distributed.checkpoint.state_dict."
            "get_model_state_dict(model, options=StateDictOptions(full_state_dict=True)) and "
            "save it with torch.save or safetensors")


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
         process_group=None, no_dist=False, use_cached=False):
    """Not available in numtorch (see the module docstring); raises NotImplementedError."""
    raise NotImplementedError(_REFUSAL)


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None,
         process_group=None, no_dist=False):
    """Not available in numtorch (see the module docstring); raises NotImplementedError."""
    raise NotImplementedError(_REFUSAL)
