"""Lua tables as Python lists: walking nested tables of tensors.

Table modules (``ConcatTable``, ``JoinTable``, criterions on pairs...) take and return
nested lists of tensors; these helpers flatten them for autograd and rebuild them.
"""

from ..._tensor import Tensor

__all__ = []


def flatten(obj):
    """The tensors of a nested table, depth first."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        out = []
        for item in obj:
            out.extend(flatten(item))
        return out
    return []


def rebuild(template, values):
    """A table shaped like ``template`` with its tensors replaced, in order, by ``values``."""
    it = iter(values)

    def walk(node):
        if isinstance(node, Tensor):
            return next(it)
        if isinstance(node, (list, tuple)):
            return [walk(item) for item in node]
        return node

    return walk(template)


def zeros_like(obj):
    """A table of zero tensors shaped like ``obj``."""
    return rebuild(obj, [t.new_zeros(t.shape) for t in flatten(obj)])


def add_into(acc, obj):
    """``acc + obj`` for equally shaped tables; ``acc`` may be None (then a copy of ``obj``)."""
    if acc is None:
        return rebuild(obj, [t.clone() for t in flatten(obj)])
    return rebuild(acc, [a + b for a, b in zip(flatten(acc), flatten(obj))])


def index(pos, length, what="index"):
    """A Lua position (1-based; negative counts from the end) as a Python index."""
    if pos < 0:
        pos = length + pos + 1
    if not 1 <= pos <= length:
        raise IndexError(f"{what} {pos} out of range for a table of {length} elements")
    return pos - 1
