"""The shared parts of the activation primitives: branch-free selection and base classes.

NumPy's ``where`` mispredicts branches on a random mask and runs about 30 times slower than
a multiply, so masks are applied with bit operations on the floats' unsigned views.
"""

import numpy as np

from .. import _dtype
from ..autograd.graph import Op

__all__ = ["select"]

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_LOW_FLOATS = frozenset([np.dtype(np.float16)] + (
    [np.dtype(_dtype.bfloat16.np)] if _dtype._BF16_AVAILABLE else []))


# ---------------------------------------------------------------------------------------------
# branch-free selection


def _bits(xp, value, dt):
    """``value`` (array or number) as dtype ``dt``, viewed as unsigned integers of its width."""
    return xp.asarray(value, dtype=dt).view(_UINT[dt.itemsize])


def _mask_bits(mask, dt, invert=False):
    """All bits set where ``mask`` is True (False with ``invert``), else zero."""
    m = mask.astype(_UINT[dt.itemsize])
    if invert:
        m -= 1  # True -> 0, False -> wraps around to all ones
    else:
        np.negative(m, out=m)  # 1 -> all ones (NumPy ufuncs dispatch to CuPy arrays too)
    return m


def _keep(mask, a, invert=False):
    """``a`` where ``mask`` (where not ``mask`` with ``invert``), else +0; ``a`` an array."""
    m = _mask_bits(mask, a.dtype, invert)
    u = a.view(m.dtype)
    if m.shape == u.shape:
        m &= u  # the common case: reuse the mask's buffer
        return m.view(a.dtype)
    return (m & u).view(a.dtype)


def _select(xp, mask, a, b, dt):
    """``a`` where ``mask`` else ``b`` (arrays or numbers) in dtype ``dt``, without branches."""
    ab, bb = _bits(xp, a, dt), _bits(xp, b, dt)
    m = _mask_bits(mask, dt)
    t = xp.bitwise_xor(ab, bb)
    if m.shape == t.shape:
        m &= t  # the common case: reuse the mask's buffer
    else:
        m = m & t  # broadcasts to the full shape
    m ^= bb  # (a ^ b) where mask, 0 elsewhere; then ^ b: a where mask, b elsewhere
    return m.view(dt)


class Select(Op):
    """y = a where mask else b; dy/da = mask, dy/db = not mask (mask is not differentiable)."""

    def forward(self, mask, a, b):
        self.save_inputs(mask)
        dt = a.dtype if hasattr(a, "dtype") else b.dtype  # one of them is a tensor
        return self.xp.asarray(_select(self.xp, self.xp.asarray(mask), a, b, dt))

    def backward(self, grad):
        mask = self.saved_inputs()
        _, na, nb = self.needs_input_grad
        return (None, select(mask, grad, 0.0) if na else None,
                select(mask, 0.0, grad) if nb else None)


def select(mask, a, b):
    """Return ``a`` where ``mask`` is True and ``b`` elsewhere (a fast ``where`` for floats).

    ``a`` and ``b`` are tensors of one floating dtype or Python numbers (at least one a
    tensor); the gradient flows to ``a`` where ``mask`` holds and to ``b`` elsewhere.

    Args:
        mask (Tensor): a bool tensor.
        a (Tensor or float): values taken where ``mask`` is True.
        b (Tensor or float): values taken where ``mask`` is False.

    Returns:
        Tensor: the broadcast selection.
    """
    return Select.apply(mask, a, b)


# ---------------------------------------------------------------------------------------------
# base classes


class _Pointwise(Op):
    """An elementwise op whose ``kernel`` sees arrays of at least one dimension.

    NumPy ufuncs return scalars rather than arrays for 0-d inputs, which would break the
    ``out=`` arguments the kernels use to avoid temporaries, so 0-d inputs run as 1-element
    arrays. ``_saves`` says what backward needs: "input" (all inputs), "first" (input 0) or
    "output".
    """

    _saves = "input"
    _forward_values = ()  # attributes holding arrays the forward pass made, in its shape
    out_layout = "elementwise"  # laid out like the operands (on device arrays too)

    def forward(self, *arrays):
        if self._saves == "input":
            self.save_inputs(*arrays)
        elif self._saves == "first":
            self.save_inputs(arrays[0])
        if len(arrays) > 1 and any(a.shape != arrays[0].shape for a in arrays[1:]):
            # a gradient batched by vmap (jacrev, jacfwd) over an unbatched input: the
            # kernels combine their operands in place, so give them one shape, and drop
            # what the forward pass computed in the unbatched shape
            arrays = tuple(self.xp.broadcast_arrays(*arrays))
            for name in self._forward_values:
                setattr(self, name, None)
        scalar = arrays[0].ndim == 0
        if scalar:
            arrays = tuple(a.reshape(1) for a in arrays)
        low = arrays[0].dtype if arrays[0].dtype in _LOW_FLOATS else None
        if low is not None:
            # torch hands some bfloat16 kernels to oneDNN only for dense inputs of 2+ values
            self.low_dense = arrays[0].size > 1 and arrays[0].flags.c_contiguous
            # torch computes a half-precision activation in float32 and rounds once; NumPy
            # would round after every step of the kernel (an ulp off on a fifth to half of
            # the values)
            arrays = tuple(a.astype(np.float32) if getattr(a, "dtype", None) == low else a
                           for a in arrays)
            self.low_dtype = low  # a kernel that rounds as torch's half kernels do reads it
        y = self.kernel(self.xp, *arrays)
        if low is not None:
            y = y.astype(low)
        if scalar:
            y = y.reshape(())
        if self._saves == "output":
            self.save_output(y)
        return y


class _PiecewiseSlopeBackward(_Pointwise):
    """g_x = g * slope(x) for a piecewise-constant slope (relu, hardtanh, threshold...): linear
    in g, and d/dx = 0 away from the kinks.

    Subclasses list their parameters in ``_params`` so backward can rebuild the same op.
    """

    _params = ()
    _saves = "first"

    def backward(self, gg):
        x = self.saved_inputs()
        # the slope's derivative is zero, not absent: torch links x into a third-order graph
        # (a gradient penalty's grad w.r.t. the input is zeros there, not "unused")
        gx = x.new_zeros(x.shape) if self.needs_input_grad[0] else None
        return gx, type(self).apply(x, gg, **{k: self.__dict__[k] for k in self._params})
