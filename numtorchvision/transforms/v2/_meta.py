"""ConvertBoundingBoxFormat, ClampBoundingBoxes, SetClampingMode and ClampKeyPoints."""

from ... import tv_tensors
from . import functional as F
from ._kernel_table import kernel_transform
from ._transform import Transform

_BOXES = (tv_tensors.BoundingBoxes,)

ClampBoundingBoxes = kernel_transform(
    "ClampBoundingBoxes", F.clamp_bounding_boxes, [("clamping_mode", "auto")], types=_BOXES,
    direct=True, module=__name__,
    doc='Boxes cut to their canvas (``clamping_mode`` "auto": the boxes\' own).')
ClampKeyPoints = kernel_transform(
    "ClampKeyPoints", F.clamp_keypoints, types=(tv_tensors.KeyPoints,), direct=True,
    module=__name__, doc="KeyPoints moved onto the nearest pixel of their canvas.")


class ConvertBoundingBoxFormat(Transform):
    """Boxes to ``format`` (XYXY, XYWH or CXCYWH)."""

    _transformed_types = _BOXES

    def __init__(self, format):
        super().__init__()
        self.format = format

    def transform(self, inpt, params):
        return F.convert_bounding_box_format(inpt, new_format=self.format)


class SetClampingMode(Transform):
    """Boxes with their ``clamping_mode`` set ("soft", "hard" or None) for later transforms."""

    _transformed_types = _BOXES

    def __init__(self, clamping_mode):
        super().__init__()
        self.clamping_mode = clamping_mode
        if clamping_mode not in (None, "soft", "hard"):
            raise ValueError(f"clamping_mode must be soft, hard or None, got {clamping_mode}")

    def transform(self, inpt, params):
        relabelled = inpt.clone()
        relabelled.clamping_mode = self.clamping_mode
        return relabelled
