"""Discrete Fourier transforms: the three primitive transforms behind ``numtorch.fft``.

* ``FftC2C``: complex (or real) to complex, forward or inverse, over any set of dims;
* ``FftR2C``: real to the one-sided complex half spectrum (the last transformed dim keeps
  ``n // 2 + 1`` entries);
* ``FftC2R``: a one-sided half spectrum back to a real signal of a given length.

Every public transform (``fft``, ``rfft2``, ``hfftn``, ``stft``...) is one of these, after the
input is cropped or zero-padded to the requested sizes with differentiable ops. The values
come from the array module's ``fft`` package (pocketfft in NumPy, cuFFT in CuPy), which keeps
single precision single.

Gradients. Each transform is linear, so its gradient is its adjoint applied to the cotangent:
the transform in the other direction with the "dual" scaling (an unscaled forward transform
has the unscaled inverse as adjoint, ``ortho`` is unitary). The one-sided transforms need two
corrections. ``FftR2C`` dropped half the spectrum, so the cotangent is zero-padded back to
full length before the inverse transform, and only its real part reaches the real input.
``FftC2R`` reads each interior bin of the half spectrum twice (once for itself and once for
its mirror image), so the gradient, a one-sided forward transform of the cotangent, is doubled
on those bins.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ._pointwise import type_name
from ._resample import constant_pad
from ._util import as_index, canonical_dim, no_dims_error

__all__ = []

# the inverse direction's scaling that makes each transform's adjoint
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _batch_first(ndim, dims):
    """The dims of an ``ndim``-d tensor with those outside ``dims`` moved to the front by
    swaps from both ends (the first transformed dim with the last untransformed one, and so
    on): the order torch's transforms rank equally strided batch dims in."""
    order = list(range(ndim))
    first, last = 0, ndim
    while True:
        while first != last and order[first] not in dims:
            first += 1
        if first == last:
            return order
        last -= 1
        while first != last and order[last] in dims:
            last -= 1
        if first == last:
            return order
        order[first], order[last] = order[last], order[first]
        first += 1


def _order(strides, dims, halved_last):
    """The dims, outermost first, of a transform over ``dims`` of an input with ``strides``
    (see ``_in_torch_layout``)."""
    def by_stride(ds):  # a stable sort: ties keep the order given
        return sorted(ds, key=lambda d: -strides[d])

    inner = by_stride(dims)
    if halved_last:
        inner.remove(dims[-1])
        inner.append(dims[-1])
    return by_stride([d for d in _batch_first(len(strides), dims) if d not in dims]) + inner


def _dense(shape, order, unit):
    """Dense strides (in units of ``unit``) for ``shape`` with its dims in ``order``,
    outermost first."""
    out = [0] * len(shape)
    step = unit
    for d in reversed(order):
        out[d] = step
        step *= shape[d]
    return out


def _in_torch_layout(xp, y, x, dims, halved_last, strides=None):
    """``y`` (a transform of ``x`` over ``dims``) laid out in memory as torch lays out its
    transforms: the untransformed (batch) dims outermost, then the transformed ones, except
    that a one-sided transform's last dim (the halved or restored one) is innermost. Each
    group is ordered by ``x``'s strides, largest outermost; equal strides (size-1 dims)
    keep the batch dims in ``_batch_first``'s order and the transformed ones in the order
    ``dims`` names them (checked against torch on 3,000 random layouts with size-1 dims of
    any stride). ``strides`` stands in for ``x``'s where the result is that of a transform
    of an intermediate (``FftC2R``). Only a transposed or non-trailing transform pays a copy."""
    order = _order(x.strides if strides is None else strides, dims, halved_last)
    want = _dense(y.shape, order, y.itemsize)
    if list(y.strides) == want:
        return y
    if all(a == b or n == 1 for a, b, n in zip(y.strides, want, y.shape)):
        return xp.lib.stride_tricks.as_strided(y, y.shape, want)
    out = xp.empty([y.shape[d] for d in order], dtype=y.dtype).transpose(np.argsort(order))
    out[...] = y
    return out


class FftC2C(Op):
    """y = DFT over ``dims`` (e^+i when ``inverse``, else e^-i) scaled as ``norm`` says;
    dx = the opposite transform with the dual scaling (real inputs keep the real part)."""

    node_name = "FftC2CBackward0"

    def forward(self, x):
        fft = self.xp.fft
        if x.dtype.kind == "f" and len(self.dims) == 1:
            y = _real_full_spectrum(self.xp, x, self.dims[0], self.inverse, self.norm)
        else:
            fn = fft.ifftn if self.inverse else fft.fftn
            y = fn(x, axes=self.dims, norm=self.norm)
        want = np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64
        y = y.astype(want, copy=False)  # NumPy < 2 computes single precision in double
        return _in_torch_layout(self.xp, y, x, self.dims, False)

    def backward(self, grad):
        return FftC2C.apply(grad, dims=self.dims, inverse=not self.inverse,
                            norm=_DUAL[self.norm])


def _real_full_spectrum(xp, x, axis, inverse, norm):
    """fft/ifft of a real signal as torch forms it: the one-sided transform (conjugated for
    the inverse, which is the conjugate forward transform with the dual scaling), the other
    half mirrored from it as conjugates, so signed zeros come out as torch's."""
    n = x.shape[axis]
    half = xp.fft.rfft(x, axis=axis, norm=_DUAL[norm] if inverse else norm)
    if inverse:
        half = xp.conj(half)
    h = half.shape[axis]
    mirror = xp.conj(xp.take(half, xp.arange(n - h, 0, -1), axis=axis))  # bins n-h .. 1
    return xp.concatenate([half, mirror], axis=axis)


class FftR2C(Op):
    """y = the one-sided forward DFT of real x over ``dims`` (last one halved);
    dx = Re(inverse DFT, dual scaling, of the cotangent zero-padded to full length)."""

    node_name = "FftR2CBackward0"

    def forward(self, x):
        self.last_n = x.shape[self.dims[-1]]
        y = self.xp.fft.rfftn(x, axes=self.dims, norm=self.norm)
        y = y.astype(np.complex128 if x.dtype == np.float64 else np.complex64, copy=False)
        return _in_torch_layout(self.xp, y, x, self.dims, True)

    def backward(self, grad):
        d = self.dims[-1]
        full = _resize(grad, (d,), (self.last_n,))
        return FftC2C.apply(full, dims=self.dims, inverse=True, norm=_DUAL[self.norm]).real


class FftC2R(Op):
    """y = the real inverse DFT over ``dims`` of a half spectrum whose last dim holds
    ``last_n // 2 + 1`` bins; dx = one-sided forward DFT (dual scaling) of the cotangent with
    the bins that stand for two (all but the first and, for even ``last_n``, the last)
    doubled."""

    node_name = "FftC2RBackward0"

    def forward(self, x):
        s = [x.shape[d] for d in self.dims[:-1]] + [self.last_n]
        y = self.xp.fft.irfftn(x, s=s, axes=self.dims, norm=self.norm)
        y = y.astype(np.float64 if x.dtype == np.complex128 else np.float32, copy=False)
        if len(self.dims) == 1:
            return _in_torch_layout(self.xp, y, x, self.dims, True)
        # torch runs a complex transform over the other dims first, then the real one over
        # the last: the result is laid out from that intermediate's layout
        mid = _dense(x.shape, _order(x.strides, self.dims[:-1], False), 1)
        return _in_torch_layout(self.xp, y, x, self.dims[-1:], True, strides=mid)

    def backward(self, grad):
        g = FftR2C.apply(grad, dims=self.dims, norm=_DUAL[self.norm])
        d = self.dims[-1]
        m = g._array.shape[d]
        twice = self.last_n - m  # interior bins, each standing for itself and its mirror
        if twice <= 0:
            return g
        scale = np.ones(m, dtype=g._array.real.dtype)
        scale[1:1 + twice] = 2
        xp = self.xp
        shape = [1] * g._array.ndim
        shape[d] = m
        return g * _make(xp.asarray(scale.reshape(shape)))


# ---------------------------------------------------------------------------------------------
# argument handling shared by the public transforms (numtorch.fft, stft)


def check_norm(fn, norm):
    """Torch's normalization names; None means "backward"."""
    if norm is None:
        return "backward"
    if not isinstance(norm, str):
        raise TypeError(f"{fn}(): argument 'norm' must be str, not {type_name(norm)}")
    if norm not in _DUAL:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _int(fn, name, value):
    if value is None:
        return None
    value = as_index(value)  # (an integer tensor of one element reads as its number)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type_name(value)}")
    return int(value)


def _int_seq(fn, name, value):
    if value is None:
        return None
    value = as_index(value)
    if isinstance(value, (tuple, list)):
        value = type(value)(as_index(v) for v in value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, Tensor) or not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        kind = "tuple of ints" if name == "s" else "int"
        raise TypeError(f"{fn}(): argument '{name}' must be {kind}, not {type_name(value)}")
    return tuple(int(v) for v in value)


def _canonical(dim, ndim):
    if ndim == 0:
        raise no_dims_error(dim)
    return canonical_dim(dim, ndim)


def _check_tensor(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")


def _bad_points(n):
    return RuntimeError(f"Invalid number of data points ({n}) specified")


def dims_and_sizes(fn, input, s, dim, all_by_default=True):
    """Torch's rules for ``(s, dim)`` of the n-dimensional transforms: the dims (canonical, in
    the order given) and the requested size along each (None: keep the input's)."""
    s = _int_seq(fn, "s", s)
    nd = input._array.ndim
    if dim is not None:
        dims = _int_seq(fn, "dim", dim)
        dims = tuple(_canonical(d, nd) for d in dims)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} "
                               "dimensions.")
        dims = tuple(range(nd - len(s), nd))
    else:
        dims = tuple(range(nd)) if all_by_default else (nd - 2, nd - 1)
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    if s is None:
        sizes = [None] * len(dims)
    else:
        sizes = [None if v == -1 else v for v in s]
        for v in sizes:
            if v is not None and v < 1:
                raise _bad_points(v)
    return dims, sizes


def one_dim(fn, input, n, dim):
    """``(dims, sizes)`` of a one-dimensional transform."""
    n = _int(fn, "n", n)
    dim = _int(fn, "dim", dim)
    d = _canonical(dim, input._array.ndim)
    if n is not None and n < 1:
        raise _bad_points(n)
    return (d,), [n]


def _resize(x, dims, sizes):
    """``x`` cropped or zero-padded at the end of each dim in ``dims`` to ``sizes``."""
    shape = x._array.shape
    want = dict(zip(dims, sizes))
    if all(shape[d] == n for d, n in want.items()):
        return x
    if all(shape[d] >= n for d, n in want.items()):
        # a crop alone is a view (the transform's memory layout follows the input's)
        for d, n in want.items():
            x = x.narrow(d, 0, n)
        return x
    first = min(dims)
    pads = tuple((0, want.get(d, shape[d]) - shape[d]) for d in range(first, len(shape)))
    return constant_pad(x, pads, 0)


def _complex_input(fn, x, real_only=False, complex_only=False):
    """Cast ``x`` to the dtype the transform computes in (torch's promotion rules)."""
    dt = x.dtype
    if dt is _dtype.float16 or dt is _dtype.bfloat16:
        raise RuntimeError(f"Unsupported dtype {_dtype._TYPE_DISPLAY[dt.name]}")
    if real_only and dt.is_complex:
        # torch words the n-d checks differently from the 1-d ones
        if fn in ("rfft", "ihfft"):
            raise RuntimeError(f"{fn} expects a real input tensor, but got "
                               f"{_dtype._TYPE_DISPLAY[dt.name]}")
        if fn.startswith("ihfft"):
            raise RuntimeError("Only supports floating-point dtypes, but found: "
                               f"{_dtype._TYPE_DISPLAY[dt.name]}")
        raise RuntimeError("rfftn expects a real-valued input tensor, but got "
                           f"{_dtype._TYPE_DISPLAY[dt.name]}")
    if not dt.is_floating_point and not dt.is_complex:
        x = x.to(_dtype.get_default_dtype())
        dt = x.dtype
    if complex_only and not dt.is_complex:
        x = x.to(dt.to_complex())
    return x


def _full_sizes(x, dims, sizes):
    return [x._array.shape[d] if n is None else n for d, n in zip(dims, sizes)]


_CAST_FIRST = frozenset(("fft2", "ifft2", "fftn", "ifftn"))


def c2c(fn, input, dims, sizes, norm, forward):
    """A complex transform over ``dims`` after resizing to ``sizes``. The n-dimensional
    transforms cast a real input to complex first (``fft``/``ifft`` transform it as it is),
    which shows in the result's memory layout where the input overlaps itself."""
    x = _complex_input(fn, input, complex_only=fn in _CAST_FIRST)
    sizes = _full_sizes(x, dims, sizes)
    for n in sizes:
        if n < 1:
            raise _bad_points(n)
    if not dims:
        return x.to(x.dtype.to_complex(), copy=True)
    x = _resize(x, dims, sizes)
    return FftC2C.apply(x, dims=tuple(dims), inverse=not forward, norm=norm)


def r2c(fn, input, dims, sizes, norm, onesided=True):
    """A real-to-complex transform (one-sided over the last of ``dims`` when ``onesided``)."""
    x = _complex_input(fn, input, real_only=True)
    if not dims:
        raise RuntimeError(f"{fn} must transform at least one axis")
    sizes = _full_sizes(x, dims, sizes)
    for n in sizes:
        if n < 1:
            raise _bad_points(n)
    x = _resize(x, dims, sizes)
    if not onesided:
        return FftC2C.apply(x, dims=tuple(dims), inverse=False, norm=norm)
    return FftR2C.apply(x, dims=tuple(dims), norm=norm)


def c2r(fn, input, dims, sizes, norm):
    """A half-spectrum-to-real transform; the last of ``dims`` gives a signal of length
    ``sizes[-1]`` (default ``2 * (bins - 1)``)."""
    x = _complex_input(fn, input, complex_only=True)
    if not dims:
        raise RuntimeError(f"{fn} must transform at least one axis")
    sizes = list(_full_sizes(x, dims[:-1], sizes[:-1])) + [sizes[-1]]
    last = sizes[-1]
    if last is None:
        last = 2 * (x._array.shape[dims[-1]] - 1)
    for n in sizes[:-1] + [last]:
        if n < 1:
            raise _bad_points(n)
    x = _resize(x, dims, sizes[:-1] + [last // 2 + 1])
    return FftC2R.apply(x, dims=tuple(dims), last_n=last, norm=norm)


def dual_norm(norm):
    """The scaling of the opposite direction that keeps a transform pair consistent (hfft is an
    inverse real transform of the conjugate with the forward transform's scaling)."""
    return _DUAL[norm]
