"""``BoundingBoxes``: an ``[N, 4]`` tensor of boxes with their coordinate format and the size
of the image they belong to."""

from enum import Enum

import numtorch as torch

from ._tv_tensor import TVTensor, _retype

_ROTATED_NAMES = ("XYWHR", "CXCYWHR", "XYXYXYXY")
_CLAMPING_MODES = (None, "hard", "soft")


class BoundingBoxFormat(Enum):
    """How a box's numbers are read. Axis-aligned (4 numbers): ``XYXY`` (top-left and
    bottom-right corners), ``XYWH`` (top-left corner, width, height), ``CXCYWH`` (centre,
    width, height). Rotated (angle in degrees, counter-clockwise): ``XYWHR`` (first corner,
    width, height, angle), ``CXCYWHR`` (centre, width, height, angle), ``XYXYXYXY`` (the four
    corners in order)."""

    XYXY, XYWH, CXCYWH = "XYXY", "XYWH", "CXCYWH"
    XYWHR, CXCYWHR, XYXYXYXY = "XYWHR", "CXCYWHR", "XYXYXYXY"


def is_rotated_bounding_format(format):
    """Whether ``format`` (a BoundingBoxFormat or its upper-case name) describes rotated
    boxes."""
    if isinstance(format, BoundingBoxFormat):
        format = format.value
    elif not isinstance(format, str):
        raise ValueError(f"format should be str or BoundingBoxFormat, got {type(format)}")
    return format in _ROTATED_NAMES


def _parse_format(format):
    return BoundingBoxFormat[format.upper()] if isinstance(format, str) else format


def _leaves(values):
    """The non-container items of nested lists, tuples and dict values, in order."""
    for v in values:
        if isinstance(v, dict):
            yield from _leaves(list(v.values()))
        elif isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def first_of_kind(kind, args, kwargs):
    """The first ``kind`` instance among a call's (nested) arguments."""
    return next(x for x in _leaves(list(args) + list((kwargs or {}).values()))
                if isinstance(x, kind))


def carry_metadata(kind, output, source, build):
    """A call's ``output`` (a tensor or a list/tuple of them) as ``kind`` with ``source``'s
    metadata; ``build(tensor, source)`` makes one."""
    if isinstance(output, torch.Tensor):
        return output if isinstance(output, kind) else build(output, source)
    if isinstance(output, (tuple, list)):
        return type(output)(build(part, source) for part in output)
    return output


class BoundingBoxes(TVTensor):
    """Boxes of shape ``[N, K]`` (one box: ``[K]``, made ``[1, K]``); K is 4 for axis-aligned
    formats, 5 for XYWHR / CXCYWHR and 8 for XYXYXYXY (rotated boxes must be floating point).

    Args:
        data: anything :func:`numtorch.as_tensor` takes.
        format (BoundingBoxFormat or str): the coordinate format.
        canvas_size (tuple of two ints): height and width of the image the boxes are on.
        clamping_mode: ``"soft"`` (default), ``"hard"`` or ``None`` (transforms do not clamp
            the boxes to the canvas).
        dtype, device, requires_grad: as for :func:`numtorch.as_tensor`.
    """

    @classmethod
    def _dress(cls, tensor, format, canvas_size, clamping_mode="soft", shape_checked=False):
        if not shape_checked:
            if tensor.ndim == 1:  # a single box
                tensor = tensor.unsqueeze(0)
            if tensor.ndim != 2:
                raise ValueError(f"Expected a 1D or 2D tensor, got {tensor.ndim}D")
        if clamping_mode not in _CLAMPING_MODES:
            raise ValueError(f"clamping_mode must be None, hard or soft, got {clamping_mode}.")
        boxes = _retype(tensor, cls)
        boxes.format, boxes.canvas_size = _parse_format(format), canvas_size
        boxes.clamping_mode = clamping_mode
        return boxes

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        meta = {name: kwargs.get(name, getattr(like, name))
                for name in ("format", "canvas_size", "clamping_mode")}
        return cls._dress(tensor, **meta)

    def __new__(cls, data, *, format, canvas_size, clamping_mode="soft", dtype=None,
                device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if not torch.is_floating_point(tensor) and is_rotated_bounding_format(format):
            raise ValueError("Rotated bounding boxes should be floating point tensors, got "
                             f"{tensor.dtype}.")
        return cls._dress(tensor, format, canvas_size, clamping_mode)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        # the metadata of the first BoundingBoxes among the arguments
        source = first_of_kind(BoundingBoxes, args, kwargs)
        return carry_metadata(BoundingBoxes, output, source, lambda t, s: BoundingBoxes._dress(
            t, s.format, s.canvas_size, s.clamping_mode, shape_checked=True))

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr(format=self.format, canvas_size=self.canvas_size,
                               clamping_mode=self.clamping_mode)
