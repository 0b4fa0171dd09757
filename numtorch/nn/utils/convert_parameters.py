"""Flatten parameters into one vector and write a vector back into parameters."""

from ... import ops
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """Concatenate the flattened parameters into one 1-D Tensor (differentiable).

    Args:
        parameters: an iterable of Tensors.

    Returns:
        A 1-D Tensor holding every entry of every parameter, in order.
    """
    return ops.cat([p.view(-1) if p.is_contiguous() else p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters' data.

    Args:
        vec: a 1-D Tensor at least as long as the parameters' total size.
        parameters: an iterable of Tensors, overwritten in order.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
