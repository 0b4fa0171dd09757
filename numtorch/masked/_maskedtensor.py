"""``torch.masked.MaskedTensor`` (a prototype in torch): a tensor with a boolean mask of the
same shape; elements where the mask is False are left out of reductions and print as ``--``.

Like the nested tensor, a MaskedTensor is, for autograd and for every array operation, its
data tensor (it shares the data's array and graph node); beside it the mask. Operations reach
the class through ``__torch_function__``: elementwise ones run on the data and keep the mask
(two masked operands need equal masks), the reductions and ``softmax`` use the masked forms of
``numtorch.masked`` and mask the result where no element was kept; view-like ops apply to
data and mask, dtype casts to the data. Operations torch's prototype has no rule for raise
TypeError, as there (Python's own for an operator). A gradient is a MaskedTensor with the
leaf's mask, its data computed as for the plain data (masked-out entries included).
"""

import warnings

from .. import _torch_function
from .._tensor import Tensor, _make
from ..autograd.graph import accumulator
from . import _reductions, _normalizations
from ._maskedtensor_repr import masked_repr

_new = object.__new__

_MASKS_DIFFER = ("Input masks must match. If you need support for this, please open an issue "
                 "on Github.")

_PROTOTYPE = ("The PyTorch API of MaskedTensors is in prototype stage and will change in the near "
              "future. Please open a Github issue for features requests and see our "
              "documentation on the torch.masked module for further information about the "
              "project.")

_UNARY = frozenset("""abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh
atan arctan atanh arctanh bitwise_not ceil clamp clip conj_physical cos cosh deg2rad digamma
erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit i0 isnan
nan_to_num neg negative positive pow rad2deg reciprocal round rsqrt sigmoid sign sgn signbit
sin sinc sinh sqrt square tan tanh trunc __neg__ __abs__ __pos__ __invert__""".split())
_BINARY = frozenset("""add atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift div divide true_divide floor_divide fmod logaddexp logaddexp2 mul multiply
nextafter remainder sub subtract eq ne le ge gt lt greater greater_equal less less_equal
not_equal maximum minimum fmax fmin isclose __add__ __radd__ __sub__ __mul__ __rmul__
__truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__
__and__ __rand__ __or__ __ror__ __xor__ __rxor__ __eq__ __ne__ __lt__ __le__ __gt__
__ge__""".split())
# view-like ops: the same op on the data and on the mask
_SHAPE = frozenset("""__getitem__ t transpose swapaxes swapdims reshape view unsqueeze flatten
expand contiguous clone detach select""".split())
_CASTS = frozenset({"double", "float", "half", "bfloat16", "long", "int", "to"})  # data only
_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "argmax", "argmin", "prod", "all",
                         "var", "std"})
# run on the MaskedTensor itself (they describe it or drive autograd)
_DIRECT = frozenset({"requires_grad_", "backward", "retain_grad", "register_hook",
                     "is_floating_point", "is_complex", "element_size", "type"})


class MaskedTensor(Tensor):
    """A tensor whose elements where ``mask`` is False are left out; see the module text."""

    __slots__ = ("_mmask",)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return _dispatch(func, args, kwargs or {})

    def get_data(self):
        """The data tensor (masked-out entries included), in this tensor's graph."""
        return _plain(self)

    def get_mask(self):
        """The boolean mask."""
        return self._mmask

    def to_tensor(self, value):
        """A plain tensor: the data with ``value`` where the mask is False."""
        with _torch_function.DisableTorchFunctionSubclass():
            return _plain(self).masked_fill(~self._mmask, value)

    def __repr__(self):
        return masked_repr(self._array, self._mmask._array)

    __str__ = __repr__

    @property
    def grad(self):
        g = self._grad
        return None if g is None else _wrap(g, self._mmask)

    @grad.setter
    def grad(self, value):
        self._grad = _plain(value) if isinstance(value, MaskedTensor) else value


def _wrap(plain, mask):
    warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)  # torch warns at every new one
    t = _new(MaskedTensor)
    t._array = plain._array
    t._requires_grad = plain._requires_grad
    t._grad = None
    t._grad_fn = plain._grad_fn
    t._output_nr = plain._output_nr
    t._vc = plain._vc
    t._base = t._accum = t._extra = None
    t._mmask = mask
    return t


def _plain(t):
    """A plain tensor standing for ``t``'s data in autograd (a leaf's gradient still
    accumulates into ``t``)."""
    if not isinstance(t, MaskedTensor):
        return t
    p = _make(t._array)
    p._vc = t._vc
    if t._grad_fn is not None:
        p._requires_grad, p._grad_fn, p._output_nr = True, t._grad_fn, t._output_nr
    elif t._requires_grad:
        p._requires_grad = True
        p._accum = accumulator(t)
    return p


def _check_mask(data, mask):
    _torch_function._install_functions()  # (again after a test's uninstall: cheap when in place)
    if not isinstance(data, Tensor) or not isinstance(mask, Tensor):
        raise TypeError("data and mask must be Tensors.")
    if mask.dtype.__repr__() != "torch.bool":
        raise TypeError("mask must have dtype bool.")
    if data.dim() != mask.dim():
        raise ValueError("data.dim() must equal mask.dim()")
    if tuple(data.shape) != tuple(mask.shape):
        raise ValueError("data.size() must equal mask.size()")


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor of a copy of ``data`` (a leaf) and ``mask``."""
    _check_mask(data, mask)
    with _torch_function.DisableTorchFunctionSubclass():
        t = _wrap(_plain(data).detach().clone(), _plain(mask).clone())
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_masked_tensor(data, mask):
    """A MaskedTensor over ``data`` itself (its graph kept) and ``mask``."""
    _check_mask(data, mask)
    return _wrap(_plain(data), _plain(mask))


def _reduce(name, args, kwargs):
    x = args[0]
    for k in kwargs:  # (torch's prototype reads its arguments as (input, dim, keepdim, dtype))
        if k not in ("dim", "keepdim", "dtype"):
            raise TypeError(f"_reduce_dim_args() got an unexpected keyword argument '{k}'")
    if kwargs and len(args) < 2 and "dim" not in kwargs:
        raise TypeError("_reduce_dim_args() missing 1 required positional argument: 'dim'")
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    data, mask = _plain(x), x._mmask
    if name == "all":
        filled = data | ~mask
        out = filled.all() if dim is None else filled.all(dim, keepdim=keepdim)
    else:
        fn = getattr(_reductions, name)
        out = fn(data, dim, keepdim=keepdim, mask=mask)
        if name in ("argmax", "argmin"):  # the prototype gives indices in the data's dtype
            out = out.to(data.dtype)
        elif name in ("sum", "mean") and data.requires_grad:
            # torch's prototype differentiates these as the unmasked sum (mean: divided by
            # the kept count): every data entry gets the gradient. A zero-valued term that
            # carries exactly that gradient; the value stays the masked one.
            zero = data - data.detach()
            zero = zero.sum() if dim is None else zero.sum(dim, keepdim=keepdim)
            if name == "mean":
                zero = zero / (mask.sum() if dim is None else mask.sum(dim, keepdim=keepdim))
            out = out.detach() + zero
    kept = mask.any() if dim is None else mask.any(dim, keepdim=keepdim)
    return _wrap(out, kept)


def _where(cond, x, y):
    """``torch.where(cond, x, y)`` with a MaskedTensor operand: the data chosen as for plain
    tensors, and each element's mask from the operand it came from (a plain operand's
    elements are all kept)."""
    import numtorch

    cond = _plain(cond) if isinstance(cond, MaskedTensor) else cond

    def parts(v):
        if isinstance(v, MaskedTensor):
            return _plain(v), v._mmask
        return v, True

    (dx, mx), (dy, my) = parts(x), parts(y)
    data = numtorch.where(cond, dx, dy)
    mask = numtorch.where(cond, mx if isinstance(mx, Tensor) else numtorch.tensor(True),
                          my if isinstance(my, Tensor) else numtorch.tensor(True))
    return _wrap(data, mask.expand(data.shape).clone())


def _in_place(func, args, kwargs):
    """An in-place elementwise op on a masked tensor (``x.add_(1)``, ``x.abs_()``): on the
    data, the mask kept; masked operands must share ``x``'s mask."""
    x = args[0]
    for a in args[1:]:
        if isinstance(a, MaskedTensor) and (tuple(a._mmask.shape) != tuple(x._mmask.shape) or
                                            not bool((a._mmask == x._mmask).all())):
            raise ValueError(_MASKS_DIFFER)
    p = _plain(x)
    func(p, *[_plain(a) for a in args[1:]], **kwargs)
    x._array, x._grad_fn, x._output_nr = p._array, p._grad_fn, p._output_nr
    x._requires_grad = p._requires_grad
    return x


def _to_python(name, x):
    """``x.item()`` (float(x), int(x), bool(x)) of a masked tensor: the one element's value
    where it is not masked out, torch's errors otherwise; ``tolist``/``numpy``: torch's
    refusals for tensor subclasses."""
    if name == "tolist":
        raise RuntimeError(".tolist() is not supported for tensor subclasses, got MaskedTensor")
    if name == "numpy":
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")
    n = x._array.size
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    if not bool(x._mmask._array.reshape(-1)[0]):
        raise ValueError("__torch_dispatch__, aten._local_scalar_dense: expected a mask tensor")
    return _plain(x).item()


def _dispatch(func, args, kwargs):
    name = getattr(func, "__name__", "")
    with _torch_function.DisableTorchFunctionSubclass():
        if name in _DIRECT:
            return func(*args, **kwargs)
        if name in _REDUCTIONS and args and isinstance(args[0], MaskedTensor):
            return _reduce(name, args, kwargs)
        if name == "softmax":
            x = args[0]
            dim = args[1] if len(args) > 1 else kwargs.get("dim")
            return _wrap(_normalizations.softmax(_plain(x), dim, mask=x._mmask), x._mmask)
        if name == "where" and len(args) == 3 and not kwargs:
            return _where(*args)
        if name in _SHAPE and args and isinstance(args[0], MaskedTensor):
            rest = args[1:]
            return _wrap(func(_plain(args[0]), *rest, **kwargs), func(args[0]._mmask, *rest,
                                                                      **kwargs))
        if name in _CASTS and args and isinstance(args[0], MaskedTensor):
            return _wrap(func(_plain(args[0]), *args[1:], **kwargs), args[0]._mmask)
        if name in ("item", "tolist", "numpy") and args and isinstance(args[0], MaskedTensor):
            return _to_python(name, args[0])
        if name in ("cat", "concat", "concatenate", "stack") and args and \
                isinstance(args[0], (list, tuple)) and \
                all(isinstance(a, MaskedTensor) for a in args[0]) and args[0]:
            rest = args[1:]
            return _wrap(func([_plain(a) for a in args[0]], *rest, **kwargs),
                         func([a._mmask for a in args[0]], *rest, **kwargs))
        if name.endswith("_") and (name[:-1] in _UNARY or name[:-1] in _BINARY) and args and \
                isinstance(args[0], MaskedTensor):
            return _in_place(func, args, kwargs)
        masks = [a._mmask for a in args if isinstance(a, MaskedTensor)]
        if name in _UNARY or name in _BINARY:
            for m in masks[1:]:
                if tuple(m.shape) != tuple(masks[0].shape) or not bool((m == masks[0]).all()):
                    raise ValueError(_MASKS_DIFFER)
            out = func(*[_plain(a) for a in args], **kwargs)
            return _wrap(out, masks[0])
        # no rule: numtorch's dispatch raises torch's TypeError (an operator: Python's own)
        return NotImplemented


_torch_function.install(MaskedTensor)
