"""``torch._dynamo._trace_wrapped_higher_order_op``: ``TransformGetItemToIndex``.

In torch, indexing a tensor with a tensor of one value inside ``vmap`` calls ``.item()``, which
vmap refuses, so this mode rewrites ``x[t]`` into the ``index`` operator. numtorch's vmap
indexes with batched tensors directly (``func/_rules``), so the mode lets the indexing run as
it is; programs that enter it (transformers' mask construction) get the same values.
"""

from ..overrides import TorchFunctionMode

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(TorchFunctionMode):
    """A TorchFunctionMode under which ``tensor[index_tensors]`` works inside ``vmap``."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
