"""Helpers shared by the pointwise op families (elementwise, unary, comparison, special, ...).

They raise torch's errors for bad arguments and broadcasting, build the simple unary
functions, and honour ``out=``; none of them is an op.
"""

import warnings

import numpy as np

from .. import _dtype
from .._sparse import ZERO_PRESERVING, SparseCOO, map_values
from .._tensor import Tensor, _make
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.inplace import apply_inplace, memory_owner
from ..backend import xp_of as backend_xp
from ._util import _entry_call, _is_method, user_stacklevel

_NUMBER = (int, float, bool, complex, np.generic)


def _broadcast_error(exc, *arrays):
    """Raise torch's error when ``arrays`` do not broadcast together; else re-raise ``exc``.

    Binary ops call this from ``except ValueError`` around their NumPy call, so the check costs
    nothing unless NumPy has already failed. Like torch, the shapes are joined left to right
    and the message names the rightmost clashing dimension of the broadcast result.
    """
    shape = ()
    for arr in arrays:
        s = getattr(arr, "shape", ())
        n = len(shape) if len(shape) > len(s) else len(s)
        a = (1,) * (n - len(shape)) + tuple(shape)
        b = (1,) * (n - len(s)) + tuple(s)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor "
                                   f"b ({b[i]}) at non-singleton dimension {i}") from None
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    raise exc


def _not_implemented(kernel, dt):
    """torch's error for a kernel that has no version for dtype ``dt`` (a NumPy dtype)."""
    name = _dtype._TYPE_DISPLAY.get(dt.name, dt.name)
    return NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _cj(t):
    """``t.conj()`` for a complex tensor, else ``t`` itself.

    For complex inputs torch's chain rule multiplies the incoming gradient by the *conjugate*
    derivative (dL/dz = grad * conj(f'(z)) for a complex-differentiable f), so backward passes
    wrap each derivative factor in this.
    """
    return t.conj() if t._array.dtype.kind == "c" else t


def _zeros_like(t):
    """Constant zeros shaped like ``t`` (a zero derivative; nothing to differentiate)."""
    return _make(backend_xp(t._array).zeros(t._array.shape, t._array.dtype))


def type_name(x):
    """The name of ``x``'s type as CPython prints it in torch's argument errors: bare for
    builtins and classes written in Python, dotted for extension types (``numpy.ndarray``),
    ``torch.`` for numtorch's own."""
    t = type(x)
    if t.__module__ == "builtins":
        return t.__name__
    if t.__module__.split(".")[0] == "numtorch":
        return f"torch.{t.__name__}"
    if t.__flags__ & (1 << 9) and ("__dict__" in vars(t) or "__slots__" in vars(t)):
        return t.__name__  # a class statement's type: its C name is the bare name
    return f"{t.__module__.split('.')[0]}.{t.__name__}"


def _check_number_or_tensor(fn, x, name="other", pos=2):
    if not isinstance(x, Tensor) and not isinstance(x, _NUMBER):
        if pos == 2:
            raise _operand_error(fn, x, name)
        raise TypeError(f"{fn}(): argument '{name}' (position {_place(pos)}) must be Tensor, "
                        f"not {type_name(x)}")


# torch's parser forms of the binary ops whose operand may be a Tensor or a Number: a wrong or
# missing operand gets its "invalid combination" listing. (method forms, function forms);
# "{n}" is the operand's name; None: a wrong type gets "argument ... must be Tensor"
_T, _N = "Tensor", "Number"
_PAIR = ([f"({_T} {{n}})", f"({_N} {{n}})"],
         [f"(Tensor input, {k} {{n}}, *, Tensor out = None)" for k in (_T, _N)])
_SELF3 = ([f"({_T} {{n}})", f"({_N} {{n}})"],
          ["(Tensor input, Tensor {n}, *, Tensor out = None)", "(Number self, Tensor {n})",
           "(Tensor input, Number {n}, *, Tensor out = None)"])
_OPERAND_FORMS = {
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                     "less_equal", "not_equal", "fmod"), _PAIR),
    **dict.fromkeys(("remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
                     "bitwise_left_shift", "bitwise_right_shift"), _SELF3),
    **dict.fromkeys(("pow", "float_power"), (
        _PAIR[0], ["(Tensor input, Tensor {n}, *, Tensor out = None)",
                   "(Number self, Tensor {n}, *, Tensor out = None)",
                   "(Tensor input, Number {n}, *, Tensor out = None)"])),
}
# forms used only for a missing operand (a wrong type gets "argument ... must be Tensor")
_MISSING_FORMS = {
    **dict.fromkeys(("add", "sub", "subtract"), (
        ["(Tensor other, *, Number alpha = 1)"],
        ["(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"])),
    **dict.fromkeys(("div", "divide"), (
        ["(Tensor other)", "(Tensor other, *, str rounding_mode)",
         "(Number other, *, str rounding_mode)"],
        ["(Tensor input, Tensor other, *, Tensor out = None)",
         "(Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)",
         "(Tensor input, Number other, *, str rounding_mode)"])),
    **dict.fromkeys(("true_divide", "floor_divide"), (
        _PAIR[0], ["(Tensor input, Tensor other, *, Tensor out = None)",
                   "(Tensor input, Number other)"])),
}


def _operand_error(fn, x, name):
    """torch's TypeError for a binary op's ``other`` (or ``exponent``) operand ``x`` that is no
    Tensor or Number, or missing (the ``missing_arg`` default of the tensor methods): the
    parser's "invalid combination" listing where torch has a Number form of the op, "missing 1
    required positional arguments" or "argument ... must be Tensor" otherwise, naming the
    function or method (in-place or alias) the program called. Error path only."""
    from .. import _generator_args as ga
    from .._required_dim import missing_arg

    entry, caller = _entry_call()
    method = _is_method(entry)
    called = entry.f_code.co_name if entry is not None and method else fn
    missing = x is missing_arg
    key = called[:-1] if method and called.endswith("_") else called
    forms = _OPERAND_FORMS.get(key) or (_MISSING_FORMS.get(key) if missing else None)
    if forms is None:
        if missing:
            return TypeError(f'{called}() missing 1 required positional arguments: "{name}"')
        where = f" (position {1 if method else 2})"
        return TypeError(f"{called}(): argument '{name}'{where} must be Tensor, not "
                         f"{type_name(x)}")
    site = None
    if caller is not None:
        try:
            site = ga._written_call(caller)
        except Exception:  # noqa: BLE001 - an unfamiliar bytecode layout: no reading
            site = None
    npos, names = site if site is not None else (0 if missing else 1, ())
    values = [] if method else ["Tensor"]
    if not missing:
        values.append(type_name(x))
    pos = values[:npos] if npos <= len(values) else values + ["?"] * (npos - len(values))
    kws = [f"{k}={type_name(x) if k == name else 'Tensor'}" for k in names]
    got = "(" + ", ".join(pos + kws) + ")" if pos else "(" + "".join(k + ", " for k in kws) + ")"
    listing = [f.format(n=name) for f in forms[0 if method else 1]]
    if len(listing) == 1:
        return TypeError(f"{called}() received an invalid combination of arguments - got {got}, "
                         f"but expected {listing[0]}")
    lines = []
    if names:  # (a keyword operand: torch marks it as written)
        bad = "(" + "".join(f"!{k}!, " for k in kws) + ")"
    elif isinstance(x, (list, tuple)) and x and len({type(v) for v in x}) == 1:
        bad = f"(!{type_name(x)} of [{type_name(x[0])}]!)"  # torch's parser names the items
    else:
        bad = "(" + ", ".join(f"!{v}!" for v in pos) + ")"
    for form in listing:
        lines.append(f" * {form}")
        if not missing and (method and len(pos) + len(kws) == 1 or
                            not method and not names and form.startswith("(Number self")):
            lines.append(f"      didn't match because some of the arguments have invalid "
                         f"types: {bad}")
    return TypeError(f"{called}() received an invalid combination of arguments - got {got}, "
                     f"but expected one of:\n" + "\n".join(lines) + "\n")


def _check_tensor(fn, x, name="input", pos=1):
    if not isinstance(x, Tensor):
        from .._required_dim import missing_arg

        if x is missing_arg:
            raise _operand_error(fn, x, name)
        raise TypeError(f"{fn}(): argument '{name}' (position {_place(pos)}) must be Tensor, "
                        f"not {type_name(x)}")


def _place(pos):
    """An argument's position in the user's call: one less in a tensor method's call, where
    torch does not count self (``x.add("a")``: position 1). Error path only: reads the stack."""
    if pos > 1 and _is_method(_entry_call()[0]):
        return pos - 1
    return pos


def _is_float(x):
    if isinstance(x, Tensor):
        return x.dtype._category >= _dtype._FLOAT
    return isinstance(x, (float, complex))


def _out(result, out, name=None, exact=False, castable=None, over=()):
    """Honour torch's ``out=`` argument: write ``result`` into ``out`` (resized if empty).

    ``result`` may be a tuple (or return type) of tensors with ``out`` a sequence of as many;
    then the return value is the same kind of tuple holding the ``out`` tensors, as torch's
    (a return type becomes its ``<name>_out`` twin, as torch's does). Every op family uses
    this one helper (``name`` is the function named in the error). ``exact``: the op's kernel
    writes only its result's dtype (matrix products, most of linalg), so torch refuses an
    ``out`` of any other dtype instead of casting into it; a string is the op's own message,
    with ``{want}`` and ``{got}`` for the dtypes' display names (``{want_c}``/``{got_c}``
    for their C++ names). ``castable``: the op's name in torch's "Expected result to be safely
    castable" error for an ``out`` of a lower dtype category (those ops cast otherwise).
    ``over``: the op's operands, refused (as torch's elementwise kernels refuse them) when
    their memory overlaps ``out``'s other than element for element.
    """
    if out is None:
        return result
    if isinstance(result, tuple):
        from .. import return_types

        kind = return_types.out_variant(type(result))
        return kind(tuple(_write_out(r, o, name, exact) for r, o in zip(result, out)))
    if over and type(out._array) is np.ndarray:
        refuse_out_overlap(out, over)
    return _write_out(result, out, name, exact, castable)


def check_out_dtype(out, dtype):
    """torch's refusal of an ``out=`` whose dtype is not the ``dtype=`` the program asked a
    reduction for (sum, mean, prod, cumsum, ...); nothing when either is None."""
    if out is None or dtype is None:
        return
    want = _dtype.as_dtype(dtype)
    if out.dtype is not want:
        cpp = _dtype._CPP_TYPE
        raise RuntimeError(f"Expected out tensor to have dtype {cpp[want.name]}, but got "
                           f"{cpp[out.dtype.name]} instead")


def refuse_out_overlap(out, operands):
    """torch's refusal of ``out=`` sharing memory with an operand in another layout (only
    views of ``out``'s memory, by version counter or owner, reach the geometry test)."""
    dst, vc = out._array, out._vc
    owner = memory_owner(dst)
    for v in operands:
        if isinstance(v, Tensor) and (src := v._array) is not dst and (v._vc is vc or type(
                src) is np.ndarray and (src.base is owner or src is owner)):
            from .inplace_writes import check_partial_overlap

            check_partial_overlap(dst, v._array)


def _write_out(result, out, name, exact=False, castable=None):
    if (result.requires_grad or out.requires_grad) and is_grad_enabled():
        node = result.grad_fn  # named after the op, not after torch's node
        fn = name or getattr(node, "_op_cls", type(node)).__name__.lower()
        raise RuntimeError(f"{fn}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires "
                           f"grad.")
    if castable and not _dtype.can_cast(result.dtype, out.dtype):
        show = _dtype._TYPE_DISPLAY
        raise RuntimeError(f"{castable}: Expected result to be safely castable from "
                           f"{show[result.dtype.name]} dtype, but got result with dtype "
                           f"{show[out.dtype.name]}")
    if exact and out.dtype is not result.dtype:
        if isinstance(exact, str):  # the op's own words: display names, or C++ ones (_c)
            show, cpp = _dtype._TYPE_DISPLAY, _dtype._CPP_TYPE
            raise RuntimeError(exact.format(
                want=show[result.dtype.name], got=show[out.dtype.name],
                want_c=cpp[result.dtype.name], got_c=cpp[out.dtype.name]))
        cpp = _dtype._CPP_TYPE
        raise RuntimeError(f"Expected out tensor to have dtype {cpp[result.dtype.name]}, but "
                           f"got {cpp[out.dtype.name]} instead")
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. This behavior is deprecated, and in a future "
                          f"PyTorch release outputs will not be resized unless they have zero "
                          f"elements. You can explicitly reuse an out tensor t by resizing it, "
                          f"inplace, to zero elements with t.resize_(0).", UserWarning,
                          stacklevel=user_stacklevel())
        ra = result._array
        if type(ra) is np.ndarray and type(out._array) is np.ndarray and ra.ndim > 1 and \
                not ra.flags.c_contiguous:
            # the result's memory order (an elementwise op on a transposed or channels-last
            # input): torch resizes ``out`` to the layout its kernel computes in
            out._array = np.empty_like(ra, dtype=out._array.dtype)
        else:
            xp = np if type(out._array) is np.ndarray else backend_xp(out._array)
            out._array = xp.empty(ra.shape, out._array.dtype)
    return apply_inplace(out, lambda _, r: r, result)


# unary ops whose out= must already have the result's dtype (torch's kernels for these keep
# the input's dtype and do not cast into another); the float-valued ones (exp, sin, ...) cast
SAME_DTYPE_OUT = "Found dtype {got} but expected {want}"
_SAME_DTYPE_UNARY = frozenset({"neg", "abs", "sign", "sgn", "floor", "ceil", "trunc", "frac",
                               "bitwise_not"})


def _unary(cls, name, summary):
    quantized = name == "tanh"  # the one generated function torch also runs on qtensors
    exact = SAME_DTYPE_OUT if name in _SAME_DTYPE_UNARY else False

    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            _check_tensor(name, input)
        elif input._array.__class__ is not np.ndarray:
            if quantized and out is None and input.is_quantized:
                from .._quantized_ops_float import quantized_dispatch

                return quantized_dispatch(name, input)
            if input._array.__class__ is SparseCOO and out is None and name in ZERO_PRESERVING:
                return map_values(input, name)
        r = cls.apply(input)
        if out is None:
            return r
        ex = exact
        if name == "abs" and r.dtype is not input.dtype:  # complex: the real result is cast
            if out.is_complex() and out.dtype is not input.dtype:
                show = _dtype._TYPE_DISPLAY
                raise RuntimeError(SAME_DTYPE_OUT.format(got=show[out.dtype.name],
                                                         want=show[input.dtype.name]))
            ex = False
        return _out(r, out, name, ex, over=(input,))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    Args:\n        input (Tensor): the input.\n"
                  f"        out (Tensor, optional): tensor to write the result into.\n\n"
                  f"    Returns:\n        Tensor: the elementwise result (integer inputs give "
                  f"the default float dtype\n        where the result is fractional, as in "
                  f"torch).\n")
    return fn
