"""jpeg: an encode-decode round trip through JPEG at a given quality (compression
artefacts as a data augmentation), by Pillow's libjpeg."""

import io

import numtorch as torch

from .... import tv_tensors
from ....io.image import decode_jpeg, encode_jpeg
from ._utils import _call, _register


def jpeg(image, quality):
    """``image`` after JPEG compression at ``quality`` (1-100) and decompression."""
    return _call(jpeg, image, quality=quality)


@_register(jpeg, torch.Tensor, tv_tensors.Image, tv_tensors.Video)
def jpeg_image(image, quality):
    """uint8 ``[..., 1 or 3, H, W]``: every image of the batch is encoded on its own."""
    if image.ndim < 3:  # the encoder names the problem
        return decode_jpeg(encode_jpeg(image, quality=quality))
    shape = tuple(image.shape)
    frames = image.reshape((-1,) + shape[-3:])
    if frames.shape[0] == 0:
        return image.clone()
    out = [decode_jpeg(encode_jpeg(frame, quality=quality)) for frame in frames.unbind(0)]
    return torch.stack(out).reshape(shape)


jpeg_video = jpeg_image


@_register(jpeg, "pil")
def _jpeg_image_pil(image, quality):
    from PIL import Image

    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality)
    buf.seek(0)
    out = Image.open(buf)
    out.load()
    return out
