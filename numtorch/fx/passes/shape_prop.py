"""``ShapeProp``: run a ``GraphModule`` and record each node's tensor metadata
(``torch.fx.passes.shape_prop``)."""

from typing import NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    shape: object
    dtype: object
    requires_grad: bool
    stride: tuple
    memory_format: object
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result, include_contiguity=True):
    import numtorch

    memory_format = None
    if include_contiguity:
        for fmt in (numtorch.contiguous_format, numtorch.channels_last,
                    numtorch.channels_last_3d):
            try:
                if result.is_contiguous(memory_format=fmt):
                    memory_format = fmt
                    break
            except (RuntimeError, TypeError, ValueError):
                continue
    qparams = {}
    is_quantized = bool(getattr(result, "is_quantized", False))
    if is_quantized:
        qscheme = result.qscheme()
        qparams["qscheme"] = qscheme
        if qscheme in (numtorch.per_tensor_affine, numtorch.per_tensor_symmetric):
            qparams["scale"] = result.q_scale()
            qparams["zero_point"] = result.q_zero_point()
        else:
            qparams["scale"] = result.q_per_channel_scales().tolist()
            qparams["zero_point"] = result.q_per_channel_zero_points().tolist()
            qparams["axis"] = result.q_per_channel_axis()
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          memory_format, is_quantized, qparams)


class ShapeProp(Interpreter):
    """Run the module on example inputs; each node's ``meta['tensor_meta']`` (and
    ``meta['type']``) records the shape, dtype, strides... of the value it produced.

    Example::

        >>> gm = torch.fx.symbolic_trace(torch.nn.Linear(3, 2))
        >>> ShapeProp(gm).propagate(torch.randn(4, 3))  # doctest: +SKIP
        >>> [n.meta["tensor_meta"].shape for n in gm.graph.nodes][1]
        torch.Size([4, 2])
    """

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n):
        import numtorch

        result = super().run_node(n)
        found = [False]

        def extract(obj):
            if isinstance(obj, numtorch.Tensor):
                found[0] = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the graph on ``args`` (recording metadata) and return its output."""
        return super().run(*args)
