"""Helpers for writing tests: ``assert_close`` and ``make_tensor``, as in ``torch.testing``.

``assert_close`` compares tensors, NumPy arrays, numbers and (nested) sequences and mappings of
them, with a tolerance that depends on the dtype; on failure it says how many elements differ
and by how much. ``make_tensor`` draws a tensor of a given shape and dtype from a bounded range.
"""

import cmath
import collections.abc
import math

import numpy as np

from .. import _dtype, _layout
from .._device import as_device
from .._size import Size
from .._tensor import Tensor
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# (rtol, atol) used when the caller gives neither; dtypes not listed (ints, bool) compare
# exactly. The values are torch's, so a test passes or fails the same way in both libraries.
_DEFAULT_TOLERANCES = {
    _dtype.float16: (1e-3, 1e-5),
    _dtype.bfloat16: (1.6e-2, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}

# Python numbers behave like the 64-bit dtype of their kind.
_NUMBER_DTYPES = {bool: _dtype.bool, int: _dtype.int64, float: _dtype.float64,
                  complex: _dtype.complex128}


class _Failure(Exception):
    """A comparison failed; ``cls`` is the exception type the user finally sees."""

    def __init__(self, cls, message):
        super().__init__(message)
        self.cls = cls
        self.message = message


def _default_tolerances(*dtypes):
    """The loosest of the default (rtol, atol) pairs of ``dtypes``."""
    pairs = [_DEFAULT_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _as_number(x):
    """A Python number (NumPy scalars converted), or None when ``x`` is not a number."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, float, complex)):
        return x
    if isinstance(x, np.number):
        return x.item()
    return None


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))


def _no_pair(actual, expected):
    return _Failure(TypeError, f"assert_close: no comparison is defined between inputs of type "
                               f"{type(actual)} and {type(expected)}; both must be tensors, "
                               f"arrays, numbers, or sequences or mappings of them")


def _compare(actual, expected, opts):
    """Raise _Failure when ``actual`` and ``expected`` are not close; recurse into containers."""
    if actual is None or expected is None:
        if actual is not expected:
            raise _Failure(AssertionError, f"None mismatch: {actual!r} is not {expected!r}")
        return
    a_num, e_num = _as_number(actual), _as_number(expected)
    if a_num is not None and e_num is not None:
        _compare_numbers(a_num, e_num, opts)
        return
    a_arr = isinstance(actual, (Tensor, np.ndarray))
    e_arr = isinstance(expected, (Tensor, np.ndarray))
    if a_arr and e_arr and isinstance(actual, Tensor) == isinstance(expected, Tensor):
        _compare_arrays(actual, expected, opts)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, opts, f"[{i}]")
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            raise _Failure(AssertionError,
                           f"The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n"
                           f"Additional keys in the actual mapping: {sorted(extra, key=repr)}")
        for k in expected:
            _compare_item(actual[k], expected[k], opts, f"[{k!r}]")
        return
    raise _no_pair(actual, expected)


def _compare_item(actual, expected, opts, where):
    try:
        _compare(actual, expected, opts)
    except _Failure as f:
        # items are reported outermost first: "[1]['w']"
        if "\n\nThe failure occurred for item " in f.message:
            head, _, path = f.message.rpartition("\n\nThe failure occurred for item ")
            f.message = f"{head}\n\nThe failure occurred for item {where}{path}"
        else:
            f.message += f"\n\nThe failure occurred for item {where}"
        raise


def _tolerances(opts, *dtypes):
    if opts["rtol"] is None:
        return _default_tolerances(*dtypes)
    return opts["rtol"], opts["atol"]


def _compare_numbers(actual, expected, opts):
    ta, te = type(actual), type(expected)
    if (ta is bool) != (te is bool) or (opts["check_dtype"] and ta is not te):
        raise _Failure(AssertionError, f"The (d)types do not match: {ta} != {te}.")
    if ta is bool and te is bool:
        if actual != expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    rtol, atol = _tolerances(opts, _NUMBER_DTYPES[ta], _NUMBER_DTYPES[te])
    exact = rtol == 0 and atol == 0
    if actual == expected:
        return
    if opts["equal_nan"] and _isnan(actual) and _isnan(expected):
        return
    abs_diff = abs(actual - expected)
    rel_diff = abs_diff / abs(expected) if expected != 0 else math.inf
    # an infinite expected value admits only itself, handled by the equality test above
    if not exact and _isfinite(expected) and abs_diff <= atol + rtol * abs(expected):
        return
    if exact:
        detail = f"Absolute difference: {abs_diff}\nRelative difference: {rel_diff}"
    else:
        detail = (f"Absolute difference: {abs_diff} (up to {atol} allowed)\n"
                  f"Relative difference: {rel_diff} (up to {rtol} allowed)")
    word = "equal" if exact else "close"
    raise _Failure(AssertionError, f"Scalars are not {word}!\n\nExpected {expected} but got "
                                   f"{actual}.\n{detail}")


def _isnan(x):
    return isinstance(x, (float, complex)) and x != x


def _isfinite(x):
    return isinstance(x, int) or (cmath.isfinite(x) if isinstance(x, complex) else
                                  math.isfinite(x))


def _meta(x):
    """(shape, dtype, device) of a Tensor or ndarray (arrays live on the CPU)."""
    if isinstance(x, Tensor):
        return tuple(x.shape), x.dtype, x.device
    return x.shape, _dtype.from_numpy_dtype(x.dtype), as_device("cpu")


def _host(x):
    """The values of a Tensor or ndarray as a NumPy array on the CPU."""
    if isinstance(x, Tensor):
        return x.detach().cpu()._array  # not .numpy(): bfloat16/float8 have no NumPy dtype
    return x


def _compare_arrays(actual, expected, opts):
    (sa, da, deva), (se, de, deve) = _meta(actual), _meta(expected)
    if sa != se:
        raise _Failure(AssertionError, f"The values for attribute 'shape' do not match: "
                                       f"{Size(sa)} != {Size(se)}.")
    if opts["check_device"] and deva != deve:
        raise _Failure(AssertionError, f"The values for attribute 'device' do not match: "
                                       f"{deva} != {deve}.")
    if opts["check_dtype"] and da is not de:
        raise _Failure(AssertionError, f"The values for attribute 'dtype' do not match: "
                                       f"{da} != {de}.")
    if opts["check_stride"] and isinstance(actual, Tensor) and actual.stride() != \
            expected.stride():
        raise _Failure(AssertionError, f"The values for attribute 'stride()' do not match: "
                                       f"{actual.stride()} != {expected.stride()}.")
    rtol, atol = _tolerances(opts, da, de)
    la, le = (getattr(x, "layout", _layout.strided) for x in (actual, expected))
    if la is not le or la is not _layout.strided:
        if opts.get("check_layout", True) and la is not le:
            raise _Failure(AssertionError, f"The values for attribute 'layout' do not match: "
                                           f"{la} != {le}.")
        if la is le and la in _SPARSE_PARTS:
            _compare_sparse(actual, expected, la, rtol, atol, opts)
            return
        actual, expected = (x.to_dense() if getattr(x, "layout", _layout.strided) is not
                            _layout.strided else x for x in (actual, expected))
    common = _dtype.promote_types(da, de).np
    _compare_values(_host(actual), _host(expected), common, rtol, atol, opts)


def _compare_values(a, e, common, rtol, atol, opts, header=None):
    a = np.asarray(a, dtype=common)
    e = np.asarray(e, dtype=common)
    exact = rtol == 0 and atol == 0
    mismatch = _mismatches(a, e, rtol, atol, opts["equal_nan"], exact)
    count = int(np.count_nonzero(mismatch))
    if count:
        message = _array_message(a, e, mismatch, count, rtol, atol, exact)
        if header is not None:  # (a sparse tensor's part: its own first line)
            message = header + message[message.index("!") + 1:]
        raise _Failure(AssertionError, message)


# the parts of each sparse layout assert_close compares: (name in messages, index parts)
_SPARSE_PARTS = {
    _layout.sparse_coo: ("COO", (("indices", lambda t: t._indices()),)),
    _layout.sparse_csr: ("CSR", (("crow_indices", lambda t: t.crow_indices()),
                                 ("col_indices", lambda t: t.col_indices()))),
    _layout.sparse_csc: ("CSC", (("ccol_indices", lambda t: t.ccol_indices()),
                                 ("row_indices", lambda t: t.row_indices()))),
}


def _compare_sparse(actual, expected, layout, rtol, atol, opts):
    """Two sparse tensors of one layout, as torch compares them: the number of specified
    values, then the index parts exactly (as stored: no coalescing), then the values with the
    tolerance."""
    name, parts = _SPARSE_PARTS[layout]
    if layout is _layout.sparse_coo and actual.sparse_dim() != expected.sparse_dim():
        raise _Failure(AssertionError, f"The number of sparse dimensions in sparse COO tensors "
                                       f"does not match: {actual.sparse_dim()} != "
                                       f"{expected.sparse_dim()}")
    na, ne = actual._nnz(), expected._nnz()
    if na != ne:
        raise _Failure(AssertionError, f"The number of specified values in sparse {name} "
                                       f"tensors does not match: {na} != {ne}")
    for part, get in parts:
        ia, ie = _host(get(actual)), _host(get(expected))
        _compare_values(ia, ie, np.int64, 0.0, 0.0, opts,
                        header=f"Sparse {name} {part} are not equal!")
    va, ve = actual._values() if layout is _layout.sparse_coo else actual.values(), \
        expected._values() if layout is _layout.sparse_coo else expected.values()
    common = _dtype.promote_types(va.dtype, ve.dtype).np
    _compare_values(_host(va), _host(ve), common, rtol, atol, opts,
                    header=f"Sparse {name} values are not close!" if rtol or atol else
                    f"Sparse {name} values are not equal!")


def _mismatches(a, e, rtol, atol, equal_nan, exact):
    """Boolean array: True where ``a`` is not within ``atol + rtol * |e|`` of ``e``."""
    if exact and a.dtype.kind in "biu":
        return a != e
    if a.dtype.kind in "biu":
        # a tolerance on integers is applied in float64, where |a - e| cannot wrap around
        a, e = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        # equality admits equal infinities; otherwise an infinite expected value would allow
        # any actual value, as atol + rtol * inf is inf
        close = (a == e) | (np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e)))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(e)
    return ~close


def _differences(a, e, mismatch):
    """Absolute and relative differences, set to zero where the elements agree. As torch
    reports them: a 0-d pair's in Python numbers, an integer pair's relative difference in
    the default dtype (integer true division), others in the inputs' dtype."""
    if a.ndim == 0:
        x, y = a.item(), e.item()
        if a.dtype.kind in "biu":
            x, y = int(x), int(y)
        abs_diff = abs(x - y)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel_diff = abs_diff / abs(y) if y else np.float64(abs_diff) / np.float64(0)
        return (np.asarray(abs_diff if mismatch else 0), np.asarray(rel_diff if mismatch else 0))
    integer = a.dtype.kind in "biu"
    if integer:
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        abs_diff = np.abs(a - e)
        if integer:
            real = _dtype.get_default_dtype().np
            rel_diff = abs_diff.astype(real) / np.abs(e).astype(real)
        else:
            rel_diff = abs_diff / np.abs(e)
    abs_diff = np.where(mismatch, abs_diff, 0)
    rel_diff = np.where(mismatch, rel_diff, 0)
    return abs_diff, rel_diff


def _worst(diff):
    """The largest value of ``diff`` and its flat index; a nan counts as the largest."""
    flat = diff.reshape(-1)
    nans = np.flatnonzero(np.isnan(flat)) if flat.dtype.kind == "f" else ()
    i = int(nans[0]) if len(nans) else int(np.argmax(flat))
    return flat[i].item(), i


def _array_message(a, e, mismatch, count, rtol, atol, exact):
    abs_diff, rel_diff = _differences(a, e, mismatch)
    max_abs, i_abs = _worst(abs_diff)
    max_rel, i_rel = _worst(rel_diff)
    word = "equal" if exact else "close"
    abs_tol = "" if exact else f" (up to {atol} allowed)"
    rel_tol = "" if exact else f" (up to {rtol} allowed)"
    if a.ndim == 0:
        return (f"Scalars are not {word}!\n\nExpected {e.item()} but got {a.item()}.\n"
                f"Absolute difference: {max_abs}{abs_tol}\n"
                f"Relative difference: {max_rel}{rel_tol}")
    total = a.size
    at_abs = tuple(int(k) for k in np.unravel_index(i_abs, a.shape))
    at_rel = tuple(int(k) for k in np.unravel_index(i_rel, a.shape))
    return (f"Tensor-likes are not {word}!\n\n"
            f"Mismatched elements: {count} / {total} ({100.0 * count / total:.1f}%)\n"
            f"Greatest absolute difference: {max_abs} at index {at_abs}{abs_tol}\n"
            f"Greatest relative difference: {max_rel} at index {at_rel}{rel_tol}")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are equal up to a dtype-dependent tolerance.

    Elements ``a`` and ``e`` are close when ``|a - e| <= atol + rtol * |e|`` (or when they are
    equal, which admits matching infinities). Without ``rtol``/``atol`` the tolerance comes from
    the dtype: float16 ``(1e-3, 1e-5)``, bfloat16 ``(1.6e-2, 1e-5)``, float32 and complex64
    ``(1.3e-6, 1e-5)``, float64 and complex128 ``(1e-7, 1e-7)``; integers and booleans must
    match exactly. When the two dtypes
    differ (``check_dtype=False``) the looser tolerance is used and the values are compared in
    their promoted dtype. Python floats count as float64 and ints as int64.

    Tensors are compared with tensors and NumPy arrays with arrays: shape first, then device
    and dtype (unless switched off), then values. Sequences (lists and tuples mix freely) and
    mappings are compared item by item, and a failure names the item, e.g. ``[1]['weight']``.
    ``requires_grad`` is ignored.

    Args:
        actual: the value produced by the code under test.
        expected: the reference value.
        allow_subclasses (bool): accepted for torch compatibility; subclasses of Tensor are
            always compared as tensors. Default: True.
        rtol (float, optional): relative tolerance; give it together with ``atol``.
        atol (float, optional): absolute tolerance; give it together with ``rtol``.
        equal_nan (bool): treat two NaNs as equal. Default: False.
        check_device (bool): require both tensors on the same device. Default: True.
        check_dtype (bool): require the same dtype (or the same Python number type).
            Default: True.
        check_layout (bool): require the same layout (strided, sparse COO/CSR/CSC); when
            off, sparse tensors are compared as dense ones. Default: True.
        check_stride (bool): also require equal strides. Default: False.
        msg (str or callable, optional): replaces the failure message; a callable receives the
            generated message and returns the one to raise.

    Raises:
        AssertionError: the inputs differ; the message gives the number of mismatched
            elements and the greatest absolute and relative differences with their indices.
        TypeError: the inputs are of types that cannot be compared (a tensor with a list, a
            tensor with a NumPy array, strings, ...).
        ValueError: only one of ``rtol`` and ``atol`` was given.

    Example:
        >>> import numtorch as torch
        >>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
        >>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.1]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 1 (100.0%)
        ...
    """
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None and (rtol < 0 or atol < 0):
        raise ValueError(f"assert_close: 'rtol' and 'atol' must be non-negative, but got "
                         f"rtol={rtol} and atol={atol}")
    opts = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_device": check_device,
            "check_dtype": check_dtype, "check_stride": check_stride,
            "check_layout": check_layout}
    try:
        _compare(actual, expected, opts)
    except _Failure as f:
        if f.cls is not AssertionError or msg is None:
            raise f.cls(f.message) from None
        raise AssertionError(msg(f.message) if callable(msg) else msg) from None


# assert_allclose's own defaults, looser than assert_close's for float32
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5),
                        "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated predecessor of :func:`assert_close` (warns, as torch's does).

    Non-tensors become tensors (``expected`` in ``actual``'s dtype), dtypes need not match,
    NaNs compare equal by default, and the default tolerances are (rtol, atol) = (1e-3, 1e-3)
    for float16, (1e-4, 1e-5) for float32 and (1e-5, 1e-8) for float64 (0 for others).
    """
    import warnings

    from .. import tensor as _to_tensor

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _to_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _to_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
