"""The tensor side of ``transforms.functional``: colour, dtype and pixel-value operations on
``[..., C, H, W]`` numtorch tensors.

Every function works on whole tensors with numtorch ops (so float images keep their autograd
graph); the geometric ones (pad, resize, affine, ...) are in ``_functional_tensor_geometry``.
"""

import numpy as np

import numtorch as torch

_MAX = {torch.uint8: 255, torch.int8: 127, torch.int16: 32767, torch.int32: 2147483647,
        torch.int64: 9223372036854775807}
if hasattr(torch, "uint16"):
    _MAX[torch.uint16] = 65535


def _max_value(dtype):
    """The value that stands for full intensity in ``dtype`` (1 for floating types)."""
    return _MAX.get(dtype, 1)


def _is_float_dtype(dtype):
    return dtype.is_floating_point


def _assert_image_tensor(img):
    if img.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img):
    _assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    return [channels, img.shape[-2], img.shape[-1]]


def get_image_size(img):
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img):
    _assert_image_tensor(img)
    return 1 if img.ndim == 2 else img.shape[-3]


def _assert_channels(img, permitted):
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but "
                        f"found {c}")


def _need_3d(img):
    if img.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")


def convert_image_dtype(image, dtype=torch.float32):
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if _is_float_dtype(dtype):
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed "
                               f"safely.")
        # scaling by max + 1 - eps spreads [0, 1] evenly over the integer levels while
        # keeping 1.0 inside the range
        return image.mul(float(_max_value(dtype)) + 1.0 - 1e-3).to(dtype)
    in_max = _max_value(image.dtype)
    if _is_float_dtype(dtype):
        return image.to(dtype) / float(in_max)
    out_max = _max_value(dtype)
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return torch.div(image, factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return image.to(dtype) * factor


def vflip(img):
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img):
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img, top, left, height, width):
    _assert_image_tensor(img)
    h, w = img.shape[-2], img.shape[-1]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        from ._functional_tensor_geometry import pad

        # the part of the box outside the image is zero
        ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], ltrb, fill=0)
    return img[..., top:bottom, left:right]


def rgb_to_grayscale(img, num_output_channels=1):
    _need_3d(img)
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    else:
        gray = img.clone()
    return gray.expand(img.shape) if num_output_channels == 3 else gray


def _blend(img1, img2, ratio):
    ratio = float(ratio)
    bound = _max_value(img1.dtype)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def adjust_brightness(img, brightness_factor):
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, torch.zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor):
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    dtype = img.dtype if img.is_floating_point() else torch.float32
    gray = rgb_to_grayscale(img) if get_dimensions(img)[0] == 3 else img
    mean = torch.mean(gray.to(dtype), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor):
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img  # a gray image has no saturation (as in PIL)
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def _rgb2hsv(img):
    r, g, b = img.unbind(dim=-3)
    maxc = torch.amax(img, dim=-3)
    minc = torch.amin(img, dim=-3)
    # gray pixels (max == min) get hue and saturation 0; dividing by 1 there avoids NaN
    # without changing any other pixel
    gray = maxc == minc
    chroma = maxc - minc
    ones = torch.ones_like(maxc)
    s = chroma / torch.where(gray, ones, maxc)
    chroma_div = torch.where(gray, ones, chroma)
    rc = (maxc - r) / chroma_div
    gc = (maxc - g) / chroma_div
    bc = (maxc - b) / chroma_div
    is_r = maxc == r
    is_g = (maxc == g) & ~is_r
    is_b = ~(maxc == g) & ~is_r
    h = is_r * (bc - gc) + is_g * (2.0 + rc - bc) + is_b * (4.0 + gc - rc)
    h = torch.fmod(h / 6.0 + 1.0, 1.0)
    return torch.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(dim=-3)
    sector = torch.floor(h * 6.0)
    f = h * 6.0 - sector
    sector = sector.to(torch.int64) % 6
    p = torch.clamp(v * (1.0 - s), 0.0, 1.0)
    q = torch.clamp(v * (1.0 - s * f), 0.0, 1.0)
    t = torch.clamp(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    # each output channel picks one of six candidates by the hue sector
    table = torch.stack((torch.stack((v, q, p, p, t, v), dim=-3),
                         torch.stack((t, v, v, q, p, p), dim=-3),
                         torch.stack((p, p, t, v, v, q), dim=-3)), dim=-4)
    index = sector.unsqueeze(-3).unsqueeze(-3).expand(*table.shape[:-3], 1, *table.shape[-2:])
    return torch.gather(table, -3, index).squeeze(-3)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor image")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    orig_dtype = img.dtype
    hsv = _rgb2hsv(convert_image_dtype(img, torch.float32))
    h, s, v = hsv.unbind(dim=-3)
    hsv = torch.stack(((h + hue_factor) % 1.0, s, v), dim=-3)
    return convert_image_dtype(_hsv2rgb(hsv), orig_dtype)


def adjust_gamma(img, gamma, gain=1):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be a Tensor.")
    _assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    dtype = img.dtype
    out = img if img.is_floating_point() else convert_image_dtype(img, torch.float32)
    out = (gain * out.pow(gamma)).clamp(0, 1)
    return convert_image_dtype(out, dtype)


def invert(img):
    _assert_image_tensor(img)
    _need_3d(img)
    _assert_channels(img, [1, 3])
    return _max_value(img.dtype) - img


def posterize(img, bits):
    _assert_image_tensor(img)
    _need_3d(img)
    if img.dtype != torch.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    # the top ``bits`` bits, by torchvision's formula (so a float ``bits`` gives its mask too)
    return img & -int(2 ** (8 - bits))


def solarize(img, threshold):
    _assert_image_tensor(img)
    _need_3d(img)
    _assert_channels(img, [1, 3])
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return torch.where(img >= threshold, invert(img), img)


def _smooth3x3(img):
    """The 3x3 smoothing filter (centre weight 5, neighbours 1) on the image's interior."""
    from ._functional_tensor_geometry import _cast_squeeze_in, _cast_squeeze_out

    dtype = img.dtype if img.is_floating_point() else torch.float32
    kernel = torch.ones((3, 3), dtype=dtype, device=img.device)
    kernel[1, 1] = 5.0
    kernel = (kernel / kernel.sum()).expand(img.shape[-3], 1, 3, 3)
    x, need_cast, squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    x = torch.nn.functional.conv2d(x, kernel, groups=x.shape[-3])
    x = _cast_squeeze_out(x, need_cast, squeeze, out_dtype)
    out = img.clone()
    out[..., 1:-1, 1:-1] = x
    return out


def adjust_sharpness(img, sharpness_factor):
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _smooth3x3(img), sharpness_factor)


def autocontrast(img):
    _assert_image_tensor(img)
    _need_3d(img)
    _assert_channels(img, [1, 3])
    bound = _max_value(img.dtype)
    dtype = img.dtype if img.is_floating_point() else torch.float32
    low = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    high = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    scale = bound / (high - low)
    flat = ~torch.isfinite(scale)  # a constant channel stays as it is
    low = torch.where(flat, torch.zeros_like(low), low)
    scale = torch.where(flat, torch.ones_like(scale), scale)
    return ((img - low) * scale).clamp(0, bound).to(img.dtype)


def equalize(img):
    _assert_image_tensor(img)
    if not 3 <= img.ndim <= 4:
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found {img.ndim}")
    if img.dtype != torch.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    if img.ndim == 4 and img.shape[0] == 0:  # torchvision stacks the images it equalised
        raise RuntimeError("stack expects a non-empty TensorList")
    arr = img.numpy(force=True)
    planes = arr.reshape(-1, arr.shape[-2] * arr.shape[-1]).astype(np.int64)
    rows = planes.shape[0]
    # one 256-bin histogram per channel plane, all from a single bincount
    offsets = (np.arange(rows) * 256)[:, None]
    hist = np.bincount((planes + offsets).ravel(), minlength=rows * 256).reshape(rows, 256)
    last = 255 - np.argmax(hist[:, ::-1] > 0, axis=1)  # brightest occupied level
    step = (hist.sum(axis=1) - hist[np.arange(rows), last]) // 255
    safe = np.maximum(step, 1)[:, None]
    lut = (np.cumsum(hist, axis=1) + (step // 2)[:, None]) // safe
    lut = np.clip(np.concatenate([np.zeros((rows, 1), np.int64), lut[:, :-1]], axis=1), 0, 255)
    identity = np.broadcast_to(np.arange(256), (rows, 256))
    lut = np.where((step == 0)[:, None], identity, lut)
    out = np.take_along_axis(lut, planes, axis=1).astype(np.uint8).reshape(arr.shape)
    # torchvision's result is row-major whatever the input's layout (NumPy kept a permuted
    # input's strides, and .view on the result then failed)
    return torch.from_numpy(np.ascontiguousarray(out)).to(img.device)


def normalize(tensor, mean, std, inplace=False):
    _assert_image_tensor(tensor)
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {tensor.size()}")
    if not inplace and not tensor.requires_grad and tensor.device.type == "cpu" \
            and tensor.dtype is not torch.bfloat16 \
            and not isinstance(mean, torch.Tensor) and not isinstance(std, torch.Tensor):
        return _normalize_array(tensor, mean, std)
    dtype = tensor.dtype
    mean = torch.as_tensor(mean, dtype=dtype, device=tensor.device)
    std = torch.as_tensor(std, dtype=dtype, device=tensor.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to "
                         f"division by zero.")
    channels = tensor.shape[-3]
    for name, value in (("mean", mean), ("std", std)):
        if value.ndim == 1 and value.shape[0] not in (1, channels):
            raise RuntimeError(_broadcast_message(channels, value.shape[0], tensor.ndim))
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    if inplace:
        return tensor.sub_(mean).div_(std)
    return (tensor - mean) / std


def _broadcast_message(channels, count, ndim):
    """torch's broadcasting error for a per-channel mean/std of the wrong length (its
    normalize subtracts a (C, 1, 1) view, so the failing dimension is the channel one)."""
    return (f"The size of tensor a ({channels}) must match the size of tensor b ({count}) "
            f"at non-singleton dimension {ndim - 3}")


def _normalize_array(tensor, mean, std):
    """:func:`normalize` of a CPU tensor outside autograd, in two NumPy operations (the same
    float arithmetic as the tensor path; the per-image cost matters in data loaders)."""
    arr = tensor.numpy()
    m = np.asarray(mean, dtype=arr.dtype)
    s = np.asarray(std, dtype=arr.dtype)
    if (s == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to "
                         f"division by zero.")
    channels = arr.shape[-3]
    for name, value in (("mean", m), ("std", s)):
        if value.ndim == 1 and value.shape[0] not in (1, channels):
            raise RuntimeError(_broadcast_message(channels, value.shape[0], arr.ndim))
    if m.ndim == 1:
        m = m.reshape(-1, 1, 1)
    if s.ndim == 1:
        s = s.reshape(-1, 1, 1)
    out = np.subtract(arr, m)
    np.divide(out, s, out=out)
    return torch.from_numpy(out)


def erase(img, i, j, h, w, v, inplace=False):
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
