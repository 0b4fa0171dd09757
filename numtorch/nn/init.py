"""``nn.init``: in-place, no-grad initialisers with torch's distributions and bounds.

Every function fills ``tensor`` in place under ``no_grad`` (so it works on parameters that
require grad) and returns the same tensor. Random draws come from numtorch's generators
(``manual_seed`` or ``generator=``); the streams differ from torch's, the distributions do not.
"""

import math
import warnings

import numpy as np

from .. import _dtype, backend
from .._tensor import _make
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant",
           "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal",
           "sparse", "eye", "dirac"]

_UNIT_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """Return the recommended scale of the weights feeding a given nonlinearity.

    The gain keeps activation variance steady through layers: 1 for linear/conv/sigmoid, 5/3
    for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu (slope ``param``,
    default 0.01) and 3/4 for selu.

    Args:
        nonlinearity (str): the name of the nonlinearity (``'relu'``, ``'tanh'``, ...).
        param (float, optional): the negative slope of ``'leaky_relu'``.

    Returns:
        float: the gain (the int 1 for the unit-gain functions, as torch returns).

    Example:
        >>> torch.nn.init.calculate_gain("relu")
        1.4142135623730951
    """
    if nonlinearity in _UNIT_GAIN:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        # torch's choice: 3/4 keeps the forward variance of SELU nets close to one
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """Return ``(fan_in, fan_out)``: dims 1 and 0 times the size of one receptive field."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with draws from the uniform distribution on ``[a, b)``.

    Args:
        tensor (Tensor): the tensor to fill (in place).
        a (float): the lower bound. Default: 0.
        b (float): the upper bound. Default: 1.
        generator (Generator, optional): the random generator to draw from.

    Returns:
        Tensor: ``tensor``.

    Example:
        >>> w = torch.nn.init.uniform_(torch.empty(3, 5), -0.1, 0.1)
        >>> bool((w.abs() <= 0.1).all())
        True
    """
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with draws from N(mean, std**2).

    Example:
        >>> torch.nn.init.normal_(torch.empty(3, 5)).shape
        torch.Size([3, 5])
    """
    return _no_grad_normal_(tensor, mean, std, generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    """torch 2.13's sampler, draw for draw (so a seeded init gives torch's values): when
    ``[a, b]`` holds more than 30% of the normal's mass, whole fresh normal tensors replace
    the out-of-range entries until none is left; otherwise uniform proposals on ``[a, b]``
    are accepted with probability pdf(x) / pdf(mode), whole tensors of proposals and of
    acceptance draws per round."""
    if tensor.device.type == "meta":
        return tensor  # no storage, nothing drawn (as torch)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=3)
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a} > to={b}")
    from .. import empty_like, where

    with no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            # the bounds as the tensor's dtype holds them, so the test agrees with its values
            lo, hi = tensor.new_tensor(a, device="cpu").item(), tensor.new_tensor(
                b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                out = (result < lo) | (result > hi)
                if not out.any():
                    break
                fresh = empty_like(result).normal_(mean, std, generator=generator)
                result = where(out, fresh, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_ratio(x):  # log(pdf(x) / pdf(mode)), in place on x
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        proposals = empty_like(tensor)
        accept = empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        proposals.copy_(tensor)
        pending = accept.uniform_(generator=generator).log_().gt(log_ratio(proposals))
        if pending.any():
            result = tensor
            while True:
                proposals.uniform_(a, b, generator=generator)
                result = where(pending, proposals, result)
                rejected = accept.uniform_(generator=generator).log_().gt(log_ratio(proposals))
                pending = where(pending, rejected, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) draws truncated to ``[a, b]``.

    Values are drawn by inverse-CDF sampling, so no draws are rejected. A ``mean`` more than
    two std outside ``[a, b]`` warns, as the sample is then poorly spread.

    Example:
        >>> w = torch.nn.init.trunc_normal_(torch.empty(100), std=0.02, a=-0.04, b=0.04)
        >>> bool((w.abs() <= 0.04).all())
        True
    """
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator)


def constant_(tensor, val):
    """Fill ``tensor`` with the value ``val``.

    Example:
        >>> torch.nn.init.constant_(torch.empty(2), 0.5)
        tensor([0.5000, 0.5000])
    """
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    """Fill ``tensor`` with ones.

    Example:
        >>> torch.nn.init.ones_(torch.empty(2))
        tensor([1., 1.])
    """
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros.

    Example:
        >>> torch.nn.init.zeros_(torch.empty(2))
        tensor([0., 0.])
    """
    return _no_grad_zero_(tensor)


def eye_(tensor):
    """Fill the 2-D ``tensor`` with the identity (ones on the main diagonal).

    Example:
        >>> torch.nn.init.eye_(torch.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    arr = tensor._array
    xp = backend.xp_of(arr)
    with no_grad():
        tensor.copy_(_make(xp.eye(*arr.shape, dtype=arr.dtype)))
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D conv weight with the Dirac delta (a conv that copies its input).

    With ``groups`` > 1 the output channels split into ``groups`` blocks, each copying the
    first input channels.

    Example:
        >>> w = torch.nn.init.dirac_(torch.empty(2, 2, 3))
        >>> w[0, 0].tolist(), w[0, 1].tolist()
        ([0.0, 1.0, 0.0], [0.0, 0.0, 0.0])
    """
    nd = tensor.dim()
    if nd not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = shape[0] // groups
    n = min(per_group, shape[1])
    arr = tensor._array
    xp = backend.xp_of(arr)
    out = xp.zeros(shape, dtype=arr.dtype)
    centre = tuple(s // 2 for s in shape[2:])
    d = xp.arange(n)
    for g in range(groups):
        out[(g * per_group + d, d) + centre] = 1
    with no_grad():
        tensor.copy_(_make(out))
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform init: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Example:
        >>> w = torch.nn.init.xavier_uniform_(torch.empty(3, 5))
        >>> bool((w.abs() <= 3 ** 0.5 * (2 / 8) ** 0.5).all())
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal init: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Example:
        >>> torch.nn.init.xavier_normal_(torch.empty(3, 5)).shape
        torch.Size([3, 5])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def _zero_elements(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform init: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``.

    Args:
        tensor (Tensor): at least 2-D.
        a (float): the negative slope of the leaky_relu that follows. Default: 0.
        mode (str): ``'fan_in'`` (keeps forward variance) or ``'fan_out'`` (backward).
        nonlinearity (str): passed to :func:`calculate_gain`. Default: ``'leaky_relu'``.
        generator (Generator, optional): the random generator to draw from.

    Example:
        >>> w = torch.nn.init.kaiming_uniform_(torch.empty(4, 9), nonlinearity="relu")
        >>> bool((w.abs() <= 2 ** 0.5 * (3 / 9) ** 0.5).all())
        True
    """
    if _zero_elements(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal init: N(0, std**2) with ``std = gain / sqrt(fan)``.

    Example:
        >>> torch.nn.init.kaiming_normal_(torch.empty(4, 9), mode="fan_out").shape
        torch.Size([4, 9])
    """
    if _zero_elements(tensor):
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return _no_grad_normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (at least 2-D, seen as ``(size(0), -1)``) with a random orthogonal
    matrix times ``gain``: orthonormal rows or columns, whichever are fewer.

    The matrix is the Q factor of a Gaussian matrix's QR decomposition, with column signs
    fixed by R's diagonal so the result is uniformly (Haar) distributed.

    Example:
        >>> q = torch.nn.init.orthogonal_(torch.empty(3, 5))
        >>> torch.allclose(q @ q.T, torch.eye(3), atol=1e-5)
        True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    arr = tensor._array
    xp = backend.xp_of(arr)
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._array
        if flat.dtype.kind == "c":  # torch's sign of R's diagonal refuses complex values
            raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support "
                                      "complex numbers. Please use torch.sgn instead.")
        if flat.dtype.itemsize == 2 and flat.dtype.kind in "fV" and xp is np:
            # torch's CPU QR has no 16-bit floats
            raise NotImplementedError(f'"geqrf_cpu" not implemented for '
                                      f"'{_dtype._TYPE_DISPLAY[tensor.dtype.name]}'")
        if rows < cols:
            flat = flat.T
        q, r = xp.linalg.qr(flat.astype(xp.float64))
        q *= xp.sign(xp.diagonal(r))
        if rows < cols:
            q = q.T
        tensor.copy_(_make((q * gain).astype(arr.dtype).reshape(arr.shape)))
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill the 2-D ``tensor`` with N(0, std**2) draws, then zero ``ceil(sparsity * rows)``
    randomly chosen entries in every column.

    Example:
        >>> w = torch.nn.init.sparse_(torch.empty(10, 4), sparsity=0.3)
        >>> (w == 0).sum(0).tolist()
        [3, 3, 3, 3]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    n_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if n_zeros:
            # a random permutation of the rows per column, column by column, drawn from the
            # global generator even when ``generator`` is given (torch's draws)
            from .._sampling import randperm

            for col in range(cols):
                rows_to_zero = randperm(rows, device=tensor.device)
                tensor[rows_to_zero[:n_zeros], col] = 0
    return tensor


def _deprecated(new):
    """The 0.x name of ``new`` (without the trailing underscore): warns, then calls it."""
    old = new.__name__[:-1]

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of :func:`{new.__name__}` (warns FutureWarning)."
    return alias


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
