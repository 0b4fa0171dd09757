"""Geometric v2 transforms: every image, video, mask and box of a sample moves the same way
(one set of random parameters per call)."""

import math
import warnings
from collections.abc import Sequence

import numtorch as torch

from ... import tv_tensors
from ...tv_tensors._tv_tensor import _plain
from ..transforms import _check_sequence_input, _randint, _setup_angle, _setup_size, _uniform
from . import functional as F
from ._checks import check_padding, check_padding_mode, fill_for, fill_table
from ._kernel_table import kernel_transform
from ._transform import Transform, checked_probability
from ._utils import get_bounding_boxes, has_all, query_size
from .functional._geometry import pad_sides

_HW_ONLY = "Please provide only two dimensions (h, w) for size."
_IOU_OPTIONS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)

RandomHorizontalFlip = kernel_transform(
    "RandomHorizontalFlip", F.horizontal_flip, p=0.5, module=__name__,
    doc="Mirror left-right with probability ``p``.")
RandomVerticalFlip = kernel_transform(
    "RandomVerticalFlip", F.vertical_flip, p=0.5, module=__name__,
    doc="Mirror top-bottom with probability ``p``.")


class _Filled(Transform):
    """A transform that fills new pixels: ``fill`` is a value or a dict by input type."""

    def __init__(self, **settings):
        """``settings`` are the public attributes in repr order, ``fill`` among them."""
        table = fill_table(settings["fill"])
        super().__init__(**settings)
        self._fill_by_type = table

    def _filled(self, kernel, inpt, **kwargs):
        return self._call_kernel(kernel, inpt, fill=fill_for(self._fill_by_type, inpt), **kwargs)


def _optional_pair(value, name, ok, message):
    """``value`` (None or a 2-sequence whose items all satisfy ``ok``)."""
    if value is not None:
        _check_sequence_input(value, name, req_sizes=(2,))
        if not all(ok(v) for v in value):
            raise ValueError(message)
    return value


class Resize(Transform):
    """Resize to ``size`` ((h, w); an int: the shorter edge, keeping the aspect ratio)."""

    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        if size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got "
                                 f"{max_size} instead.")
        elif isinstance(size, int) or (isinstance(size, Sequence) and len(size) in (1, 2)):
            size = [size] if isinstance(size, int) else list(size)
        else:
            raise ValueError("size can be an integer, a sequence of one or two integers, or "
                             f"None, but got {size} instead.")
        super().__init__(size=size, interpolation=interpolation, max_size=max_size,
                         antialias=antialias)

    def transform(self, inpt, params):
        return self._call_kernel(F.resize, inpt, self.size, interpolation=self.interpolation,
                                 max_size=self.max_size, antialias=self.antialias)


class CenterCrop(Transform):
    """The centre ``size`` box (zero-padded when the input is smaller)."""

    def __init__(self, size):
        super().__init__(size=_setup_size(size, error_msg=_HW_ONLY))

    def transform(self, inpt, params):
        return self._call_kernel(F.center_crop, inpt, output_size=self.size)


def _area_and_ratio_box(height, width, scale, log_ratio, ratio):
    """Top, left, height, width of a box of a random share ``scale`` of the area and a random
    aspect ratio (uniform in log space); after ten misses, the largest centred box whose
    ratio is clamped into ``ratio``."""
    for _ in range(10):
        area = height * width * _uniform(scale[0], scale[1])
        aspect = float(torch.exp(torch.tensor(_uniform(*log_ratio))))
        w, h = round(math.sqrt(area * aspect)), round(math.sqrt(area / aspect))
        if 0 < w <= width and 0 < h <= height:
            top = _randint(0, height - h + 1)
            return top, _randint(0, width - w + 1), h, w
    lo, hi = min(ratio), max(ratio)
    shape = float(width) / float(height)
    h, w = height, width
    if shape < lo:
        h = round(w / lo)
    elif shape > hi:
        w = round(h * hi)
    return (height - h) // 2, (width - w) // 2, h, w


class RandomResizedCrop(Transform):
    """A random box of ``scale`` of the area and aspect ratio in ``ratio``, resized to
    ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation="bilinear", antialias=True):
        hw = _setup_size(size, error_msg=_HW_ONLY)
        for value, what in ((scale, "Scale"), (ratio, "Ratio")):
            if not isinstance(value, Sequence) or len(value) != 2:  # (v1 only asks a sequence)
                raise TypeError(f"{what} should be a sequence of two floats.")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        super().__init__(size=hw, scale=scale, ratio=ratio, interpolation=interpolation,
                         antialias=antialias)
        # float32 logs, as torchvision takes them
        self._log_bounds = tuple(float(v) for v in torch.log(torch.tensor(ratio)))

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        box = _area_and_ratio_box(height, width, self.scale, self._log_bounds, self.ratio)
        return dict(zip(("top", "left", "height", "width"), box))

    def transform(self, inpt, params):
        return self._call_kernel(F.resized_crop, inpt, **params, size=self.size,
                                 interpolation=self.interpolation, antialias=self.antialias)


class Pad(_Filled):
    """Pad the borders (``padding``: int, [lr, tb] or [l, t, r, b])."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        check_padding(padding)
        check_padding_mode(padding_mode)
        super().__init__(padding=padding if isinstance(padding, int) else list(padding),
                         fill=fill, padding_mode=padding_mode)

    def transform(self, inpt, params):
        return self._filled(F.pad, inpt, padding=self.padding, padding_mode=self.padding_mode)


class RandomCrop(_Filled):
    """A random ``size`` box, after optional ``padding`` (and padding to ``size`` when
    ``pad_if_needed``)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant"):
        hw = _setup_size(size, error_msg=_HW_ONLY)
        if padding is not None:
            check_padding(padding)
        if padding is not None or pad_if_needed:
            check_padding_mode(padding_mode)
        super().__init__(size=hw, padding=pad_sides(padding) if padding else None,
                         pad_if_needed=pad_if_needed, fill=fill, padding_mode=padding_mode)

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        want_h, want_w = self.size
        left, right, top, bottom = self.padding or (0, 0, 0, 0)
        height, width = height + top + bottom, width + left + right
        if self.pad_if_needed:  # grow both sides by the whole shortfall, as torchvision does
            short_h, short_w = max(want_h - height, 0), max(want_w - width, 0)
            top, bottom, height = top + short_h, bottom + short_h, height + 2 * short_h
            left, right, width = left + short_w, right + short_w, width + 2 * short_w
        if height < want_h or width < want_w:
            padded = "padded " if self.padding is not None else ""
            raise ValueError(f"Required crop size {(want_h, want_w)} is larger than {padded}"
                             f"input image size {(height, width)}.")
        y0 = _randint(0, height - want_h + 1) if height > want_h else 0
        x0 = _randint(0, width - want_w + 1) if width > want_w else 0
        padding = [left, top, right, bottom]
        return {"needs_crop": (height, width) != (want_h, want_w), "top": y0, "left": x0,
                "height": want_h, "width": want_w, "needs_pad": any(padding),
                "padding": padding}

    def transform(self, inpt, params):
        if params["needs_pad"]:
            inpt = self._filled(F.pad, inpt, padding=params["padding"],
                                padding_mode=self.padding_mode)
        if params["needs_crop"]:
            inpt = self._call_kernel(F.crop, inpt, top=params["top"], left=params["left"],
                                     height=params["height"], width=params["width"])
        return inpt


class RandomRotation(_Filled):
    """Rotate by an angle drawn from ``degrees`` ((min, max), or d for (-d, d))."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0):
        span = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        fill_table(fill)  # checked before the centre, as torchvision does
        super().__init__(degrees=span, interpolation=interpolation, expand=expand,
                         fill=fill, center=_optional_pair(center, "center", lambda v: True, ""))

    def make_params(self, flat_inputs):
        return {"angle": _uniform(*self.degrees)}

    def transform(self, inpt, params):
        return self._filled(F.rotate, inpt, angle=params["angle"],
                            interpolation=self.interpolation, expand=self.expand,
                            center=self.center)


class RandomAffine(_Filled):
    """Random rotation (``degrees``), translation (fractions ``translate``), scale and
    shear."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest",
                 fill=0, center=None):
        settings = {
            "degrees": _setup_angle(degrees, name="degrees", req_sizes=(2,)),
            "translate": _optional_pair(translate, "translate", lambda v: 0.0 <= v <= 1.0,
                                        "translation values should be between 0 and 1"),
            "scale": _optional_pair(scale, "scale", lambda v: v > 0,
                                    "scale values should be positive"),
            "shear": None if shear is None else _setup_angle(shear, name="shear",
                                                             req_sizes=(2, 4)),
            "interpolation": interpolation, "fill": fill}
        fill_table(fill)  # checked before the centre, as torchvision does
        settings["center"] = _optional_pair(center, "center", lambda v: True, "")
        super().__init__(**settings)

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        angle = _uniform(*self.degrees)
        shift = (0, 0)
        if self.translate is not None:
            reach = (float(self.translate[0] * width), float(self.translate[1] * height))
            shift = tuple(round(_uniform(-r, r)) for r in reach)
        zoom = 1.0 if self.scale is None else _uniform(*self.scale)
        shear = [0.0, 0.0]
        if self.shear is not None:
            for axis in range(len(self.shear) // 2):
                shear[axis] = _uniform(*self.shear[2 * axis:2 * axis + 2])
        return {"angle": angle, "translate": shift, "scale": zoom, "shear": tuple(shear)}

    def transform(self, inpt, params):
        return self._filled(F.affine, inpt, **params, interpolation=self.interpolation,
                            center=self.center)


class RandomZoomOut(_Filled):
    """Place the sample on a canvas ``side_range`` times larger (filled with ``fill``)."""

    _coin = True

    def __init__(self, fill=0, side_range=(1.0, 4.0), p=0.5):
        checked_probability(p)
        fill_table(fill)
        _check_sequence_input(side_range, "side_range", req_sizes=(2,))
        if not 1.0 <= side_range[0] <= side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")
        super().__init__(p=p, fill=fill, side_range=side_range)

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        lo, hi = self.side_range
        grow = lo + torch.rand(1) * (hi - lo)  # a float32 tensor: the canvas size rounds so
        canvas_w, canvas_h = int(w * grow), int(h * grow)
        where = torch.rand(2)
        left, top = int((canvas_w - w) * where[0]), int((canvas_h - h) * where[1])
        return {"padding": [left, top, canvas_w - w - left, canvas_h - h - top]}

    def transform(self, inpt, params):
        return self._filled(F.pad, inpt, padding=params["padding"])


class RandomIoUCrop(Transform):
    """SSD's crop: a random crop whose overlap (IoU) with some box is at least an option drawn
    from ``sampler_options``; boxes whose centre falls outside the crop are dropped (through
    :class:`SanitizeBoundingBoxes` afterwards, as in torchvision)."""

    def __init__(self, min_scale=0.3, max_scale=1.0, min_aspect_ratio=0.5, max_aspect_ratio=2.0,
                 sampler_options=None, trials=40):
        super().__init__(min_scale=min_scale, max_scale=max_scale,
                         min_aspect_ratio=min_aspect_ratio, max_aspect_ratio=max_aspect_ratio,
                         options=list(_IOU_OPTIONS) if sampler_options is None
                         else sampler_options, trials=trials)

    def check_inputs(self, flat_inputs):
        if not has_all(flat_inputs, tv_tensors.BoundingBoxes):
            raise TypeError(f"{type(self).__name__}() requires input sample to contain "
                            "tensor or PIL images and bounding boxes. Sample can also contain "
                            "masks.")

    def _try_crop(self, h, w, xyxy, min_iou):
        """One trial: a crop box and the boxes whose centre it holds, or None."""
        from numtorchvision.ops import box_iou

        size = self.min_scale + (self.max_scale - self.min_scale) * torch.rand(2)
        crop_w, crop_h = int(w * size[0]), int(h * size[1])
        if not self.min_aspect_ratio <= crop_w / crop_h <= self.max_aspect_ratio:
            return None
        where = torch.rand(2)
        x0, y0 = int((w - crop_w) * where[0]), int((h - crop_h) * where[1])
        x1, y1 = x0 + crop_w, y0 + crop_h
        if x0 == x1 or y0 == y1:
            return None
        mid_x = 0.5 * (xyxy[..., 0] + xyxy[..., 2])
        mid_y = 0.5 * (xyxy[..., 1] + xyxy[..., 3])
        inside = (x0 < mid_x) & (mid_x < x1) & (y0 < mid_y) & (mid_y < y1)
        if not inside.any():
            return None
        if box_iou(xyxy, torch.tensor([[x0, y0, x1, y1]], dtype=xyxy.dtype)).max() < min_iou:
            return None
        return {"top": y0, "left": x0, "height": crop_h, "width": crop_w, "inside": inside}

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        boxes = get_bounding_boxes(flat_inputs)
        xyxy = F.convert_bounding_box_format(_plain(boxes), boxes.format,
                                             tv_tensors.BoundingBoxFormat.XYXY)
        while True:
            min_iou = self.options[_randint(0, len(self.options))]
            if min_iou >= 1.0:  # the option that keeps the sample as it is
                return {}
            for _ in range(self.trials):
                found = self._try_crop(h, w, xyxy, min_iou)
                if found is not None:
                    return found

    def transform(self, inpt, params):
        if not params:
            return inpt
        out = self._call_kernel(F.crop, inpt, top=params["top"], left=params["left"],
                                height=params["height"], width=params["width"])
        if isinstance(out, tv_tensors.BoundingBoxes):
            # boxes whose centre left the crop become empty; SanitizeBoundingBoxes drops them
            out[~params["inside"]] = 0
        return out
