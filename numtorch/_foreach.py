"""``torch._foreach_*``: one operation over lists of tensors (EMA updates, hand-written
optimizers and gradient clipping call them directly).

Each is the per-tensor operation applied to every tensor of the list (with autograd, as the
single op), the second operand a number, a list of numbers, a 0-d tensor or a list of
tensors; torch's list checks come first. Out-of-place forms return a tuple, in-place forms
(trailing ``_``) the list they were given."""

import builtins
import numbers

from . import _dtype, _tensor

Tensor = _tensor.Tensor

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
# name -> Tensor method; the ones taking alpha= with tensor operands
_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "pow",
           "maximum": "maximum", "minimum": "minimum", "clamp_min": "clamp_min",
           "clamp_max": "clamp_max"}
_ALPHA = ("add", "sub")


def _tensors(name, xs):
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)) or not builtins.all(
            isinstance(x, Tensor) for x in xs):
        got = type(xs).__name__ if not isinstance(xs, (list, tuple)) else \
            f"{type(xs).__name__} of [{', '.join(type(x).__name__ for x in xs)}]"
        raise TypeError(f"_foreach_{name}() received an invalid combination of arguments - "
                        f"got ({got}, ...), but expected a list or tuple of Tensors as its "
                        "first argument")
    if not xs:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return xs


def _same_length(xs, others):
    if len(others) != len(xs):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(xs)} and {len(others)}")


def _per_tensor(name, xs, other):
    """``other`` as one operand per tensor of ``xs``."""
    if isinstance(other, (list, tuple)):
        if other and builtins.all(isinstance(o, Tensor) for o in other):
            _same_length(xs, other)
            return list(other)
        if builtins.all(isinstance(o, numbers.Number) for o in other):
            if len(other) != len(xs):
                raise RuntimeError("Tensor list must have same number of elements as scalar "
                                   "list.")
            return list(other)
        if builtins.all(isinstance(o, (Tensor, numbers.Number)) for o in other):
            _same_length(xs, other)  # lerp's weights may mix 0-d tensors and numbers
            return list(other)
        raise TypeError(f"_foreach_{name}(): the second argument must be a number, a list of "
                        "numbers, a Tensor or a list of Tensors")
    if isinstance(other, Tensor):
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                               f"dimensions and {other.numel()} elements.")
        return [other] * len(xs)
    if isinstance(other, numbers.Number):
        return [other] * len(xs)
    raise TypeError(f"_foreach_{name}() received an invalid combination of arguments - got "
                    f"(list, {type(other).__name__})")


def _unary(name):
    def out_of_place(self):
        return tuple(getattr(x, name)() for x in _tensors(name, self))

    def in_place(self):
        for x in _tensors(name + "_", self):
            getattr(x, name + "_")()
        return self

    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    out_of_place.__doc__ = f"``x.{name}()`` for every tensor ``x`` of the list (a tuple)."
    in_place.__doc__ = f"``x.{name}_()`` for every tensor ``x`` of the list."
    return out_of_place, in_place


def _binary(name, method):
    takes_alpha = name in _ALPHA

    def run(xs, other, alpha, inplace):
        xs = _tensors(name + ("_" if inplace else ""), xs)
        if name == "sub" and alpha != 1 and isinstance(other, Tensor):
            # torch has (list, Tensor, alpha) for add only
            raise TypeError("_foreach_sub(): argument 'other' (position 2) must be tuple of "
                            "Tensors, not Tensor")
        others = _per_tensor(name, xs, other)
        if name in _EXTREMA:
            return [_extremum(name, x, o, inplace) for x, o in zip(xs, others)]
        m = method + ("_" if inplace else "")
        kw = {"alpha": alpha} if alpha != 1 else {}
        if name == "mul" and inplace:
            others = [_mul_scalar(x, o) for x, o in zip(xs, others)]
        return [getattr(x, m)(o, **kw) for x, o in zip(xs, others)]

    if takes_alpha:
        def out_of_place(self, other, *, alpha=1):
            return tuple(run(self, other, alpha, False))

        def in_place(self, other, *, alpha=1):
            run(self, other, alpha, True)
            return self
    else:
        def out_of_place(self, other):
            if name == "pow" and isinstance(self, numbers.Number):  # a number to each power
                return tuple(Tensor.__rpow__(x, self) for x in _tensors(name, other))
            return tuple(run(self, other, 1, False))

        def in_place(self, other):
            run(self, other, 1, True)
            return self

    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    out_of_place.__doc__ = (f"``x.{method}(o)`` for every tensor ``x`` of the list, ``o`` a "
                            "number, one number or tensor per ``x``, or a 0-d tensor.")
    in_place.__doc__ = f"In-place ``_foreach_{name}``."
    return out_of_place, in_place


def _mul_scalar(x, o):
    """torch's in-place CPU ``_foreach_mul_`` rounds a number factor to a float16/bfloat16
    tensor's own dtype before multiplying (the single ``mul_``, the out-of-place
    ``_foreach_mul`` and a 0-d tensor factor compute with it in float32)."""
    if type(o) is float and x.dtype in (_dtype.float16, _dtype.bfloat16) and \
            x.device.type == "cpu":
        return float(x.dtype.np.type(o))
    return o


_EXTREMA = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _extremum(name, x, o, inplace):
    # a number bounds like clamp_min/max (NaN in x stays); a tensor goes through
    # maximum/minimum, which have no in-place method
    if not isinstance(o, Tensor):
        return getattr(x, _EXTREMA[name] + ("_" if inplace else ""))(o)
    r = getattr(x, name)(o)
    return x.copy_(r) if inplace else r


def _ternary(name):
    def run(self, a, b, value, inplace):
        xs = _tensors(name + ("_" if inplace else ""), self)
        a_s, b_s = _per_tensor(name, xs, a), _per_tensor(name, xs, b)
        if isinstance(value, Tensor) and value.dim() == 1:  # one scalar per tensor
            if value.numel() != len(xs):
                raise RuntimeError("Tensor list must have same number of elements as scalar "
                                   "list.")
            values = value.tolist()
        else:
            values = _per_tensor(name, xs, value)
        m = name + ("_" if inplace else "")
        return [getattr(x, m)(p, q, value=v) for x, p, q, v in zip(xs, a_s, b_s, values)]

    def scalars(call, args, kwargs):
        # torch: a number as the 4th argument or value=; a list of numbers or a 1-d tensor of
        # them only as the 4th argument (or scalars=)
        if len(args) > 1 or set(kwargs) - {"value", "scalars"} or (args and kwargs):
            raise TypeError(f"{call}() received an invalid combination of arguments")
        if "value" in kwargs and not isinstance(kwargs["value"], numbers.Number):
            raise TypeError(f"{call}() received an invalid combination of arguments - got "
                            f"(list, list, list, value={type(kwargs['value']).__name__}), "
                            "but expected value to be a Number")
        if "scalars" in kwargs and isinstance(kwargs["scalars"], numbers.Number):
            raise TypeError(f"{call}() received an invalid combination of arguments")
        return args[0] if args else kwargs.get("value", kwargs.get("scalars", 1))

    def out_of_place(self, tensor1, tensor2, *args, **kwargs):
        value = scalars(f"_foreach_{name}", args, kwargs)
        return tuple(run(self, tensor1, tensor2, value, False))

    def in_place(self, tensor1, tensor2, *args, **kwargs):
        value = scalars(f"_foreach_{name}_", args, kwargs)
        run(self, tensor1, tensor2, value, True)
        return self

    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    out_of_place.__doc__ = f"``x.{name}(t1, t2, value=v)`` for every ``x`` of the list."
    in_place.__doc__ = f"In-place ``_foreach_{name}``."
    return out_of_place, in_place


def _foreach_lerp(self, tensors1, weight):
    """``x.lerp(e, w)`` for every ``x`` of the list (a tuple)."""
    xs = _tensors("lerp", self)
    ends, ws = _per_tensor("lerp", xs, tensors1), _per_tensor("lerp", xs, weight)
    return tuple(x.lerp(e, w) for x, e, w in zip(xs, ends, ws))


def _foreach_lerp_(self, tensors1, weight):
    """In-place ``_foreach_lerp``."""
    xs = _tensors("lerp_", self)
    ends, ws = _per_tensor("lerp_", xs, tensors1), _per_tensor("lerp_", xs, weight)
    for x, e, w in zip(xs, ends, ws):
        x.lerp_(e, w)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of every tensor of the list (a tuple of 0-d tensors)."""
    from .linalg import vector_norm

    return tuple(vector_norm(x, ord, dtype=dtype) for x in _tensors("norm", self))


def _foreach_powsum(self, ord=2, dtype=None):
    """``sum(|x| ** ord)`` of every tensor of the list (a tuple of 0-d tensors)."""
    xs = _tensors("powsum", self)
    out = []
    for x in xs:
        a = x.abs()
        if dtype is not None:
            a = a.to(dtype)
        out.append(a.pow(ord).sum())
    return tuple(out)


def _foreach_max(self):
    """The largest value of every tensor of the list (a tuple of 0-d tensors)."""
    return tuple(x.max() for x in _tensors("max", self))


def _foreach_clone(self, *, memory_format=None):
    """A clone of every tensor of the list (a tuple)."""
    kw = {} if memory_format is None else {"memory_format": memory_format}
    return tuple(x.clone(**kw) for x in _tensors("clone", self))


def _foreach_mm(self, mat2):
    """``x @ m`` for each pair of matrices of the two lists (a tuple)."""
    xs = _tensors("mm", self)
    ms = _tensors("mm", mat2)
    _same_length(xs, ms)
    return tuple(x.mm(m) for x, m in zip(xs, ms))


def _foreach_copy_(self, src, non_blocking=False):
    """``x.copy_(s)`` for each pair of the two lists."""
    xs = _tensors("copy_", self)
    ss = _tensors("copy_", src)
    _same_length(xs, ss)
    for x, s in zip(xs, ss):
        x.copy_(s, non_blocking=non_blocking)
    return self


def _foreach_zero_(self):
    """``x.zero_()`` for every tensor of the list."""
    for x in _tensors("zero_", self):
        x.zero_()
    return self


def _build():
    table = {}
    for name in _UNARY:
        table[f"_foreach_{name}"], table[f"_foreach_{name}_"] = _unary(name)
    for name, method in _BINARY.items():
        table[f"_foreach_{name}"], table[f"_foreach_{name}_"] = _binary(name, method)
    for name in ("addcmul", "addcdiv"):
        table[f"_foreach_{name}"], table[f"_foreach_{name}_"] = _ternary(name)
    for fn in (_foreach_lerp, _foreach_lerp_, _foreach_norm, _foreach_powsum, _foreach_max,
               _foreach_clone, _foreach_mm, _foreach_copy_, _foreach_zero_):
        table[fn.__name__] = fn
    return table


FUNCTIONS = _build()
__all__ = [*sorted(FUNCTIONS)]  # noqa: PLE0604 - the names are made above
globals().update(FUNCTIONS)
