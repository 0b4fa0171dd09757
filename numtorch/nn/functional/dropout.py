"""nn.functional: dropout (elementwise, channel-wise and alpha dropout).

The noise is drawn from numtorch's default generator (``numtorch.manual_seed`` reproduces it)
as a constant tensor, and the output is ``input * noise`` (plus a shift for alpha dropout), so
the gradient is exactly the mask times the scale, as in torch. On the CPU the noise is torch's
after the same seed (its Bernoulli draws compare float64 uniforms of torch's stream).
"""

import warnings

import numpy as np

from ... import _random
from ..._sample_ops import draws_below
from ..._tensor import Tensor, _make
from ...autograd import inplace as _inplace
from ...autograd.grad_mode import no_grad
from ...backend._layout_rank import dense_strides
from ...ops.elementwise import Mul

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]

# SELU's negative saturation value, -scale * alpha: what alpha dropout sets dropped units to
_SELU_SATURATION = 1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_input(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _memory_order(input, shape):
    """The dims of ``input`` from outermost to innermost in memory when its noise of ``shape``
    must follow its layout (torch draws noise ``empty_like`` the input, in memory order: a
    channels-last or transposed input gets noise laid out, and drawn, as it is), else None."""
    a = input._array
    if a.flags.c_contiguous or tuple(shape) != a.shape:
        return None
    if not dense_strides(a.shape, a.strides, a.itemsize):
        return None
    return tuple(sorted(range(a.ndim), key=lambda d: -a.strides[d]))


def _in_order(noise, order):
    """``noise`` drawn in the permuted shape ``order`` gives, viewed in logical order."""
    return noise if order is None else noise.permute(tuple(order.index(d)
                                                           for d in range(len(order))))


def _keep_noise(input, shape, p):
    """Bernoulli(1 - p) draws of ``shape`` in ``input``'s dtype and device (no gradient)."""
    order = _memory_order(input, shape)
    drawn = shape if order is None else tuple(shape[d] for d in order)
    with no_grad():
        return _in_order(input.detach().new_empty(drawn).bernoulli_(1.0 - p), order)


def _apply(input, noise, shift, inplace):
    """``input * noise (+ shift)``, written into ``input`` when ``inplace``."""
    if inplace:
        input.mul_(noise)
        return input if shift is None else input.add_(shift)
    out = input * noise
    return out if shift is None else out + shift


def _feature_shape(input):
    """One draw per (sample, channel): the noise shape of channel-wise dropout."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.dim() - 2)


def _plain_dropout(input, p):
    """Out-of-place elementwise dropout of a float32/float64 CPU tensor in one op.

    The same draws and values as the general path (``bernoulli_(1 - p)`` then ``div_(1 - p)``
    on the noise), made on arrays: the noise never needs a graph node, so only the product
    records one. Small inputs (a policy network's hidden layer) spend most of their time in
    op dispatch, which this cuts from three ops (two of them in place) to one.
    """
    dt = input._array.dtype
    keep = 1.0 - p
    shape = input._array.shape
    order = _memory_order(input, shape)
    drawn = shape if order is None else tuple(shape[d] for d in order)
    # float64 uniforms below 1 - p, as torch's CPU bernoulli_(1 - p) draws them, so a seed
    # gives torch's masks; kept places hold 1 / (1 - p) rounded to the dtype, what torch's
    # noise.div_(1 - p) leaves there (a cast, then an in-place product: 1.1 ms against 1.8
    # for NumPy's mixed bool-float multiply on minGPT's 4M attention weights)
    noise = draws_below(_random.default_generator._rng, drawn, keep).astype(dt)
    noise *= dt.type(1) / dt.type(keep)
    if order is not None:
        noise = noise.transpose(tuple(order.index(d) for d in range(len(order))))
    return Mul.apply(input, _make(noise))


def _dropout(input, p, training, inplace, feature, alpha):
    """The shared core: plain/feature and standard/alpha dropout on checked arguments."""
    if p == 0 or not training:
        return input
    if type(input._array) is not np.ndarray and input.is_quantized:  # no QuantizedCPU noise
        from ..._quantized_array import not_supported

        raise not_supported("zero_" if p == 1 else "bernoulli_.float")
    # not while numtorch.onnx records: its trace must see the random fill as a node
    if not (inplace or feature or alpha) and 0 < p < 1 and type(input._array) is np.ndarray \
            and (input._array.dtype == np.float32 or input._array.dtype == np.float64) \
            and _inplace._TRACE[0] is None:
        return _plain_dropout(input, p)
    shape = _feature_shape(input) if feature else tuple(input.shape)
    if p == 1:
        order = _memory_order(input, shape)
        with no_grad():
            zeros = _in_order(input.detach().new_zeros(
                shape if order is None else tuple(shape[d] for d in order)), order)
        return _apply(input, zeros, None, inplace)  # NaN * 0 stays NaN, as torch's
    noise = _keep_noise(input, shape, p)
    if not alpha:
        with no_grad():
            noise.div_(1.0 - p)
        return _apply(input, noise, None, inplace)
    # Dropped units take SELU's saturation value -s; a and b restore zero mean and unit
    # variance of SELU-normalised inputs (Klambauer et al., 2017): y = a (x d - s (1 - d)) + b.
    s = _SELU_SATURATION
    a = ((s * s * p + 1.0) * (1.0 - p)) ** -0.5
    with no_grad():
        shift = (noise - 1.0) * (s * a) + s * a * p
        noise.mul_(a)
    return _apply(input, noise, shift, inplace)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    The expected value of every element is unchanged; in eval mode (``training=False``) or
    with ``p == 0`` the input is returned as it is.

    Args:
        input (Tensor): the input.
        p (float): the probability of zeroing an element, in ``[0, 1]``. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result, with the same shape as ``input``.

    Example:
        >>> _ = torch.manual_seed(0)
        >>> y = torch.nn.functional.dropout(torch.ones(1000), 0.2)
        >>> sorted(set(y.tolist()))
        [0.0, 1.25]
    """
    _check_p(p)
    _check_input("dropout", input)
    return _dropout(input, p, training, inplace, False, False)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for self-normalising networks: keeps zero mean and unit variance.

    Dropped elements are set to SELU's negative saturation value and the result is rescaled
    and shifted so that SELU-normalised inputs (mean 0, variance 1) stay normalised.

    Args:
        input (Tensor): the input.
        p (float): the drop probability, in ``[0, 1]``. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: False.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> _ = torch.manual_seed(0)
        >>> y = torch.nn.functional.alpha_dropout(torch.randn(100000), 0.3, training=True)
        >>> abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1) < 0.02
        True
    """
    _check_p(p)
    _check_input("alpha_dropout", input)
    return _dropout(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: one draw per (sample, channel) of an ``(N, C, ...)``
    input (see :func:`alpha_dropout`).

    Args:
        input (Tensor): the input, at least 2-d.
        p (float): the drop probability, in ``[0, 1]``. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: False.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> y = torch.nn.functional.feature_alpha_dropout(torch.ones(2, 3, 4), 0.5, True)
        >>> bool((y == y[:, :, :1]).all())
        True
    """
    _check_p(p)
    _check_input("feature_alpha_dropout", input)
    return _dropout(input, p, training, inplace, True, True)


def _channelwise(input, p, training, inplace, batched):
    if batched:
        return _dropout(input, p, training, inplace, True, False)
    out = _dropout(input.unsqueeze(0), p, training, inplace, True, False)
    return out.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p``.

    Every kept channel is scaled by ``1 / (1 - p)``; the mask is constant along ``L``.

    Args:
        input (Tensor): a 2-d or 3-d input.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> y = torch.nn.functional.dropout1d(torch.ones(4, 8, 5))
        >>> bool((y == y[..., :1]).all())
        True
    """
    _check_p(p)
    _check_input("dropout1d", input)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _channelwise(input, p, training, inplace, nd == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, H, W)`` or ``(C, H, W)`` input with probability
    ``p``.

    Every kept channel is scaled by ``1 / (1 - p)``; the mask is constant over ``H, W``.

    Args:
        input (Tensor): a 4-d input (3-d inputs are read as ``(N, C, L)`` with a warning,
            as torch does; other ranks are deprecated).
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> y = torch.nn.functional.dropout2d(torch.ones(2, 8, 3, 3))
        >>> bool((y == y[..., :1, :1]).all())
        True
    """
    _check_p(p)
    _check_input("dropout2d", input)
    nd = input.dim()
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note "
                      "that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _dropout(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p``.

    Every kept channel is scaled by ``1 / (1 - p)``; the mask is constant over ``D, H, W``.

    Args:
        input (Tensor): a 4-d or 5-d input (other ranks are deprecated, as in torch).
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout (else return ``input``). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> y = torch.nn.functional.dropout3d(torch.ones(2, 4, 2, 2, 2))
        >>> bool((y == y[..., :1, :1, :1]).all())
        True
    """
    _check_p(p)
    _check_input("dropout3d", input)
    nd = input.dim()
    if nd not in (4, 5):
        warnings.warn(f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated "
                      "and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note "
                      "that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channelwise(input, p, training, inplace, nd == 5)

