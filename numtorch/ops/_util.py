"""Small argument helpers shared by the op families (dims, shapes, scalars)."""

import os
import sys

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd._pointwise_layout import pointwise_result


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_stacklevel(depth=1):
    """The ``warnings.warn`` stack level, counted from the function ``depth`` frames above
    this call, of the first frame outside numtorch: torch's warnings name the user's line,
    however many numtorch frames (methods, aliases, in-place machinery) lie between."""
    frame, level = sys._getframe(depth + 1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_ROOT):
        frame, level = frame.f_back, level + 1
    return level


_WRAPPERS = ("call", "wrapper", "wrapped", "inner", "fn", "f", "method")


def _entry_call():
    """The outermost numtorch frame of the current call that names the function or method the
    user called (past the thin wrappers around it), and the user's frame that called into
    numtorch; either may be None."""
    frame, inside = sys._getframe(1), []
    while frame is not None and frame.f_code.co_filename.startswith(_ROOT):
        inside.append(frame)
        frame = frame.f_back
    for entry in reversed(inside):
        name = entry.f_code.co_name
        if not name.startswith(("_", "<")) and name not in _WRAPPERS:
            return entry, frame
    return None, frame


def _written(entry, caller):
    """(positional values, (name, value) keywords) of the program's call of ``entry`` (the
    function's frame) as written in ``caller``, read from the caller's bytecode; None when
    that cannot be read."""
    from .. import _generator_args as ga

    if entry is None or caller is None:
        return None
    try:
        site = ga._written_call(caller)
    except Exception:  # noqa: BLE001 - an unfamiliar bytecode layout: no reading
        return None
    if site is None:
        return None
    npos, names = site
    code, local = entry.f_code, entry.f_locals
    values = [local[p] for p in code.co_varnames[:code.co_argcount] if p != "self"]
    if npos > len(values):
        return None
    return values[:npos], [(k, local.get(k)) for k in names]


def _passed_by_keyword(entry, caller, name):
    """Whether the program's call passes ``name`` as a keyword."""
    written = _written(entry, caller)
    return written is not None and any(k == name for k, _ in written[1])


def invalid_combination(overloads, method_overloads):
    """torch's parser TypeError for a call no overload of the function the program called
    takes: "<fn>() received an invalid combination of arguments - got (<types>), but expected
    one of:" and the overloads (``method_overloads`` for the Tensor method form). Only ever
    called on the error path (it reads the call stack)."""
    from .. import _generator_args as ga

    entry, caller = _entry_call()
    fn = entry.f_code.co_name if entry is not None else "function"
    method = _is_method(entry)
    written = _written(entry, caller)
    if written is None:
        got = "(...)"
    else:
        positional, keywords = written
        got = ga._got(positional, list(reversed(keywords)))
    listing = method_overloads if method else overloads
    return TypeError(f"{fn}() received an invalid combination of arguments - got {got}, but "
                     f"expected one of:\n" + "".join(f" * {o}\n" for o in listing))


def _is_method(entry):
    return entry is not None and os.path.basename(entry.f_code.co_filename).startswith("_tensor")


def arg_type_error(value, name="dim", expected="int", fn=None, index=1):
    """torch's parser TypeError for argument ``name`` given a ``value`` of the wrong type:
    ``<fn>(): argument 'dim' (position 1) must be int, not tuple``.

    Without ``fn`` it is the name of the function or method the user called; the position is
    the argument's place in that call (``index`` after a tensor method's self, one more after
    a function's input), left out when the user passed the argument by keyword, as torch's
    parser does.
    Only ever called on the error path (it reads the call stack).
    """
    entry, caller = _entry_call()
    if fn is None:
        fn = entry.f_code.co_name if entry is not None else "function"
    where = ""
    if not _passed_by_keyword(entry, caller, name):
        where = f" (position {index if _is_method(entry) else index + 1})"
    return TypeError(f"{fn}(): argument '{name}'{where} must be {expected}, not "
                     f"{type(value).__name__}")


_PY_DTYPES = (float, int, bool, complex)  # (the Python types torch's parser reads as dtypes)


def check_dtype(dtype, overloads=None, dim_given=True, fn=None):
    """torch's parser TypeError for a ``dtype=`` that is no torch.dtype (a string, a NumPy
    type): "<fn>(): argument 'dtype' must be torch.dtype, not str", or, for a function whose
    overloads differ by ``dim`` called without one, its "invalid combination" listing
    (``overloads``: (function forms, method forms), as for :func:`invalid_combination`)."""
    if dtype is None or type(dtype) is _dtype.dtype or any(dtype is t for t in _PY_DTYPES):
        return
    if overloads is not None and not dim_given:
        raise invalid_combination(*overloads)
    from .._generator_args import type_name

    if fn is None:
        entry, _ = _entry_call()
        fn = entry.f_code.co_name if entry is not None else "function"
    raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {type_name(dtype)}")


def canonical_dim(dim, ndim, name="dim", index=1):
    """Map a possibly negative ``dim`` into ``[0, ndim)``; torch's IndexError otherwise
    (torch's TypeError for a dim that is not an int, naming argument ``name`` at place
    ``index`` of the method form)."""
    n = max(ndim, 1)  # torch lets 0-d tensors use dim 0 and -1
    if type(dim) is not int:
        if isinstance(dim, Tensor) or not isinstance(dim, (int, np.integer)) or \
                isinstance(dim, (bool, np.bool_)):
            dim = as_index(dim)
            if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)):
                raise arg_type_error(dim, name, index=index)
        dim = int(dim)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def no_dims_error(dim):
    """torch's IndexError for a dim-taking op that needs a dimension on a 0-d tensor."""
    return IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def canonical_dims(dims, ndim):
    """Canonicalise an int, a sequence of ints or None (all dims) into a sorted tuple."""
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, Tensor):
        dims = as_index(dims)  # (a one-element integer tensor reads as its number)
    if isinstance(dims, (int, np.integer)):
        dims = (int(dims),)
    given = []
    for k, d in enumerate(dims):
        v = _int_like(d, k > 0, True)
        if v is None:  # a float dim is refused by torch's parser, never truncated
            raise TypeError(f"dim must be an int or a tuple of ints, not "
                            f"{type(d).__name__} (in {tuple(dims)!r})")
        given.append(canonical_dim(v, ndim))
    if len(set(given)) != len(given):
        dup = next(d for k, d in enumerate(given) if d in given[:k])
        raise RuntimeError(f"dim {dup} appears multiple times in the list of dims")
    out = tuple(sorted(given))
    if ndim == 0:
        return ()
    return out


def as_index(value):
    """``value``, or the number of an integer tensor of one element (torch's parser reads such
    a tensor as an int argument: ``x.topk(k)`` with ``k = mask.sum()``)."""
    if isinstance(value, Tensor) and value.dtype._category == _dtype._INT and \
            value.numel() == 1:
        return int(value.item())
    if isinstance(value, np.integer):  # (a NumPy int reads as an int: x.chunk(np.int64(2)))
        return int(value)
    return value


def as_real(value):
    """``value``, or the number of a real tensor of one element (read as a float argument)."""
    if isinstance(value, Tensor) and value.dtype._category in (_dtype._INT, _dtype._FLOAT) \
            and value.numel() == 1:
        return value.item()
    return value


def check_int(fn, name, value, position=None):
    """torch's parser takes only an integer for int arguments (a float is a TypeError, not
    truncated); ``position`` is the argument's place in the method form."""
    if isinstance(value, Tensor) and value.dtype._category == _dtype._INT and \
            value.numel() == 1:
        return int(value.item())  # (an integer tensor of one element reads as its number)
    if not isinstance(value, (int, np.integer)):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{fn}(): argument '{name}'{where} must be int, not "
                        f"{type(value).__name__}")
    return int(value)


def check_keepdim(fn, keepdim):
    """torch's parser takes only a bool for ``keepdim`` (``x.sum(1, 1)`` is a TypeError)."""
    if not isinstance(keepdim, (bool, np.bool_)):
        raise arg_type_error(keepdim, "keepdim", "bool", fn, index=2)


def refuse_dtype(input, kinds, kernel=None, message=None):
    """Raise torch's error when its CPU kernel has no version for ``input``'s dtype.

    ``kinds`` holds the refused categories ('c' complex, 'b' bool). torch words it either as
    NotImplementedError ``"<kernel>" not implemented for '<Type>'`` or as a RuntimeError
    ``message`` whose ``{}`` becomes 'complex' or 'bool'.
    """
    dt = input.dtype
    kind = "c" if dt._category == _dtype._COMPLEX else ("b" if dt is _dtype.bool else None)
    if kind is None or kind not in kinds:
        return
    if message is None:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    raise RuntimeError(message.format("complex" if kind == "c" else "bool"))


def fmt_shape(shape):
    """A shape as torch prints it in messages: ``[2, 3]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


# torch's message for a bool tensor read as a size entry
NOT_INTEGRAL = ("Expected scalar.isIntegral( false) to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)")


def _int_like(s, later=False, dims=False):
    """An int for a size entry torch accepts (Python/NumPy ints, one-element integer
    tensors), else None (floats, None, strings, bools are refused as torch's parser does).

    torch's parser checks the type of a list's first entry only: a Python bool is read as 0/1
    at a ``later`` position (``x.view(-1, True)``). A one-element bool tensor is a dim (``dims``)
    but never a size (RuntimeError).
    """
    if isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)):
        return int(s)
    if later and type(s) is bool:
        return int(s)
    if isinstance(s, Tensor) and s.numel() == 1:
        category = s.dtype._category
        if category == _dtype._INT:
            return int(s.item())
        if category == _dtype._BOOL:
            if not dims:
                raise RuntimeError(NOT_INTEGRAL)
            return int(s.item())
    return None


def shape_arg(shape, fn=None, arg="size"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size)`` shapes.

    A non-integer entry raises torch's TypeError for function ``fn``'s argument ``arg``.
    """
    given = shape
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    out = []
    for k, s in enumerate(shape):
        v = _int_like(s, k > 0, arg == "dims")
        if v is None:
            raise _shape_arg_error(given, shape, k, fn, arg)
        out.append(v)
    return tuple(out)


def _shape_arg_error(given, shape, k, fn, arg):
    """torch's TypeError for entry ``k`` of ``shape`` (from the arguments ``given``)."""
    from .._size import _type_name

    kind = _type_name(shape[k])
    if fn is None:
        return TypeError(f"expected a sequence of ints as a size, but got {shape!r}")
    wrapped = shape is not given
    single = len(given) == 1 and not wrapped
    if fn == "view" and (k == 0 or single):  # view's other overload takes a dtype
        got = ", ".join(_type_name(g) for g in given)
        if single or wrapped:
            names = ", ".join(_type_name(e) for e in shape) + ("," if len(shape) == 1 else "")
            bad = (f"list of [{names}]" if isinstance(shape, list) else f"tuple of ({names})") \
                if wrapped else got
            why = f"      didn't match because some of the arguments have invalid types: (!{bad}!)\n"
        else:
            why = ""
        return TypeError(f"view() received an invalid combination of arguments - got ({got}), "
                         f"but expected one of:\n * (torch.dtype dtype)\n{why} * (tuple of ints "
                         f"size)\n{why}")
    if single:
        return TypeError(f"{fn}(): argument '{arg}' (position 1) must be tuple of ints, not "
                         f"{kind}")
    if k == 0:  # torch's parser checks the first entry's type to pick the overload
        if wrapped:
            return TypeError(f"{fn}(): argument '{arg}' (position 1) must be tuple of ints, but "
                             f"found element of type {kind} at pos 0")
        return TypeError(f"{fn}() takes 1 positional argument but {len(given)} were given")
    return TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {k + 1} "
                     f"with error \"type must be tuple of ints,but got {kind}\"")


def contiguous_strides(shape):
    """Torch's strides (in elements) of a freshly allocated row-major tensor of ``shape``.

    Size-0 dims count as 1 here, which is why an empty ``(0, 3)`` tensor reports ``(3, 1)``.
    """
    strides = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= max(shape[i], 1)
    return tuple(strides)


def elem_strides(arr):
    """The strides of ``arr`` in elements (NumPy and CuPy give them in bytes)."""
    item = arr.itemsize
    return tuple(s // item for s in arr.strides)


def torch_stride(shape, strides):
    """Strides as torch reports them, from an array's element strides.

    Shape ops give their outputs torch's strides (see :func:`restride`), so these are the array's
    own strides, except that NumPy reports all-zero strides for a fresh empty array where torch
    has row-major ones.
    """
    if strides and not any(strides) and 0 in shape:
        return contiguous_strides(shape)
    return strides


def restride(xp, arr, strides):
    """A view of ``arr`` with ``strides`` (in bytes); they may differ only in size-1 dims.

    Size-1 dims never move through memory, so their stride is free; torch's value for it shows
    up in ``stride()`` and propagates to later views, so views set it the way torch does.
    """
    strides = tuple(strides)
    if arr.strides == strides:
        return arr
    if hasattr(arr, "restride"):  # a quantized tensor's array (numtorch/_quantized_array.py)
        return arr.restride(strides)
    from ..backend import helpers_for

    return helpers_for(xp).as_strided(arr, arr.shape, strides)


def view_strides(old_shape, old_strides, new_shape):
    """Strides of ``new_shape`` viewing memory laid out as ``old_shape``/``old_strides``.

    Torch's rule for ``view``: walk both shapes from the innermost dim, matching runs of dims
    that are contiguous with each other. Returns None when no view is possible. Strides may be
    in elements or in bytes (the result is in the same unit).
    """
    if not old_shape:
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_stride = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_stride = old_strides[d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def storage_offset(t):
    """Element offset of ``t``'s first element from the start of the memory it views."""
    arr = t._array
    if type(arr) is not np.ndarray:
        from .. import backend

        xp = backend.xp_of(arr)
        if backend.is_meta(arr):
            pass  # a NumPy view over no data: the walk below reads its offset
        elif xp is np:  # a quantized tensor's QArray: its integers are the storage
            arr = arr.ints
        else:
            helpers = backend.helpers_for(xp)
            return (helpers.address(arr) - helpers.address(helpers.storage_root(arr))) // \
                arr.itemsize
    # walk to the array that owns the memory; restrided views hang off as_strided's holder
    owner = arr
    base = arr.base
    while base is not None and hasattr(base, "__array_interface__"):
        owner = base
        base = getattr(base, "base", None)
    if owner is arr:
        return 0
    start = arr.__array_interface__["data"][0]
    return (start - owner.__array_interface__["data"][0]) // arr.itemsize


def row_major_result(t):
    """``t`` (a result the caller just made, shared with nobody) with its array row-major:
    for ops whose result torch allocates contiguous whatever the input's strides, where the
    NumPy expression behind them keeps the input's layout (a later ``.view`` must work as in
    torch). The contiguous case costs a flag test."""
    a = t._array
    if a.ndim > 1 and hasattr(a, "flags") and not a.flags.c_contiguous:
        t._array = a.copy(order="C")
    return t


def pointwise_layout_result(t, *operands):
    """``t`` (a result the caller just made, shared with nobody) laid out as torch lays out
    one elementwise op on ``operands`` (tensors or numbers, in torch's operand order): for
    composites such as addcmul, which torch computes in one pass over all three operands."""
    t._array = pointwise_result(t._array, [getattr(o, "_array", o) for o in operands])
    return t


def tensor_from_array(arr):
    """Wrap an xp array (no copy)."""
    return _make(arr)


def as_tensor_like(value, like):
    """A Python number or array-like as a tensor on ``like``'s device (no grad)."""
    if isinstance(value, Tensor):
        return value
    dt = _dtype.result_type(value)
    xp = np if type(like._array) is np.ndarray else __import__("numtorch").backend.xp_of(
        like._array)
    return _make(xp.asarray(value, dtype=dt.np))


def is_tensor(x):
    """True when ``x`` is a numtorch Tensor."""
    return isinstance(x, Tensor)
