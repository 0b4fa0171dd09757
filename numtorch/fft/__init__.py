"""``torch.fft``: discrete Fourier transforms and their helpers.

The transforms follow torch's conventions: ``n``/``s`` crop or zero-pad the input at the end of
each transformed dim, ``norm`` is ``"backward"`` (scale the inverse by ``1/n``, the default),
``"ortho"`` (``1/sqrt(n)`` both ways) or ``"forward"`` (scale the forward transform), real
inputs give complex64/complex128 by precision, integer inputs compute in the default float
dtype, and half precision raises. Each is differentiable to any order (see
``numtorch/ops/fft_ops.py`` for the gradients).
"""

from .. import _dtype
from .._creation import _finish, check_pin_memory, dtype_arg
from .._tensor import Tensor
from ..ops import fft_ops as _f
from ..ops._pointwise import _out as _write_out, type_name as _type_name
from ..ops.rearrange import roll as _roll

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]


def _out(result, out, fn):
    if out is not None:
        want_complex = result.dtype.is_complex
        if out.dtype.is_complex != want_complex:
            kind = "complex" if want_complex else "real"
            raise RuntimeError(f"{fn} expects a {kind} output tensor, but got "
                               f"{_dtype._TYPE_DISPLAY[out.dtype.name]}")
    return _write_out(result, out, fn)


def _c2c_1d(name, input, n, dim, norm, forward, out):
    fn = "fft_" + name
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.one_dim(fn, input, n, dim)
    return _out(_f.c2c(name, input, dims, sizes, norm, forward), out, "fft")


def _c2c_nd(name, input, s, dim, norm, forward, out, all_dims=True):
    fn = "fft_" + name
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.dims_and_sizes(fn, input, s, dim, all_dims)
    return _out(_f.c2c(name, input, dims, sizes, norm, forward), out, "fftn")


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Args:
        input (Tensor): the signal (real inputs are treated as complex with zero imaginary
            part).
        n (int, optional): the signal length; the input is cropped or zero-padded to it.
        dim (int): the dimension to transform. Default: -1.
        norm (str, optional): ``"backward"`` (no scaling, the default), ``"ortho"``
            (``1/sqrt(n)``) or ``"forward"`` (``1/n``).
        out (Tensor, optional): a complex tensor to write the result into.

    Returns:
        Tensor: the complex spectrum (complex64 for float32 and integer inputs).

    Example:
        >>> torch.fft.fft(torch.tensor([1., 0., 0., 0.]))
        tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    return _c2c_1d("fft", input, n, dim, norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`fft` (``"backward"`` scaling divides by ``n``).

    Example:
        >>> torch.fft.ifft(torch.fft.fft(torch.tensor([1., 2.]))).real
        tensor([1., 2.])
    """
    return _c2c_1d("ifft", input, n, dim, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional transform: :func:`fftn` over ``dim`` (the last two by default)."""
    return _c2c_nd("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of :func:`fft2`."""
    return _c2c_nd("ifft2", input, s, dim, norm, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional discrete Fourier transform.

    Args:
        input (Tensor): the signal.
        s (tuple of ints, optional): the signal size along each transformed dim (``-1`` keeps
            the input's); without ``dim``, the last ``len(s)`` dims are transformed.
        dim (tuple of ints, optional): the dims to transform. Default: all of them (or the
            last ``len(s)``).
        norm (str, optional): as in :func:`fft`, with ``n`` the product of the sizes.
        out (Tensor, optional): a complex tensor to write the result into.

    Example:
        >>> torch.fft.fftn(torch.ones(2, 2))
        tensor([[4.+0.j, 0.+0.j],
                [0.+0.j, 0.+0.j]])
    """
    return _c2c_nd("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`fftn`."""
    return _c2c_nd("ifftn", input, s, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a real signal, keeping the ``n // 2 + 1`` non-redundant frequencies.

    Example:
        >>> torch.fft.rfft(torch.tensor([1., 1., 1., 1.]))
        tensor([4.+0.j, 0.+0.j, 0.+0.j])
    """
    fn = "fft_rfft"
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.one_dim(fn, input, n, dim)
    return _out(_f.r2c("rfft", input, dims, sizes, norm), out, "rfft")


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default
    ``2 * (input.size(dim) - 1)``) from its half spectrum.

    Example:
        >>> torch.fft.irfft(torch.fft.rfft(torch.tensor([1., 2., 3., 4.])))
        tensor([1., 2., 3., 4.])
    """
    fn = "fft_irfft"
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.one_dim(fn, input, n, dim)
    return _out(_f.c2r("irfft", input, dims, sizes, norm), out, "irfft")


def _rnd(name, input, s, dim, norm, out, all_dims, inverse):
    fn = "fft_" + name
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.dims_and_sizes(fn, input, s, dim, all_dims)
    if inverse:
        return _out(_f.c2r(name, input, dims, sizes, norm), out, name)
    return _out(_f.r2c(name, input, dims, sizes, norm), out, name)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`rfftn` over two dims (the last two by default)."""
    return _rnd("rfft2", input, s, dim, norm, out, True, False)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of :func:`rfft2`."""
    return _rnd("irfft2", input, s, dim, norm, out, True, True)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a real signal, one-sided over the last transformed dim.

    Example:
        >>> torch.fft.rfftn(torch.ones(2, 4)).shape
        torch.Size([2, 3])
    """
    return _rnd("rfftn", input, s, dim, norm, out, True, False)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`rfftn`; ``s[-1]`` is the real output length of the last dim
    (default ``2 * (bins - 1)``)."""
    return _rnd("irfftn", input, s, dim, norm, out, True, True)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum
    of length ``n`` (default ``2 * (input.size(dim) - 1)``).

    Example:
        >>> torch.fft.hfft(torch.tensor([1., 0., 0.]))
        tensor([1., 1., 1., 1.])
    """
    fn = "fft_hfft"
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.one_dim(fn, input, n, dim)
    # the conjugate laid out densely: torch's result is ranked from it (see _hnd)
    x = _f._complex_input("hfft", input, complex_only=True).conj_physical()
    return _out(_f.c2r("hfft", x, dims, sizes, _f.dual_norm(norm)), out, "hfft")


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`hfft`: the first half of the Hermitian spectrum of a real signal.

    Example:
        >>> torch.fft.ihfft(torch.tensor([1., 1., 1., 1.]))
        tensor([1.-0.j, 0.-0.j, 0.-0.j])
    """
    fn = "fft_ihfft"
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.one_dim(fn, input, n, dim)
    return _out(_f.r2c("ihfft", input, dims, sizes, _f.dual_norm(norm)).conj(), out, "ihfft")


def _hnd(name, input, s, dim, norm, out, inverse):
    fn = "fft_" + name
    _f._check_tensor(fn, input)
    norm = _f.check_norm(fn, norm)
    dims, sizes = _f.dims_and_sizes(fn, input, s, dim)
    if inverse:
        # the one-sided transform over the last dim, then a complex one over the others (the
        # order shows in the result's memory layout)
        y = _f.r2c(name, input, dims[-1:], sizes[-1:], _f.dual_norm(norm))
        if len(dims) > 1:
            # torch conjugates a several-dim result in memory: no conjugate bit (a one-dim
            # result keeps it, as ihfft's does)
            y = _f.c2c(name, y, dims[:-1], sizes[:-1], _f.dual_norm(norm), True)
            y = y.conj_physical()
        else:
            y = y.conj()
    else:
        # torch ranks a one-dim result from the dense conjugate and a several-dim one from
        # the lazy conjugate (an expanded input's stride-0 dims kept), which conj() keeps too
        x = _f._complex_input(name, input, complex_only=True)
        x = x.conj() if len(dims) > 1 else x.conj_physical()
        y = _f.c2r(name, x, dims, sizes, _f.dual_norm(norm))
    return _out(y, out, name)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`hfftn` over two dims (the last two by default)."""
    return _hnd("hfft2", input, s, dim, norm, out, False)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of :func:`hfft2`."""
    return _hnd("ihfft2", input, s, dim, norm, out, True)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a Hermitian-symmetric signal given by its half along the
    last transformed dim; the result is real."""
    return _hnd("hfftn", input, s, dim, norm, out, False)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`hfftn`: the half Hermitian spectrum of a real signal."""
    return _hnd("ihfftn", input, s, dim, norm, out, True)


# ---------------------------------------------------------------------------------------------
# sample frequencies and shifts


def _freq_args(fn, n, d, dtype):
    if isinstance(n, bool) or not isinstance(n, int) and not hasattr(n, "__index__"):
        raise TypeError(f"{fn}(): argument 'n' (position 1) must be int, not {_type_name(n)}")
    n = int(n)
    if isinstance(d, Tensor) and not d._array.ndim and not d.is_complex():
        d = d.item()  # torch reads a 0-d tensor as its number
    if not isinstance(d, (int, float)):  # (a bool is a number here, as in torch)
        what = "Tensor" if isinstance(d, Tensor) else _type_name(d)  # (torch's bare name)
        raise TypeError(f"{fn}(): argument 'd' (position 2) must be float, not {what}")
    dt = _dtype.get_default_dtype() if dtype is None else dtype_arg(dtype, fn)
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    if not dt.is_floating_point:
        raise RuntimeError(f"{fn[4:]} requires a floating point or complex dtype")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return n, float(d), dt


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """The sample frequencies of an ``n``-point :func:`fft` with sample spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n)``.

    Example:
        >>> torch.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    import numpy as np

    n, d, dt = _freq_args("fft_fftfreq", n, d, dtype)
    check_pin_memory(pin_memory, out)
    k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        arr = (k / (d * n)).astype(dt.np)
    return _finish(arr, device, requires_grad, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """The sample frequencies of an ``n``-point :func:`rfft`: ``[0, ..., n // 2] / (d * n)``.

    Example:
        >>> torch.fft.rfftfreq(4)
        tensor([0.0000, 0.2500, 0.5000])
    """
    import numpy as np

    n, d, dt = _freq_args("fft_rfftfreq", n, d, dtype)
    check_pin_memory(pin_memory, out)
    k = np.arange(n // 2 + 1)
    with np.errstate(divide="ignore", invalid="ignore"):  # n = 0: torch's single NaN
        arr = (k / (d * n)).astype(dt.np)
    return _finish(arr, device, requires_grad, out)


def _shift(fn, input, dim, sign):
    _f._check_tensor(fn, input)
    nd = input._array.ndim
    if dim is None:
        dims = tuple(range(nd))
    else:
        dims = tuple(_f._canonical(d, nd) for d in _f._int_seq(fn, "dim", dim))
    if not dims:
        return input.clone()
    shape = input._array.shape
    shifts = tuple(shape[d] // 2 if sign > 0 else -(shape[d] // 2) for d in dims)
    return _roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre: roll each dim in ``dim`` (all by default) by
    half its size.

    Example:
        >>> torch.fft.fftshift(torch.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift("fft_fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift` (they differ for odd sizes)."""
    return _shift("fft_ifftshift", input, dim, -1)



from .._builtin_names import name_as_builtins

name_as_builtins(globals(), "fft_")
