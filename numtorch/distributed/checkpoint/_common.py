"""What ``save`` and ``load`` share: argument checks, whether ranks take part, Stateful."""

import warnings

from .stateful import Stateful


def use_dist(no_dist, action):
    """Whether the ranks of a process group take part (else one process, with torch's
    warning)."""
    from .. import is_available, is_initialized

    if not no_dist and is_available() and is_initialized():
        return True
    warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the "
                  f"intent is to {action} in a single process.", stacklevel=3)
    return False


def storage(checkpoint_id, given, make):
    """The storage writer/reader to use: ``given`` (reset to ``checkpoint_id``) or a file
    system one at ``checkpoint_id``."""
    if given is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specified if "
                               "storage_reader/storage_writer is None.")
        return make(checkpoint_id)
    given.reset(checkpoint_id)
    return given


def is_stateful(value):
    return isinstance(value, Stateful)
