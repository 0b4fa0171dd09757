"""Adaptive and fractional pooling in ``nn.functional``: windows chosen from the output size
(torch's adaptive bounds) or drawn at random (fractional max pooling), reduced by the pooling
ops over gathered index windows.
"""

import numpy as np

from ... import _dtype, _sampling
from ...autograd.graph import rename_node
from ...backend import is_device_array, xp_of
from ...ops import pool_windows as _windows
from ...ops import pooling as _ops
from . import _adaptive_avg as _adaptive_avg_op
from . import _pooling_args as _impl
from . import _memory_format as _mf
from ._pooling_args import batched, unbatch

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _adaptive_input(fn, nd, input, is_max):
    n = input.dim()
    if nd == 1:
        _impl.check_dims_range(fn, input, 2, 3)
    elif n not in (nd + 1, nd + 2):
        got = ": " if is_max else " "
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got"
                           f"{got}{_impl.shape_str(input.shape)}")
    if is_max:
        shape = tuple(input.shape)
        for d in range(n - nd - 1 if n == nd + 2 else 0, n):
            if shape[d] == 0:
                raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                                   f"dimensions, but input has sizes {_impl.shape_str(shape)} "
                                   f"with dimension {d} being empty")
    kernel = fn
    if not is_device_array(input._array):  # torch's CPU kernels' names (1-d runs as 2-d)
        kind = "max" if is_max else "avg"
        kernel = f"adaptive_{kind}_pool3d_cpu" if nd == 3 else \
            _impl.channels_last_name(f"adaptive_{kind}_pool2d", input)
    _impl.require_dtype(kernel, input, False)


def _adaptive_max(nd, input, output_size, return_indices):
    if input.is_quantized:  # the stored integers, pooled (numtorch/_quantized_ops_float.py)
        from ..._quantized_ops_float import on_int_values

        return on_int_values(input, lambda t: _adaptive_max(nd, t, output_size,
                                                            return_indices))
    fn = f"adaptive_max_pool{nd}d"
    if nd == 1:
        out = _impl.adaptive_1d_output_size(fn, output_size)
    else:
        out = _impl.adaptive_output_size(fn, output_size, tuple(input.shape[-nd:]))
    _adaptive_input(fn, nd, input, True)
    if min(out) < 0:
        shape = tuple(input.shape[:-nd]) + out
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{_impl.shape_str(shape)}")
    x, added = batched(input, nd)
    fmt = _mf.batched_format(x, added) if nd == 2 else None  # torch: 3-d pools row-major
    x = _mf.grad_input(x, fmt)
    spatial = tuple(x.shape[2:])
    if 0 not in out and all(n % o == 0 for n, o in zip(spatial, out)):
        # equal disjoint windows: an ordinary max pool
        kernel = tuple(n // o for n, o in zip(spatial, out))
        result = _ops.max_pool(x, kernel, kernel, (0,) * nd, (1,) * nd, out, return_indices)
    else:
        index = _windows.adaptive_window_index(xp_of(x._array), spatial, out)
        result = _ops.window_max(x, index, False, return_indices)
    result = _adaptive_named(unbatch(_mf.outputs(result, fmt), added), nd, "Max")
    return _mf.pool1d_layout(input, result) if nd == 1 else result


def _adaptive_named(result, nd, kind):
    """Torch's node name for an adaptive pool's values (1-d pools run as 2-d and squeeze)."""
    values = result[0] if isinstance(result, tuple) else result
    rename_node(values, "SqueezeBackward1" if nd == 1 else f"Adaptive{kind}Pool{nd}DBackward0")
    return result


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed output length, whatever the input length.

    Output ``i`` takes the maximum of ``input[floor(i*L/out) : ceil((i+1)*L/out)]``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.
        return_indices (bool): also return the position of each maximum. Default: False.

    Example:
        >>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[1., 5., 2., 4., 3.]]), 2)
        tensor([[5., 4.]])
    """
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed ``(H_out, W_out)`` (an int, or a pair whose None entries keep the
    input's size); windows as in :func:`adaptive_max_pool1d` along each dim."""
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a fixed ``(D_out, H_out, W_out)``; see :func:`adaptive_max_pool2d`."""
    return _adaptive_max(3, input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` that always returns ``(values, indices)``."""
    return _adaptive_max(1, input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` that always returns ``(values, indices)``."""
    return _adaptive_max(2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool3d` that always returns ``(values, indices)``."""
    return _adaptive_max(3, input, output_size, True)


def _adaptive_avg(nd, input, output_size, layout=True):
    if input.is_quantized:  # the stored integers, pooled (numtorch/_quantized_ops_float.py)
        from ..._quantized_ops_float import on_int_values, qnnpack_average

        out = qnnpack_average(input, output_size=output_size) if nd == 2 else None
        if out is not None:
            return out
        return on_int_values(input, lambda t: _adaptive_avg(nd, t, output_size, layout),
                             rounding=True)
    fn = f"adaptive_avg_pool{nd}d"
    if nd == 1:
        out = _impl.adaptive_1d_output_size(fn, output_size)
    else:
        out = _impl.adaptive_output_size(fn, output_size, tuple(input.shape[-nd:]))
    if min(out) < 0:
        shown = (1,) + out if nd == 1 else out  # torch reports the 1-d case as 2-d
        name = "adaptive_avg_pool2d" if nd == 1 else fn
        sep = ", " if len(shown) == 2 else ","
        body = ", ".join(str(v) for v in shown[:-1]) + sep + str(shown[-1])
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{body}}}")
    if all(o == 1 for o in out) and not (input.dtype.is_floating_point or input.dtype.is_complex):
        # torch takes a global pooling as a mean, whose dtype check comes first
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_impl.type_name(input.dtype)}")
    _adaptive_input(fn, nd, input, False)
    x, added = batched(input, nd)
    fmt = _mf.batched_format(x, added) if layout else None
    if fmt is not None:  # torch: channels-last out of the 2-d pool, row-major out of the 3-d
        if nd == 3:
            return _adaptive_avg(nd, input, output_size, False).contiguous()
        glob = all(o == 1 for o in out)  # torch's global mean: a row-major input gradient
        y = _adaptive_avg(nd, x if glob else _mf.grad_input(x, fmt), output_size, False)
        z = _mf.output(y, fmt)
        if z is not y and all(o == 1 for o in out):  # torch restrides its global mean
            return rename_node(z, "AsStridedBackward1")
        return _adaptive_named(z, nd, "Avg")
    spatial = tuple(x.shape[2:])
    dims = tuple(range(2, 2 + nd))
    if all(o == 1 for o in out):
        # global pooling is a mean, as in torch (so an empty input gives NaN, not an error)
        y = unbatch(x.mean(dim=dims, keepdim=True), added)
        return rename_node(y, "SqueezeBackward1") if nd == 1 else y
    if 0 in spatial:
        shown = (tuple(x.shape[:2]) + (1,) + spatial) if nd == 1 else tuple(input.shape)
        if added and nd == 1:
            shown = shown[1:]
        first = next(i for i, s in enumerate(shown) if s == 0 and i >= len(shown) - max(nd, 2))
        name = "adaptive_avg_pool2d" if nd == 1 else fn
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {_impl.shape_str(shown)} with "
                           f"dimension {first} being empty")
    if 0 in out:  # nothing to average; the empty result stays joined to the input
        y = x.sum(dim=dims, keepdim=True)
        return unbatch(y.expand(*(tuple(x.shape[:2]) + out)), added)
    even = all(n % o == 0 for n, o in zip(spatial, out))
    if _adaptive_avg_op.applies(x) and not (
            even and all((n // o) & (n // o - 1) == 0 for n, o in zip(spatial, out))):
        # torch's order of sums and roundings (equal power-of-two windows: average pooling
        # below gives the same bits, its one division by the window size being exact)
        return _adaptive_named(unbatch(_adaptive_avg_op.adaptive_avg(x, out), added), nd,
                               "Avg")
    if all(n % o == 0 for n, o in zip(spatial, out)):
        kernel = tuple(n // o for n, o in zip(spatial, out))
        y = _ops.avg_pool(x, kernel, kernel, (0,) * nd, out, int(np.prod(kernel)))
        return _adaptive_named(unbatch(y, added), nd, "Avg")
    # Uneven windows: average pooling is separable, so it is one weighted window sum per dim
    # (a few whole-batch gathers each; measured 2-3x faster here than a tall-skinny GEMM).
    xp = xp_of(x._array)
    half = x.dtype in (_dtype.float16, _dtype.bfloat16)
    # torch averages half types in float32 and rounds once
    y = x.float() if half else x
    dt = y._array.dtype
    for d in reversed(range(nd)):
        fwd, adj = _windows.adaptive_avg_windows(spatial[d], out[d])
        fwd, adj = [(xp.asarray(i), xp.asarray(w.astype(dt))) for i, w in (fwd, adj)]
        y = _ops.axis_window_sum(y, 2 + d, fwd, adj)
    if half:
        y = y.to(x.dtype)
    return _adaptive_named(unbatch(y, added), nd, "Avg")


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length, whatever the input length.

    Output ``i`` averages ``input[floor(i*L/out) : ceil((i+1)*L/out)]``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.

    Example:
        >>> torch.nn.functional.adaptive_avg_pool1d(torch.tensor([[1., 3., 2., 6.]]), 2)
        tensor([[2., 4.]])
    """
    return _mf.pool1d_layout(input, _adaptive_avg(1, input, output_size))


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``(H_out, W_out)`` (an int, or a pair whose None entries
    keep the input's size); windows as in :func:`adaptive_avg_pool1d` along each dim."""
    return _adaptive_avg(2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``; see :func:`adaptive_avg_pool2d`."""
    return _adaptive_avg(3, input, output_size)


def _fractional(nd, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    fn = f"fractional_max_pool{nd}d"
    kernel = _impl.int_tuple(fn, kernel_size, nd, "kernel_size", 2, lambda n: (
        f"{fn}: kernel_size must either be a single Int or tuple of Ints"))
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    n = input.dim()
    if n < nd + 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
                         f"{max(n, 1) - 1}], but got {-(nd + 1)})")
    if n > nd + 2:
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{_impl.shape_str(input.shape)}")
    spatial = tuple(input.shape[-nd:])
    if output_size is None:
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * nd
        out = tuple(int(s * r) for s, r in zip(spatial, ratio))
    else:
        out = _impl.int_tuple(fn, output_size, nd, "output_size", 3, lambda m: (
            f"{fn}: output_size must either be a single Int or tuple of Ints"))
    x, added = batched(input, nd)
    batch, planes = x.shape[:2]
    if _random_samples is None:
        _impl.require_dtype("check_uniform_bounds", input, False)
        samples = _sampling.rand(batch, planes, nd, dtype=input.dtype, device=input.device)
    else:
        samples = _random_samples
        if samples.dim() != 3:
            raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got "
                               f"{samples.dim()}")
        if samples.shape[2] != nd:
            raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                               f"{samples.shape[2]}.")
        if samples.shape[0] < batch:
            raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
        if samples.shape[1] != planes:
            raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
        if samples.dtype != input.dtype:
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
    _impl.require_dtype(fn, input, False)
    names = ("height", "width") if nd == 2 else ("time", "height", "width")
    where = f"{fn}()" if nd == 2 else "fractional_max_pool3d_out()"
    checks = list(zip(names, out, kernel, spatial))
    if nd == 3:  # torch's 3-d check is strict and goes time, width, height
        checks = [checks[0], checks[2], checks[1]]
    for name, o, k, s in checks:
        if o + k - 1 > s or (nd == 3 and o + k - 1 == s):
            raise RuntimeError(f"{where}: pool {name} {k} too large relative to input {name} {s}")
    # one pseudo-random window sequence per plane and dim; torch's 2-d samples list (w, h)
    u = samples._array[:batch].reshape(batch * planes, nd)
    order = (1, 0) if nd == 2 else (0, 1, 2)
    xp = xp_of(x._array)
    per_dim = []
    unique = True
    for d, col in enumerate(order):
        starts = _windows.fractional_starts(u[:, col], spatial[d], out[d], kernel[d])
        unique = unique and bool((xp.diff(starts, axis=1) >= kernel[d]).all())
        per_dim.append(starts[:, :, None] + xp.arange(kernel[d], dtype=np.int64))
    index = _windows.window_index(xp, per_dim, spatial)
    result = _ops.window_max(x, index, unique, return_indices)
    rename_node(result[0] if isinstance(result, tuple) else result,
                f"FractionalMaxPool{nd}DBackward0")  # torch's node
    return unbatch(result, added, keep_name=True)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling (B. Graham, 2014): max over pseudo-randomly placed windows.

    Window starts follow one random sequence per plane and dim, so the output size can be any
    size, not just the input size over an integer stride.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): window size.
        output_size (int or tuple, optional): output size ``(H_out, W_out)``.
        output_ratio (float or tuple, optional): output size as a fraction of the input size
            (used when ``output_size`` is not given).
        return_indices (bool): also return the position of each maximum. Default: False.
        _random_samples (Tensor, optional): ``(N, C, 2)`` values in [0, 1) that place the
            windows (width first, then height); drawn uniformly when not given.

    Example:
        >>> x = torch.randn(1, 1, 9, 9)
        >>> torch.nn.functional.fractional_max_pool2d(x, 2, output_size=4).shape
        torch.Size([1, 1, 4, 4])

    Note:
        The random draws do not reproduce torch's stream (the same seed gives other windows);
        given the same ``_random_samples`` the result is torch's exactly. A scalar
        ``output_ratio`` is accepted here (torch's function needs a pair).
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling over 3-d windows; see :func:`fractional_max_pool2d`
    (``_random_samples`` is ``(N, C, 3)``, in the order depth, height, width)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` that always returns ``(values, indices)``."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d` that always returns ``(values, indices)``."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, True, _random_samples)
