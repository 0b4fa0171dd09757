"""ConvertBoundingBoxFormat and ClampBoundingBoxes."""

from ... import tv_tensors
from . import functional as F
from ._transform import Transform


class ConvertBoundingBoxFormat(Transform):
    """Boxes to ``format`` (XYXY, XYWH or CXCYWH)."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, format):
        super().__init__()
        self.format = format

    def transform(self, inpt, params):
        return F.convert_bounding_box_format(inpt, new_format=self.format)


class ClampBoundingBoxes(Transform):
    """Boxes cut to their canvas (``clamping_mode`` "auto": the boxes' own)."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode="auto"):
        super().__init__()
        self.clamping_mode = clamping_mode

    def transform(self, inpt, params):
        return F.clamp_bounding_boxes(inpt, clamping_mode=self.clamping_mode)


class SetClampingMode(Transform):
    """Boxes with their ``clamping_mode`` set ("soft", "hard" or None) for later transforms."""

    _transformed_types = (tv_tensors.BoundingBoxes,)

    def __init__(self, clamping_mode):
        super().__init__()
        self.clamping_mode = clamping_mode
        if self.clamping_mode not in (None, "soft", "hard"):
            raise ValueError(f"clamping_mode must be soft, hard or None, got {clamping_mode}")

    def transform(self, inpt, params):
        out = inpt.clone()
        out.clamping_mode = self.clamping_mode
        return out


class ClampKeyPoints(Transform):
    """KeyPoints moved onto the nearest pixel of their canvas."""

    _transformed_types = (tv_tensors.KeyPoints,)

    def transform(self, inpt, params):
        return F.clamp_keypoints(inpt)
