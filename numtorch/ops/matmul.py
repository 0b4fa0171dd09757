"""Matrix products: matmul (and mm, bmm, mv, dot, inner, outer, addmm), einsum.

All products go to BLAS through one ``xp.matmul`` call; backward passes are again matmuls, on
transposed views rather than copies.
"""

import numbers

import numpy as np

from .. import _dtype
from .._required_dim import missing_arg
from .._tensor import Tensor
from .._sparse import SparseTensor
from ..autograd import graph as _graph
from ..autograd.graph import Op, rename_node
from ._pointwise import _out

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
           "einsum"]


class MatMul(Op):
    """y = a @ b (torch's matmul rules); da = g @ b^H, db = a^H @ g (1-D operands handled;
    the conjugates are torch's convention for complex gradients)."""

    def forward(self, a, b):
        self.save_operands_for_product(a, b)
        if b.ndim == 2 and a.ndim > 2 and a.shape[-1] != 1:
            # fold the batch into the rows: one large GEMM instead of one per batch entry
            return _dtype.opmath_matmul(self.xp, a.reshape(-1, a.shape[-1]), b).reshape(
                a.shape[:-1] + b.shape[-1:])
        return product(self.xp, a, b)

    def backward(self, grad):
        # (each operand is kept only when the other's gradient needs it)
        a, b = self.saved_operands()
        na, nb = self.needs_input_grad
        if grad.is_complex():
            a, b = (a.conj() if nb else None), (b.conj() if na else None)
        nda, ndb = len(self._in_meta[0][0]), len(self._in_meta[1][0])
        ga = gb = None
        if nda == 1 and ndb == 1:
            return (grad * b if na else None), (grad * a if nb else None)
        if nda == 1:
            if na:
                ga = (grad.unsqueeze(-2) @ b.mT).squeeze(-2)
            if nb:
                gb = a.unsqueeze(-1) @ grad.unsqueeze(-2)
            return ga, gb
        if ndb == 1:
            if na:
                ga = grad.unsqueeze(-1) @ b.unsqueeze(-2)
            if nb:
                gb = (a.mT @ grad.unsqueeze(-1)).squeeze(-1)
            return ga, gb
        if na:
            ga = grad @ b.mT
        if nb:
            if ndb == 2 and nda > 2:  # the batch sums inside one GEMM
                gb = a.reshape(-1, a.shape[-1]).mT @ grad.reshape(-1, grad.shape[-1])
            else:
                gb = a.mT @ grad
        return ga, gb


def product(xp, a, b):
    """``a @ b`` of two arrays (``_dtype.opmath_matmul``), except that an inner size of 1 is
    the broadcast product ``a * b``, bit for bit the same: NumPy's matmul takes its slow
    non-BLAS loop there (Linear(1, n) forward with its transposed one-column weight, the input
    gradient of Linear(n, 1), the outer products of 1-D matmul backward). One thread, float32:
    (1024, 1) @ (1, 512) 585 -> 143 us (torch 163), (16, 64, 1) @ (16, 1, 64) 74 -> 23 us."""
    if a.shape[-1] == 1 and a.ndim >= 2 and b.ndim >= 2 and a.dtype == b.dtype and \
            a.dtype != _dtype._BF16_NP:
        return xp.multiply(a, b)
    return _dtype.opmath_matmul(xp, a, b)




def _disp(t):
    return _dtype._TYPE_DISPLAY[t.dtype.name]


def _dims(shape):
    return "x".join(str(s) for s in shape)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _kind(a, b):
    """Which of torch's kernels matmul dispatches to (its error messages depend on it)."""
    if a.ndim == 1 and b.ndim == 1:
        return "dot"
    if b.ndim == 1:
        return "mv"
    if b.ndim == 2:
        return "mm"
    return "bmm"


def _broadcast_batch(sa, sb):
    """Broadcast two batch shapes; torch's RuntimeError (naming the dim) if they clash."""
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    out = []
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _check_matmul(input, other):
    """torch's shape and dtype checks for matmul, with the message of the kernel it uses."""
    a, b = input._array, other._array
    kind = _kind(a, b)
    if (type(a) is not np.ndarray or type(b) is not np.ndarray) and \
            (input.is_quantized or other.is_quantized) and kind != "mv":  # no QuantizedCPU kernel
        from .._quantized_array import not_supported

        raise not_supported({"mm": "mm.out", "bmm": "bmm.out"}.get(kind, kind))
    if kind == "dot":
        if input.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_disp(input)} and {_disp(other)}")
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                               f"[{b.shape[0]}] to have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
    elif kind == "mv":
        rows = _prod(a.shape[:-1])
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{a.shape[-1]}), "
                               f"vec ({b.shape[0]})")
        if input.dtype is not other.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_disp(other)}, {_disp(input)}, and {_disp(other)}")
    elif kind == "mm":
        rows = _prod(a.shape[:-1])
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({rows}x{a.shape[-1]} and {_dims(b.shape)})")
        if input.dtype is not other.dtype:
            cpp = _dtype._CPP_TYPE
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{cpp[input.dtype.name]} != {cpp[other.dtype.name]}")
    else:
        batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
        if a.shape[-1] != b.shape[-2]:
            n = _prod(batch)
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{n}, {a.shape[-1]}] but got: [{n}, {b.shape[-2]}].")
        if input.dtype is not other.dtype:
            raise RuntimeError(f"expected scalar type {_disp(input)} but found {_disp(other)}")
    if input.dtype is _dtype.bool:
        name = {"dot": "dot", "mv": "addmv_impl_cpu", "mm": "addmm_impl_cpu_",
                "bmm": "bmm"}[kind]
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')


# torch's name of the second operand of each product (its argument errors name it)
_SECOND = {"dot": "tensor", "mm": "mat2", "bmm": "mat2", "mv": "vec", "outer": "vec2"}


def _need_tensors(fn, *ts):
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            if i == 1 and len(ts) == 2:  # (placed as the program called: method or function)
                from ._pointwise import _operand_error

                raise _operand_error(fn, t, _SECOND.get(fn, "other"))
            raise TypeError(f"{fn}(): argument '{'input' if i == 0 else 'other'}' (position "
                            f"{i + 1}) must be Tensor, not {type(t).__name__}")


def matmul(input, other=missing_arg, *, out=None):
    """Matrix product with torch's rules: 1-D operands are vectors, batch dims broadcast.

    Args:
        input (Tensor): the left operand (at least 1-D).
        other (Tensor): the right operand (at least 1-D), of the same dtype.

    Example:
        >>> torch.ones(2, 3) @ torch.ones(3)
        tensor([3., 3.])
    """
    if type(input) is SparseTensor or type(other) is SparseTensor:
        return _sparse_matmul(input, other)
    if type(input) is _Compressed or type(other) is _Compressed:
        return _compressed.compressed_matmul(input, other)
    _need_tensors("matmul", input, other)
    a, b = input._array, other._array
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    _check_matmul(input, other)
    # torch's out check words it as the kernel a 1-D operand pair dispatches to (dot, addmv)
    # (addmv takes the out as its input only when it broadcasts to the result; an out it
    # must resize first meets the generic out check)
    exact = "result dtype {got} does not match input dtype {want}" if a.ndim == b.ndim == 1 \
        else "addmv input tensors must have the same dtype, but got {got}, {want}, and {want}" \
        if a.ndim == 2 and b.ndim == 1 and _fits(out, a.shape[0]) else True
    return _out(MatMul.apply(input, other), out, exact=exact)


def _fits(out, n):
    """Whether ``out`` (a Tensor, or None) broadcasts to a result of shape (n,)."""
    shape = getattr(out, "shape", ())
    return len(shape) == 0 or len(shape) == 1 and shape[0] in (1, n)


def mm(input, mat2=missing_arg, *, out=None):
    """Product of two 2-D matrices.

    Example:
        >>> torch.mm(torch.ones(2, 3), torch.ones(3, 4)).shape
        torch.Size([2, 4])
    """
    a, b = getattr(input, "_array", None), getattr(mat2, "_array", None)
    if out is None and type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and \
            b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype is b.dtype and \
            a.dtype.kind == "f":  # two float matrices that fit: nothing for matmul to check
        return MatMul.apply(input, mat2)
    if type(input) is SparseTensor or type(mat2) is SparseTensor:
        return _sparse_mm(input, mat2)
    if type(input) is _Compressed or type(mat2) is _Compressed:
        return _compressed.compressed_mm(input, mat2)
    _need_tensors("mm", input, mat2)
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2, out=out)


def bmm(input, mat2=missing_arg, *, out=None):
    """Batched product of two 3-D tensors with equal batch sizes (no broadcasting).

    Example:
        >>> torch.bmm(torch.ones(5, 2, 3), torch.ones(5, 3, 4)).shape
        torch.Size([5, 2, 4])
    """
    if type(input) is SparseTensor:
        return _sparse_bmm(input, mat2)
    _need_tensors("bmm", input, mat2)
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    return rename_node(matmul(input, mat2, out=out), "BmmBackward0")


def mv(input, vec=missing_arg, *, out=None):
    """Matrix-vector product of a 2-D ``input`` and a 1-D ``vec``.

    Example:
        >>> torch.mv(torch.ones(2, 3), torch.ones(3))
        tensor([3., 3.])
    """
    _need_tensors("mv", input, vec)
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{vec.dim()}")
    return matmul(input, vec, out=out)


def dot(input, other=missing_arg, *, out=None):
    """Dot product of two 1-D tensors of the same size and dtype.

    Example:
        >>> torch.dot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
        tensor(11.)
    """
    _need_tensors("dot", input, other)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           f"tensors")
    return _out(matmul(input, other), out,
                exact="result dtype {got} does not match input dtype {want}")


def vdot(input, other, *, out=None):
    """Dot product that conjugates ``input`` first (the same as :func:`dot` for real tensors).

    Example:
        >>> torch.vdot(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
        tensor(11.)
    """
    if input.is_complex():
        input = input.conj()
    return dot(input, other, out=out)


def inner(input, other=missing_arg, *, out=None):
    """Sum of products over the last dim of both tensors (a scalar product for 1-D inputs).

    A 0-d operand multiplies the other elementwise. The result has shape
    ``input.shape[:-1] + other.shape[:-1]``.

    Example:
        >>> torch.inner(torch.ones(2, 3), torch.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    _need_tensors("inner", input, other)
    if input.dim() == 0 or other.dim() == 0:
        return _out(input * other, out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    k = other.shape[-1]
    # one GEMM: (rows_a, k) @ (k, rows_b), then split the row dims back out
    r = matmul(input.reshape(-1, k), other.reshape(-1, k).mT)
    return _out(r.reshape((*input.shape[:-1], *other.shape[:-1])), out,  # (torch: a tensordot)
                exact="tensordot: Expected the output tensor to have dtype {want}, but got an "
                      "output tensor with dtype {got}")


def outer(input, vec2=missing_arg, *, out=None):
    """Outer product of two 1-D tensors (dtypes are promoted, as for ``*``).

    Example:
        >>> torch.outer(torch.tensor([1., 2.]), torch.tensor([1., 0., -1.]))
        tensor([[ 1.,  0., -1.],
                [ 2.,  0., -2.]])
    """
    _need_tensors("outer", input, vec2)
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return _out(input.unsqueeze(1) * vec2, out)


def ger(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (the old name of :func:`outer`).

    Example:
        >>> torch.ger(torch.tensor([1., 2.]), torch.tensor([3.])).shape
        torch.Size([2, 1])
    """
    return outer(input, vec2, out=out)


def addmm(input, mat1, mat2, *legacy, beta=1, alpha=1, out=None):
    """Return ``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the result.

    With ``beta == 0`` the values of ``input`` are ignored, so NaN and inf in it do not
    propagate (as in torch).

    Example:
        >>> torch.addmm(torch.zeros(2), torch.ones(2, 3), torch.ones(3, 2), alpha=2)
        tensor([[6., 6.],
                [6., 6.]])
    """
    if legacy or any(isinstance(a, numbers.Number) for a in (input, mat1, mat2)):
        # torch's deprecated addmm(beta, input, alpha, mat1, mat2) / addmm(beta, input, mat1,
        # mat2) and their method forms
        from .products import _args3

        (input, mat1, mat2), beta, alpha = _args3("addmm", input, (mat1, mat2, *legacy),
                                                  beta, alpha)
    _need_tensors("addmm", input, mat1, mat2)
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
        return hook.count_call("addmm", addmm, (input, mat1, mat2),
                               {"beta": beta, "alpha": alpha, "out": out})
    prod = mm(mat1, mat2)
    if input.dtype is not prod.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_disp(input)} and {_disp(mat2)}")
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(prod.shape))
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({prod.shape[-1]}) must match the "
                           f"existing size ({input.shape[-1]}) at non-singleton dimension 1.  "
                           f"Target sizes: {list(prod.shape)}.  Tensor sizes: "
                           f"{list(input.shape)}") from None
    from .products import half_fused, scalars_as

    r = half_fused(addmm, input, mat1, mat2, beta, alpha)
    if r is not None:
        return _out(rename_node(r, "AddmmBackward0"), out, exact=True)
    beta, alpha = scalars_as(input.dtype, beta, alpha)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        r = prod  # the broadcast shape of input is prod's shape, checked above
    else:
        r = (input if beta == 1 else input * beta) + prod
    return _out(rename_node(r, "AddmmBackward0"), out, exact=True)


from ._einsum import einsum  # noqa: E402
from .sparse_ops import (  # noqa: E402
    bmm as _sparse_bmm, matmul as _sparse_matmul, mm as _sparse_mm,
)
from ..sparse import _compressed  # noqa: E402
from ..sparse._compressed_tensor import CompressedTensor as _Compressed  # noqa: E402
