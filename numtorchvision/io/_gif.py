"""GIF decoding as torchvision's giflib-based ``decode_gif`` composes frames.

The file's blocks are read here; each frame's LZW-coded indices are unpacked by Pillow (the
frame re-wrapped alone, so Pillow does no compositing of its own). Frames are then composed
the way torchvision does it:

- the canvas is max(logical screen, first frame) in each dimension;
- a frame starts as a copy of the previous one when its own disposal field is unspecified (0),
  "do not dispose" (1) or "restore previous" (3, treated as 1); otherwise ("restore to
  background", 2, and always for the first frame) the logical-screen area is filled with the
  global palette's background colour (black without a global palette);
- the frame's pixels are drawn at its offset (clipped to the canvas), skipping those whose
  index is the frame's transparent index.
"""

import io
import struct

import numpy as np


class GifError(RuntimeError):
    """A refusal by torchvision's decoder; ``line`` is its check's line in decode_gif.cpp."""

    def __init__(self, message):
        super().__init__(message)
        self.line = 76  # DGifSlurp
        for start, line in (("DGifOpenFileName", 68), ("Global and local", 115)):
            if message.startswith(start):
                self.line = line


def _sub_blocks(data, pos):
    """(payload, position after the block terminator) of the data sub-blocks at ``pos``."""
    parts = []
    while True:
        if pos >= len(data):
            raise GifError("DGifSlurp() failed - 102")  # giflib: D_GIF_ERR_READ_FAILED
        n = data[pos]
        pos += 1
        if n == 0:
            return b"".join(parts), pos
        if pos + n > len(data):
            raise GifError("DGifSlurp() failed - 102")
        parts.append(data[pos:pos + n])
        pos += n


def _palette(data, pos, flags):
    n = 2 << (flags & 7)
    if pos + 3 * n > len(data):
        raise GifError("DGifSlurp() failed - 102")
    return np.frombuffer(data, np.uint8, 3 * n, pos).reshape(n, 3), pos + 3 * n


def parse(data):
    """(screen width, screen height, global palette or None, background index, frames); each
    frame a dict of left, top, width, height, interlace, palette, lzw (code size byte + the
    sub-blocks, as stored), disposal and transparent index (-1 for none)."""
    if len(data) < 6:
        raise GifError("DGifOpenFileName() failed - 102")  # D_GIF_ERR_READ_FAILED
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise GifError("DGifOpenFileName() failed - 103")  # D_GIF_ERR_NOT_GIF_FILE
    if len(data) < 13:
        raise GifError("DGifOpenFileName() failed - 102")
    sw, sh, flags, bg = struct.unpack_from("<HHBB", data, 6)
    pos = 13
    gpal = None
    if flags & 0x80:
        gpal, pos = _palette(data, pos, flags)
    frames = []
    gcb = None
    while True:
        if pos >= len(data):
            raise GifError("DGifSlurp() failed - 102")
        kind = data[pos]
        pos += 1
        if kind == 0x3B:  # trailer
            break
        if kind == 0x21:  # extension: the first graphic control block before a frame counts
            if pos >= len(data):
                raise GifError("DGifSlurp() failed - 102")
            label, first = data[pos], data[pos + 1] if pos + 1 < len(data) else 0
            payload, pos = _sub_blocks(data, pos + 1)
            if label == 0xF9 and gcb is None:
                # giflib reads the first sub-block, and only when it holds 4 bytes (else the
                # frame keeps the defaults: no disposal given, no transparent index)
                gcb = (0, -1)
                if first == 4:
                    packed, _delay, tindex = struct.unpack_from("<BHB", payload, 0)
                    gcb = ((packed >> 2) & 7, tindex if packed & 1 else -1)
            continue
        if kind != 0x2C:
            raise GifError("DGifSlurp() failed - 107")  # D_GIF_ERR_WRONG_RECORD
        if pos + 9 > len(data):
            raise GifError("DGifSlurp() failed - 102")
        left, top, w, h, fflags = struct.unpack_from("<HHHHB", data, pos)
        pos += 9
        lpal = None
        if fflags & 0x80:
            lpal, pos = _palette(data, pos, fflags)
        start = pos
        if pos >= len(data):
            raise GifError("DGifSlurp() failed - 102")
        _, pos = _sub_blocks(data, pos + 1)
        disposal, transparent = gcb if gcb is not None else (0, -1)
        frames.append({"left": left, "top": top, "width": w, "height": h,
                       "interlace": bool(fflags & 0x40), "palette": lpal,
                       "lzw": data[start:pos], "disposal": disposal,
                       "transparent": transparent})
        gcb = None
    if not frames:
        raise GifError("DGifSlurp() failed - 105")  # D_GIF_ERR_NO_IMAG_DSCR
    return sw, sh, gpal, bg, frames


def _indices(frame, image_module):
    """The frame's (height, width) palette indices, unpacked by Pillow from the frame alone."""
    w, h = frame["width"], frame["height"]
    if w == 0 or h == 0:
        return np.zeros((h, w), np.uint8)
    wrapped = (b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF7, 0, 0) + bytes(768)
               + b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0x40 if frame["interlace"] else 0)
               + frame["lzw"] + b"\x3b")
    img = image_module.open(io.BytesIO(wrapped), formats=["GIF"])
    img.load()
    if img.mode not in ("P", "L"):
        img = img.convert("P")
    return np.asarray(img, dtype=np.uint8)


def decode(data, image_module):
    """(N, H, W, 3) uint8 frames composed as torchvision's decode_gif does."""
    sw, sh, gpal, bg_index, frames = parse(data)
    bg = np.zeros(3, np.uint8)
    if gpal is not None and bg_index < len(gpal):
        bg = gpal[bg_index]
    out_h = max(sh, frames[0]["height"])
    out_w = max(sw, frames[0]["width"])
    out = np.zeros((len(frames), out_h, out_w, 3), np.uint8)
    for i, frame in enumerate(frames):
        pal = frame["palette"] if frame["palette"] is not None else gpal
        if pal is None:
            raise GifError("Global and local color maps are missing. This should never happen!")
        if i > 0 and frame["disposal"] in (0, 1, 3):
            out[i] = out[i - 1]
        else:
            out[i, :sh, :sw] = bg
        idx = _indices(frame, image_module)
        top, left = frame["top"], frame["left"]
        idx = idx[:max(out_h - top, 0), :max(out_w - left, 0)]
        fh, fw = idx.shape
        if fh == 0 or fw == 0:
            continue
        full = np.zeros((256, 3), np.uint8)  # indices past the palette's end read as black
        full[:len(pal)] = pal
        region = out[i, top:top + fh, left:left + fw]
        keep = idx != frame["transparent"]
        region[keep] = full[idx[keep]]
    return out
