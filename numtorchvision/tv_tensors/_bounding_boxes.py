"""``BoundingBoxes``: an ``[N, 4]`` tensor of boxes with their coordinate format and the size
of the image they belong to."""

from enum import Enum

import numtorch as torch

from ._tv_tensor import TVTensor, _retype


class BoundingBoxFormat(Enum):
    """How a box's four numbers are read: ``XYXY`` (top-left and bottom-right corners),
    ``XYWH`` (top-left corner, width, height) or ``CXCYWH`` (centre, width, height).
    torchvision's rotated formats (XYWHR, CXCYWHR, XYXYXYXY) are not implemented."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"


def is_rotated_bounding_format(format):
    """Whether ``format`` describes rotated boxes (none of numtorchvision's formats do)."""
    if isinstance(format, (BoundingBoxFormat, str)):
        return (format.value if isinstance(format, BoundingBoxFormat) else format) in (
            "XYWHR", "CXCYWHR", "XYXYXYXY")
    raise ValueError(f"format should be str or BoundingBoxFormat, got {type(format)}")


def _parse_format(format):
    if isinstance(format, str):
        return BoundingBoxFormat[format.upper()]
    return format


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        elif isinstance(v, dict):
            yield from _flat(list(v.values()))
        else:
            yield v


class BoundingBoxes(TVTensor):
    """Boxes of shape ``[N, 4]`` (one box: ``[4]``, made ``[1, 4]``).

    Args:
        data: anything :func:`numtorch.as_tensor` takes.
        format (BoundingBoxFormat or str): the coordinate format.
        canvas_size (tuple of two ints): height and width of the image the boxes are on.
        clamping_mode: ``"soft"`` (default), ``"hard"`` or ``None`` (transforms do not clamp
            the boxes to the canvas).
        dtype, device, requires_grad: as for :func:`numtorch.as_tensor`.
    """

    @classmethod
    def _wrap(cls, tensor, *, format, canvas_size, clamping_mode="soft", check_dims=True):
        if check_dims:
            if tensor.ndim == 1:
                tensor = tensor.unsqueeze(0)
            elif tensor.ndim != 2:
                raise ValueError(f"Expected a 1D or 2D tensor, got {tensor.ndim}D")
        if clamping_mode is not None and clamping_mode not in ("hard", "soft"):
            raise ValueError(f"clamping_mode must be None, hard or soft, got {clamping_mode}.")
        boxes = _retype(tensor, cls)
        boxes.format = _parse_format(format)
        boxes.canvas_size = canvas_size
        boxes.clamping_mode = clamping_mode
        return boxes

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return cls._wrap(tensor, format=kwargs.get("format", like.format),
                         canvas_size=kwargs.get("canvas_size", like.canvas_size),
                         clamping_mode=kwargs.get("clamping_mode", like.clamping_mode))

    def __new__(cls, data, *, format, canvas_size, clamping_mode="soft", dtype=None,
                device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if not torch.is_floating_point(tensor) and is_rotated_bounding_format(format):
            raise ValueError("Rotated bounding boxes should be floating point tensors, got "
                             f"{tensor.dtype}.")
        return cls._wrap(tensor, format=format, canvas_size=canvas_size,
                         clamping_mode=clamping_mode)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        # the metadata of the first BoundingBoxes among the arguments
        flat = list(_flat(list(args) + list((kwargs or {}).values())))
        like = next(x for x in flat if isinstance(x, BoundingBoxes))
        meta = {"format": like.format, "canvas_size": like.canvas_size,
                    "clamping_mode": like.clamping_mode, "check_dims": False}
        if isinstance(output, torch.Tensor) and not isinstance(output, BoundingBoxes):
            output = BoundingBoxes._wrap(output, **meta)
        elif isinstance(output, (tuple, list)):
            output = type(output)(BoundingBoxes._wrap(part, **meta) for part in output)
        return output

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr(format=self.format, canvas_size=self.canvas_size,
                               clamping_mode=self.clamping_mode)
