"""Dynamic dimensions: which integers of a trace follow a dimension's size, and how.

The program is traced again with each dynamic dimension's size moved by one and by two. A call
sequence that changes means the program branches on that size (torch refuses such a
constraint too); an integer argument that moves with the size is kept as ``base + c * (s -
size)`` (a :class:`Sym`), checked to be affine on both moves; any other value that moves
cannot be expressed and is refused.
"""

from ._errors import UserError
from ._trace import Call, V


class Sym:
    """An integer ``const + sum(coef * (size_of_group - base_of_group))``."""

    __slots__ = ("coefs", "const")

    def __init__(self, const, coefs):
        self.const, self.coefs = const, dict(coefs)

    def __repr__(self):
        return f"Sym({self.const}, {self.coefs})"


def _moved(tensor, dim, size):
    """``tensor`` with ``dim`` resized to ``size`` (rows cut off or repeated)."""
    from .. import arange

    n = tensor.shape[dim]
    if size <= n:
        return tensor.narrow(dim, 0, size)
    return tensor.index_select(dim, arange(size) % n)


def _probe_sizes(n, lo, hi):
    """Sizes to trace again at: two next to ``n`` (for the affine fit) and the ends of the
    range, where a branch on the size would most likely show."""
    lo = max(lo, 2)
    up = [s for s in (n + 1, n + 2) if s <= hi]
    down = [s for s in (n - 1, n - 2) if s >= lo]
    near = up if len(up) == 2 else (down if len(down) == 2 else (up + down)[:2])
    ends = [s for s in (lo, hi) if s != float("inf") and s != n and s not in near]
    return near + ends


class Mismatch(Exception):
    pass


def _merge(base, moves, group, n0):
    """``base`` with every integer that differs in ``moves`` (a list of (size, template)) made a
    :class:`Sym` of ``group``; raises Mismatch when the structures differ."""
    if isinstance(base, bool) or base is None or isinstance(base, (str, V)):
        for _, other in moves:
            if other != base:
                raise Mismatch(base, other)
        return base
    if isinstance(base, (int, Sym)):
        const = base.const if isinstance(base, Sym) else base
        coefs = dict(base.coefs) if isinstance(base, Sym) else {}
        values = [(s, o.const if isinstance(o, Sym) else o) for s, o in moves]
        if any(not isinstance(v, int) or isinstance(v, bool) for _, v in values):
            raise Mismatch(base, values)
        if all(v == const for _, v in values):
            return base
        (s1, v1) = values[0]
        coef = (v1 - const) / (s1 - n0)
        if coef != int(coef) or any(v != const + coef * (s - n0) for s, v in values):
            raise UserError(f"numtorch.export: a size the program computes from the dynamic "
                            f"dimension {group} is not an affine function of it (it is "
                            f"{const}, {values[0][1]}, ... for sizes {n0}, {values[0][0]}, "
                            f"...); make that dimension static")
        coefs[group] = int(coef)
        return Sym(const, coefs)
    if isinstance(base, float):
        for _, other in moves:
            if other != base:
                raise UserError(f"numtorch.export: a float the program computes from the dynamic "
                                f"dimension {group} changes with it ({base} -> {other}); only "
                                "integer sizes can follow a dynamic dimension")
        return base
    if isinstance(base, slice):
        parts = [_merge(getattr(base, a), [(s, getattr(o, a)) for s, o in moves], group, n0)
                 for a in ("start", "stop", "step")]
        return slice(*parts)
    if isinstance(base, (tuple, list)):
        for _, other in moves:
            if type(other) is not type(base) or len(other) != len(base):
                raise Mismatch(base, other)
        items = [_merge(b, [(s, o[i]) for s, o in moves], group, n0)
                 for i, b in enumerate(base)]
        if isinstance(base, list):
            return items
        return type(base)(*items) if hasattr(base, "_fields") else tuple(items)
    if isinstance(base, dict):
        for _, other in moves:
            if not isinstance(other, dict) or list(other) != list(base):
                raise Mismatch(base, other)
        return {k: _merge(v, [(s, o[k]) for s, o in moves], group, n0) for k, v in base.items()}
    for _, other in moves:
        if other != base:
            raise Mismatch(base, other)
    return base


def _merge_traces(base, moves, group, n0):
    if len({len(t.calls) for _, t in moves} | {len(base.calls)}) != 1 or any(
            len(t.constants) != len(base.constants) for _, t in moves):
        raise Mismatch()
    calls = []
    for i, call in enumerate(base.calls):
        others = [(s, t.calls[i]) for s, t in moves]
        if any(o.signature() != call.signature() for _, o in others):
            raise Mismatch()
        args = _merge(call.args, [(s, o.args) for s, o in others], group, n0)
        kwargs = _merge(call.kwargs, [(s, o.kwargs) for s, o in others], group, n0)
        calls.append(Call(call.kind, call.name, call.target, args, kwargs, call.outputs,
                          call.out_type))
    base.calls = calls
    base.output = _merge(base.output, [(s, t.output) for s, t in moves], group, n0)
    return base


def symbolize(base, retrace, inputs, groups):
    """Make ``base`` (a Trace) follow each group of dynamic dimensions.

    ``groups``: {group name: (members [(input index, dim)], lo, hi, auto)};
    ``retrace(inputs)`` traces the program on other user inputs. Returns {group: base size}
    of the groups that stay dynamic (an ``auto`` group the program cannot follow is left
    out: it stays static).
    """
    sizes = {}
    for group, (members, lo, hi, auto) in groups.items():
        i0, d0 = members[0]
        n0 = inputs[i0].shape[d0]
        moves = []
        try:
            for size in _probe_sizes(n0, lo, hi):
                moved = list(inputs)
                for i, d in members:
                    moved[i] = _moved(moved[i], d, size)
                try:
                    moves.append((size, retrace(moved)))
                except UserError:
                    raise
                except Exception as e:
                    raise UserError(f"Constraints violated ({group})! The program fails when "
                                    f"{group} is {size}, inside the range it was given: "
                                    f"{type(e).__name__}: {e}; narrow the range of "
                                    f"{group}") from e
        except UserError:
            if auto:
                continue
            raise
        if not moves:
            continue
        try:
            merged = _merge_traces(_copy(base), moves, group, n0)
        except UserError:
            if auto:
                continue
            raise
        except Mismatch:
            if auto:
                continue
            raise UserError(
                f"Constraints violated ({group})! The program takes another path when {group} "
                f"is not {n0} (it branches on that size or reads it in Python), so it cannot "
                f"be exported with {group} dynamic; make it static or move the branch out of "
                "the model") from None
        base.calls, base.output = merged.calls, merged.output
        sizes[group] = n0
    return sizes


def _copy(trace):
    from ._trace import Trace

    return Trace(list(trace.calls), trace.constants, trace.output, trace.n_known)
