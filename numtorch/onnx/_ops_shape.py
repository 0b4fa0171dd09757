"""Converters of the shape and indexing ops: reshape, permute, expand, indexing, cat, pads.

Sizes that follow a dynamic axis arrive as Sym ints. Reshape writes them as ONNX's ``0``
(copy the input's size at that position) and ``-1`` (infer one size) where it can, so the
common ``view(batch, -1)`` costs no shape arithmetic; other Syms are computed from the input
shapes (``Ctx.vec``).
"""

import numpy as np

from ._convert import converter
from ._dynamic import Sym, Unknown

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _key(v):
    if isinstance(v, Sym):
        return ("sym", *v.key)
    if isinstance(v, Unknown):
        return ("unknown", id(v))
    return int(v)


def _dynamic(v):
    return isinstance(v, (Sym, Unknown))


@converter("Reshape", aten="aten::reshape")
def _reshape(ctx):
    b = ctx.b
    x = ctx.x(0)
    kind = ctx.p("kind")
    if kind == "unsqueeze":
        ctx.set(b.unsqueeze(x, [int(ctx.p("dim"))]))
        return
    if kind == "squeeze":
        dims = sorted(int(d) for d in ctx.p("dims"))
        ctx.set(b.squeeze(x, dims) if dims else b.op("Identity", x))
        return
    ctx.set(reshape(ctx, x, ctx.shape(0), ctx.p("shape")))


def reshape(ctx, x, src, target):
    """Reshape ``x`` (of shape ``src``) to ``target`` (ints and Syms) with as little shape
    arithmetic as possible."""
    b = ctx.b
    target = list(target)
    dyn = [j for j, t in enumerate(target) if _dynamic(t)]
    if not dyn:
        if 0 in target and ctx.opset >= 14:
            return b.op("Reshape", x, b.ints(target), allowzero=1)
        return b.op("Reshape", x, b.ints(target))
    entries = list(target)
    rest = []
    for j in dyn:
        if j < len(src) and not isinstance(target[j], Unknown) and \
                _key(src[j]) == _key(target[j]):
            entries[j] = 0
        else:
            rest.append(j)
    unknown = [j for j in rest if isinstance(target[j], Unknown)]
    if len(rest) == 1 or len(unknown) == 1:
        entries[(unknown or rest)[0]] = -1
    return b.op("Reshape", x, ctx.vec(entries))


@converter("Permute", aten="aten::permute")
def _permute(ctx):
    ctx.set(ctx.b.op("Transpose", ctx.x(0), perm=[int(d) for d in ctx.static("dims")]))


@converter("Expand", aten="aten::expand")
def _expand(ctx):
    src, target = ctx.shape(0), list(ctx.p("shape"))
    lead = len(target) - len(src)
    dims = []
    for j, t in enumerate(target):
        s = src[j - lead] if j >= lead else None
        dims.append(1 if s is not None and _key(s) == _key(t) else t)
    ctx.set(ctx.b.op("Expand", ctx.x(0), ctx.vec(dims)))


@converter("Repeat", aten="aten::repeat")
def _repeat(ctx):
    b = ctx.b
    x = ctx.x(0)
    reps = list(ctx.p("repeats"))
    extra = len(reps) - ctx.rank(0)
    if extra > 0:
        x = b.unsqueeze(x, list(range(extra)))
    ctx.set(b.op("Tile", x, ctx.vec(reps)))


@converter("Flip", aten="aten::flip")
def _flip(ctx):
    dims = [int(d) % ctx.rank(0) for d in ctx.static("dims")]
    n = len(dims)
    ctx.set(ctx.b.slice(ctx.x(0), [-1] * n, [_SMALL] * n, dims, [-1] * n))


@converter("Roll", aten="aten::roll")
def _roll(ctx):
    b = ctx.b
    x = ctx.x(0)
    shifts, dims = ctx.static("shifts"), ctx.static("dims")
    shape = ctx.arr(0).shape
    if dims is None or dims == ():
        flat = b.op("Reshape", x, b.ints([-1]))
        y = _roll_axis(b, flat, int(shifts if isinstance(shifts, int) else shifts[0]),
                       0, int(np.prod(shape)))
        ctx.set(b.op("Reshape", y, b.ints(list(shape))))
        return
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    for s, d in zip(shifts, dims):
        if ctx.shape(0)[d] != shape[d] or _dynamic(ctx.shape(0)[d]):
            raise ctx.unsupported("roll along a dynamic axis")
        x = _roll_axis(b, x, int(s), int(d), shape[d])
    ctx.set(x)


def _roll_axis(b, x, shift, axis, n):
    s = shift % n if n else 0
    if not s:
        return x
    tail = b.slice(x, [n - s], [n], [axis])
    head = b.slice(x, [0], [n - s], [axis])
    return b.op("Concat", tail, head, axis=axis)


@converter("Cat", aten="aten::cat")
def _cat(ctx):
    dt = ctx.out().dtype
    arrays = [ctx.arr(i) for i in range(ctx.n_inputs)]
    nd = max(a.ndim for a in arrays)
    keep = [i for i, a in enumerate(arrays) if not (a.ndim == 1 and a.shape[0] == 0 and nd > 1)]
    names = [ctx.x(i, dt) for i in keep or range(ctx.n_inputs)]
    axis = int(ctx.static("dim")) % nd
    ctx.set(ctx.b.op("Concat", *names, axis=axis) if len(names) > 1 else
            ctx.b.op("Identity", names[0]))


@converter("GetItem", aten="aten::slice")
def _getitem(ctx):
    b = ctx.b
    x = ctx.x(0)
    rank = ctx.rank(0)
    items = list(ctx.p("index"))
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    starts, ends, axes, steps = [], [], [], []
    picks, new_axes = [], []
    dim = out = 0
    for item in items:
        if item is None:
            new_axes.append(out)
            out += 1
        elif item is Ellipsis:
            dim += rank - used
            out += rank - used
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step
            if not ((start is None or start == 0 and not _dynamic(start)) and stop is None and
                    (step is None or step == 1)):
                starts.append(0 if start is None else start)
                ends.append(_BIG if stop is None else stop)
                axes.append(dim)
                steps.append(1 if step is None else step)
            dim += 1
            out += 1
        else:
            picks.append((dim, item))
            dim += 1
    if axes:
        x = b.op("Slice", x, ctx.vec(starts), ctx.vec(ends), b.ints(axes), ctx.vec(steps))
    for d, i in sorted(picks, reverse=True):  # the highest axis first keeps the others' places
        index = b.squeeze(ctx.sym(i), [0]) if _dynamic(i) else \
            b.const(np.asarray(int(i), np.int64))
        x = b.op("Gather", x, index, axis=d)
    if new_axes:
        x = b.unsqueeze(x, new_axes)
    if not (axes or picks or new_axes):
        x = b.op("Identity", x)
    ctx.set(x)


@converter("Split", aten="aten::split_with_sizes")
def _split(ctx):
    # split / chunk: one node with a piece per output (ops/multi_view.py)
    ctx.set(*ctx.b.split(ctx.x(0), ctx.static("sizes"), int(ctx.static("dim"))))


@converter("Unbind", aten="aten::unbind")
def _unbind(ctx):
    d = int(ctx.static("dim"))
    pieces = ctx.b.split(ctx.x(0), [1] * np.shape(ctx.arr(0))[d], d)
    ctx.set(*[ctx.b.squeeze(p, [d]) for p in pieces])


@converter("AdvGetItem", aten="aten::index")
def _adv_getitem(ctx):
    b = ctx.b
    x = ctx.x(0)
    rank = ctx.rank(0)
    items = list(ctx.static("index"))
    if any(i is Ellipsis for i in items):
        k = next(j for j, i in enumerate(items) if i is Ellipsis)
        used = sum(1 + (np.ndim(i) - 1 if _is_mask(i) else 0) for i in items
                   if i is not Ellipsis and i is not None)
        items[k:k + 1] = [slice(None)] * (rank - used)
    arrays = []  # (first input dim, ONNX name, shape)
    dim = 0
    for pos, item in enumerate(items):
        if isinstance(item, (np.ndarray, bool, np.bool_)):
            item = np.asarray(item)
            traced = ctx.param_value(("index", pos))
            if item.dtype == np.bool_:
                if sum(not _full(i) for i in items) > 1 or item.ndim == 0:
                    raise ctx.unsupported("a boolean mask mixed with other indices")
                arrays.append(_mask_positions(ctx, item, traced, dim))
                dim += item.ndim
                continue
            name = traced if traced is not None else b.const(item.astype(np.int64))
            arrays.append((dim, [name], item.shape))
            dim += 1
        elif _full(item):
            dim += 1
        else:
            raise ctx.unsupported(f"index item {item!r} in an advanced index")
    ctx.set(_gather_advanced(ctx, x, rank, arrays))


def _full(i):
    return isinstance(i, slice) and i == slice(None)


def _is_mask(i):
    return isinstance(i, np.ndarray) and i.dtype == np.bool_


def _mask_positions(ctx, mask, traced, dim):
    """The index arrays a boolean mask over dims ``dim..`` stands for (NonZero)."""
    b = ctx.b
    if traced is None:
        rows = [b.const(r.astype(np.int64)) for r in np.nonzero(mask)]
        return (dim, rows, (int(mask.sum()),))
    nz = b.op("NonZero", traced)  # (k, count)
    parts = b.split(nz, [1] * mask.ndim, 0) if mask.ndim > 1 else [nz]
    return (dim, [b.squeeze(p, [0]) for p in parts], None)


def _gather_advanced(ctx, x, rank, arrays):
    b = ctx.b
    flat = []  # (input dim, name)
    for dim, names, _ in arrays:
        flat.extend((dim + k, n) for k, n in enumerate(names))
    if len(flat) == 1:
        return b.op("Gather", x, flat[0][1], axis=flat[0][0])
    dims = [d for d, _ in flat]
    others = [d for d in range(rank) if d not in dims]
    moved = b.op("Transpose", x, perm=dims + others) if dims != list(range(len(dims))) else x
    # broadcast the index arrays against each other, then stack them on a new last axis
    shape_ref = flat[0][1]
    for _, n in flat[1:]:
        shape_ref = b.op("Add", shape_ref, b.op("Mul", n, b.const(np.zeros((), np.int64))))
    full = b.op("Shape", shape_ref)
    idx = b.op("Concat", *[b.unsqueeze(b.op("Expand", n, full), [-1]) for _, n in flat],
               axis=-1)
    y = b.op("GatherND", moved, idx)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent or dims[0] == 0:
        return y
    n_idx = len(ctx.out().shape) - len(others)
    perm = list(range(n_idx, n_idx + dims[0])) + list(range(n_idx)) + list(
        range(n_idx + dims[0], n_idx + len(others)))
    return b.op("Transpose", y, perm=perm)


@converter("Gather", aten="aten::gather")
def _gather(ctx):
    ctx.set(ctx.b.op("GatherElements", ctx.x(0), ctx.x(1, np.int64),
                     axis=int(ctx.static("dim")) % max(ctx.rank(0), 1)))


@converter("Scatter", aten="aten::scatter")
def _scatter(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    index = ctx.x(1, np.int64)
    src = ctx.x(2, dt)
    if ctx.rank(2) != ctx.rank(1) or ctx.shape(2) != ctx.shape(1):
        if ctx.rank(2) == 0:
            src = b.op("Expand", src, b.op("Shape", index))
        else:  # torch reads the leading part of a larger src
            src = b.slice(src, [0] * ctx.rank(1), list(ctx.arr(1).shape),
                          list(range(ctx.rank(1))))
    reduce = ctx.p("reduce")
    attrs = {}
    if reduce is not None:
        if ctx.opset < 16:
            raise ctx.unsupported("scatter with a reduction needs opset 16")
        attrs["reduction"] = {"add": "add", "sum": "add", "multiply": "mul", "prod": "mul",
                              "amax": "max", "amin": "min"}[reduce]
    ctx.set(b.op("ScatterElements", ctx.x(0, dt), index, src,
                 axis=int(ctx.static("dim")) % max(ctx.rank(0), 1), **attrs))


@converter("Embedding", aten="aten::embedding")
def _embedding(ctx):
    ctx.set(ctx.b.op("Gather", ctx.x(0), ctx.x(1, np.int64), axis=0))


@converter("Triangle", aten="aten::triu")
def _triangle(ctx):
    if ctx.opset < 14:
        from .errors import UnsupportedOperatorError

        raise UnsupportedOperatorError("aten::triu", ctx.opset, 14)
    k = ctx.p("k", 0)
    ctx.set(ctx.b.op("Trilu", ctx.x(0), ctx.b.squeeze(ctx.sym(k), [0]) if _dynamic(k)
                     else ctx.b.const(np.asarray(int(k), np.int64)),
                     upper=int(bool(ctx.p("upper")))))


@converter("Unfold", aten="aten::unfold")
def _unfold(ctx):
    b = ctx.b
    x = ctx.x(0)
    rank = ctx.rank(0)
    if rank == 0:
        ctx.set(b.op("Reshape", x, b.ints([1])))
        return
    d, size, step = (int(ctx.static(k)) for k in ("dim", "size", "step"))
    d %= rank
    n = ctx.shape(0)[d]
    if _dynamic(n):
        raise ctx.unsupported("unfold along a dynamic axis")
    count = (n - size) // step + 1
    index = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    y = b.op("Gather", x, b.const(index.astype(np.int64)), axis=d)  # (.., count, size, ..)
    perm = list(range(d + 1)) + list(range(d + 2, rank + 1)) + [d + 1]
    ctx.set(b.op("Transpose", y, perm=perm))


@converter("ConstantPad", aten="aten::constant_pad_nd")
def _pad(ctx):
    b = ctx.b
    pads = ctx.static("pads")
    lead = ctx.rank(0) - len(pads)
    begins = [0] * lead + [int(lo) for lo, _ in pads]
    ends = [0] * lead + [int(hi) for _, hi in pads]
    dt = ctx.out().dtype
    value = b.const(np.asarray(ctx.p("value", 0), dtype=dt))
    ctx.set(b.op("Pad", ctx.x(0), b.ints(begins + ends), value, mode="constant"))


@converter("Einsum", aten="aten::einsum")
def _einsum(ctx):
    terms, out = ctx.static("terms"), ctx.static("out")
    eq = ",".join(terms) + "->" + out
    dt = ctx.out().dtype
    ctx.set(ctx.b.op("Einsum", *[ctx.x(i, dt) for i in range(ctx.n_inputs)], equation=eq))


@converter("Diagonal", aten="aten::diagonal")
def _diagonal(ctx):
    b = ctx.b
    rank = ctx.rank(0)
    d1, d2 = int(ctx.static("d1")) % rank, int(ctx.static("d2")) % rank
    offset = int(ctx.static("offset"))
    shape = ctx.arr(0).shape
    n1, n2 = shape[d1], shape[d2]
    if _dynamic(ctx.shape(0)[d1]) or _dynamic(ctx.shape(0)[d2]):
        raise ctx.unsupported("diagonal over a dynamic axis")
    rows = np.arange(max(0, -offset), min(n1, n2 - offset), dtype=np.int64)
    others = [d for d in range(rank) if d not in (d1, d2)]
    x = b.op("Transpose", ctx.x(0), perm=others + [d1, d2])
    flat = b.op("Reshape", x, b.ints([0] * len(others) + [n1 * n2]))
    ctx.set(b.op("Gather", flat, b.const(rows * n2 + rows + offset), axis=len(others)))


@converter("SetItem", aten="aten::index_put_")
def _setitem(ctx):
    """``x[index] = value``: ScatterND at the positions the index selects (static shapes)."""
    b = ctx.b
    shape = ctx.arr(0).shape
    if any(_dynamic(d) for d in ctx.shape(0)):
        raise ctx.unsupported("x[index] = value on a tensor with dynamic axes")
    index = ctx.static("index")
    if any(k in ctx.node.param_values for k in [("index", i) for i in range(len(index))]):
        raise ctx.unsupported("x[index] = value with a computed index")
    positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[index]
    coords = np.stack(np.unravel_index(positions, shape), -1) if shape else \
        np.zeros(positions.shape + (0,), np.int64)
    dt = ctx.out().dtype
    value = ctx.x(1, dt)
    updates = b.op("Expand", value, b.ints(list(positions.shape)))
    ctx.set(b.op("ScatterND", ctx.x(0, dt), b.const(coords.astype(np.int64)), updates))


@converter("Overwrite", aten="aten::copy_")
def _overwrite(ctx):
    """The value ``copy_``/``fill_`` write: ``value`` broadcast to the target's shape."""
    b = ctx.b
    dt = ctx.out().dtype
    ctx.set(b.op("Expand", ctx.x(1, dt), b.op("Shape", ctx.x(0))))
