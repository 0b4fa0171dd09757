"""Pickling tensors and storages as shared-memory handles for ``numtorch.multiprocessing``.

The reducers are registered on ``multiprocessing.reduction.ForkingPickler`` only, the pickler
behind every multiprocessing queue, pipe, pool and spawned process's arguments; ``pickle`` and
``numtorch.save`` keep copying the values. A tensor sent this way has its data moved to shared
memory first (a no-op if it already is there), and the receiver maps that same memory, so
in-place writes on either side show on the other.

The memory is a nameless file under /dev/shm (see ``numtorch.storage.shm_map``). Under the
'file_descriptor' strategy its descriptor travels through multiprocessing's descriptor passing
(``reduction.DupFd``); under 'file_system' the sender gives the file a fresh name for each
message, which the receiver opens and removes. Either way the kernel frees the memory when the
last process holding a mapping of it lets go, and no file is left behind.
"""

import itertools
import os
import pickle
import secrets
import warnings
from multiprocessing import reduction

import numpy as np

from .._tensor import Tensor, _rebuild
from ._move_to_shm import share_block
from ..storage import (TypedStorage, UntypedStorage, ShmMap, _CLASS_OF, _SHM_DIR, _root,
                       share_array, shm_map)

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_tensor",
           "rebuild_storage"]

_NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
             "autograd does not support crossing process boundaries.  If you just want to "
             "transfer the data, call detach() on the tensor before serializing (e.g., putting "
             "it on the queue).")
_counter = itertools.count()


# -- the memory handle -------------------------------------------------------------------------
def _mapping_of(arr):
    """The ``ShmMap`` under ``arr`` (None if its memory is not one)."""
    a = arr
    while isinstance(a, np.ndarray):
        a = a.base
    if isinstance(a, memoryview):
        a = a.obj
    return a if isinstance(a, ShmMap) else None


def _shared(arr):
    """``arr`` itself if it lives in a shareable mapping, else the same view (shape, strides,
    offset) of a shared copy of the whole block it views, as torch shares a whole storage.
    Memory that is shared but cannot be handed on (a DataLoader batch, a memmap) is copied."""
    if _mapping_of(arr) is not None:
        return arr
    root = _root(arr)
    if root is None:  # no contiguous owner to copy: share this array's values alone
        return share_array(arr)
    new_root = share_array(root)
    offset = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(arr.shape, dtype=arr.dtype, buffer=new_root, offset=offset,
                      strides=arr.strides)


def _handle(mm):
    """A picklable handle to mapping ``mm`` under the current sharing strategy."""
    from . import get_sharing_strategy

    if get_sharing_strategy() == "file_system" and _SHM_DIR is not None:
        name = f"numtorch_{os.getpid()}_{next(_counter)}_{secrets.token_hex(4)}"
        dir_fd = os.open(_SHM_DIR, os.O_RDONLY)
        try:
            # a dir_fd makes os.link use linkat(AT_SYMLINK_FOLLOW), which names the open file
            os.link(f"/proc/self/fd/{mm.fd}", name, dst_dir_fd=dir_fd)
            return ("file_system", os.path.join(_SHM_DIR, name))
        except OSError:
            pass  # a file made without O_TMPFILE cannot be named: pass its descriptor instead
        finally:
            os.close(dir_fd)
    return ("file_descriptor", reduction.DupFd(mm.fd))


def _open(handle):
    """The mapping a ``_handle`` refers to, in this process."""
    kind, value = handle
    if kind == "file_system":
        fd = os.open(value, os.O_RDWR)
        os.unlink(value)  # each message has its own name; the open file keeps the memory
    else:
        fd = value.detach()
    return shm_map(0, fd)


def _block_nbytes(arr):
    """The size in bytes of the memory block ``arr`` views."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr.nbytes


def _describe(arr):
    """A picklable description of shared ``arr``: a handle to its mapping, the block it views
    (the outermost array, so the receiver's view has the same storage offset) and the view."""
    mm = _mapping_of(arr)
    top = arr
    while isinstance(top.base, np.ndarray):
        top = top.base
    if not top.flags.c_contiguous:  # no flat owner: take the whole mapping as the block
        top = np.frombuffer(mm, dtype=np.uint8)
    start = top.__array_interface__["data"][0]
    return (_handle(mm), top.dtype, top.size, start - mm.address, arr.dtype, arr.shape,
            arr.strides, arr.__array_interface__["data"][0] - start)


def _view(handle, block_dtype, block_size, block_offset, dtype, shape, strides, offset):
    """The array described by ``_describe``, over this process's mapping of the memory."""
    block = np.frombuffer(_open(handle), dtype=block_dtype, count=block_size,
                          offset=block_offset)
    return np.ndarray(shape, dtype=dtype, buffer=block, offset=offset, strides=strides)


# -- tensors -----------------------------------------------------------------------------------
def rebuild_tensor(cls, description, requires_grad, state):
    """Unpickle a tensor sent by ``reduce_tensor``: a view of the sender's shared memory."""
    return _rebuild(_view(*description), requires_grad, cls, None, state)


_WARNED_CUDA = [False]


def reduce_tensor(t):
    """Pickle a CPU tensor as a handle to its (now) shared memory, with its offset, strides,
    class and ``requires_grad``; ``.grad`` is not sent. Tensors on other devices are copied."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(_NON_LEAF)
    from . import get_sharing_strategy

    if t.device.type == "cuda" and not _WARNED_CUDA[0]:
        _WARNED_CUDA[0] = True
        warnings.warn("numtorch sends CUDA tensors to other processes as copies (it has no "
                      "CUDA IPC): in-place updates made by the receiving process are not seen "
                      "by the sender, as they would be in torch")
    if t.device.type != "cpu" or (_block_nbytes(t._array) == 0
                                  and get_sharing_strategy() == "file_descriptor"):
        # nothing to share: torch passes no descriptor for no memory (but names a file)
        return t.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    # torch moves the storage, so the sender (and its views of it) go on using the shared
    # memory too
    if _mapping_of(t._array) is None and not share_block(t):
        t._array = _shared(t._array)
    return (rebuild_tensor, (type(t), _describe(t._array), t.requires_grad,
                             dict(t.__dict__) or None))


# -- storages ----------------------------------------------------------------------------------
def rebuild_storage(cls, description, dtype=None):
    """Unpickle a storage sent by ``reduce_storage`` (``description`` None: an empty one)."""
    if description is None:
        return cls(wrap=np.empty(0, dtype=dtype))
    return cls(wrap=_view(*description))


def reduce_storage(storage):
    """Pickle a storage as a handle to its (now) shared memory."""
    if storage._array.nbytes == 0:
        return (rebuild_storage, (type(storage), None, storage._array.dtype))
    if _mapping_of(storage._array) is None and not share_block(storage):
        storage._array = _shared(storage._array)
    return (rebuild_storage, (type(storage), _describe(storage._array)))


def init_reductions():
    """Register the tensor and storage reducers on multiprocessing's ``ForkingPickler``."""
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        reduction.ForkingPickler.register(cls, reduce_tensor)
    for cls in (TypedStorage, UntypedStorage, *_CLASS_OF.values()):
        reduction.ForkingPickler.register(cls, reduce_storage)
