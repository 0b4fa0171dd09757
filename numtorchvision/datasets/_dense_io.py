"""Readers for the flow and disparity files of the optical-flow and stereo datasets:
Middlebury ``.flo``, ``.pfm`` and KITTI-style 16-bit RGB PNGs (flow + valid bit)."""

import os
import re
import struct

import numpy as np

from .._pil import pil


def _read_flo(file_name):
    """A ``.flo`` file ("PIEH", width, height, then row-major (u, v) float32 pairs) as a
    ``(2, H, W)`` float32 array."""
    with open(file_name, "rb") as f:
        if f.read(4) != b"PIEH":
            raise ValueError("Magic number incorrect. Invalid .flo file")
        header = f.read(8)
        if len(header) < 8:
            raise ValueError("Invalid .flo file: truncated header")
        w, h = struct.unpack("<ii", header)
        if w < 0 or h < 0:  # (NumPy would take -1 as "infer this size")
            raise ValueError(f"Invalid .flo file: negative size {w} x {h}")
        # the sizes come from the file: checked against its length before NumPy allocates
        # them (a 100000 x 100000 header on a small file asked for 75 GiB)
        available = (os.fstat(f.fileno()).st_size - f.tell()) // 4
        if 2 * w * h > available:
            raise ValueError(f"cannot reshape array of size {available} into shape "
                             f"({h},{w},2)")
        data = np.fromfile(f, "<f4", count=2 * w * h)
    return data.reshape(h, w, 2).transpose(2, 0, 1)


def _read_pfm(file_name, slice_channels=2):
    """A PFM file as a ``(C, H, W)`` float32 array (top row first), keeping at most
    ``slice_channels`` channels; a negative scale marks little-endian data."""
    with open(file_name, "rb") as f:
        kind = f.readline().rstrip()
        if kind not in (b"PF", b"Pf"):
            raise ValueError("Invalid PFM file")
        size = re.match(rb"^(\d+)\s(\d+)\s$", f.readline())
        if size is None:
            raise Exception("Malformed PFM header.")
        w, h = (int(v) for v in size.groups())
        scale = float(f.readline().rstrip())
        data = np.fromfile(f, "<f4" if scale < 0 else ">f4")
    channels = 3 if kind == b"PF" else 1
    # rows are stored bottom-up
    data = data.reshape(h, w, channels).transpose(2, 0, 1)[:, ::-1]
    return data[:slice_channels].astype(np.float32)


def _png_header_and_data(data, file_name):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{file_name} is not a PNG file")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        if tag == b"IHDR":
            header = struct.unpack(">IIBBBBB", data[pos + 8:pos + 21])
        elif tag == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + length])
        elif tag == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise ValueError(f"{file_name} is not a PNG file (no IHDR chunk)")
    return header, b"".join(idat)


def _read_png16_rgb(file_name):
    """A 16-bit RGB PNG as an ``(H, W, 3)`` uint16 array.

    Pillow opens such files as 8-bit RGB (keeping the high bytes), so its PNG decoder (zlib +
    row filters with the file's 6-byte pixels) is asked twice for the same stream, once
    keeping each sample's high byte and once its low byte."""
    with open(file_name, "rb") as f:
        data = f.read()
    (w, h, depth, color, _, _, interlace), idat = _png_header_and_data(data, file_name)
    if (depth, color) != (16, 2):
        # not the 16-bit RGB case: Pillow reads it exactly
        arr = np.asarray(pil().open(file_name).convert("RGB")).astype(np.uint16)
        return arr
    Image = pil()
    limit = Image.MAX_IMAGE_PIXELS
    if limit is not None and w * h > 2 * limit:  # what Image.open refuses, frombytes does not
        raise Image.DecompressionBombError(f"Image size ({w * h} pixels) exceeds limit of "
                                           f"{2 * limit} pixels, could be decompression bomb "
                                           f"DOS attack.")
    high = np.asarray(Image.frombytes("RGB", (w, h), idat, "zip", ("RGB;16B", interlace)))
    low = np.asarray(Image.frombytes("RGB", (w, h), idat, "zip", ("RGB;16L", interlace)))
    return (high.astype(np.uint16) << 8) | low


def _read_16bits_png_with_flow_and_valid_mask(file_name):
    """A KITTI-style flow PNG: channels 0-1 hold ``flow * 64 + 2**15``, channel 2 is 1 where
    the flow is valid. Returns the ``(2, H, W)`` float32 flow and the ``(H, W)`` bool mask."""
    arr = _read_png16_rgb(file_name).astype(np.float32).transpose(2, 0, 1)
    flow = (arr[:2] - 2 ** 15) / 64
    return flow, arr[2].astype(bool)
