"""``transforms.v2.functional``: each functional takes any input kind (plain tensor, Image,
Video, Mask, BoundingBoxes, PIL image) and returns the same kind, through the kernel
registered for it; ``register_kernel`` adds kernels for TVTensor kinds of your own."""

import functools
import inspect
import types

from ...functional import InterpolationMode  # noqa: F401
from ._color import (  # noqa: F401
    adjust_brightness,
    adjust_brightness_image,
    adjust_contrast,
    adjust_contrast_image,
    adjust_gamma,
    adjust_gamma_image,
    adjust_hue,
    adjust_hue_image,
    adjust_saturation,
    adjust_saturation_image,
    adjust_sharpness,
    adjust_sharpness_image,
    autocontrast,
    autocontrast_image,
    equalize,
    equalize_image,
    grayscale_to_rgb,
    grayscale_to_rgb_image,
    invert,
    invert_image,
    permute_channels,
    permute_channels_image,
    posterize,
    posterize_image,
    rgb_to_grayscale,
    rgb_to_grayscale_image,
    solarize,
    solarize_image,
    to_grayscale,
)
from ._geometry import (  # noqa: F401
    affine,
    affine_bounding_boxes,
    affine_image,
    affine_mask,
    affine_video,
    center_crop,
    center_crop_bounding_boxes,
    center_crop_image,
    center_crop_mask,
    center_crop_video,
    crop,
    crop_bounding_boxes,
    crop_image,
    crop_mask,
    crop_video,
    hflip,
    horizontal_flip,
    horizontal_flip_bounding_boxes,
    horizontal_flip_image,
    horizontal_flip_mask,
    horizontal_flip_video,
    pad,
    pad_bounding_boxes,
    pad_image,
    pad_mask,
    pad_video,
    resize,
    resize_bounding_boxes,
    resize_image,
    resize_mask,
    resize_video,
    resized_crop,
    resized_crop_bounding_boxes,
    resized_crop_image,
    resized_crop_mask,
    resized_crop_video,
    rotate,
    rotate_bounding_boxes,
    rotate_image,
    rotate_mask,
    rotate_video,
    vertical_flip,
    vertical_flip_bounding_boxes,
    vertical_flip_image,
    vertical_flip_mask,
    vertical_flip_video,
    vflip,
)
from ._geometry_more import (  # noqa: F401
    elastic,
    elastic_bounding_boxes,
    elastic_image,
    elastic_mask,
    elastic_transform,
    elastic_video,
    five_crop,
    five_crop_image,
    five_crop_video,
    perspective,
    perspective_bounding_boxes,
    perspective_image,
    perspective_mask,
    perspective_video,
    ten_crop,
    ten_crop_image,
    ten_crop_video,
)
from ._jpeg import jpeg, jpeg_image, jpeg_video  # noqa: F401
from ._keypoints import (  # noqa: F401
    affine_keypoints, center_crop_keypoints, clamp_keypoints, crop_keypoints, elastic_keypoints,
    get_size_keypoints, horizontal_flip_keypoints, pad_keypoints, perspective_keypoints,
    resize_keypoints, resized_crop_keypoints, rotate_keypoints, sanitize_keypoints,
    vertical_flip_keypoints)
from ._meta import (  # noqa: F401
    clamp_bounding_boxes,
    convert_bounding_box_format,
    get_dimensions,
    get_dimensions_image,
    get_num_channels,
    get_num_channels_image,
    get_num_frames,
    get_num_frames_video,
    get_size,
    get_size_bounding_boxes,
    get_size_image,
    get_size_mask,
)
from ._misc import (  # noqa: F401
    convert_image_dtype,
    erase,
    erase_image,
    erase_video,
    gaussian_blur,
    gaussian_blur_image,
    gaussian_blur_video,
    gaussian_noise,
    gaussian_noise_image,
    gaussian_noise_video,
    get_image_size,
    normalize,
    normalize_image,
    normalize_video,
    sanitize_bounding_boxes,
    to_dtype,
    to_dtype_image,
    to_dtype_video,
    to_tensor,
    uniform_temporal_subsample,
    uniform_temporal_subsample_video,
)
from ._type_conversion import pil_to_tensor, to_image, to_pil_image  # noqa: F401
from ._utils import is_pure_tensor, register_kernel  # noqa: F401

# the video kernels are the image kernels (they work on any leading dimensions)
adjust_brightness_video = adjust_brightness_image
adjust_contrast_video = adjust_contrast_image
adjust_gamma_video = adjust_gamma_image
adjust_hue_video = adjust_hue_image
adjust_saturation_video = adjust_saturation_image
adjust_sharpness_video = adjust_sharpness_image
autocontrast_video = autocontrast_image
equalize_video = equalize_image
invert_video = invert_image
posterize_video = posterize_image
solarize_video = solarize_image
permute_channels_video = permute_channels_image
get_dimensions_video = get_dimensions_image
get_num_channels_video = get_num_channels_image
get_size_video = get_size_image



def _first_renamed(kernel, name, first):
    """``kernel`` under ``name``, its first parameter called ``first`` (torchvision's
    ``*_video`` and ``*_mask`` kernels take ``video=`` / ``mask=``; here most share the image
    kernel)."""
    code = getattr(kernel, "__code__", None)
    if code is not None and code.co_argcount >= 1 and code.co_varnames[0] not in \
            code.co_cellvars and "__wrapped__" not in kernel.__dict__:
        # a copy of the kernel's own function under the new names (the body reads its first
        # argument by position): a bad call's TypeError then names ``name`` and ``first``
        # as torchvision's separate kernels do
        code = code.replace(co_name=name, co_qualname=name,
                            co_varnames=(first, *code.co_varnames[1:]))
        copy = types.FunctionType(code, kernel.__globals__, name, kernel.__defaults__,
                                  kernel.__closure__)
        copy.__kwdefaults__ = kernel.__kwdefaults__
        copy.__doc__ = kernel.__doc__
        copy.__module__ = kernel.__module__
        copy.__dict__.update(kernel.__dict__)
        return copy
    sig = inspect.signature(kernel)
    params = list(sig.parameters.values())

    @functools.wraps(kernel)
    def renamed(*args, **kwargs):
        if first in kwargs:
            args = (kwargs.pop(first), *args)
        return kernel(*args, **kwargs)

    renamed.__name__ = renamed.__qualname__ = name
    renamed.__signature__ = sig.replace(parameters=[params[0].replace(name=first), *params[1:]])
    return renamed


for _name, _kernel in list(globals().items()):
    for _suffix in ("_video", "_mask"):
        if _name.endswith(_suffix) and callable(_kernel) and not _name.startswith("_"):
            _first = _suffix[1:]
            _params = list(inspect.signature(_kernel).parameters)
            if _params and _params[0] not in (_first, "inpt"):
                globals()[_name] = _first_renamed(_kernel, _name, _first)
del _name, _kernel, _suffix, _first, _params

def get_image_num_channels(inpt):
    """Deprecated name of :func:`get_num_channels`."""
    return get_num_channels(inpt)
