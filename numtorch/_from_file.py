"""``torch.from_file``: a CPU tensor whose memory is a memory-mapped file."""

import os

import numpy as np

from . import _dtype
from ._tensor import _make

__all__ = ["from_file"]


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """A 1-D tensor of ``size`` elements mapped from the file ``filename``.

    Args:
        filename (str): the file.
        shared (bool, optional): True: writes to the tensor go to the file (which is created,
            or grown, to the needed size). False or None: the tensor is a private
            copy-on-write view; the file must hold at least ``size`` elements.
        size (int): the number of elements.
        dtype (numtorch.dtype, optional): the element type; the default dtype if None.

    Example:
        >>> import numpy as np
        >>> np.arange(3, dtype=np.float32).tofile("/tmp/three.bin")
        >>> torch.from_file("/tmp/three.bin", size=3)
        tensor([0., 1., 2.])
    """
    d = _dtype.get_default_dtype() if dtype is None else dtype
    if device is not None and str(device) != "cpu":
        raise RuntimeError("from_file: only CPU tensors can be mapped to files")
    nbytes = int(size) * d.itemsize
    if shared:
        if not os.path.exists(filename) or os.path.getsize(filename) < nbytes:
            with open(filename, "ab") as f:
                f.truncate(nbytes)
        mode = "r+"
    else:
        if not os.path.exists(filename):
            raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such "
                               f"file or directory (2)")
        have = os.path.getsize(filename)
        if have < nbytes:
            raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        mode = "c"
    if size == 0:
        return _make(np.empty((0,), dtype=d.np))
    mapped = np.memmap(filename, dtype=np.uint8, mode=mode, shape=(nbytes,))
    # a plain ndarray over the mapping (it keeps the mapping alive through ``base``)
    return _make(np.ndarray((int(size),), dtype=d.np, buffer=mapped))
