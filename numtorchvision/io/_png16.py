"""PNG details Pillow handles otherwise than torchvision's libpng decoder.

16-bit images: torchvision decodes them to their uint16 levels. Pillow reads 16-bit grey
images exactly but narrows 16-bit RGB, grey+alpha and RGBA ones to 8 bits (the high byte), so
those are read through Pillow's own PNG decoder twice with other raw modes (Pillow undoes the
row filters with the right pixel size; one pass unpacks the high bytes, the other the low
ones), or once as plain bytes for grey+alpha.

Image data that inflates to fewer bytes than the header's rows need: libpng refuses the file
("not enough image data"), Pillow fills the missing rows with zeros.
"""

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel
# colour type -> the raw modes whose unpacked bytes give the 16-bit levels
RAW16 = {2: ("RGB;16B", "RGB;16L"), 6: ("RGBA;16B", "RGBA;16L"), 4: ("RGBA",)}


def header(data):
    """``(width, height, depth, colour type, interlace)`` of PNG ``data``, or None."""
    if len(data) < 33 or data[:8] != _SIGNATURE or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">IIBBxxB", data[16:29])


def levels16(ctype, decoded):
    """The (H, W, C) uint16 levels from the arrays Pillow unpacked with ``RAW16[ctype]``."""
    if ctype == 4:  # (grey high, grey low, alpha high, alpha low) bytes per pixel
        b = decoded[0].astype(np.uint16)
        return np.stack([(b[..., 0] << 8) | b[..., 1], (b[..., 2] << 8) | b[..., 3]], axis=-1)
    return (decoded[0].astype(np.uint16) << 8) | decoded[1]


def _idat(data):
    """The concatenated IDAT chunk bodies, as far as the file holds them."""
    pos, parts = 8, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            parts.append(data[pos + 8:pos + 8 + length])
        elif parts or kind == b"IEND":
            break
        pos += 12 + length
    return b"".join(parts)


def missing_rows(data):
    """Whether the image data of the non-interlaced PNG ``data`` inflates to fewer bytes than
    its rows need (False when that cannot be told: Pillow then reports what is wrong)."""
    head = header(data)
    if head is None:
        return False
    width, height, depth, ctype, interlace = head
    if interlace or ctype not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        return False
    need = height * (1 + (width * _CHANNELS[ctype] * depth + 7) // 8)
    if not need or need > 1 << 31:
        return False
    try:
        got = zlib.decompressobj().decompress(_idat(data), need)
    except zlib.error:
        return False  # (Pillow's error says it)
    return len(got) < need


# libpng's rgb_to_gray weights as torchvision sets them (0.2989, 0.587), in 1/32768ths
# (libpng truncates 0.2989 * 32768 and 0.587 * 32768; blue takes the rest)
_RED, _GREEN = 9794, 19234
_BLUE = 32768 - _RED - _GREEN


def _gray(rgb, bits):
    """libpng's rgb_to_gray without gamma: 16-bit samples are rounded, 8-bit ones truncated
    (its historical rule), and a grey pixel (r == g == b) keeps its level."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    mixed = (_RED * r + _GREEN * g + _BLUE * b + (16384 if bits == 16 else 0)) >> 15
    return np.where((r == g) & (g == b), r, mixed).astype(rgb.dtype)[..., None]


def with_alpha(levels, opaque):
    """``levels`` with an opaque alpha channel appended."""
    return np.concatenate([levels, np.full(levels.shape[:2] + (1,), opaque,
                                           dtype=levels.dtype)], axis=2)


def convert(levels, mode, bits=16):
    """``levels`` (H, W, C; uint16 for ``bits=16``, uint8 for 8) in the channel layout
    ``mode`` asks for ("GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA" or "UNCHANGED"), as
    libpng's transforms make it."""
    c = levels.shape[2]
    if mode == "UNCHANGED":
        return levels
    color = levels[..., :3] if c >= 3 else np.repeat(levels[..., :1], 3, axis=2)
    gray = levels[..., :1] if c <= 2 else _gray(levels, bits)
    alpha = levels[..., c - 1:] if c in (2, 4) else np.full(
        levels.shape[:2] + (1,), (1 << bits) - 1, dtype=levels.dtype)
    parts = {"GRAY": (gray,), "GRAY_ALPHA": (gray, alpha), "RGB": (color,),
             "RGB_ALPHA": (color, alpha)}[mode]
    return np.concatenate(parts, axis=2) if len(parts) > 1 else parts[0]


_ORIENT = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
           5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1),
           7: lambda a: np.rot90(a, 1)[::-1], 8: lambda a: np.rot90(a, 1)}


def orient(levels, orientation):
    """``levels`` turned upright for an EXIF ``orientation`` (1-8)."""
    fn = _ORIENT.get(orientation)
    return levels if fn is None else fn(levels)
