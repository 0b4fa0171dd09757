"""Matrix products: matmul (and mm, bmm, mv, dot, outer, addmm), einsum.

All products go to BLAS through ``xp.matmul``; backward passes are again matmuls, with
transposed views rather than copies.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.graph import Op

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
           "einsum"]


class MatMul(Op):
    """y = a @ b (NumPy/torch matmul rules); da = g @ b^T, db = a^T @ g (1-D cases handled)."""

    def forward(self, a, b):
        self.save_inputs(a, b)
        return self.xp.matmul(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        ga = gb = None
        if a.ndim == 1 and b.ndim == 1:
            return (grad * b if na else None), (grad * a if nb else None)
        if a.ndim == 1:
            if na:
                ga = (grad.unsqueeze(-2) @ b.mT).squeeze(-2)
            if nb:
                gb = a.unsqueeze(-1) @ grad.unsqueeze(-2)
            return ga, gb
        if b.ndim == 1:
            if na:
                ga = grad.unsqueeze(-1) @ b.unsqueeze(-2)
            if nb:
                gb = (a.mT @ grad.unsqueeze(-1)).squeeze(-1)
            return ga, gb
        if na:
            ga = grad @ b.mT
        if nb:
            gb = a.mT @ grad
        return ga, gb


def _shape(t):
    return "x".join(str(s) for s in t.shape)


def _check_same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.name.replace('float32', 'float')} != "
                           f"{b.dtype.name.replace('float32', 'float')}")
    if a.dtype is _dtype.bool:
        raise RuntimeError('"addmm_impl_cpu_" not implemented for \'Bool\'')


def matmul(input, other, *, out=None):
    """Matrix product with broadcasting over batch dims (1-D operands are vectors).

    Example:
        >>> torch.ones(2, 3) @ torch.ones(3)
        tensor([3., 3.])
    """
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other if isinstance(input, Tensor) else input).__name__}")
    a, b = input._array, other._array
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    _check_same_dtype(input, other)
    ka = a.shape[-1]
    kb = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if ka != kb:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and "
                               f"src [{b.shape[0]}] to have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
        if a.ndim <= 2 and b.ndim <= 2:
            sa = _shape(input) if a.ndim == 2 else f"1x{a.shape[0]}"
            sb = _shape(other) if b.ndim == 2 else f"{b.shape[0]}x1"
            if b.ndim == 1:
                raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                                   f"({_shape(input)}), vec ({b.shape[0]})")
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{', '.join(map(str, b.shape[:-2]))}, {ka}] but got: "
                           f"[{', '.join(map(str, b.shape[:-1]))}].")
    if a.ndim > 2 or b.ndim > 2:
        try:
            np.broadcast_shapes(a.shape[:-2] if a.ndim > 1 else (),
                                b.shape[:-2] if b.ndim > 1 else ())
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({a.shape[:-2]}) must match the size of "
                               f"tensor b ({b.shape[:-2]}) at non-singleton dimension") from None
    r = MatMul.apply(input, other)
    if out is not None:
        from .elementwise import _out

        return _out(r, out)
    return r


def mm(input, mat2, *, out=None):
    """Product of two 2-D matrices."""
    if input.dim() != 2 or mat2.dim() != 2:
        bad = input if input.dim() != 2 else mat2
        raise RuntimeError(f"{'self' if bad is input else 'mat2'} must be a matrix")
    return matmul(input, mat2, out=out)


def bmm(input, mat2, *, out=None):
    """Batched product of two 3-D tensors with equal batch sizes."""
    if input.dim() != 3 or mat2.dim() != 3:
        bad = input if input.dim() != 3 else mat2
        raise RuntimeError(f"batch{1 if bad is input else 2} must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    return matmul(input, mat2, out=out)


def mv(input, vec, *, out=None):
    """Matrix-vector product."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {vec.dim()}")
    return matmul(input, vec, out=out)


def dot(input, other, *, out=None):
    """Dot product of two 1-D tensors."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           f"tensors")
    return matmul(input, other, out=out)


def vdot(input, other, *, out=None):
    """Dot product conjugating the first argument (the same as dot for real tensors)."""
    if input.is_complex():
        input = input.conj()
    return dot(input, other, out=out)


def inner(input, other, *, out=None):
    """Sum over the last dims of both tensors (a scalar product for 1-D)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    return matmul(input, other.movedim(-1, 0).reshape(other.shape[-1], -1)).reshape(
        *input.shape[:-1], *other.shape[:-1])


def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors."""
    return matmul(input.reshape(-1, 1), vec2.reshape(1, -1), out=out)


ger = outer


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """Return ``beta * input + alpha * (mat1 @ mat2)``."""
    prod = mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # torch ignores input entirely (NaNs in it do not propagate)
        r = prod
    else:
        r = (input if beta == 1 else input * beta) + prod
    if out is not None:
        from .elementwise import _out

        return _out(r, out)
    return r


from ._einsum import einsum  # noqa: E402
