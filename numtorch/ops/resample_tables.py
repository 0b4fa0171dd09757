"""Index and weight tables of ``F.interpolate``: for one dim and each mode (nearest,
nearest-exact, linear, cubic, area, antialiased bilinear/bicubic), which input positions each
output sample reads and with what weights, following torch's coordinate rules (align_corners,
explicit scale factors). ``ops._resample.resample`` applies a table along a dim; the cubic
weights also serve ``grid_sample``, whose integer tap positions are turned into flat indices
and in-bounds masks here too (``tap_index``).
"""

import numpy as np


def step_scale(in_size, out_size, align_corners, scale):
    """Source step per output step (torch's area_pixel_compute_scale)."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


_A = -0.75  # torch's cubic convolution coefficient (Keys' kernel)


def nearest_table(xp, in_size, out_size, scale, exact):
    """One tap per output sample: floor(j * step) (``exact``: sampled at pixel centres, j + 0.5),
    computed in float32 as torch does so the rounding matches; no weights."""
    s = np.float32(1.0 / scale if scale is not None and scale > 0 else in_size / out_size)
    j = xp.arange(out_size, dtype=np.float32)
    if exact:
        j += np.float32(0.5)
    idx = xp.minimum(xp.floor(j * s).astype(np.int64), in_size - 1)
    return idx.reshape(1, -1), None


def source_index(xp, dt, scale, out_size, align_corners, cubic):
    """Fractional source coordinate of each output sample (clamped at 0 except for cubic)."""
    j = xp.arange(out_size, dtype=dt)
    if align_corners:
        return dt.type(scale) * j
    src = dt.type(scale) * (j + dt.type(0.5)) - dt.type(0.5)
    return src if cubic else xp.maximum(src, dt.type(0))


def linear_table(xp, dt, in_size, out_size, align_corners, scale):
    """Two taps per output sample (floor and next, the last one repeated at the edge) with
    weights ``1 - lambda`` and ``lambda``."""
    src = source_index(xp, dt, step_scale(in_size, out_size, align_corners, scale), out_size,
                       align_corners, False)
    i0 = xp.minimum(xp.floor(src).astype(np.int64), in_size - 1)
    lam = xp.clip(src - i0, 0, 1).astype(dt)
    i1 = i0 + (i0 < in_size - 1)
    return xp.stack([i0, i1]), xp.stack([1 - lam, lam])


def torch_linear_table(in_size, out_size, align_corners, scale):
    """``linear_table`` for float32 as torch's kernel makes it: the source coordinate
    ``step * (j + 0.5) - 0.5`` by one fused multiply-add, and a dim whose size does not change
    read one to one (weights 1 and 0). Returns ((i0, i1), (w0, w1)) NumPy arrays."""
    f32 = np.float32
    if in_size == out_size:
        i0 = np.arange(out_size)
        return (i0, i0), (np.ones(out_size, f32), np.zeros(out_size, f32))
    step = f32(step_scale(in_size, out_size, align_corners, scale))
    j = np.arange(out_size, dtype=f32)
    if align_corners:
        src = step * j
    else:
        src = np.maximum((np.float64(step) * (j + f32(0.5)) - 0.5).astype(f32), f32(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam = np.clip(src - i0.astype(f32), 0, 1).astype(f32)
    return (i0, i0 + (i0 < in_size - 1)), (f32(1) - lam, lam)


def cubic_weights(xp, t):
    """The four Keys-kernel weights of taps at offsets -1, 0, 1, 2 for fractional part ``t``
    (``t`` may be an array or a Tensor: the same formula serves ``grid_sample``)."""
    def near(x):  # |x| <= 1
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def cubic_table(xp, dt, in_size, out_size, align_corners, scale):
    """Four taps per output sample, clamped into the input (torch repeats edge pixels)."""
    src = source_index(xp, dt, step_scale(in_size, out_size, align_corners, scale), out_size,
                       align_corners, True)
    i0 = xp.minimum(xp.floor(src).astype(np.int64), in_size - 1)
    t = xp.clip(src - i0, 0, 1).astype(dt)
    idx = xp.stack([xp.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)])
    return idx, xp.stack(cubic_weights(xp, t)).astype(dt)


def area_table(xp, dt, in_size, out_size):
    """Adaptive-average windows: output j averages inputs [floor(j*in/out), ceil((j+1)*in/out));
    narrower windows are padded with zero-weight taps."""
    j = np.arange(out_size)
    start = (j * in_size) // out_size
    end = ((j + 1) * in_size + out_size - 1) // out_size  # ceil, in exact integer arithmetic
    width = end - start
    taps = int(width.max())
    k = np.arange(taps)[:, None]
    idx = np.minimum(start + k, in_size - 1)
    w = np.where(k < width, 1.0 / width, 0.0)
    return xp.asarray(idx), xp.asarray(w.astype(dt))


def aa_filter(mode):
    """(support in input pixels at scale 1, kernel function) of an antialiasing filter."""
    if mode == "bilinear":
        return 2, lambda x: np.maximum(1.0 - np.abs(x), 0.0)
    if mode == "bicubic":
        a = -0.5  # the antialiased kernel uses PIL's coefficient

        def cubic(x):
            x = np.abs(x)
            return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                            np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))

        return 4, cubic

    def lanczos(x):
        return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)

    return 6, lanczos


def aa_table(xp, dt, mode, in_size, out_size, align_corners, scale):
    """Antialiased weights: the filter is stretched by the scale when downsampling."""
    size, fn = aa_filter(mode)
    s = step_scale(in_size, out_size, align_corners, scale)
    support = size * 0.5 * s if s >= 1.0 else size * 0.5
    inv = 1.0 / s if s >= 1.0 else 1.0
    j = np.arange(out_size)
    center = s * (j + 0.5)
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)
    width = np.minimum((center + support + 0.5).astype(np.int64), in_size) - lo
    taps = max(int(width.max()), 1)
    k = np.arange(taps)[:, None]
    w = np.where(k < width, fn((k + lo - center + 0.5) * inv), 0.0)
    total = w.sum(0)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w)
    idx = np.minimum(lo + k, in_size - 1)
    return xp.asarray(idx), xp.asarray(w.astype(dt))


def _fma32(a, b, c):
    """float32 ``a * b + c`` rounded once (the product is exact in float64)."""
    f64 = np.float64
    return (np.asarray(a, f64) * np.asarray(b, f64) + np.asarray(c, f64)).astype(np.float32)


def _aa_filter32(mode, x):
    """The antialiasing filter at ``|x|`` (float32 array) as torch's float kernel evaluates it:
    the cubic's polynomials by Horner steps contracted into fused multiply-adds."""
    f32 = np.float32
    if mode == "bilinear":
        return np.maximum(f32(1) - x, f32(0))
    a = f32(-0.5)
    near = _fma32(_fma32(a + f32(2), x, -(a + f32(3))) * x, x, f32(1))
    far = _fma32(_fma32(_fma32(a, x, -(f32(5) * a)), x, f32(8) * a), x, -(f32(4) * a))
    return np.where(x < 1, near, np.where(x < 2, far, f32(0)))


def torch_aa_table(mode, in_size, out_size, align_corners, scale):
    """``aa_table`` for float32 bilinear/bicubic as torch's CPU kernel builds it (found by
    behaviour, bit for bit): the step, window centre and support rounded to float32, each
    window from ``int(centre -/+ support + 0.5)``, the filter read at ``(i - centre + 0.5)``
    divided by the step when downsampling, the weights summed in window order and divided by
    their float32 total. Returns NumPy ``(index, weight, width)``: ``(taps, out)`` tables
    (zero weights past each window, whose ``width`` is per output)."""
    f32, f64 = np.float32, np.float64
    if align_corners:
        s = f32(in_size - 1) / f32(out_size - 1) if out_size > 1 else f32(0)
    elif scale is not None and scale > 0:
        s = f32(1.0 / scale)
    else:
        s = f32(in_size) / f32(out_size)
    half = 1.0 if mode == "bilinear" else 2.0
    support = f32(half * f64(s)) if s >= 1 else f32(half)
    inv = f64(f32(1.0 / f64(s))) if s >= 1 else 1.0
    center = (f64(s) * (np.arange(out_size) + 0.5)).astype(f32)
    lo = np.maximum(((center - support).astype(f64) + 0.5).astype(np.int64), 0)
    width = np.minimum(((center + support).astype(f64) + 0.5).astype(np.int64), in_size) - lo
    taps = max(int(width.max()), 1)
    k = np.arange(taps)[:, None]
    dist = ((k + lo).astype(f32) - center).astype(f64) + 0.5
    w = np.where(k < width, _aa_filter32(mode, np.abs((dist * inv).astype(f32))), f32(0))
    total = np.zeros(out_size, f32)
    for t in range(taps):  # a handful of taps: summed in window order, as torch does
        total += w[t]
    w = np.where(total != 0, w / np.where(total != 0, total, f32(1)), w).astype(f32)
    return np.minimum(lo + k, in_size - 1), w, width


# ---------------------------------------------------------------------------------------------
# grid_sample: integer tap positions


def tap_index(xp, positions, sizes, padding_mode, align_corners):
    """Flat index into the flattened spatial dims, and in-bounds mask, of integer tap positions
    (one array per spatial dim; ``grid_sample``'s padding applied to them: border clips,
    reflection mirrors, zeros masks)."""
    flat = 0
    ok = True
    for pos, size in zip(positions, sizes):
        if padding_mode == "border":
            pos = xp.clip(pos, 0, size - 1)
        elif padding_mode == "reflection":
            pos = reflect_int(xp, pos, size, align_corners)
        inside = (pos >= 0) & (pos < size)
        ok = inside & ok
        flat = flat * size + xp.clip(pos, 0, size - 1)
    return flat, ok


def reflect_int(xp, pos, size, align_corners):
    """Reflection padding applied to integer tap positions (bicubic reads taps this way)."""
    p = pos.astype(np.float64)
    lo, hi = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if lo == hi:
        return xp.zeros_like(pos)
    low, span = lo / 2, (hi - lo) / 2
    c = xp.abs(p - low)
    extra = xp.fmod(c, span)
    flips = xp.floor(c / span)
    r = xp.where(xp.fmod(flips, 2) == 0, extra + low, span - extra + low)
    return xp.clip(r, 0, size - 1).astype(np.int64)
