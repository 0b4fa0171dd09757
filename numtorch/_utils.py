"""``torch._utils``: the functions pickled checkpoints name (``_rebuild_tensor_v2`` ...), at
torch's path so ``import torch._utils`` and code that reads or patches them work under
``numtorch.run``, and the dense flatten helpers gradient-bucketing code imports."""

from ._serialization._rebuild import (  # noqa: F401
    _rebuild_device_tensor_from_cpu_tensor, _rebuild_meta_tensor_no_storage, _rebuild_parameter,
    _rebuild_nested_tensor, _rebuild_parameter_with_state,
    _rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3,
)
from ._quantized_serial import _rebuild_qtensor  # noqa: F401,E402


def _flatten_dense_tensors(tensors):
    """The elements of ``tensors`` concatenated into one 1-d tensor (a copy, in order)."""
    from . import ops

    if len(tensors) == 1:
        return tensors[0].contiguous().view(-1)
    return ops.cat([t.contiguous().view(-1) for t in tensors])


def _unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` shaped like each of ``tensors`` in turn (undoes the flattening)."""
    outputs, offset = [], 0
    for t in tensors:
        n = t.numel()
        outputs.append(flat.narrow(0, offset, n).view_as(t))
        offset += n
    return tuple(outputs)
