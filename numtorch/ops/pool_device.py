"""Max pooling on a GPU: ``MaxPool``'s forward and its gradient scatter in one launch each
(``backend/_cupy_pool.py``), with the xp path's values, indices and gradients."""

from ..backend import helpers_for


def max_pool(xp, x, kernel, stride, padding, dilation, out):
    """``(y, flat indices)`` of a batched device ``x``, or None when the kernel does not
    apply (the caller then runs its xp code)."""
    return helpers_for(xp).max_pool(x, kernel, stride, padding, dilation, out)


def max_pool_grad(xp, g, index, shape, window, overlap):
    """``PoolScatter.forward`` of a regular max pool (``window`` = its kernel, stride,
    padding, dilation) as one gather per input element; None when it does not apply."""
    kernel, stride, padding, dilation = window
    return helpers_for(xp).max_pool_grad(g, index, shape, kernel, stride, padding, dilation,
                                         overlap)
