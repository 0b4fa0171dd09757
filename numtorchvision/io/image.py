"""Reading, decoding, encoding and writing images as uint8 tensors, through Pillow.

Decoded images are (C, H, W) tensors; encoded images and raw files are 1-D uint8 tensors of
the file's bytes. Pillow's decoders stand in for torchvision's libjpeg/libpng ones: PNG pixels
are identical, JPEG pixels may differ by a level where the two libjpeg builds round the
inverse DCT differently.
"""

import io
import os
from enum import Enum

import numpy as np

import numtorch as torch

from .._pil import pil, pil_submodule
from . import _gif, _png16

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_image", "decode_jpeg",
           "decode_png", "decode_gif", "decode_webp", "decode_avif", "decode_heic",
           "encode_jpeg", "encode_png", "read_image", "write_jpeg", "write_png"]


class ImageReadMode(Enum):
    """Channels of a decoded image: as stored (``UNCHANGED``), or converted to ``GRAY``,
    ``GRAY_ALPHA``, ``RGB`` or ``RGB_ALPHA`` (also called ``RGBA``)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


_PIL_MODE = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA",
             ImageReadMode.RGB: "RGB", ImageReadMode.RGB_ALPHA: "RGBA"}


# torchvision's file reader and writer check their input as its C++ code does and raise a
# RuntimeError whose text starts with the function, the source file and the line
_RW_FILE = "/__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/cpu/read_write_file.cpp"


def _rw_check(ok, func, line, message):
    if not ok:
        raise RuntimeError(f"{func}, {_RW_FILE}:{line}, {message}")


def read_file(path):
    """The bytes of the file at ``path`` as a 1-D uint8 tensor (a missing or empty file is a
    RuntimeError, as in torchvision)."""
    path = str(path)
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        _rw_check(False, "read_file", 52,
                  f"[Errno {exc.errno}] {os.strerror(exc.errno)}: '{path}'")
    _rw_check(size > 0, "read_file", 57, "Expected a non empty file")
    with open(path, "rb") as f:
        data = f.read()
    return torch.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


_IMAGE_SRC = "/__w/vision/vision/pytorch/vision/torchvision/csrc/io/image/"
# the names torchvision's checks print for a tensor's dtype (caffe2 TypeMeta names)
_TYPE_NAMES = {"int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
               "uint16": "short unsigned int", "uint32": "unsigned int",
               "uint64": "long unsigned int", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
               "bool": "bool", "complex64": "c10::complex<float>",
               "complex128": "c10::complex<double>"}


def _fail(func, src, line, message):
    raise RuntimeError(f"{func}, {_IMAGE_SRC}{src}:{line}, {message}")


def _check_encoded(data):
    """torchvision's check of the bytes given to decode_jpeg/png/gif/webp (common.cpp)."""
    if not data.is_contiguous():
        _fail("validate_encoded_data", "common.cpp", 16, "Input tensor must be contiguous.")
    if data.dtype != torch.uint8:
        name = str(data.dtype).replace("torch.", "")
        _fail("validate_encoded_data", "common.cpp", 18,
              f"Input tensor must have uint8 data type, got {_TYPE_NAMES.get(name, name)}")
    if data.dim() != 1 or data.numel() == 0:
        _fail("validate_encoded_data", "common.cpp", 22,
              f"Input tensor must be 1-dimensional and non-empty, got {data.dim()} dims  and "
              f"{data.numel()} numels.")


def _bytes_of(data, what):
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"{what}: expected a 1-D uint8 tensor of bytes, got {type(data)}")
    if what == "decode_image":  # decode_image.cpp's own checks
        if data.device.type != "cpu":
            _fail(what, "cpu/decode_image.cpp", 16, "Expected a CPU tensor")
        if data.dtype != torch.uint8:
            _fail(what, "cpu/decode_image.cpp", 18, "Expected a torch.uint8 tensor")
        if data.dim() != 1 or data.numel() == 0:
            _fail(what, "cpu/decode_image.cpp", 20, "Expected a non empty 1-dimensional tensor")
    elif what in ("decode_jpeg", "decode_png", "decode_gif", "decode_webp"):
        _check_encoded(data)
    else:
        if data.dtype != torch.uint8:
            raise RuntimeError(f"{what}: expected a uint8 tensor, got {data.dtype}")
        if data.dim() != 1:
            raise RuntimeError(f"{what}: expected a 1-D tensor of bytes, got {data.dim()} "
                               f"dimensions")
    return data.numpy(force=True).tobytes()


def write_file(filename, data):
    """Write the bytes of the 1-D uint8 tensor ``data`` to ``filename``."""
    filename = str(filename)
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"write_file: expected a 1-D uint8 tensor of bytes, got {type(data)}")
    _rw_check(data.device.type == "cpu", "write_file", 86, "Input tensor should be on CPU")
    _rw_check(data.dtype == torch.uint8, "write_file", 90, "Input tensor dtype should be uint8")
    _rw_check(data.dim() == 1, "write_file", 94, "Input data should be a 1-dimensional tensor")
    raw = data.numpy(force=True).tobytes()
    try:
        f = open(filename, "wb")  # noqa: SIM115 - the open failure is the check
    except OSError:
        _rw_check(False, "write_file", 106, "Error opening output file")
    with f:
        f.write(raw)


def _mode_of(mode):
    if isinstance(mode, str):
        return ImageReadMode[mode.upper()]
    return mode


def _to_tensor(img, mode, apply_exif_orientation):
    """Pillow image -> (C, H, W) tensor in the requested channel layout."""
    raw_cmyk = img.format == "JPEG" and img.mode == "CMYK" and mode == ImageReadMode.UNCHANGED
    if apply_exif_orientation:
        img = pil_submodule("ImageOps").exif_transpose(img)
    if raw_cmyk:
        # torchvision's libjpeg decoder gives a CMYK JPEG's four stored channels; Pillow
        # reads them inverted (the Adobe convention), so invert them back
        arr = 255 - np.array(img)
        return torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    if mode == ImageReadMode.UNCHANGED:
        if img.mode == "P":
            img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        elif img.mode == "1":
            img = img.convert("L")
        elif img.mode == "PA":
            img = img.convert("RGBA")
        elif img.mode not in ("L", "LA", "RGB", "RGBA", "I;16", "I;16B", "I"):
            img = img.convert("RGB")  # CMYK, YCbCr, ... come out as RGB
    else:
        img = img.convert(_PIL_MODE[mode])
    arr = np.array(img)
    if img.mode in ("I;16", "I;16B", "I"):
        # 16-bit images (16-bit PNGs are read by _png16): their levels as uint16, as
        # torchvision returns them
        arr = arr.astype(np.int32 if img.mode == "I" else np.uint16)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def _open(data, what, formats=None, rawmode=None, mode=None):
    Image = pil()
    try:
        img = Image.open(io.BytesIO(data), formats=formats)
        if rawmode is not None:  # the bytes unpacked another way (16-bit PNGs, _png16)
            img.tile = [tile._replace(args=rawmode) for tile in img.tile]
        if mode == ImageReadMode.GRAY and img.format == "JPEG" and img.mode == "RGB":
            # libjpeg's own grey output (the luma plane, as torchvision asks libjpeg for
            # it), not grey mixed from the decoded RGB: those differ by up to ~15 levels
            img.draft("L", img.size)
        img.load()
    except Exception as exc:  # Pillow raises several kinds for bad data
        kinds = "/".join(formats) if formats else "image"
        raise RuntimeError(f"{what}: the bytes are not a readable {kinds} file ({exc})") from exc
    if img.format == "JPEG" and mode in (ImageReadMode.GRAY_ALPHA, ImageReadMode.RGB_ALPHA):
        # torchvision's libjpeg decoder converts to grey or RGB only
        _fail("decode_jpeg", "cpu/decode_jpeg.cpp", 208,
              "The provided mode is not supported for JPEG files")
    return img


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _decode_png(data, mode, apply_exif_orientation, what):
    """PNG ``data`` as torchvision's libpng decoder gives it, with its refusals
    (decode_png.cpp in the shipped image.so): fewer than 8 bytes (line 61), no PNG signature
    (63), and any error libpng reports while reading, such as missing image data or a bad
    chunk ("Internal error.", 59)."""
    if len(data) < 8:
        _fail("decode_png", "cpu/decode_png.cpp", 61, "Content is too small for png!")
    if data[:8] != _PNG_SIGNATURE:
        _fail("decode_png", "cpu/decode_png.cpp", 63, "Content is not png!")
    try:
        return _read_png(data, mode, apply_exif_orientation, what)
    except RuntimeError as exc:
        if str(exc).startswith("decode_png, "):
            raise
        _fail("decode_png", "cpu/decode_png.cpp", 59, "Internal error.")


def _read_png(data, mode, apply_exif_orientation, what):
    """PNG ``data`` as torchvision's libpng decoder gives it: uint16 levels for a 16-bit
    image, and a refusal when the image data holds fewer rows than the header says."""
    head = _png16.header(data)
    kinds = what.split("_")[-1].upper() if what != "decode_image" else "image"
    if _png16.missing_rows(data):
        raise RuntimeError(f"{what}: the bytes are not a readable {kinds} file (not enough "
                           f"image data)")
    if head is None or head[2] != 16:
        img = _open(data, what, formats=["PNG"] if what == "decode_png" else None)
        if head is None or img.format != "PNG":
            return _to_tensor(img, _mode_of(mode), apply_exif_orientation)
        if apply_exif_orientation:
            img = pil_submodule("ImageOps").exif_transpose(img)
        levels = _png8_levels(img, head[3], _mode_of(mode).name)
        return torch.from_numpy(np.ascontiguousarray(levels.transpose(2, 0, 1)))
    ctype = head[3]
    if ctype in _png16.RAW16:
        levels = _png16.levels16(ctype, [np.array(_open(data, what, ["PNG"], rawmode=raw))
                                         for raw in _png16.RAW16[ctype]])
    else:  # 16-bit grey: Pillow's own I;16 image holds the levels
        levels = np.array(_open(data, what, ["PNG"])).astype(np.uint16)[..., None]
    levels = _png16.convert(levels, _mode_of(mode).name)
    if apply_exif_orientation:
        try:
            orientation = pil().open(io.BytesIO(data)).getexif().get(0x0112)
        except Exception:  # noqa: BLE001 - no readable EXIF: nothing to turn
            orientation = None
        levels = _png16.orient(levels, orientation)
    return torch.from_numpy(np.ascontiguousarray(levels.transpose(2, 0, 1)))


def _png8_levels(img, ctype, mode):
    """(H, W, C) uint8 samples of a PNG of at most 8 bits per sample, as torchvision's libpng
    decoder gives them for ``mode``: ``UNCHANGED`` keeps what the file stores (a palette
    image's indices, one channel); grey from colour is libpng's truncating mix; a tRNS
    chunk only counts where a palette is expanded."""
    if ctype == 3:  # palette: indices, or the palette's colours (with tRNS as alpha)
        trns = "transparency" in img.info
        if mode == "UNCHANGED":
            if img.mode == "P":
                return np.array(img)[..., None]
            return np.array(img.convert("RGBA" if trns else "RGB"))
        colour = np.array(img.convert("RGBA" if trns else "RGB"))
        if mode == "RGB_ALPHA" or (mode == "GRAY_ALPHA" and trns):
            return _png16.convert(colour if trns else _png16.with_alpha(colour, 255), mode,
                                  bits=8)
        return _png16.convert(colour[..., :3], mode, bits=8)
    if ctype in (0, 4):  # grey (1/2/4-bit levels are stretched to 8 bits), grey + alpha
        arr = np.array(img.convert("LA" if ctype == 4 else "L") if img.mode not in
                       ("L", "LA") else img)
        if arr.ndim == 3 and ctype == 0:
            arr = arr[..., :1]
    else:  # RGB, RGBA
        arr = np.array(img.convert("RGBA" if ctype == 6 else "RGB")
                       if img.mode not in ("RGB", "RGBA") else img)
        if ctype == 2:
            arr = arr[..., :3]
    if arr.ndim == 2:
        arr = arr[..., None]
    return _png16.convert(arr, mode, bits=8)


_UNSUPPORTED = ("Unsupported image file. Only jpeg, png, webp and gif are currently supported. "
                "For avif and heic format, please rely on `decode_avif` and `decode_heic` "
                "directly.")


def _signature(data):
    """The format torchvision's decode_image reads from the first bytes ("jpeg", "png",
    "gif", "webp" or None), refusing data too short for the next signature as it does."""
    n = len(data)
    for size, line, kind, match in (
            (3, 30, "jpeg", data[:3] == b"\xff\xd8\xff"),
            (4, 36, "png", data[:4] == b"\x89PNG"),
            (6, 45, "gif", data[:6] in (b"GIF87a", b"GIF89a")),
            (15, 54, "webp", data[:4] == b"RIFF" and data[8:15] == b"WEBPVP8")):
        if n < size:
            _fail("decode_image", "cpu/decode_image.cpp", line, _UNSUPPORTED)
        if match:
            return kind
    return None


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decode JPEG, PNG, GIF, WEBP (and any format Pillow reads) bytes, or the file at the
    path ``input``, to a (C, H, W) uint8 tensor (uint16 for a 16-bit PNG)."""
    if not isinstance(input, torch.Tensor):
        input = read_file(str(input))
    data = _bytes_of(input, "decode_image")
    kind = _signature(data)
    if kind is not None:  # handed to that format's decoder, which checks the tensor again
        _check_encoded(input)
    if kind == "png":
        return _decode_png(data, mode, apply_exif_orientation, "decode_image")
    if kind == "gif":  # as torchvision: decode_gif, whatever the mode
        return decode_gif(input)
    if kind == "jpeg":
        return _to_tensor(_open_jpeg(data, _mode_of(mode)), _mode_of(mode),
                          apply_exif_orientation)
    try:  # (other formats Pillow reads are decoded too, where torchvision refuses them)
        img = _open(data, "decode_image", mode=_mode_of(mode))
    except RuntimeError as exc:
        if isinstance(exc.__cause__, pil().UnidentifiedImageError):  # not an image format
            _fail("decode_image", "cpu/decode_image.cpp", 60, _UNSUPPORTED)
        raise
    if img.format == "WEBP":
        return _webp_tensor(img, _mode_of(mode))
    return _to_tensor(img, _mode_of(mode), apply_exif_orientation)


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decode PNG bytes to a (C, H, W) tensor: uint8, or uint16 for a 16-bit PNG."""
    return _decode_png(_bytes_of(input, "decode_png"), mode, apply_exif_orientation,
                       "decode_png")


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu",
                apply_exif_orientation=False):
    """Decode JPEG bytes (or a list of them) to (C, H, W) uint8 tensors on ``device``."""
    mode = _mode_of(mode)
    if isinstance(input, list):
        if len(input) == 0:
            raise ValueError("Input list must contain at least one element")
        if not all(isinstance(t, torch.Tensor) for t in input):
            raise ValueError("All elements of the input list must be tensors.")
        return [decode_jpeg(t, mode, device, apply_exif_orientation) for t in input]
    if input.device.type != "cpu":
        raise ValueError("Input tensor must be a CPU tensor")
    img = _open_jpeg(_bytes_of(input, "decode_jpeg"), mode)
    return _to_tensor(img, mode, apply_exif_orientation).to(device)


def _open_jpeg(data, mode):
    """Pillow's JPEG reader, refusing what libjpeg refuses with torchvision's texts (its
    decoder reports libjpeg's message at decode_jpeg.cpp:167): bytes without the start-of-image
    marker, and data that ends early ("Image is incomplete or truncated", from torchvision's
    input source when libjpeg asks for more bytes)."""
    if len(data) < 2:
        _fail("decode_jpeg", "cpu/decode_jpeg.cpp", 167, "Image is incomplete or truncated")
    if data[:2] != b"\xff\xd8":
        _fail("decode_jpeg", "cpu/decode_jpeg.cpp", 167,
              f"Not a JPEG file: starts with 0x{data[0]:02x} 0x{data[1]:02x}")
    try:
        return _open(data, "decode_jpeg", formats=["JPEG"], mode=mode)
    except RuntimeError as exc:
        if exc.__cause__ is not None and "runcated" in str(exc.__cause__):
            _fail("decode_jpeg", "cpu/decode_jpeg.cpp", 167, "Image is incomplete or truncated")
        raise


def decode_gif(input):
    """Decode GIF bytes: (C, H, W) for one frame, (N, C, H, W) for an animation, composed as
    torchvision's decoder does (see ``_gif``)."""
    data = _bytes_of(input, "decode_gif")
    try:
        frames = _gif.decode(data, pil())
    except _gif.GifError as exc:
        _fail("decode_gif", "cpu/decode_gif.cpp", exc.line, str(exc))
    except Exception as exc:  # Pillow raises several kinds for bad LZW data
        raise RuntimeError(f"decode_gif, {_IMAGE_SRC}cpu/decode_gif.cpp:76, DGifSlurp() failed "
                           f"- 112 ({exc})") from exc
    out = frames.transpose(0, 3, 1, 2)  # channels-last, as torchvision's decoder gives it
    return torch.from_numpy(out[0] if len(out) == 1 else out)


def decode_webp(input, mode=ImageReadMode.UNCHANGED):
    """Decode WEBP bytes to a (C, H, W) uint8 tensor."""
    img = _open(_bytes_of(input, "decode_webp"), "decode_webp", formats=["WEBP"])
    return _webp_tensor(img, _mode_of(mode))


def _webp_tensor(img, mode):
    """torchvision's libwebp decoder: RGB or RGBA only (RGB_ALPHA asks for RGBA, RGB for RGB;
    any other mode, the grey ones included, keeps the image's own: RGBA when it has alpha)."""
    if getattr(img, "is_animated", False):
        _fail("decode_webp", "cpu/decode_webp.cpp", 33, "Animated webp files are not supported.")
    if mode == ImageReadMode.RGB:
        rgba = False
    elif mode == ImageReadMode.RGB_ALPHA:
        rgba = True
    else:
        rgba = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
    arr = np.array(img.convert("RGBA" if rgba else "RGB"))
    return torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def _decode_optional(input, mode, fmt, what):
    Image = pil()
    Image.init()
    if fmt not in Image.OPEN:
        raise RuntimeError(f"{what}: this Pillow build cannot read {fmt} (it needs Pillow "
                           f"with {fmt} support, or a plugin such as pillow-heif)")
    img = _open(_bytes_of(input, what), what, formats=[fmt])
    return _to_tensor(img, _mode_of(mode), False)


def decode_avif(input, mode=ImageReadMode.UNCHANGED):
    """Decode AVIF bytes to a (C, H, W) uint8 tensor (when Pillow can read AVIF)."""
    return _decode_optional(input, mode, "AVIF", "decode_avif")


def decode_heic(input, mode=ImageReadMode.UNCHANGED):
    """Decode HEIC bytes to a (C, H, W) uint8 tensor (when a HEIF plugin is installed)."""
    return _decode_optional(input, mode, "HEIF", "decode_heic")


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Read and decode the image file at ``path`` to a (C, H, W) uint8 tensor."""
    return decode_image(read_file(path), mode, apply_exif_orientation=apply_exif_orientation)


# torchvision's encoders' checks: (source file, line) of the CPU, dtype, 3-D and channel checks
_ENCODE_LINES = {"encode_png": ("cpu/encode_png.cpp", 117, 121, 125, 134),
                 "encode_jpeg": ("cpu/encode_jpeg.cpp", 66, 70, 74, 83)}


def _to_pil(input, what):
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"{what}: expected a tensor, got {type(input)}")
    # torchvision's encoders: uint8, (C, H, W), grey or RGB only, with its messages
    src, cpu, dtype, dim, chans = _ENCODE_LINES[what]
    if input.device.type != "cpu":
        _fail(what, src, cpu, "Input tensor should be on CPU")
    if input.dtype != torch.uint8:
        _fail(what, src, dtype, "Input tensor dtype should be uint8")
    if input.dim() != 3:
        _fail(what, src, dim, "Input data should be a 3-dimensional tensor")
    channels = input.shape[0]
    modes = {1: "L", 3: "RGB"}
    if channels not in modes:
        _fail(what, src, chans, f"The number of channels should be 1 or 3, got: {channels}")
    arr = input.permute(1, 2, 0).numpy(force=True)
    return pil().fromarray(np.ascontiguousarray(arr[..., 0] if channels == 1 else arr),
                           modes[channels])


def _encoded(img, **save_args):
    buf = io.BytesIO()
    img.save(buf, **save_args)
    return torch.from_numpy(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def encode_png(input, compression_level=6):
    """Encode a (C, H, W) uint8 image (1 or 3 channels) as PNG bytes (1-D uint8 tensor)."""
    if not 0 <= compression_level <= 9:
        _fail("encode_png", "cpu/encode_png.cpp", 112, "Compression level should be between 0 "
              "and 9")
    return _encoded(_to_pil(input, "encode_png"), format="PNG", compress_level=compression_level)


def encode_jpeg(input, quality=75):
    """Encode a (C, H, W) uint8 image (1 or 3 channels), or a list of them, as JPEG bytes."""
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, list):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is "
                             "passed")
        return [encode_jpeg(t, quality) for t in input]
    return _encoded(_to_pil(input, "encode_jpeg"), format="JPEG", quality=quality)


def write_png(input, filename, compression_level=6):
    """Encode ``input`` as PNG and write it to ``filename``."""
    write_file(filename, encode_png(input, compression_level))


def write_jpeg(input, filename, quality=75):
    """Encode ``input`` as JPEG and write it to ``filename``."""
    write_file(filename, encode_jpeg(input, quality))
