"""Geometric v2 transforms: every image, video, mask and box of a sample moves the same way
(one set of random parameters per call)."""

import math
from collections.abc import Sequence

import numtorch as torch

from ... import tv_tensors
from ...tv_tensors._tv_tensor import _plain
from ..transforms import _randint, _uniform
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import (
    _check_padding_arg,
    _check_padding_mode_arg,
    _check_sequence_input,
    _get_fill,
    _setup_angle,
    _setup_fill_arg,
    _setup_size,
    query_size,
)
from .functional._geometry import _parse_pad_padding

_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


class RandomHorizontalFlip(_RandomApplyTransform):
    """Mirror left-right with probability ``p``."""

    def transform(self, inpt, params):
        return self._call_kernel(F.horizontal_flip, inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Mirror top-bottom with probability ``p``."""

    def transform(self, inpt, params):
        return self._call_kernel(F.vertical_flip, inpt)


class Resize(Transform):
    """Resize to ``size`` ((h, w); an int: the shorter edge, keeping the aspect ratio)."""

    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in {1, 2}:
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got "
                                 f"{max_size} instead.")
        else:
            raise ValueError("size can be an integer, a sequence of one or two integers, or "
                             f"None, but got {size} instead.")
        self.size = size
        self.interpolation = interpolation
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt, params):
        return self._call_kernel(F.resize, inpt, self.size, interpolation=self.interpolation,
                                 max_size=self.max_size, antialias=self.antialias)


class CenterCrop(Transform):
    """The centre ``size`` box (zero-padded when the input is smaller)."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def transform(self, inpt, params):
        return self._call_kernel(F.center_crop, inpt, output_size=self.size)


class RandomResizedCrop(Transform):
    """A random box of ``scale`` of the area and aspect ratio in ``ratio``, resized to
    ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation="bilinear", antialias=True):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            import warnings
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation
        self.antialias = antialias
        self._log_ratio = torch.log(torch.tensor(self.ratio))

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        area = height * width
        log_lo, log_hi = float(self._log_ratio[0]), float(self._log_ratio[1])
        for _ in range(10):
            target_area = area * _uniform(self.scale[0], self.scale[1])
            aspect_ratio = float(torch.exp(torch.tensor(_uniform(log_lo, log_hi))))
            w = round(math.sqrt(target_area * aspect_ratio))
            h = round(math.sqrt(target_area / aspect_ratio))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                break
        else:  # fall back to the centre crop of the closest allowed ratio
            in_ratio = float(width) / float(height)
            if in_ratio < min(self.ratio):
                w = width
                h = round(w / min(self.ratio))
            elif in_ratio > max(self.ratio):
                h = height
                w = round(h * max(self.ratio))
            else:
                w, h = width, height
            i = (height - h) // 2
            j = (width - w) // 2
        return {"top": i, "left": j, "height": h, "width": w}

    def transform(self, inpt, params):
        return self._call_kernel(F.resized_crop, inpt, **params, size=self.size,
                                 interpolation=self.interpolation, antialias=self.antialias)


class Pad(Transform):
    """Pad the borders (``padding``: int, [lr, tb] or [l, t, r, b])."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        _check_padding_arg(padding)
        _check_padding_mode_arg(padding_mode)
        if not isinstance(padding, int):
            padding = list(padding)
        self.padding = padding
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.pad, inpt, padding=self.padding, fill=fill,
                                 padding_mode=self.padding_mode)


class RandomCrop(Transform):
    """A random ``size`` box, after optional ``padding`` (and padding to ``size`` when
    ``pad_if_needed``)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant"):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if pad_if_needed or padding is not None:
            if padding is not None:
                _check_padding_arg(padding)
            _check_padding_mode_arg(padding_mode)
        self.padding = _parse_pad_padding(padding) if padding else None
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def make_params(self, flat_inputs):
        padded_h, padded_w = query_size(flat_inputs)
        if self.padding is not None:
            pad_left, pad_right, pad_top, pad_bottom = self.padding
            padded_h += pad_top + pad_bottom
            padded_w += pad_left + pad_right
        else:
            pad_left = pad_right = pad_top = pad_bottom = 0
        crop_h, crop_w = self.size
        if self.pad_if_needed:
            if padded_h < crop_h:
                diff = crop_h - padded_h
                pad_top += diff
                pad_bottom += diff
                padded_h += 2 * diff
            if padded_w < crop_w:
                diff = crop_w - padded_w
                pad_left += diff
                pad_right += diff
                padded_w += 2 * diff
        if padded_h < crop_h or padded_w < crop_w:
            raise ValueError(f"Required crop size {(crop_h, crop_w)} is larger than "
                             f"{'padded ' if self.padding is not None else ''}input image size "
                             f"{(padded_h, padded_w)}.")
        padding = [pad_left, pad_top, pad_right, pad_bottom]
        # torch.randint(..., size=()) draws as a one-element draw does
        top = _randint(0, padded_h - crop_h + 1) if padded_h > crop_h else 0
        left = _randint(0, padded_w - crop_w + 1) if padded_w > crop_w else 0
        return {"needs_crop": padded_h > crop_h or padded_w > crop_w, "top": top, "left": left,
                "height": crop_h, "width": crop_w, "needs_pad": any(padding),
                "padding": padding}

    def transform(self, inpt, params):
        if params["needs_pad"]:
            fill = _get_fill(self._fill, type(inpt))
            inpt = self._call_kernel(F.pad, inpt, padding=params["padding"], fill=fill,
                                     padding_mode=self.padding_mode)
        if params["needs_crop"]:
            inpt = self._call_kernel(F.crop, inpt, top=params["top"], left=params["left"],
                                     height=params["height"], width=params["width"])
        return inpt


class RandomRotation(Transform):
    """Rotate by an angle drawn from ``degrees`` ((min, max), or d for (-d, d))."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        self.interpolation = interpolation
        self.expand = expand
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def make_params(self, flat_inputs):
        return {"angle": _uniform(self.degrees[0], self.degrees[1])}

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.rotate, inpt, **params, interpolation=self.interpolation,
                                 expand=self.expand, center=self.center, fill=fill)


class RandomAffine(Transform):
    """Random rotation (``degrees``), translation (fractions ``translate``), scale and
    shear."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest",
                 fill=0, center=None):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not (0.0 <= t <= 1.0):
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        if shear is not None:
            self.shear = _setup_angle(shear, name="shear", req_sizes=(2, 4))
        else:
            self.shear = shear
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        angle = _uniform(self.degrees[0], self.degrees[1])
        if self.translate is not None:
            max_dx = float(self.translate[0] * width)
            max_dy = float(self.translate[1] * height)
            translate = (round(_uniform(-max_dx, max_dx)),
                         round(_uniform(-max_dy, max_dy)))
        else:
            translate = (0, 0)
        scale = _uniform(self.scale[0], self.scale[1]) if self.scale is not None else 1.0
        shear_x = shear_y = 0.0
        if self.shear is not None:
            shear_x = _uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear_y = _uniform(self.shear[2], self.shear[3])
        return {"angle": angle, "translate": translate, "scale": scale,
                "shear": (shear_x, shear_y)}

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.affine, inpt, **params, interpolation=self.interpolation,
                                 fill=fill, center=self.center)


class RandomZoomOut(_RandomApplyTransform):
    """Place the sample on a canvas ``side_range`` times larger (filled with ``fill``)."""

    def __init__(self, fill=0, side_range=(1.0, 4.0), p=0.5):
        super().__init__(p=p)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        _check_sequence_input(side_range, "side_range", req_sizes=(2,))
        self.side_range = side_range
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        r = self.side_range[0] + torch.rand(1) * (self.side_range[1] - self.side_range[0])
        canvas_w, canvas_h = int(orig_w * r), int(orig_h * r)
        r = torch.rand(2)
        left = int((canvas_w - orig_w) * r[0])
        top = int((canvas_h - orig_h) * r[1])
        right, bottom = canvas_w - (left + orig_w), canvas_h - (top + orig_h)
        return {"padding": [left, top, right, bottom]}

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.pad, inpt, **params, fill=fill)


class RandomIoUCrop(Transform):
    """SSD's crop: a random crop whose overlap (IoU) with some box is at least an option drawn
    from ``sampler_options``; boxes whose centre falls outside the crop are dropped (through
    :class:`SanitizeBoundingBoxes` afterwards, as in torchvision)."""

    def __init__(self, min_scale=0.3, max_scale=1.0, min_aspect_ratio=0.5, max_aspect_ratio=2.0,
                 sampler_options=None, trials=40):
        super().__init__()
        self.min_scale = min_scale
        self.max_scale = max_scale
        self.min_aspect_ratio = min_aspect_ratio
        self.max_aspect_ratio = max_aspect_ratio
        if sampler_options is None:
            sampler_options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]
        self.options = sampler_options
        self.trials = trials

    def check_inputs(self, flat_inputs):
        from ._utils import has_all
        if not has_all(flat_inputs, tv_tensors.BoundingBoxes):
            raise TypeError(f"{type(self).__name__}() requires input sample to contain "
                            "tensor or PIL images and bounding boxes. Sample can also contain "
                            "masks.")

    def make_params(self, flat_inputs):
        from numtorchvision.ops import box_iou

        from ._utils import get_bounding_boxes
        orig_h, orig_w = query_size(flat_inputs)
        bboxes = get_bounding_boxes(flat_inputs)
        while True:
            idx = int(torch.randint(low=0, high=len(self.options), size=(1,)))
            min_jaccard_overlap = self.options[idx]
            if min_jaccard_overlap >= 1.0:  # the "leave as it is" option
                return {}
            for _ in range(self.trials):
                r = self.min_scale + (self.max_scale - self.min_scale) * torch.rand(2)
                new_w = int(orig_w * r[0])
                new_h = int(orig_h * r[1])
                aspect_ratio = new_w / new_h
                if not (self.min_aspect_ratio <= aspect_ratio <= self.max_aspect_ratio):
                    continue
                r = torch.rand(2)
                left = int((orig_w - new_w) * r[0])
                top = int((orig_h - new_h) * r[1])
                right = left + new_w
                bottom = top + new_h
                if left == right or top == bottom:
                    continue
                xyxy = F.convert_bounding_box_format(
                    _plain(bboxes), bboxes.format,
                    tv_tensors.BoundingBoxFormat.XYXY)
                cx = 0.5 * (xyxy[..., 0] + xyxy[..., 2])
                cy = 0.5 * (xyxy[..., 1] + xyxy[..., 3])
                is_within = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
                if not is_within.any():
                    continue
                crop = torch.tensor([[left, top, right, bottom]], dtype=xyxy.dtype)
                ious = box_iou(xyxy, crop)
                if ious.max() < min_jaccard_overlap:
                    continue
                return {"top": top, "left": left, "height": new_h, "width": new_w,
                        "is_within_crop_area": is_within}

    def transform(self, inpt, params):
        if len(params) < 1:
            return inpt
        output = self._call_kernel(F.crop, inpt, top=params["top"], left=params["left"],
                                   height=params["height"], width=params["width"])
        if isinstance(output, tv_tensors.BoundingBoxes):
            # boxes whose centre left the crop become empty; SanitizeBoundingBoxes drops them
            output[~params["is_within_crop_area"]] = 0
        return output


