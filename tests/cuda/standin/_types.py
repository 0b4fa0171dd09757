"""CuPy's ufunc type resolution, so the stand-in's results have the dtypes a GPU gives.

NumPy keeps a bfloat16 ``where`` in bfloat16; CuPy does not. A CuPy ufunc holds an ordered list
of type loops (``ufunc.types``: ``'?ee->e'``, ``'?ff->f'``...) and runs the FIRST loop every
input can be cast to safely (``cupy/_core/_kernel.pyx``, ``_Ops.guess_routine`` and
``_guess_routine_from_in_types``): inputs are cast to that loop's types and the output has the
loop's output type. A ufunc without a bfloat16 (``E``) loop therefore computes bfloat16 in
float32 and returns float32. Python scalars are weak (NEP 50): a loop fits a Python ``int``,
``float`` or ``complex`` when ``numpy.result_type(type(x)(0), loop_type)`` is the loop type,
unless a scalar is of a higher kind (bool < integer < float/complex < anything else, bfloat16
included) than every array, in which case every operand counts with its default dtype (int64,
float64, complex128). With ``dtype=`` the first loop whose outputs all have that dtype runs.

The loops come from the real package (``cupy_names.json``, ``"ufunc_types"``, written by
``make_names.py``); :func:`install` puts the resolution in front of every stand-in ufunc and
gives ``where``, ``clip``/``ndarray.clip`` and ``around``/``ndarray.round`` (functions that call
unexported CuPy ufuncs) the same rule.
"""

import numpy as np

from ._array import ndarray, unsupported, wrap
from ._names import NAMES

_TYPES = NAMES["ufunc_types"]
_WEAK_INT = frozenset(_TYPES["promote_weak_int"])
_CACHE = {}
_RESOLVED = {}


def _dtype(char):
    if char == "E":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(char)


def _parse(loop):
    """``"ff->f"`` (or ``"!??->?!message"``, a combination CuPy refuses) as dtype tuples."""
    error = None
    if loop.startswith("!"):
        loop, error = loop[1:].split("!", 1)
    ins, outs = loop.split("->")
    if "V" in ins:  # structured-void comparisons: not a dtype numtorch makes
        return None
    return tuple(_dtype(c) for c in ins), tuple(_dtype(c) for c in outs), error


def loops(key, out_ops=False):
    """The type loops of CuPy's ufunc ``key`` (``"add"``, ``"where"``,
    ``"cupyx.scipy.special.erf"``) in CuPy's order; None for one CuPy does not have."""
    ck = (key, out_ops)
    got = _CACHE.get(ck)
    if got is None:
        if out_ops and key in _TYPES["out_ops"]:
            raw = _TYPES["out_ops"][key]
        elif key in _TYPES["ufuncs"]:
            raw = _TYPES["tables"][_TYPES["ufuncs"][key]]
        else:
            return None
        got = _CACHE[ck] = [p for p in map(_parse, raw) if p is not None]
    return got


def _kind_score(t):
    if issubclass(t, (np.bool_, bool)):
        return 0
    if issubclass(t, (np.integer, int)):
        return 1
    if issubclass(t, (np.inexact, float, complex)):
        return 2
    return 3  # bfloat16 (ml_dtypes) is none of NumPy's kinds


def operand_type(x):
    """CuPy's view of an input: ``(dtype, weak Python type or False)``."""
    t = type(x)
    if t is bool:
        return np.dtype(bool), False
    if t is float:
        return np.dtype(np.float64), float
    if t is complex:
        return np.dtype(np.complex128), complex
    if t is int:
        return np.dtype(np.uint64 if x >= 0x8000000000000000 else np.int64), int
    return x.dtype, False  # a (host) array or a NumPy scalar: strong


def resolve(key, in_types, weaks=None, dtype=None):
    """The loop ``(in_dtypes, out_dtypes)`` CuPy's ufunc ``key`` runs for inputs of
    ``in_types`` (``weaks``: each input's weak Python type or False), or for ``dtype=``.
    Raises CuPy's TypeError where it has no loop or refuses the one it finds."""
    ck = (key, in_types, weaks, dtype)  # CuPy caches its choice per ufunc the same way
    found = _RESOLVED.get(ck)
    if found is None:
        found = _RESOLVED[ck] = _search(key, in_types, weaks, dtype)
    if type(found) is str:
        raise TypeError(found)
    if found[2] is not None:
        raise TypeError(found[2])
    return found[0], found[1]


def _search(key, in_types, weaks, dtype):
    """The loop of :func:`resolve`, or the message of CuPy's TypeError when none fits."""
    if dtype is not None:
        dtype = np.dtype(dtype)
        found = next((lp for lp in loops(key, out_ops=True)
                      if all(o == dtype for o in lp[1])), None)
        what = dtype
    else:
        if weaks is not None and any(weaks):
            arrays = [_kind_score(t.type) for t, w in zip(in_types, weaks) if not w]
            scalars = [_kind_score(w) for w in weaks if w]
            if not arrays or max(arrays) < max(scalars):
                weaks = None  # the scalars' kind wins: their default dtypes compete
            elif key in _WEAK_INT and len(weaks) == 2:
                # comparisons: a Python int against an integer array counts as int64
                # (``promote_weak_int``), so int32(-2**31) == 2**32 compares correctly
                if weaks[0] is int and not weaks[1] and in_types[1].kind in "iu":
                    weaks = (False, weaks[1])
                elif weaks[1] is int and not weaks[0] and in_types[0].kind in "iu":
                    weaks = (weaks[0], False)
        found = None
        for lp in loops(key):
            for i, (it, ot) in enumerate(zip(in_types, lp[0])):
                if np.can_cast(it, ot):
                    continue
                w = weaks[i] if weaks is not None else False
                if not w:
                    break
                try:  # the weak scalar fits unless it would promote the loop's type
                    if np.result_type(w(0), ot) != ot:
                        break
                except TypeError:
                    break
            else:
                found = lp
                break
        what = tuple(in_types)
    if found is None:
        return f"Wrong type ({what}) of arguments for cupy_{key.rsplit('.', 1)[-1]}"
    return found


def _cast(x, t):
    if isinstance(x, np.ndarray):
        return x if x.dtype == t else x.astype(t)
    # a scalar is stored in the loop's type as NumPy assigns it (out-of-range ints raise)
    return np.array(x, dtype=t)[()]


def cast_inputs(key, ins, dtype=None):
    """``ins`` (host arrays and scalars) cast to the types of the loop CuPy picks, and the
    loop's output dtypes."""
    types = [operand_type(x) for x in ins]
    weaks = tuple(w for _, w in types)
    in_t, out_t = resolve(key, tuple(t for t, _ in types), weaks if any(weaks) else None,
                          dtype)
    return [_cast(x, t) for x, t in zip(ins, in_t)], out_t


def check_output_cast(out_type, given, casting):
    """CuPy's check of a loop's output type against an ``out=`` array (``_dtype.pyx``
    ``_raise_if_invalid_cast``: same kind passes, otherwise NumPy's ``can_cast``)."""
    if out_type == given or (casting == "same_kind" and out_type.kind == given.kind):
        return
    if not np.can_cast(out_type, given, casting):
        raise TypeError(f"Cannot cast output operand from {out_type!r} to {given!r} "
                        f"according to the rule '{casting}'")


def typed(key, fn):
    """NumPy's ``fn`` behind CuPy's type resolution for ufunc ``key``."""

    def call(*ins, out=None, dtype=None, casting="same_kind", **kw):
        ins, out_t = cast_inputs(key, list(ins), dtype)
        if out is not None:
            for t, o in zip(out_t, out):
                check_output_cast(t, o.dtype, casting)
            natural = fn(*ins, **kw)
            natural = natural if type(natural) is tuple else (natural,)
            if all(r.dtype == t for r, t in zip(natural, out_t)) and "where" not in kw:
                for r, o in zip(natural, out):
                    np.copyto(o, r, casting="unsafe")
                return out if len(out) > 1 else out[0]
            for r, o, t in zip(natural, out, out_t):
                np.copyto(o, np.asarray(r).astype(t), casting="unsafe",
                          where=kw.get("where", True))
            return out if len(out) > 1 else out[0]
        r = fn(*ins, **kw)
        if type(r) is tuple:
            return tuple(v if v.dtype == t else v.astype(t) for v, t in zip(r, out_t))
        return r if r.dtype == out_t[0] else np.asarray(r).astype(out_t[0])

    call.__name__ = getattr(fn, "__name__", key)
    return call


def _host(v):
    if type(v) is np.ndarray:
        raise unsupported(v)  # a host array mixed with device arrays
    return v._d if type(v) is ndarray else v


def _device(v):
    return wrap(v) if type(v) is np.ndarray else v


def install(cp, cpx, ufunc):
    """Put CuPy's type resolution in front of every stand-in ufunc (the NumPy function each
    one runs), and of ``where``, ``clip``/``ndarray.clip`` and ``around``/``ndarray.round``,
    which run unexported CuPy ufuncs (``_where_ufunc``, ``_clip``, ``_round_ufunc``)."""
    done = set()
    for mod, prefix in ((cp, ""), (cpx, "cupyx."),
                        (cpx.scipy.special, "cupyx.scipy.special.")):
        for n in dir(mod):
            u = getattr(mod, n)
            if type(u) is ufunc and id(u) not in done:
                done.add(id(u))
                key = prefix + n if prefix + n in _TYPES["ufuncs"] else u.__name__
                if key in _TYPES["ufuncs"]:
                    u._fn = typed(key, u._fn)

    where_values, clip_values, round_values = cp.where, ndarray.clip, ndarray.round
    around_functions = {n: getattr(cp, n) for n in ("around", "round", "round_")
                        if hasattr(cp, n)}

    def where(condition, x=None, y=None):
        if x is None or y is None:
            return where_values(condition, x, y)
        cond = condition.astype(bool, copy=False)  # as CuPy's where does first
        ins, _ = cast_inputs("where", [_host(cond), _host(x), _host(y)])
        return where_values(cond, _device(ins[1]), _device(ins[2]))

    def clip(self, min=None, max=None, out=None):  # CuPy's names
        kind = self.dtype.kind  # CuPy fills a missing bound of float and integer arrays only
        if min is None and kind in "fiu":
            min = self.dtype.type(-np.inf) if kind == "f" else np.iinfo(self.dtype).min
        if max is None and kind in "fiu":
            max = self.dtype.type(np.inf) if kind == "f" else np.iinfo(self.dtype).max
        for v in (min, max):
            if v is None:
                raise TypeError(f"Unsupported type {type(v)}")
        ins, (out_t,) = cast_inputs("clip", [self._d, _host(min), _host(max)])
        return _run(clip_values, self, ins, out_t, out)

    def round_(self, decimals=0, out=None):
        if decimals < 0 and self.dtype.kind in "iu":  # CuPy: an integer-only ufunc
            return round_values(self, decimals, out=out)
        ins, (out_t,) = cast_inputs("around", [self._d, decimals])
        return _run(round_values, self, [ins[0], decimals], out_t, out)

    def around_function(name):
        def around(a, decimals=0, out=None):
            if type(a) is ndarray:
                return a.round(decimals, out=out)
            return around_functions[name](a, decimals, out=out)

        around.__name__ = name
        return around

    ndarray.clip, ndarray.round, cp.where = clip, round_, where
    for n in around_functions:
        setattr(cp, n, around_function(n))


def _run(method, self, ins, out_t, out):
    """``method`` (the stand-in's NumPy-faithful values) on ``ins`` cast to CuPy's loop;
    the result in the loop's output type, or written into ``out`` as CuPy casts it."""
    first = self if ins[0] is self._d else wrap(ins[0])
    rest = [_device(v) for v in ins[1:]]
    if out is not None:
        check_output_cast(out_t, out.dtype, "same_kind")
        if first is self and out.dtype == out_t == self.dtype:
            return method(first, *rest, out=out)
    r = method(first, *rest)
    if r.dtype != out_t:
        r = wrap(r._d.astype(out_t))
    if out is None:
        return r
    out._d[...] = r._d
    return out
