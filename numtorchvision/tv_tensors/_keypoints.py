"""``KeyPoints``: points ``[..., 2]`` (x, y) on an image (single points, polygons, polylines,
skeletons), with the size of the image they belong to."""

from ._bounding_boxes import carry_metadata, first_of_kind
from ._tv_tensor import TVTensor, _retype


class KeyPoints(TVTensor):
    """Points of shape ``[..., 2]`` (one point: ``[2]``, made ``[1, 2]``); transforms move
    them as the image moves.

    Args:
        data: anything :func:`numtorch.as_tensor` takes.
        canvas_size (tuple of two ints): height and width of the image.
        dtype, device, requires_grad: as for :func:`numtorch.as_tensor`.
    """

    @classmethod
    def _dress(cls, tensor, canvas_size, shape_checked=False):
        if not shape_checked:
            if tensor.ndim == 1:  # a single point
                tensor = tensor.unsqueeze(0)
            elif tensor.shape[-1] != 2:
                raise ValueError(f"Expected a tensor of shape (..., 2), not {tensor.shape}")
        points = _retype(tensor, cls)
        points.canvas_size = canvas_size
        return points

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return cls._dress(tensor, kwargs.get("canvas_size", like.canvas_size))

    def __new__(cls, data, *, canvas_size, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        return cls._dress(tensor, canvas_size)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        source = first_of_kind(KeyPoints, args, kwargs)
        return carry_metadata(KeyPoints, output, source, lambda t, s: KeyPoints._dress(
            t, s.canvas_size, shape_checked=True))

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr(canvas_size=self.canvas_size)
