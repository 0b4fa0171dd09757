"""Which numbers in a trace depend on the dynamic axes, and how.

A trace records plain numbers: ``x.view(b * h, t, d)`` keeps ``b * h`` as the int it was. To
export dynamic axes the model is traced again with those axes at other sizes; the traces must
make the same calls, and every number that differs between them is solved as a simple
expression of the axis sizes (``c * s``, ``c * s1 * s2``, ``c * s + d``, ``s // c``), which the
graph then computes from the inputs' shapes at run time. A third trace confirms the choice.

The results are ``Sym`` ints: they behave as their value in the first trace, so code that
does not care about dynamic sizes reads them as plain ints, and code that does asks
``isinstance(x, Sym)``.
"""

import itertools
import warnings

import numpy as np

from .errors import OnnxExporterWarning


class Symbol:
    """A dynamic axis: its name, where it is read from, and its size in each trace."""

    def __init__(self, name, sources, sizes):
        self.name, self.sources, self.sizes = name, sources, sizes


class Sym(int):
    """An int that depends on dynamic axes: ``(coef * prod(factors) + pre) // div + offset``
    (``factors`` are symbol indices)."""

    def __new__(cls, value, coef=1, factors=(), offset=0, div=1, pre=0):
        self = super().__new__(cls, value)
        self.coef, self.factors, self.offset, self.div = coef, tuple(factors), offset, div
        self.pre = pre
        return self

    @property
    def key(self):
        """What identifies the expression (two Syms with one key are the same size)."""
        return (self.coef, self.factors, self.pre, self.div, self.offset)

    def __repr__(self):
        return f"Sym({int(self)}: ({self.coef}*{self.factors}+{self.pre})//{self.div}" \
               f"+{self.offset})"


class Unknown(int):
    """An int that differs between the traces in a way no simple expression explains."""

    def __repr__(self):
        return f"Unknown({int(self)})"


class DynArray:
    """An array parameter that differs between the traces."""

    def __init__(self, array):
        self.array = array


class Mismatch(Exception):
    """The traces made different calls (control flow depends on the sizes)."""


class DynConst:
    """A tensor made inside ``forward`` whose size follows a dynamic axis.

    Attributes:
        kind (str): ``"full"`` (every element ``value``), ``"arange"`` (``start + step * i``),
            ``"size"`` (a 0-d integer equal to the Sym ``value``) or ``"unknown"``.
        shape (tuple): ints and Syms.
    """

    def __init__(self, kind, shape, dtype, value=None, start=None, step=None):
        self.kind, self.shape, self.dtype = kind, shape, dtype
        self.value, self.start, self.step = value, start, step


def solve(values, symbols):
    """A Sym for the int that took ``values`` in the traces, or Unknown."""
    a = list(values)
    n = len(a)
    sizes = [np.asarray(s.sizes[:n], dtype=np.int64) for s in symbols]
    want = np.asarray(a, dtype=np.int64)
    # c * s_k, then c * s_j * s_k
    for k, s in enumerate(sizes):
        if s[0] and a[0] % s[0] == 0:
            c = a[0] // int(s[0])
            if c and np.array_equal(c * s, want):
                return Sym(a[0], coef=c, factors=(k,))
    for j, k in itertools.combinations_with_replacement(range(len(sizes)), 2):
        p = sizes[j] * sizes[k]
        if p[0] and a[0] % p[0] == 0:
            c = a[0] // int(p[0])
            if c and np.array_equal(c * p, want):
                return Sym(a[0], coef=c, factors=(j, k))
    # (s_k + d) // c
    for k, s in enumerate(sizes):
        for c in range(2, 65):
            for d in range(c):
                if np.array_equal((s + d) // c, want):
                    return Sym(a[0], factors=(k,), div=c, pre=d)
    # c * s_k + d, then c * s_j * s_k + d
    products = [((k,), s) for k, s in enumerate(sizes)] + [
        ((j, k), sizes[j] * sizes[k])
        for j, k in itertools.combinations_with_replacement(range(len(sizes)), 2)]
    for factors, p in products:
        if n > 1 and p[1] != p[0] and (a[1] - a[0]) % (p[1] - p[0]) == 0:
            c = int((a[1] - a[0]) // (p[1] - p[0]))
            d = a[0] - c * int(p[0])
            if c and np.array_equal(c * p + d, want):
                return Sym(a[0], coef=c, factors=factors, offset=d)
    return Unknown(a[0])


def diff(first, others, symbols):
    """``first`` with every number that differs in ``others`` (the same thing in the other
    traces) replaced by a Sym (or Unknown); raises Mismatch when the structure differs."""
    if isinstance(first, (bool, np.bool_)) or first is None or isinstance(first, str):
        if any(o != first for o in others):
            raise Mismatch(first)
        return first
    if isinstance(first, (int, np.integer)):
        if any(not isinstance(o, (int, np.integer)) for o in others):
            raise Mismatch(first)
        if all(o == first for o in others):
            return first
        return solve([int(first)] + [int(o) for o in others], symbols)
    if isinstance(first, (float, np.floating)):
        return first  # a float that follows a size is baked in (as torch's tracer does)
    if isinstance(first, slice):
        if any(not isinstance(o, slice) for o in others):
            raise Mismatch(first)
        return slice(*(diff(getattr(first, f), [getattr(o, f) for o in others], symbols)
                       for f in ("start", "stop", "step")))
    if isinstance(first, (tuple, list)):
        if any(type(o) is not type(first) or len(o) != len(first) for o in others):
            raise Mismatch(first)
        got = [diff(x, [o[i] for o in others], symbols) for i, x in enumerate(first)]
        return type(first)(got) if type(first) in (tuple, list) else tuple(got)
    if isinstance(first, dict):
        if any(not isinstance(o, dict) or o.keys() != first.keys() for o in others):
            raise Mismatch(first)
        return {k: diff(v, [o[k] for o in others], symbols) for k, v in first.items()}
    if isinstance(first, np.ndarray):
        if all(isinstance(o, np.ndarray) and o.shape == first.shape and
               np.array_equal(o, first) for o in others):
            return first
        return DynArray(first)
    return first


def const_info(first, others, symbols):
    """None for a constant that is the same in every trace, else a DynConst."""
    if all(o.shape == first.shape and o.dtype == first.dtype and
           np.array_equal(o, first, equal_nan=True) for o in others):
        return None
    if any(o.ndim != first.ndim for o in others):
        raise Mismatch(first)
    if all(o.shape == first.shape for o in others):
        if first.ndim == 0 and first.dtype.kind in "iu":  # torch.tensor(x.size(0)) and such
            value = solve([int(first)] + [int(o) for o in others], symbols)
            if isinstance(value, Sym):
                return DynConst("size", (), first.dtype, value=value)
        warnings.warn("a tensor created inside forward holds other values when the model runs "
                      "again (random numbers, or values computed outside numtorch's ops); "
                      "its values from the first run are exported as a constant",
                      OnnxExporterWarning, stacklevel=2)
        return None
    shape = diff(tuple(first.shape), [tuple(o.shape) for o in others], symbols)
    arrays = [first, *others]
    if all(a.size for a in arrays):
        flat = [a.reshape(-1) for a in arrays]
        v = flat[0][0]
        if all((f == v).all() for f in flat):
            return DynConst("full", shape, first.dtype, value=v)
        if first.ndim == 1 and all(len(f) > 1 for f in flat):
            start, step = flat[0][0], flat[0][1] - flat[0][0]
            expect = [start + step * np.arange(len(f), dtype=f.dtype) for f in flat]
            if all(f[0] == start and np.array_equal(f, e) for f, e in zip(flat, expect)):
                return DynConst("arange", shape, first.dtype, start=start, step=step)
    return DynConst("unknown", shape, first.dtype)


class DynInfo:
    """What differs between the traces, by node index and value id."""

    def __init__(self, symbols):
        self.symbols = symbols
        self.params = {}  # node index -> params with Syms
        self.consts = {}  # (node index, input position or path) -> DynConst
        self.scalars = {}  # (node index, input position) -> Sym
        self.shapes = {}  # value id -> shape with Syms (only values whose shape changes)


def compare(traces, symbols):
    """Align the traces call by call and describe every difference (see DynInfo)."""
    first, others = traces[0], traces[1:]
    info = DynInfo(symbols)
    for tr in others:
        if len(tr.nodes) != len(first.nodes) or len(tr.arrays) != len(first.arrays) or any(
                a.op != b.op for a, b in zip(first.nodes, tr.nodes)):
            raise Mismatch("the traces made different calls")
    for i, node in enumerate(first.nodes):
        other_nodes = [tr.nodes[i] for tr in others]
        params = diff(node.params, [o.params for o in other_nodes], symbols)
        if _has_dynamic(params):
            info.params[i] = params
        for pos, ref in enumerate(node.inputs):
            _compare_ref(info, (i, pos), ref, [o.inputs[pos] for o in other_nodes], symbols)
    for vid, arr in enumerate(first.arrays):
        shapes = [tuple(tr.arrays[vid].shape) for tr in others]
        if any(s != arr.shape for s in shapes):
            info.shapes[vid] = diff(tuple(arr.shape), shapes, symbols)
    return info


def _compare_ref(info, key, ref, others, symbols):
    kind = ref[0]
    if any(o[0] != kind for o in others):
        raise Mismatch(key)
    if kind == "c":
        if ref[2] is not None and all(o[1].shape == ref[1].shape for o in others):
            return  # a parameter or buffer (a running statistic may move between runs)
        got = const_info(ref[1], [o[1] for o in others], symbols)
        if got is not None:
            info.consts[key] = got
    elif kind == "s":
        got = diff(ref[1], [o[1] for o in others], symbols)
        if isinstance(got, (Sym, Unknown)):
            info.scalars[key] = got
        elif isinstance(ref[1], (float, np.floating)) and any(o[1] != ref[1] for o in others):
            warnings.warn(f"the number {ref[1]} depends on a dynamic axis; it is exported as a "
                          "constant and other sizes may give different results",
                          OnnxExporterWarning, stacklevel=2)
    elif kind == "l":
        for j, r in enumerate(ref[1]):
            _compare_ref(info, key + (j,), r, [o[1][j] for o in others], symbols)


def _has_dynamic(obj):
    if isinstance(obj, (Sym, Unknown, DynArray)):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_has_dynamic(o) for o in obj)
    if isinstance(obj, slice):
        return any(_has_dynamic(o) for o in (obj.start, obj.stop, obj.step))
    if isinstance(obj, dict):
        return any(_has_dynamic(o) for o in obj.values())
    return False


def has_dynamic(obj):
    """Whether ``obj`` (a param, possibly nested) holds a Sym, Unknown or DynArray."""
    return _has_dynamic(obj)
