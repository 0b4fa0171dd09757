"""Moving a whole memory block into shared memory under every tensor and storage that views it.

torch's ``share_memory_`` moves the storage, so all views of it (made before or after) see the
shared memory. A NumPy array cannot change its buffer, so numtorch copies the block into a
/dev/shm mapping and re-points each tensor and storage object over the old block to the same
offset and strides in the new one. Finding them scans the garbage collector's objects, which
is only done when something other than the caller still refers to the block (its refcount).
"""

import gc
import sys

import numpy as np


def _owner(arr):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _address(arr):
    return arr.__array_interface__["data"][0]


def _holders(owner, skip):
    """The tensors and storages (other than ``skip``) whose array lies in ``owner``'s memory."""
    from .._tensor import Tensor
    from ..storage import TypedStorage, UntypedStorage

    kinds = (Tensor, TypedStorage, UntypedStorage)
    found = []
    for obj in gc.get_objects():
        # (the type, not isinstance: that reads `__class__`, which some objects compute)
        if obj is skip or not issubclass(type(obj), kinds):
            continue
        arr = getattr(obj, "_array", None)
        if type(arr) is np.ndarray and _owner(arr) is owner:
            found.append(obj)
    return found


def share_block(holder):
    """Move the memory block under ``holder._array`` (a tensor's or a storage's) into shared
    memory, with every other tensor and storage viewing that block. False when the block
    cannot be moved as a whole (the caller then shares ``holder``'s own elements only)."""
    from ..storage import shm_map

    arr = holder._array
    if type(arr) is not np.ndarray:
        return False
    owner = _owner(arr)
    # only heap blocks NumPy allocated move (a mapping, e.g. a loader channel's, is copied by
    # the caller as before)
    if owner.base is not None or type(owner) is not np.ndarray or not (
            owner.flags.c_contiguous or owner.flags.f_contiguous):
        return False
    # the owner's references known here: `owner`, getrefcount's argument and `arr` (the owner
    # itself, then held by `holder._array` too, or a view of it through `.base`); any more mean
    # other arrays over the block exist
    extra = sys.getrefcount(owner) - (4 if arr is owner else 3)
    others = _holders(owner, holder) if extra > 0 else []
    mm = shm_map(owner.nbytes)
    block = np.frombuffer(mm, dtype=np.uint8, count=owner.nbytes)
    block[...] = owner.reshape(-1, order="A").view(np.uint8)
    start = _address(owner)
    for obj in [holder, *others]:
        old = obj._array
        offset = _address(old) - start
        if not 0 <= offset <= owner.nbytes:  # (an empty array may point anywhere)
            offset = 0
        new = np.ndarray(old.shape, dtype=old.dtype, buffer=block, offset=offset,
                         strides=old.strides)
        if not old.flags.writeable:
            new.flags.writeable = False
        obj._array = new
    return True
