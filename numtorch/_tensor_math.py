"""The math methods and operators of ``Tensor``, each a one-line delegation to ``numtorch.ops``.

``Tensor`` inherits this mixin so that ``_tensor.py`` stays small; the docstrings live on the
functions in ``ops``. In-place forms (``add_``) compute the out-of-place result and write it
back through ``autograd.inplace.apply_inplace``, which also keeps the graph right.

The methods reach ``ops`` and ``autograd`` through the package (``numtorch.ops.add``) at call
time: those modules import ``Tensor``, so this mixin of it imports only leaves at load time.
"""

import numpy as _np

import numtorch as _nt

from ._grad_state import FUNC_EPOCHS as _FUNC_EPOCHS
from ._required_dim import all_dims as _ALL_DIMS, missing_dim as _MISSING_DIM
from ._required_dim import check_missing as _check_missing
from ._required_dim import missing_arg as _MISSING_ARG
from ._size import required_size_args as _required
from ._size import size_args as _size_args


def _quantized_missing(op):
    from ._quantized_array import not_supported

    return not_supported(op)


def _inplace(self, fn, *args, **kwargs):
    """``autograd.inplace.apply_inplace``: ``fn``'s result written into ``self``."""
    return _nt.autograd.inplace.apply_inplace(self, fn, *args, **kwargs)


def _bitwise_inplace(self, fn, other):
    """In-place bitwise ops check that their result type fits ``self`` before the kernel's
    dtype check (``int8 &= 1.5`` is a cast error in torch, not a missing float kernel)."""
    from . import _dtype

    if not isinstance(other, (_nt.Tensor, bool, int, float, complex)):
        return _inplace(self, fn, other)  # the op's own argument errors
    rt = _dtype.result_type(self, other)
    if not _dtype.can_cast(rt, self.dtype):
        show = _dtype._TYPE_DISPLAY
        raise RuntimeError(f"result type {show[rt.name]} can't be cast to the desired output "
                           f"type {show[self.dtype.name]}")
    return _inplace(self, fn, other)


def _same_inplace_dtype(self, dtype):
    """An in-place op's ``dtype=`` must be the tensor's own: the result cannot change type."""
    if dtype is not None and dtype != self.dtype:
        from . import _dtype

        raise RuntimeError(f"Bad in-place call: input tensor dtype "
                           f"{_dtype._CPP_TYPE[self.dtype.name]} and output tensor dtype "
                           f"{_dtype._CPP_TYPE[dtype.name]} should match")


# ``t + u``, ``t * 0.5``: operands ``ops.add``/``ops.mul`` would accept without a check or a
# conversion go to the op at once (a function call and its checks are a tenth of a tiny op's
# dispatch). The op classes are looked up at call time (``Op.apply`` may be swapped by tracing);
# bound on first use, as ``ops`` imports ``Tensor``.
_PLAIN = []  # [operand types, Add, Mul]


def _plain():
    from ._tensor import Tensor, _make
    from .autograd import graph
    from .ops.elementwise import Add, Mul

    _PLAIN[:] = [frozenset({Tensor, float, int}), Add, Mul, _np.dtype(_np.int64), Tensor, _make,
                 graph, graph.Op.__dict__["apply"]]
    return _PLAIN


def _long_plus(t, n, plain):
    """``t + n`` for ``t`` a 0-d int64 CPU tensor and ``n`` a Python int (``i + block_size``
    in a get_batch loop, ``i`` a row of an index tensor): Add's result (an integer result has
    no node) without its dispatch; None where that dispatch has more to do (a profiler or
    exporter watching, a subclass, an int outside int64, a view whose base has a graph)."""
    graph = plain[6]
    if t.__class__ is not plain[4] or t._extra is not None or graph._hook is not None or \
            graph.Op.__dict__["apply"] is not plain[7] or not -(1 << 63) <= n < 1 << 63 or \
            t._base is not None and not graph._edgeless_view(t):
        return None
    v = int(t._array) + n
    if -(1 << 63) <= v < 1 << 63:  # (a Python int and one array call: a fifth of NumPy's add)
        return plain[5](_np.array(v, plain[3]))
    return plain[5](_np.asarray(t._array + _np.int64(n)))  # int64 wraps around, as torch's


def _inplace_product_shape(self, a, b, nd):
    """torch's check of addmm_/baddbmm_: ``self`` must already have the product's shape (the
    in-place forms do not broadcast it), checked once the factors' shapes fit."""
    if not all(isinstance(t, _nt.Tensor) and t.dim() == nd for t in (self, a, b)):
        return
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa[-1] != sb[-2] or (nd == 3 and sa[0] != sb[0]):
        return  # (the op words the mismatch of the factors)
    want = sa[:-1] + sb[-1:]
    if tuple(self.shape) != want:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {list(want)} should match")


# torch's method overloads for the "invalid combination" error of a call that leaves out a
# required argument of these methods (the others get "missing ... required positional arguments")
_NARROW_FORMS = ("(int dim, Tensor start, int length)", "(int dim, int start, int length)")
_MOVEDIM_FORMS = ("(int source, int destination)",
                  "(tuple of ints source, tuple of ints destination)")
_INDEX_FILL_FORMS = ("(int dim, Tensor index, Tensor value)",
                     "(int dim, Tensor index, Number value)")
_MASKED_FILL_FORMS = ("(Tensor mask, Tensor value)", "(Tensor mask, Number value)")


def _missing_overloads(args, forms):
    """torch's parser error for a method call that left out one of ``args`` (the methods with
    several overloads). Called from the method's ``except`` clause only."""
    if any(a is _MISSING_ARG for a in args):
        raise _nt.ops._util.invalid_combination((), forms) from None


class _TensorMath:
    """The math methods of Tensor.

    Binary operators return NotImplemented where the op raises TypeError (an operand that is
    neither a tensor nor a number), as torch's do: Python then tries the other operand, so
    ``tensor * ndarray`` is computed by NumPy and wrapped as a tensor, and ``tensor * [1, 2]``
    fails with Python's own message.
    """

    __slots__ = ()

    # -- operators ----------------------------------------------------------------------------
    def __add__(self, other):
        plain = _PLAIN or _plain()
        try:
            if other.__class__ in plain[0]:
                if other.__class__ is int and self._array.__class__ is _np.ndarray and \
                        self._array.dtype is plain[3] and not self._array.ndim:
                    out = _long_plus(self, other, plain)
                    if out is not None:
                        return out
                return plain[1].apply(self, other)
            return _nt.ops.add(self, other)
        except TypeError:
            return NotImplemented

    def __radd__(self, other):
        plain = _PLAIN or _plain()
        try:
            if other.__class__ in plain[0]:
                # a number first: torch adds it as the second operand (its node's edges run
                # tensor first), and the Op takes its one-tensor fast path that way
                return plain[1].apply(self, other) if other.__class__ is not plain[4] else \
                    plain[1].apply(other, self)
            return _nt.ops.add(other, self)
        except TypeError:
            return NotImplemented

    def __iadd__(self, other):
        try:
            return _inplace(self, _nt.ops.add, other)
        except TypeError:
            return NotImplemented

    def __sub__(self, other):
        try:
            return _nt.ops.sub(self, other)
        except TypeError:
            return NotImplemented

    def __rsub__(self, other):
        try:
            return _nt.ops.sub(other, self)
        except TypeError:
            return NotImplemented

    def __isub__(self, other):
        try:
            return _inplace(self, _nt.ops.sub, other)
        except TypeError:
            return NotImplemented

    def __mul__(self, other):
        plain = _PLAIN or _plain()
        try:
            if other.__class__ in plain[0]:
                return plain[2].apply(self, other)
            return _nt.ops.mul(self, other)
        except TypeError:
            return NotImplemented

    def __rmul__(self, other):
        plain = _PLAIN or _plain()
        try:
            if other.__class__ in plain[0]:  # ``-lr * p.grad``: a number second, as __radd__
                return plain[2].apply(self, other) if other.__class__ is not plain[4] else \
                    plain[2].apply(other, self)
            return _nt.ops.mul(other, self)
        except TypeError:
            return NotImplemented

    def __imul__(self, other):
        try:
            return _inplace(self, _nt.ops.mul, other)
        except TypeError:
            return NotImplemented

    def __truediv__(self, other):
        try:
            return _nt.ops.div(self, other)
        except TypeError:
            return NotImplemented

    def __rtruediv__(self, other):
        # torch divides a number by a tensor as (1 / self) * other: two roundings, so e.g.
        # 160 / tensor(37.) is 4.3243246, not the correctly rounded 4.3243241
        try:
            return self.reciprocal() * other
        except TypeError:
            return NotImplemented

    def __itruediv__(self, other):
        try:
            return _inplace(self, _nt.ops.div, other)
        except TypeError:
            return NotImplemented

    def __floordiv__(self, other):
        try:
            return _nt.ops.floor_divide(self, other)
        except TypeError:
            return NotImplemented

    def __rfloordiv__(self, other):
        try:
            return _nt.ops.floor_divide(other, self)
        except TypeError:
            return NotImplemented

    def __ifloordiv__(self, other):
        try:
            return _inplace(self, _nt.ops.floor_divide, other)
        except TypeError:
            return NotImplemented

    def __mod__(self, other):
        try:
            return _nt.ops.remainder(self, other)
        except TypeError:
            return NotImplemented

    def __rmod__(self, other):
        try:
            return _nt.ops.remainder(other, self)
        except TypeError:
            return NotImplemented

    def __imod__(self, other):
        try:
            return _inplace(self, _nt.ops.remainder, other)
        except TypeError:
            return NotImplemented

    def __pow__(self, exponent, modulo=None):
        if modulo is not None:  # pow(t, e, m): no such form, Python's TypeError
            return NotImplemented
        try:
            return _nt.ops.pow(self, exponent)
        except TypeError:
            return NotImplemented

    def __rpow__(self, other):
        try:
            return _nt.ops.pow(other, self)
        except TypeError:
            return NotImplemented

    def __ipow__(self, exponent):
        try:
            return _inplace(self, _nt.ops.pow, exponent)
        except TypeError:
            return NotImplemented

    def __matmul__(self, other):
        try:
            return _nt.ops.matmul(self, other)
        except TypeError:
            return NotImplemented

    def __rmatmul__(self, other):
        try:
            return _nt.ops.matmul(other, self)
        except TypeError:
            return NotImplemented

    def __neg__(self):
        return _nt.ops.neg(self)

    def __pos__(self):
        return _nt.ops.positive(self)

    def __abs__(self):
        return _nt.ops.abs(self)

    def __invert__(self):
        return _nt.ops.bitwise._invert_operator(self)

    def __and__(self, other):
        try:
            return _nt.ops.bitwise_and(self, other)
        except TypeError:
            return NotImplemented

    def __rand__(self, other):
        try:
            return _nt.ops.bitwise_and(other, self)
        except TypeError:
            return NotImplemented

    def __iand__(self, other):
        try:
            return _bitwise_inplace(self, _nt.ops.bitwise_and, other)
        except TypeError:
            return NotImplemented

    def __or__(self, other):
        try:
            return _nt.ops.bitwise_or(self, other)
        except TypeError:
            return NotImplemented

    def __ror__(self, other):
        try:
            return _nt.ops.bitwise_or(other, self)
        except TypeError:
            return NotImplemented

    def __ior__(self, other):
        try:
            return _bitwise_inplace(self, _nt.ops.bitwise_or, other)
        except TypeError:
            return NotImplemented

    def __xor__(self, other):
        try:
            return _nt.ops.bitwise_xor(self, other)
        except TypeError:
            return NotImplemented

    def __rxor__(self, other):
        try:
            return _nt.ops.bitwise_xor(other, self)
        except TypeError:
            return NotImplemented

    def __ixor__(self, other):
        try:
            return _bitwise_inplace(self, _nt.ops.bitwise_xor, other)
        except TypeError:
            return NotImplemented

    def __eq__(self, other):
        return _nt.ops.comparison._eq_operator(self, other)

    def __ne__(self, other):
        return _nt.ops.comparison._ne_operator(self, other)

    def __lt__(self, other):
        try:
            return _nt.ops.lt(self, other)
        except TypeError:
            return NotImplemented

    def __le__(self, other):
        try:
            return _nt.ops.le(self, other)
        except TypeError:
            return NotImplemented

    def __gt__(self, other):
        try:
            return _nt.ops.gt(self, other)
        except TypeError:
            return NotImplemented

    def __ge__(self, other):
        try:
            return _nt.ops.ge(self, other)
        except TypeError:
            return NotImplemented

    def __getitem__(self, index):
        return _nt.ops.getitem(self, index)

    def __setitem__(self, index, value):
        if _FUNC_EPOCHS:  # (torch.func.grad/vjp/jvp refuse writes into captured tensors)
            _nt.autograd._func_transforms.refuse_captured(self, "copy_")
        _nt.ops.setitem(self, index, value)

    # -- pointwise arithmetic -------------------------------------------------------------------
    def add(self, other=_MISSING_ARG, *legacy, alpha=1):
        return _nt.ops.add(self, other, *legacy, alpha=alpha)

    def add_(self, other=_MISSING_ARG, *legacy, alpha=1):
        return _inplace(self, _nt.ops.add, other, *legacy, alpha=alpha)

    def sub(self, other=_MISSING_ARG, *legacy, alpha=1):
        return _nt.ops.sub(self, other, *legacy, alpha=alpha)

    def sub_(self, other=_MISSING_ARG, *legacy, alpha=1):
        return _inplace(self, _nt.ops.sub, other, *legacy, alpha=alpha)

    subtract, subtract_ = sub, sub_

    def mul(self, other=_MISSING_ARG):
        return _nt.ops.mul(self, other)

    def mul_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.mul, other)

    multiply, multiply_ = mul, mul_

    def div(self, other=_MISSING_ARG, *, rounding_mode=None):
        return _nt.ops.div(self, other, rounding_mode=rounding_mode)

    def div_(self, other=_MISSING_ARG, *, rounding_mode=None):
        return _inplace(self, _nt.ops.div, other, rounding_mode=rounding_mode)

    divide, divide_ = div, div_

    def true_divide(self, other=_MISSING_ARG):
        return _nt.ops.div(self, other)

    def true_divide_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.div, other)

    def floor_divide(self, other=_MISSING_ARG):
        return _nt.ops.floor_divide(self, other)

    def floor_divide_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.floor_divide, other)

    def remainder(self, other=_MISSING_ARG):
        return _nt.ops.remainder(self, other)

    def remainder_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.remainder, other)

    def fmod(self, other=_MISSING_ARG):
        return _nt.ops.fmod(self, other)

    def fmod_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.fmod, other)

    def pow(self, exponent=_MISSING_ARG):
        return _nt.ops.pow(self, exponent)

    def pow_(self, exponent=_MISSING_ARG):
        return _inplace(self, _nt.ops.pow, exponent)

    def atan2(self, other=_MISSING_ARG):
        return _nt.ops.atan2(self, other)

    def atan2_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.atan2, other)

    arctan2, arctan2_ = atan2, atan2_

    def maximum(self, other=_MISSING_ARG):
        return _nt.ops.maximum(self, other)

    def minimum(self, other=_MISSING_ARG):
        return _nt.ops.minimum(self, other)

    def lerp(self, end, weight):
        return _nt.ops.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return _inplace(self, _nt.ops.lerp, end, weight)

    def addcmul(self, tensor1, tensor2, *legacy, value=1):
        return _nt.ops.addcmul(self, tensor1, tensor2, *legacy, value=value)

    def addcmul_(self, tensor1, tensor2, *legacy, value=1):
        return _inplace(self, _nt.ops.addcmul, tensor1, tensor2, *legacy, value=value)

    def addcdiv(self, tensor1, tensor2, *legacy, value=1):
        return _nt.ops.addcdiv(self, tensor1, tensor2, *legacy, value=value)

    def addcdiv_(self, tensor1, tensor2, *legacy, value=1):
        return _inplace(self, _nt.ops.addcdiv, tensor1, tensor2, *legacy, value=value)

    def clamp(self, min=None, max=None):  # noqa: A002 - torch's argument names
        min, max = _nt.ops.comparison.check_bound_kinds("clamp", self, min, max, True)
        return _nt.ops.clamp(self, min, max)

    def clamp_(self, min=None, max=None):  # noqa: A002
        min, max = _nt.ops.comparison.check_bound_kinds("clamp_", self, min, max, True)
        min, max = _nt.ops.comparison.real_bounds(self, min, max)
        _nt.ops.comparison.check_clamp_inplace(self, min, max)
        return _inplace(self, _nt.ops.clamp, min, max)

    def clip(self, min=None, max=None):  # noqa: A002
        min, max = _nt.ops.comparison.check_bound_kinds("clip", self, min, max, True)
        return _nt.ops.clamp(self, min, max)

    def clip_(self, min=None, max=None):  # noqa: A002
        min, max = _nt.ops.comparison.check_bound_kinds("clip_", self, min, max, True)
        min, max = _nt.ops.comparison.real_bounds(self, min, max)
        _nt.ops.comparison.check_clamp_inplace(self, min, max)
        return _inplace(self, _nt.ops.clamp, min, max)

    def clamp_min(self, min):  # noqa: A002
        return _nt.ops.clamp_min(self, min)

    def clamp_min_(self, min):  # noqa: A002
        _nt.ops.comparison.refuse_complex_bound(self, min)
        _nt.ops.comparison.check_clamp_inplace(self, min, None)
        return _inplace(self, _nt.ops.clamp_min, min)

    def clamp_max(self, max):  # noqa: A002
        return _nt.ops.clamp_max(self, max)

    def clamp_max_(self, max):  # noqa: A002
        _nt.ops.comparison.refuse_complex_bound(self, max)
        _nt.ops.comparison.check_clamp_inplace(self, None, max)
        return _inplace(self, _nt.ops.clamp_max, max)

    def where(self, condition=_MISSING_ARG, other=_MISSING_ARG):
        return _nt.ops.where(condition, self, other)

    # -- unary pointwise ------------------------------------------------------------------------
    def neg(self):
        return _nt.ops.neg(self)

    def neg_(self):
        return _inplace(self, _nt.ops.neg)

    negative, negative_ = neg, neg_

    def abs(self):
        return _nt.ops.abs(self)

    def abs_(self):
        return _inplace(self, _nt.ops.abs)

    absolute, absolute_ = abs, abs_

    def reciprocal(self):
        return _nt.ops.reciprocal(self)

    def reciprocal_(self):
        return _inplace(self, _nt.ops.reciprocal)

    def sqrt(self):
        return _nt.ops.sqrt(self)

    def sqrt_(self):
        return _inplace(self, _nt.ops.sqrt)

    def rsqrt(self):
        return _nt.ops.rsqrt(self)

    def rsqrt_(self):
        return _inplace(self, _nt.ops.rsqrt)

    def square(self):
        return _nt.ops.square(self)

    def square_(self):
        return _inplace(self, _nt.ops.square)

    def exp(self):
        return _nt.ops.exp(self)

    def exp_(self):
        return _inplace(self, _nt.ops.exp)

    def exp2(self):
        return _nt.ops.exp2(self)

    def expm1(self):
        return _nt.ops.expm1(self)

    def expm1_(self):
        return _inplace(self, _nt.ops.expm1)

    def log(self):
        return _nt.ops.log(self)

    def log_(self):
        return _inplace(self, _nt.ops.log)

    def log1p(self):
        return _nt.ops.log1p(self)

    def log1p_(self):
        return _inplace(self, _nt.ops.log1p)

    def log2(self):
        return _nt.ops.log2(self)

    def log2_(self):
        return _inplace(self, _nt.ops.log2)

    def log10(self):
        return _nt.ops.log10(self)

    def log10_(self):
        return _inplace(self, _nt.ops.log10)

    def sin(self):
        return _nt.ops.sin(self)

    def sin_(self):
        return _inplace(self, _nt.ops.sin)

    def cos(self):
        return _nt.ops.cos(self)

    def cos_(self):
        return _inplace(self, _nt.ops.cos)

    def tan(self):
        return _nt.ops.tan(self)

    def tan_(self):
        return _inplace(self, _nt.ops.tan)

    def asin(self):
        return _nt.ops.asin(self)

    def asin_(self):
        return _inplace(self, _nt.ops.asin)

    def acos(self):
        return _nt.ops.acos(self)

    def acos_(self):
        return _inplace(self, _nt.ops.acos)

    def atan(self):
        return _nt.ops.atan(self)

    def atan_(self):
        return _inplace(self, _nt.ops.atan)

    arcsin, arcsin_, arccos, arccos_, arctan, arctan_ = asin, asin_, acos, acos_, atan, atan_

    def sinh(self):
        return _nt.ops.sinh(self)

    def sinh_(self):
        return _inplace(self, _nt.ops.sinh)

    def cosh(self):
        return _nt.ops.cosh(self)

    def cosh_(self):
        return _inplace(self, _nt.ops.cosh)

    def tanh(self):
        return _nt.ops.tanh(self)

    def tanh_(self):
        if type(self._array) is not _np.ndarray and self.is_quantized:  # no in-place kernel
            raise _quantized_missing("tanh.out")
        return _inplace(self, _nt.ops.tanh)

    def asinh(self):
        return _nt.ops.asinh(self)

    def asinh_(self):
        return _inplace(self, _nt.ops.asinh)

    def acosh(self):
        return _nt.ops.acosh(self)

    def acosh_(self):
        return _inplace(self, _nt.ops.acosh)

    def atanh(self):
        return _nt.ops.atanh(self)

    def atanh_(self):
        return _inplace(self, _nt.ops.atanh)

    arcsinh, arcsinh_, arccosh, arccosh_, arctanh, arctanh_ = (
        asinh, asinh_, acosh, acosh_, atanh, atanh_)

    def sigmoid(self):
        return _nt.ops.sigmoid(self)

    def sigmoid_(self):
        if type(self._array) is not _np.ndarray and self.is_quantized:  # no in-place kernel
            raise _quantized_missing("sigmoid.out")
        return _inplace(self, _nt.ops.sigmoid)

    def relu(self):
        return _nt.ops.relu(self)

    def relu_(self):
        return _inplace(self, _nt.ops.relu)

    def sign(self):
        return _nt.ops.sign(self)

    def sign_(self):
        return _inplace(self, _nt.ops.sign)

    def sgn(self):
        return _nt.ops.sgn(self)

    def floor(self):
        return _nt.ops.floor(self)

    def floor_(self):
        return _inplace(self, _nt.ops.floor)

    def ceil(self):
        return _nt.ops.ceil(self)

    def ceil_(self):
        return _inplace(self, _nt.ops.ceil)

    def round(self, *, decimals=0):
        return _nt.ops.round(self, decimals=decimals)

    def round_(self, *, decimals=0):
        return _inplace(self, _nt.ops.round, decimals=decimals)

    def trunc(self):
        return _nt.ops.trunc(self)

    def trunc_(self):
        return _inplace(self, _nt.ops.trunc)

    fix, fix_ = trunc, trunc_

    def frac(self):
        return _nt.ops.frac(self)

    def frac_(self):
        return _inplace(self, _nt.ops.frac)

    def exp2_(self):
        return _inplace(self, _nt.ops.exp2)

    def sgn_(self):
        return _inplace(self, _nt.ops.sgn)

    def positive(self):
        return _nt.ops.positive(self)

    def erf(self):
        return _nt.ops.erf(self)

    def erf_(self):
        return _inplace(self, _nt.ops.erf)

    # -- special functions and floating-point helpers (ops/special.py, ops/floating.py) --------
    def erfc(self):
        return _nt.ops.erfc(self)

    def erfc_(self):
        return _inplace(self, _nt.ops.erfc)

    def erfinv(self):
        return _nt.ops.erfinv(self)

    def erfinv_(self):
        return _inplace(self, _nt.ops.erfinv)

    def lgamma(self):
        return _nt.ops.lgamma(self)

    def lgamma_(self):
        return _inplace(self, _nt.ops.lgamma)

    def digamma(self):
        return _nt.ops.digamma(self)

    def digamma_(self):
        return _inplace(self, _nt.ops.digamma)

    def polygamma(self, n):
        return _nt.ops.polygamma(n, self)

    def polygamma_(self, n):
        return _inplace(self, lambda x: _nt.ops.polygamma(n, x))

    def mvlgamma(self, p):
        return _nt.ops.mvlgamma(self, p)

    def mvlgamma_(self, p):
        return _inplace(self, _nt.ops.mvlgamma, p)

    def i0(self):
        return _nt.ops.i0(self)

    def i0_(self):
        return _inplace(self, _nt.ops.i0)

    def sinc(self):
        return _nt.ops.sinc(self)

    def sinc_(self):
        return _inplace(self, _nt.ops.sinc)

    def logit(self, eps=None):
        return _nt.ops.logit(self, eps)

    def logit_(self, eps=None):
        return _inplace(self, _nt.ops.logit, eps)

    def xlogy(self, other):
        return _nt.ops.xlogy(self, other)

    def xlogy_(self, other):
        return _inplace(self, _nt.ops.xlogy, other)

    def hypot(self, other):
        return _nt.ops.hypot(self, other)

    def hypot_(self, other):
        return _inplace(self, _nt.ops.hypot, other)

    def logaddexp(self, other):
        return _nt.ops.logaddexp(self, other)

    def logaddexp2(self, other):
        return _nt.ops.logaddexp2(self, other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _nt.ops.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return _inplace(self, _nt.ops.nan_to_num, nan, posinf, neginf)

    def float_power(self, exponent=_MISSING_ARG):
        return _nt.ops.float_power(self, exponent)

    def float_power_(self, exponent=_MISSING_ARG):
        return _nt.ops.floating.float_power_(self, exponent)

    def copysign(self, other):
        return _nt.ops.copysign(self, other)

    def copysign_(self, other):
        return _inplace(self, _nt.ops.copysign, other)

    def fmax(self, other):
        return _nt.ops.fmax(self, other)

    def fmin(self, other):
        return _nt.ops.fmin(self, other)

    def deg2rad(self):
        return _nt.ops.deg2rad(self)

    def deg2rad_(self):
        return _inplace(self, _nt.ops.deg2rad)

    def rad2deg(self):
        return _nt.ops.rad2deg(self)

    def rad2deg_(self):
        return _inplace(self, _nt.ops.rad2deg)

    def heaviside(self, values):
        return _nt.ops.heaviside(self, values)

    def heaviside_(self, values):
        return _inplace(self, _nt.ops.heaviside, values)

    def signbit(self):
        return _nt.ops.signbit(self)

    def frexp(self):
        return _nt.ops.frexp(self)

    def ldexp(self, other):
        return _nt.ops.ldexp(self, other)

    def ldexp_(self, other):
        return _inplace(self, _nt.ops.ldexp, other)

    def nextafter(self, other):
        return _nt.ops.nextafter(self, other)

    def nextafter_(self, other):
        return _inplace(self, _nt.ops.nextafter, other)

    def isposinf(self):
        return _nt.ops.isposinf(self)

    def isneginf(self):
        return _nt.ops.isneginf(self)

    def isreal(self):
        return _nt.ops.isreal(self)

    # -- complex numbers (ops/complex_ops.py) ---------------------------------------------------
    @property
    def real(self):
        return _nt.ops.real(self)

    @real.setter
    def real(self, value):
        _set_part(_nt.ops.real(self), value)

    @property
    def imag(self):
        return _nt.ops.imag(self)

    @imag.setter
    def imag(self, value):
        _set_part(_nt.ops.imag(self), value)

    def conj(self):
        return _nt.ops.conj(self)

    def conj_physical(self):
        return _nt.ops.conj_physical(self)

    def conj_physical_(self):
        return _inplace(self, _nt.ops.conj_physical)

    def resolve_conj(self):
        return _nt.ops.resolve_conj(self)

    def resolve_neg(self):
        return _nt.ops.resolve_neg(self)

    def is_conj(self):
        return _nt.ops.is_conj(self)

    def is_neg(self):
        return _nt.ops.is_neg(self)

    def angle(self):
        return _nt.ops.angle(self)

    @property
    def H(self):
        """The conjugate transpose of a matrix (a 0-d tensor is its own)."""
        nd = self._array.ndim
        if nd != 2 and nd != 0:
            hint = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{nd}-D tensor.{hint}")
        return _adjoint(self, "tensor.H", "Tensor.H")

    @property
    def mH(self):
        """The conjugate transpose of each matrix in a batch (the last two dims)."""
        return _adjoint(self, "tensor.mH", "Tensor.mH")

    def adjoint(self):
        return _adjoint(self, "tensor.adjoint()", "adjoint()")

    # -- shifts (ops/bitwise.py) ----------------------------------------------------------------
    def __lshift__(self, other):
        try:
            return _nt.ops.bitwise_left_shift(self, other)
        except TypeError:
            return NotImplemented

    def __rlshift__(self, other):
        try:
            return _nt.ops.bitwise_left_shift(other, self)
        except TypeError:
            return NotImplemented

    def __ilshift__(self, other):
        try:
            return _bitwise_inplace(self, _nt.ops.bitwise_left_shift, other)
        except TypeError:
            return NotImplemented

    def __rshift__(self, other):
        try:
            return _nt.ops.bitwise_right_shift(self, other)
        except TypeError:
            return NotImplemented

    def __rrshift__(self, other):
        try:
            return _nt.ops.bitwise_right_shift(other, self)
        except TypeError:
            return NotImplemented

    def __irshift__(self, other):
        try:
            return _bitwise_inplace(self, _nt.ops.bitwise_right_shift, other)
        except TypeError:
            return NotImplemented

    def bitwise_left_shift(self, other=_MISSING_ARG):
        return _nt.ops.bitwise_left_shift(self, other)

    def bitwise_left_shift_(self, other=_MISSING_ARG):
        return _bitwise_inplace(self, _nt.ops.bitwise_left_shift, other)

    def bitwise_right_shift(self, other=_MISSING_ARG):
        return _nt.ops.bitwise_right_shift(self, other)

    def bitwise_right_shift_(self, other=_MISSING_ARG):
        return _bitwise_inplace(self, _nt.ops.bitwise_right_shift, other)

    def bitwise_and_(self, other=_MISSING_ARG):
        return _bitwise_inplace(self, _nt.ops.bitwise_and, other)

    def bitwise_or_(self, other=_MISSING_ARG):
        return _bitwise_inplace(self, _nt.ops.bitwise_or, other)

    def bitwise_xor_(self, other=_MISSING_ARG):
        return _bitwise_inplace(self, _nt.ops.bitwise_xor, other)

    def bitwise_not_(self):
        return _inplace(self, _nt.ops.bitwise_not)

    def gcd(self, other):
        return _nt.ops.gcd(self, other)

    def gcd_(self, other):
        return _inplace(self, _nt.ops.gcd, other)

    def lcm(self, other):
        return _nt.ops.lcm(self, other)

    def lcm_(self, other):
        return _inplace(self, _nt.ops.lcm, other)

    def not_equal_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.ne, other)

    def less_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.lt, other)

    def less_equal_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.le, other)

    def greater_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.gt, other)

    def greater_equal_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.ge, other)

    # -- comparison and logic -------------------------------------------------------------------
    def eq(self, other=_MISSING_ARG):
        return _nt.ops.eq(self, other)

    def eq_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.eq, other)

    def ne(self, other=_MISSING_ARG):
        return _nt.ops.ne(self, other)

    def ne_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.ne, other)

    def lt(self, other=_MISSING_ARG):
        return _nt.ops.lt(self, other)

    def lt_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.lt, other)

    def le(self, other=_MISSING_ARG):
        return _nt.ops.le(self, other)

    def le_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.le, other)

    def gt(self, other=_MISSING_ARG):
        return _nt.ops.gt(self, other)

    def gt_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.gt, other)

    def ge(self, other=_MISSING_ARG):
        return _nt.ops.ge(self, other)

    def ge_(self, other=_MISSING_ARG):
        return _inplace(self, _nt.ops.ge, other)

    not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

    def equal(self, other):
        return _nt.ops.equal(self, other)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _nt.ops.allclose(self, other, rtol, atol, equal_nan)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _nt.ops.isclose(self, other, rtol, atol, equal_nan)

    def logical_and(self, other):
        return _nt.ops.logical_and(self, other)

    def logical_and_(self, other):
        return _inplace(self, _nt.ops.logical_and, other)

    def logical_or(self, other):
        return _nt.ops.logical_or(self, other)

    def logical_or_(self, other):
        return _inplace(self, _nt.ops.logical_or, other)

    def logical_xor(self, other):
        return _nt.ops.logical_xor(self, other)

    def logical_xor_(self, other):
        return _inplace(self, _nt.ops.logical_xor, other)

    def logical_not(self):
        return _nt.ops.logical_not(self)

    def logical_not_(self):
        return _inplace(self, _nt.ops.logical_not)

    def bitwise_and(self, other=_MISSING_ARG):
        return _nt.ops.bitwise_and(self, other)

    def bitwise_or(self, other=_MISSING_ARG):
        return _nt.ops.bitwise_or(self, other)

    def bitwise_xor(self, other=_MISSING_ARG):
        return _nt.ops.bitwise_xor(self, other)

    def bitwise_not(self):
        return _nt.ops.bitwise_not(self)

    def isnan(self):
        return _nt.ops.isnan(self)

    def isinf(self):
        return _nt.ops.isinf(self)

    def isfinite(self):
        return _nt.ops.isfinite(self)

    # -- reductions -----------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return _nt.ops.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return _nt.ops.mean(self, dim, keepdim, dtype=dtype)

    def prod(self, dim=_ALL_DIMS, keepdim=False, *, dtype=None):
        return _nt.ops.prod(self, dim, keepdim, dtype=dtype)

    def amax(self, dim=(), keepdim=False):
        return _nt.ops.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _nt.ops.amin(self, dim, keepdim)

    def max(self, dim=_ALL_DIMS, keepdim=False):
        return _nt.ops.max(self, dim, keepdim)

    def min(self, dim=_ALL_DIMS, keepdim=False):
        return _nt.ops.min(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _nt.ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _nt.ops.argmin(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _nt.ops.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _nt.ops.std(self, dim, unbiased, keepdim, correction=correction)

    def softmax(self, dim=_MISSING_DIM, dtype=None):
        return _nt.ops.softmax(self, dim, dtype)

    def log_softmax(self, dim=_MISSING_DIM, dtype=None):
        return _nt.ops.log_softmax(self, dim, dtype)

    def logsumexp(self, dim=_MISSING_DIM, keepdim=False):
        return _nt.ops.logsumexp(self, dim, keepdim)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _nt.ops.norm(self, p, dim, keepdim, dtype=dtype)

    def cumsum(self, dim=_MISSING_DIM, *, dtype=None):
        return _nt.ops.cumsum(self, dim, dtype=dtype)

    def cumsum_(self, dim, *, dtype=None):
        _same_inplace_dtype(self, dtype)
        # the scan runs in the tensor's own dtype (torch has no bool one)
        return _inplace(self, _nt.ops.cumsum, dim, dtype=self.dtype if dtype is None else dtype)

    def cumprod(self, dim=_MISSING_DIM, *, dtype=None):
        return _nt.ops.cumprod(self, dim, dtype=dtype)

    def cumprod_(self, dim, *, dtype=None):
        _same_inplace_dtype(self, dtype)
        # the scan runs in the tensor's own dtype (torch has no bool one)
        return _inplace(self, _nt.ops.cumprod, dim, dtype=self.dtype if dtype is None else dtype)

    def all(self, dim=None, keepdim=False):
        return _nt.ops.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return _nt.ops.any(self, dim, keepdim)

    def count_nonzero(self, dim=None):
        return _nt.ops.count_nonzero(self, dim)

    def aminmax(self, *, dim=None, keepdim=False):
        return _nt.ops.aminmax(self, dim=dim, keepdim=keepdim)

    # -- shape ----------------------------------------------------------------------------------
    def view(self, *shape, **kwargs):
        if not shape:
            if "dtype" in kwargs and len(kwargs) == 1:
                return _nt.ops.view(self, kwargs["dtype"])
            if not kwargs:
                raise TypeError("view() received an invalid combination of arguments - got (), "
                                "but expected one of:\n * (torch.dtype dtype)\n * (tuple of "
                                "ints size)\n")
        return _nt.ops.view(self, *_size_args(shape, kwargs, "size", "view"))

    def view_as(self, other=_MISSING_ARG):
        """A view of this tensor with ``other``'s shape (``self.view(other.size())``)."""
        try:
            return _nt.ops.view(self, other.shape)
        except Exception:
            _check_missing("view_as", other=other)
            _nt.ops._pointwise._check_tensor("view_as", other, "other", 2)
            raise

    def reshape(self, *shape, **kwargs):
        return _nt.ops.reshape(self, *shape, **kwargs)

    def reshape_as(self, other=_MISSING_ARG):
        try:
            return _nt.ops.reshape(self, other.shape)
        except Exception:
            _check_missing("reshape_as", other=other)
            _nt.ops._pointwise._check_tensor("reshape_as", other, "other", 2)
            raise

    def permute(self, *dims, **kwargs):
        return _nt.ops.permute(self, *dims, **kwargs)

    def transpose(self, dim0=_MISSING_ARG, dim1=_MISSING_ARG):
        try:
            return _nt.ops.transpose(self, dim0, dim1)
        except Exception:
            _check_missing("transpose", dim0=dim0, dim1=dim1)
            raise

    def transpose_(self, dim0=_MISSING_ARG, dim1=_MISSING_ARG):
        try:
            return _nt.ops.restride_(self, _nt.ops.transpose, dim0, dim1)
        except Exception:
            _check_missing("transpose_", dim0=dim0, dim1=dim1)
            raise

    swapaxes = swapdims = transpose

    def t(self):
        return _nt.ops.t(self)

    def t_(self):
        return _nt.ops.restride_(self, _nt.ops.t)

    def expand(self, *sizes, **kwargs):
        return _nt.ops.expand(self, *_required(sizes, kwargs, "size", "expand"))

    def expand_as(self, other=_MISSING_ARG):
        """This tensor broadcast to ``other``'s shape without copying (``expand``)."""
        try:
            return _nt.ops.expand(self, other.shape)
        except Exception:
            _check_missing("expand_as", other=other)
            _nt.ops._pointwise._check_tensor("expand_as", other, "other", 2)
            raise

    def broadcast_to(self, *size, **kwargs):
        """This tensor broadcast to ``size`` (a shape or the sizes one by one, as torch's
        method takes them) without copying."""
        return _nt.ops.expand(self, *_required(size, kwargs, "size", "broadcast_to"))

    def squeeze(self, dim=None, *dims):
        # the method also takes the dims as separate arguments (x.squeeze(0, 2)), as torch's
        return _nt.ops.squeeze(self, (dim, *dims) if dims else dim)

    def squeeze_(self, dim=None, *dims):
        return _nt.ops.restride_(self, _nt.ops.squeeze, (dim, *dims) if dims else dim)

    def unsqueeze(self, dim=_MISSING_ARG):
        try:
            return _nt.ops.unsqueeze(self, dim)
        except Exception:
            _check_missing("unsqueeze", dim=dim)
            raise

    def unsqueeze_(self, dim=_MISSING_ARG):
        try:
            return _nt.ops.restride_(self, _nt.ops.unsqueeze, dim)
        except Exception:
            _check_missing("unsqueeze_", dim=dim)
            raise

    def flatten(self, start_dim=0, end_dim=-1):
        return _nt.ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return _nt.ops.unflatten(self, dim, sizes)

    unflatten.__qualname__ = "Tensor.unflatten"

    def movedim(self, source=_MISSING_ARG, destination=_MISSING_ARG):
        try:
            return _nt.ops.movedim(self, source, destination)
        except Exception:
            _missing_overloads((source, destination), _MOVEDIM_FORMS)
            raise

    moveaxis = movedim

    def split(self, split_size, dim=0):
        return _nt.ops.split(self, split_size, dim)

    # torch defines these two in Python: its missing-argument errors name Tensor.split()
    split.__qualname__ = "Tensor.split"

    def chunk(self, chunks=_MISSING_ARG, dim=0):
        try:
            return _nt.ops.chunk(self, chunks, dim)
        except Exception:
            _check_missing("chunk", chunks=chunks)
            raise

    def unbind(self, dim=0):
        return _nt.ops.unbind(self, dim)

    def narrow(self, dim=_MISSING_ARG, start=_MISSING_ARG, length=_MISSING_ARG):
        try:
            return _nt.ops.narrow(self, dim, start, length)
        except Exception:
            _missing_overloads((dim, start, length), _NARROW_FORMS)
            raise

    def select(self, dim=_MISSING_ARG, index=_MISSING_ARG):
        try:
            return _nt.ops.select(self, dim, index)
        except Exception:
            _check_missing("select", dim=dim, index=index)
            raise

    def unfold(self, dimension=_MISSING_ARG, size=_MISSING_ARG, step=_MISSING_ARG):
        try:
            return _nt.ops.unfold(self, dimension, size, step)
        except Exception:
            _check_missing("unfold", dimension=dimension, size=size, step=step)
            raise

    def repeat(self, *sizes, **kwargs):
        return _nt.ops.repeat(self, *_required(sizes, kwargs, "repeats", "repeat"))

    def flip(self, *dims, **kwargs):
        return _nt.ops.flip(self, *dims, **kwargs)

    def roll(self, shifts=_MISSING_ARG, dims=None):
        try:
            return _nt.ops.roll(self, shifts, dims)
        except Exception:
            _check_missing("roll", shifts=shifts)
            raise

    def stft(self, n_fft, *args, **kwargs):
        from .ops.spectral import stft

        return stft(self, n_fft, *args, **kwargs)

    def istft(self, n_fft, *args, **kwargs):
        from .ops.spectral import istft

        return istft(self, n_fft, *args, **kwargs)

    # -- indexing -------------------------------------------------------------------------------
    def gather(self, dim=_MISSING_ARG, index=_MISSING_ARG, *, sparse_grad=False):
        try:
            return _nt.ops.gather(self, dim, index, sparse_grad=sparse_grad)
        except Exception:
            _check_missing("gather", dim=dim, index=index)
            raise

    def take_along_dim(self, indices=_MISSING_ARG, dim=None):
        try:
            return _nt.ops.take_along_dim(self, indices, dim)
        except Exception:
            _check_missing("take_along_dim", indices=indices)
            raise

    def argwhere(self):
        return _nt.ops.argwhere(self)

    def scatter(self, dim=_MISSING_ARG, index=_MISSING_ARG, src=None, *, value=None, reduce=None):
        return _nt.ops.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim=_MISSING_ARG, index=_MISSING_ARG, src=None, *, value=None, reduce=None):
        return _inplace(self, _nt.ops.scatter, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim=_MISSING_ARG, index=_MISSING_ARG, src=_MISSING_ARG):
        try:
            return _nt.ops.scatter_add(self, dim, index, src)
        except Exception:
            _check_missing("scatter_add", dim=dim, index=index, src=src)
            raise

    def scatter_add_(self, dim=_MISSING_ARG, index=_MISSING_ARG, src=_MISSING_ARG):
        try:
            return _inplace(self, _nt.ops.scatter_add, dim, index, src)
        except Exception:
            _check_missing("scatter_add_", dim=dim, index=index, src=src)
            raise

    def index_select(self, dim=_MISSING_ARG, index=_MISSING_ARG):
        try:
            return _nt.ops.index_select(self, dim, index)
        except Exception:
            _check_missing("index_select", dim=dim, index=index)
            raise

    def masked_fill(self, mask=_MISSING_ARG, value=_MISSING_ARG):
        try:
            if type(self._array) is not _np.ndarray and self.is_quantized:
                from ._quantized_ops_float import quantized_dispatch

                return quantized_dispatch("masked_fill", self, mask, value)
            return _nt.ops.masked_fill(self, mask, value)
        except Exception:
            _missing_overloads((mask, value), _MASKED_FILL_FORMS)
            raise

    def masked_fill_(self, mask=_MISSING_ARG, value=_MISSING_ARG):
        try:
            if type(self._array) is not _np.ndarray and self.is_quantized:
                from ._quantized_inplace import masked_fill_ as _quantized

                return _quantized(self, mask, value)
            return _nt.ops.inplace_writes.masked_fill_(self, mask, value)
        except Exception:
            _missing_overloads((mask, value), _MASKED_FILL_FORMS)
            raise

    def masked_select(self, mask=_MISSING_ARG):
        try:
            return _nt.ops.masked_select(self, mask)
        except Exception:
            _check_missing("masked_select", mask=mask)
            raise

    # sorting and selection (see numtorch/ops/sorting.py)
    def sort(self, *args, **kwargs):
        return _nt.ops.sort(self, *args, _method=True, **kwargs)

    def argsort(self, *args, **kwargs):
        return _nt.ops.argsort(self, *args, _method=True, **kwargs)

    def msort(self):
        return _nt.ops.msort(self)

    def topk(self, k=_MISSING_ARG, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
        try:
            return _nt.ops.topk(self, k, dim, largest, sorted)
        except Exception:
            _check_missing("topk", k=k)
            raise

    def kthvalue(self, k=_MISSING_ARG, dim=-1, keepdim=False):
        try:
            return _nt.ops.kthvalue(self, k, dim, keepdim)
        except Exception:
            _check_missing("kthvalue", k=k)
            raise

    def median(self, dim=_ALL_DIMS, keepdim=False):
        return _nt.ops.median(self, dim, keepdim)

    def nanmedian(self, dim=_ALL_DIMS, keepdim=False):
        return _nt.ops.nanmedian(self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        return _nt.ops.mode(self, dim, keepdim)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002 - torch's names
        return _nt.ops.histc(self, bins, min, max)

    def cummax(self, dim):
        return _nt.ops.cummax(self, dim)

    def cummin(self, dim):
        return _nt.ops.cummin(self, dim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
               dim=None):
        return _nt.ops.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _nt.ops.unique_consecutive(self, return_inverse, return_counts, dim)

    def bincount(self, weights=None, minlength=0):
        return _nt.ops.bincount(self, weights, minlength)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
        return _nt.ops.histogram(self, bins, range=range, weight=weight, density=density)

    # matrix structure and index-wise updates (ops/structure.py, ops/index_updates.py)
    def diag(self, diagonal=0):
        return _nt.ops.diag(self, diagonal)

    def tril(self, diagonal=0):
        return _nt.ops.tril(self, diagonal)

    def tril_(self, diagonal=0):
        return _inplace(self, _nt.ops.tril, diagonal)

    def triu(self, diagonal=0):
        return _nt.ops.triu(self, diagonal)

    def triu_(self, diagonal=0):
        return _inplace(self, _nt.ops.triu, diagonal)

    def trace(self):
        return _nt.ops.trace(self)

    def dist(self, other, p=2):
        return _nt.ops.dist(self, other, p)

    def renorm(self, p, dim, maxnorm):
        return _nt.ops.renorm(self, p, dim, maxnorm)

    def renorm_(self, p, dim, maxnorm):
        return _inplace(self, _nt.ops.renorm, p, dim, maxnorm)

    def index_add(self, dim=_MISSING_ARG, index=_MISSING_ARG, source=_MISSING_ARG, *, alpha=1):
        try:
            return _nt.ops.index_add(self, dim, index, source, alpha=alpha)
        except Exception:
            _check_missing("index_add", dim=dim, index=index, source=source)
            raise

    def index_add_(self, dim=_MISSING_ARG, index=_MISSING_ARG, source=_MISSING_ARG, *, alpha=1):
        try:
            return _inplace(self, _nt.ops.index_add, dim, index, source, alpha=alpha)
        except Exception:
            _check_missing("index_add_", dim=dim, index=index, source=source)
            raise

    def index_copy(self, dim=_MISSING_ARG, index=_MISSING_ARG, source=_MISSING_ARG):
        try:
            return _nt.ops.index_copy(self, dim, index, source)
        except Exception:
            _check_missing("index_copy", dim=dim, index=index, source=source)
            raise

    def index_copy_(self, dim=_MISSING_ARG, index=_MISSING_ARG, source=_MISSING_ARG):
        try:
            return _inplace(self, _nt.ops.index_copy, dim, index, source)
        except Exception:
            _check_missing("index_copy_", dim=dim, index=index, source=source)
            raise

    def index_fill(self, dim=_MISSING_ARG, index=_MISSING_ARG, value=_MISSING_ARG):
        try:
            return _nt.ops.index_fill(self, dim, index, value)
        except Exception:
            _missing_overloads((dim, index, value), _INDEX_FILL_FORMS)
            raise

    def index_fill_(self, dim=_MISSING_ARG, index=_MISSING_ARG, value=_MISSING_ARG):
        try:
            return _nt.ops.inplace_writes.index_fill_(self, dim, index, value)
        except Exception:
            _missing_overloads((dim, index, value), _INDEX_FILL_FORMS)
            raise

    def masked_scatter(self, mask, source):
        return _nt.ops.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        try:
            return _inplace(self, _nt.ops.masked_scatter, mask, source)
        except RuntimeError:
            # torch's in-place form expands the mask to self's shape (after the source's dtype
            # check): expand's error is the one it reports
            if getattr(mask, "_array", None) is not None and getattr(source, "dtype", None) \
                    is self.dtype and mask._array.shape != self._array.shape:
                mask.expand(self.shape)
            raise

    def masked_copy_(self, mask, source):
        """The 0.x name of :meth:`masked_scatter_`."""
        return _inplace(self, _nt.ops.masked_scatter, mask, source)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _nt.ops.diagonal(self, offset, dim1, dim2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return _nt.ops.diag_embed(self, offset, dim1, dim2)

    def take(self, index=_MISSING_ARG):
        try:
            return _nt.ops.take(self, index)
        except Exception:
            _check_missing("take", index=index)
            raise

    def fill_diagonal_(self, fill_value, wrap=False):
        return _nt.ops.inplace_writes.fill_diagonal_(self, fill_value, wrap)

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        return _nt.ops.repeat_interleave(self, repeats, dim, output_size=output_size)

    def index_put(self, indices, values, accumulate=False):
        _nt.ops.indexing.check_put_sequence(indices, "index_put", 1)
        return _nt.ops.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        _nt.ops.indexing.check_put_sequence(indices, "index_put_", 1)
        return _nt.ops.inplace_writes.index_put_(self, indices, values, accumulate)

    def put(self, index, source, accumulate=False):
        return _nt.ops.put(self, index, source, accumulate)

    def put_(self, index, source, accumulate=False):
        return _inplace(self, _nt.ops.put, index, source, accumulate)

    def nonzero(self, *, as_tuple=False):
        return _nt.ops.nonzero(self, as_tuple=as_tuple)

    # -- matrix products ------------------------------------------------------------------------
    def matmul(self, other=_MISSING_ARG):
        return _nt.ops.matmul(self, other)

    def mm(self, mat2=_MISSING_ARG):
        return _nt.ops.mm(self, mat2)

    def bmm(self, mat2=_MISSING_ARG):
        return _nt.ops.bmm(self, mat2)

    def mv(self, vec=_MISSING_ARG):
        return _nt.ops.mv(self, vec)

    def dot(self, other=_MISSING_ARG):
        return _nt.ops.dot(self, other)

    def addmm(self, mat1, mat2, *legacy, beta=1, alpha=1):
        return _nt.ops.addmm(self, mat1, mat2, *legacy, beta=beta, alpha=alpha)

    def addmm_(self, mat1, mat2, *legacy, beta=1, alpha=1):
        if not legacy:
            _inplace_product_shape(self, mat1, mat2, 2)
        return _inplace(self, _nt.ops.addmm, mat1, mat2, *legacy, beta=beta, alpha=alpha)

    def outer(self, vec2=_MISSING_ARG):
        return _nt.ops.outer(self, vec2)

    def ger(self, vec2):
        return _nt.ops.ger(self, vec2)

    def inner(self, other=_MISSING_ARG):
        return _nt.ops.inner(self, other)

    # -- linear algebra (ops/decomp.py, linsolve.py, products.py, lapack_legacy.py) ------------
    def baddbmm(self, *args, beta=1, alpha=1, **named):
        return _nt.ops.baddbmm(self, *args, beta=beta, alpha=alpha, **named)

    def baddbmm_(self, *args, beta=1, alpha=1, **named):
        both = list(args) + [named[k] for k in ("batch1", "batch2")[len(args):] if k in named]
        if len(both) == 2 == len(args) + len(named):
            _inplace_product_shape(self, both[0], both[1], 3)
        return _inplace(self, _nt.ops.baddbmm, *args, beta=beta, alpha=alpha, **named)

    def addbmm(self, *args, beta=1, alpha=1, **named):
        return _nt.ops.addbmm(self, *args, beta=beta, alpha=alpha, **named)

    def addbmm_(self, *args, beta=1, alpha=1, **named):
        return _inplace(self, _nt.ops.addbmm, *args, beta=beta, alpha=alpha, **named)

    def addmv(self, *args, beta=1, alpha=1, **named):
        return _nt.ops.addmv(self, *args, beta=beta, alpha=alpha, **named)

    def addmv_(self, *args, beta=1, alpha=1, **named):
        return _inplace(self, _nt.ops.addmv, *args, beta=beta, alpha=alpha, **named)

    def addr(self, *args, beta=1, alpha=1, **named):
        return _nt.ops.addr(self, *args, beta=beta, alpha=alpha, **named)

    def addr_(self, *args, beta=1, alpha=1, **named):
        return _inplace(self, _nt.ops.addr, *args, beta=beta, alpha=alpha, **named)

    def kron(self, other):
        return _nt.ops.kron(self, other)

    def cross(self, other, dim=None):
        return _nt.ops.cross(self, other, dim)

    def matrix_power(self, n):
        return _nt.ops.matrix_power(self, n)

    def matrix_exp(self):
        return _nt.ops.matrix_exp(self)

    def inverse(self):
        return _nt.ops.inverse(self)

    def det(self):
        return _nt.ops.det(self)

    def logdet(self):
        return _nt.ops.logdet(self)

    def slogdet(self):
        return _nt.ops.slogdet(self)

    def pinverse(self, rcond=1e-15):
        return _nt.ops.pinverse(self, rcond)

    def svd(self, some=True, compute_uv=True):
        return _nt.ops.svd(self, some, compute_uv)

    def qr(self, some=True):
        return _nt.ops.qr(self, some)

    def geqrf(self):
        return _nt.ops.geqrf(self)

    def orgqr(self, input2):
        return _nt.ops.orgqr(self, input2)

    def ormqr(self, input2, input3, left=True, transpose=False):
        return _nt.ops.ormqr(self, input2, input3, left, transpose)

    def cholesky(self, upper=False):
        return _nt.ops.cholesky(self, upper)

    def cholesky_solve(self, input2, upper=False):
        return _nt.ops.cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        return _nt.ops.cholesky_inverse(self, upper)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        return _nt.ops.triangular_solve(self, A, upper, transpose, unitriangular)

    def lu(self, pivot=True, get_infos=False):
        return _nt.ops.lu(self, pivot, get_infos)

    def lu_solve(self, LU_data, LU_pivots):
        return _nt.ops.lu_solve(self, LU_data, LU_pivots)

    def gesv(self, A):
        return _nt.ops.gesv(self, A)

    def solve(self, A):
        return _nt.ops.solve(self, A)

    def gels(self, A):
        return _nt.ops.gels(self, A)

    def lstsq(self, A):
        return _nt.ops.lstsq(self, A)

    def potrf(self, upper=True):
        return _nt.ops.potrf(self, upper)

    def potrs(self, input2, upper=True):
        return _nt.ops.potrs(self, input2, upper)

    def potri(self, upper=True):
        return _nt.ops.potri(self, upper)

    def pstrf(self, upper=True, tol=-1):
        return _nt.ops.pstrf(self, upper, tol)

    def trtrs(self, A, upper=True, transpose=False, unitriangular=False):
        return _nt.ops.trtrs(self, A, upper, transpose, unitriangular)

    def eig(self, eigenvectors=False):
        return _nt.ops.eig(self, eigenvectors)

    def symeig(self, eigenvectors=False, upper=True):
        return _nt.ops.symeig(self, eigenvectors, upper)

    # -- beyond the seeds (ops/shape_extra, reducing_scatter, strided_views, statistics_extra,
    # quantiles) -------------------------------------------------------------------------------
    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _nt.ops.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        return _inplace(self, _nt.ops.scatter_reduce, dim, index, src, reduce,
                        include_self=include_self)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        return _nt.ops.index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        return _inplace(self, _nt.ops.index_reduce, dim, index, source, reduce,
                        include_self=include_self)

    def as_strided(self, size, stride, storage_offset=None):
        return _nt.ops.as_strided(self, size, stride, storage_offset)

    def as_strided_(self, size, stride, storage_offset=None):
        return _nt.ops.strided_views.as_strided_(self, size, stride, storage_offset)

    def as_strided_scatter(self, src, size, stride, storage_offset=None):
        return _nt.ops.as_strided_scatter(self, src, size, stride, storage_offset)

    def select_scatter(self, src, dim, index):
        return _nt.ops.select_scatter(self, src, dim, index)

    def slice_inverse(self, src, dim=0, start=None, end=None, step=1):
        return _nt.ops.slice_inverse(self, src, dim, start, end, step)

    def hash_tensor(self, dim=None, *, keepdim=False, mode=0):
        from .ops.hashing import hash_tensor

        return hash_tensor(self, dim, keepdim=keepdim, mode=mode)

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        return _nt.ops.slice_scatter(self, src, dim, start, end, step)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return _nt.ops.diagonal_scatter(self, src, offset, dim1, dim2)

    def rot90(self, k=1, dims=(0, 1)):
        return _nt.ops.rot90(self, k, dims)

    def tensor_split(self, indices_or_sections, dim=0):
        return _nt.ops.tensor_split(self, indices_or_sections, dim)

    def hsplit(self, indices_or_sections):
        return _nt.ops.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        return _nt.ops.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        return _nt.ops.dsplit(self, indices_or_sections)

    def tile(self, *dims, **kwargs):
        dims = _required(dims, kwargs, "dims", "tile")
        return _nt.ops.tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int)
                         else dims)

    def ravel(self):
        return _nt.ops.ravel(self)

    def fliplr(self):
        return _nt.ops.fliplr(self)

    def flipud(self):
        return _nt.ops.flipud(self)

    def diagflat(self, offset=0):
        return _nt.ops.diagflat(self, offset)

    def sum_to_size(self, *size, **kwargs):
        return _nt.ops.sum_to_size(self, *_size_args(size, kwargs, "size", "sum_to_size"))

    def vdot(self, other):
        return _nt.ops.vdot(self, other)

    def logcumsumexp(self, dim):
        return _nt.ops.logcumsumexp(self, dim)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        return _nt.ops.diff(self, n, dim, prepend, append)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return _nt.ops.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        return _nt.ops.nanmean(self, dim, keepdim, dtype=dtype)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _nt.ops.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _nt.ops.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return _nt.ops.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self):
        return _nt.ops.corrcoef(self)

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None or dtype is self.dtype else self.to(dtype)

    def to_sparse(self, *args, **kwargs):
        return _nt.ops.sparse_ops.to_sparse(self, *args, **kwargs)

    def smm(self, mat2):
        return _nt.ops.sparse_ops.smm(self, mat2)

    # -- filling and copying --------------------------------------------------------------------
    def fill_(self, value=_MISSING_ARG):
        """Set every element to ``value`` (a number or a 0-d tensor), in place; returns self."""
        try:
            if _FUNC_EPOCHS:
                _nt.autograd._func_transforms.refuse_captured(
                    self, "fill_.Tensor" if isinstance(value, _TensorMath) else "fill_.Scalar")
            if type(self._array) is not _np.ndarray and self.is_quantized:
                from ._quantized_inplace import fill_ as _quantized

                return _quantized(self, value)
            return _nt.ops.inplace_writes.fill_(self, value)
        except Exception:
            _missing_overloads((value,), ("(Tensor value)", "(Number value)"))
            raise

    def zero_(self):
        """Set every element to zero, in place; returns self."""
        if _FUNC_EPOCHS:
            _nt.autograd._func_transforms.refuse_captured(self, "zero_")
        if type(self._array) is not _np.ndarray and self.is_quantized:
            from ._quantized_inplace import zero_ as _quantized

            return _quantized(self)
        return _nt.ops.inplace_writes.zero_(self)

    def copy_(self, src, non_blocking=False):
        """Copy ``src``'s values into this tensor in place, broadcasting ``src`` to this shape and
        converting its dtype and device; returns self (gradients flow back to ``src``)."""
        if type(self._array) is not _np.ndarray or \
                type(getattr(src, "_array", None)) not in (_np.ndarray, type(None)):
            from ._quantized_inplace import copy_ as _quantized

            if _quantized(self, src):
                return self
        if isinstance(src, _TensorMath) and src._array.ndim > self._array.ndim:  # torch refuses
            raise _nt.ops.cast.copy_shape_error(self._array.shape, src._array.shape)
        if isinstance(src, _TensorMath):
            _nt.ops.inplace_writes.check_partial_overlap(self._array, src._array)
        return _inplace(self, _nt.ops.copy_value, src)


def _set_part(part, value):
    """``z.real = value`` / ``z.imag = value``: write into the part's view of ``z``."""
    if isinstance(value, _TensorMath):
        part.copy_(value)
    else:
        part.fill_(value)


def _adjoint(t, name, short):
    """Conjugate-transpose the last two dims (``H``, ``mH``, ``adjoint()``); torch still
    accepts 0-d tensors, with a deprecation warning."""
    nd = t._array.ndim
    if nd == 1:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                           f"1-D tensor.")
    if nd == 0:
        import warnings

        warnings.warn(f"{short} is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=3)
        return _nt.ops.conj(t)
    return _nt.ops.conj(t.transpose(-2, -1))
