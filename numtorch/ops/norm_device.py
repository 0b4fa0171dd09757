"""Layer norm on a GPU: ``NormalizeAffine``'s forward and input gradient over trailing dims
with an elementwise weight, in the general path's roundings with fewer launches
(``backend/_cupy_norm.py``: 8 -> 4 forward, 9 -> 4 for the input gradient)."""

from .. import backend
from ..backend import helpers_for, is_device_array, xp_of


def trailing(dims, ndim):
    """Whether ``dims`` are the last ``len(dims)`` of ``ndim`` (each row normalised alone)."""
    return bool(dims) and tuple(dims) == tuple(range(ndim - len(dims), ndim))


def rows_forward(op, x, w, b, sum_keepdim):
    """``NormalizeAffine.forward`` of layer norm on a device array, saving what its general
    path saves (``xhat`` as uncentred data, invstd with the kept dims); None when the fused
    kernels do not apply (per-group weight, other dims, dtypes or layouts)."""
    nd, dims = x.ndim, op.dims
    if not trailing(dims, nd) or (len(w.shape) == nd and all(w.shape[d] == 1 for d in dims)):
        return None
    helpers = helpers_for(op.xp)
    res = None
    if helpers.layer_norm_rows_ok(x, op.n, w, b):  # one launch for the whole forward
        res = helpers.layer_norm_forward(x, w, b, op.n, op.eps)
    if res is None:
        res = helpers.rows_forward(x, w, b, op.n, op.eps,
                                   lambda a, c=None: sum_keepdim(op.xp, a, dims, c))
    if res is None:
        return None
    y, data, invstd = res
    op.save_inputs(x, w)
    op.save(data=data, centered=False,
            invstd=invstd.reshape(x.shape[:nd - len(dims)] + (1,) * len(dims)))
    return y


def rows_backward(op, gy, w):
    """``NormalizeAffineBackward.forward`` of layer norm on a device array (the requested
    gradients of ``op.outs`` as it returns them) from the saved xhat and invstd: the input
    gradient in one launch, the weight and bias gradients together in two; None when the
    whole-row kernels do not apply (the general path runs)."""
    nd, dims = gy.ndim, op.dims
    data, n = op.data, op.n
    contiguous = backend.DEVICE_C_CONTIGUOUS  # (CuPy's .flags is a new object each time)
    if op.centered or w is None or not trailing(dims, nd) or data.shape != gy.shape or \
            data.dtype != gy.dtype or not contiguous(data) or not contiguous(op.invstd) or \
            (len(w.shape) == nd and all(w.shape[d] == 1 for d in dims)):
        return None
    helpers = helpers_for(op.xp)
    if not helpers.layer_norm_rows_ok(gy, n, w, None):
        return None
    got = {}
    if "x" in op.outs:
        got["x"] = helpers.layer_norm_grad_input(gy, data, op.invstd, w, n)
        if got["x"] is None:
            return None
    if "w" in op.outs or "b" in op.outs:
        # the parameters hold the n values of a row (normalized_shape, maybe with leading 1s)
        sums = helpers.layer_norm_grad_params(gy, data, n, op.w_shape, op.b_shape)
        if sums is None:
            return None
        got["w"], got["b"] = sums
    out = tuple(got[k] for k in op.outs)
    return out if len(out) > 1 else out[0]


def running_update(running_mean, running_var, mean, var, count, momentum):
    """Batch norm's update of its running estimates (arrays, in place, no version bump) from
    the batch ``mean`` and biased ``var`` over ``count`` values per channel, in one launch on a
    GPU; False when the fused kernel does not apply (the caller runs its own code)."""
    if not is_device_array(running_mean) or type(mean) is not type(running_mean):
        return False
    return helpers_for(xp_of(running_mean)).running_update(
        running_mean, running_var, mean, var, count / max(count - 1, 1), momentum)
