"""Affine maps: ``linear`` (``x @ W^T + b``) and ``bilinear`` (``x1^T W x2 + b``)."""

import math

from numpy import ndarray as _ndarray

from ... import _dtype
from ..._tensor import Tensor
from ...autograd import graph as _graph
from ...ops import matmul
from ...ops._util import no_dims_error
from ...ops.linear_fused import linear_fused

__all__ = ["linear", "bilinear"]

_SHORT_NAME = {"float32": "float", "float64": "double", "float16": "half", "int64": "long",
               "int32": "int", "int16": "short", "int8": "char", "uint8": "unsigned char",
               "bool": "bool", "complex64": "complex<float>", "complex128": "complex<double>"}


def _need_tensor(fn, name, pos, value, optional=False):
    if optional and value is None:
        return
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def linear(input, weight, bias=None):
    """Apply the affine map ``y = input @ weight.T + bias`` over the last dim of ``input``.

    Args:
        input (Tensor): ``(*, in_features)``; a 1-D input is a single sample.
        weight (Tensor): ``(out_features, in_features)`` (or 1-D ``(in_features,)``, which gives
            a result without the feature dim).
        bias (Tensor, optional): ``(out_features,)``, or any shape broadcastable to the result.

    Returns:
        Tensor: ``(*, out_features)``.

    Example:
        >>> x = torch.ones(2, 3)
        >>> torch.nn.functional.linear(x, torch.ones(4, 3), torch.zeros(4))
        tensor([[3., 3., 3., 3.],
                [3., 3., 3., 3.]])
    """
    return _linear(input, weight, bias, False)


def linear_keep_layout(input, weight, bias=None):
    """``linear`` whose result keeps a permuted input's layout instead of torch's row-major one
    (no copy of the input or output): for ``MultiheadAttention``'s projections, whose
    sequence-first view of a batch-first activation would otherwise be copied."""
    return _linear(input, weight, bias, True)


def _linear(input, weight, bias, keep_layout):
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)
            and (bias is None or isinstance(bias, Tensor))):
        _need_tensor("linear", "input", 1, input)
        _need_tensor("linear", "weight", 2, weight)
        _need_tensor("linear", "bias", 3, bias, optional=True)
    xs, ws = input._array.shape, weight._array.shape
    if len(ws) == 2 and xs and xs[-1] == ws[1]:
        # the common case goes straight to the fused op; everything else below is checks
        dt = input._array.dtype
        wt = weight._array.dtype
        if ((dt.kind == "f" or dt is _dtype._BF16_NP) and (wt is dt or wt == dt)
                and (bias is None or (bias._array.shape == ws[:1]
                                      and bias._array.dtype == dt))):
            return linear_fused(input, weight, bias, keep_layout)
    return _linear_general(input, weight, bias)


def _linear_general(input, weight, bias):
    """F.linear outside the fused fast path, with torch's checks and messages."""
    xs, ws = tuple(input.shape), tuple(weight.shape)
    if not xs or not ws:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{len(xs)}D and {len(ws)}D")
    if len(ws) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{len(ws)}D")
    if len(ws) == 1:
        if bias is not None:
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        return matmul(input, weight)
    rows = math.prod(xs[:-1])
    if xs[-1] != ws[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{xs[-1]} and "
                           f"{ws[1]}x{ws[0]})")
    disp = _dtype._TYPE_DISPLAY
    if bias is not None:  # torch's addmm checks the bias first, then the two matrices
        if bias.dtype is not weight.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{disp[bias.dtype.name]} and {disp[weight.dtype.name]}")
        if input.dtype is not weight.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{disp[input.dtype.name]} and {disp[weight.dtype.name]}")
    if (type(input._array) is not _ndarray or type(weight._array) is not _ndarray) and \
            (input.is_quantized or weight.is_quantized):  # no QuantizedCPU mm kernel
        from ..._quantized_array import not_supported

        raise not_supported("mm.out")
    if input.dtype is not weight.dtype:
        cpp = _dtype._CPP_TYPE
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp[input.dtype.name]} != {cpp[weight.dtype.name]}")
    if bias is None:
        return matmul(input, weight.t())
    out_shape = xs[:-1] + ws[:1]
    if len(xs) == 2 or bias.dim() <= 1:
        # torch folds the batch into rows and runs addmm, so bias must expand to
        # (rows, out_features); expand raises torch's message if it cannot
        bias.expand(rows, ws[0])
        return matmul(input, weight.t()) + bias
    y = matmul(input, weight.t())
    bs = tuple(bias.shape)
    n = max(len(bs), len(out_shape))
    pa, pb = (1,) * (n - len(out_shape)) + out_shape, (1,) * (n - len(bs)) + bs
    for i, (a, b) in enumerate(zip(pa, pb)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                               f"({b}) at non-singleton dimension {i}")
    full = tuple(max(a, b) if 1 in (a, b) else a for a, b in zip(pa, pb))
    if full != out_shape:  # torch adds the bias in place, into the output
        raise RuntimeError(f"output with shape {list(out_shape)} doesn't match the broadcast "
                           f"shape {list(full)}")
    return y + bias


def bilinear(input1, input2, weight, bias=None):
    """Apply ``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    Args:
        input1 (Tensor): ``(*, in1_features)``.
        input2 (Tensor): ``(*, in2_features)`` with the same leading dims as ``input1``.
        weight (Tensor): ``(out_features, in1_features, in2_features)``.
        bias (Tensor, optional): ``(out_features,)``.

    Returns:
        Tensor: ``(*, out_features)``.

    Example:
        >>> F = torch.nn.functional
        >>> F.bilinear(torch.ones(5, 2), torch.ones(5, 3), torch.ones(4, 2, 3)).shape
        torch.Size([5, 4])
    """
    _need_tensor("bilinear", "input1", 1, input1)
    _need_tensor("bilinear", "input2", 2, input2)
    _need_tensor("bilinear", "weight", 3, weight)
    _need_tensor("bilinear", "bias", 4, bias, optional=True)
    _check_bilinear(input1, input2, weight, bias)
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
        return hook.count_call("bilinear", bilinear, (input1, input2, weight, bias), {})
    s1, s2 = tuple(input1.shape), tuple(input2.shape)
    n_out, n1, n2 = tuple(weight.shape)
    batch = s1[:-1]
    x1 = input1.reshape(-1, n1)
    x2 = input2.reshape(-1, n2)
    # one GEMM: (rows, i) @ (i, o*j), then the j-contraction with input2 elementwise
    w = weight.permute(1, 0, 2).reshape(n1, n_out * n2)
    t = matmul(x1, w).reshape(x1.shape[0], n_out, n2)  # (sizes named: any may be 0)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(batch + tuple(y.shape[-1:]))


def _check_bilinear(input1, input2, weight, bias):
    """torch's bilinear checks, in its order, with its messages."""
    names = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        names.append(("bias", bias))
    if any(t.dtype is not input1.dtype for _, t in names):
        listed = ", ".join(f"{n}: {_SHORT_NAME[t.dtype.name]}" for n, t in names)
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")
    s1, s2, sw = tuple(input1.shape), tuple(input2.shape), tuple(weight.shape)
    if len(s1) != len(s2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(s1)} and "
                           f"{len(s2)}")
    for i in range(len(s1) - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {s1[i]} and {s2[i]}")
    if not s1:
        raise no_dims_error(-1)
    if len(sw) < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(len(sw), 1)}, {max(len(sw), 1) - 1}], but got 1)")
    if s1[-1] != sw[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{s1[-1]} but expected {sw[1]}")
    if len(sw) < 3:
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    if s2[-1] != sw[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{s2[-1]} but expected {sw[2]}")
    if bias is not None:
        if bias.dim() == 0:
            raise no_dims_error(0)
        if bias.shape[0] != sw[0]:
            raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                               f"{bias.shape[0]} but expected {sw[0]}")
    if len(sw) != 3:
        raise RuntimeError("number of dimensions must match")
