"""``grid_sample`` (zeros padding, ``align_corners=False``) of float32 images with torch's CPU
float32 rounding, for the grid transforms (affine, rotate, perspective, elastic).

torchvision rounds the sampled float32 values back to integers for integer images, so a value
an ulp away from ``k + 0.5`` decides a pixel. Established by experiment against torch 2.13
(bit-equal on random images and shear/rotation grids):

* the source coordinate is ``(g + 1) * (size / 2) - 0.5`` as one fused multiply-add;
* bilinear weights are ``w = x - floor(x)``, ``e = 1 - w`` (likewise ``n``/``s`` for y) and the
  corner products ``s*e, s*w, n*e, n*w``; the four taps (north-west, north-east, south-west,
  south-east, out-of-image ones reading 0) are summed as a chain of fused multiply-adds
  starting from ``nw_value * nw``;
* nearest rounds the coordinate half to even.

numtorch's ``grid_sample`` (differentiable, NumPy's separate multiplies and adds) lands an ulp
away in about one value in five, which turned a few uint8 pixels per image one grey level off.
No autograd here: callers use it only when neither the image nor the grid needs a gradient.
"""

import numpy as np

from ._resize_exact import _fma

_F32 = np.float32


def _unnormalize(g, size):
    return _fma(g + _F32(1), _F32(size / 2), _F32(-0.5))


def _padded(img):
    """(N, C, (H+2)*(W+2)): the image in a one-pixel zero frame, so that every tap position,
    clipped into the frame, reads its value or 0 without a mask."""
    n, c, h, w = img.shape
    framed = np.zeros((n, c, h + 2, w + 2), _F32)
    framed[:, :, 1:-1, 1:-1] = img
    return framed.reshape(n, c, -1)


def _taps(framed, yi, xi, h, w):
    """``framed`` read at integer (N, P) image positions (0 outside the image)."""
    index = (np.clip(yi, -1, h) + 1) * (w + 2) + (np.clip(xi, -1, w) + 1)
    # one take per image: ~4x faster than take_along_axis's broadcast fancy indexing
    return np.stack([frame.take(ind, axis=1) for frame, ind in zip(framed, index)])


def grid_sample(img, grid, mode):
    """``img`` (N, C, H, W) float32 and ``grid`` (N, OH, OW, 2) float32 NumPy arrays, with
    finite grid values; returns (N, C, OH, OW)."""
    n, c, h, w = img.shape
    oh, ow = grid.shape[1:3]
    g = grid.reshape(n, oh * ow, 2)
    x, y = _unnormalize(g[..., 0], w), _unnormalize(g[..., 1], h)
    flat = _padded(img)
    if mode == "nearest":
        out = _taps(flat, np.rint(y).astype(np.int64), np.rint(x).astype(np.int64), h, w)
        return out.reshape(n, c, oh, ow)
    x0, y0 = np.floor(x), np.floor(y)
    we = x - x0
    ea = _F32(1) - we
    no = y - y0
    so = _F32(1) - no
    xi, yi = x0.astype(np.int64), y0.astype(np.int64)
    corners = [(yi, xi, so * ea), (yi, xi + 1, so * we), (yi + 1, xi, no * ea),
               (yi + 1, xi + 1, no * we)]
    out = None
    for cy, cx, weight in corners:
        values = _taps(flat, cy, cx, h, w)
        out = values * weight[:, None, :] if out is None else _fma(values, weight[:, None, :], out)
    return out.reshape(n, c, oh, ow)
