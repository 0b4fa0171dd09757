"""nn.functional: normalization (batch, instance, layer, group, RMS, local response, p-norm).

Batch, instance, layer and group norm standardise and apply their affine part with the
fused ``NormalizeAffine`` primitive (``numtorch/ops/norm_ops.py``) over the dims each one
pools; with running estimates they are a per-channel scale and shift. The rest are
compositions of numtorch ops.
"""

import numpy as np

from ... import _dtype
from ..._size import Size
from ..._tensor import _make
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...autograd.graph import channels_last_layout, ops_traced, rename_node
from ..._creation import zeros
from ...backend import is_device_array
from ...ops import addcmul, cat, div
from ...ops.norm_device import running_update as _running_update_device
from ...ops import norm_batch as _norm_batch
from ...ops.norm_ops import NormalizeAffine, normalize_affine
from ...ops._util import fmt_shape, row_major_result
from ._memory_format import suggest

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
           "local_response_norm", "normalize"]


def _check_float(kernel, input):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")


def _check_same_dtype(input, *tensors, stats=()):
    """torch's CPU kernels want the parameters (and batch norm's running ``stats``) in the
    input's dtype, except that a float16/bfloat16 input may have them all in float32 (what
    autocast hands a norm layer)."""
    dt = input.dtype
    given = [t for t in tensors + tuple(stats) if t is not None]
    if given and dt != _dtype.float32 and all(t.dtype == _dtype.float32 for t in given):
        if dt in (_dtype.float16, _dtype.bfloat16):
            return
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if any(t is not None and t.dtype != dt for t in tensors):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    for t in stats:
        if t is not None and t.dtype != dt:
            raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[dt.name]} but found "
                               f"{_dtype._TYPE_DISPLAY[t.dtype.name]}")


def _channel_view(t, ndim, dtype):
    """A per-channel vector shaped to broadcast over dim 1 of an ``ndim``-d input."""
    if t.dtype != dtype:
        t = t.to(dtype)
    return t.reshape((1, -1) + (1,) * (ndim - 2)) if ndim > 1 else t


def _compute_dtype(input):
    """float16 and bfloat16 are normalised in float32 (as torch's CPU kernels do), other floats as
    is."""
    return _dtype.float32 if input.dtype.name in ("float16", "bfloat16") else input.dtype


def _cast(t, dt):
    return t if t is None or t.dtype == dt else t.to(dt)


def _verify_batch_size(size, show):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {show}")


def _check_stats_grad(running_mean, running_var):
    """torch refuses running estimates that require grad (they are not differentiable)."""
    if not is_grad_enabled():
        return
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad:
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have "
                               f"requires_grad True.")


def _update_running(running, batch_value, momentum):
    """running = (1 - momentum) * running + momentum * batch_value, in place (no graph).

    Written on the array, as torch's kernel writes it: no version bump (a module's running
    stats stay at version 1 after forward passes, as torch's) and, on a GPU, three launches
    instead of the in-place ops' nine. The arithmetic is the ops' own, bit for bit.
    """
    r = running._array
    if running.dtype in (_dtype.float16, _dtype.bfloat16) and type(r) is type(batch_value):
        # as torch: the blend in float32, one rounding
        f = np.float32
        r[...] = (r.astype(f) * f(1 - momentum) + batch_value.astype(f) * f(momentum)).astype(
            r.dtype)
        return
    if r.dtype.kind == "f" and type(r) is type(batch_value):
        dt = r.dtype
        value = batch_value.astype(dt, copy=False)
        r *= dt.type(1 - momentum)
        r += value * dt.type(momentum)
        return
    with no_grad():
        value = _make(batch_value.astype(running._array.dtype, copy=False))
        running.mul_(1 - momentum).add_(value * momentum)


def _normalize_with_running(input, running_mean, running_var, weight, bias, eps):
    """(x - mean) / sqrt(var + eps) * weight + bias with the running estimates, as one
    per-channel scale and shift (two passes over the input; torch's CPU kernel does the
    same)."""
    dt = input.dtype
    arrays = _norm_batch.running_arrays(input, running_mean, running_var, weight, bias)
    if arrays is not None:
        return _make(_norm_batch.running_normalize(*arrays, eps))
    scale = (_cast(running_var, dt) + eps).rsqrt()  # (an operator: patched Tensor.add unseen)
    if weight is not None:
        scale = scale * weight
    neg_mean = -_cast(running_mean, dt)
    # torch: shift = bias - mean * scale rounded once, then x * scale + shift rounded once
    shift = neg_mean * scale if bias is None else addcmul(bias, neg_mean, scale)
    nd = input.ndim
    # torch's kernel: x * scale + shift in one fused multiply-add per value
    return addcmul(_channel_view(shift, nd, dt), input, _channel_view(scale, nd, dt))


def _half_batch_normalize(x, weight, bias, dims, eps, half, stats):
    """Training-mode batch norm of a float16/bfloat16 input (``x`` already in float32) with
    torch's CPU roundings: the batch mean and 1/sqrt(var + eps) are rounded to the input's
    type before the float32 affine map (bit-identical for float16, 88% for bfloat16 against
    67% without)."""
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, correction=0, keepdim=True)
    if stats is not None:
        stats["mean"], stats["var"] = mean.detach()._array, var.detach()._array
    # torch's backward reads the rounded statistics m16 and i16 as its saved values:
    # dx = (g - mean(g) - (x - m16) * mean(g * (x - m16)) * i16^2) * i16 (times the weight).
    # The terms below have exactly those values (the rounded m16, i16) and those derivatives:
    # the mean's own, and for i16 -0.5 * i16^3 times the derivative of the spread around m16
    # (a float32 derivative of the exact statistics differed by up to 24 units in float16).
    with no_grad():
        m16 = mean.to(half).float()
        i16 = (var + eps).rsqrt().to(half).float()
    spread = (x - m16).pow(2).mean(dims, keepdim=True)
    m = m16 + (mean - mean.detach())
    i = i16 * (1 - 0.5 * (spread - spread.detach()) * i16 * i16)
    y = (x - m) * i
    if weight is not None:
        y = y * weight
    return y if bias is None else y + bias


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) with batch statistics or with running estimates.

    In training mode the mean and biased variance over every dim but 1 normalise the input,
    and ``running_mean``/``running_var`` (if given) are updated in place:
    ``running = (1 - momentum) * running + momentum * batch`` with the unbiased batch
    variance. In eval mode the running estimates (then required) normalise the input.

    Args:
        input (Tensor): shape ``(N, C, *)``.
        running_mean (Tensor or None): shape ``(C,)``.
        running_var (Tensor or None): shape ``(C,)``.
        weight (Tensor, optional): per-channel scale ``(C,)``.
        bias (Tensor, optional): per-channel shift ``(C,)``.
        training (bool): use batch statistics and update the running ones. Default: False.
        momentum (float): weight of the new batch statistics. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> x = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> torch.nn.functional.batch_norm(x, None, None, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
    """
    shape = tuple(input.shape)
    if training:
        _verify_batch_size(shape, input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if (running_mean is None) != (running_var is None) and training:
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    channels = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if len(shape) < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    _check_float("batch_norm", input)
    _check_same_dtype(input, weight, bias, stats=(running_mean, running_var))
    _check_stats_grad(running_mean, running_var)
    if not training and (running_mean is None or running_var is None):
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    nd = input.ndim
    dt = input.dtype
    ct = _compute_dtype(input)
    x = _cast(input, ct)
    view = lambda t: None if t is None else _channel_view(t, nd, ct)  # noqa: E731
    if nd == 2 and type(x._array) is np.ndarray:
        # (N, C): a (C,) parameter broadcasts as it is (no reshape nodes and their backward,
        # ~20 us of a (64, 64) training step's 200)
        view = lambda t: None if t is None else _cast(t, ct)  # noqa: E731
    if training:
        dims = (0,) + tuple(range(2, nd))
        update = running_mean is not None
        stats = {} if update else None
        w_c, b_c = _cast(weight, ct), _cast(bias, ct)
        # float32 parameters or statistics with a half input: torch's mixed-type kernel,
        # float32 throughout with one rounding at the end (the branches below)
        mixed = any(t is not None and t.dtype is _dtype.float32
                    for t in (weight, bias, running_mean, running_var))
        if dt in (_dtype.float16, _dtype.bfloat16) and not mixed:
            y = _half_batch_normalize(x, view(weight), view(bias), dims, eps, dt, stats)
        elif not ops_traced() and _norm_batch.applies(
                x._array, None if w_c is None else w_c._array,
                None if b_c is None else b_c._array):
            # the (C,) parameters as they are: no reshape nodes (see ops/norm_batch.py)
            y = _norm_batch.BatchNormAffine.apply(x, w_c, b_c, dims=dims, eps=float(eps),
                                                  n=input.numel() // channels, stats=stats)
        else:
            y = normalize_affine(x, view(weight), view(bias), dims, eps, stats)
        n = input.numel() // max(channels, 1)
        if update and n > 0 and not _running_update_device(  # GPU: one launch
                running_mean._array, running_var._array, stats["mean"].reshape(-1),
                stats["var"].reshape(-1), n, momentum):
            _update_running(running_mean, stats["mean"].reshape(-1), momentum)
            unbiased = stats["var"].reshape(-1) * (n / max(n - 1, 1))
            _update_running(running_var, unbiased, momentum)
    else:
        y = _normalize_with_running(x, running_mean, running_var, _cast(weight, ct),
                                    _cast(bias, ct), eps)
    return rename_node(_in_input_format(_cast(y, dt), input), "NativeBatchNormBackward0")


def _in_input_format(y, input):
    """``y`` (just made) laid out as torch's batch and group norm allocate their result: in
    the input's suggested memory format, so channels-last stays (NumPy keeps it already) and
    any other non-contiguous layout becomes row-major."""
    a = input._array
    if a.ndim > 1 and hasattr(a, "flags") and not a.flags.c_contiguous and \
            not channels_last_layout(a):
        return row_major_result(y)
    return y


def _verify_spatial_size(size, show):
    prod = 1
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{show}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its spatial dims.

    With ``use_input_stats`` the statistics of each ``(sample, channel)`` are used, and given
    running estimates are updated with their mean over the batch (unbiased variances);
    otherwise the running estimates normalise the input.

    Args:
        input (Tensor): shape ``(N, C, *)``.
        running_mean (Tensor, optional): shape ``(C,)``.
        running_var (Tensor, optional): shape ``(C,)``.
        weight (Tensor, optional): per-channel scale ``(C,)``.
        bias (Tensor, optional): per-channel shift ``(C,)``.
        use_input_stats (bool): use the per-instance statistics. Default: True.
        momentum (float): weight of the new statistics in the running ones. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> x = torch.tensor([[[1.0, 3.0], [2.0, 2.0]]])
        >>> torch.nn.functional.instance_norm(x, eps=0.0)
        tensor([[[-1.,  1.],
                 [nan, nan]]])
    """
    shape = tuple(input.shape)
    if use_input_stats:
        _verify_spatial_size(shape, input.size())
    batch = shape[0]
    channels = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        # torch runs batch norm over (1, N*C, ...) with these repeated N times
        if t is not None and t.numel() * batch != batch * channels:
            raise RuntimeError(f"{name} should contain {batch * channels} elements not "
                               f"{t.numel() * batch}")
    _check_float("batch_norm", input)
    _check_same_dtype(input, weight, bias)
    _check_stats_grad(running_mean, running_var)
    nd = input.ndim
    dt = input.dtype
    ct = _compute_dtype(input)
    x = _cast(input.contiguous(), ct)  # torch's result is row-major whatever the input's layout
    view = lambda t: None if t is None else _channel_view(t, nd, ct)  # noqa: E731
    if use_input_stats:
        stats = {} if running_mean is not None or running_var is not None else None
        if dt in (_dtype.float16, _dtype.bfloat16):
            # torch's batch norm of (1, N*C, ...) with the parameters repeated N times: its
            # float16 roundings of the statistics and of each (sample, channel) parameter
            # gradient before the sum over the batch
            def per_instance(t):
                if t is None:
                    return None
                rep = t.repeat(batch).reshape((batch, channels) + (1,) * (nd - 2))
                return _cast(rep, ct)

            y = _half_batch_normalize(x, per_instance(weight), per_instance(bias),
                                      tuple(range(2, nd)), eps, dt, stats)
        else:
            y = normalize_affine(x, view(weight), view(bias), tuple(range(2, nd)), eps, stats)
        n = 1
        for s in shape[2:]:
            n *= s
        if stats is not None and batch > 0:
            if running_mean is not None:
                _update_running(running_mean, stats["mean"].reshape(batch, -1).mean(0),
                                momentum)
            if running_var is not None:
                unbiased = stats["var"].reshape(batch, -1) * (n / max(n - 1, 1))
                _update_running(running_var, unbiased.mean(0), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")
        y = _normalize_with_running(x, running_mean, running_var, _cast(weight, ct),
                                    _cast(bias, ct), eps)
    # torch normalises a (1, N*C, ...) view and views the result back
    return rename_node(_cast(y, dt), "ViewBackward0")


def _shape_list(fn, normalized_shape):
    """``normalized_shape`` as a tuple of ints, with torch's TypeError otherwise."""
    if isinstance(normalized_shape, (int, np.integer)) or not isinstance(
            normalized_shape, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")
    for i, s in enumerate(normalized_shape):
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"{fn}(): argument 'normalized_shape' (position 2) must be tuple "
                            f"of ints, but found element of type {type(s).__name__} at pos "
                            f"{i}")
    return tuple(int(s) for s in normalized_shape)


def _check_normalized_shape(input, ns, weight, bias, star):
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    shape = tuple(input.shape)
    if len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        inner = ", ".join(str(s) for s in ns)
        raise RuntimeError(f"Given normalized_shape={fmt_shape(ns)}, expected input with shape "
                           f"[{star}{inner}], but got input of size{fmt_shape(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {fmt_shape(t.shape)} and normalized_shape "
                               f"= {fmt_shape(ns)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift.

    .. math:: y = \\frac{x - \\mathrm{E}[x]}{\\sqrt{\\mathrm{Var}[x] + \\epsilon}} * w + b

    Args:
        input (Tensor): shape ``(*, *normalized_shape)``.
        normalized_shape (tuple or list of int): the trailing shape to normalise over.
        weight (Tensor, optional): elementwise scale of shape ``normalized_shape``.
        bias (Tensor, optional): elementwise shift of shape ``normalized_shape``.
        eps (float): added to the (biased) variance. Default: 1e-5.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,), eps=0.0)
        tensor([[-1.,  1.]])
    """
    ns = normalized_shape
    k = len(ns) if type(ns) is tuple or type(ns) is list or type(ns) is Size else 0
    if k == 1 and type(ns[0]) is int:  # the usual (C,) (or w.shape): nothing to parse
        ns = ns if type(ns) is tuple else (ns[0],)
    elif k == 0 or any(type(s) is not int for s in ns):
        ns = _shape_list("layer_norm", normalized_shape)
    elif type(ns) is not tuple:
        ns = tuple(ns)
    _check_normalized_shape(input, ns, weight, bias, "*, ")
    dt = input.dtype
    if (dt is _dtype.float32 or dt is _dtype.float64) and \
            (weight is None or weight.dtype is dt) and (bias is None or bias.dtype is dt):
        # the common case straight into the fused op: no casts, no dtype checks to pass
        # (F.layer_norm (1, 4, 8) ~3 us of its ~25)
        nd, k = input.ndim, len(ns)
        n = 1
        for s in ns:
            n *= s
        return NormalizeAffine.apply(input.contiguous(), weight, bias,
                                     dims=tuple(range(nd - k, nd)), eps=float(eps), n=n,
                                     stats=None)
    _check_float("LayerNormKernelImpl", input)
    if weight is not None and bias is not None and weight.dtype == input.dtype and \
            bias.dtype != input.dtype:
        # torch's layer norm: a weight of the input's dtype makes a bias of another dtype the
        # plain dtype error (the "mixed dtype" one is for the weight)
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[input.dtype.name]} "
                           f"but found {_dtype._TYPE_DISPLAY[bias.dtype.name]}")
    _check_same_dtype(input, weight, bias)
    dt = input.dtype
    ct = _compute_dtype(input)
    nd = input.ndim
    # torch's result is row-major whatever the input's layout (transposed, channels-last)
    half = None
    if (dt is _dtype.bfloat16 or dt is _dtype.float16) and (weight is not None or
                                                            bias is not None) and \
            all(p is None or p.dtype is _dtype.float32 for p in (weight, bias)):
        half = dt.np  # autocast's mix: torch sums the w/b gradients in half buffers
    same = (dt is _dtype.bfloat16 or dt is _dtype.float16) and half is None
    y = normalize_affine(_cast(input.contiguous(), ct), _cast(weight, ct), _cast(bias, ct),
                         tuple(range(nd - len(ns), nd)), eps,
                         half_sums=dt.np if same else half, round_stats=dt.np if same else None)
    return _cast(y, dt)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of ``C // num_groups`` channels of each sample, then scale and
    shift per channel.

    Args:
        input (Tensor): shape ``(N, C, *)``.
        num_groups (int): number of channel groups; must divide ``C``.
        weight (Tensor, optional): per-channel scale ``(C,)``.
        bias (Tensor, optional): per-channel shift ``(C,)``.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> x = torch.tensor([[1.0, 3.0, 0.0, 4.0]])
        >>> torch.nn.functional.group_norm(x, 2, eps=0.0)
        tensor([[-1.,  1., -1.,  1.]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    shape = tuple(input.shape)
    size = [shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:])
    _verify_batch_size(size, size)
    if shape[1] % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {fmt_shape(shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != shape[1]):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{fmt_shape(t.shape)} and input of shape {fmt_shape(shape)}")
    _check_float("GroupNormKernelImpl", input)
    _check_same_dtype(input, weight, bias)
    dt = input.dtype
    ct = _compute_dtype(input)
    n, c = shape[0], shape[1]
    # (N, G, C/G, S): each group's values are dims 2 and 3, and a per-channel weight is a
    # (1, G, C/G, 1) array, so the fused op applies it without a separate pass
    spatial = int(np.prod(shape[2:], dtype=np.int64))  # (not -1: an empty batch is fine)
    grouped = _cast(input, ct).reshape(n, num_groups, c // num_groups, spatial)
    pview = lambda t: None if t is None else _cast(t, ct).reshape(  # noqa: E731
        1, num_groups, c // num_groups, 1)
    y = normalize_affine(grouped, pview(weight), pview(bias), (2, 3), eps,
                         round_stats=dt.np if dt is not ct else None)
    return rename_node(_in_input_format(_cast(y.reshape(shape), dt), input),
                       "NativeGroupNormBackward0")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Divide by the root mean square over the trailing ``normalized_shape`` dims, then scale.

    .. math:: y = \\frac{x}{\\sqrt{\\mathrm{E}[x^2] + \\epsilon}} * w

    Args:
        input (Tensor): shape ``(*, *normalized_shape)``.
        normalized_shape (tuple or list of int): the trailing shape to normalise over.
        weight (Tensor, optional): elementwise scale of shape ``normalized_shape``.
        eps (float, optional): added to the mean square. Default: the machine epsilon of
            ``input``'s dtype.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, 4.0]]), (2,), eps=0.0)
        tensor([[0.8485, 1.1314]])
    """
    ns = _shape_list("rms_norm", normalized_shape)
    _check_normalized_shape(input, ns, weight, None, "*")
    _check_float("rms_norm", input)
    dt = input.dtype
    # half and bfloat16 are squared and averaged in float32 (as torch does): their squares
    # overflow from 256 (float16), and the default eps is float32's
    ct = _dtype.float32 if dt in (_dtype.float16, _dtype.bfloat16) else dt
    if eps is None:
        eps = float(np.finfo(ct.np).eps)
    nd = input.ndim
    dims = tuple(range(nd - len(ns), nd))
    relayout = False
    if not input._array.flags.c_contiguous and suggest(input) is None:
        # torch returns a permuted input's result row-major (a channels-last one stays), its
        # squares summed as they lie: as in a row-major copy when the normalised dims are
        # row-major among themselves, else in the input's own layout
        block = input._array[(0,) * (nd - len(ns))] if nd > len(ns) else input._array
        if block.flags.c_contiguous:
            input = input.contiguous()
        else:
            relayout = True
    x = _cast(input, ct)
    y = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        y = y * weight
    y = _cast(y, dt)  # the input's dtype, whatever the weight's
    return y.contiguous() if relayout else y


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each value by a power of the mean square over ``size`` neighbouring channels.

    .. math:: y_c = x_c / (k + \\frac{\\alpha}{n} \\sum_{c'} x_{c'}^2)^{\\beta}

    The window for channel ``c`` is ``[c - size // 2, c + (size - 1) // 2]``, zero padded.

    Args:
        input (Tensor): shape ``(N, C, *)`` with at least 3 dims.
        size (int): number of channels in the window.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> x = torch.ones(1, 3, 1)
        >>> torch.nn.functional.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=0.0)
        tensor([[[2.],
                 [1.],
                 [1.]]])
    """
    if input.ndim < 3:
        # (torch's message holds a run of 26 spaces from a continued source line)
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got "
                         f"{input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    exact = input.dtype == _dtype.int64  # torch's CPU average pooling takes int64 (truncating)
    if is_device_array(input._array):
        _check_float("avg_pool2d", input)
    elif input.ndim == 3:
        if not exact:
            _check_float("avg_pool2d", input)
    elif not (exact or input.dtype in (_dtype.float32, _dtype.float64)):
        raise NotImplementedError(f'"avg_pool3d_out_frame" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    sq = input * input
    shape = tuple(input.shape)
    before, after = size // 2, (size - 1) // 2
    parts = []
    if before:
        parts.append(zeros((shape[0], before) + shape[2:], dtype=input.dtype))
    parts.append(sq)
    if after:
        parts.append(zeros((shape[0], after) + shape[2:], dtype=input.dtype))
    padded = cat(parts, 1) if len(parts) > 1 else sq
    channels = shape[1]
    window = padded.narrow(1, 0, channels)
    for j in range(1, size):  # a loop over the window, never over elements
        window = window + padded.narrow(1, j, channels)
    if exact:  # the window mean of the squares is an integer division, as torch's
        div_ = (window.div(size, rounding_mode="trunc") * alpha + k).pow(beta)
    else:
        div_ = (window * (alpha / size) + k).pow(beta)
    return input / div_


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Divide ``input`` by its ``p``-norm along ``dim`` (at least ``eps``).

    .. math:: y = \\frac{x}{\\max(\\lVert x \\rVert_p, \\epsilon)}

    Args:
        input (Tensor): a floating point tensor.
        p (float): the norm's exponent. Default: 2.
        dim (int or tuple of int): the dim(s) to reduce. Default: 1.
        eps (float): lower bound of the norm. Default: 1e-12.
        out (Tensor, optional): where to write the result.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return div(input, denom, out=out)
